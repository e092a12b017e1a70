// make_schedule's per-pass dump (aliasfuzz run --dump-passes): what the
// strategy pass and the mutant pass made of a program, as .af text that
// parses, then the DAG, the order and the regions.
#include <gtest/gtest.h>

#include "ir/analysis.h"
#include "ir/text.h"
#include "schedulers/schedulers.h"

namespace af::schedulers {
namespace {

// Two inputs over one storage (y is x's second row); x is written in place.
constexpr const char* kAliasInputs =
    "aliasfuzz 1\n"
    "storage s0 f32[6] = iota(0, 1)\n"
    "input x = as_strided(s0, [2, 3], [3, 1], 0)\n"
    "input y = as_strided(s0, [3], [1], 3)\n"
    "r = exp(y)\n"
    "add_(x, 1.0)\n"
    "z = mul(y, 2.0)\n"
    "return r, z\n";

std::vector<PassDump> dump_of(const std::string& strategy, const std::string& inject) {
  auto p = ir::parse_and_validate(kAliasInputs);
  EXPECT_TRUE(p.ok());
  auto an = ir::analyze(*p);
  EXPECT_TRUE(an.ok());
  run::RunConfig c;
  EXPECT_FALSE(run::parse_config({strategy, inject, "program", "greedy"}, &c));
  std::vector<PassDump> dump;
  make_schedule(*p, *an, c, &dump);  // a strategy may fail (the rule predicts Thunder raises): still dumped
  return dump;
}

const PassDump& pass(const std::vector<PassDump>& dump, const std::string& name) {
  for (const auto& d : dump)
    if (d.pass == name) return d;
  ADD_FAILURE() << "no pass " << name;
  static const PassDump none;
  return none;
}

TEST(DumpPasses, FunctionalizeTurnsTheInPlaceWriteIntoAScatterAndAWriteBack) {
  const auto dump = dump_of("functionalize", "");
  ASSERT_EQ(dump.size(), 4u);  // strategy, dag, order, regions: no mutant pass ran
  const std::string& after = pass(dump, "strategy functionalize").text;
  EXPECT_EQ(after,
            "aliasfuzz 1\n"
            "storage s0 f32[6] = iota(0.0, 1.0)\n"
            "input x = as_strided(s0, [2, 3], [3, 1], 0)\n"
            "input y = as_strided(s0, [3], [1], 3)\n"
            "r = exp(y)\n"
            "x_1 = add(x, 1.0)\n"
            "s0_1 = as_strided(x, [6], [1], 0)\n"
            "s0_2 = as_strided_scatter(s0_1, x_1, [2, 3], [3, 1], 0)\n"
            "y_1 = as_strided(s0_2, [3], [1], 3)\n"
            "z = mul(y_1, 2.0)\n"
            "copy_(s0_1, s0_2)\n"
            "return r, z\n");
  EXPECT_TRUE(ir::parse_and_validate(after).ok());
  EXPECT_EQ(pass(dump, "order program").text, "0 1 2 3 4 5 6\n");
  EXPECT_NE(pass(dump, "dag").text.find("4 -> 5 (dataflow)"), std::string::npos);
}

TEST(DumpPasses, DceDropsOutputlessRemovesTheWriteBack) {
  const auto dump = dump_of("functionalize", "dce-drops-outputless");
  const std::string& before = pass(dump, "strategy functionalize").text;
  const std::string& after = pass(dump, "mutant dce-drops-outputless").text;
  EXPECT_NE(before.find("copy_(s0_1, s0_2)\n"), std::string::npos);
  EXPECT_EQ(after.find("copy_("), std::string::npos);
  // Only the write-back is gone.
  std::string expected = before;
  expected.erase(expected.find("copy_(s0_1, s0_2)\n"), std::string("copy_(s0_1, s0_2)\n").size());
  EXPECT_EQ(after, expected);
  for (const auto* text : {&before, &after}) EXPECT_TRUE(ir::parse_and_validate(*text).ok()) << *text;
}

TEST(DumpPasses, EveryStrategysProgramParses) {
  for (const auto& s : run::strategy_names()) {
    const auto dump = dump_of(s, "");
    ASSERT_FALSE(dump.empty()) << s;
    EXPECT_EQ(dump[0].pass, "strategy " + s);
    if (dump[0].text.rfind("# failed: ", 0) == 0) {  // the failure, as an .af comment
      EXPECT_FALSE(run::is_must_agree(s)) << dump[0].text;
      continue;
    }
    EXPECT_TRUE(ir::parse_and_validate(dump[0].text).ok()) << s << "\n" << dump[0].text;
  }
}

}  // namespace
}  // namespace af::schedulers
