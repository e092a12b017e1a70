// repro.py: written for a finding, it runs under /usr/bin/python3 (Debian's
// torch 1.13), rebuilds the inputs exactly, agrees with the oracle under
// PyTorch eager and names the diverging observable; for torch-functionalize
// it also runs functorch's functionalize and prints where it differs.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "compilers/test_util.h"
#include "check/bucket.h"
#include "check/files.h"
#include "triage/repro.h"
#include "ir/analysis.h"
#include "ir/text.h"
#include "oracles/eager.h"
#include "triage/minimize_finding.h"

namespace af::fuzz {
namespace {

std::string tmpdir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t ? t : "/tmp";
}

// Runs a script; its stdout+stderr and exit status.
std::string run_python(const std::string& path, int* status) {
  std::string out;
  FILE* f = popen(("/usr/bin/python3 " + path + " 2>&1").c_str(), "r");
  if (!f) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  const int st = pclose(f);
  *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

const char* kOverlapping = R"(aliasfuzz 1
storage s0 f32[6] = random(4)
storage s1 f32[3] = [0.5, -1, 2.25]
input a = as_strided(s0, [4], [1], 0)
input b = as_strided(s0, [4], [1], 2)
input t = s1
exp_(b)
r = add(a, 1.0)
mul_(t, 2.0)
return r
)";

// A finding of a strategy as check_program would record it: the first
// mismatch of return 0 at index 2 (a value 1 off).
MinimizedFinding fake_finding(const std::string& strategy) {
  MinimizedFinding m;
  auto p = ir::parse_and_validate(kOverlapping);
  m.ok = true;
  m.minimized = *p;
  m.original = *p;
  m.spec = run::spec_of({strategy, "", "random:3", "greedy"});
  m.expected = oracles::run_eager(*p, *ir::analyze(*p));
  m.record.spec = m.spec;
  m.record.agree = false;
  oracles::Mismatch mm;
  mm.observable = "return 0";
  mm.index = 2;
  mm.expected = m.expected.returns[0].v[2];
  mm.actual = mm.expected + 1.0f;
  m.record.mismatch = mm;
  m.record.op = "add";
  m.bucket = bucket_of(m.record);
  return m;
}

TEST(Repro, ScriptEmbedsTheFinding) {
  MinimizedFinding m = fake_finding("update_aliases");
  const std::string s = repro_script(m.minimized, m.spec, m.record, m.expected);
  EXPECT_NE(s.find("torch.as_strided("), std::string::npos);
  EXPECT_NE(s.find("_random(4, 6)"), std::string::npos);  // exact initial values
  EXPECT_NE(s.find("EXPECTED = "), std::string::npos);
  EXPECT_NE(s.find("\"bucket\": \"" + m.bucket + "\""), std::string::npos);
  EXPECT_NE(s.find("def _fn(a, b, t):"), std::string::npos) << s;
  EXPECT_EQ(s.rfind("#!/usr/bin/python3", 0), 0u);
}

TEST(Repro, WritesMinAfAndRunsUnderPython) {
  REQUIRE_DEBIAN_TORCH();
  MinimizedFinding m = fake_finding("update_aliases");
  const std::string dir = tmpdir() + "/repro_plain";
  std::string err;
  ASSERT_TRUE(write_minimized(dir, m, &err)) << err;
  std::string text;
  ASSERT_TRUE(read_text(dir + "/min.af", &text));
  auto back = ir::parse_and_validate(text);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, m.minimized);
  int status = -1;
  const std::string out = run_python(dir + "/repro.py", &status);
  EXPECT_EQ(status, 1)
      << out;  // a divergence (recorded: no aliasfuzz binary to re-run here; tools/fuzz_cli_test.sh re-runs)
  EXPECT_NE(out.find("aliasfuzz not found"), std::string::npos) << out;
  EXPECT_NE(out.find("return 0   <-- DIVERGES"), std::string::npos) << out;
  EXPECT_NE(out.find("DIVERGENCE: return 0[2] expected"), std::string::npos) << out;
  EXPECT_NE(out.find("update_aliases produced"), std::string::npos) << out;
  EXPECT_NE(out.find("PyTorch eager (this run)"), std::string::npos) << out;
  // PyTorch eager agrees with the oracle on every observable.
  EXPECT_EQ(out.find("PyTorch eager differs"), std::string::npos) << out;
  EXPECT_EQ(out.find("raised"), std::string::npos) << out;
}

TEST(Repro, TorchFunctionalizeRunsFunctorch) {
  REQUIRE_DEBIAN_TORCH();
  MinimizedFinding m = fake_finding("torch-functionalize");
  const std::string dir = tmpdir() + "/repro_functionalize";
  std::string err;
  ASSERT_TRUE(write_minimized(dir, m, &err)) << err;
  int status = -1;
  const std::string out = run_python(dir + "/repro.py", &status);
  EXPECT_EQ(status, 1) << out;  // functionalize run just now diverges
  EXPECT_EQ(out.find("functionalize raised"), std::string::npos) << out;
  // functionalize assumes unaliased inputs: the write through b is not
  // seen by the read of a (which overlaps it).
  EXPECT_NE(out.find("functionalize DIFFERS from eager: return 0[2]"), std::string::npos) << out;
  EXPECT_NE(out.find("DIVERGENCE: torch-functionalize differs from eager PyTorch"), std::string::npos) << out;
}

TEST(Repro, RegressionTextRoundTrips) {
  MinimizedFinding m = fake_finding("update_aliases");
  RegressionCase c = regression_of(m);
  EXPECT_FALSE(c.expect_agree);
  std::string err;
  auto back = parse_regression(regression_text(c), &err);
  ASSERT_TRUE(back.has_value()) << err;
  EXPECT_EQ(back->spec, c.spec);
  EXPECT_EQ(back->bucket, c.bucket);
  EXPECT_FALSE(back->expect_agree);
  EXPECT_EQ(back->program, c.program);
  m.spec.strategy = m.record.spec.strategy = run::strategy_of("functionalize");  // must agree
  EXPECT_TRUE(regression_of(m).expect_agree);
  EXPECT_FALSE(parse_regression("aliasfuzz 1\n", &err).has_value());
}

TEST(Repro, AddToCorpusWritesAReplayableCase) {
  MinimizedFinding m = fake_finding("eager");
  const std::string root = tmpdir() + "/corpus_root";
  std::string err;
  const std::string path = add_to_corpus(root, m, &err);
  ASSERT_FALSE(path.empty()) << err;
  EXPECT_EQ(path.rfind(root + "/corpus/regressions/eager__reordered__fused__return__compute_", 0), 0u) << path;
  std::string text;
  ASSERT_TRUE(read_text(path, &text));
  auto c = parse_regression(text, &err);
  ASSERT_TRUE(c.has_value()) << err;
  EXPECT_TRUE(c->expect_agree);  // eager must agree: the "fix" is in place
  std::string detail;
  EXPECT_EQ(replay(*c, &detail), Replay::Pass) << detail;
}

}  // namespace
}  // namespace af::fuzz
