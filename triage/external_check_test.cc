// The external strategies inside the campaign machinery: check_program,
// bucket_of, campaign_specs, minimize_finding and repro.py. The Thunder
// cases need AF_THUNDER_PYTHON (set by tools/run_tests.sh when
// .venv-thunder exists) and skip otherwise.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "compilers/test_util.h"
#include "check/bucket.h"
#include "check/campaign_specs.h"
#include "check/check.h"
#include "check/files.h"
#include "generate/generator.h"
#include "minimize/minimize.h"
#include "triage/repro.h"
#include "triage/signature.h"
#include "ir/analysis.h"
#include "ir/text.h"
#include "oracles/eager.h"
#include "oracles/line_process.h"
#include "compilers/runner.h"
#include "compilers/table.h"
#include "triage/minimize_finding.h"

namespace af::fuzz {
namespace {

std::string tmpdir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t ? t : "/tmp";
}

std::string run_python(const std::string& python, const std::string& path, int* status) {
  std::string out;
  FILE* f = popen((python + " " + path + " 2>&1").c_str(), "r");
  if (!f) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  const int st = pclose(f);
  *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

// Two inputs that are overlapping windows of one storage, plus an unaliased one.
const char* kOverlapping = R"(aliasfuzz 1
storage s0 f32[6] = random(4)
storage s1 f32[3] = [0.5, -1, 2.25]
input a = as_strided(s0, [4], [1], 0)
input b = as_strided(s0, [4], [1], 2)
input t = s1
u = mul(t, 3.0)
exp_(b)
r = add(a, 1.0)
mul_(t, 2.0)
return r, u
)";

ir::Program program(const char* text) {
  auto p = ir::parse_and_validate(text);
  EXPECT_TRUE(static_cast<bool>(p));
  return *p;
}

std::optional<RunRecord> run(const ir::Program& p, const std::string& strategy) {
  run::RunSpec s;
  s.strategy = run::strategy_of(strategy);
  return run_spec(p, s);
}

TEST(ExternalCheck, CampaignSpecsUseProgramOrderAndNoFusion) {
  for (uint64_t i = 0; i < 20; ++i)
    for (const run::RunSpec& s : campaign_specs(
             1, i, {run::strategy_of("thunder"), run::strategy_of("torch-functionalize"), run::strategy_of("none")},
             {})) {
      if (!s.is_external()) continue;
      EXPECT_EQ(s.reorder_name(), "program");
      EXPECT_EQ(s.fusion_name(), "none");
    }
  EXPECT_TRUE(run::strategy_of("thunder-dataflow").is_external());
  EXPECT_FALSE(run::spec_of({"thunder"}).must_agree());
  // Never run by default.
  for (const run::RunSpec& s : campaign_specs(1, 0, {}, {})) EXPECT_FALSE(s.is_external()) << s.strategy.name();
}

TEST(ExternalCheck, TorchFunctionalizeFindingIsBucketed) {
  REQUIRE_DEBIAN_TORCH();
  const ir::Program p = program(kOverlapping);
  auto r = run(p, "torch-functionalize");
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->agree);
  EXPECT_TRUE(r->error.empty()) << r->error;
  ASSERT_TRUE(r->mismatch.has_value());
  EXPECT_EQ(r->mismatch->observable, "return 0");
  // The write through b reaches the storage (copied back into b); the
  // first prefix that diverges ends with the read of a, which missed it.
  EXPECT_EQ(r->op, "add");
  EXPECT_EQ(bucket_of(*r), "torch-functionalize__program-order__unfused__return__compute");
}

TEST(ExternalCheck, UnavailableThunderGivesNoRecord) {
  const char* old = std::getenv("AF_THUNDER_PYTHON");
  const std::string keep = old ? old : "";
  setenv("AF_THUNDER_PYTHON", "/nonexistent/python", 1);
  EXPECT_FALSE(run(program(kOverlapping), "thunder").has_value());
  if (old)
    setenv("AF_THUNDER_PYTHON", keep.c_str(), 1);
  else
    unsetenv("AF_THUNDER_PYTHON");
}

