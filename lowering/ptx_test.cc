// Target ptx: every region is compiled for CUDA by Halide and its PTX must
// be accepted by `ptxas -arch=sm_90` (no GPU needed). Execution falls back
// to the host, so the results must still agree with the oracle.
#include <gtest/gtest.h>
#include <unistd.h>

#include "generate/generator.h"
#include "ir/text.h"
#include "lowering/lowering.h"
#include "lowering/test_util.h"
#include "oracles/eager.h"
#include "schedulers/schedulers.h"

namespace af::lowering {
namespace {

constexpr const char* kPtxas = "/usr/local/cuda/bin/ptxas";

void run_ptx(const ir::Program& p, int per_region, bool checked, CompileCache& cache, const std::string& name,
             LowerStats* total) {
  auto expected = oracles::run_eager(p);
  ASSERT_TRUE(expected.ok());
  LowerOptions o;
  o.target = Target::Ptx;
  o.checked = checked;
  LowerResult r = run_schedule(program_order_schedule(p, per_region), o, nullptr, cache);
  ASSERT_TRUE(r.ok) << name << ": " << r.error << "\n" << ir::print(p);
  for (const auto& f : r.ptx_findings) ADD_FAILURE() << name << " region " << f.region << ": " << f.message;
  EXPECT_FALSE(oracles::compare(p, *expected, r.obs)) << name;
  if (checked) EXPECT_FALSE(r.first_failure) << name;
  total->ptx_compiled += r.stats.ptx_compiled;
  total->ptx_ms += r.stats.ptx_ms;
  total->ptx_bytes += r.stats.ptx_bytes;
}

TEST(PtxTarget, CorpusAndGeneratedRegionsAssemble) {
  if (access(kPtxas, X_OK) != 0) GTEST_SKIP() << "skipped: no ptxas at " << kPtxas;
  CompileCache cache;
  LowerStats total;
  // PTX codegen and ptxas per distinct region: a tenth of the corpus by
  // default (AF_TEST_FULL=1: all). opencl_test assembles the PTX of every
  // region it runs as well (its quarter of the corpus, its 80 generated
  // programs under every strategy), so this sample is from offset 1, which
  // opencl_test's offset 0 with stride 4 does not pick.
  for (const auto& c : testing::sampled(testing::lowerable_corpus_cases(), 10, "ptx corpus", 1))
    for (int k : {1, 0}) run_ptx(c.program, k, k == 0, cache, c.path, &total);
  int e = 0;
  for (const auto& p : testing::edge_cases()) run_ptx(p, 0, true, cache, "edge case " + std::to_string(e++), &total);
  // A sample of generated programs (PTX codegen + ptxas cost about 0.1-0.3 s
  // per distinct region structure): one region per statement for 40
  // programs, whole-program regions (checked, with atomics) for half of
  // them; 10 by default (AF_TEST_FULL=1: 40).
  const int n = testing::budget(40, 10);
  std::printf("ptx: %d generated programs (AF_TEST_FULL=1 runs 40)\n", n);
  for (int i = 0; i < n; ++i) {
    run_ptx(fuzz::generate(4242, i, fuzz::halide_options()), 1, false, cache, "generated " + std::to_string(i), &total);
    if (i < n / 2)
      run_ptx(fuzz::generate(4242, i, fuzz::halide_options()), 0, true, cache, "generated " + std::to_string(i),
              &total);
    if (::testing::Test::HasFailure()) break;
  }
  std::printf("ptx: %d distinct regions compiled and assembled, %.0f ms, %lld bytes of PTX\n", total.ptx_compiled,
              total.ptx_ms, static_cast<long long>(total.ptx_bytes));
  EXPECT_GT(total.ptx_compiled, 20);
}

// Fused regions of the real strategies (scatter ops of functionalize, the
// regions update_aliases-min leaves), checked: PTX with atomics.
TEST(PtxTarget, StrategyRegionsAssemble) {
  if (access(kPtxas, X_OK) != 0) GTEST_SKIP() << "skipped: no ptxas at " << kPtxas;
  CompileCache cache;
  int compiled = 0;
  const int n = testing::budget(6, 2);
  std::printf("ptx: %d generated programs under each strategy (AF_TEST_FULL=1 runs 6)\n", n);
  for (int i = 0; i < n; ++i) {
    ir::Program p = fuzz::generate(4343, i, fuzz::halide_options());
    auto an = ir::analyze(p);
    ASSERT_TRUE(an.ok());
    const auto expected = oracles::run_eager(p, *an);
    for (const char* strategy : {"functionalize", "update_aliases-min"}) {
      run::SpelledSpec so;
      so.strategy = strategy;
      so.fusion = "greedy";
      auto sched = schedulers::make_schedule(p, *an, so);
      ASSERT_TRUE(sched.ok());
      LowerOptions o;
      o.target = Target::Ptx;
      o.checked = true;
      LowerResult r = run_schedule(*sched, o, nullptr, cache);
      ASSERT_TRUE(r.ok) << strategy << ": " << r.error;
      for (const auto& f : r.ptx_findings) ADD_FAILURE() << strategy << " region " << f.region << ": " << f.message;
      EXPECT_FALSE(oracles::compare(p, expected, r.obs)) << strategy;
      EXPECT_FALSE(r.first_failure) << strategy;
      compiled += r.stats.ptx_compiled;
    }
  }
  std::printf("ptx: %d distinct strategy regions assembled\n", compiled);
}

// A tensor whose grid would exceed 65,535 blocks along a dimension without
// folding: its regions assemble and the results agree (run on the host).
TEST(PtxTarget, LargeShapeAssembles) {
  if (access(kPtxas, X_OK) != 0) {
    std::printf("skipped: no ptxas at %s\n", kPtxas);
    GTEST_SKIP() << "skipped: no ptxas at " << kPtxas;
  }
  ir::Program p = *ir::parse_and_validate(
      "aliasfuzz 1\nstorage s0 f32[2400000] = iota(0, 1)\ninput x = as_strided(s0, [2, 1200000], [1200000, 1], 0)\n"
      "y = mul(x, 2.0)\nadd_(x, y)\nz = sum(x, 1, 0)\nreturn y, z\n");
  CompileCache cache;
  LowerStats total;
  for (int k : {1, 0}) run_ptx(p, k, k == 0, cache, "large shape", &total);
  EXPECT_GT(total.ptx_compiled, 0);
}

}  // namespace
}  // namespace af::lowering
