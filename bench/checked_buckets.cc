// Checked campaigns vs prefix bisection: how stable a finding's bucket is
// under other random orders of the same program and mutant, and what a
// finding costs. For each program and interpreter-tier mutant the run is
// repeated under random:0..R-1 (greedy fusion); among the runs that
// diverge, the distinct buckets (fuzz::bucket_of) are counted, once without
// and once with checked mode. One run, same programs: the figures are ratios.
//   bazel run //bench:checked_buckets -- [programs=300] [orders=8] [seed=3]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "check/bucket.h"
#include "check/check.h"
#include "generate/generator.h"
#include "ir/analysis.h"
#include "run/vocabulary.h"

namespace {

struct Tally {
  int groups = 0, stable = 0, runs = 0;
  double buckets = 0, ms = 0;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace af;
  const int programs = argc > 1 ? std::atoi(argv[1]) : 300;
  const int orders = argc > 2 ? std::atoi(argv[2]) : 8;
  const uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 3;
  std::map<std::string, Tally[2]> by_mutant;  // [unchecked, checked]
  for (int k = 0; k < programs; ++k) {
    const ir::Program p = fuzz::generate(seed, static_cast<uint64_t>(k));
    auto an = ir::analyze(p);
    if (!an) continue;
    const oracles::Observables expected = oracles::run_eager(p, *an);
    for (const auto& m : run::mutant_table()) {
      if (m.needs_halide_target) continue;
      for (int checked = 0; checked < 2; ++checked) {
        std::vector<run::RunSpec> specs;
        for (int r = 0; r < orders; ++r) {
          run::RunSpec s;
          s.mutant = m.mutant;
          s.reorder = {run::ReorderKind::Random, static_cast<uint64_t>(r)};
          s.fusion = run::Fusion::Greedy;
          s.checked = checked == 1;
          specs.push_back(s);
        }
        const auto t0 = std::chrono::steady_clock::now();
        const auto records = fuzz::check_program(p, expected, specs);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        std::set<std::string> buckets;
        int diverged = 0;
        for (const auto& rec : records)
          if (!rec.agree) {
            ++diverged;
            buckets.insert(fuzz::bucket_of(rec));
          }
        if (diverged == 0) continue;
        Tally& t = by_mutant[m.name][checked];
        ++t.groups;
        t.runs += diverged;
        t.buckets += static_cast<double>(buckets.size());
        t.stable += buckets.size() == 1;
        t.ms += ms;
      }
    }
  }
  std::printf("seed %llu, %d programs, %d random orders each (greedy fusion), interp\n",
              static_cast<unsigned long long>(seed), programs, orders);
  std::printf(
      "| mutant | diverging (program, mutant) pairs: unchecked / checked | mean distinct buckets over the orders | one "
      "bucket over all orders | ms per pair |\n");
  std::printf("|---|---|---|---|---|\n");
  for (const auto& [name, t] : by_mutant) {
    auto f = [](const Tally& x, double v) { return x.groups ? v / x.groups : 0.0; };
    std::printf("| %s | %d / %d | %.2f / %.2f | %.0f%% / %.0f%% | %.2f / %.2f |\n", name.c_str(), t[0].groups,
                t[1].groups, f(t[0], t[0].buckets), f(t[1], t[1].buckets), 100 * f(t[0], t[0].stable),
                100 * f(t[1], t[1].stable), f(t[0], t[0].ms), f(t[1], t[1].ms));
  }
  return 0;
}
