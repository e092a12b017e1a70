// Campaigns: crashes and hangs become findings, a SIGKILLed campaign
// resumes with every finding kept, and the same seed gives the same findings.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <map>
#include <set>
#include <sstream>

#include "campaign/campaign.h"
#include "check/files.h"
#include "generate/generator.h"

namespace af::fuzz {
namespace {

std::string fresh_dir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string d = std::string(tmp ? tmp : "/tmp") + "/" + name;
  std::filesystem::remove_all(d);
  return d;
}

// (program, bucket) of every line of findings-all.jsonl (every divergence;
// base() turns --log-all on), or of findings.jsonl (one line per bucket).
std::multiset<std::pair<uint64_t, std::string>> findings(const std::string& dir,
                                                         const char* file = "findings-all.jsonl") {
  std::string text;
  read_text(dir + "/" + file, &text);
  std::multiset<std::pair<uint64_t, std::string>> r;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    r.insert({j["k"].get<uint64_t>(), j["bucket"].get<std::string>()});
  }
  return r;
}

// bucket -> count, from findings.jsonl; each count matches findings-all.jsonl.
std::map<std::string, int64_t> bucket_counts(const std::string& dir) {
  std::string text;
  read_text(dir + "/findings.jsonl", &text);
  std::map<std::string, int64_t> r, all;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    r[j["bucket"].get<std::string>()] = j["count"].get<int64_t>();
  }
  for (const auto& [k, bucket] : findings(dir)) ++all[bucket];
  EXPECT_EQ(r, all);
  return r;
}

CampaignOptions base(const std::string& out) {
  CampaignOptions o;
  o.out = out;
  o.seed = 11;
  o.programs = 1500;
  o.jobs = 2;
  o.quiet = true;
  o.minimize_s = 0;
  o.log_all = true;
  return o;
}

TEST(Campaign, CrashAndHangBecomeFindingsAndTheCampaignGoesOn) {
  CampaignOptions o = base(fresh_dir("crash"));
  o.programs = 300;
  o.test_crash_on = {17, 200};
  o.test_hang_on = {42};
  o.case_timeout_s = 1;
  CampaignSummary s = run_campaign(o);
  EXPECT_EQ(s.programs, 300);
  EXPECT_EQ(s.crashes, 2);
  EXPECT_EQ(s.timeouts, 1);
  auto f = findings(o.out);
  EXPECT_EQ(f.count({17, "crash"}), 1u);
  EXPECT_EQ(f.count({200, "crash"}), 1u);
  EXPECT_EQ(f.count({42, "timeout"}), 1u);
  EXPECT_TRUE(std::filesystem::exists(o.out + "/findings/crash/case.af"));
  // findings.jsonl: one line per bucket, its first program, its count.
  const auto per_bucket = findings(o.out, "findings.jsonl");
  EXPECT_EQ(per_bucket.count({17, "crash"}), 1u);
  EXPECT_EQ(per_bucket.count({200, "crash"}), 0u);
  EXPECT_EQ(per_bucket.count({42, "timeout"}), 1u);
  EXPECT_EQ(bucket_counts(o.out)["crash"], 2);
  EXPECT_EQ(bucket_counts(o.out)["timeout"], 1);
  EXPECT_TRUE(std::filesystem::exists(o.out + "/findings/timeout/note.md"));
}

TEST(Campaign, SameSeedSameFindings) {
  CampaignOptions a = base(fresh_dir("same-a"));
  CampaignOptions b = base(fresh_dir("same-b"));
  a.test_crash_on = b.test_crash_on = {5, 700};
  b.jobs = 1;
  run_campaign(a);
  run_campaign(b);
  EXPECT_EQ(findings(a.out), findings(b.out));
  EXPECT_FALSE(findings(a.out).empty());
  EXPECT_EQ(findings(a.out, "findings.jsonl"), findings(b.out, "findings.jsonl"));
}