TEST(ExternalCheck, ThunderUnsupportedOpIsCountedNotAFinding) {
  REQUIRE_THUNDER();
  // lightning-thunder 0.2.6 has no Tensor.fill_: "unsupported", no divergence.
  const ir::Program p = program("aliasfuzz 1\nstorage s0 f32[4] = iota(0, 1)\ninput x = s0\nfill_(x, 2.0)\nreturn x\n");
  auto r = run(p, "thunder");
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->agree);
  EXPECT_FALSE(r->mismatch.has_value());
  EXPECT_TRUE(r->error.empty()) << r->error;
  EXPECT_NE(r->unsupported.find("fill_"), std::string::npos) << r->unsupported;
}

TEST(ExternalCheck, ThunderInternalErrorIsAnErrorBucket) {
  REQUIRE_THUNDER();
  // Two inputs of one storage with different sizes and an in-place op:
  // thunder 0.2.6 replaces the second by a reshape of the first, which
  // fails (RuntimeError "Attempting to reshape ..."): an internal error on
  // a program it accepts, so a finding.
  const ir::Program p = program(R"(aliasfuzz 1
storage s0 f32[8] = iota(0, 1)
input a = as_strided(s0, [6], [1], 0)
input b = as_strided(s0, [2], [1], 6)
add_(b, 1.0)
r = mul(a, 2.0)
return r
)");
  auto r = run(p, "thunder");
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->agree);
  EXPECT_FALSE(r->mismatch.has_value());
  EXPECT_TRUE(r->unsupported.empty()) << r->unsupported;
  EXPECT_NE(r->error.find("RuntimeError: "), std::string::npos) << r->error;
  EXPECT_EQ(bucket_of(*r), "thunder__program-order__unfused__error__RuntimeError");
}

// The classification inside check_program with a stand-in compiler
// (oracles/testdata/fake_external_runner.py: `.exp_()` unsupported,
// `torch.tanh(` an AssertionError) behind torch-functionalize's Python.
class FakeCompiler : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_DEBIAN_TORCH();
    const std::string real = compilers::find_external_runner();
    ASSERT_FALSE(real.empty());
    const std::string dir = std::filesystem::path(real).parent_path().string();
    const std::string fake = oracles::find_source_file("oracles/testdata/fake_external_runner.py", "");
    ASSERT_TRUE(std::filesystem::exists(fake)) << fake;
    // A Python path of its own: a new runner process, not the one the other tests started.
    const std::string py = tmpdir() + "/fake-python/python3";
    std::filesystem::create_directories(std::filesystem::path(py).parent_path());
    std::error_code ec;
    std::filesystem::remove(py, ec);
    std::filesystem::create_symlink("/usr/bin/python3", py);
    set("AF_TORCH_PYTHON", py);
    set("AF_EXTERNAL_RUNNER", fake);
    set("AF_REAL_RUNNER_DIR", dir);
  }
  void TearDown() override {
    for (const auto& [k, v] : saved_)
      if (v)
        setenv(k.c_str(), v->c_str(), 1);
      else
        unsetenv(k.c_str());
  }
  void set(const std::string& k, const std::string& v) {
    const char* old = std::getenv(k.c_str());
    saved_.emplace_back(k, old ? std::optional<std::string>(old) : std::nullopt);
    setenv(k.c_str(), v.c_str(), 1);
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST_F(FakeCompiler, UnsupportedIsNotAFinding) {
  const ir::Program p = program("aliasfuzz 1\nstorage s0 f32[4] = iota(0, 1)\ninput x = s0\nexp_(x)\nreturn x\n");
  oracles::Observables expected = oracles::run_eager(p, *ir::analyze(p));
  run::RunSpec s;
  s.strategy = run::strategy_of("torch-functionalize");
  const auto recs = check_program(p, expected, {s});
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_TRUE(recs[0].agree);
  EXPECT_TRUE(recs[0].error.empty()) << recs[0].error;
  EXPECT_EQ(recs[0].unsupported, "NotImplementedError: not supported by the fake compiler");
}

TEST_F(FakeCompiler, InternalErrorIsAFinding) {
  const ir::Program p = program("aliasfuzz 1\nstorage s0 f32[4] = iota(0, 1)\ninput x = s0\nr = tanh(x)\nreturn r\n");
  auto r = run(p, "torch-functionalize");
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->agree);
  EXPECT_TRUE(r->unsupported.empty());
  EXPECT_EQ(r->error, "AssertionError: ");
  EXPECT_EQ(bucket_of(*r), "torch-functionalize__program-order__unfused__error__AssertionError");
  // And a supported program reaches the value comparison (the stand-in is eager).
  auto ok = run(
      program(
          "aliasfuzz 1\nstorage s0 f32[4] = iota(0, 1)\ninput x = s0\nr = add(x, 1.0)\nmul_(x, 2.0)\nreturn r, x\n"),
      "torch-functionalize");
  ASSERT_TRUE(ok.has_value());
  EXPECT_TRUE(ok->agree);
  EXPECT_TRUE(ok->error.empty() && ok->unsupported.empty());
}

