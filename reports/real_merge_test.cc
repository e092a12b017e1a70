// Real campaigns, not hand-built folders: shards 0/2 and 1/2 of a seed,
// merged, hold the same findings and buckets as one campaign over the same
// programs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <map>
#include <set>
#include <sstream>

#include "campaign/campaign.h"
#include "check/files.h"
#include "reports/report.h"
#include "reports/test_util.h"

namespace af::reports {
namespace {

using nlohmann::json;

std::set<std::string> finding_keys(const std::string& dir) {
  std::set<std::string> r;
  for (const json& f : read_findings(dir))
    r.insert(std::to_string(f["k"].get<uint64_t>()) + " " + f["bucket"].get<std::string>() + " " + f["spec"].dump());
  return r;
}

fuzz::CampaignOptions options(const std::string& out, int shard) {
  fuzz::CampaignOptions o;
  o.out = out;
  o.seed = 404;
  o.programs = 400;
  o.jobs = 2;
  o.quiet = true;
  o.minimize_s = 0;
  o.shard_i = shard;
  o.shard_n = shard < 0 ? 1 : 2;
  if (shard < 0) o.shard_i = 0;
  return o;
}

TEST(RealMerge, TwoShardsEqualOneCampaign) {
  const std::string one = testing::fresh_dir("real-one"), a = testing::fresh_dir("real-a"),
                    b = testing::fresh_dir("real-b"), merged = testing::fresh_dir("real-merged");
  fuzz::run_campaign(options(one, -1));
  fuzz::run_campaign(options(a, 0));
  fuzz::run_campaign(options(b, 1));
  write_reports(one);
  merge_campaigns({a, b}, merged);
  const auto want = finding_keys(one);
  ASSERT_FALSE(want.empty()) << "no findings: the comparison would prove nothing";
  EXPECT_EQ(finding_keys(merged), want);
  const json s1 = testing::read_json(one + "/report.json"), s2 = testing::read_json(merged + "/report.json");
  EXPECT_EQ(s1["programs"], s2["programs"]);
  EXPECT_EQ(s1["findings"], s2["findings"]);
  auto by_name = [](const json& s) {
    std::map<std::string, std::pair<json, json>> m;  // name -> (count, first program)
    for (const json& b : s["buckets"]) m[b["name"].get<std::string>()] = {b["count"], b["first_program"]};
    return m;
  };
  EXPECT_EQ(by_name(s1), by_name(s2));
}

}  // namespace
}  // namespace af::reports