// Without --log-all a worker sends a bucket's later findings as counts
// ("repeats", campaign_case.h); findings.jsonl must be what the campaign
// that sends every finding in full writes: each bucket's first program,
// its finding, and its count. A crash restarts a worker mid-campaign
// (its record of what it sent starts empty).
TEST(Campaign, RepeatsCountedWithoutLogAllMatchFullFindings) {
  CampaignOptions full = base(fresh_dir("repeats-full"));
  CampaignOptions counted = base(fresh_dir("repeats-counted"));
  full.test_crash_on = counted.test_crash_on = {300, 301};
  counted.log_all = false;
  const CampaignSummary a = run_campaign(full), b = run_campaign(counted);
  EXPECT_EQ(a.findings, b.findings);
  EXPECT_GT(b.findings, 2 * b.buckets);  // most findings were repeats
  auto lines = [](const std::string& dir) {
    std::string text;
    read_text(dir + "/findings.jsonl", &text);
    std::vector<std::string> r;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      auto j = nlohmann::json::parse(line);
      j.erase("t");  // when it was found
      j.erase("first_t");
      r.push_back(j.dump());
    }
    std::sort(r.begin(), r.end());
    return r;
  };
  EXPECT_EQ(lines(full.out), lines(counted.out));
  EXPECT_FALSE(lines(counted.out).empty());
  // Most of the counted campaign's answers were routine lines
  // (campaign/answer_line.h): every program is still counted in every tier.
  auto tier_programs = [](const std::string& dir) {
    std::string text;
    read_text(dir + "/state.json", &text);
    std::map<std::string, int64_t> r;
    const nlohmann::json state = nlohmann::json::parse(text);  // alive through the loop (items() refers to it)
    for (const auto& [tier, t] : state["tiers"].items()) r[tier] = t["programs"].get<int64_t>();
    return r;
  };
  const auto tiers = tier_programs(counted.out);
  EXPECT_EQ(tiers, tier_programs(full.out));
  ASSERT_TRUE(tiers.count("oracle")) << nlohmann::json(tiers).dump();
  EXPECT_EQ(tiers.at("oracle"), b.programs - b.crashes);  // a crashed program answers no tier
}

TEST(Campaign, ResumeAfterSigkillLosesNoFinding) {
  CampaignOptions ref = base(fresh_dir("resume-ref"));
  ref.programs = 6000;
  ref.test_crash_on = {3, 2000, 4000, 5999};
  // A hang keeps the campaign alive for case_timeout_s, so the kill below
  // always lands while it runs, whatever the machine's speed.
  ref.test_hang_on = {4500};
  ref.case_timeout_s = 2;
  run_campaign(ref);

  CampaignOptions o = ref;
  o.out = fresh_dir("resume");
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    run_campaign(o);
    _exit(0);
  }
  setpgid(pid, pid);
  // Kill the whole campaign (parent and workers) while it runs.
  for (int i = 0; i < 400; ++i) {
    usleep(5000);
    std::string st;
    if (read_text(o.out + "/state.json", &st) && st.find("\"done_below\":0,") == std::string::npos) break;
  }
  kill(-pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the campaign finished before it could be killed";
  o.resume = true;
  CampaignSummary s = run_campaign(o);
  EXPECT_EQ(findings(o.out), findings(ref.out));
  EXPECT_EQ(findings(o.out, "findings.jsonl"), findings(ref.out, "findings.jsonl"));
  EXPECT_EQ(bucket_counts(o.out), bucket_counts(ref.out));
  EXPECT_GE(s.programs, 6000);
}

// Ctrl-C while a worker is stuck in a slow call (a hang the case timeout
// would end only much later): the campaign stops (the stuck worker is
// killed after a short grace), saves its state, and a --resume gives the
// findings of a campaign never interrupted.
TEST(Campaign, InterruptWithAStuckWorkerStopsAndKeepsEveryFinding) {
  CampaignOptions ref = base(fresh_dir("sigint-ref"));
  ref.programs = 3000;
  ref.test_crash_on = {3, 2000};
  run_campaign(ref);

  CampaignOptions o = ref;
  o.out = fresh_dir("sigint");
  o.test_hang_on = {1500};
  o.case_timeout_s = 1e6;  // stuck for good: only the interrupt ends it
  pid_t pid = fork();
  if (pid == 0) {
    run_campaign(o);
    _exit(0);
  }
  // Interrupt once everything below the stuck program is done.
  bool stuck = false;
  for (int i = 0; i < 60000 && !stuck; ++i) {
    usleep(5000);
    std::string st;
    stuck = read_text(o.out + "/state.json", &st) && st.find("\"done_below\":1500,") != std::string::npos;
  }
  ASSERT_TRUE(stuck) << "the campaign never reached the stuck program";
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);  // returns: the stuck worker did not hold the campaign
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  std::string st;
  ASSERT_TRUE(read_text(o.out + "/state.json", &st));
  EXPECT_NE(st.find("\"done_below\":1500,"), std::string::npos) << "the stuck program is not done: resume checks it";
  o.resume = true;
  o.test_hang_on.clear();
  run_campaign(o);
  EXPECT_EQ(findings(o.out), findings(ref.out));
  EXPECT_EQ(bucket_counts(o.out), bucket_counts(ref.out));
}

}  // namespace
}  // namespace af::fuzz