TEST(ExternalCheck, ThunderFindingMinimizesToARepro) {
  REQUIRE_THUNDER();
  const ir::Program p = program(kOverlapping);
  run::RunSpec spec;
  spec.strategy = run::strategy_of("thunder");
  auto r = run_spec(p, spec);
  ASSERT_TRUE(r.has_value());
  ASSERT_FALSE(r->agree) << "thunder 0.2.6 gets overlapping inputs wrong";
  EXPECT_EQ(bucket_of(*r), "thunder__program-order__unfused__return__compute");
  MinimizeOptions mo;
  mo.time_s = 30;
  MinimizedFinding m = minimize_finding(p, spec, mo);
  ASSERT_TRUE(m.ok) << m.error;
  EXPECT_EQ(m.bucket, bucket_of(*r));
  EXPECT_LT(m.minimized.stmts.size(), p.stmts.size());
  const std::string dir = tmpdir() + "/thunder_repro";
  std::string err;
  ASSERT_TRUE(write_minimized(dir, m, &err)) << err;
  std::string text;
  ASSERT_TRUE(read_text(dir + "/repro.py", &text));
  const std::string py = compilers::find_thunder_python();
  EXPECT_NE(text.find("Run: " + py + " repro.py"), std::string::npos);
  EXPECT_NE(text.find("import thunder"), std::string::npos);
  int status = -1;
  const std::string out = run_python(py, dir + "/repro.py", &status);
  EXPECT_EQ(status, 1) << out;  // thunder.jit, run just now, diverges
  EXPECT_EQ(out.find("raised"), std::string::npos) << out;
  EXPECT_NE(out.find("thunder DIFFERS from eager: return 0"), std::string::npos) << out;
  EXPECT_NE(out.find("<-- DIVERGES"), std::string::npos) << out;
  EXPECT_NE(out.find("DIVERGENCE: thunder differs from eager PyTorch"), std::string::npos) << out;
  // Thunder's final trace of the run, for the upstream issue.
  EXPECT_NE(out.find("the final trace of the run above (thunder.last_traces)"), std::string::npos) << out;
  EXPECT_NE(out.find("def computation("), std::string::npos) << out;
}

