// RunSpec's spellings: recall (format v1.4) round-trips through JSON,
// header words and flags, and is refused on aliasfuzz's own strategies.
#include "run/spec.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace af::run {
namespace {

TEST(RunSpec, RecallRoundTripsInEverySpelling) {
  const RunSpec s = spec_of({"aot-eager@2.15.0", "", "program", "none", "interp", false, true});
  EXPECT_TRUE(s.recall);
  EXPECT_EQ(spec_json(s)["recall"], true);
  EXPECT_EQ(*spec_from_json(spec_json(s)), s);
  EXPECT_EQ(*spec_from_words(spec_words(s)), s);
  EXPECT_NE(spec_words(s).find(" recall=1"), std::string::npos);
  EXPECT_NE(spec_flags(s).find(" --recall"), std::string::npos);
  const RunSpec once = spec_of({"aot-eager@2.15.0"});
  EXPECT_FALSE(spec_json(once).contains("recall"));  // unchanged spelling without it
  EXPECT_FALSE(once == s);
}

TEST(RunSpec, RecallIsForTheCompilersUnderStudyOnly) {
  std::string why;
  EXPECT_FALSE(parse_spec({"functionalize", "", "program", "none", "interp", false, true}, &why));
  EXPECT_NE(why.find("external"), std::string::npos) << why;
  why.clear();
  EXPECT_FALSE(parse_spec({"", "fn-no-regenerate", "program", "none", "interp", false, true}, &why));
  EXPECT_NE(why.find("--recall"), std::string::npos) << why;
}

}  // namespace
}  // namespace af::run

namespace af::run {
namespace {

// Issue #56's history across processes is a setting of the spec, so that a
// campaign's finding minimizes and replays the same way.
TEST(RunSpec, AcrossProcessesRoundTripsAndNeedsRecall) {
  const RunSpec s = spec_of({"inductor@2.15.0", "", "program", "none", "interp", false, true, true});
  EXPECT_TRUE(s.across_processes);
  EXPECT_EQ(spec_json(s)["across_processes"], true);
  EXPECT_EQ(*spec_from_json(spec_json(s)), s);
  EXPECT_EQ(*spec_from_words(spec_words(s)), s);
  EXPECT_NE(spec_flags(s).find(" --recall --across-processes"), std::string::npos);
  EXPECT_FALSE(s == spec_of({"inductor@2.15.0", "", "program", "none", "interp", false, true}));
  std::string why;
  EXPECT_FALSE(parse_spec({"inductor@2.15.0", "", "program", "none", "interp", false, false, true}, &why));
  EXPECT_NE(why.find("--recall"), std::string::npos) << why;
}

}  // namespace
}  // namespace af::run
