// A campaign whose strategies are all external: the capability probe's op
// weights go into the generator (campaign.json keeps them, --resume reuses
// them), unsupported runs are counted apart from findings, and the report
// says what was left out. The compiler is a stand-in
// (oracles/testdata/fake_external_runner.py behind torch-functionalize's
// Python, /usr/bin/python3 with torch 1.13): `.exp_()` is unsupported
// (the probe lists exp_), `.abs_()` in a long function is unsupported (the
// probe's programs are short, so campaigns meet it), `torch.tanh(` raises
// AssertionError (an internal error: a finding).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "compilers/test_util.h"
#include "campaign/campaign.h"
#include "check/files.h"
#include "generate/generator.h"
#include "ir/analysis.h"
#include "ir/relayout.h"
#include "ir/text.h"
#include "oracles/eager.h"
#include "oracles/line_process.h"
#include "compilers/capabilities.h"
#include "compilers/table.h"
#include "reports/report.h"

namespace af::fuzz {
namespace {

using nlohmann::json;

std::string tmp(const std::string& name) {
  const char* t = std::getenv("TEST_TMPDIR");
  return std::string(t ? t : "/tmp") + "/" + name;
}

json read_json(const std::string& path) {
  std::string text;
  EXPECT_TRUE(read_text(path, &text)) << path;
  return json::parse(text, nullptr, false);
}

class ExternalCampaign : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_DEBIAN_TORCH();
    const std::string real = compilers::find_external_runner();
    ASSERT_FALSE(real.empty());
    const std::string dir = std::filesystem::path(real).parent_path().string();
    const std::string fake = oracles::find_source_file("oracles/testdata/fake_external_runner.py", "");
    ASSERT_TRUE(std::filesystem::exists(fake)) << fake;
    const std::string py = tmp("fake-python/python3");
    std::filesystem::create_directories(std::filesystem::path(py).parent_path());
    std::error_code ec;
    std::filesystem::remove(py, ec);
    std::filesystem::create_symlink("/usr/bin/python3", py);
    cache_ = tmp("caps");
    std::filesystem::remove_all(cache_);
    set("AF_TORCH_PYTHON", py);
    set("AF_EXTERNAL_RUNNER", fake);
    set("AF_REAL_RUNNER_DIR", dir);
    set("AF_CAPABILITY_CACHE", cache_);
    compilers::forget_capabilities();
  }
  void TearDown() override {
    for (const auto& [k, v] : saved_)
      if (v)
        setenv(k.c_str(), v->c_str(), 1);
      else
        unsetenv(k.c_str());
    compilers::forget_capabilities();
  }
  void set(const std::string& k, const std::string& v) {
    const char* old = std::getenv(k.c_str());
    saved_.emplace_back(k, old ? std::optional<std::string>(old) : std::nullopt);
    setenv(k.c_str(), v.c_str(), 1);
  }
  CampaignOptions options(const std::string& name, int64_t programs) {
    CampaignOptions o;
    o.out = tmp(name);
    std::filesystem::remove_all(o.out);
    o.seed = 5;
    o.programs = programs;
    o.jobs = 2;
    o.quiet = true;
    o.minimize_s = 0;
    o.strategies = {run::strategy_of("torch-functionalize")};
    o.gen.op_weights["abs_"] = 8;  // so that campaigns meet the stand-in's unsupported abs_
    return o;
  }
  std::string cache_;
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST_F(ExternalCampaign, LeavesOutUnsupportedOpsAndCountsUnsupportedRuns) {
  const CampaignOptions o = options("ext", 40);
  const CampaignSummary s = run_campaign(o);
  EXPECT_EQ(s.programs, 40);
  EXPECT_EQ(s.external_runs, 40);
  ASSERT_EQ(s.not_supported.size(), 1u);
  EXPECT_EQ(s.not_supported[0].rfind("not supported by torch-functionalize (torch 1.13", 0), 0u) << s.not_supported[0];
  // exp_ (the fake runner refuses it), and format v1.4's custom ops, which torch 1.13 cannot define
  EXPECT_EQ(s.not_supported[0].substr(s.not_supported[0].size() - 35), ": custom_copy_, custom_scale_, exp_")
      << s.not_supported[0];

  // The weights a program was generated with are the campaign's.
  const json c = read_json(o.out + "/campaign.json");
  EXPECT_EQ(c["gen_op_weights"], (json{{"abs_", 8.0}, {"custom_copy_", 0.0}, {"custom_scale_", 0.0}, {"exp_", 0.0}}))
      << c.dump();
  EXPECT_EQ(c["not_supported"], json(s.not_supported));
  GenOptions g = o.gen;
  g.op_weights = c["gen_op_weights"].get<std::map<std::string, double>>();
  int abs_programs = 0;
  for (uint64_t k = 0; k < 40; ++k) {
    bool has_abs = false;
    for (const auto& st : generate(o.seed, k, g).stmts) {
      EXPECT_NE(st.op, ir::OpKind::ExpI) << "program " << k;
      has_abs |= st.op == ir::OpKind::AbsI;
    }
    abs_programs += has_abs;
  }

  // Unsupported runs are counted, never findings; internal errors are findings.
  EXPECT_GT(s.unsupported, 0);
  EXPECT_LE(s.unsupported, abs_programs);
  std::string lines;
  ASSERT_TRUE(read_text(o.out + "/findings.jsonl", &lines));
  EXPECT_EQ(lines.find("NotImplementedError"), std::string::npos);
  int64_t errors = 0;
  std::istringstream in(lines);
  for (std::string l; std::getline(in, l);)
    if (const json f = json::parse(l); f.contains("error")) errors += f["count"].get<int64_t>();  // one line per bucket
  EXPECT_EQ(s.compared + s.unsupported + errors, s.external_runs);
  const json st = read_json(o.out + "/state.json");
  EXPECT_EQ(st["external"]["runs"], 40);
  EXPECT_EQ(st["external"]["unsupported"], s.unsupported);
  for (auto& [why, n] : st["external"]["unsupported_reasons"].items())
    EXPECT_NE(why.find("abs_ in a long function"), std::string::npos) << why;

  reports::write_reports(o.out);
  std::string md;
  ASSERT_TRUE(read_text(o.out + "/report.md", &md));
  EXPECT_NE(md.find("runs reached a value comparison"), std::string::npos) << md;
  EXPECT_NE(md.find("not supported by torch-functionalize"), std::string::npos) << md;
}

TEST_F(ExternalCampaign, ResumeKeepsTheWeightsAndMixedCampaignsDoNotProbe) {
  CampaignOptions o = options("ext-resume", 6);
  run_campaign(o);
  // The cache now says more (as a new compiler version would): a resumed
  // campaign keeps the weights its programs were made with...
  std::string path;  // the ops' cache file (the forms' one sits beside it, in no set order)
  for (const auto& e : std::filesystem::directory_iterator(cache_))
    if (e.path().filename().string().find("--forms-") == std::string::npos) path = e.path().string();
  ASSERT_FALSE(path.empty());
  json cached = read_json(path);
  cached["unsupported"]["matmul"] = "edited";
  write_atomic(path, cached.dump());
  compilers::forget_capabilities();
  CampaignOptions r = o;
  r.programs = 10;
  r.resume = true;
  const CampaignSummary s = run_campaign(r);
  EXPECT_EQ(s.programs, 10);
  EXPECT_EQ(read_json(o.out + "/campaign.json")["gen_op_weights"],
            (json{{"abs_", 8.0}, {"custom_copy_", 0.0}, {"custom_scale_", 0.0}, {"exp_", 0.0}}));
  // ...a new one takes them up...
  const CampaignOptions n = options("ext-new", 2);
  run_campaign(n);
  EXPECT_EQ(read_json(n.out + "/campaign.json")["gen_op_weights"],
            (json{{"abs_", 8.0}, {"custom_copy_", 0.0}, {"custom_scale_", 0.0}, {"exp_", 0.0}, {"matmul", 0.0}}));
  // ...and a campaign that also runs a strategy of ours probes nothing.
  CampaignOptions m = options("ext-mixed", 2);
  m.strategies = {run::strategy_of("torch-functionalize"), run::strategy_of("eager")};
  const CampaignSummary sm = run_campaign(m);
  EXPECT_TRUE(sm.not_supported.empty());
  EXPECT_EQ(read_json(m.out + "/campaign.json")["gen_op_weights"], (json{{"abs_", 8.0}}));
}

// A campaign against a compiler of the user's (py:, here a toy that loses
// in-place writes, in Debian's Python): its own tier, its versions in
// campaign.json, and findings.
TEST(PyCampaign, FindsAWrongToyCompiler) {
  REQUIRE_DEBIAN_TORCH();
  const std::string wrong = "py:oracles.testdata.toy_compiler:drop_inplace_writes@/usr/bin/python3";
  setenv("AF_CAPABILITY_CACHE", tmp("py-caps").c_str(), 1);
  compilers::forget_capabilities();
  CampaignOptions o;
  o.out = tmp("py-campaign");
  std::filesystem::remove_all(o.out);
  o.seed = 5;
  o.programs = 12;
  o.jobs = 1;
  o.quiet = true;
  o.minimize_s = 0;
  o.strategies = {run::strategy_of(wrong)};
  const CampaignSummary s = run_campaign(o);
  unsetenv("AF_CAPABILITY_CACHE");
  compilers::forget_capabilities();
  EXPECT_EQ(s.programs, 12);
  EXPECT_EQ(s.external_runs, 12);
  EXPECT_GT(s.findings, 0);
  EXPECT_EQ(s.must_agree_buckets, 0);
  EXPECT_EQ(s.programs_per_s_by_tier.count(wrong), 1u);
  const json c = read_json(o.out + "/campaign.json");
  EXPECT_NE(c.dump().find("torch 1.13"), std::string::npos) << c.dump();
}

// Format v1.3: a compiler that does not replay its inputs' metadata
// mutations (the toy gives every input its old geometry back; values stay
// right) is found in the input-meta bucket kind, its minimized program
// still re-shapes an input, and its repro.py prints the geometry and exits 1.
TEST(PyCampaign, FindsAnInputMetadataMutationNotReplayed) {
  REQUIRE_DEBIAN_TORCH();
  const std::string wrong = "py:oracles.testdata.toy_compiler:forget_input_metadata@/usr/bin/python3";
  setenv("AF_CAPABILITY_CACHE", tmp("py-caps-meta").c_str(), 1);
  compilers::forget_capabilities();
  CampaignOptions o;
  o.out = tmp("py-campaign-meta");
  std::filesystem::remove_all(o.out);
  o.seed = 7;
  o.programs = 12;
  o.jobs = 1;
  o.quiet = true;
  o.minimize_s = 30;
  o.strategies = {run::strategy_of(wrong)};
  for (ir::OpKind op : ir::all_ops())
    if (ir::is_metadata_inplace(op)) o.gen.op_weights[ir::op_name(op)] = 5;
  const CampaignSummary s = run_campaign(o);
  unsetenv("AF_CAPABILITY_CACHE");
  compilers::forget_capabilities();
  EXPECT_GT(s.findings, 0);
  int buckets = 0, minimized = 0;
  for (const auto& e : std::filesystem::directory_iterator(o.out + "/findings")) {
    const std::string bucket = e.path().filename().string();
    EXPECT_NE(bucket.find("__input-meta__"), std::string::npos) << "values are right: only input-meta buckets\n"
                                                                << bucket;
    ++buckets;
    std::string text;
    if (!read_text((e.path() / "min.af").string(), &text)) continue;  // minimized only within the budget
    auto p = ir::parse_and_validate(text);
    ASSERT_TRUE(p.ok()) << text;
    auto an = ir::analyze(*p);
    ASSERT_TRUE(an.ok());
    const auto final = oracles::input_geometries(*p, *an);
    bool reshaped = false;
    for (size_t k = 0; k < final.size(); ++k) reshaped |= final[k] != an->values[k].g;
    EXPECT_TRUE(reshaped) << "the minimized program still re-shapes an input\n" << text;
    const std::string out = tmp("repro-meta.txt");
    const int rc =
        std::system(("/usr/bin/python3 " + (e.path() / "repro.py").string() + " > " + out + " 2>&1").c_str());
    std::string printed;
    read_text(out, &printed);
    EXPECT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 1) << printed;
    EXPECT_NE(printed.find("input "), std::string::npos) << printed;
    EXPECT_NE(printed.find("DIVERGES"), std::string::npos) << printed;
    ++minimized;
  }
  EXPECT_GT(buckets, 0);
  EXPECT_GT(minimized, 0);
}