// A compiler of the user's (py:MODULE:FUNCTION@PYTHON; the module is
// oracles/testdata/toy_compiler.py, importable from the runfiles root, the
// working directory of tests) that loses in-place writes: found, bucketed
// under its spec, minimized, and its repro.py re-runs it.
TEST(ExternalCheck, PyStrategyFindingMinimizesToARepro) {
  REQUIRE_DEBIAN_TORCH();
  const std::string wrong = "py:oracles.testdata.toy_compiler:drop_inplace_writes@/usr/bin/python3";
  const ir::Program p = program(kOverlapping);
  run::RunSpec spec;
  spec.strategy = run::strategy_of(wrong);
  auto r = run_spec(p, spec);
  ASSERT_TRUE(r.has_value());
  ASSERT_FALSE(r->agree) << r->unsupported;
  EXPECT_TRUE(r->error.empty()) << r->error;
  EXPECT_EQ(bucket_of(*r).rfind("py_oracles.testdata.toy_compiler_drop_inplace_writes@_usr_bin_python3__", 0), 0u)
      << bucket_of(*r);
  MinimizeOptions mo;
  mo.time_s = 20;
  MinimizedFinding m = minimize_finding(p, spec, mo);
  ASSERT_TRUE(m.ok) << m.error;
  EXPECT_LE(m.minimized.stmts.size(), 2u);  // an in-place write and what shows it
  const std::string dir = tmpdir() + "/py_repro";
  std::string err;
  ASSERT_TRUE(write_minimized(dir, m, &err)) << err;
  std::string text;
  ASSERT_TRUE(read_text(dir + "/repro.py", &text));
  EXPECT_NE(text.find("Run: /usr/bin/python3 repro.py"), std::string::npos);
  EXPECT_NE(text.find("oracles.testdata.toy_compiler.drop_inplace_writes(fn)"), std::string::npos);
  int status = -1;
  const std::string out = run_python("/usr/bin/python3", dir + "/repro.py", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_EQ(out.find("raised"), std::string::npos) << out;
  EXPECT_NE(out.find("DIVERGENCE: " + wrong + " differs from eager PyTorch"), std::string::npos) << out;
}

// A compiler that kills its own Python process is a bucket kind of its
// own (with the signal and the process's last stderr lines), minimizes as
// that kind, and its repro.py reports the crash (exit 1) instead of dying.
TEST(ExternalCheck, RunnerCrashIsItsOwnKindAndItsReproSaysSo) {
  REQUIRE_DEBIAN_TORCH();
  const std::string crashing = "py:oracles.testdata.toy_compiler:segfault_on_exp_@/usr/bin/python3";
  const ir::Program p = program(kOverlapping);
  run::RunSpec spec;
  spec.strategy = run::strategy_of(crashing);
  auto r = run_spec(p, spec);
  ASSERT_TRUE(r.has_value());
  ASSERT_FALSE(r->agree);
  EXPECT_EQ(r->error, "external runner crash: the Python process died (SIGSEGV)");
  EXPECT_EQ(runner_failure_kind(r->error), "runner-crash-SIGSEGV");
  EXPECT_EQ(error_type(r->error), "runner-crash-SIGSEGV");
  const std::string b = bucket_of(*r);
  EXPECT_EQ(b.substr(b.rfind("__")), "__runner-crash-SIGSEGV") << b;
  EXPECT_NE(r->stderr_tail.find("toy compiler: exp_ is where I crash"), std::string::npos) << r->stderr_tail;
  // The next program gets a fresh process (no exp_: it runs and agrees).
  auto ok =
      run_spec(program("aliasfuzz 1\nstorage s0 f32[2] = iota(1, 1)\ninput x = s0\nmul_(x, 2.0)\nreturn x\n"), spec);
  ASSERT_TRUE(ok.has_value());
  EXPECT_TRUE(ok->agree) << ok->error;
  MinimizeOptions mo;
  mo.time_s = 30;
  MinimizedFinding m = minimize_finding(p, spec, mo);
  ASSERT_TRUE(m.ok) << m.error;
  EXPECT_EQ(m.bucket, b);
  EXPECT_NE(bug_signature(m.bug_record, m.bug_program).name.find("__runner-crash-SIGSEGV__"), std::string::npos);
  const std::string dir = tmpdir() + "/crash_repro";
  std::string err;
  ASSERT_TRUE(write_minimized(dir, m, &err)) << err;
  std::string json_text;
  ASSERT_TRUE(read_text(dir + "/minimize.json", &json_text));
  EXPECT_NE(json_text.find("exp_ is where I crash"), std::string::npos) << json_text;
  int status = -1;
  const std::string out = run_python("/usr/bin/python3", dir + "/repro.py", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("died: signal 11 (SIGSEGV)"), std::string::npos) << out;
  EXPECT_NE(out.find("toy compiler: exp_ is where I crash"), std::string::npos) << out;
}

// Each new built-in strategy's repro.py re-runs its compiler through the
// same table row (no minimization: a compile costs seconds).
TEST(ExternalCheck, NewStrategiesReproRunsTheirCompiler) {
  REQUIRE_THUNDER();
  const ir::Program p = program(kOverlapping);
  const oracles::Observables expected = oracles::run_eager(p, *ir::analyze(p));
  const std::string py = compilers::find_thunder_python();
  for (const char* s : {"aot-eager", "torch-func-functionalize", "thunderfx"}) {
    run::RunSpec spec;
    spec.strategy = run::strategy_of(s);
    RunRecord rec;
    rec.spec = spec;
    const std::string path = tmpdir() + "/repro-" + s + ".py";
    write_atomic(path, repro_script(p, spec, rec, expected, nullptr));
    int status = -1;
    const std::string out = run_python(py, path, &status);
    const std::string compile = compilers::external_strategy(s)->compile;
    EXPECT_NE(out.find(std::string(s) + ": " + compile + " (torch 2."), std::string::npos) << s << "\n" << out;
    // The verdict is the compiler's, just now: 1 on a divergence, 0 when it agrees.
    const bool diverged = out.find("DIVERGENCE: " + std::string(s) + " differs") != std::string::npos;
    EXPECT_EQ(status, diverged ? 1 : 0) << s << "\n" << out;
    std::printf("%s on overlapping inputs: %s\n", s, diverged ? "diverges" : "agrees");
  }
}

// The corpus cases of real Thunder bugs (corpus/regressions/thunder-*.af,
// header `# real: STRATEGY`): the model diverges on them (regression_test)
// and so does the real Thunder, with the same first diverging value.
TEST(RealThunder, PredictedBugsReproduce) {
  REQUIRE_THUNDER();
  namespace fs = std::filesystem;
  std::string dir;
  for (const char* v : {"TEST_SRCDIR", "AF_ROOT"})
    if (const char* e = std::getenv(v)) {
      const std::string d =
          std::string(e) + (std::string(v) == "TEST_SRCDIR" ? "/aliasfuzz" : "") + "/corpus/regressions";
      if (fs::is_directory(d)) {
        dir = d;
        break;
      }
    }
  ASSERT_FALSE(dir.empty());
  int cases = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string text, err;
    if (e.path().extension() != ".af" || !read_text(e.path().string(), &text)) continue;
    const auto pos = text.find("# real: ");
    if (pos == std::string::npos) continue;
    const std::string real = text.substr(pos + 8, text.find_first_of(" \n", pos + 8) - pos - 8);
    auto c = parse_regression(text, &err);
    ASSERT_TRUE(c.has_value()) << err;
    auto model = run_spec(c->program, c->spec);
    run::RunSpec rs;
    rs.strategy = run::strategy_of(real);
    auto actual = run_spec(c->program, rs);
    ASSERT_TRUE(model && actual) << e.path();
    ASSERT_FALSE(model->agree) << e.path();
    ASSERT_FALSE(actual->agree) << e.path() << ": real " << real << " agrees";
    ASSERT_TRUE(actual->error.empty() && actual->mismatch) << e.path() << ": " << actual->error;
    ASSERT_TRUE(model->mismatch);
    EXPECT_EQ(model->mismatch->observable, actual->mismatch->observable) << e.path();
    EXPECT_EQ(model->mismatch->index, actual->mismatch->index) << e.path();
    EXPECT_FLOAT_EQ(model->mismatch->actual, actual->mismatch->actual) << e.path();
    ++cases;
  }
  EXPECT_GE(cases, 3);
}

