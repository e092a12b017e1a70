// The minimizer: properties over generated programs with synthetic
// interestingness predicates (the kept property holds, every candidate the
// predicate sees and the result are valid, the result is no larger, the
// output is deterministic), unit tests of the passes, and the end-to-end
// path through check_program for the strategies and mutants that exist.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdlib>
#include <optional>
#include <map>
#include <set>

#include "check/campaign_specs.h"
#include "check/bucket.h"
#include "generate/generator.h"
#include "minimize/minimize.h"
#include "triage/repro.h"
#include "triage/signature.h"
#include "ir/analysis.h"
#include "ir/text.h"
#include "oracles/eager.h"
#include "triage/minimize_finding.h"

namespace af::fuzz {
namespace {

ir::Program parse_ok(const std::string& text) {
  auto p = ir::parse_and_validate(text);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().to_string());
  return *p;
}

bool has_op(const ir::Program& p, ir::OpKind k) {
  for (const auto& st : p.stmts)
    if (st.op == k) return true;
  return false;
}

// "The oracle's return 0 has a value > 1.5 and the program contains an exp_."
bool big_return_with_exp(const ir::Program& p) {
  if (!has_op(p, ir::OpKind::ExpI)) return false;
  auto obs = oracles::run_eager(p);
  if (!obs || obs->returns.empty()) return false;
  for (float v : obs->returns[0].v)
    if (v > 1.5f) return true;
  return false;
}

// "The program contains a setitem_ through a view of an input."
bool setitem_through_input_view(const ir::Program& p) {
  auto an = ir::analyze(p);
  if (!an) return false;
  const int ninputs = static_cast<int>(p.inputs.size());
  for (const auto& st : p.stmts)
    if (st.op == ir::OpKind::SetitemI) {
      const int target = static_cast<int>(st.args[0].i);
      if (target >= ninputs && an->values[target].storage < an->num_declared) return true;
    }
  return false;
}

// Wraps a predicate; records any call on an invalid program.
struct Spy {
  Interesting pred;
  int64_t calls = 0, invalid_calls = 0;
  Interesting fn() {
    return [this](const ir::Program& p) {
      ++calls;
      if (!ir::analyze(p).ok()) ++invalid_calls;
      return pred(p);
    };
  }
};

// The first program of (seed, index...) that satisfies pred, if any among a few.
std::optional<ir::Program> find_program(uint64_t seed, const Interesting& pred, const GenOptions& g) {
  for (uint64_t k = 0; k < 40; ++k) {
    ir::Program p = generate(seed, k, g);
    if (pred(p)) return p;
  }
  return std::nullopt;
}

void check_minimizes(const ir::Program& p, const Interesting& pred) {
  Spy spy{pred};
  MinimizeOptions o;
  o.time_s = 0;  // no wall-clock budget: deterministic
  o.max_tests = 4000;
  MinimizeStats st;
  const ir::Program r = minimize(p, spy.fn(), o, &st);
  RC_ASSERT(st.initially_interesting);
  RC_ASSERT(spy.invalid_calls == 0);
  RC_ASSERT(ir::analyze(r).ok());
  RC_ASSERT(ir::parse_and_validate(ir::print(r)).ok());
  RC_ASSERT(pred(r));
  RC_ASSERT(r.stmts.size() <= p.stmts.size());
  RC_ASSERT(st.stmts_after <= st.stmts_before);
  // Deterministic.
  const ir::Program r2 = minimize(p, pred, o);
  RC_ASSERT(ir::print(r2) == ir::print(r));
}

GenOptions gen_options(const std::string& boost) {
  GenOptions g;
  g.size = *rc::gen::inRange(4, 24);
  g.max_rank = *rc::gen::inRange(1, 4);
  g.max_numel = *rc::gen::inRange<int64_t>(4, 64);
  g.op_weights[boost] = 6;
  return g;
}

RC_GTEST_PROP(MinimizeProperty, KeepsBigReturnWithExp, ()) {
  const auto seed = *rc::gen::inRange<uint64_t>(0, 1u << 30);
  const GenOptions g = gen_options("exp_");
  auto p = find_program(seed, big_return_with_exp, g);
  RC_CLASSIFY(p.has_value(), "minimized");
  if (!p) RC_SUCCEED("no generated program satisfies the predicate");
  check_minimizes(*p, big_return_with_exp);
}

RC_GTEST_PROP(MinimizeProperty, KeepsSetitemThroughInputView, ()) {
  const auto seed = *rc::gen::inRange<uint64_t>(0, 1u << 30);
  const GenOptions g = gen_options("setitem_");
  auto p = find_program(seed, setitem_through_input_view, g);
  RC_CLASSIFY(p.has_value(), "minimized");
  if (!p) RC_SUCCEED("no generated program satisfies the predicate");
  check_minimizes(*p, setitem_through_input_view);
}

// ---- unit tests

TEST(Minimize, SetitemThroughViewShrinksToTwoStatements) {
  int found = 0;
  GenOptions g;
  g.size = 20;
  g.op_weights["setitem_"] = 6;
  for (uint64_t k = 0; k < 200 && found < 5; ++k) {
    ir::Program p = generate(11, k, g);
    if (!setitem_through_input_view(p)) continue;
    ++found;
    MinimizeStats st;
    ir::Program r = minimize(p, setitem_through_input_view, MinimizeOptions(), &st);
    EXPECT_TRUE(setitem_through_input_view(r));
    // One view of an input and the setitem_ (a number as the value).
    EXPECT_EQ(r.stmts.size(), 2u) << ir::print(r);
    EXPECT_EQ(r.inputs.size(), 1u) << ir::print(r);
    EXPECT_FALSE(st.budget_hit);
  }
  EXPECT_GT(found, 0);
}

// "An out= write whose operand is another view of the out tensor's storage."
bool out_into_sibling(const ir::Program& p) {
  auto an = ir::analyze(p);
  if (!an) return false;
  for (const auto& st : p.stmts)
    if (ir::is_out_variant(st.op) && st.args[1].kind == ir::Arg::Tensor) {
      const auto &c = an->values[st.args[0].i], &a = an->values[st.args[1].i];
      if (a.storage == c.storage && a.impl != c.impl) return true;
    }
  return false;
}

// Format v1.1: every out= op of such a finding becomes the representative
// add_out(c, a, 1.0) over two views of one storage.
TEST(Minimize, OutIntoSiblingViewBecomesAddOut) {
  int found = 0;
  GenOptions g;
  g.size = 20;
  for (ir::OpKind op : ir::all_ops())
    if (ir::is_out_variant(op)) g.op_weights[ir::op_name(op)] = 4;
  for (uint64_t k = 0; k < 200 && found < 5; ++k) {
    ir::Program p = generate(13, k, g);
    if (!out_into_sibling(p)) continue;
    ++found;
    ir::Program r = minimize(p, out_into_sibling);
    EXPECT_TRUE(out_into_sibling(r));
    EXPECT_LE(r.stmts.size(), 3u) << ir::print(r);
    EXPECT_TRUE(has_op(r, ir::OpKind::AddOut)) << ir::print(r);
  }
  EXPECT_GT(found, 0);
}

TEST(Minimize, BigReturnWithExpIsSmall) {
  int found = 0;
  GenOptions g;
  g.size = 20;
  g.op_weights["exp_"] = 6;
  for (uint64_t k = 0; k < 200 && found < 5; ++k) {
    ir::Program p = generate(5, k, g);
    if (!big_return_with_exp(p)) continue;
    ++found;
    ir::Program r = minimize(p, big_return_with_exp);
    EXPECT_TRUE(big_return_with_exp(r));
    EXPECT_LE(r.stmts.size(), 3u) << ir::print(r);
    EXPECT_LE(r.storages.size(), 2u) << ir::print(r);
  }
  EXPECT_GT(found, 0);
}

TEST(Minimize, DeletesDependentChainsAndRenames) {
  const ir::Program p = parse_ok(R"(aliasfuzz 1
storage buf f32[12] = random(7)
storage other f32[3] = [0.5, -1, 2]
input xx = as_strided(buf, [3, 4], [4, 1], 0)
input yy = other
aa = t(xx)
bb = exp(aa)
cc = add(bb, yy)
add_(xx, 2.5)
dd = neg(xx)
return cc, dd
)");
  // Interesting: some add_ remains.
  auto pred = [](const ir::Program& q) { return has_op(q, ir::OpKind::AddI); };
  MinimizeStats st;
  ir::Program r = minimize(p, pred, MinimizeOptions(), &st);
  EXPECT_EQ(ir::print(r), "aliasfuzz 1\nstorage s0 f32[1] = full(0.0)\ninput x0 = s0\nadd_(x0, 0.0)\n");
  EXPECT_EQ(st.stmts_before, 5);
  EXPECT_EQ(st.stmts_after, 1);
  EXPECT_GT(st.invalid, 0);  // some candidates were invalid and were dropped
}

TEST(Minimize, NotInterestingIsReturnedUnchanged) {
  const ir::Program p = generate(3, 3);
  MinimizeStats st;
  ir::Program r = minimize(
      p, [](const ir::Program&) { return false; }, MinimizeOptions(), &st);
  EXPECT_EQ(r, p);
  EXPECT_FALSE(st.initially_interesting);
  EXPECT_EQ(st.tests, 1);
}

TEST(Minimize, TestBudgetIsRespected) {
  GenOptions g;
  g.size = 30;
  const ir::Program p = generate(9, 1, g);
  MinimizeOptions o;
  o.time_s = 0;
  o.max_tests = 10;
  MinimizeStats st;
  const std::string text = ir::print(p);
  ir::Program r = minimize(
      p, [&text](const ir::Program& q) { return ir::print(q) == text; }, o, &st);
  EXPECT_TRUE(st.budget_hit);
  EXPECT_LE(st.tests, 11);
  EXPECT_TRUE(ir::analyze(r).ok());
}

// MinimizeOptions::stop ends the search at the program it holds then:
// not a budget cut, and the result is that program, renamed.
TEST(Minimize, StopEndsAtTheCurrentProgram) {
  GenOptions g;
  g.size = 30;
  const ir::Program p = generate(9, 1, g);
  MinimizeOptions o;
  o.time_s = 0;
  bool small = false;
  o.stop = [&small] { return small; };
  MinimizeStats st, full;
  const auto pred = [&small](const ir::Program& q) {
    if (q.stmts.size() <= 20) small = true;
    return true;
  };
  ir::Program r = minimize(p, pred, o, &st);
  EXPECT_TRUE(st.stopped);
  EXPECT_FALSE(st.budget_hit);
  EXPECT_LE(r.stmts.size(), 20u);
  EXPECT_GT(r.stmts.size(), 0u);
  EXPECT_EQ(r, canonical_names(r));
  ir::Program all = minimize(
      p, [](const ir::Program&) { return true; }, MinimizeOptions(), &full);
  EXPECT_FALSE(full.stopped);
  EXPECT_LT(st.tests, full.tests);
}

TEST(Minimize, CanonicalNames) {
  const ir::Program p = parse_ok(R"(aliasfuzz 1
storage mem f32[6] = iota(0, 1)
input a = as_strided(mem, [2, 3], [3, 1], 0)
u, v = chunk(a, 2, 1)
w = add_(u, 1.0)
return w, v
)");
  EXPECT_EQ(ir::print(canonical_names(p)),
            "aliasfuzz 1\nstorage s0 f32[6] = iota(0.0, 1.0)\ninput x0 = as_strided(s0, [2, 3], [3, 1], 0)\n"
            "t0, t1 = chunk(x0, 2, 1)\nt2 = add_(t0, 1.0)\nreturn t2, t1\n");
}

TEST(MinimizeFinding, ReportsWhyNot) {
  const ir::Program p = generate(1, 0);
  MinimizedFinding m = minimize_finding(p, run::spec_of({"eager"}));
  EXPECT_FALSE(m.ok);
  EXPECT_NE(m.error.find("does not diverge"), std::string::npos) << m.error;
  // A name no table knows never reaches the minimizer: the spec's parse refuses it.
  std::string why;
  EXPECT_FALSE(run::parse_spec({"no-such-strategy"}, &why));
  EXPECT_NE(why.find("unknown strategy"), std::string::npos) << why;
}

// ---- end to end: real findings through check_program

struct ZooEntry {
  std::string strategy, inject;
};

// A finding of a bug-zoo mutant: the program and the spec it diverges under.
struct ZooFinding {
  const char* strategy;
  const char* inject;
  const char* text;
  const char* reorder = "program";
  const char* fusion = "none";
};

// The bug signature of each finding's minimized program, by mutant.
std::map<std::string, std::set<std::string>> bugs_by_mutant(const std::vector<ZooFinding>& findings) {
  std::map<std::string, std::set<std::string>> bugs;
  for (const ZooFinding& f : findings) {
    const run::RunSpec spec = run::spec_of({f.strategy, f.inject, f.reorder, f.fusion});
    MinimizeOptions o;
    o.time_s = 0;
    o.max_tests = 3000;
    const MinimizedFinding m = minimize_finding(parse_ok(f.text), spec, o);
    EXPECT_TRUE(m.ok) << m.error << "\n" << f.text;
    bugs[f.inject].insert(finding_bug(m).key());
  }
  return bugs;
}

void expect_one_bug_each(const std::vector<ZooFinding>& findings) {
  for (const auto& [inject, keys] : bugs_by_mutant(findings)) {
    std::string all;
    for (const auto& k : keys) all += k + "\n--\n";
    EXPECT_EQ(keys.size(), 1u) << inject << ":\n" << all;
  }
}

TEST(MinimizeFinding, OneBugThroughThreeAliasPathsIsOneSignature) {
  // fn-no-regenerate reached through a slice, a second input and an unbind
  // piece: different programs, sizes, ops and constants, one bug. Hoisting
  // views into aliased inputs, merging inputs and the op representatives
  // bring all three to one minimized program.
  const char* fn = "functionalize";
  expect_one_bug_each({
      {fn, "fn-no-regenerate",
       "aliasfuzz 1\nstorage s0 f32[6] = random(1)\ninput x0 = s0\nt0 = slice(x0, 0, 2, 5, 1)\n"
       "add_(t0, 1.5)\nt1 = exp(x0)\nreturn t1\n"},
      {fn, "fn-no-regenerate",
       "aliasfuzz 1\nstorage s0 f32[6] = random(2)\ninput x0 = s0\ninput x1 = as_strided(s0, [2], [1], 3)\n"
       "mul_(x1, 3.0)\nreturn x0\n"},
      {fn, "fn-no-regenerate",
       "aliasfuzz 1\nstorage s0 f32[8] = random(3)\ninput x0 = as_strided(s0, [2, 4], [4, 1], 0)\n"
       "a, b = unbind(x0, 0)\nsub_(b, 2.0)\nt1 = tanh(x0)\nreturn t1\n"},
  });
}

TEST(MinimizeFinding, LostWriteAndStaleReadOfOneViewBugAreOneSignature) {
  // ua-no-maybe-views (reshape not seen as a view) found as a stale read of
  // the view after a write of the base, as two writes in either order and
  // through either alias: minimized programs of one 60 s campaign that the
  // op representatives left apart. Writes becoming returned reads and the
  // same-size rewrites toward the least skeleton bring them together.
  const char* ua = "update_aliases-ordered";
  expect_one_bug_each({
      {ua, "ua-no-maybe-views",
       "aliasfuzz 1\nstorage s0 f32[1] = full(0.0)\ninput x0 = s0\nt0 = reshape(x0, [-1])\nadd_(x0, 1.0)\n"
       "t1 = add(t0, 0.0)\nreturn t1\n",
       "program", "dataflow"},
      {ua, "ua-no-maybe-views",
       "aliasfuzz 1\nstorage s0 f32[1] = full(0.0)\ninput x0 = s0\nt0 = reshape(x0, [-1])\nmul_(x0, 0.0)\n"
       "add_(t0, 1.0)\n",
       "random:556764", "greedy"},
      {ua, "ua-no-maybe-views",
       "aliasfuzz 1\nstorage s0 f32[1] = full(0.0)\ninput x0 = s0\nt0 = reshape(x0, [1, -1])\nmul_(t0, 0.0)\n"
       "add_(x0, 1.0)\n",
       "random:616284", "dataflow"},
  });
}

TEST(MinimizeFinding, CopiesOfOneDroppedWriteBugAreOneSignature) {
  // dce-drops-outputless (drops copy_ and setitem_ nothing reads) found as
  // a setitem_, as a copy_ between two aliased 1-element inputs and as a
  // copy_ between two chunk pieces: copy_ walks down the copy class to
  // setitem_. (Not between 0-d inputs: a 0-d setitem_ is kind version
  // since format v1.3, so such a copy_ has no setitem_ to become.)
  expect_one_bug_each({
      {"eager", "dce-drops-outputless",
       "aliasfuzz 1\nstorage s0 f32[1] = full(1.0)\ninput x0 = s0\nsetitem_(x0, 0, 0, 1, 0.0)\n"},
      {"eager", "dce-drops-outputless",
       "aliasfuzz 1\nstorage s0 f32[2] = iota(0.0, 1.0)\ninput x0 = as_strided(s0, [1], [1], 0)\n"
       "input x1 = as_strided(s0, [1], [1], 1)\ncopy_(x1, x0)\n"},
      {"eager", "dce-drops-outputless",
       "aliasfuzz 1\nstorage s1 f32[3] = iota(0.0, 1.0)\ninput x3 = as_strided(s1, [1, 3], [3, 1], 0)\n"
       "t5, t6, t7 = chunk(x3, 3, 1)\ncopy_(t7, t5)\n",
       "program", "dataflow"},
  });
}

TEST(MinimizeFinding, BoundWritesAndFreshTensorsFoldIntoAliasedInputs) {
  // min.af files of one 60 s campaign per mutant whose bugs went through an
  // in-place op's bound result (t0 = add_(x0)) or views of a fresh full:
  // hoisting those into aliased inputs meets the inputs-only form.
  const char* fn = "functionalize";
  const char* ua = "update_aliases-ordered";
  expect_one_bug_each({
      {fn, "fn-no-regenerate",
       "aliasfuzz 1\nstorage s0 f32[1] = full(0.0)\ninput x0 = s0\nt0 = add_(x0, 0.0)\nadd_(x0, 1.0)\nreturn t0\n",
       "thunder-dataflow", "greedy"},
      {fn, "fn-no-regenerate",
       "aliasfuzz 1\nstorage s0 f32[1] = full(0.0)\ninput x0 = as_strided(s0, [], [], 0)\nt0 = add_(x0, 0.0)\n"
       "add_(t0, 1.0)\nadd_(t0, x0)\n",
       "random:38047", "greedy"},
      {fn, "fn-no-regenerate",
       "aliasfuzz 1\nstorage s0 f32[6] = full(0.0)\ninput x0 = as_strided(s0, [2], [2], 3)\n"
       "input x1 = as_strided(s0, [], [], 5)\nadd_(x1, 1.0)\nt0 = add(x0, 0.0)\nreturn t0\n",
       "program", "greedy"},
      {ua, "ua-writes-only",
       "aliasfuzz 1\nstorage s0 f32[1] = full(0.0)\ninput x0 = as_strided(s0, [], [], 0)\nt0 = full([1, 1, 2], 0.0)\n"
       "t1, t2 = chunk(t0, 2, 2)\nadd_(t1, 1.0)\nt3 = add(t0, 0.0)\nadd_(x0, 0.0)\nreturn t3\n",
       "random:2", "none"},
      {ua, "ua-writes-only",
       "aliasfuzz 1\nstorage s0 f32[1] = full(0.0)\ninput x0 = s0\ninput x1 = as_strided(s0, [], [], 0)\n"
       "add_(x1, 1.0)\nt0 = add(x0, 0.0)\nreturn t0\n",
       "random:2", "dataflow"},
  });
}

// A campaign's minimizer ends at the first kept candidate that is a known
// bug (MinimizeOptions::known_bug, issue #34): min.af and the bug program
// are that candidate, the finding says which bug, it is not a cut, and it
// costs fewer runs than minimizing to the fixed point.
TEST(MinimizeFinding, EndsWhereTheCandidateIsAKnownBug) {
  const run::RunSpec spec = run::spec_of({"update_aliases-ordered", "ua-writes-only", "random:7", "none"});
  const ir::Program probe = generate(1, 0);
  if (!run_spec(probe, spec)) GTEST_SKIP() << "skipped: mutant ua-writes-only not available";
  GenOptions g;
  g.size = 14;
  std::optional<ir::Program> found;
  for (uint64_t k = 0; k < 300 && !found; ++k) {
    ir::Program p = generate(21, k, g);
    auto r = run_spec(p, spec);
    if (r && !r->agree && p.stmts.size() >= 8) found = p;
  }
  ASSERT_TRUE(found.has_value());
  MinimizeOptions o;
  o.time_s = 0;
  o.max_tests = 3000;
  const MinimizedFinding full = minimize_finding(*found, spec, o);
  ASSERT_TRUE(full.ok) << full.error;
  EXPECT_TRUE(full.known_bug.empty());
  const size_t at = full.minimized.stmts.size() + 2;  // "known" a little before the end
  o.known_bug = [at](const ir::Program& q, const RunRecord& rec) {
    return !rec.agree && q.stmts.size() <= at ? std::string("known-entry") : std::string();
  };
  const MinimizedFinding m = minimize_finding(*found, spec, o);
  ASSERT_TRUE(m.ok) << m.error;
  EXPECT_EQ(m.known_bug, "known-entry");
  EXPECT_FALSE(m.bug_cut);
  EXPECT_FALSE(m.stats.budget_hit);
  EXPECT_LE(m.bug_program.stmts.size(), at);
  EXPECT_EQ(ir::print(m.bug_program), ir::print(m.minimized));
  auto r = run_spec(m.minimized, m.spec);
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->agree);
  EXPECT_EQ(bucket_of(*r), m.bucket);
  EXPECT_LT(m.stats.tests, full.stats.tests);
}