// A campaign of 30 programs over toy_compiler's FUNCTION (in .venv-thunder,
// or in the Python after '@' in FUNCTION): its findings and the text of
// every min.af (its buckets are folders of out/findings).
struct ToyCampaign {
  int64_t findings = 0;
  std::vector<std::string> buckets, minimized;
  std::string out;
};
ToyCampaign v14_toy_campaign(const std::string& function, uint64_t seed, const GenOptions& gen, bool recall = false) {
  const std::string tag = function.substr(0, function.find('@')) + (recall ? "-recall" : "");
  setenv("AF_CAPABILITY_CACHE", tmp("py-caps-" + tag).c_str(), 1);
  compilers::forget_capabilities();
  CampaignOptions o;
  o.out = tmp("py-campaign-" + tag);
  std::filesystem::remove_all(o.out);
  o.seed = seed;
  o.programs = 30;
  o.jobs = 1;
  o.quiet = true;
  o.minimize_s = 60;
  o.strategies = {run::strategy_of("py:oracles.testdata.toy_compiler:" + function)};
  o.recall = recall;
  o.gen = gen;
  const CampaignSummary s = run_campaign(o);
  unsetenv("AF_CAPABILITY_CACHE");
  compilers::forget_capabilities();
  ToyCampaign out;
  out.findings = s.findings;
  out.out = o.out;
  if (!std::filesystem::is_directory(o.out + "/findings")) return out;
  for (const auto& e : std::filesystem::directory_iterator(o.out + "/findings")) {
    out.buckets.push_back(e.path().filename().string());
    std::string text;
    if (read_text((e.path() / "min.af").string(), &text)) out.minimized.push_back(text);
  }
  return out;
}