// Issue #56: the runner and repro.py cannot disagree. Each generated
// program's verdict through the campaign's runner is the exit status of
// its repro.py run alone in a fresh process (1 diverges, 0 agrees): for a
// wrong toy compiler (both verdicts occur) under Debian's torch, and for
// aot-eager under the newest installed torch 2.x when there is one
// (bench/runner_vs_repro.sh runs hundreds, and the ledger).
TEST(ExternalCheck, RunnerAndReproAgreeOnEveryProgram) {
  REQUIRE_DEBIAN_TORCH();
  std::vector<std::pair<std::string, int>> systems = {
      {"py:oracles.testdata.toy_compiler:drop_inplace_writes@/usr/bin/python3", 12}};
  if (!compilers::newest_torch().empty())
    systems.push_back({"aot-eager@" + compilers::newest_torch(), 6});
  else
    std::printf("(no torch 2.x venv: aot-eager not compared; ./aliasfuzz setup --torch)\n");
  for (const auto& [strategy, n] : systems) {
    run::RunSpec spec;
    spec.strategy = run::strategy_of(strategy);
    const std::string py = compilers::external_python(strategy);
    ASSERT_FALSE(py.empty()) << strategy;
    int agreed = 0, diverged = 0;
    for (uint64_t k = 0; agreed + diverged < n && k < 200; ++k) {
      const ir::Program p = generate(31, k);
      const auto an = ir::analyze(p);
      if (!an) continue;
      const oracles::Observables expected = oracles::run_eager(p, *an);
      const auto recs = check_program(p, *an, expected, {spec});
      if (recs.empty() || !recs[0].unsupported.empty()) continue;
      const std::string path = tmpdir() + "/repro-vs-runner.py";
      write_atomic(path, repro_script(p, spec, recs[0], expected, nullptr));
      int status = -1;
      const std::string out = run_python(py, path, &status);
      EXPECT_EQ(status, recs[0].agree ? 0 : 1) << strategy << ", program " << k << ":\n" << ir::print(p) << out;
      (recs[0].agree ? agreed : diverged)++;
    }
    std::printf("%s: %d programs agree, %d diverge, the same through the runner and repro.py\n", strategy.c_str(),
                agreed, diverged);
    EXPECT_EQ(agreed + diverged, n) << strategy;
    if (strategy.rfind("py:", 0) == 0) {
      EXPECT_GT(agreed, 0);
      EXPECT_GT(diverged, 0);
    }
  }
}

