// Each minimizer pass (minimize/minimize_passes.h) run once, alone, on a small
// program: the text after it. The predicates are what the finding would
// be (a statement still there, a storage's final contents), so each pass
// must keep them while it shrinks what they do not need.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "minimize/minimize_passes.h"
#include "ir/analysis.h"
#include "ir/text.h"
#include "oracles/eager.h"

namespace af::fuzz::minimizing {
namespace {

using Pass = std::function<void(Search&)>;

// The program after one run of `pass` on `before` (names kept, no budget).
std::string after(const Pass& pass, const std::string& before, const Interesting& pred) {
  auto p = ir::parse_and_validate("aliasfuzz 1\n" + before);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().to_string());
  if (!p.ok()) return "";
  MinimizeOptions o;
  o.time_s = 0;
  o.rename = false;
  MinimizeStats st;
  EXPECT_TRUE(pred(*p)) << "the predicate must hold before the pass";
  Search search(pred, o, st, *p);
  pass(search);
  EXPECT_TRUE(pred(search.cur()));
  const std::string text = ir::print(search.cur());
  return text.substr(text.find('\n') + 1);  // without the header
}

Interesting has(ir::OpKind k) {
  return [k](const ir::Program& p) {
    for (const auto& st : p.stmts)
      if (st.op == k) return true;
    return false;
  };
}

// The oracle leaves storage 0 holding exactly `want`.
Interesting storage0_is(std::vector<float> want) {
  return [want](const ir::Program& p) {
    auto obs = oracles::run_eager(p);
    return obs && !obs->storages.empty() && obs->storages[0] == want;
  };
}

Interesting both(Interesting a, Interesting b) {
  return [a, b](const ir::Program& p) { return a(p) && b(p); };
}

TEST(MinimizePasses, DeleteStmtsKeepsWhatTheBugNeeds) {
  EXPECT_EQ(after(delete_stmts,
                  "storage s0 f32[4] = iota(0, 1)\ninput x = s0\na = add(x, 1.0)\nb = mul(a, 2.0)\n"
                  "exp_(x)\nc = neg(b)\nreturn c, x\n",
                  has(ir::OpKind::ExpI)),
            "storage s0 f32[4] = iota(0.0, 1.0)\ninput x = s0\nexp_(x)\nreturn x\n");
}

TEST(MinimizePasses, DeletePairsRemovesTwoThatOnlyGoTogether) {
  // Deleting either add_ alone changes what storage 0 ends with; deleting
  // both leaves exp of the initial values, as with them.
  EXPECT_EQ(after([](Search& s) { delete_pairs(s); },
                  "storage s0 f32[2] = iota(0, 1)\ninput x = s0\nadd_(x, 1.0)\nadd_(x, -1.0)\nexp_(x)\nreturn x\n",
                  both(has(ir::OpKind::ExpI), storage0_is({std::exp(0.0f), std::exp(1.0f)}))),
            "storage s0 f32[2] = iota(0.0, 1.0)\ninput x = s0\nexp_(x)\nreturn x\n");
}

TEST(MinimizePasses, DeleteDeclsDropsUnusedInputsAndStorages) {
  EXPECT_EQ(after(delete_decls,
                  "storage s0 f32[4] = iota(0, 1)\nstorage s1 f32[3] = full(2.0)\ninput x = s0\ninput y = s1\n"
                  "exp_(x)\nreturn x, y\n",
                  has(ir::OpKind::ExpI)),
            "storage s0 f32[4] = iota(0.0, 1.0)\ninput x = s0\nexp_(x)\n");
}

TEST(MinimizePasses, DeleteDeclsDropsTrainingTheBugDoesNotNeed) {
  // The forward bug (an exp_) stays without backward and without the
  // leaf's requires_grad: the repro is an inference program.
  EXPECT_EQ(after(delete_decls,
                  "storage s0 f32[2] = iota(0, 1)\nstorage g f32[2] = full(1.0)\ninput x = s0\n"
                  "input w = g requires_grad\nmul_(x, w)\nexp_(x)\nreturn x\nbackward(7)\n",
                  both(has(ir::OpKind::ExpI), has(ir::OpKind::MulI))),
            "storage s0 f32[2] = iota(0.0, 1.0)\nstorage g f32[2] = full(1.0)\ninput x = s0\ninput w = g\n"
            "mul_(x, w)\nexp_(x)\n");
}

TEST(MinimizePasses, MergeInputsOfOneStorage) {
  EXPECT_EQ(after(merge_inputs,
                  "storage s0 f32[4] = iota(0, 1)\ninput x = s0\ninput y = s0\nexp_(x)\nz = add(y, 1.0)\nreturn z\n",
                  has(ir::OpKind::ExpI)),
            "storage s0 f32[4] = iota(0.0, 1.0)\ninput x = s0\nexp_(x)\nz = add(x, 1.0)\nreturn z\n");
}

TEST(MinimizePasses, HoistViewsIntoInputs) {
  EXPECT_EQ(after(hoist_views,
                  "storage s0 f32[4] = iota(0, 1)\ninput x = s0\nv = slice(x, 0, 1, 3, 1)\nadd_(v, 1.0)\nreturn x\n",
                  storage0_is({0, 2, 3, 3})),
            "storage s0 f32[4] = iota(0.0, 1.0)\ninput x = s0\ninput h = as_strided(s0, [2], [1], 1)\nadd_(h, "
            "1.0)\nreturn x\n");
}

TEST(MinimizePasses, FreshTensorsBecomeInputs) {
  EXPECT_EQ(
      after(fresh_to_inputs, "storage s0 f32[2] = iota(0, 1)\ninput x = s0\nf = full([2], 3.0)\nadd_(x, f)\nreturn x\n",
            storage0_is({3, 4})),
      "storage s0 f32[2] = iota(0.0, 1.0)\nstorage f_ f32[2] = full(3.0)\ninput x = s0\ninput h = as_strided(f_, [2], "
      "[1], 0)\nadd_(x, h)\nreturn x\n");
}

TEST(MinimizePasses, BypassReadsTheArgument) {
  EXPECT_EQ(after(bypass, "storage s0 f32[2] = iota(0, 1)\ninput x = s0\na = alias(x)\nexp_(a)\nreturn a\n",
                  has(ir::OpKind::ExpI)),
            "storage s0 f32[2] = iota(0.0, 1.0)\ninput x = s0\nexp_(x)\nreturn x\n");
}

TEST(MinimizePasses, ReadsBecomeReturns) {
  EXPECT_EQ(after(reads_to_returns, "storage s0 f32[2] = iota(0, 1)\ninput x = s0\nexp_(x)\nr = neg(x)\nreturn r\n",
                  has(ir::OpKind::ExpI)),
            "storage s0 f32[2] = iota(0.0, 1.0)\ninput x = s0\nexp_(x)\nreturn x\n");
}

TEST(MinimizePasses, WritesBecomeReturnedReads) {
  EXPECT_EQ(after(writes_to_reads, "storage s0 f32[2] = iota(0, 1)\ninput x = s0\nexp_(x)\nmul_(x, 3.0)\nreturn x\n",
                  has(ir::OpKind::ExpI)),
            "storage s0 f32[2] = iota(0.0, 1.0)\ninput x = s0\nexp_(x)\nr = add(x, 1.0)\nreturn x, r\n");
}

TEST(MinimizePasses, SimplerOpsWalkDownTheirClass) {
  EXPECT_EQ(after(simpler_ops,
                  "storage s0 f32[4] = iota(0, 1)\ninput x = s0\nv = reshape(x, [2, 2])\nsigmoid_(v)\nreturn x\n",
                  [](const ir::Program& p) { return p.stmts.size() == 2; }),
            "storage s0 f32[4] = iota(0.0, 1.0)\ninput x = s0\nv = view(x, [2, 2])\nadd_(v, 1.0)\nreturn x\n");
}

TEST(MinimizePasses, OrderWritesPutsAddBeforeMul) {
  EXPECT_EQ(after(order_writes, "storage s0 f32[2] = iota(0, 1)\ninput x = s0\nmul_(x, 3.0)\nadd_(x, 5.0)\nreturn x\n",
                  both(has(ir::OpKind::MulI), has(ir::OpKind::AddI))),
            "storage s0 f32[2] = iota(0.0, 1.0)\ninput x = s0\nadd_(x, 1.0)\nmul_(x, 2.0)\nreturn x\n");
}

// A foreach call whose elements, as statements of their own, keep the bug
// becomes them; one the bug needs as a call stays.
TEST(MinimizePasses, PlainForeachUnlessTheBugNeedsTheCall) {
  const std::string program =
      "storage s0 f32[4] = iota(0.0, 1.0)\ninput x = s0\na = slice(x, 0, 0, 2, 1)\nb = slice(x, 0, 2, 4, 1)\n"
      "foreach_add_([a, b], [b, a])\nreturn x\n";
  EXPECT_EQ(after(plain_foreach, program, storage0_is({2, 4, 4, 7})),
            "storage s0 f32[4] = iota(0.0, 1.0)\ninput x = s0\na = slice(x, 0, 0, 2, 1)\nb = slice(x, 0, 2, 4, 1)\n"
            "add_(a, b)\nadd_(b, a)\nreturn x\n");
  const Interesting call = [](const ir::Program& p) { return ir::print(p).find("foreach_add_") != std::string::npos; };
  EXPECT_EQ(after(plain_foreach, program, call), program);
}

TEST(MinimizePasses, CanonicalOrderTowardTheLeastSkeleton) {
  EXPECT_EQ(after(canonical_order, "storage s0 f32[2] = iota(0, 1)\ninput x = s0\nr = neg(x)\nexp_(x)\nreturn r, x\n",
                  has(ir::OpKind::ExpI)),
            "storage s0 f32[2] = iota(0.0, 1.0)\ninput x = s0\nexp_(x)\nr = neg(x)\nreturn r, x\n");
}

TEST(MinimizePasses, ShrinkSizesAndStorages) {
  // The input moves down to offset 0 and the storage shrinks to what it
  // needs; over all of it, contiguous, the input is the whole storage.
  EXPECT_EQ(
      after(shrink, "storage s0 f32[12] = iota(0, 1)\ninput x = as_strided(s0, [2, 3], [3, 1], 2)\nexp_(x)\nreturn x\n",
            has(ir::OpKind::ExpI)),
      "storage s0 f32[6] = iota(0.0, 1.0)\ninput x = s0\nexp_(x)\nreturn x\n");
  // Two inputs move down together (to 1 and 0: how they overlap stays),
  // the storage shrinks to 2; this predicate then lets a move to 0 too.
  EXPECT_EQ(after(shrink,
                  "storage s0 f32[16] = iota(0, 1)\ninput a = as_strided(s0, [], [], 15)\n"
                  "input b = as_strided(s0, [], [], 14)\nadd_(a, 1.0)\nreturn b\n",
                  has(ir::OpKind::AddI)),
            "storage s0 f32[2] = iota(0.0, 1.0)\ninput a = as_strided(s0, [], [], 0)\n"
            "input b = as_strided(s0, [], [], 0)\nadd_(a, 1.0)\nreturn b\n");
}

TEST(MinimizePasses, ConstantsAndInitsTowardSimpleValues) {
  EXPECT_EQ(after(constants, "storage s0 f32[2] = random(7)\ninput x = s0\nadd_(x, 0.375)\nreturn x\n",
                  has(ir::OpKind::AddI)),
            "storage s0 f32[2] = random(7)\ninput x = s0\nadd_(x, 0.0)\nreturn x\n");
  EXPECT_EQ(
      after(inits, "storage s0 f32[2] = random(7)\ninput x = s0\nadd_(x, 0.375)\nreturn x\n", has(ir::OpKind::AddI)),
      "storage s0 f32[2] = full(0.0)\ninput x = s0\nadd_(x, 0.375)\nreturn x\n");
}

}  // namespace
}  // namespace af::fuzz::minimizing