TEST(MinimizeFinding, EndToEndThroughCheckProgram) {
  // The under-study baseline and the bug zoo (each mutant with a strategy it applies to).
  const std::vector<ZooEntry> zoo = {
      {"none", ""},
      {"update_aliases-ordered", "ua-no-maybe-views"},
      {"update_aliases-ordered", "ua-no-multi-output"},
      {"update_aliases-ordered", "ua-writes-only"},
      {"eager", "dce-drops-outputless"},
      {"none", "fusion-stale-copy"},
      {"functionalize", "fn-per-input-base"},
      {"functionalize", "fn-no-regenerate"},
  };
  const ir::Program probe = generate(1, 0);
  int available = 0, minimized = 0;
  for (const auto& z : zoo) {
    for (const char* fusion : {"greedy", "none"}) {
      const run::RunSpec spec = run::spec_of({z.strategy, z.inject, "random:7", fusion});
      if (!run_spec(probe, spec)) continue;  // not available (yet)
      ++available;
      GenOptions g;
      g.size = 14;
      std::optional<ir::Program> found;
      std::string bucket;
      for (uint64_t k = 0; k < 300 && !found; ++k) {
        ir::Program p = generate(21, k, g);
        auto r = run_spec(p, spec);
        if (r && !r->agree) found = p, bucket = bucket_of(*r);
      }
      if (!found) continue;
      MinimizeOptions o;
      o.time_s = 0;
      o.max_tests = 3000;
      MinimizedFinding m = minimize_finding(*found, spec, o);
      ASSERT_TRUE(m.ok) << m.error;
      EXPECT_EQ(m.bucket, bucket);
      EXPECT_EQ(m.original_spec, spec);
      EXPECT_EQ(m.spec.fusion, spec.fusion);  // only the random seed may change
      EXPECT_EQ(m.spec.reorder.kind, run::ReorderKind::Random);
      auto r = run_spec(m.minimized, m.spec);
      ASSERT_TRUE(r.has_value());
      EXPECT_FALSE(r->agree);
      EXPECT_EQ(bucket_of(*r), bucket);
      EXPECT_TRUE(ir::analyze(m.minimized).ok());
      EXPECT_LE(m.minimized.stmts.size(), found->stmts.size());
      // Deterministic: the same finding minimizes to the same program and spec.
      MinimizedFinding again = minimize_finding(*found, spec, o);
      EXPECT_EQ(ir::print(again.minimized), ir::print(m.minimized));
      EXPECT_EQ(again.spec, m.spec);
      // The regression case round-trips and replays.
      std::string err, detail;
      auto c = parse_regression(regression_text(regression_of(m)), &err);
      ASSERT_TRUE(c.has_value()) << err;
      EXPECT_EQ(replay(*c, &detail), c->expect_agree ? Replay::Fail : Replay::Pass) << detail;
      std::printf("[e2e] %-60s %2zu -> %2zu statements, %lld tests\n", bucket.c_str(), found->stmts.size(),
                  m.minimized.stmts.size(), static_cast<long long>(m.stats.tests));
      ++minimized;
      break;
    }
  }
  if (available == 0) GTEST_SKIP() << "skipped: check_program runs no strategy beyond eager yet (schedulers not wired)";
  EXPECT_GT(minimized, 0);
}

}  // namespace
}  // namespace af::fuzz