// Format v1.4: a compiler that runs a custom op on a contiguous copy of a
// strided view (the write is lost) is found by a `--format 1.4` campaign,
// and its minimized program still calls the custom op on a view: the bug
// is the custom op's, not a write's (the toy runs aten writes right).
TEST(PyCampaign, FindsACustomOpWriteLostOnACopy) {
  REQUIRE_THUNDER();  // a py: spec without @PYTHON runs in .venv-thunder (torch 2.9.1: custom_op)
  GenOptions gen;
  ASSERT_EQ(use_format("1.4", &gen), "");
  const auto [findings, buckets, minimized, out] = v14_toy_campaign("custom_op_on_copies", 3, gen);
  EXPECT_GT(findings, 0);
  EXPECT_FALSE(minimized.empty());
  for (const std::string& text : minimized)
    EXPECT_TRUE(text.find("custom_scale_(") != std::string::npos || text.find("custom_copy_(") != std::string::npos)
        << text;
}

// Format v1.5: a compiler that makes x.view(dtype) as a copy (writes
// through it are lost, x's later writes unseen) is found, and its
// minimized programs keep a dtype view (the minimizer may turn i32 into
// f32: the toy copies that one too).
TEST(PyCampaign, FindsADtypeViewMadeAsACopy) {
  REQUIRE_DEBIAN_TORCH();  // TorchDispatchMode and view(dtype): torch 1.13 runs them
  GenOptions gen;
  gen.op_weights["view_dtype"] = 10;
  const auto [findings, buckets, minimized, out] = v14_toy_campaign("dtype_view_copies@/usr/bin/python3", 7, gen);
  EXPECT_GT(findings, 0);
  EXPECT_FALSE(minimized.empty());
  const std::regex dtype_view(R"(= view\(\w+, (f32|i32)\))");
  for (const std::string& text : minimized) EXPECT_TRUE(std::regex_search(text, dtype_view)) << text;
}

