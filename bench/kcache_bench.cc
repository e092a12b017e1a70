// The persistent kernel cache (issue #13) on the workload of
// `fuzz --target host`: N generated programs, each under every strategy
// (fusion none/greedy/dataflow in turn), run on target host. One phase per
// process, so that "cold", "same seed" and "new seed" are what a new
// campaign process sees:
//   kcache_bench --dir D --seed S --programs N [--label L] [--jit]
// (--jit: the in-process JIT cache only, the baseline). Prints programs/s,
// lookups, in-process hits, disk hits, compiles, compile ms p50/p95 and
// where compiles spent their time (Halide lowering, LLVM, ld).
// bench/kcache_bench.sh runs the three phases.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "generate/generator.h"
#include "lowering/backend.h"
#include "lowering/kernel_cache.h"
#include "lowering/lowering.h"
#include "oracles/eager.h"
#include "schedulers/schedulers.h"

using namespace af;

namespace {
double pct(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * (v.size() - 1) + 0.5))];
}
}  // namespace

int main(int argc, char** argv) {
  int n = 200;
  uint64_t seed = 1;
  std::string dir, label = "run";
  bool jit = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : "";
    if (a == "--programs")
      n = std::atoi(v), ++i;
    else if (a == "--seed")
      seed = std::strtoull(v, nullptr, 10), ++i;
    else if (a == "--dir")
      dir = v, ++i;
    else if (a == "--label")
      label = v, ++i;
    else if (a == "--jit")
      jit = true;
  }
  if (jit) lowering::kernel_cache_config().enabled = false;
  if (!dir.empty()) lowering::kernel_cache_config().dir = dir;
  lowering::CompileCache cache;
  int programs = 0, disagree = 0, errors = 0;
  const auto& strategies = run::strategy_names();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    ir::Program p = fuzz::generate(seed, static_cast<uint64_t>(i));
    auto an = ir::analyze(p);
    if (!an) continue;
    const oracles::Observables expected = oracles::run_eager(p, *an);
    const auto scheds = schedulers::rotating_schedules(p, *an, strategies, static_cast<size_t>(i));
    errors += static_cast<int>(strategies.size() - scheds.size());
    for (const auto& s : scheds) {
      auto r = lowering::run_schedule(s, lowering::LowerOptions{}, nullptr, cache);
      if (!r.ok) {
        if (++errors < 3) std::fprintf(stderr, "program %d %s: %s\n", i, s.strategy.c_str(), r.error.c_str());
        continue;
      }
      if (oracles::compare(p, expected, r.obs)) ++disagree;
    }
    ++programs;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto& each = cache.compile_ms_each();
  const int64_t lookups = cache.hits() + cache.misses();
  const auto& t = lowering::detail::aot_times();
  std::printf(
      "%-10s %d programs x %zu strategies  %.1f s  %.2f programs/s | lookups %lld  in-process hits %lld  disk hits "
      "%lld  compiles %zu  hit rate (no compile) %.1f%% | compile ms p50 %.1f p95 %.1f | per compile: lower %.1f "
      "llvm %.1f ld %.1f ms | disagree %d errors %d\n",
      label.c_str(), programs, strategies.size(), secs, programs / std::max(secs, 1e-9),
      static_cast<long long>(lookups), static_cast<long long>(cache.hits()), static_cast<long long>(cache.disk_hits()),
      each.size(), lookups ? 100.0 * (lookups - static_cast<int64_t>(each.size())) / lookups : 0, pct(each, 0.5),
      pct(each, 0.95), t.compiles ? t.lower_ms / t.compiles : 0, t.compiles ? t.llvm_ms / t.compiles : 0,
      t.compiles ? t.link_ms / t.compiles : 0, disagree, errors);
  return 0;  // under-study strategies may disagree by design: the counts are the result
}
