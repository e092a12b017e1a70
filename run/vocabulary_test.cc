// The spellings of the run settings: every name a table lists parses and
// prints back as itself, the "random" table column parses as a kind only,
// and near-miss spellings are refused with the valid choices named.
#include "run/vocabulary.h"

#include <gtest/gtest.h>

namespace af::run {
namespace {

TEST(RunConfig, EveryListedNameRoundTrips) {
  for (const auto& n : strategy_names()) EXPECT_EQ(parse_strategy(n)->spelling, n);
  for (const auto& n : mutant_names()) EXPECT_EQ(mutant_name(*parse_mutant(n)), n);
  for (const auto& n : fusion_policy_names()) EXPECT_EQ(fusion_name(*parse_fusion(n)), n);
  for (const auto& n : target_names()) EXPECT_EQ(target_name(*parse_target(n)), n);
  for (const Reorder& r : seedless_reorders()) EXPECT_EQ(parse_reorder(reorder_name(r))->kind, r.kind);
  EXPECT_EQ(seedless_reorders().size(), reorder_policy_names().size() - 1);  // all but random:SEED
  for (const auto& n : must_agree_strategy_names()) EXPECT_TRUE(is_must_agree(n)) << n;
  EXPECT_FALSE(is_must_agree("update_aliases"));
}

TEST(RunConfig, RandomNeedsItsSeedExceptAsATableColumn) {
  const auto r = parse_reorder("random:18446744073709551615");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->kind, ReorderKind::Random);
  EXPECT_EQ(r->seed, 18446744073709551615ull);
  EXPECT_EQ(reorder_name(*r), "random:18446744073709551615");
  for (const char* bad : {"random", "random:", "random:x", "random:-1", "random:1:2", "Random:1", "fusion ", ""})
    EXPECT_FALSE(parse_reorder(bad).has_value()) << bad;
  EXPECT_EQ(parse_reorder_kind("random"), ReorderKind::Random);
  EXPECT_EQ(parse_reorder_kind("alap"), ReorderKind::Alap);
  EXPECT_EQ(parse_reorder_kind("thunder-dataflow"), ReorderKind::ThunderDataflow);
  for (const char* bad : {"random:", "random:3", "rando", "randomx", ""})
    EXPECT_FALSE(parse_reorder_kind(bad).has_value()) << bad;
}

TEST(RunConfig, UsageErrorsNameTheValidChoices) {
  RunConfig c;
  SpelledSpec o;
  o.reorder = "sideways";
  const auto why = parse_config(o, &c);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("thunder-dataflow"), std::string::npos) << *why;
  o = SpelledSpec{};
  o.inject = "no-such-mutant";
  EXPECT_TRUE(parse_config(o, &c).has_value());
  o = SpelledSpec{};
  o.strategy = "update_aliases+war";
  o.inject = "fn-per-input-base";
  o.reorder = "random:7";
  o.fusion = "dataflow";
  ASSERT_FALSE(parse_config(o, &c).has_value());
  EXPECT_EQ(c.strategy.kind, StrategyKind::UpdateAliases);
  EXPECT_EQ(c.mutant, Mutant::FnPerInputBase);
  EXPECT_EQ(c.reorder.seed, 7u);
  EXPECT_EQ(c.fusion, Fusion::Dataflow);
}

}  // namespace
}  // namespace af::run
