// The comparison's summary (issue #59): per strategy, correct and refused
// programs with the reasons, and costs on the programs all support.
#include "studies/compare.h"

#include <gtest/gtest.h>

namespace af::fuzz {
namespace {

TEST(Compare, TheSummaryCountsCorrectAndRefusedProgramsWithTheirReasons) {
  CompareOptions o;
  o.seed = 3;
  o.programs = 40;
  o.strategies = {"eager", "functionalize", "update_aliases"};
  o.reorders = {"program", "fusion"};
  o.fusions = {"none", "greedy"};
  const CompareResult r = compare_strategies(o);
  ASSERT_EQ(r.summary.size(), 3u);
  EXPECT_EQ(r.rows.size(), 3u * 2 * 2);
  for (const CompareSummary& s : r.summary) {
    EXPECT_GT(s.programs, 0) << s.strategy;
    EXPECT_LE(s.correct + s.refused, s.programs) << s.strategy;
    int64_t reasons = 0;
    for (const auto& [why, n] : s.refusals) {
      EXPECT_FALSE(why.empty());
      reasons += n;
    }
    EXPECT_EQ(reasons, s.refused) << s.strategy;  // each refused program has one reason
  }
  // The reference semantics is correct everywhere; Thunder's rule refuses
  // some programs (its predicted refusals), with the reason named.
  EXPECT_EQ(r.summary[0].correct, r.summary[0].programs);
  EXPECT_EQ(r.summary[1].correct, r.summary[1].programs);
  EXPECT_GT(r.summary[2].refused, 0);
  EXPECT_NE(r.summary[2].refusals.front().first.find("Thunder raises"), std::string::npos);
  // Costs compare on the programs every strategy supports.
  EXPECT_GT(r.common, 0);
  EXPECT_LE(r.common, r.summary[2].programs - r.summary[2].refused);
  EXPECT_GT(r.summary[0].regions, 0);
}

}  // namespace
}  // namespace af::fuzz
