// The findings ledger (corpus/findings): every entry parses, and replays
// as its status says when its compiler is installed: `new` and `known`
// entries still diverge the same way, `fixed` ones agree. A new Thunder or
// PyTorch shows here at once which bugs it fixed.
#include "triage/ledger.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "check/bucket.h"
#include "check/check.h"
#include "minimize/minimize.h"
#include "ir/text.h"
#include "compilers/table.h"
#include "triage/defects.h"
#include "triage/evidence.h"
#include "triage/signature.h"
#include "triage/minimize_finding.h"

namespace af::fuzz {
namespace {

std::string ledger_dir() {
  for (const char* v : {"TEST_SRCDIR", "AF_ROOT"})
    if (const char* e = std::getenv(v)) {
      const std::string d = std::string(e) + (std::string(v) == "TEST_SRCDIR" ? "/aliasfuzz" : "") + "/corpus/findings";
      if (std::filesystem::is_directory(d)) return d;
    }
  return "";
}

TEST(Ledger, EveryEntryParses) {
  const std::string dir = ledger_dir();
  ASSERT_FALSE(dir.empty()) << "corpus/findings not found";
  std::vector<std::string> errors;
  const auto entries = load_ledger(dir, &errors);
  EXPECT_TRUE(errors.empty()) << errors.front();
  EXPECT_GE(entries.size(), 3u);  // an empty ledger is a broken checkout, not a pass
  // One defect, one entry: two entries of one key would be one bug twice
  // (a campaign labels it with whichever comes first).
  std::map<std::string, std::string> by_key;
  for (const auto& e : entries) {
    auto [it, fresh] = by_key.try_emplace(e.bug.key(), e.name);
    EXPECT_TRUE(fresh) << e.name << " and " << it->second << " have one key: " << e.bug.key();
  }
}

// DEFECTS.md, the ledger one entry per defect, is what `ledger defects
// --index` writes from the entries' recorded evidence now: a new entry, a
// re-gathered evidence line or a change of the rule shows as a stale index.
TEST(Ledger, TheDefectIndexIsCurrent) {
  const std::string dir = ledger_dir();
  ASSERT_FALSE(dir.empty()) << "corpus/findings not found";
  std::vector<std::string> errors;
  const auto entries = load_ledger(dir, &errors);
  std::map<std::string, Evidence> evidence;
  for (const auto& e : entries)
    if (auto ev = parse_evidence_text(e.evidence)) evidence[e.name] = *ev;
  std::ifstream in(dir + "/DEFECTS.md");
  ASSERT_TRUE(in) << dir << "/DEFECTS.md is missing";
  const std::string have((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(have == defects_index(group_defects(entries, evidence), entries))
      << "corpus/findings/DEFECTS.md is stale: ./aliasfuzz ledger defects --no-gather --index";
}

// The header lint (issue #56) holds on every entry of the ledger.
TEST(Ledger, EveryEntryKeepsTheHeaderRules) {
  const std::string dir = ledger_dir();
  ASSERT_FALSE(dir.empty());
  for (const auto& e : load_ledger(dir, nullptr))
    for (const std::string& problem : lint_ledger_entry(e)) ADD_FAILURE() << e.name << ": " << problem;
}

// Each rule of the lint names what breaks it.
TEST(Ledger, TheHeaderLintNamesEachProblem) {
  const std::string prog = "aliasfuzz 1\nstorage s0 f32[1] = full(0.0)\ninput x0 = s0\nreturn x0\n";
  auto lint = [&](const std::string& name, const std::string& head) {
    std::string err;
    auto e = parse_ledger_entry(name, "# aliasfuzz finding: c\n# what: values\n" + head + prog, &err);
    EXPECT_TRUE(e) << err;
    std::string all;
    for (const auto& p : lint_ledger_entry(*e)) all += p + "\n";
    return all;
  };
  const std::string ok = "# system: torch 2.9.1 and 2.15.0 (AOTAutograd)\n# strategy: aot-eager\n";
  EXPECT_EQ(lint("aot-autograd-x", ok + "# status: new\n# on torch 2.9.1: reproduces\n# on torch 2.15.0: reproduces\n"),
            "");
  EXPECT_NE(lint("aot-autograd-x", ok + "# status: new (family: https://x/1)\n# on torch 2.15.0: reproduces\n")
                .find("`new` stands alone"),
            std::string::npos);
  EXPECT_NE(lint("aot-autograd-x", ok + "# status: known see-above\n").find("`known URL`"), std::string::npos);
  EXPECT_NE(lint("aot-autograd-x", ok + "# status: new\n# on torch 2.9.1: agrees\n# on torch 2.15.0: agrees\n")
                .find("reproduces on no version"),
            std::string::npos);
  const std::string fixed_later = "# on torch 2.9.1: reproduces\n# on torch 2.15.0: agrees\n";
  EXPECT_NE(lint("aot-autograd-x",
                 "# system: torch 2.9.1 (AOTAutograd)\n# strategy: aot-eager\n# status: new\n" + fixed_later)
                .find("no longer shows it: status `fixed 2.15.0`"),
            std::string::npos);
  EXPECT_EQ(lint("aot-autograd-x",
                 "# system: torch 2.9.1 (AOTAutograd)\n# strategy: aot-eager\n# status: fixed 2.15.0\n" + fixed_later),
            "");
  EXPECT_NE(lint("aot-autograd-x",
                 "# system: torch 2.9.1 (AOTAutograd)\n# strategy: aot-eager\n# status: new\n"
                 "# on torch 2.9.1: reproduces\n# on torch 2.15.0: reproduces\n")
                .find("leaves out torch 2.15.0"),
            std::string::npos);
  EXPECT_NE(lint("thunder-x", ok + "# status: new\n").find("does not start with aot-autograd-"), std::string::npos);
}

// A bug of our update_aliases model whose signature is a Thunder entry's
// (the same kind and cause) predicts that entry; another strategy's does
// not, nor does an entry marked fixed.
TEST(Ledger, AModelsBugPredictsItsRealSystemsEntry) {
  const std::string prog =
      "aliasfuzz 1\nstorage s0 f32[8] = iota(0, 1)\ninput x0 = as_strided(s0, [4], [1], 0)\n"
      "input x1 = as_strided(s0, [4], [1], 2)\nadd_(x0, 1.0)\nt0 = add(x1, 0.0)\nreturn t0\n";
  std::string err;
  auto e = parse_ledger_entry("thunder-x",
                              "# aliasfuzz finding: c\n# system: lightning-thunder 0.2.6\n"
                              "# strategy: thunder\n# what: values\n# status: new\n" +
                                  prog,
                              &err);
  ASSERT_TRUE(e) << err;
  std::vector<LedgerEntry> entries = {*e};
  BugSignature bug = e->bug;
  bug.who = "update_aliases";
  const auto p = ledger_prediction(entries, bug, "update_aliases");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->system, "thunder");
  EXPECT_EQ(p->entry->name, "thunder-x");
  bug.who = "none";
  EXPECT_FALSE(ledger_prediction(entries, bug, "none"));
  entries[0].status = "fixed";
  bug.who = "update_aliases";
  EXPECT_FALSE(ledger_prediction(entries, bug, "update_aliases"));
}

TEST(Ledger, HeaderErrorsAreNamed) {
  std::string err;
  EXPECT_FALSE(parse_ledger_entry("x", "aliasfuzz 1\nstorage s0 f32[1] = full(0.0)\ninput x0 = s0\nreturn x0\n", &err));
  EXPECT_NE(err.find("header"), std::string::npos) << err;
  const std::string head = "# aliasfuzz finding: c\n# system: s\n# strategy: thunder\n# what: values\n";
  const std::string prog = "aliasfuzz 1\nstorage s0 f32[1] = full(0.0)\ninput x0 = s0\nreturn x0\n";
  EXPECT_FALSE(parse_ledger_entry("x", head + "# status: known\n" + prog, &err));
  EXPECT_NE(err.find("reference"), std::string::npos) << err;
  EXPECT_FALSE(parse_ledger_entry("x", head + "# status: maybe\n" + prog, &err));
  for (const char* bad_on : {"# on : \n", "# on torch 2.9.1\n", "# on torch: agrees\n", "# on torch 2.9.1: \n"}) {
    err.clear();
    EXPECT_FALSE(parse_ledger_entry("x", head + "# status: new\n" + bad_on + prog, &err)) << bad_on;
    EXPECT_NE(err.find("# on SYSTEM VERSION: STATUS"), std::string::npos) << err;
  }
  auto e = parse_ledger_entry("x", head + "# status: known https://example.org/1\n" + prog, &err);
  ASSERT_TRUE(e) << err;
  EXPECT_EQ(e->status, "known");
  EXPECT_EQ(e->reference, "https://example.org/1");
}

// Every entry replays under every installed version of its system as its
// `on` line for that version says (`aliasfuzz ledger check` writes them); a
// version it has no line for, as its status says.
TEST(Ledger, EntriesReplayAsTheirStatusSays) {
  const std::string dir = ledger_dir();
  ASSERT_FALSE(dir.empty());
  int replayed = 0;
  std::string unavailable;
  for (const LedgerEntry& e : load_ledger(dir, nullptr)) {
    EXPECT_FALSE(e.on.empty()) << e.name << ": no `# on` lines: run `aliasfuzz ledger check`";
    bool ran = false;
    for (const std::string& s : ledger_strategies(e)) {
      const auto r = replay_entry(e, s);
      if (!r) continue;
      ran = true;
      ++replayed;
      if (e.on.count(r->version)) {
        EXPECT_EQ(r->status, e.on.at(r->version))
            << e.name << " on " << r->version << ": recorded `" << e.on.at(r->version) << "`, replays `" << r->status
            << "` now: run `aliasfuzz ledger check` and update its status";
        continue;
      }
      EXPECT_EQ(r->status, e.status == "fixed" ? "agrees" : "reproduces")
          << e.name << " on " << r->version << " (no `on` line): marked " << e.status;
    }
    if (!ran) unavailable += " " + e.name + " (" + e.spec.strategy.name() + ")";
  }
  if (replayed == 0) GTEST_SKIP() << "skipped: no compiler of the ledger is installed here:" << unavailable;
}

TEST(Ledger, OnLinesAreReadWrittenAndSummarized) {
  const std::string text =
      "# aliasfuzz finding: c\n# system: s\n# strategy: aot-eager\n# what: values\n# status: new\n"
      "# on torch 2.9.1: agrees\n# note kept\naliasfuzz 1\nstorage s0 f32[1] = full(0.0)\ninput x0 = s0\nreturn x0\n";
  std::string err;
  auto e = parse_ledger_entry("x", text, &err);
  ASSERT_TRUE(e) << err;
  EXPECT_EQ(e->on, (std::map<std::string, std::string>{{"torch 2.9.1", "agrees"}}));
  const std::map<std::string, std::string> on = {{"torch 2.15.0", "agrees"},
                                                 {"torch 2.9.1", "reproduces"},
                                                 {"torch 2.10.0", "reproduces"},
                                                 {"torch 2.16.0", "agrees"}};
  const std::string written = with_on_lines(text, on);
  // Versions in numeric order right after `status`, the old line gone, the rest kept.
  EXPECT_NE(written.find("# status: new\n# on torch 2.9.1: reproduces\n# on torch 2.10.0: reproduces\n"
                         "# on torch 2.15.0: agrees\n# on torch 2.16.0: agrees\n# note kept\naliasfuzz 1\n"),
            std::string::npos)
      << written;
  EXPECT_EQ(parse_ledger_entry("x", written, &err)->on, on);
  EXPECT_EQ(with_on_lines(written, on), written);
  EXPECT_EQ(on_summary(on), "reproduces on torch 2.9.1, 2.10.0; fixed in <= torch 2.15.0");
  EXPECT_EQ(on_summary({{"torch 2.9.1", "reproduces"}, {"torch 2.15.0", "differs: IndexError"}}),
            "reproduces on torch 2.9.1; differs: IndexError on torch 2.15.0");
  EXPECT_EQ(on_summary({{"torch 2.9.1", "agrees"}, {"torch 2.15.0", "reproduces"}}),
            "agrees on torch 2.9.1; reproduces on torch 2.15.0");  // a regression
  // The first bad release among those installed (issue #57's evidence).
  EXPECT_EQ(first_bad_release(on), "wrong on the oldest installed, torch 2.9.1; right again on torch 2.15.0");
  EXPECT_EQ(first_bad_release({{"torch 2.9.1", "agrees"},
                               {"torch 2.10.0", "agrees"},
                               {"torch 2.15.0", "differs: IndexError"},
                               {"torch 2.16.0", "reproduces"}}),
            "first wrong on torch 2.15.0 (right on torch 2.10.0)");
  EXPECT_EQ(first_bad_release({{"torch 2.9.1", "agrees"}, {"torch 2.15.0", "not installed"}}), "");
}

// An entry labels a bug of a versioned strategy only where its `on` line
// for that torch says it reproduces.
TEST(Ledger, LabelsOnlyWhereItReproduces) {
  LedgerEntry e;
  e.on = {{"torch 2.9.1", "reproduces"}, {"torch 2.15.0", "agrees"}};
  EXPECT_EQ(ledger_label_refused(e, "aot-eager@2.9.1"), "");
  EXPECT_EQ(ledger_label_refused(e, "aot-eager@2.15.0"), "agrees on torch 2.15.0");
  EXPECT_NE(ledger_label_refused(e, "inductor@2.14.1").find("not checked on torch 2.14.1"), std::string::npos);
  EXPECT_EQ(ledger_label_refused(e, "thunder"), "");  // one version only: labelled as before
  e.on.clear();
  EXPECT_EQ(ledger_label_refused(e, "aot-eager@2.15.0"), "");  // an entry never checked labels as before
}

BugSignature sig(const std::string& key) { return *BugSignature::parse(key); }

// Inductor runs AOTAutograd first: a bug of the same cause in an aot-eager
// entry labels an inductor bug, under the same version rule.
TEST(Ledger, ALowerStageEntryLabelsTheStrategyAboveIt) {
  LedgerEntry e;
  e.name = "aot-one";
  e.bug = *BugSignature::parse("aot-eager|values|alias:input~shared");
  e.on = {{"torch 2.9.1", "reproduces"}, {"torch 2.15.0", "agrees"}};
  const std::vector<LedgerEntry> entries = {e};
  std::string refused;
  EXPECT_EQ(ledger_label(entries, sig("inductor|values|alias:input~shared"), "inductor@2.9.1", &refused), &entries[0]);
  EXPECT_EQ(ledger_label(entries, sig("inductor|values|alias:input~shared"), "inductor@2.15.0", &refused), nullptr);
  EXPECT_NE(refused.find("agrees on torch 2.15.0"), std::string::npos) << refused;
  EXPECT_EQ(ledger_label(entries, sig("inductor|values|other"), "inductor@2.9.1"), nullptr);
  EXPECT_EQ(ledger_label(entries, sig("thunder|values|alias:input~shared"), "thunder"), nullptr);  // no lower stage
}

// A stub torch version where no second venv exists: .venvs/torch-9.0.0 is
// Debian's Python whose torch.compile is a "compiler" with one defect (it
// adds 1 to its first input after the call). The version reaches the run
// record, its bucket and bug name (not its key), and the ledger's replay.
class StubTorch : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (access("/usr/bin/python3", X_OK) != 0) return;
    const char* tmp = std::getenv("TEST_TMPDIR");
    root_ = std::string(tmp ? tmp : "/tmp") + "/stub-torch";
    std::filesystem::create_directories(root_ + "/.venvs/torch-9.0.0/bin");
    std::filesystem::create_directories(root_ + "/stub");
    std::ofstream(root_ + "/stub/sitecustomize.py") << "import torch\n"
                                                       "def _compile(fn, backend=None, **kw):\n"
                                                       "    def run(*args):\n"
                                                       "        out = fn(*args)\n"
                                                       "        for a in args:\n"
                                                       "            if isinstance(a, torch.Tensor):\n"
                                                       "                a.add_(1)\n"
                                                       "                break\n"
                                                       "        return out\n"
                                                       "    return run\n"
                                                       "torch.compile = _compile\n";
    const std::string py = root_ + "/.venvs/torch-9.0.0/bin/python";
    std::ofstream(py) << "#!/bin/sh\nPYTHONPATH=" << root_ << "/stub exec /usr/bin/python3 \"$@\"\n";
    std::filesystem::permissions(py, std::filesystem::perms::owner_all);
    if (const char* old = std::getenv("AF_TORCH_VENVS")) saved_ = old;
    setenv("AF_TORCH_VENVS", root_.c_str(), 1);
  }
  // The other tests (in any order) see the real torches only.
  static void TearDownTestSuite() {
    if (saved_.empty())
      unsetenv("AF_TORCH_VENVS");
    else
      setenv("AF_TORCH_VENVS", saved_.c_str(), 1);
  }
  static std::string root_, saved_;
};
std::string StubTorch::root_, StubTorch::saved_;

TEST_F(StubTorch, VersionedStrategiesCarryTheirTorch) {
  if (root_.empty()) GTEST_SKIP() << "skipped: no /usr/bin/python3";
  bool found = false;
  for (const auto& t : compilers::installed_torches()) found = found || t.version == "9.0.0";
  ASSERT_TRUE(found);
  EXPECT_EQ(compilers::with_torch_version("inductor", "9.0.0"), "inductor@9.0.0");
  EXPECT_EQ(compilers::with_torch_version("aot-eager@2.9.1", "9.0.0"), "aot-eager@2.9.1");
  EXPECT_EQ(compilers::with_torch_version("thunder", "9.0.0"), "thunder");  // Thunder keeps its own torch
  EXPECT_EQ(compilers::with_torch_version("py:m:f", "9.0.0"), "py:m:f");
  EXPECT_FALSE(compilers::external_strategy("thunder@9.0.0"));
  EXPECT_FALSE(compilers::external_strategy("aot-eager@nine"));
  EXPECT_EQ(compilers::external_strategy("inductor@9.0.0")->lower_stage, "aot-eager@9.0.0");
  EXPECT_EQ(compilers::strategy_base("torch-func-functionalize@9.0.0"), "torch-func-functionalize");
  EXPECT_EQ(compilers::external_python("aot-eager@9.0.0"), root_ + "/.venvs/torch-9.0.0/bin/python");
  EXPECT_EQ(compilers::external_python("aot-eager@8.0.0"), "");
  EXPECT_NE(compilers::external_unavailable("aot-eager@8.0.0").find("setup --torch 8.0.0"), std::string::npos);
  EXPECT_TRUE(compilers::version_less("2.9.1", "2.15.0"));
  EXPECT_TRUE(compilers::version_less("2.15.0", "9.0.0"));
  EXPECT_FALSE(compilers::version_less("2.15.0+cu132", "2.15.0"));

  const std::string prog = "aliasfuzz 1\nstorage s0 f32[2] = full(1.0)\ninput x0 = s0\nt0 = add(x0, 1.0)\nreturn t0\n";
  auto p = ir::parse(prog);
  ASSERT_TRUE(p);
  run::RunSpec spec;
  spec.strategy = run::strategy_of("aot-eager@9.0.0");
  const auto r = run_spec(*p, spec);
  ASSERT_TRUE(r);
  ASSERT_FALSE(r->agree) << r->error;  // the stub's defect
  EXPECT_EQ(r->spec.strategy.name(), "aot-eager@9.0.0");
  EXPECT_EQ(bucket_of(*r).rfind("aot-eager@9.0.0__", 0), 0u) << bucket_of(*r);
  const BugSignature b = bug_signature(*r, *p);
  EXPECT_EQ(b.name.rfind("aot-eager@9.0.0__", 0), 0u) << b.name;
  EXPECT_EQ(b.key().rfind("aot-eager|", 0), 0u) << b.key();  // one bug on every version

  // The ledger: an entry replays under every installed torch, and the
  // stub's replay is what its `on` line must say.
  std::string err;
  auto e = parse_ledger_entry("stub",
                              "# aliasfuzz finding: c\n# system: s\n# strategy: aot-eager\n# what: values\n"
                              "# status: new\n# on torch 9.0.0: agrees\n" +
                                  prog,
                              &err);
  ASSERT_TRUE(e) << err;
  const auto strategies = ledger_strategies(*e);
  EXPECT_NE(std::find(strategies.begin(), strategies.end(), "aot-eager@9.0.0"), strategies.end());
  const auto replay = replay_entry(*e, "aot-eager@9.0.0");
  ASSERT_TRUE(replay);
  EXPECT_EQ(replay->version, "torch 9.0.0");
  EXPECT_EQ(replay->status, "reproduces");
  EXPECT_NE(replay->status, e->on.at("torch 9.0.0"));  // what EntriesReplayAsTheirStatusSays reports for a real entry
  EXPECT_EQ(ledger_label_refused(*e, "aot-eager@9.0.0"), "agrees on torch 9.0.0");
}

}  // namespace
}  // namespace af::fuzz
