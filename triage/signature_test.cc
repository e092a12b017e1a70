#include "triage/signature.h"

#include <gtest/gtest.h>

#include "minimize/minimize.h"
#include "ir/text.h"
#include "minimize/skeleton.h"
#include "triage/minimize_finding.h"

namespace af::fuzz {
namespace {

ir::Program parse(const std::string& text) {
  auto p = ir::parse_and_validate(text);
  EXPECT_TRUE(p.ok()) << text;
  return *p;
}

TEST(Signature, SkeletonKeepsOpsAndAliasingAndDropsNumbers) {
  const ir::Program a = parse(
      "aliasfuzz 1\nstorage s0 f32[6] = random(3)\ninput x0 = as_strided(s0, [2, 3], [3, 1], 0)\n"
      "input x1 = as_strided(s0, [3], [1], 3)\nadd_(x0, 1.5)\nt0 = mul(x1, 2.0)\nreturn t0\n");
  const ir::Program b = parse(  // other sizes, offsets, constants, values; another return
      "aliasfuzz 1\nstorage s0 f32[10] = iota(0, 1)\ninput x0 = as_strided(s0, [5], [2], 0)\n"
      "input x1 = as_strided(s0, [2, 2], [1, 2], 1)\nadd_(x0, -3.0)\nt0 = mul(x1, 0.5)\nreturn x0, t0\n");
  EXPECT_EQ(skeleton(a), skeleton(b));
  EXPECT_EQ(skeleton(a),
            "storage s0\ninput x0 = as_strided(s0, [#], [#], #)\ninput x1 = as_strided(s0, [#], [#], #)\n"
            "add_(x0, #)\nt0 = mul(x1, #)\n");
  // Another alias structure (x1 on its own storage) or another op: another skeleton.
  const ir::Program c = parse(
      "aliasfuzz 1\nstorage s0 f32[6] = random(3)\nstorage s1 f32[3] = random(4)\n"
      "input x0 = as_strided(s0, [2, 3], [3, 1], 0)\ninput x1 = as_strided(s1, [3], [1], 0)\n"
      "add_(x0, 1.5)\nt0 = mul(x1, 2.0)\nreturn t0\n");
  EXPECT_NE(skeleton(a), skeleton(c));
  const ir::Program d = parse(
      "aliasfuzz 1\nstorage s0 f32[6] = random(3)\ninput x0 = as_strided(s0, [2, 3], [3, 1], 0)\n"
      "input x1 = as_strided(s0, [3], [1], 3)\nmul_(x0, 1.5)\nt0 = mul(x1, 2.0)\nreturn t0\n");
  EXPECT_NE(skeleton(a), skeleton(d));
}

// A bug program that needs training (it kept requires_grad or backward) is
// not the forward defect of the same ops: thunderfx's lost gradient through
// x.add_(w) and a forward write-order bug of add_ once shared one key.
TEST(Signature, TrainingIsPartOfTheCause) {
  const ir::Program training = parse(
      "aliasfuzz 1\nstorage s0 f32[3] = full(0.0)\nstorage gw f32[3] = full(1.0)\ninput x = s0\n"
      "input w = gw requires_grad\nadd_(x, w)\nreturn x\nbackward(1)\n");
  const ir::Program forward = parse(
      "aliasfuzz 1\nstorage s0 f32[1] = full(0.0)\nstorage s2 f32[1] = full(0.0)\ninput x0 = s0\n"
      "input x2 = s2\nadd_(x0, x2)\nadd_(x2, 1.0)\n");
  EXPECT_EQ(bug_cause(forward), "op:add_");
  EXPECT_EQ(bug_cause(training), "op:add_,mode:training");
  EXPECT_NE(bug_cause(training), bug_cause(forward));
}

TEST(Signature, InputsInOrderOfFirstUse) {
  // Which of two aliased inputs was declared first is not part of the bug.
  const ir::Program a = parse(
      "aliasfuzz 1\nstorage s0 f32[2] = full(0.0)\nstorage s1 f32[2] = full(0.0)\ninput x0 = s0\n"
      "input x1 = s1\ninput x2 = s1\nadd_(x2, 1.0)\nt0 = mul(x0, 2.0)\nreturn x1, t0\n");
  const ir::Program b = parse(
      "aliasfuzz 1\nstorage s0 f32[2] = full(0.0)\nstorage s1 f32[2] = full(0.0)\ninput x0 = s0\n"
      "input x1 = s0\ninput x2 = s1\nadd_(x0, 1.0)\nt0 = mul(x2, 2.0)\nreturn x1, t0\n");
  EXPECT_EQ(skeleton(a), skeleton(b));
  EXPECT_EQ(skeleton(a),
            "storage s0\nstorage s1\ninput x0 = as_strided(s0, [#], [#], #)\n"
            "input x1 = as_strided(s1, [#], [#], #)\ninput x2 = as_strided(s0, [#], [#], #)\n"
            "add_(x0, #)\nt0 = mul(x1, #)\n");
  // Written and read through one input is another structure than through two.
  const ir::Program c = parse(
      "aliasfuzz 1\nstorage s0 f32[2] = full(0.0)\nstorage s1 f32[2] = full(0.0)\ninput x0 = s0\n"
      "input x1 = s0\ninput x2 = s1\nadd_(x0, 1.0)\nt0 = mul(x0, 2.0)\nreturn x1, t0\n");
  EXPECT_NE(skeleton(a), skeleton(c));
}

TEST(Signature, PiecesByUseNotByIndexOrCount) {
  // Writing piece 1 of 2 or piece 2 of 3, then reading the whole: one skeleton.
  const ir::Program a = parse(
      "aliasfuzz 1\nstorage s0 f32[4] = full(0.0)\ninput x0 = s0\n"
      "t0, t1 = chunk(x0, 2, 0)\nadd_(t1, 1.0)\nmul_(x0, 2.0)\n");
  const ir::Program b = parse(
      "aliasfuzz 1\nstorage s0 f32[3] = full(0.0)\ninput x0 = s0\n"
      "a, b, c = chunk(x0, 3, 0)\nadd_(c, 1.0)\nmul_(x0, 2.0)\n");
  EXPECT_EQ(skeleton(a), skeleton(b));
  EXPECT_EQ(skeleton(a),
            "storage s0\ninput x0 = as_strided(s0, [#], [#], #)\nm0_* = chunk(x0, #, #)\n"
            "add_(m0_0, #)\nmul_(x0, #)\n");
  // One piece twice is not two sibling pieces.
  const ir::Program c = parse(
      "aliasfuzz 1\nstorage s0 f32[4] = full(0.0)\ninput x0 = s0\n"
      "t0, t1 = chunk(x0, 2, 0)\nadd_(t1, 1.0)\nmul_(t1, 2.0)\n");
  const ir::Program d = parse(
      "aliasfuzz 1\nstorage s0 f32[4] = full(0.0)\ninput x0 = s0\n"
      "t0, t1 = chunk(x0, 2, 0)\nadd_(t1, 1.0)\nmul_(t0, 2.0)\n");
  EXPECT_NE(skeleton(c), skeleton(d));
}

TEST(Signature, ErrorTypes) {
  EXPECT_EQ(error_type("IndexError: list index out of range"), "IndexError");
  EXPECT_EQ(error_type("strategy update_aliases produced an invalid program: Thunder raises: IndexError in x"),
            "IndexError");
  EXPECT_EQ(error_type("thunder: RuntimeError: shape '[5]' is invalid"), "RuntimeError");
  EXPECT_EQ(error_type("limit: update_aliases nodes would define more than 1048576 values"), "limit");
  EXPECT_EQ(error_type("something else"), "error");
}

TEST(Signature, KeyHasStrategyWhatAndSkeletonNotTheObservable) {
  const ir::Program a = parse("aliasfuzz 1\nstorage s0 f32[2] = full(0.0)\ninput x0 = s0\nadd_(x0, 1.0)\nreturn x0\n");
  RunRecord r;
  r.spec = run::spec_of({"", "ua-writes-only"});
  r.mismatch = oracles::Mismatch{"return 0", 0, 1.0f, 0.0f, ""};
  RunRecord s = r;
  s.mismatch = oracles::Mismatch{"s0", 1, 1.0f, 0.0f, ""};
  EXPECT_EQ(bug_signature(r, a).key(), bug_signature(s, a).key());
  EXPECT_EQ(bug_signature(r, a).name.rfind("update_aliases-ordered+ua-writes-only__values__add___", 0), 0u)
      << bug_signature(r, a).name;
  RunRecord e = r;
  e.mismatch.reset();
  e.error = "IndexError: x";
  EXPECT_NE(bug_signature(e, a).key(), bug_signature(r, a).key());
}

// A divergence on the second call of a recall run is a bug of its own
// ("recall-values", input-meta folded as on a first call), and its word
// reads back into a record of the same bug.
TEST(Signature, RecallIsABugOfItsOwn) {
  const ir::Program a = parse(
      "aliasfuzz 1\nstorage s0 f32[2] = full(0.0)\nstorage s1 f32[2] = full(0.0)\ninput x0 = s0\ninput x1 = s1\n"
      "add_(x0, 1.0)\nreturn x1\n");
  RunRecord first;
  first.spec = run::spec_of({"aot-eager@2.15.0", "", "program", "none", "interp", false, true});
  first.agree = false;
  first.mismatch = oracles::Mismatch{"return 0", 0, 1.0f, 0.0f, ""};
  RunRecord second = first;
  second.recall = true;
  EXPECT_EQ(bug_what(first), "values");
  EXPECT_EQ(bug_what(second), "recall-values");
  EXPECT_NE(bug_signature(first, a).key(), bug_signature(second, a).key());
  EXPECT_EQ(bug_signature(second, a).what, "recall-values");
  RunRecord meta = second;
  meta.mismatch = oracles::Mismatch{"input x0", 0, 0, 0, "sizes"};
  EXPECT_EQ(bug_signature(meta, a).what, "recall-values");
  for (const std::string what : {"recall-values", "recall-AssertionError", "recall-input-meta"}) {
    const RunRecord back = record_of_what(second.spec, what);
    EXPECT_TRUE(back.recall) << what;
    EXPECT_EQ(bug_what(back), what);
  }
  EXPECT_EQ(Bucket::of(second).what, "recall-return");
  EXPECT_EQ(Bucket::parse(bucket_of(second))->what, "recall-return");
}

// The key is read back by one parse (minimize.json, the ledger, reports):
// from the right, so a who with a '|' (a py: spec's path) stays whole.
TEST(Signature, KeyParsesBackAndResemblesByAliasRoot) {
  const auto b = BugSignature::parse("aot-eager|values|alias:input~shared/unfold,op:exp_");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->who, "aot-eager");
  EXPECT_EQ(b->what, "values");
  EXPECT_EQ(b->cause_words(), (std::vector<std::string>{"alias:input~shared/unfold", "op:exp_"}));
  EXPECT_EQ(b->key(), "aot-eager|values|alias:input~shared/unfold,op:exp_");
  EXPECT_EQ(BugSignature::parse("py:a|b.mod:f|IndexError|meta:input")->who, "py:a|b.mod:f");
  EXPECT_FALSE(BugSignature::parse("aot-eager__values__3f2a91c4"));  // a name, not a key
  EXPECT_FALSE(BugSignature::parse("only|two"));
  EXPECT_TRUE(b->resembles(*BugSignature::parse("aot-eager|values|alias:input~shared")));
  EXPECT_FALSE(b->resembles(*BugSignature::parse("aot-eager|IndexError|alias:input~shared")));
  EXPECT_FALSE(b->resembles(*BugSignature::parse("inductor|values|alias:input~shared")));
  EXPECT_FALSE(b->resembles(*BugSignature::parse("aot-eager|values|op:exp_")));  // ops are no alias root
}

// Two findings of one bug, written with different ops, sizes and values,
// minimize to one signature.
TEST(Signature, TwoFindingsOfOneBugMinimizeToOneSignature) {
  const run::RunSpec spec = run::spec_of({"", "fn-per-input-base"});
  const ir::Program a = parse(
      "aliasfuzz 1\nstorage s0 f32[8] = random(1)\ninput x0 = as_strided(s0, [2, 4], [4, 1], 0)\n"
      "input x1 = as_strided(s0, [4], [1], 4)\nt0 = exp(x1)\ntanh_(x0)\nt1 = sigmoid(x1)\nreturn t1, t0\n");
  const ir::Program b = parse(
      "aliasfuzz 1\nstorage s0 f32[5] = iota(0, 0.5)\ninput x0 = s0\ninput x1 = as_strided(s0, [5], [1], 0)\n"
      "t0 = neg(x0)\nmul_(x0, 3.0)\nt1 = abs(x1)\nreturn t1\n");
  MinimizeOptions o;
  o.max_tests = 3000;
  const MinimizedFinding ma = minimize_finding(a, spec, o), mb = minimize_finding(b, spec, o);
  ASSERT_TRUE(ma.ok) << ma.error;
  ASSERT_TRUE(mb.ok) << mb.error;
  EXPECT_EQ(finding_bug(ma).key(), finding_bug(mb).key()) << ir::print(ma.bug_program) << "\n"
                                                          << ir::print(mb.bug_program);
}

}  // namespace
}  // namespace af::fuzz
