// Target ptx: every region is compiled for CUDA by Halide and its PTX must
// be accepted by `ptxas -arch=sm_90` (no GPU needed). Execution falls back
// to the host, so the results must still agree with the oracle.
#include <gtest/gtest.h>
#include <unistd.h>

#include "fuzz/generator.h"
#include "ir/text.h"
#include "lowering/lowering.h"
#include "lowering/test_util.h"
#include "oracles/eager.h"

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
  for (const auto& c : testing::corpus_cases())
    for (int k : {1, 0}) run_ptx(c.program, k, k == 0, cache, c.path, &total);
  // A sample of generated programs (PTX codegen + ptxas cost about 0.1-0.3 s
  // per distinct region structure): one region per statement for 60
  // programs, whole-program regions (checked, with atomics) for 20.
  for (int i = 0; i < 60; ++i) {
    run_ptx(fuzz::generate(4242, i), 1, false, cache, "generated " + std::to_string(i), &total);
    if (i < 20) run_ptx(fuzz::generate(4242, i), 0, true, cache, "generated " + std::to_string(i), &total);
    if (::testing::Test::HasFailure()) break;
  }
  std::printf("ptx: %d distinct regions compiled and assembled, %.0f ms, %lld bytes of PTX\n", total.ptx_compiled,
              total.ptx_ms, static_cast<long long>(total.ptx_bytes));
  EXPECT_GT(total.ptx_compiled, 20);
}

}  // namespace
}  // namespace af::lowering
