#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "check/files.h"
#include "reports/report.h"
#include "reports/test_util.h"

namespace af::reports {
namespace {

using nlohmann::json;
using testing::fresh_dir;
using testing::read_json;
using testing::slurp;

json spec(const std::string& strategy, const json& inject = nullptr) {
  return {
      {"strategy", strategy}, {"inject", inject}, {"reorder", "random:3"}, {"fusion", "greedy"}, {"target", "interp"}};
}

// A small campaign folder written by hand, as campaign/campaign.cc writes one.
std::string make_campaign(bool with_regions) {
  const std::string d = fresh_dir("report");
  fuzz::make_dirs(d + "/findings");
  const std::string b1 = "update_aliases__random__greedy__storage__add_";
  const std::string b2 = "functionalize__random__greedy__return__mul";
  const std::string b3 = "mutant+drop_writeback__random__greedy__storage";
  json findings = json::array({
      {{"k", 3}, {"t", 0.5}, {"bucket", b1}, {"spec", spec("update_aliases")}, {"op", "add_"}},
      {{"k", 7}, {"t", 1.5}, {"bucket", b1}, {"spec", spec("update_aliases")}, {"op", "add_"}},
      {{"k", 9}, {"t", 2.5}, {"bucket", b2}, {"spec", spec("functionalize")}, {"op", "mul"}},
      {{"k", 11}, {"t", 2.7}, {"bucket", b3}, {"spec", spec("", "drop_writeback")}, {"op", ""}},
      {{"k", 12}, {"t", 2.9}, {"bucket", "crash"}, {"spec", nullptr}, {"op", ""}, {"error", "crash (signal 11)"}},
  });
  std::string lines;
  for (const json& f : findings) lines += f.dump() + "\n";
  lines += "{\"k\": 13, \"bucke";  // a torn last line
  fuzz::write_atomic(d + "/findings.jsonl", lines);
  for (const std::string& b : {b1, b2, b3, std::string("crash")}) {
    fuzz::make_dirs(d + "/findings/" + b);
    fuzz::write_atomic(d + "/findings/" + b + "/case.af", "# case\n");
    fuzz::write_atomic(d + "/findings/" + b + "/note.md", "# note\n");
  }
  fuzz::write_atomic(d + "/findings/" + b1 + "/min.af", "# min\n");
  fuzz::write_atomic(d + "/findings/" + b1 + "/repro.py", "print(1)\n");
  fuzz::write_atomic(d + "/campaign.json", json{{"seed", 42}, {"shard", "0/1"}, {"target", "interp"}}.dump());
  json state = {{"seed", 42},
                {"done_below", 20},
                {"done_extra", json::array()},
                {"programs", 20},
                {"invalid", 2},
                {"findings", 5},
                {"crashes", 1},
                {"timeouts", 0},
                {"elapsed_s", 4.0},
                {"buckets",
                 {{b1, {{"count", 2}, {"first_program", 3}, {"must_agree", false}}},
                  {b2, {{"count", 1}, {"first_program", 9}, {"must_agree", true}}},
                  {b3, {{"count", 1}, {"first_program", 11}, {"must_agree", false}}},
                  {"crash", {{"count", 1}, {"first_program", 12}, {"must_agree", true}}}}},
                {"timeline", json::array({{{"t", 1.0}, {"programs", 5}, {"buckets", 1}},
                                          {{"t", 2.0}, {"programs", 10}, {"buckets", 1}},
                                          {{"t", 3.0}, {"programs", 16}, {"buckets", 4}},
                                          {{"t", 4.0}, {"programs", 20}, {"buckets", 4}}})}};
  if (with_regions) state["regions_histogram"] = {{"1", 4}, {"2", 7}, {"10", 1}};
  fuzz::write_atomic(d + "/state.json", state.dump());
  return d;
}

TEST(Report, SummaryHasNumbersBucketsLinksAndStrategies) {
  const std::string d = make_campaign(false);
  write_reports(d);
  const json r = read_json(d + "/report.json");
  EXPECT_EQ(r["seed"], 42);
  EXPECT_EQ(r["shard"], "0/1");
  EXPECT_EQ(r["programs"], 20);
  EXPECT_DOUBLE_EQ(r["programs_per_s"].get<double>(), 5.0);
  EXPECT_EQ(r["invalid"], 2);
  EXPECT_EQ(r["findings"], 5);
  EXPECT_EQ(r["must_agree_buckets"], 2);
  ASSERT_EQ(r["buckets"].size(), 4u);
  // Must-agree buckets come first.
  EXPECT_TRUE(r["buckets"][0]["must_agree"].get<bool>());
  EXPECT_TRUE(r["buckets"][1]["must_agree"].get<bool>());
  for (const json& b : r["buckets"]) {
    if (b["name"] == "update_aliases__random__greedy__storage__add_") {
      EXPECT_EQ(b["count"], 2);
      EXPECT_EQ(b["first_program"], 3);
      EXPECT_EQ(b["strategy"], "update_aliases");
      EXPECT_EQ(b["files"]["case"], "findings/update_aliases__random__greedy__storage__add_/case.af");
      EXPECT_EQ(b["files"]["min"], "findings/update_aliases__random__greedy__storage__add_/min.af");
      EXPECT_EQ(b["files"]["repro"], "findings/update_aliases__random__greedy__storage__add_/repro.py");
    } else {
      EXPECT_TRUE(b["files"].contains("case"));
      EXPECT_FALSE(b["files"].contains("min"));
      EXPECT_FALSE(b["files"].contains("repro"));
    }
  }
  const json per = r["findings_per_strategy"];
  EXPECT_EQ(per["update_aliases"], 2);
  EXPECT_EQ(per["functionalize"], 1);
  EXPECT_EQ(per["mutant+drop_writeback"], 1);
  EXPECT_EQ(per["crash"], 1);
  EXPECT_FALSE(r.contains("regions_histogram"));

  const std::string md = slurp(d + "/report.md");
  // The bugs lead; the buckets are a detail after them.
  const size_t bugs = md.find("## Bugs (one per cause"), must = md.find("## Buckets of bugs in aliasfuzz"),
               study = md.find("## Buckets of findings against strategies under study");
  ASSERT_NE(bugs, std::string::npos);
  ASSERT_NE(must, std::string::npos);
  ASSERT_NE(study, std::string::npos);
  EXPECT_LT(bugs, must);
  EXPECT_NE(md.find("(findings/update_aliases__random__greedy__storage__add_/min.af)"), std::string::npos);
  // The must-agree bucket is listed before the under-study section.
  EXPECT_LT(md.find("functionalize__random__greedy__return__mul", must), study);
  EXPECT_GT(md.find("update_aliases__random__greedy__storage__add_", must), study);
}

TEST(Report, HtmlIsSelfContainedWithSvgPlots) {
  const std::string d = make_campaign(false);
  write_reports(d);
  const std::string h = slurp(d + "/report.html");
  EXPECT_NE(h.find("<svg"), std::string::npos);
  EXPECT_NE(h.find("programs/s over time"), std::string::npos);
  EXPECT_NE(h.find("buckets over time"), std::string::npos);
  EXPECT_NE(h.find("findings per strategy"), std::string::npos);
  EXPECT_EQ(h.find("regions histogram"), std::string::npos);  // no data for it: no plot
  // No network: no absolute URLs in src/href, no external scripts or stylesheets.
  EXPECT_FALSE(std::regex_search(h, std::regex(R"((src|href)\s*=\s*["']?\s*(https?:)?//)", std::regex::icase)));
  // (The SVG namespace is a name, not a fetch: the same markup is also a standalone .svg file.)
  EXPECT_EQ(std::regex_replace(h, std::regex(R"(xmlns="http://www\.w3\.org/2000/svg")"), "").find("http://"),
            std::string::npos);
  EXPECT_EQ(h.find("https://"), std::string::npos);
  EXPECT_EQ(h.find("<script"), std::string::npos);
  EXPECT_EQ(h.find("<link"), std::string::npos);
  // Relative links to the bucket files.
  EXPECT_NE(h.find("href=\"findings/update_aliases__random__greedy__storage__add_/case.af\""), std::string::npos);
  EXPECT_NE(h.find("href=\"findings/update_aliases__random__greedy__storage__add_/repro.py\""), std::string::npos);
}

TEST(Report, RegionsHistogramWhenPresent) {
  const std::string d = make_campaign(true);
  write_reports(d);
  const json r = read_json(d + "/report.json");
  ASSERT_TRUE(r.contains("regions_histogram"));
  EXPECT_EQ(r["regions_histogram"]["2"], 7);
  const std::string h = slurp(d + "/report.html");
  const size_t at = h.find("regions histogram");
  ASSERT_NE(at, std::string::npos);
  // Numeric order: "2" before "10".
  const std::string plot = h.substr(at, h.find("</svg>", at) - at);
  ASSERT_NE(plot.find("<title>10: 1</title>"), std::string::npos);
  EXPECT_LT(plot.find("<title>2: 7</title>"), plot.find("<title>10: 1</title>"));
  EXPECT_NE(slurp(d + "/report.md").find("## Regions per schedule"), std::string::npos);
}

TEST(Report, EmptyCampaignAndMissingState) {
  const std::string d = fresh_dir("empty");
  EXPECT_THROW(write_reports(d), std::runtime_error);
  fuzz::write_atomic(d + "/state.json", json{{"seed", 1}, {"programs", 0}}.dump());
  write_reports(d);  // no campaign.json, no findings, no timeline
  const json r = read_json(d + "/report.json");
  EXPECT_EQ(r["programs"], 0);
  EXPECT_EQ(r["buckets"].size(), 0u);
  EXPECT_NE(slurp(d + "/report.html").find("<svg"), std::string::npos);
}

TEST(Report, EscapesHtml) { EXPECT_EQ(html_escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"); }

}  // namespace
}  // namespace af::reports

namespace af::reports {
namespace {

// A bucket's story: what the minimized program does, its size before and
// after, a repro command with absolute paths; report.md shows it inline.
TEST(Report, EachBucketTellsItsStory) {
  const std::string d = fresh_dir("story");
  const std::string b = "update_aliases__reordered__fused__return__inplace";
  const std::string dir = d + "/findings/" + b;
  fuzz::make_dirs(dir);
  const json finding = {{"k", 4},
                        {"bucket", b},
                        {"spec", spec("update_aliases")},
                        {"op", "sub_"},
                        {"observable", "return 0"},
                        {"index", 3},
                        {"expected", 1.5},
                        {"actual", 2.0},
                        {"count", 6}};
  fuzz::write_atomic(d + "/findings.jsonl", finding.dump() + "\n");
  fuzz::write_atomic(dir + "/case.af",
                     "# campaign case\naliasfuzz 1\nstorage s0 f32[4] = iota(0, 1)\ninput x = s0\n"
                     "a = add(x, 1.0)\nb = mul(a, 2.0)\nadd_(x, 1.0)\nreturn x, b\n");
  fuzz::write_atomic(dir + "/min.af",
                     "# minimized\naliasfuzz 1\nstorage s0 f32[4] = iota(0, 1)\ninput x = s0\n"
                     "add_(x, 1.0)\nreturn x\n");
  fuzz::write_atomic(
      dir + "/minimize.json",
      json{{"spec", spec("update_aliases")},
           {"first_diverging_op", "add_"},
           {"first_mismatch", {{"observable", "return 0"}, {"index", 0}, {"expected", 1.0}, {"actual", "nan"}}}}
          .dump());
  fuzz::write_atomic(d + "/campaign.json", json{{"seed", 5},
                                                {"shard", "0/1"},
                                                {"target", "interp"},
                                                {"strategies", {"update_aliases"}},
                                                {"commands", {"aliasfuzz fuzz --seed 5"}},
                                                {"versions", {{"halide", "14.0.0-3"}}}}
                                               .dump());
  fuzz::write_atomic(d + "/state.json",
                     json{{"seed", 5},
                          {"programs", 10},
                          {"findings", 6},
                          {"buckets", {{b, {{"count", 6}, {"first_program", 4}, {"must_agree", false}}}}}}
                         .dump());
  write_reports(d);
  const json r = read_json(d + "/report.json");
  ASSERT_EQ(r["buckets"].size(), 1u);
  const json s = r["buckets"][0]["story"];
  EXPECT_EQ(s["statements_before"], 3);
  EXPECT_EQ(s["statements_after"], 1);
  EXPECT_EQ(s["program_file"], "min.af");
  EXPECT_EQ(s["first_mismatch"]["actual"], "nan");  // of the minimized program
  EXPECT_EQ(s["first_diverging_op"], "add_");
  const std::string repro = s["repro"];
  EXPECT_NE(repro.find(" run /"), std::string::npos) << repro;  // an absolute path: works from any folder
  EXPECT_NE(repro.find(b + "/min.af --strategy update_aliases --reorder random:3 --fusion greedy --target interp"),
            std::string::npos)
      << repro;
  EXPECT_EQ(r["commands"][0], "aliasfuzz fuzz --seed 5");
  EXPECT_EQ(r["expected_to_diverge"], json::array({"update_aliases"}));
  const std::string md = slurp(d + "/report.md");
  for (const char* want :
       {"- command: `aliasfuzz fuzz --seed 5`", "halide 14.0.0-3",
        "expected to diverge (under study, mutants): update_aliases",
        "first mismatch: return 0[0]: expected 1.0, got nan (first diverging op: add_)",
        "program: min.af, 3 statements minimized to 1", "```\naliasfuzz 1\n", "add_(x, 1.0)\nreturn x\n```"})
    EXPECT_NE(md.find(want), std::string::npos) << want << "\n" << md;
  const std::string html = slurp(d + "/report.html");
  EXPECT_NE(html.find("<pre>aliasfuzz 1\n"), std::string::npos);
  EXPECT_NE(html.find("reproduce: <code>"), std::string::npos);
}

}  // namespace
}  // namespace af::reports

#include "triage/ledger.h"

namespace af::reports {
namespace {

// A bug whose signature a ledger entry holds is labelled with it; new bugs come first.
TEST(Report, KnownBugsAreLabelledFromTheLedger) {
  const std::string root = fresh_dir("ledger-root");
  const std::string entry =
      "# aliasfuzz finding: a cause\n# system: thunder 0.2.6\n# strategy: thunder\n# what: values\n"
      "# status: known https://example.org/42\n"
      "aliasfuzz 1\nstorage s0 f32[4] = full(0.0)\ninput x0 = s0\nadd_(x0, 1.0)\nreturn x0\n";
  fuzz::make_dirs(root + "/corpus/findings");
  fuzz::write_atomic(root + "/corpus/findings/known-one.af", entry);
  // An entry of aliased inputs: a bug of aliased inputs through a chunk
  // is not it, but resembles it.
  const std::string aliased =
      "# aliasfuzz finding: another cause\n# system: thunder 0.2.6\n# strategy: thunder\n# what: values\n"
      "# status: known https://example.org/43\n"
      "aliasfuzz 1\nstorage s0 f32[4] = full(0.0)\ninput x0 = s0\ninput x1 = s0\nadd_(x0, 1.0)\nreturn x1\n";
  fuzz::write_atomic(root + "/corpus/findings/known-two.af", aliased);
  std::string err;
  const auto le = fuzz::parse_ledger_entry("known-one", entry, &err);
  ASSERT_TRUE(le) << err;
  const auto le2 = fuzz::parse_ledger_entry("known-two", aliased, &err);
  ASSERT_TRUE(le2) << err;
  ASSERT_EQ(le2->bug.key(), "thunder|values|alias:input~shared");
  const std::string d = fresh_dir("ledger-campaign");
  json buckets = json::object();
  std::string lines;
  for (const auto& [b, key] :
       std::vector<std::pair<std::string, std::string>>{{"thunder__a", le->bug.key()},
                                                        {"thunder__b", "other"},
                                                        {"thunder__c", le2->bug.key() + ",alias:input~shared/chunk"}}) {
    fuzz::make_dirs(d + "/findings/" + b);
    fuzz::write_atomic(d + "/findings/" + b + "/minimize.json", json{{"bug", b + "-bug"}, {"bug_key", key}}.dump());
    buckets[b] = {{"count", b == "thunder__a" ? 5 : 1}, {"first_program", 1}, {"must_agree", false}};
    lines += json{{"k", 1}, {"bucket", b}, {"spec", spec("thunder")}, {"count", 1}}.dump() + "\n";
  }
  fuzz::write_atomic(d + "/findings.jsonl", lines);
  fuzz::write_atomic(d + "/campaign.json", json{{"seed", 1}, {"shard", "0/1"}}.dump());
  fuzz::write_atomic(d + "/state.json", json{{"seed", 1}, {"programs", 2}, {"buckets", buckets}}.dump());
  setenv("AF_ROOT", root.c_str(), 1);
  write_reports(d);
  unsetenv("AF_ROOT");
  const json bugs = read_json(d + "/report.json")["bugs"];
  ASSERT_EQ(bugs.size(), 3u);
  EXPECT_EQ(bugs[0]["name"], "thunder__b-bug");  // new first, although smaller
  EXPECT_FALSE(bugs[0].contains("ledger"));
  EXPECT_FALSE(bugs[0].contains("resembles"));
  EXPECT_EQ(bugs[1]["name"], "thunder__c-bug");
  EXPECT_FALSE(bugs[1].contains("ledger"));
  EXPECT_EQ(bugs[1]["resembles"], json::array({"known-two https://example.org/43"}));
  EXPECT_EQ(bugs[2]["ledger"]["entry"], "known-one");
  EXPECT_EQ(bugs[2]["ledger"]["reference"], "https://example.org/42");
  EXPECT_NE(slurp(d + "/report.md").find("known-one (known https://example.org/42)"), std::string::npos);
}

// A bucket whose minimization the budget cut (bug_cut) is no bug of its
// own yet: listed apart with its findings, not counted among the bugs. So
// is one never minimized (the budget left it, its minimizer died, or
// minimization was off), but for a must-agree one: a bug of aliasfuzz,
// minimized or not.
TEST(Report, ABucketCutByTheBudgetIsUnfinishedNotABug) {
  const std::string d = fresh_dir("cut-campaign");
  json buckets = json::object();
  std::string lines;
  for (const std::string b : {"thunder__done", "thunder__cut", "thunder__never", "functionalize__never"}) {
    fuzz::make_dirs(d + "/findings/" + b);
    const bool must = b == "functionalize__never";
    json mj = {{"bug", b + "-bug"}, {"bug_key", "thunder|values|" + b}};
    if (b == "thunder__cut") mj["bug_cut"] = true;
    if (b.find("never") == std::string::npos) fuzz::write_atomic(d + "/findings/" + b + "/minimize.json", mj.dump());
    buckets[b] = {{"count", b == "thunder__cut" ? 7 : 2}, {"first_program", 1}, {"must_agree", must}};
    lines +=
        json{{"k", 1}, {"bucket", b}, {"spec", spec(must ? "functionalize" : "thunder")}, {"count", 1}}.dump() + "\n";
  }
  fuzz::write_atomic(d + "/findings.jsonl", lines);
  fuzz::write_atomic(d + "/campaign.json", json{{"seed", 1}, {"shard", "0/1"}}.dump());
  fuzz::write_atomic(d + "/state.json", json{{"seed", 1}, {"programs", 9}, {"buckets", buckets}}.dump());
  write_reports(d);
  const json r = read_json(d + "/report.json");
  ASSERT_EQ(r["bugs"].size(), 2u);
  std::set<std::string> names{r["bugs"][0]["name"], r["bugs"][1]["name"]};
  EXPECT_EQ(names, (std::set<std::string>{"thunder__done-bug", "functionalize__never"}));
  EXPECT_EQ(r["unfinished_buckets"],
            json::array({{{"bucket", "thunder__cut"}, {"count", 7}},
                         {{"bucket", "thunder__never"}, {"count", 2}, {"not_minimized", true}}}));
  EXPECT_NE(slurp(d + "/report.md").find("| thunder__cut | 7 | cut by the budget |"), std::string::npos);
  EXPECT_NE(slurp(d + "/report.md").find("| thunder__never | 2 | not run |"), std::string::npos);
  // The minimized programs the bugs stand for: the finished bucket's only
  // (a thunderfx campaign's summary once said "2 bugs from -5").
  EXPECT_EQ(r["merged"]["minimized_programs"], 1);
  EXPECT_EQ(r["merged"]["duplicates"], 0);
}

// Issue #57: bugs whose compiler gave the same evidence are one root
// defect (the same fault frame through two views); a bug with other
// evidence, or none, is a defect of its own. The pages lead with them.
TEST(Report, BugsWithTheSameFaultFrameAreOneRootDefect) {
  const std::string d = fresh_dir("defects-campaign");
  json buckets = json::object();
  std::string lines;
  const std::map<std::string, std::string> evidence = {
      {"thunder__select",
       "under thunder; fault thunder/core/update_aliases.py:replace_args_with_alias_map; passing 1 of 2"},
      {"thunder__narrow",
       "under thunder; fault thunder/core/update_aliases.py:replace_args_with_alias_map; passing 2 of 2"},
      {"thunder__other", "under thunder; fault thunder/core/transform_common.py:unwrap_return_value; passing 0 of 1"},
      {"thunder__none", ""}};
  for (const auto& [b, ev] : evidence) {
    fuzz::make_dirs(d + "/findings/" + b);
    json mj = {{"bug", b + "-bug"}, {"bug_key", "thunder|IndexError|" + b}};
    if (!ev.empty()) mj["evidence"] = ev;
    fuzz::write_atomic(d + "/findings/" + b + "/minimize.json", mj.dump());
    buckets[b] = {{"count", 1}, {"first_program", 1}, {"must_agree", false}};
    lines += json{{"k", 1}, {"bucket", b}, {"spec", spec("thunder")}, {"count", 1}}.dump() + "\n";
  }
  fuzz::write_atomic(d + "/findings.jsonl", lines);
  fuzz::write_atomic(d + "/campaign.json", json{{"seed", 1}, {"shard", "0/1"}}.dump());
  fuzz::write_atomic(d + "/state.json", json{{"seed", 1}, {"programs", 9}, {"buckets", buckets}}.dump());
  write_reports(d);
  const json r = read_json(d + "/report.json");
  ASSERT_EQ(r["bug_count"], 4);
  ASSERT_EQ(r["defect_count"], 3);
  EXPECT_EQ(r["defects"][0]["bugs"].size(), 2u);
  EXPECT_EQ(r["defects"][0]["system"], "thunder");
  EXPECT_EQ(r["defects"][0]["evidence"], "fault thunder/core/update_aliases.py:replace_args_with_alias_map");
  std::map<std::string, std::string> defect_of;
  for (const json& g : r["bugs"]) defect_of[g["name"]] = g["defect"];
  EXPECT_EQ(defect_of["thunder__select-bug"], defect_of["thunder__narrow-bug"]);
  EXPECT_NE(defect_of["thunder__select-bug"], defect_of["thunder__other-bug"]);
  EXPECT_NE(slurp(d + "/report.md").find("Root defects (3)"), std::string::npos);
  EXPECT_NE(slurp(d + "/report.html").find("(3 root defects)"), std::string::npos);
}

// report --issues mirrors the current bugs: an issue it wrote for a bug
// that no longer exists (a bucket renamed by a new minimization) goes, a
// file it did not write stays, the current bug's issue is there.
TEST(Report, IssuesFolderMirrorsTheCurrentBugs) {
  const std::string d = make_campaign(false);
  fuzz::make_dirs(d + "/issues");
  const std::string mark =
      "<!-- written by `aliasfuzz report --issues`: replaced or removed when the buckets change -->\n";
  fuzz::write_atomic(d + "/issues/old-bug__3f2a91c4.md", "# thunder: result differs\n" + mark);
  fuzz::write_atomic(d + "/issues/older-bug.md",
                     "# aot-eager: raises\n\n## Output (run while this issue was written)\n\n**Reproduces**\n");
  fuzz::write_atomic(d + "/issues/my-notes.md", "# my notes on these bugs\n");
  fuzz::write_atomic(d + "/issues/keep.txt", "not an issue\n");
  const auto written = write_issues(d, 60);
  ASSERT_EQ(written.size(), 1u);  // b1: the one bucket under study with a repro.py
  std::vector<std::string> files;
  for (const auto& f : std::filesystem::directory_iterator(d + "/issues"))
    files.push_back(f.path().filename().string());
  std::sort(files.begin(), files.end());
  const std::string mine = std::filesystem::path(written[0].path).filename().string();
  std::vector<std::string> expected = {"keep.txt", mine, "my-notes.md"};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(files, expected);
  EXPECT_NE(slurp(written[0].path).find(mark), std::string::npos);
  // Written again: the same file, nothing else changes.
  ASSERT_EQ(write_issues(d, 60).size(), 1u);
  EXPECT_TRUE(std::filesystem::exists(written[0].path));
  EXPECT_TRUE(std::filesystem::exists(d + "/issues/my-notes.md"));
}

}  // namespace
}  // namespace af::reports