// Format v1.4: a compiler that loses the writes of the region after a graph
// break (the toy's backend runs every graph after the first on clones) is
// found, and its minimized programs keep a graph_break().
TEST(PyCampaign, FindsAGraphBreakWriteLost) {
  REQUIRE_THUNDER();  // torch 2.9.1's Dynamo in .venv-thunder
  GenOptions gen;
  gen.op_weights["graph_break"] = 3;
  const auto [findings, buckets, minimized, out] = v14_toy_campaign("graph_break_drops_writes", 4, gen);
  EXPECT_GT(findings, 0);
  EXPECT_FALSE(minimized.empty());
  for (const std::string& text : minimized) EXPECT_NE(text.find("graph_break()"), std::string::npos) << text;
}

// Format v1.4 training: a compiler whose values are right and whose
// gradients never reach the leaves (the toy runs on detached inputs) is
// found by the gradients eager PyTorch computes, and its minimized programs
// keep a leaf that requires grad and the backward. A compiler that is
// right (the program as it is) gives no finding on the same programs.
TEST(PyCampaign, TrainingFindsADroppedGradient) {
  REQUIRE_DEBIAN_TORCH();  // autograd: torch 1.13 runs it
  GenOptions gen;
  gen.training_rate = 1;
  const ToyCampaign wrong = v14_toy_campaign("drops_gradients@/usr/bin/python3", 6, gen);
  EXPECT_GT(wrong.findings, 0);
  ASSERT_FALSE(wrong.minimized.empty());
  for (const std::string& text : wrong.minimized) {
    EXPECT_NE(text.find(" requires_grad\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\nbackward("), std::string::npos) << text;
  }
  const ToyCampaign right = v14_toy_campaign("as_is@/usr/bin/python3", 6, gen);
  EXPECT_EQ(right.findings, 0);
}

