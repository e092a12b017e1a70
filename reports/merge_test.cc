#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "check/check.h"
#include "check/files.h"
#include "reports/report.h"
#include "reports/test_util.h"

namespace af::reports {
namespace {

using nlohmann::json;
using testing::fresh_dir;
using testing::read_json;
using testing::slurp;

json spec(const std::string& strategy, const std::string& reorder = "random:1") {
  return {
      {"strategy", strategy}, {"inject", nullptr}, {"reorder", reorder}, {"fusion", "greedy"}, {"target", "interp"}};
}

const std::string A = "update_aliases__random__greedy__storage__add_";
const std::string B = "none__program__none__return__mul";
const std::string C = "functionalize__random__greedy__storage__copy_";

// Every finding of programs [0, 12) of seed 7, in program order.
std::vector<json> all_findings() {
  return {
      {{"k", 1}, {"t", 0.2}, {"bucket", A}, {"spec", spec("update_aliases")}, {"op", "add_"}},
      {{"k", 2}, {"t", 0.3}, {"bucket", A}, {"spec", spec("update_aliases")}, {"op", "add_"}},
      {{"k", 3}, {"t", 0.4}, {"bucket", A}, {"spec", spec("update_aliases")}, {"op", "add_"}},
      {{"k", 3}, {"t", 0.4}, {"bucket", A}, {"spec", spec("update_aliases", "random:9")}, {"op", "add_"}},
      {{"k", 4}, {"t", 0.5}, {"bucket", A}, {"spec", spec("update_aliases")}, {"op", "add_"}},
      {{"k", 4}, {"t", 0.5}, {"bucket", B}, {"spec", spec("none", "program")}, {"op", "mul"}},
      {{"k", 5}, {"t", 0.7}, {"bucket", B}, {"spec", spec("none", "program")}, {"op", "mul"}},
      {{"k", 6}, {"t", 1.1}, {"bucket", A}, {"spec", spec("update_aliases")}, {"op", "add_"}},
      {{"k", 8}, {"t", 1.4}, {"bucket", C}, {"spec", spec("functionalize")}, {"op", "copy_"}},
      {{"k", 9}, {"t", 1.6}, {"bucket", B}, {"spec", spec("none", "program")}, {"op", "mul"}},
      {{"k", 10}, {"t", 1.9}, {"bucket", "crash"}, {"spec", nullptr}, {"op", ""}, {"error", "crash (signal 11)"}},
  };
}

// Writes a campaign folder as campaign/campaign.cc would have left it after
// checking the given programs (buckets from its own findings):
// findings.jsonl with one line per bucket and its count, or (`legacy`, as
// folders written before that) one line per finding.
void write_campaign(const std::string& d, const std::string& shard, const std::vector<json>& findings, int64_t programs,
                    int64_t invalid, uint64_t done_below, const std::vector<uint64_t>& done_extra,
                    const std::string& tag, const std::vector<std::string>& extra_lines = {}, bool legacy = false) {
  fuzz::make_dirs(d + "/findings");
  std::string lines;
  json buckets = json::object();
  int64_t crashes = 0;
  for (const json& f : findings) {
    if (legacy) lines += f.dump() + "\n";
    const std::string b = f["bucket"];
    if (!buckets.contains(b)) {
      const bool must = f["spec"].is_object() ? run::spec_from_json(f["spec"])->must_agree() : true;
      buckets[b] = {{"count", 0}, {"first_program", f["k"]}, {"must_agree", must}, {"first_t", f["t"]}, {"finding", f}};
      fuzz::make_dirs(d + "/findings/" + b);
      fuzz::write_atomic(d + "/findings/" + b + "/case.af", "# " + tag + " program " + f["k"].dump() + "\n");
      fuzz::write_atomic(d + "/findings/" + b + "/note.md", "# " + b + "\n");
    }
    buckets[b]["count"] = buckets[b]["count"].get<int64_t>() + 1;
    crashes += f["bucket"] == "crash";
  }
  if (!legacy)
    for (auto& [name, b] : buckets.items()) {
      json line = b["finding"];
      line["count"] = b["count"];
      line["first_t"] = b["first_t"];
      lines += line.dump() + "\n";
    }
  if (legacy)
    for (auto& [name, b] : buckets.items())
      b = {{"count", b["count"]}, {"first_program", b["first_program"]}, {"must_agree", b["must_agree"]}};
  for (const std::string& l : extra_lines) lines += l + "\n";
  fuzz::write_atomic(d + "/findings.jsonl", lines);
  fuzz::write_atomic(d + "/campaign.json",
                     json{{"seed", 7}, {"shard", shard}, {"programs", 12}, {"target", "interp"}}.dump(2));
  json timeline = json::array();
  for (int t = 1; t <= 2; ++t)
    timeline.push_back({{"t", t}, {"programs", programs * t / 2}, {"buckets", buckets.size()}});
  json state = {{"seed", 7},          {"done_below", done_below},    {"done_extra", done_extra}, {"programs", programs},
                {"invalid", invalid}, {"findings", findings.size()}, {"crashes", crashes},       {"timeouts", 0},
                {"elapsed_s", 2.0},   {"buckets", buckets},          {"timeline", timeline}};
  fuzz::write_atomic(d + "/state.json", state.dump());
}

std::vector<json> of_shard(int i, int n) {
  std::vector<json> v;
  for (const json& f : all_findings())
    if (f["k"].get<int>() % n == i) v.push_back(f);
  return v;
}

std::multiset<std::string> finding_set(const std::string& dir) {
  std::multiset<std::string> s;
  for (json f : read_findings(dir)) {
    f.erase("t");
    f.erase("first_t");
    s.insert(f.dump());
  }
  return s;
}

// A state's buckets without their findings' timing: (count, first program, must agree).
json bucket_summary(const json& state) {
  json r = json::object();
  for (auto& [name, b] : state["buckets"].items())
    r[name] = {{"count", b["count"]}, {"first_program", b["first_program"]}, {"must_agree", b["must_agree"]}};
  return r;
}

TEST(Merge, TwoShardsEqualOneUnshardedCampaign) {
  const std::string root = fresh_dir("merge");
  const std::string s0 = root + "/s0", s1 = root + "/s1", single = root + "/single", out = root + "/merged";
  write_campaign(single, "0/1", all_findings(), 12, 2, 12, {}, "single");
  write_campaign(s0, "0/2", of_shard(0, 2), 6, 1, 6, {}, "shard0");
  // Shard 1 holds a duplicated line (e.g. copied twice): merged once.
  write_campaign(s1, "1/2", of_shard(1, 2), 6, 1, 6, {}, "shard1");
  const std::string lines = slurp(s1 + "/findings.jsonl");
  fuzz::write_atomic(s1 + "/findings.jsonl", lines + lines.substr(0, lines.find('\n') + 1));
  merge_campaigns({s0, s1}, out);

  const json want = read_json(single + "/state.json"), got = read_json(out + "/state.json");
  EXPECT_EQ(bucket_summary(got), bucket_summary(want));
  EXPECT_EQ(read_findings(out).size(), 4u);  // one line per bucket
  EXPECT_EQ(got["programs"], want["programs"]);
  EXPECT_EQ(got["invalid"], want["invalid"]);
  EXPECT_EQ(got["findings"], want["findings"]);
  EXPECT_EQ(got["crashes"], want["crashes"]);
  EXPECT_EQ(got["seed"], 7);
  EXPECT_EQ(got["done_below"], 12);
  EXPECT_EQ(got["done_extra"], json::array());
  EXPECT_EQ(finding_set(out), finding_set(single));

  // Each bucket folder comes from the shard that holds its first program.
  EXPECT_EQ(slurp(out + "/findings/" + A + "/case.af"), "# shard1 program 1\n");
  EXPECT_EQ(slurp(out + "/findings/" + B + "/case.af"), "# shard0 program 4\n");
  EXPECT_EQ(slurp(out + "/findings/" + C + "/case.af"), "# shard0 program 8\n");
  EXPECT_EQ(slurp(out + "/findings/crash/case.af"), "# shard0 program 10\n");

  const json campaign = read_json(out + "/campaign.json");
  EXPECT_EQ(campaign["shard"], "merged");
  EXPECT_EQ(campaign["sources"], json::array({s0, s1}));

  // Timeline: the shards' programs add up at each time.
  const json tl = got["timeline"];
  ASSERT_FALSE(tl.empty());
  EXPECT_EQ(tl.back()["programs"], 12);
  EXPECT_EQ(tl.back()["buckets"], 4);
  for (size_t i = 1; i < tl.size(); ++i) EXPECT_LE(tl[i - 1]["programs"], tl[i]["programs"]);

  // The reports agree with those of the single campaign on the buckets.
  write_reports(single);
  json rs = read_json(single + "/report.json"), rm = read_json(out + "/report.json");
  for (json* r : {&rs, &rm})  // stories name each folder's own files
    for (json& b : (*r)["buckets"]) b.erase("story");
  EXPECT_EQ(rm["buckets"], rs["buckets"]);
  EXPECT_EQ(rm["findings_per_strategy"], rs["findings_per_strategy"]);
  EXPECT_EQ(rm["programs"], 12);
  EXPECT_EQ(rm["shard"], "merged");
  EXPECT_NE(slurp(out + "/report.html").find("<svg"), std::string::npos);
  EXPECT_FALSE(slurp(out + "/report.md").empty());

  // Merging in the other order gives the same result.
  const std::string out2 = root + "/merged2";
  merge_campaigns({s1, s0}, out2);
  EXPECT_EQ(bucket_summary(read_json(out2 + "/state.json")), bucket_summary(want));
  EXPECT_EQ(slurp(out2 + "/findings.jsonl"), slurp(out + "/findings.jsonl"));
}

TEST(Merge, PartialShardKeepsDoneProgramsGlobal) {
  const std::string root = fresh_dir("partial");
  // Shard 1/2 finished local programs 0..3 (global 1, 3, 5, 7) and local 5 (global 11).
  std::vector<json> f1;
  for (const json& f : of_shard(1, 2))
    if (f["k"] != 9) f1.push_back(f);
  write_campaign(root + "/s0", "0/2", of_shard(0, 2), 6, 1, 6, {}, "shard0");
  write_campaign(root + "/s1", "1/2", f1, 5, 0, 4, {11}, "shard1");
  merge_campaigns({root + "/s0", root + "/s1"}, root + "/out");
  const json st = read_json(root + "/out/state.json");
  EXPECT_EQ(st["done_below"], 9);
  EXPECT_EQ(st["done_extra"], json::array({10, 11}));
  EXPECT_EQ(st["programs"], 11);
  EXPECT_EQ(st["buckets"][B]["count"], 2);
  EXPECT_EQ(st["buckets"][B]["first_program"], 4);
}

TEST(Merge, RejectsDifferentSeedsAndNoSources) {
  const std::string root = fresh_dir("seeds");
  write_campaign(root + "/a", "0/2", of_shard(0, 2), 6, 0, 6, {}, "a");
  write_campaign(root + "/b", "1/2", of_shard(1, 2), 6, 0, 6, {}, "b");
  json st = read_json(root + "/b/state.json");
  st["seed"] = 8;
  fuzz::write_atomic(root + "/b/state.json", st.dump());
  EXPECT_THROW(merge_campaigns({root + "/a", root + "/b"}, root + "/out"), std::runtime_error);
  EXPECT_THROW(merge_campaigns({}, root + "/out"), std::runtime_error);
  EXPECT_THROW(merge_campaigns({root + "/missing"}, root + "/out"), std::runtime_error);
}

TEST(Merge, SameShardTwiceCountsOnce) {
  const std::string root = fresh_dir("twice");
  write_campaign(root + "/a", "0/2", of_shard(0, 2), 6, 1, 6, {}, "a");
  write_campaign(root + "/b", "0/2", of_shard(0, 2), 6, 1, 6, {}, "b");
  merge_campaigns({root + "/a", root + "/b"}, root + "/out");
  const json st = read_json(root + "/out/state.json");
  EXPECT_EQ(st["programs"], 6);
  EXPECT_EQ(st["findings"], of_shard(0, 2).size());
}

TEST(Merge, FoldersWithOneLinePerFindingMergeLikeOneLinePerBucket) {
  const std::string root = fresh_dir("legacy");
  write_campaign(root + "/s0", "0/2", of_shard(0, 2), 6, 1, 6, {}, "shard0", {}, true);
  write_campaign(root + "/s1", "1/2", of_shard(1, 2), 6, 1, 6, {}, "shard1", {}, true);
  write_campaign(root + "/single", "0/1", all_findings(), 12, 2, 12, {}, "single");
  merge_campaigns({root + "/s0", root + "/s1"}, root + "/out");
  const json got = read_json(root + "/out/state.json");
  EXPECT_EQ(bucket_summary(got), bucket_summary(read_json(root + "/single/state.json")));
  EXPECT_EQ(got["findings"], all_findings().size());
  EXPECT_EQ(finding_set(root + "/out"), finding_set(root + "/single"));
}

TEST(Merge, EveryFindingLogsAreUnited) {
  const std::string root = fresh_dir("log-all");
  write_campaign(root + "/s0", "0/2", of_shard(0, 2), 6, 1, 6, {}, "shard0");
  write_campaign(root + "/s1", "1/2", of_shard(1, 2), 6, 1, 6, {}, "shard1");
  for (int i : {0, 1}) {
    std::string lines;
    for (const json& f : of_shard(i, 2)) lines += f.dump() + "\n";
    if (i == 1) lines += of_shard(1, 2)[0].dump() + "\n";  // a duplicate
    fuzz::write_atomic(root + "/s" + std::to_string(i) + "/findings-all.jsonl", lines);
  }
  merge_campaigns({root + "/s0", root + "/s1"}, root + "/out");
  const std::string all = slurp(root + "/out/findings-all.jsonl");
  EXPECT_EQ(static_cast<size_t>(std::count(all.begin(), all.end(), '\n')), all_findings().size());
  EXPECT_EQ(all.substr(0, all.find('\n')), all_findings()[0].dump());  // ordered by program
}

TEST(Merge, ExternalRunsAreSummedAndReported) {
  const std::string root = fresh_dir("merge-external");
  const std::string s0 = root + "/s0", s1 = root + "/s1", out = root + "/merged";
  write_campaign(s0, "0/2", {}, 6, 0, 6, {}, "shard0");
  write_campaign(s1, "1/2", {}, 6, 0, 6, {}, "shard1");
  const json note = json::array({"not supported by thunder 0.2.6: fill_, sigmoid_"});
  for (const auto& [d, e] : std::vector<std::pair<std::string, json>>{
           {s0, {{"runs", 6}, {"compared", 4}, {"unsupported", 1}, {"unsupported_reasons", {{"thunder: X", 1}}}}},
           {s1, {{"runs", 6}, {"compared", 5}, {"unsupported", 1}, {"unsupported_reasons", {{"thunder: X", 1}}}}}}) {
    json st = read_json(d + "/state.json");
    st["external"] = e;
    st["tiers"] = {{"thunder", {{"programs", 6}, {"seconds", 3.0}}}};
    st["external"]["not_supported"] = note;
    fuzz::write_atomic(d + "/state.json", st.dump());
    json c = read_json(d + "/campaign.json");
    c["not_supported"] = note;
    fuzz::write_atomic(d + "/campaign.json", c.dump());
  }
  merge_campaigns({s0, s1}, out);
  const json e = read_json(out + "/state.json")["external"];
  EXPECT_EQ(e["runs"], 12);
  EXPECT_EQ(e["compared"], 9);
  EXPECT_EQ(e["unsupported"], 2);
  EXPECT_EQ(e["unsupported_reasons"]["thunder: X"], 2);
  const json tiers = read_json(out + "/state.json")["tiers"];
  EXPECT_EQ(tiers["thunder"]["programs"], 12);
  EXPECT_EQ(tiers["thunder"]["seconds"], 6.0);
  EXPECT_EQ(read_json(out + "/report.json")["programs_per_s_by_tier"]["thunder"], 2.0);
  const std::string md = slurp(out + "/report.md");
  EXPECT_NE(md.find("external strategies: 9 of 12 runs reached a value comparison (75.0%), 2 unsupported"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("not supported by thunder 0.2.6: fill_, sigmoid_ (left out of the generated programs)"),
            std::string::npos)
      << md;
}

}  // namespace
}  // namespace af::reports
