// Generated programs under real PyTorch eager (through the bridge in
// oracles/): PyTorch runs every one without an error and gives the oracle's
// values. Uses larger options than the bridge's own agreement test (more
// statements, rank 4, bigger storages) to reach rarer geometry. Skipped
// when /usr/bin/python3 has no PyTorch.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "generate/generator.h"
#include "ir/analysis.h"
#include "ir/text.h"
#include "oracles/eager.h"
#include "oracles/torch_bridge.h"

namespace af::fuzz {
namespace {

TEST(GeneratorTorch, PyTorchRunsGeneratedProgramsAndAgrees) {
  oracles::TorchRunner runner;
  std::string why;
  if (!runner.start(&why)) GTEST_SKIP() << "no PyTorch: " << why;
  int n = 600;
  if (const char* e = std::getenv("AF_GEN_TORCH_N")) n = std::atoi(e);
  struct Config {
    int size, rank;
    int64_t numel;
  };
  const Config configs[] = {{12, 3, 64}, {30, 4, 128}, {50, 2, 16}};
  int failures = 0, compared = 0;
  for (const Config& c : configs) {
    GenOptions o;
    o.size = c.size;
    o.max_rank = c.rank;
    o.max_numel = c.numel;
    for (int k = 0; k < n / 3; ++k) {
      const ir::Program p = generate(777, k, o);
      auto an = ir::analyze(p);
      ASSERT_TRUE(an.ok()) << an.error().to_string();
      const oracles::Observables expected = oracles::run_eager(p, *an);
      const oracles::TorchResult t = runner.run(p);
      ++compared;
      std::string what;
      if (!t.ok) {
        what = "PyTorch refused it: " + t.kind + " (line " + std::to_string(t.line) + "): " + t.message;
      } else if (auto m = oracles::compare(p, expected, t.obs)) {
        what = "values differ at " + m->observable + "[" + std::to_string(m->index) + "]: oracle " +
               std::to_string(m->expected) + ", PyTorch " + std::to_string(m->actual) + " " + m->what;
      }
      if (!what.empty() && ++failures <= 5)
        ADD_FAILURE() << "size " << c.size << " rank " << c.rank << " numel " << c.numel << " program " << k << ": "
                      << what << "\n"
                      << ir::print(p);
    }
  }
  std::printf("%d generated programs run through PyTorch %s, %d disagree\n", compared, runner.torch_version().c_str(),
              failures);
  EXPECT_EQ(failures, 0);
}

// --invalid-rate (generate/invalid.h): PyTorch 1.13 rejects every program
// made invalid, with the oracle's kind and at the oracle's line, so that
// a compiler which runs one accepts what eager refuses.
TEST(GeneratorTorch, PyTorchRejectsInvalidProgramsAlike) {
  oracles::TorchRunner runner;
  std::string why;
  if (!runner.start(&why)) GTEST_SKIP() << "no PyTorch: " << why;
  GenOptions o;
  o.invalid_rate = 1;
  int failures = 0, compared = 0;
  for (uint64_t k = 0; k < 200; ++k) {
    const ir::Program p = generate(4242, k, o);
    auto an = ir::analyze(p);
    if (an) continue;
    ++compared;
    const oracles::TorchResult t = runner.run(p);
    std::string what;
    if (t.ok)
      what = "PyTorch ran it";
    else if (t.kind != ir::kind_name(an.error().kind))
      what = "PyTorch: " + t.kind + ": " + t.message;
    else if (t.line != an.error().line)
      what = "PyTorch raised at line " + std::to_string(t.line);
    if (!what.empty() && ++failures <= 5)
      ADD_FAILURE() << "program " << k << ": oracle " << an.error().to_string() << "; " << what << "\n" << ir::print(p);
  }
  std::printf("%d invalid programs run through PyTorch %s, %d disagree\n", compared, runner.torch_version().c_str(),
              failures);
  EXPECT_GE(compared, 190);
  EXPECT_EQ(failures, 0);
}

}  // namespace
}  // namespace af::fuzz