// Format v1.4's --recall: a compiler that decides on its first call how
// its inputs alias and never checks again (the toy: separate inputs, so it
// runs on clones and copies back) agrees on every first call, and is found
// only on the second call, with the inputs in the recall layout. Every
// finding is a recall- bucket, every minimized program still has two
// inputs that the recall layout moves together. The recall machinery
// itself reports nothing on a compiler that is right (the program as it is).
TEST(PyCampaign, RecallFindsACompilerThatCachesAcrossAliasLayouts) {
  REQUIRE_DEBIAN_TORCH();  // the toy needs no Dynamo: torch 1.13 runs it
  const std::string toy = "caches_alias_layout@/usr/bin/python3";
  const ToyCampaign once = v14_toy_campaign(toy, 5, GenOptions());
  EXPECT_EQ(once.findings, 0) << "the toy is right on a first call";
  const ToyCampaign twice = v14_toy_campaign(toy, 5, GenOptions(), /*recall=*/true);
  EXPECT_GT(twice.findings, 0);
  ASSERT_FALSE(twice.minimized.empty());
  for (const std::string& b : twice.buckets) EXPECT_NE(b.find("__recall-"), std::string::npos) << b;
  for (const std::string& text : twice.minimized) {
    auto p = ir::parse(text);
    ASSERT_TRUE(p) << text;
    EXPECT_EQ(ir::recall_direction(*p), "together") << text;
  }
  // Its repro.py makes the second call too, and shows that call diverge.
  const std::string dir = twice.out + "/findings/" + twice.buckets[0];
  const std::string printed_to = tmp("repro-recall.txt");
  const int rc = std::system(("/usr/bin/python3 " + dir + "/repro.py > " + printed_to + " 2>&1").c_str());
  std::string printed;
  read_text(printed_to, &printed);
  EXPECT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 1) << printed;
  EXPECT_NE(printed.find("on its second call, with the inputs moved together"), std::string::npos) << printed;
  const ToyCampaign right = v14_toy_campaign("as_is@/usr/bin/python3", 5, GenOptions(), /*recall=*/true);
  EXPECT_EQ(right.findings, 0);
}

