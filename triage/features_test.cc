// Features of a program (novelty) and the cause part of a bug signature.
#include "generate/features.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "triage/signature.h"
#include "ir/analysis.h"
#include "ir/text.h"

namespace af::fuzz {
namespace {

ir::Program parse(const std::string& text) {
  auto p = ir::parse(text);
  EXPECT_TRUE(p.ok()) << text;
  return *p;
}

std::vector<std::string> features(const std::string& text) {
  const ir::Program p = parse(text);
  auto an = ir::analyze(p);
  EXPECT_TRUE(an.ok()) << text;
  return program_features(p, &*an);
}

bool has(const std::vector<std::string>& v, const std::string& w) { return std::count(v.begin(), v.end(), w) == 1; }

TEST(Features, OpsViewsAliasedInputsAndWritePaths) {
  const auto f = features(
      "aliasfuzz 1\nstorage s0 f32[8] = iota(0, 1)\ninput x0 = s0\ninput x1 = as_strided(s0, [2], [1], 6)\n"
      "t0 = unfold(x0, 0, 1, 3)\nadd_(t0, 1.0)\nmul_(x1, 2.0)\nt1 = exp(x0)\nreturn t1\n");
  EXPECT_TRUE(std::is_sorted(f.begin(), f.end()));
  for (const char* w : {"op:unfold", "op:add_", "op:mul_", "op:exp", "inputs:share", "inputs:overlap", "view:unfold",
                        "write:input~shared/unfold:holes", "write:input~shared"})
    EXPECT_TRUE(has(f, w)) << w;
  EXPECT_FALSE(has(f, "write:input~shared/unfold")) << "the gapped windows leave holes";
}

TEST(Features, WritesThroughResultsAndOverlap) {
  const auto f = features(
      "aliasfuzz 1\nstorage s0 f32[4] = iota(0, 1)\ninput x0 = s0\nt0 = exp(x0)\nt1 = expand(t0, [2, 4])\n"
      "t2 = transpose(t1, 0, 1)\nt3 = clone(t2)\nadd_(t3, 1.0)\nreturn t3\n");
  EXPECT_TRUE(has(f, "write:fresh")) << "a clone is a fresh storage";
  EXPECT_FALSE(has(f, "inputs:share"));
  const auto g = features(
      "aliasfuzz 1\nstorage s0 f32[3] = iota(0, 1)\ninput x0 = as_strided(s0, [2, 2], [1, 1], 0)\n"
      "t0 = exp(x0)\nreturn t0\n");
  EXPECT_EQ(g, (std::vector<std::string>{"op:exp"})) << "no view op, no write";
}

TEST(Features, MarksComeOff) {
  EXPECT_EQ(without_marks("write:input/unfold:holes"), "write:input/unfold");
  EXPECT_EQ(without_marks("write:input~shared"), "write:input~shared");
  EXPECT_EQ(without_marks("op:add_"), "op:add_");
}

TEST(Features, NoAnalysisGivesOpsOnly) {
  const ir::Program p = parse("aliasfuzz 1\nstorage s0 f32[4] = iota(0, 1)\ninput x0 = s0\nadd_(x0, 1.0)\nreturn x0\n");
  EXPECT_EQ(program_features(p, nullptr), (std::vector<std::string>{"op:add_"}));
}

TEST(Cause, AliasRelationNotTheWritingOp) {
  // One relation (a write through an input another input views), three ops: one cause.
  const std::string head =
      "aliasfuzz 1\nstorage s0 f32[4] = iota(0, 1)\ninput x0 = s0\ninput x1 = as_strided(s0, [2], [1], 0)\n";
  const std::string add = bug_cause(parse(head + "add_(x0, 1.0)\nreturn x1\n"));
  EXPECT_EQ(add, "alias:input~shared");
  EXPECT_EQ(bug_cause(parse(head + "fill_(x0, 2.0)\nreturn x1\n")), add);
  EXPECT_EQ(bug_cause(parse(head + "t0 = exp(x1)\nmul_(x0, 2.0)\nreturn t0, x1\n")), add);
  // Gaps in what is written are novelty, not cause.
  EXPECT_EQ(bug_cause(parse("aliasfuzz 1\nstorage s0 f32[8] = iota(0, 1)\ninput x0 = s0\nt0 = unfold(x0, 0, 1, 3)\n"
                            "add_(t0, 1.0)\nreturn x0\n")),
            "alias:input/unfold");
  // A lost write through a view and a stale read of it after a write of its base: one relation.
  EXPECT_EQ(bug_cause(parse("aliasfuzz 1\nstorage s0 f32[4] = iota(0, 1)\ninput x0 = s0\nt0 = reshape(x0, [2, 2])\n"
                            "add_(x0, 1.0)\nreturn t0\n")),
            bug_cause(parse("aliasfuzz 1\nstorage s0 f32[4] = iota(0, 1)\ninput x0 = s0\nt0 = reshape(x0, [2, 2])\n"
                            "mul_(t0, 2.0)\nreturn x0\n")));
  // A metadata op on an input, whatever other write the program kept.
  EXPECT_EQ(
      bug_cause(parse("aliasfuzz 1\nstorage s0 f32[4] = iota(0, 1)\ninput x0 = as_strided(s0, [2, 2], [2, 1], 0)\n"
                      "t0 = t_(x0)\nadd_(t0, 1.0)\n")),
      "meta:input");
  // A metadata op on a view makes the view it mirrors: as_strided_ of a
  // narrow or of a select is an as_strided of the input (the view's old
  // geometry is gone), the cause of a write through it as of any.
  const std::string as_strided =
      bug_cause(parse("aliasfuzz 1\nstorage s0 f32[2] = full(0.0)\ninput x0 = as_strided(s0, [], [], 0)\n"
                      "t0 = as_strided(x0, [], [], 1)\nadd_(t0, 1.0)\n"));
  EXPECT_EQ(as_strided, "alias:input/as_strided");
  EXPECT_EQ(bug_cause(parse("aliasfuzz 1\nstorage s0 f32[1] = full(0.0)\ninput x0 = s0\nt0 = narrow(x0, 0, 0, 0)\n"
                            "t1 = as_strided_(t0, [1, 1], [1, 1], 0)\nadd_(t1, 1.0)\n")),
            as_strided);
  EXPECT_EQ(bug_cause(parse("aliasfuzz 1\nstorage s0 f32[2] = full(0.0)\ninput x0 = s0\nt0 = select(x0, 0, 0)\n"
                            "t1 = as_strided_(t0, [1, 2], [1, 1], 0)\nadd_(t1, 1.0)\n")),
            as_strided);
}

TEST(Cause, AnInputWrittenWithElementsNoInputShows) {
  // pytorch#133512's shape: the input leaves gaps in its storage, is
  // written, and what follows (here a copy) must see the gaps kept. The
  // same relation through another op; a dense input has none.
  const std::string head = "aliasfuzz 1\nstorage s0 f32[6] = full(0.0)\ninput x0 = as_strided(s0, [2], [5], 0)\n";
  const std::string add = bug_cause(parse(head + "add_(x0, 0.0)\nt0 = clone(x0)\nadd_(t0, 1.0)\n"));
  EXPECT_EQ(add, "alias:input/hidden");
  EXPECT_EQ(bug_cause(parse(head + "mul_(x0, 2.0)\nt0 = clone(x0)\nmul_(t0, 3.0)\n")), add);
  // A partial input (an offset, a tail) hides elements too.
  EXPECT_EQ(bug_cause(parse("aliasfuzz 1\nstorage s0 f32[6] = full(0.0)\ninput x0 = as_strided(s0, [3], [1], 2)\n"
                            "add_(x0, 1.0)\n")),
            add);
  // Aliased inputs have their relation: hidden elements or not.
  EXPECT_EQ(bug_cause(parse("aliasfuzz 1\nstorage s0 f32[4] = full(0.0)\ninput x0 = as_strided(s0, [2], [1], 0)\n"
                            "input x1 = as_strided(s0, [2], [1], 2)\nadd_(x0, 1.0)\n")),
            "alias:input~shared");
  EXPECT_EQ(bug_cause(parse("aliasfuzz 1\nstorage s0 f32[6] = full(0.0)\ninput x0 = as_strided(s0, [1], [1], 5)\n"
                            "input x1 = as_strided(s0, [], [], 5)\nadd_(x1, 1.0)\nreturn x0\n")),
            "alias:input~shared");
  EXPECT_EQ(bug_cause(parse("aliasfuzz 1\nstorage s0 f32[6] = full(0.0)\ninput x0 = s0\nadd_(x0, 0.0)\n"
                            "t0 = clone(x0)\nadd_(t0, 1.0)\n")),
            "op:add_,op:clone");
}

TEST(Cause, WithoutAliasingTheOpsOrTheScheduleAreTheCause) {
  const std::string head = "aliasfuzz 1\nstorage s0 f32[4] = iota(0, 1)\ninput x0 = s0\n";
  const ir::Program e = parse(head + "exp_(x0)\nreturn x0\n"), t = parse(head + "tanh_(x0)\nreturn x0\n");
  EXPECT_EQ(bug_cause(e), "op:exp_");
  EXPECT_NE(bug_cause(e), bug_cause(t)) << "a wrong exp_ kernel is not a wrong tanh_ kernel";
  // A bug that one fusion policy does not show is the schedule's, through any op.
  EXPECT_EQ(bug_cause(e, "agrees-under:none"), "agrees-under:none");
  EXPECT_EQ(bug_cause(t, "agrees-under:none"), bug_cause(e, "agrees-under:none"));
  EXPECT_EQ(bug_cause(parse(head + "t0 = exp(x0)\nreturn t0\n")), "op:exp");
}

}  // namespace
}  // namespace af::fuzz