namespace af::fuzz {
namespace {

// Statements in a minimized program (lines after the header that are not
// declarations, comments or the return).
int statements(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("aliasfuzz", 0) == 0 || line.rfind("storage", 0) == 0 ||
        line.rfind("input", 0) == 0 || line.rfind("return", 0) == 0)
      continue;
    ++n;
  }
  return n;
}

TEST(Campaign, InjectedMutantIsFoundBucketedAndMinimized) {
  CampaignOptions o = base(fresh_dir("mutant"));
  o.programs = 200;
  o.injects = {*run::parse_mutant("ua-writes-only")};
  o.minimize_s = 10;
  o.minimize_total_s = 60;
  CampaignSummary s = run_campaign(o);
  ASSERT_GT(s.findings, 0);
  EXPECT_EQ(s.must_agree_buckets, 0);  // only the mutant ran
  int minimized = 0;
  for (const auto& e : std::filesystem::directory_iterator(o.out + "/findings")) {
    const std::string name = e.path().filename().string();
    EXPECT_EQ(name.rfind("update_aliases-ordered+ua-writes-only__", 0), 0u) << name;
    std::string min;
    if (!read_text(e.path().string() + "/min.af", &min)) continue;
    ++minimized;
    // The bound this minimizer meets on this mutant: a handful of statements.
    EXPECT_LE(statements(min), 5) << name << "\n" << min;
    EXPECT_TRUE(std::filesystem::exists(e.path().string() + "/repro.py"));
  }
  EXPECT_GT(minimized, 0);
}

}  // namespace
}  // namespace af::fuzz

namespace af::fuzz {
namespace {

// bucket -> the bug its minimized program is (minimize.json).
std::map<std::string, std::string> bugs(const std::string& dir) {
  std::map<std::string, std::string> r;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/findings")) {
    std::string text;
    if (!read_text(e.path().string() + "/minimize.json", &text)) continue;
    r[e.path().filename().string()] = nlohmann::json::parse(text)["bug"].get<std::string>();
  }
  return r;
}

// novel/ lead -> the bug its bug program is, and whether it is explained.
std::map<std::string, std::string> novel_bugs(const std::string& dir) {
  std::map<std::string, std::string> r;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/novel", ec)) {
    std::string text;
    if (!read_text(e.path().string() + "/minimize.json", &text)) continue;
    const auto j = nlohmann::json::parse(text);
    r[e.path().filename().string()] =
        j["bug_key"].get<std::string>() + (j.value("explained", false) ? " (explained)" : "");
  }
  return r;
}

TEST(Campaign, SameBucketsAndBugsWithOneOrTwoJobs) {
  CampaignOptions a = base(fresh_dir("bugs-a"));
  a.programs = 150;
  a.injects = {*run::parse_mutant("fn-per-input-base")};
  a.minimize_s = 20;
  a.minimize_total_s = 300;
  a.novelty_total_s = 300;  // every lead, whatever the machine's speed
  CampaignOptions b = a;
  b.out = fresh_dir("bugs-b");
  b.jobs = 1;
  run_campaign(a);
  run_campaign(b);
  EXPECT_EQ(findings(a.out, "findings.jsonl"), findings(b.out, "findings.jsonl"));
  const auto ba = bugs(a.out);
  EXPECT_FALSE(ba.empty());
  EXPECT_EQ(ba, bugs(b.out));
  // The novelty leads too: the same leads, minimized to the same bugs.
  const auto na = novel_bugs(a.out);
  EXPECT_FALSE(na.empty());
  EXPECT_EQ(na, novel_bugs(b.out));
  // Fewer bugs than buckets: buckets of one bug fold.
  std::set<std::string> distinct;
  for (const auto& [bucket, bug] : ba) distinct.insert(bug);
  EXPECT_LT(distinct.size(), ba.size());
}

