// Target opencl: the GPU schedules of cuda on Halide's OpenCL target, run by
// pocl on the CPU (tools/setup.sh installs it). Nothing here skips: a
// machine without OpenCL fails these tests.
#include <gtest/gtest.h>
#include <unistd.h>

#include "check/check.h"
#include "generate/generator.h"
#include "ir/text.h"
#include "lowering/lowering.h"
#include "lowering/test_util.h"
#include "oracles/eager.h"
#include "schedulers/schedulers.h"

namespace af::lowering {
namespace {

// #12 item 8: every region these tests run on opencl also goes through
// ptxas (the cuda code generator on the same GPU schedule), where ptxas is
// installed (tools/setup.sh does not install CUDA; the ptx tests say so).
int g_ptx_regions = 0;  // distinct regions assembled by ptxas in this process
double g_ptx_ms = 0;

bool have_ptxas() {
  static const bool have = access(LowerOptions().ptxas.c_str(), X_OK) == 0;
  return have;
}

LowerResult run_cl(const schedulers::Schedule& s, bool checked, CompileCache& cache, const Expected* e = nullptr) {
  LowerOptions o;
  o.target = Target::OpenCL;
  o.checked = checked;
  o.ptx_check = have_ptxas();
  LowerResult r = run_schedule(s, o, e, cache);
  for (const auto& f : r.ptx_findings)
    ADD_FAILURE() << "region " << f.region << ": " << f.message << "\n" << schedulers::schedule_text(s);
  g_ptx_regions += r.stats.ptx_compiled;
  g_ptx_ms += r.stats.ptx_ms;
  return r;
}

// Runs the schedule on opencl and expects agreement with the oracle (and,
// checked, no alarm), and ptxas to accept its regions.
void expect_agree(const schedulers::Schedule& s, const ir::Program& p, const oracles::Observables& expected,
                  bool checked, CompileCache& cache, const std::string& name) {
  LowerResult r = run_cl(s, checked, cache);
  ASSERT_TRUE(r.ok) << name << ": " << r.error << "\n" << schedulers::schedule_text(s);
  auto mm = oracles::compare(p, expected, r.obs);
  EXPECT_FALSE(mm) << name << ": " << (mm ? mm->observable + "[" + std::to_string(mm->index) + "]" : "") << "\n"
                   << schedulers::schedule_text(s);
  if (checked) EXPECT_FALSE(r.first_failure) << name << ": stmt " << r.first_failure->stmt;
}

TEST(OpenClTarget, Available) {
  std::string why;
  ASSERT_TRUE(opencl_available(&why)) << why;
}

TEST(OpenClTarget, CorpusAndEdgeCasesAgreeWithOracle) {
  CompileCache cache;
  const auto all = testing::lowerable_corpus_cases();
  ASSERT_GE(all.size(), 5u) << "corpus not found in runfiles";
  // pocl builds every distinct region (about 1 s each): a sixth of the
  // corpus by default (host_test runs all of it through the same lowering).
  const auto cases = testing::sampled(all, 6, "opencl corpus");
  for (const auto& c : cases) {
    const auto expected = *oracles::run_eager(c.program);
    for (int k : {1, 0}) expect_agree(program_order_schedule(c.program, k), c.program, expected, k == 0, cache, c.path);
  }
  int e = 0;
  for (const auto& p : testing::edge_cases())
    expect_agree(program_order_schedule(p, 0), p, *oracles::run_eager(p), true, cache,
                 "edge case " + std::to_string(e++));
  std::printf("opencl corpus: %zu programs, cache hits %lld misses %lld\n", cases.size(),
              static_cast<long long>(cache.hits()), static_cast<long long>(cache.misses()));
}

// 300 generated programs of 6 statements under the must-agree strategies
// and both fused fusion policies (the regions the strategies really make),
// against the oracle. Each program runs under one (strategy, fusion,
// reorder) of the rotation, so every combination sees 37 or 38 programs:
// every distinct region costs a JIT compile plus pocl's kernel build (about
// 1 s of CPU with an empty pocl cache), and all combinations for 300
// programs of 12 statements (1,400 distinct regions) would take 25 min.
void strategies_agree(int from, int to) {
  to = from + testing::budget(to - from, 25);  // 50 of the 300 by default
  CompileCache cache;
  const auto& strategies = run::must_agree_strategy_names();
  const char* const fusions[] = {"greedy", "dataflow"};
  fuzz::GenOptions small;
  small.size = 6;
  for (int i = from; i < to; ++i) {
    ir::Program p = fuzz::generate(20261130, i, fuzz::halide_options(small));
    auto an = ir::analyze(p);
    ASSERT_TRUE(an.ok());
    const auto expected = oracles::run_eager(p, *an);
    run::SpelledSpec so;
    so.strategy = strategies[i % strategies.size()];
    so.fusion = fusions[(i / strategies.size()) % 2];
    so.reorder = (i / (2 * strategies.size())) % 2 ? "random:" + std::to_string(i) : "program";
    auto sched = schedulers::make_schedule(p, *an, so);
    ASSERT_TRUE(sched.ok()) << so.strategy << ": " << sched.error().to_string();
    expect_agree(*sched, p, expected, false, cache,
                 "program " + std::to_string(i) + " " + so.strategy + " " + so.reorder + " " + so.fusion);
    if (::testing::Test::HasFailure()) break;
  }
  std::printf("opencl strategies: programs %d..%d, cache hits %lld misses %lld compile %.0f ms\n", from, to - 1,
              static_cast<long long>(cache.hits()), static_cast<long long>(cache.misses()), cache.compile_ms());
  if (have_ptxas())
    std::printf("ptx check: %d distinct regions assembled by ptxas so far (%.0f ms)\n", g_ptx_regions, g_ptx_ms);
  else
    std::printf("ptx check skipped: no ptxas at %s\n", LowerOptions().ptxas.c_str());
}
// Two halves, so that the test's two shards share the work.
TEST(OpenClTarget, GeneratedProgramsUnderStrategiesAgreeWithOracle0) { strategies_agree(0, 150); }
TEST(OpenClTarget, GeneratedProgramsUnderStrategiesAgreeWithOracle1) { strategies_agree(150, 300); }

// Storages stay on the device: the same program as one region and as one
// region per statement makes the same host<->device copies, and the OpenCL
// driver sees exactly the copies the lowering makes (none behind its back).
TEST(OpenClTarget, TransfersDoNotGrowWithRegions) {
  CompileCache cache;
  int checked_programs = 0;
  fuzz::GenOptions small;  // whole-program checked regions of 12 statements compile for seconds
  small.size = 6;
  for (int i = 0; i < 5; ++i) {
    ir::Program p = fuzz::generate(4711, i, fuzz::halide_options(small));
    for (bool checked : {false, true}) {
      LowerResult whole = run_cl(program_order_schedule(p, 0), checked, cache);
      LowerResult each = run_cl(program_order_schedule(p, 1), checked, cache);
      ASSERT_TRUE(whole.ok && each.ok) << whole.error << each.error;
      EXPECT_EQ(whole.stats.uploads, each.stats.uploads) << "program " << i << " checked " << checked;
      EXPECT_EQ(whole.stats.downloads, each.stats.downloads) << "program " << i << " checked " << checked;
      for (const LowerResult* r : {&whole, &each}) {
        EXPECT_EQ(r->stats.cl_writes, r->stats.uploads) << "program " << i;
        EXPECT_EQ(r->stats.cl_reads, r->stats.downloads) << "program " << i;
        // At most: every storage up and back, plus expected values and status.
        EXPECT_LE(r->stats.uploads, static_cast<int>(p.storages.size()) + 2 + 64);
      }
      if (checked && each.stats.pipelines_run > 1) {
        ++checked_programs;
        EXPECT_GT(each.stats.pipelines_run, whole.stats.pipelines_run);
      }
    }
  }
  EXPECT_GE(checked_programs, 3);
}

// Checked mode on the device: every region runs after a failure (the count
// covers all of them), and one read at the end names the first one.
TEST(OpenClTarget, CheckedStatusSurvivesFailures) {
  ir::Program p = fuzz::generate(99, 3, fuzz::halide_options());
  Expected e = testing::expected_of(p);
  const std::vector<int> producing = testing::checked_stmts(e);
  ASSERT_GE(producing.size(), 3u);
  const int first = producing[1], later = producing.back();
  e.by_stmt[first]->v[0] += 100.f;
  e.by_stmt[later]->v.back() += 100.f;
  CompileCache cache;
  for (int k : {1, 0}) {
    LowerResult r = run_cl(program_order_schedule(p, k), true, cache, &e);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_TRUE(r.first_failure) << "per_region=" << k;
    EXPECT_EQ(r.first_failure->stmt, first) << "per_region=" << k;
    EXPECT_EQ(r.first_failure->first_index, 0);
    EXPECT_EQ(r.first_failure->count, 2) << "both failures counted, per_region=" << k;
    EXPECT_EQ(r.stats.cl_reads, r.stats.downloads);
  }
}

// Runs a schedule on opencl in checked mode; true when the run diverges
// from the oracle or raises an alarm.
bool detected_checked(const schedulers::Schedule& s, const ir::Program& p, const oracles::Observables& expected,
                      CompileCache& cache) {
  auto an_s = ir::analyze(s.program);
  EXPECT_TRUE(an_s.ok());
  const Expected by_stmt = expected_values(s.program, *an_s);
  LowerResult r = run_cl(s, true, cache, &by_stmt);
  EXPECT_TRUE(r.ok) << r.error;
  return r.first_failure || oracles::compare(p, expected, r.obs);
}

// Every mutant of the bug zoo is detected on opencl in checked mode (a
// divergence from the oracle or an alarm). The interpreter tier finds a
// schedule on which the mutant diverges (cheap); that schedule must then
// diverge on the device too. lower-halide-alias exists only in the
// lowering: x.add_(x.t() + 1) as one region (checked_test.cc).
TEST(OpenClTarget, MutantsDetectedChecked) {
  CompileCache cache;
  for (const auto& row : run::mutant_table()) {
    const std::string mutant = row.name;
    if (row.needs_halide_target) {
      ir::Program p = *ir::parse_and_validate(
          "aliasfuzz 1\nstorage s0 f32[16] = iota(0, 1)\ninput x = as_strided(s0, [4, 4], [4, 1], 0)\n"
          "y = t(x)\nw = add(y, 1.0)\nadd_(x, w)\nreturn x\n");
      auto s = program_order_schedule(p, 0);
      s.mutant = row.mutant;
      EXPECT_TRUE(detected_checked(s, p, *oracles::run_eager(p), cache)) << mutant;
      continue;
    }
    int found = -1;
    for (int i = 0; i < 200 && found < 0; ++i) {
      ir::Program p = fuzz::generate(1, i, fuzz::halide_options());
      auto an = ir::analyze(p);
      ASSERT_TRUE(an.ok());
      const auto expected = oracles::run_eager(p, *an);
      for (const char* fusion : {"greedy", "dataflow"}) {
        run::SpelledSpec so{row.default_strategy, mutant, "random:" + std::to_string(i), fusion};
        if (schedulers::run_and_compare(p, *an, expected, so).agree) continue;
        auto sched = schedulers::make_schedule(p, *an, so);
        ASSERT_TRUE(sched.ok()) << mutant << ": " << sched.error().to_string();
        EXPECT_TRUE(detected_checked(*sched, p, expected, cache))
            << mutant << " diverges on the interpreter tier, not on opencl: program " << i << "\n"
            << schedulers::schedule_text(*sched);
        found = i;
        break;
      }
    }
    std::printf("opencl --checked: %s detected on program %d\n", mutant.c_str(), found);
    EXPECT_GE(found, 0) << mutant;
  }
}

// A tensor whose grid would need more than 65,535 blocks along a dimension
// without folding: right values, and no launch exceeds the limit.
TEST(OpenClTarget, LargeShapesFoldTheGrid) {
  ir::Program p = *ir::parse_and_validate(
      "aliasfuzz 1\nstorage s0 f32[2400000] = iota(0, 1)\ninput x = as_strided(s0, [2, 1200000], [1200000, 1], 0)\n"
      "y = mul(x, 2.0)\nadd_(x, y)\nz = sum(x, 1, 0)\nreturn y, z\n");
  const auto expected = *oracles::run_eager(p);
  CompileCache cache;
  for (bool checked : {false, true}) {
    LowerResult r = run_cl(program_order_schedule(p, 0), checked, cache);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_FALSE(oracles::compare(p, expected, r.obs));
    EXPECT_FALSE(r.first_failure);
    EXPECT_GT(r.stats.cl_launches, 0);
    EXPECT_LE(r.stats.max_grid, 65535);
    EXPECT_GT(r.stats.max_grid, 1000);
    std::printf("large shape: %d launches, at most %lld work-groups along a dimension\n", r.stats.cl_launches,
                static_cast<long long>(r.stats.max_grid));
  }
}

}  // namespace
}  // namespace af::lowering
