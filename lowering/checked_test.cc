// Checked mode (async asserts) and the lower-halide-alias mutant.
#include <gtest/gtest.h>

#include <cmath>

#include "generate/generator.h"
#include "ir/text.h"
#include "lowering/lowering.h"
#include "lowering/test_util.h"
#include "oracles/eager.h"

namespace af::lowering {
namespace {

// x.add_(x.t() + 1) inside one region: the transposed read is inlined into
// the in-place update, so binding one buffer as input and output reads
// elements the update already wrote.
const char* kAliasCase =
    "aliasfuzz 1\n"
    "storage s0 f32[16] = iota(0, 1)\n"
    "input x = as_strided(s0, [4, 4], [4, 1], 0)\n"
    "y = t(x)\n"
    "w = add(y, 1.0)\n"
    "add_(x, w)\n"
    "return x\n";

ir::Program parse(const char* text) {
  auto p = ir::parse_and_validate(text);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().to_string());
  return *p;
}

TEST(LowerHalideAlias, DivergesOnInPlaceAddOfTransposedView) {
  ir::Program p = parse(kAliasCase);
  auto expected = oracles::run_eager(p);
  ASSERT_TRUE(expected.ok());
  CompileCache cache;
  auto sched = program_order_schedule(p, 0);
  LowerOptions o;
  LowerResult good = run_schedule(sched, o, nullptr, cache);
  ASSERT_TRUE(good.ok) << good.error;
  EXPECT_FALSE(oracles::compare(p, *expected, good.obs)) << "correct lowering must agree";
  o.mutant = Mutant::LowerHalideAlias;
  LowerResult bad = run_schedule(sched, o, nullptr, cache);
  ASSERT_TRUE(bad.ok) << bad.error;
  EXPECT_TRUE(oracles::compare(p, *expected, bad.obs)) << "the mutant must diverge";
  // One region per statement: every pipeline reads its inputs before writing, no divergence.
  LowerResult split = run_schedule(program_order_schedule(p, 1), o, nullptr, cache);
  ASSERT_TRUE(split.ok) << split.error;
  EXPECT_FALSE(oracles::compare(p, *expected, split.obs));
}

TEST(LowerHalideAlias, CheckedModeNamesTheDivergingOp) {
  ir::Program p = parse(kAliasCase);
  CompileCache cache;
  auto sched = program_order_schedule(p, 0);
  LowerOptions o;
  o.checked = true;
  LowerResult good = run_schedule(sched, o, nullptr, cache);
  ASSERT_TRUE(good.ok) << good.error;
  EXPECT_FALSE(good.first_failure) << "no alarm on an agreeing run";
  o.mutant = Mutant::LowerHalideAlias;
  LowerResult bad = run_schedule(sched, o, nullptr, cache);
  ASSERT_TRUE(bad.ok) << bad.error;
  ASSERT_TRUE(bad.first_failure) << "checked mode must raise the alarm";
  // add_ (statement 2) writes wrong values. w (statement 1) is inlined into
  // that update and re-read from the aliased buffer; when Halide evaluates
  // its check after the update, w's values diverge too and, being the lower
  // statement, it is named (Halide 14 does so here). Either is the op whose
  // values went wrong; nothing before them may be named.
  EXPECT_TRUE(bad.first_failure->stmt == 1 || bad.first_failure->stmt == 2) << bad.first_failure->stmt;
  EXPECT_EQ(bad.first_failure->op, bad.first_failure->stmt == 1 ? "add" : "add_");
  EXPECT_EQ(bad.first_failure->region, 0);
  EXPECT_GT(bad.first_failure->count, 1);
}

TEST(CheckedMode, CorruptedExpectedNamesTheOp) {
  ir::Program p = fuzz::generate(99, 3, fuzz::halide_options());
  Expected e = testing::expected_of(p);
  // Corrupt the value of the middle-most statement that produces one.
  const std::vector<int> producing = testing::checked_stmts(e);
  ASSERT_GE(producing.size(), 2u);
  const int victim = producing[producing.size() / 2];
  const int64_t idx = static_cast<int64_t>(e.by_stmt[victim]->v.size()) - 1;
  e.by_stmt[victim]->v[idx] += 100.f;
  CompileCache cache;
  for (int k : {1, 0, 3}) {
    LowerOptions o;
    o.checked = true;
    LowerResult r = run_schedule(program_order_schedule(p, k), o, &e, cache);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_TRUE(r.first_failure) << "per_region=" << k;
    EXPECT_EQ(r.first_failure->stmt, victim) << "per_region=" << k;
    EXPECT_EQ(r.first_failure->op, ir::op_name(p.stmts[victim].op));
    EXPECT_EQ(r.first_failure->count, 1);
    EXPECT_EQ(r.first_failure->first_index, idx);
  }
}

TEST(CheckedMode, NonFiniteValueIsAViolation) {
  // exp_(y) overflows to inf; the oracle agrees (inf), so a finite expected
  // value there must be reported as a violation.
  ir::Program p =
      parse("aliasfuzz 1\nstorage s0 f32[4] = [1, 2, 3, 4]\ninput x = s0\ny = mul(x, 100.0)\nexp_(y)\nreturn y\n");
  auto an = ir::analyze(p);
  ASSERT_TRUE(an.ok());
  Expected e = expected_values(p, *an);
  ASSERT_TRUE(std::isinf(e.by_stmt[1]->v[2]));
  CompileCache cache;
  LowerOptions o;
  o.checked = true;
  LowerResult ok = run_schedule(program_order_schedule(p, 0), o, &e, cache);
  ASSERT_TRUE(ok.ok) << ok.error;
  EXPECT_FALSE(ok.first_failure) << "inf equals the same inf";
  e.by_stmt[1]->v[2] = 3.f;
  LowerResult r = run_schedule(program_order_schedule(p, 0), o, &e, cache);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_TRUE(r.first_failure);
  EXPECT_EQ(r.first_failure->stmt, 1);
  EXPECT_EQ(r.first_failure->op, "exp_");
  EXPECT_EQ(r.first_failure->first_index, 2);
}

// Checked mode raises no alarm on agreeing runs of generated programs.
TEST(CheckedMode, NoAlarmOnGeneratedPrograms) {
  CompileCache cache;
  for (int i = 0; i < 30; ++i) {
    ir::Program p = fuzz::generate(777, i, fuzz::halide_options());
    auto expected = oracles::run_eager(p);
    ASSERT_TRUE(expected.ok());
    for (int k : {1, 0}) {
      LowerOptions o;
      o.checked = true;
      LowerResult r = run_schedule(program_order_schedule(p, k), o, nullptr, cache);
      ASSERT_TRUE(r.ok) << r.error << "\n" << ir::print(p);
      EXPECT_FALSE(r.first_failure) << "program " << i << " per_region=" << k << ": stmt " << r.first_failure->stmt
                                    << "\n"
                                    << ir::print(p);
      EXPECT_FALSE(oracles::compare(p, *expected, r.obs));
    }
  }
}

// The mutant is found on generated programs too (whole-program regions).
TEST(LowerHalideAlias, DivergesOnSomeGeneratedProgram) {
  CompileCache cache;
  int diverged = 0, tried = 0;
  for (int i = 0; i < 80 && diverged == 0; ++i, ++tried) {
    ir::Program p = fuzz::generate(31337, i, fuzz::halide_options());
    auto expected = oracles::run_eager(p);
    ASSERT_TRUE(expected.ok());
    LowerOptions o;
    o.mutant = Mutant::LowerHalideAlias;
    LowerResult r = run_schedule(program_order_schedule(p, 0), o, nullptr, cache);
    ASSERT_TRUE(r.ok) << r.error;
    if (oracles::compare(p, *expected, r.obs)) ++diverged;
  }
  std::printf("lower-halide-alias: first divergence after %d generated programs\n", tried);
  EXPECT_GT(diverged, 0);
}

}  // namespace
}  // namespace af::lowering