// --checked: a finding the checks reported is bucketed as "stmt" by the
// reported source statement's op (no prefix bisection), its spec says
// checked in findings.jsonl and settings.json, and it minimizes within the
// same bucket.
TEST(Campaign, CheckedFindingsNameTheSourceStatement) {
  CampaignOptions o = base(fresh_dir("checked"));
  o.programs = 200;
  o.injects = {*run::parse_mutant("fn-per-input-base")};
  o.checked = true;
  o.minimize_s = 10;
  o.minimize_total_s = 40;
  run_campaign(o);
  std::string text;
  ASSERT_TRUE(read_text(o.out + "/findings.jsonl", &text));
  std::istringstream in(text);
  int stmt_buckets = 0;
  for (std::string line; std::getline(in, line);) {
    const auto f = nlohmann::json::parse(line);
    EXPECT_TRUE(f["spec"].value("checked", false)) << line;
    const std::string bucket = f["bucket"].get<std::string>();
    if (bucket.find("__stmt__") == std::string::npos) {
      EXPECT_FALSE(f.contains("first_diverging_op")) << line;  // a divergence the checks missed: bisected
      continue;
    }
    ++stmt_buckets;
    ASSERT_TRUE(f.contains("first_diverging_op")) << line;
    const int src = f["first_diverging_op"]["source_stmt"].get<int>();
    const ir::Program p = generate(o.seed, f["k"].get<uint64_t>(), o.gen);
    ASSERT_GE(src, 0) << line;
    ASSERT_LT(src, static_cast<int>(p.stmts.size())) << line;
    EXPECT_EQ(f["op"].get<std::string>(), ir::op_name(p.stmts[src].op)) << line;
    std::string settings, minimized;
    ASSERT_TRUE(read_text(o.out + "/findings/" + bucket + "/settings.json", &settings));
    EXPECT_TRUE(nlohmann::json::parse(settings)["finding"]["spec"].value("checked", false));
    if (read_text(o.out + "/findings/" + bucket + "/minimize.json", &minimized)) {
      const auto m = nlohmann::json::parse(minimized);
      EXPECT_EQ(m["bucket"], bucket);
      EXPECT_TRUE(m["spec"].value("checked", false));
    }
  }
  EXPECT_GT(stmt_buckets, 0);
  std::string campaign;
  ASSERT_TRUE(read_text(o.out + "/campaign.json", &campaign));
  EXPECT_TRUE(nlohmann::json::parse(campaign).value("checked", false));  // --resume keeps it
}

// A time campaign minimizes while it runs (issue #34): rounds take their
// share of the time and find bugs before the end; with a share of 0 every
// minimization waits for the end, as a --programs campaign's does.
TEST(Campaign, MinimizesInRoundsWhileATimeCampaignRuns) {
  CampaignOptions o = base(fresh_dir("rounds"));
  o.programs = -1;
  o.time_s = 16;
  o.injects = {*run::parse_mutant("fn-per-input-base")};
  o.minimize_s = 4;
  o.minimize_share = 0.5;
  const CampaignSummary s = run_campaign(o);
  ASSERT_GT(s.findings, 0);
  EXPECT_GE(s.minimize_rounds, 1);
  EXPECT_GT(s.minimize_round_s, 0);
  EXPECT_GT(s.bugs_seen, 0);
  EXPECT_FALSE(bugs(o.out).empty());

  CampaignOptions off = o;
  off.out = fresh_dir("rounds-off");
  off.time_s = 6;
  off.minimize_share = 0;
  const CampaignSummary t = run_campaign(off);
  ASSERT_GT(t.findings, 0);
  EXPECT_EQ(t.minimize_rounds, 0);
  EXPECT_FALSE(bugs(off.out).empty());  // minimized at the end
}

}  // namespace
}  // namespace af::fuzz