namespace af::fuzz {
namespace {

// Issue #40: minimization runs to a fixed point and a canonical form, so
// that two different generated programs of one defect, found in two
// different buckets, reach the very same bug program (not only the same
// signature). Seeded: the campaign's programs and specs are fixed.
TEST(MinimizeFinding, TwoGeneratedFindingsOfOneMutantReachOneProgram) {
  for (const char* inject : {"fn-per-input-base", "ua-writes-only"}) {
    const uint64_t seed = 8;
    std::map<std::string, std::pair<ir::Program, run::RunSpec>> firsts;  // bucket -> its first finding
    for (uint64_t k = 0; k < 400 && firsts.size() < 2; ++k) {
      const ir::Program p = generate(seed, k);
      auto an = ir::analyze(p);
      if (!an) continue;
      const auto expected = oracles::run_eager(p, *an);
      for (const RunRecord& r :
           check_program(p, *an, expected, campaign_specs(seed, k, {}, {*run::parse_mutant(inject)})))
        if (!r.agree && r.error.empty()) firsts.try_emplace(bucket_of(r), p, r.spec);
    }
    ASSERT_EQ(firsts.size(), 2u) << inject;
    std::vector<std::string> programs;
    for (const auto& [bucket, f] : firsts) {
      MinimizeOptions o;
      o.time_s = 0;
      o.max_tests = 3000;
      const MinimizedFinding m = minimize_finding(f.first, f.second, o);
      ASSERT_TRUE(m.ok) << m.error;
      programs.push_back(ir::print(m.bug_program));
    }
    EXPECT_EQ(programs[0], programs[1]) << inject << ": buckets " << firsts.begin()->first << " and "
                                        << firsts.rbegin()->first;
  }
}

}  // namespace
}  // namespace af::fuzz
