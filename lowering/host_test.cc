// Halide host target against the eager oracle: corpus programs and
// generated programs, each with several region partitions in program order
// (program order is eager order, so every partition must agree).
#include <gtest/gtest.h>

#include "generate/generator.h"
#include "ir/text.h"
#include "lowering/lowering.h"
#include "lowering/test_util.h"
#include "oracles/eager.h"
#include "schedulers/execution.h"

namespace af::lowering {
namespace {

std::string describe(const ir::Program& p, const oracles::Mismatch& m) {
  return m.observable + "[" + std::to_string(m.index) + "] expected " + std::to_string(m.expected) + " got " +
         std::to_string(m.actual) + " " + m.what + "\n" + ir::print(p);
}

// Runs p with the given partition and expects agreement with the oracle;
// a program the lowering refuses (unsupported_reason) must be refused as
// unsupported, which is not a finding.
void expect_agree(const ir::Program& p, int per_region, CompileCache& cache, const std::string& name) {
  auto expected = oracles::run_eager(p);
  ASSERT_TRUE(expected.ok()) << name;
  auto sched = program_order_schedule(p, per_region);
  LowerOptions o;
  LowerResult r = run_schedule(sched, o, nullptr, cache);
  if (!unsupported_reason(p).empty()) {
    EXPECT_FALSE(r.ok) << name << ": the lowering ran a program it says it refuses";
    EXPECT_EQ(r.error.rfind(schedulers::kLoweringUnsupported, 0), 0u) << name << ": " << r.error;
    return;
  }
  ASSERT_TRUE(r.ok) << name << " per_region=" << per_region << ": " << r.error << "\n" << ir::print(p);
  auto mm = oracles::compare(p, *expected, r.obs);
  EXPECT_FALSE(mm) << name << " per_region=" << per_region << ": " << (mm ? describe(p, *mm) : "");
}

TEST(HostLowering, CorpusAgreesWithOracle) {
  CompileCache cache;
  const auto all = testing::corpus_cases();
  ASSERT_GE(all.size(), 5u) << "corpus not found in runfiles";
  const auto cases = testing::sampled(all, 2, "host corpus");
  size_t refused = 0;
  for (const auto& c : cases) {
    refused += !unsupported_reason(c.program).empty();
    for (int k : {1, 0, 2}) expect_agree(c.program, k, cache, c.path);
  }
  // Counted and printed, not silently passed: their checks are the refusal's.
  std::printf(
      "corpus: %zu programs (%zu refused as unsupported by the lowering: format v1.5 dtype views and flips), cache hits %lld "
      "misses %lld compile %.0f ms\n",
      cases.size(), refused, static_cast<long long>(cache.hits()), static_cast<long long>(cache.misses()),
      cache.compile_ms());
}

// 300 generated programs: one region per statement (eager), plus for a
// third of them the whole program as one region and regions of 3.
TEST(HostLowering, GeneratedProgramsAgreeWithOracle) {
  CompileCache cache;
  const int n = testing::budget(300, 120);
  int whole = 0;
  for (int i = 0; i < n; ++i) {
    ir::Program p = fuzz::generate(20261129, i, fuzz::halide_options());
    const std::string name = "generated " + std::to_string(i);
    expect_agree(p, 1, cache, name);
    if (i % 3 == 0) {
      expect_agree(p, 0, cache, name);
      ++whole;
    } else if (i % 3 == 1) {
      expect_agree(p, 3, cache, name);
    }
    if (::testing::Test::HasFailure()) break;
  }
  std::printf("generated: %d programs (%d also whole-program), cache hits %lld misses %lld compile %.0f ms\n", n, whole,
              static_cast<long long>(cache.hits()), static_cast<long long>(cache.misses()), cache.compile_ms());
}

// Every elementwise op of the table (ir/ops.h), weighted up, those the
// generator leaves out by default (table weight 0) included: the kernels
// of each Math, which the lowering and the oracle reach by its arity
// (halide_backend.cc and oracles/kernels.cc: unary, binary, ternary),
// agree op by op.
TEST(HostLowering, EveryElementwiseOp) {
  CompileCache cache;
  for (ir::OpKind op : fuzz::generated_ops()) {
    if (!ir::is_elementwise(op)) continue;
    fuzz::GenOptions o = fuzz::halide_options();
    o.op_weights[ir::op_name(op)] = 30;
    int uses = 0;
    for (uint64_t k = 0; k < 2; ++k) {
      const ir::Program p = fuzz::generate(35, k, o);
      for (const auto& st : p.stmts) uses += st.op == op;
      const std::string name = std::string(ir::op_name(op)) + ", program " + std::to_string(k);
      for (int per_region : {1, 0}) expect_agree(p, per_region, cache, name);
    }
    EXPECT_GT(uses, 0) << "no generated program uses " << ir::op_name(op);
  }
}

// Regions differing only in sizes, strides, offsets and constants share a
// compiled pipeline.
TEST(HostLowering, CacheReusesPipelinesAcrossShapes) {
  const char* a =
      "aliasfuzz 1\nstorage s0 f32[12] = iota(0, 1)\ninput x = as_strided(s0, [3, 4], [4, 1], 0)\n"
      "t0 = t(x)\nadd_(t0, 1.0)\nr = mul(x, 2.0)\nreturn r\n";
  const char* b =
      "aliasfuzz 1\nstorage s0 f32[30] = random(3)\ninput x = as_strided(s0, [5, 2], [1, 5], 3)\n"
      "t0 = t(x)\nadd_(t0, -4.5)\nr = mul(x, 0.25)\nreturn r\n";
  CompileCache cache;
  for (const char* text : {a, b}) {
    auto p = ir::parse_and_validate(text);
    ASSERT_TRUE(p.ok());
    expect_agree(*p, 0, cache, text);
  }
  EXPECT_EQ(cache.misses(), 1);
  EXPECT_EQ(cache.hits(), 1);
}

TEST(HostLowering, CacheEvictsLeastRecentlyUsed) {
  CompileCache cache(2);
  for (int i = 0; i < 6; ++i)
    expect_agree(fuzz::generate(11, i, fuzz::halide_options()), 0, cache, "generated " + std::to_string(i));
  EXPECT_LE(cache.size(), 2u);
  EXPECT_EQ(cache.evictions(), cache.misses() - static_cast<int64_t>(cache.size()));
}

}  // namespace
}  // namespace af::lowering

namespace af::lowering {
namespace {

// Shapes the generator rarely makes (test_util.h).
TEST(HostLowering, EdgeCases) {
  CompileCache cache;
  int i = 0;
  ASSERT_EQ(testing::edge_cases().size(), 9u) << "an edge case no longer parses";
  for (const auto& p : testing::edge_cases()) {
    for (int k : {1, 0}) expect_agree(p, k, cache, "edge case " + std::to_string(i));
    ++i;
  }
}

}  // namespace
}  // namespace af::lowering
