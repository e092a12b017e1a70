// Format v1.3's input-metadata replay (input_metadata.cc): every strategy's
// schedule of a program whose metadata ops re-shape an input ends with an
// epilogue `x_1 = as_strided_(x, sizes, strides, offset)` that prints and
// parses, the interpreter reads the input's final geometry from it, and a
// schedule without it (a compiler that forgets the replay) is an
// input-geometry mismatch.
#include <gtest/gtest.h>

#include "ir/analysis.h"
#include "ir/text.h"
#include "schedulers/schedulers.h"

namespace af::schedulers {
namespace {

// x is transposed, then unsqueezed, in place: after the call the caller's
// x has sizes [1, 3, 2], strides [3, 1, 3] (PyTorch 1.13 and 2.9 alike).
// w is a view of x taken before: it keeps its geometry.
constexpr const char* kReshapedInput =
    "aliasfuzz 1\n"
    "storage s0 f32[6] = iota(0.0, 1.0)\n"
    "input x = as_strided(s0, [2, 3], [3, 1], 0)\n"
    "input u = s0\n"
    "w = select(x, 0, 1)\n"
    "y = transpose_(x, 0, 1)\n"
    "z = unsqueeze_(y, 0)\n"
    "r = relu_(z)\n"
    "m = mul(r, 2.0)\n"
    "return m, w\n";

struct Case {
  ir::Program p;
  ir::Analysis an;
  oracles::Observables expected;
};

Case load() {
  auto p = ir::parse_and_validate(kReshapedInput);
  EXPECT_TRUE(p.ok()) << p.error().to_string();
  auto an = ir::analyze(*p);
  EXPECT_TRUE(an.ok());
  return {*p, *an, oracles::run_eager(*p, *an)};
}

TEST(InputMetadata, TheOracleFollowsTheObjectThroughMetadataOps) {
  const Case c = load();
  ASSERT_EQ(c.expected.inputs.size(), 2u);
  EXPECT_EQ(oracles::geometry_text(c.expected.inputs[0]), "sizes [1, 3, 2] strides [3, 1, 3] offset 0");
  EXPECT_EQ(oracles::geometry_text(c.expected.inputs[1]), "sizes [6] strides [1] offset 0");  // unchanged
}

TEST(InputMetadata, EagerScheduleEndsWithTheReplay) {
  const Case c = load();
  auto sc = make_schedule(c.p, c.an, run::SpelledSpec{"eager", "", "program", "none"});
  ASSERT_TRUE(sc.ok()) << sc.error().to_string();
  EXPECT_EQ(ir::print(sc->program),
            "aliasfuzz 1\n"
            "storage s0 f32[6] = iota(0.0, 1.0)\n"
            "input x = as_strided(s0, [2, 3], [3, 1], 0)\n"
            "input u = s0\n"
            "w = select(x, 0, 1)\n"
            "y = transpose(x, 0, 1)\n"
            "z = unsqueeze(y, 0)\n"
            "r = relu_(z)\n"
            "m = mul(r, 2.0)\n"
            "x_1 = as_strided_(x, [1, 3, 2], [3, 1, 3], 0)\n"
            "return m, w\n");
  // eager stays one total order: the epilogue runs last.
  EXPECT_EQ(sc->order().back(), static_cast<int>(sc->program.stmts.size()) - 1);
}

TEST(InputMetadata, EveryStrategyReplaysAndAgrees) {
  const Case c = load();
  int scheduled = 0;
  for (const auto& s : run::strategy_names()) {
    auto sc = make_schedule(c.p, c.an, run::SpelledSpec{s, "", "random:5", "greedy"});
    // Thunder's rule predicts that the real Thunder refuses transpose_.
    if (!sc.ok() && s == "update_aliases" && sc.error().message.find(run::kThunderRaises) != std::string::npos)
      continue;
    ASSERT_TRUE(sc.ok()) << s << ": " << sc.error().to_string();
    ++scheduled;
    const int last = static_cast<int>(sc->program.stmts.size()) - 1;
    ASSERT_TRUE(is_input_metadata_replay(*sc, last)) << s << "\n" << ir::print(sc->program);
    int replays = 0;
    for (int j = 0; j <= last; ++j) replays += is_input_metadata_replay(*sc, j);
    EXPECT_EQ(replays, 1) << s << ": only x changed";
    // It prints, and parses back to a valid program that prints the same
    // (value ids may be numbered otherwise: update_aliases defines values
    // out of text order).
    const std::string text = ir::print(sc->program);
    auto back = ir::parse_and_validate(text);
    ASSERT_TRUE(back.ok()) << s << ": " << back.error().to_string();
    EXPECT_EQ(ir::print(*back), text) << s;
    const auto got = interpret(*sc);
    EXPECT_FALSE(oracles::compare(c.p, c.expected, got)) << s;
    if (!run::is_must_agree(s)) continue;
    auto r = run_and_compare(c.p, c.an, c.expected, run::SpelledSpec{s, "", "random:5", "greedy"});
    EXPECT_TRUE(r.agree) << s;
  }
  EXPECT_GE(scheduled, 4);
}

TEST(InputMetadata, WithoutTheReplayTheCallerSeesTheOldGeometry) {
  const Case c = load();
  for (const auto& s : run::must_agree_strategy_names()) {
    auto sc = make_schedule(c.p, c.an, run::SpelledSpec{s, "", "program", "greedy"});
    ASSERT_TRUE(sc.ok()) << s;
    const Schedule bad = without_input_metadata_replay(*sc);
    EXPECT_EQ(bad.program.stmts.size() + 1, sc->program.stmts.size()) << s;
    const auto mm = oracles::compare(c.p, c.expected, interpret(bad));
    ASSERT_TRUE(mm) << s;
    EXPECT_EQ(mm->observable, "input x") << s;
    EXPECT_EQ(mm->what, "sizes [2, 3] strides [3, 1] offset 0, expected sizes [1, 3, 2] strides [3, 1, 3] offset 0")
        << s;
  }
}

// Strides of dims of size <= 1 are not compared (PyTorch's contiguity rules
// ignore them); sizes, offsets and every other stride are.
TEST(InputMetadata, CompareIgnoresOnlyStridesOfSizeOneDims) {
  const ir::Program p = load().p;
  auto obs = [](ir::Geometry x) {
    oracles::Observables o;
    o.inputs = {x, ir::Geometry{{6}, {1}, 0}};
    return o;
  };
  const auto e = obs(ir::Geometry{{1, 3, 2}, {3, 1, 3}, 0});
  EXPECT_FALSE(oracles::compare(p, e, obs(ir::Geometry{{1, 3, 2}, {6, 1, 3}, 0})));
  EXPECT_TRUE(oracles::compare(p, e, obs(ir::Geometry{{1, 3, 2}, {3, 2, 3}, 0})));
  EXPECT_TRUE(oracles::compare(p, e, obs(ir::Geometry{{1, 3, 2}, {3, 1, 3}, 1})));
  EXPECT_TRUE(oracles::compare(p, e, obs(ir::Geometry{{3, 2}, {1, 3}, 0})));
  oracles::Observables none = e;
  none.inputs.clear();  // an executor that reports no geometry
  const auto mm = oracles::compare(p, e, none);
  ASSERT_TRUE(mm);
  EXPECT_EQ(mm->observable, "inputs");
}

}  // namespace
}  // namespace af::schedulers
