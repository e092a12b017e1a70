// Target cuda: JIT and run on an NVIDIA GPU. Without one every test prints
// "skipped: no GPU" and is counted as skipped (GTEST_SKIP).
#include <gtest/gtest.h>

#include "generate/generator.h"
#include "ir/text.h"
#include "lowering/lowering.h"
#include "lowering/test_util.h"
#include "oracles/eager.h"

namespace af::lowering {
namespace {

#define SKIP_WITHOUT_GPU()                                \
  do {                                                    \
    std::string why;                                      \
    if (!cuda_available(&why)) {                          \
      std::printf("skipped: no GPU (%s)\n", why.c_str()); \
      GTEST_SKIP() << "skipped: no GPU (" << why << ")";  \
    }                                                     \
  } while (0)

TEST(CudaTarget, ClearErrorWithoutGpu) {
  std::string why;
  if (cuda_available(&why)) GTEST_SKIP() << "a GPU is present";
  auto p = ir::parse_and_validate("aliasfuzz 1\nstorage s0 f32[4] = iota(0, 1)\ninput x = s0\nadd_(x, 1.0)\n");
  ASSERT_TRUE(p.ok());
  CompileCache cache;
  LowerOptions o;
  o.target = Target::Cuda;
  LowerResult r = run_schedule(program_order_schedule(*p, 1), o, nullptr, cache);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("target cuda"), std::string::npos) << r.error;
}

void run_cuda(const ir::Program& p, int per_region, bool checked, CompileCache& cache, const std::string& name) {
  auto expected = oracles::run_eager(p);
  ASSERT_TRUE(expected.ok());
  LowerOptions o;
  o.target = Target::Cuda;
  o.checked = checked;
  LowerResult r = run_schedule(program_order_schedule(p, per_region), o, nullptr, cache);
  ASSERT_TRUE(r.ok) << name << ": " << r.error << "\n" << ir::print(p);
  auto mm = oracles::compare(p, *expected, r.obs);
  EXPECT_FALSE(mm) << name << " per_region=" << per_region << ": "
                   << (mm ? mm->observable + "[" + std::to_string(mm->index) + "]" : "") << "\n"
                   << ir::print(p);
  if (checked) EXPECT_FALSE(r.first_failure) << name << ": stmt " << r.first_failure->stmt;
}

TEST(CudaTarget, CorpusAndGeneratedAgreeWithOracle) {
  SKIP_WITHOUT_GPU();
  CompileCache cache;
  for (const auto& c : testing::lowerable_corpus_cases())
    for (int k : {1, 0}) run_cuda(c.program, k, false, cache, c.path);
  for (const auto& p : testing::edge_cases()) run_cuda(p, 0, true, cache, "edge case");
  for (int i = 0; i < 100; ++i) {
    run_cuda(fuzz::generate(20261129, i, fuzz::halide_options()), 1, false, cache, "generated " + std::to_string(i));
    if (i % 4 == 0)
      run_cuda(fuzz::generate(20261129, i, fuzz::halide_options()), 0, false, cache, "generated " + std::to_string(i));
  }
}

TEST(CudaTarget, CheckedModeOnDevice) {
  SKIP_WITHOUT_GPU();
  CompileCache cache;
  for (int i = 0; i < 30; ++i)
    run_cuda(fuzz::generate(777, i, fuzz::halide_options()), 0, true, cache, "generated " + std::to_string(i));
  // A corrupted expected value is reported through the device status buffer.
  ir::Program p = fuzz::generate(99, 3, fuzz::halide_options());
  auto an = ir::analyze(p);
  ASSERT_TRUE(an.ok());
  Expected e = expected_values(p, *an);
  const std::vector<int> checked = testing::checked_stmts(e);
  ASSERT_FALSE(checked.empty());
  const int victim = checked.back();
  e.by_stmt[victim]->v[0] += 100.f;
  LowerOptions o;
  o.target = Target::Cuda;
  o.checked = true;
  LowerResult r = run_schedule(program_order_schedule(p, 0), o, &e, cache);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_TRUE(r.first_failure);
  EXPECT_EQ(r.first_failure->stmt, victim);
  EXPECT_EQ(r.first_failure->first_index, 0);
}

}  // namespace
}  // namespace af::lowering