// Issue #56: the runner and repro.py cannot disagree when the compiler's
// result depends on Python's hash seed (thunderfx 0.2.6 did): repro.py
// runs under the runner's PYTHONHASHSEED whatever the user's shell has.
// The toy is right under the runner's seed 0 and wrong under 4.
TEST(ExternalCheck, ReproRunsUnderTheRunnersHashSeed) {
  REQUIRE_DEBIAN_TORCH();
  ASSERT_EQ(oracles::python_hash_seed(), "0") << "the test runs without PYTHONHASHSEED in its environment";
  const std::string strategy = "py:oracles.testdata.toy_compiler:wrong_under_odd_string_hash@/usr/bin/python3";
  run::RunSpec spec;
  spec.strategy = run::strategy_of(strategy);
  const auto p = ir::parse_and_validate(
      "aliasfuzz 1\nstorage s f32[4] = iota(1, 1)\ninput x0 = s\nadd_(x0, 1.0)\nt0 = mul(x0, 2.0)\nreturn t0\n");
  ASSERT_TRUE(p);
  const auto an = ir::analyze(*p);
  const oracles::Observables expected = oracles::run_eager(*p, *an);
  const auto recs = check_program(*p, *an, expected, {spec});
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_TRUE(recs[0].agree);
  const std::string path = tmpdir() + "/repro-hash-seed.py";
  write_atomic(path, repro_script(*p, spec, recs[0], expected, nullptr));
  for (const char* user : {"4", "random", "0"}) {
    int status = -1;
    const std::string out = run_python("env PYTHONHASHSEED=" + std::string(user) + " /usr/bin/python3", path, &status);
    EXPECT_EQ(status, 0) << "the user's PYTHONHASHSEED=" << user << ":\n" << out;
  }
}

// Issue #56: a verdict is a function of its program. The observables a
// compiler gives a program after 30 others in the same runner process
// are those of a new process that runs it first (private cache folder,
// caches off, Dynamo reset per program).
TEST(ExternalCheck, AVerdictDoesNotDependOnTheProgramsBefore) {
  REQUIRE_DEBIAN_TORCH();
  std::vector<std::string> systems = {"torch-functionalize"};
  if (!compilers::newest_torch().empty())
    systems.push_back("aot-eager@" + compilers::newest_torch());
  else
    std::printf("(no torch 2.x venv: aot-eager not compared; ./aliasfuzz setup --torch)\n");
  for (const std::string& strategy : systems) {
    std::vector<ir::Program> programs;
    for (uint64_t k = 0; programs.size() < 31 && k < 300; ++k)
      if (ir::Program p = generate(77, k); ir::analyze(p)) programs.push_back(std::move(p));
    for (size_t i = 1; i < programs.size(); ++i) compilers::run_external(programs[i], strategy);
    for (size_t i = 0; i < 3; ++i) {  // the first, and two the process saw before
      const compilers::ExternalResult after = compilers::run_external(programs[i], strategy);
      const compilers::ExternalResult fresh = compilers::run_external_fresh(programs[i], strategy);
      ASSERT_EQ(after.status, fresh.status) << strategy << " " << i << ": " << after.message << " | " << fresh.message;
      EXPECT_EQ(after.error_type, fresh.error_type) << strategy << " " << i;
      if (after.status == compilers::ExternalResult::Status::Ok) {
        EXPECT_FALSE(oracles::compare(programs[i], fresh.actual, after.actual))
            << strategy << ", program " << i << ":\n"
            << ir::print(programs[i]);
      }
    }
  }
}

}  // namespace
}  // namespace af::fuzz
