// Minimizer benchmark: for the `none` baseline and every bug-zoo mutant,
// the first diverging generated program (seed 21, size 14, random:7,
// greedy fusion, interp) is minimized in process; prints time, candidate
// runs and the result size. `bazel run //bench:minimize_bench [-- SEEDS]`
// (SEEDS: alternative random seeds the minimizer may switch to; default 16).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "generate/generator.h"
#include "minimize/minimize.h"
#include "ir/text.h"
#include "triage/minimize_finding.h"

int main(int argc, char** argv) {
  using namespace af;
  const int seeds = argc > 1 ? std::atoi(argv[1]) : 16;
  const std::vector<std::pair<std::string, std::string>> zoo = {
      {"none", ""},
      {"update_aliases-ordered", "ua-no-maybe-views"},
      {"update_aliases-ordered", "ua-no-multi-output"},
      {"update_aliases-ordered", "ua-writes-only"},
      {"update_aliases-ordered", "dce-drops-outputless"},
      {"update_aliases-min", "fusion-stale-copy"},
      {"functionalize", "fn-per-input-base"},
      {"functionalize", "fn-no-regenerate"},
  };
  fuzz::GenOptions g;
  g.size = 14;
  double total_s = 0;
  int64_t total_before = 0, total_after = 0, n = 0;
  std::printf("%-46s %5s %7s %7s %8s %9s\n", "finding", "prog", "stmts", "bytes", "tests", "seconds");
  for (const auto& [strategy, inject] : zoo) {
    const run::RunSpec spec = run::spec_of({strategy, inject, "random:7", "greedy"});
    int k = 0;
    std::optional<ir::Program> found;
    for (; k < 300 && !found; ++k) {
      ir::Program p = fuzz::generate(21, k, g);
      auto r = fuzz::run_spec(p, spec);
      if (r && !r->agree) found = p;
    }
    const std::string name = strategy + (inject.empty() ? "" : "+" + inject);
    if (!found) {
      std::printf("%-46s no finding in 300 programs\n", name.c_str());
      continue;
    }
    fuzz::MinimizeOptions o;
    o.time_s = 60;
    o.seeds = seeds;
    const auto t0 = std::chrono::steady_clock::now();
    fuzz::MinimizedFinding m = fuzz::minimize_finding(*found, spec, o);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!m.ok) {
      std::printf("%-46s error: %s\n", name.c_str(), m.error.c_str());
      continue;
    }
    std::printf("%-46s %5d %3d->%-3d %3lld->%-3lld %8lld %9.3f\n", name.c_str(), k - 1, m.stats.stmts_before,
                m.stats.stmts_after, static_cast<long long>(m.stats.bytes_before),
                static_cast<long long>(m.stats.bytes_after), static_cast<long long>(m.stats.tests), s);
    total_s += s;
    total_before += m.stats.bytes_before;
    total_after += m.stats.bytes_after;
    ++n;
  }
  std::printf("%lld findings minimized in %.3f s; bytes %lld -> %lld (%.1f%%)\n", static_cast<long long>(n), total_s,
              static_cast<long long>(total_before), static_cast<long long>(total_after),
              total_before ? 100.0 * total_after / total_before : 0.0);
  return 0;
}
