// Oracle speed against PyTorch eager on the same generated programs, in one
// run: the eager oracle (ir::analyze + oracles::run_eager) against PyTorch
// 1.13 eager through the bridge in one long-lived /usr/bin/python3 process
// (oracles/torch_runner.py, 1 intra-op thread). PyTorch is timed two ways:
// the program itself inside Python (storages and statements, perf_counter
// around _program(); no script compilation, no observable conversion), and
// end to end from C++ (script emission, IPC, compile, run, observables,
// JSON). Also counts agreement, as a sanity check.
//   bazel run //bench:oracle_vs_torch -- [PROGRAMS] [SIZE] [SEED]
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "generate/generator.h"
#include "ir/analysis.h"
#include "oracles/eager.h"
#include "oracles/torch_bridge.h"

namespace {

double now() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 2000;
  af::fuzz::GenOptions o;
  if (argc > 2) o.size = std::atoi(argv[2]);
  const uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 42;

  std::vector<af::ir::Program> ps;
  long stmts = 0;
  for (long k = 0; k < n; ++k) {
    ps.push_back(af::fuzz::generate(seed, k, o));
    stmts += static_cast<long>(ps.back().stmts.size());
  }
  std::printf("programs: %ld from seed %llu, size %d (%.1f statements on average)\n", n,
              static_cast<unsigned long long>(seed), o.size, static_cast<double>(stmts) / n);

  // The oracle: repeat the whole set until at least 1 s has passed.
  std::vector<af::oracles::Observables> expected(ps.size());
  long reps = 0;
  double t0 = now(), oracle_s = 0;
  do {
    for (size_t k = 0; k < ps.size(); ++k) {
      auto r = af::oracles::run_eager(ps[k]);
      if (r) expected[k] = std::move(*r);
    }
    ++reps;
    oracle_s = now() - t0;
  } while (oracle_s < 1.0);
  const double oracle_per_prog = oracle_s / (reps * static_cast<double>(n));

  // PyTorch eager through the bridge.
  af::oracles::TorchRunner runner;
  std::string err;
  t0 = now();
  if (!runner.start(&err)) {
    std::fprintf(stderr, "oracle_vs_torch: %s\n", err.c_str());
    return 2;
  }
  const double startup_s = now() - t0;
  double exec_s = 0;
  long agree = 0, failed = 0;
  t0 = now();
  for (size_t k = 0; k < ps.size(); ++k) {
    af::oracles::TorchResult t = runner.run(ps[k]);
    exec_s += t.exec_seconds;
    if (!t.ok) {
      ++failed;
      continue;
    }
    if (!af::oracles::compare(ps[k], expected[k], t.obs)) ++agree;
  }
  const double e2e_s = now() - t0;

  const double oracle_pps = 1.0 / oracle_per_prog;
  const double torch_exec_pps = n / exec_s;
  const double torch_e2e_pps = n / e2e_s;
  std::printf("oracle (analyze + run_eager):       %10.0f programs/s  (%.2f us/program, %ld reps)\n", oracle_pps,
              1e6 * oracle_per_prog, reps);
  std::printf("PyTorch %s eager, program only:   %10.0f programs/s  (%.1f us/program)\n",
              runner.torch_version().c_str(), torch_exec_pps, 1e6 * exec_s / n);
  std::printf(
      "PyTorch eager, end to end:          %10.0f programs/s  (%.1f us/program; process start %.2f s, not counted)\n",
      torch_e2e_pps, 1e6 * e2e_s / n, startup_s);
  std::printf("ratio oracle / PyTorch: %.1fx (program only), %.1fx (end to end)\n", oracle_pps / torch_exec_pps,
              oracle_pps / torch_e2e_pps);
  std::printf("agreement: %ld of %ld programs agree, %ld failed in PyTorch\n", agree, n, failed);
  return agree == n ? 0 : 1;
}