// --invalid-rate: a compiler that runs programs eager PyTorch rejects is
// reported in the accepts-invalid class, its findings minimized into
// programs rejected with the same kind; one that refuses them (the program
// as it is) gives no finding.
TEST(PyCampaign, AcceptsInvalidIsAClassOfItsOwn) {
  REQUIRE_DEBIAN_TORCH();
  setenv("AF_CAPABILITY_CACHE", tmp("py-caps-invalid").c_str(), 1);
  compilers::forget_capabilities();
  auto campaign = [&](const std::string& function, double minimize_s) {
    CampaignOptions o;
    o.out = tmp("py-invalid-" + function);
    std::filesystem::remove_all(o.out);
    o.seed = 9;
    o.programs = 10;
    o.jobs = 1;
    o.quiet = true;
    o.minimize_s = minimize_s;
    o.gen.invalid_rate = 1;
    o.strategies = {run::strategy_of("py:oracles.testdata.toy_compiler:" + function + "@/usr/bin/python3")};
    return std::make_pair(o, run_campaign(o));
  };
  const auto [wrong_o, wrong] = campaign("swallow_errors", 20);
  const auto [right_o, right] = campaign("as_is", 0);
  unsetenv("AF_CAPABILITY_CACHE");
  compilers::forget_capabilities();
  EXPECT_GE(wrong.invalid, 9);
  EXPECT_EQ(wrong.findings, wrong.invalid) << "every program eager rejects is accepted";
  EXPECT_EQ(right.invalid, wrong.invalid);
  EXPECT_EQ(right.findings, 0);
  EXPECT_EQ(right.external_runs, right.invalid);
  int checked = 0;
  for (const auto& e : std::filesystem::directory_iterator(wrong_o.out + "/findings")) {
    const std::string bucket = e.path().filename().string();
    const size_t at = bucket.find("__accepts-invalid-");
    ASSERT_NE(at, std::string::npos) << bucket;
    const std::string kind = bucket.substr(at + 18, bucket.find("__", at + 18) - at - 18);
    std::ifstream f(e.path() / "min.af");
    if (!f) continue;  // minimized only within --minimize-total
    std::stringstream text;
    text << f.rdbuf();
    auto p = ir::parse(text.str());
    ASSERT_TRUE(p.ok()) << text.str();
    auto an = ir::analyze(*p);
    ASSERT_FALSE(an.ok()) << "a minimized accepts-invalid program stays invalid\n" << text.str();
    EXPECT_EQ(ir::kind_name(an.error().kind), kind) << text.str();
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

// Issue #60: a compiler that hangs (in its call or in its compile), exits
// or kills itself mid-case never stalls a campaign and is never blamed on
// aliasfuzz. Each campaign ends (its capability probe is inconclusive, said
// so and not cached), writes a valid report.json, and every finding is a
// bucket of the plug-in, of kind runner-timeout or runner-crash.
struct FaultyRun {
  CampaignSummary summary;
  std::vector<std::string> buckets;
  json report;
  double seconds = 0;
  bool probe_cached = false;
};

// case_timeout_s: 3 s ends a hang's cases quickly; a compiler that dies
// needs none that short, and on a loaded machine its Python's start-up
// (importing torch) alone may pass 3 s, which would make its crash a timeout.
FaultyRun faulty_campaign(const std::string& toy, double minimize_s, double external_timeout_s = 0,
                          double case_timeout_s = 3) {
  const std::string cache = tmp("faulty-caps-" + toy);
  std::filesystem::remove_all(cache);
  setenv("AF_CAPABILITY_CACHE", cache.c_str(), 1);
  compilers::forget_capabilities();
  CampaignOptions o;
  o.out = tmp("faulty-" + toy + (external_timeout_s > 0 ? "-parent" : ""));
  std::filesystem::remove_all(o.out);
  o.seed = 3;
  o.programs = 2;
  o.jobs = 2;
  o.quiet = true;
  o.case_timeout_s = case_timeout_s;
  o.minimize_s = minimize_s;
  o.test_external_timeout_s = external_timeout_s;
  o.strategies = {run::strategy_of("py:oracles.testdata.toy_compiler:" + toy + "@/usr/bin/python3")};
  FaultyRun r;
  const double t0 = oracles::now_s();
  r.summary = run_campaign(o);
  r.seconds = oracles::now_s() - t0;
  reports::write_reports(o.out);
  std::printf("%s: %.1f s\n", toy.c_str(), r.seconds);
  unsetenv("AF_CAPABILITY_CACHE");
  compilers::forget_capabilities();
  for (const auto& e : std::filesystem::directory_iterator(o.out + "/findings"))
    r.buckets.push_back(e.path().filename().string());
  r.report = read_json(o.out + "/report.json");
  r.probe_cached = std::filesystem::exists(cache) && !std::filesystem::is_empty(cache);
  return r;
}

void expect_blamed_on_the_plugin(const FaultyRun& r, const std::string& toy, const std::string& kind) {
  EXPECT_EQ(r.summary.programs, 2) << toy;
  EXPECT_EQ(r.summary.must_agree_buckets, 0) << toy << ": a compiler's fault counted as aliasfuzz's";
  EXPECT_EQ(r.summary.timeouts, 0) << toy;
  EXPECT_EQ(r.summary.crashes, 0) << toy;
  EXPECT_FALSE(r.report.is_discarded()) << toy;
  EXPECT_FALSE(r.probe_cached) << toy << ": an inconclusive probe was cached";
  ASSERT_FALSE(r.buckets.empty()) << toy;
  for (const std::string& b : r.buckets) {
    EXPECT_NE(b.find(toy), std::string::npos) << b;
    EXPECT_NE(b.find("__" + kind), std::string::npos) << b;
  }
  // Not a timing bound: a stalled campaign would run for ever (a hang of
  // 10^6 s), a bounded one ends in its two cases, probe and minimizations.
  EXPECT_LT(r.seconds, 240) << toy;
}

TEST(PyCampaign, ACompilerThatHangsIsNamedAndTheCampaignEnds) {
  REQUIRE_DEBIAN_TORCH();
  // Minimized too: each candidate within the case's bound, the whole within a few cases.
  expect_blamed_on_the_plugin(faulty_campaign("hangs_on_call", 10), "hangs_on_call", "runner-timeout");
  expect_blamed_on_the_plugin(faulty_campaign("hangs_in_compile", 0), "hangs_in_compile", "runner-timeout");
}

// The campaign's own kill at the case timeout (here the worker's bound on
// an answer is longer than the case's) still names the compiler that was
// computing: the worker's shared activity slot (base/activity.h).
TEST(PyCampaign, AHangTheCampaignKillsIsTheCompilers) {
  REQUIRE_DEBIAN_TORCH();
  const FaultyRun r = faulty_campaign("hangs_on_call", 0, /*external_timeout_s=*/1000);
  expect_blamed_on_the_plugin(r, "hangs_on_call", "runner-timeout");
}

TEST(PyCampaign, ACompilerThatDiesIsNamed) {
  REQUIRE_DEBIAN_TORCH();
  expect_blamed_on_the_plugin(faulty_campaign("exits_on_call", 0, 0, 60), "exits_on_call", "runner-crash");
  expect_blamed_on_the_plugin(faulty_campaign("kills_itself_on_call", 0, 0, 60), "kills_itself_on_call",
                              "runner-crash-SIGSEGV");
}

}  // namespace
}  // namespace af::fuzz
