// Scheduler benchmarks (interpreter tier), single-threaded = per core:
//  1. differential throughput: generate + oracle + (schedule + execute +
//     compare) for the four must-agree strategies, programs/s;
//  2. strategy comparison on 1,000 generated programs under the `fusion`
//     reorder and `greedy` fusion policies: mean regions, fusion breaks,
//     nodes added, extra storages and bytes moved per program.
//   bazel run -c opt //bench:sched_bench -- [PROGRAMS] [SIZE] [COMPARED]
// (COMPARED programs for part 2, default 1000; 0 skips it, e.g. to profile
// part 1 alone under callgrind.)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "generate/generator.h"
#include "ir/analysis.h"
#include "oracles/eager.h"
#include "schedulers/schedulers.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace af;
  const long n = argc > 1 ? std::atol(argv[1]) : 20000;
  fuzz::GenOptions go;
  if (argc > 2) go.size = std::atoi(argv[2]);
  const uint64_t seed = 42;
  const auto& strategies = run::must_agree_strategy_names();
  const auto& fusions = run::fusion_policy_names();

  // 1. Throughput.
  long disagreements = 0, runs = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (long k = 0; k < n; ++k) {
    fuzz::Generated g = fuzz::generate_analyzed(seed, k, go);
    const ir::Program& p = g.program;
    const auto& an = g.analysis;
    if (!an) continue;
    oracles::Observables expected = oracles::run_eager(p, *an);
    for (const auto& s : strategies) {
      run::SpelledSpec o{s, "", "random:" + std::to_string(k), fusions[k % fusions.size()]};
      auto r = schedulers::run_and_compare(p, *an, expected, o);
      ++runs;
      disagreements += !r.agree;
    }
  }
  const double secs = seconds_since(t0);
  std::printf("interpreter-tier differential throughput (1 core): %ld programs (size %d), %ld schedule runs\n", n,
              go.size, runs);
  std::printf("  %.0f programs/s per core (%.1f us/program, 4 strategies each), disagreements: %ld\n", n / secs,
              1e6 * secs / n, disagreements);

  // 2. Strategy comparison.
  const long m = argc > 3 ? std::atol(argv[3]) : 1000;
  if (m <= 0) return disagreements == 0 ? 0 : 1;
  std::vector<std::string> compared{
      "update_aliases", "update_aliases-ordered", "update_aliases-min", "functionalize", "eager", "none"};
  std::printf(
      "\nstrategy comparison: %ld programs (seed %llu, size %d), reorder fusion, fusion greedy (means per program)\n",
      m, static_cast<unsigned long long>(seed), go.size);
  std::printf("  %-24s %8s %14s %12s %14s %12s\n", "strategy", "regions", "fusion_breaks", "nodes_added",
              "extra_storages", "bytes_moved");
  std::vector<ir::Program> ps;
  std::vector<ir::Analysis> ans;
  for (long k = 0; k < m; ++k) {
    ps.push_back(fuzz::generate(seed, k, go));
    ans.push_back(*ir::analyze(ps.back()));
  }
  double stmts = 0;
  for (const auto& p : ps) stmts += p.stmts.size();
  for (const auto& s : compared) {
    double regions = 0, breaks = 0, added = 0, extra = 0, bytes = 0;
    for (long k = 0; k < m; ++k) {
      auto sc = schedulers::make_schedule(ps[k], ans[k], run::SpelledSpec{s, "", "fusion", "greedy"});
      if (!sc) continue;
      regions += sc->counters.regions;
      breaks += sc->counters.fusion_breaks;
      added += sc->counters.nodes_added;
      extra += sc->counters.extra_storages;
      bytes += sc->counters.bytes_moved;
    }
    std::printf("  %-24s %8.2f %14.2f %12.2f %14.2f %12.0f\n", s.c_str(), regions / m, breaks / m, added / m, extra / m,
                bytes / m);
  }
  std::printf("  (source programs: %.2f statements on average)\n", stmts / m);
  return disagreements == 0 ? 0 : 1;
}
