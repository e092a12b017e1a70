// Checked mode on the interpreter tier, judged against the source program
// through each statement's provenance (Schedule::origin):
//  - provenance is right: under every must-agree strategy and policy, no
//    statement is reported on generated programs, and most value-producing
//    statements are compared with a source statement (the check is not vacuous);
//  - a strategy's own bug is named at its first diverging source statement:
//    every schedule-level mutant is caught, and on a hand-written program the
//    reported source statement is the one where the bug first shows.
#include <gtest/gtest.h>

#include <iostream>

#include "generate/generator.h"
#include "ir/analysis.h"
#include "ir/text.h"
#include "schedulers/schedulers.h"

namespace af::schedulers {
namespace {

struct Checked {
  oracles::Observables obs;
  std::optional<CheckFailure> failure;
  int compared_with_source = 0, computing = 0;
};

Checked run_checked(const ir::Program& p, const ir::Analysis& an, const run::SpelledSpec& o) {
  auto s = make_schedule(p, an, o);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  Checked c;
  if (!s.ok()) return c;
  const ExpectedByStmt e = checked_expectations(*s, p, an);
  c.obs = interpret(*s, &e, &c.failure);
  for (size_t j = 0; j < e.size(); ++j) {
    if (!e[j]) continue;
    ++c.computing;
    c.compared_with_source += s->origin[j] >= 0;
  }
  return c;
}

const std::vector<std::pair<std::string, std::string>> kPolicies = {
    {"program", "none"}, {"random:1", "greedy"}, {"fusion", "dataflow"}, {"alap", "greedy"}};

TEST(Checked, MustAgreeStrategiesPassEveryStatement) {
  int computing = 0, from_source = 0;
  for (int i = 0; i < 300; ++i) {
    const ir::Program p = fuzz::generate(77, i);
    const ir::Analysis an = *ir::analyze(p);
    for (const auto& strategy : run::must_agree_strategy_names())
      for (const auto& [r, f] : kPolicies) {
        Checked c = run_checked(p, an, run::SpelledSpec{strategy, "", r, f});
        ASSERT_FALSE(c.failure) << strategy << " " << r << " " << f << ": statement " << c.failure->stmt << " ("
                                << c.failure->op << ", source statement " << c.failure->source_stmt << ")\n"
                                << ir::print(p);
        computing += c.computing;
        from_source += c.compared_with_source;
      }
  }
  std::cout << from_source << " of " << computing << " computing statements compared with their source statement\n";
  EXPECT_GT(from_source, computing / 2);
}

// Every mutant that lives in the schedule is caught by checked mode on
// some program, with a source statement named for the strategy mutants.
TEST(Checked, MutantsAreCaughtAtASourceStatement) {
  const std::pair<const char*, const char*> zoo[] = {{"ua-no-maybe-views", "update_aliases-ordered"},
                                                     {"ua-no-multi-output", "update_aliases-ordered"},
                                                     {"ua-writes-only", "update_aliases-ordered"},
                                                     {"fusion-stale-copy", "functionalize"},
                                                     {"fn-per-input-base", "functionalize"},
                                                     {"fn-no-regenerate", "functionalize"},
                                                     {"dce-drops-outputless", "eager"}};
  for (const auto& [mutant, strategy] : zoo) {
    int caught = 0, named = 0, diverged = 0;
    for (int i = 0; i < 300; ++i) {
      const ir::Program p = fuzz::generate(1, i);
      const ir::Analysis an = *ir::analyze(p);
      const oracles::Observables expected = oracles::run_eager(p, an);
      for (const auto& [r, f] : kPolicies) {
        Checked c = run_checked(p, an, run::SpelledSpec{strategy, mutant, r, f});
        diverged += oracles::compare(p, expected, c.obs).has_value();
        caught += c.failure.has_value();
        named += c.failure && c.failure->source_stmt >= 0;
      }
    }
    std::cout << mutant << ": " << diverged << " diverging runs, checked mode reported " << caught << " (" << named
              << " at a source statement)\n";
    EXPECT_GT(caught, 0) << mutant;
    // dce-drops-outputless deletes the source statement itself: what it
    // changes shows only where a later statement reads the storage.
    if (std::string(mutant) != "dce-drops-outputless") {
      EXPECT_GT(named, 0) << mutant;
    }
  }
}

// fn-per-input-base gives each input its own base although x0 and x1 share
// s: the write through x0 is lost for x1, so the first source statement
// with a wrong value is `c = add(x1, 1.0)` (line 6), not the write.
TEST(Checked, StrategyBugIsNamedAtItsFirstDivergingSourceStatement) {
  const char* text =
      "aliasfuzz 1\n"
      "storage s f32[4] = iota(0, 1)\n"
      "input x0 = as_strided(s, [4], [1], 0)\n"
      "input x1 = as_strided(s, [2], [1], 2)\n"
      "mul_(x0, 2.0)\n"
      "c = add(x1, 1.0)\n"
      "return c\n";
  auto p = ir::parse_and_validate(text);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  const ir::Analysis an = *ir::analyze(*p);
  Checked c = run_checked(*p, an, run::SpelledSpec{"functionalize", "fn-per-input-base", "program", "none"});
  ASSERT_TRUE(c.failure);
  EXPECT_EQ(c.failure->source_stmt, 1);
  EXPECT_EQ(c.failure->op, "add");
  EXPECT_EQ(c.failure->first_index, 0);  // x1 is [4, 6] after the write: c = [5, 7], not [3, 4]
  Checked ok = run_checked(*p, an, run::SpelledSpec{"functionalize", "", "program", "none"});
  EXPECT_FALSE(ok.failure);
}

}  // namespace
}  // namespace af::schedulers
