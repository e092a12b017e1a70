// The Halide tier's throughput and compile cache (docs/design.md, Metrics).
//   lower_bench [--programs N] [--seed S] [--strategies K] [--whole M] [--target T]
// Phases over N generated programs (default 1,000), one region per
// statement (the eager schedule), on target T (default host; opencl runs
// the GPU schedules on pocl and reports host<->device transfers):
//   cold     empty cache, programs 0..N-1
//   warm     the same cache, N new programs N..2N-1 (campaign steady state)
//   rerun    programs 0..N-1 again (every pipeline cached: run cost only)
//   checked  checked mode: cold on programs 0..N-1, then rerun
// then K programs (--strategies, default 250) scheduled by functionalize and
// update_aliases-min with greedy fusion (cold, then K new programs warm),
// and M programs (--whole, default 100) with the whole program as one
// region (the most fused schedule), cold, rerun and checked. Reports programs/s, cache hit rate,
// p50/p95 JIT compile ms per region, run ms, and checked-mode overhead.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "generate/generator.h"
#include "lowering/lowering.h"
#include "oracles/eager.h"
#include "schedulers/schedulers.h"

namespace {

using namespace af;

struct Phase {
  std::string name;
  int programs = 0, regions = 0, pipelines = 0, disagree = 0, errors = 0, transfers = 0;
  int64_t hits = 0, misses = 0;
  double secs = 0, compile_ms = 0, run_ms = 0;
  std::vector<double> compile_each;
};

double pct(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * (v.size() - 1) + 0.5))];
}

// per_region >= 0: program-order partition; -1: the schedule of `strategy`
// (reorder program, fusion greedy) from the schedulers package.
lowering::Target g_target = lowering::Target::Host;

Phase run_phase(const std::string& name, const std::vector<ir::Program>& progs,
                const std::vector<oracles::Observables>& expected, int per_region, bool checked,
                lowering::CompileCache& cache, const std::string& strategy = "") {
  Phase ph;
  ph.name = name;
  const size_t each0 = cache.compile_ms_each().size();
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < progs.size(); ++i) {
    if (std::getenv("LOWER_BENCH_TRACE")) std::fprintf(stderr, "%s %zu\n", name.c_str(), i);
    lowering::LowerOptions o;
    o.target = g_target;
    o.checked = checked;
    schedulers::Schedule sched;
    if (per_region >= 0) {
      sched = lowering::program_order_schedule(progs[i], per_region);
    } else {
      run::SpelledSpec so;
      so.strategy = strategy;
      so.fusion = "greedy";
      auto an = ir::analyze(progs[i]);
      auto sr = schedulers::make_schedule(progs[i], *an, so);
      if (!sr) {
        ++ph.errors;
        continue;
      }
      sched = std::move(*sr);
    }
    auto r = lowering::run_schedule(sched, o, nullptr, cache);
    ++ph.programs;
    if (!r.ok) {
      ++ph.errors;
      if (ph.errors < 3) std::fprintf(stderr, "%s: program %zu: %s\n", name.c_str(), i, r.error.c_str());
      continue;
    }
    if (oracles::compare(progs[i], expected[i], r.obs) || r.first_failure) ++ph.disagree;
    ph.regions += r.stats.regions;
    ph.pipelines += r.stats.pipelines_run;
    ph.hits += r.stats.cache_hits;
    ph.misses += r.stats.cache_misses;
    ph.compile_ms += r.stats.compile_ms;
    ph.run_ms += r.stats.run_ms;
    ph.transfers += r.stats.uploads + r.stats.downloads;
  }
  ph.secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ph.compile_each.assign(cache.compile_ms_each().begin() + each0, cache.compile_ms_each().end());
  return ph;
}

void print(const Phase& p) {
  const double hit = p.hits + p.misses ? 100.0 * p.hits / (p.hits + p.misses) : 0;
  std::printf(
      "%-14s %5d progs %7.1f s %8.2f progs/s | pipelines %6d hits %6lld misses %5lld hit-rate %5.1f%% | "
      "compile p50 %6.1f p95 %6.1f ms (total %7.0f) | run %7.1f ms (%.3f ms/pipeline) | %.1f transfers/prog | "
      "disagree %d errors %d\n",
      p.name.c_str(), p.programs, p.secs, p.programs / std::max(p.secs, 1e-9), p.pipelines,
      static_cast<long long>(p.hits), static_cast<long long>(p.misses), hit, pct(p.compile_each, 0.5),
      pct(p.compile_each, 0.95), p.compile_ms, p.run_ms, p.run_ms / std::max(1, p.pipelines),
      static_cast<double>(p.transfers) / std::max(1, p.programs), p.disagree, p.errors);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int n = 1000, whole = 100, strat = 250;
  uint64_t seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--programs"))
      n = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seed"))
      seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--whole"))
      whole = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--strategies"))
      strat = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--target")) {
      auto t = lowering::target_from_name(argv[i + 1]);
      if (!t) {
        std::fprintf(stderr, "lower_bench: unknown target %s\n", argv[i + 1]);
        return 2;
      }
      g_target = *t;
    }
  }
  std::vector<ir::Program> a, b;
  std::vector<oracles::Observables> ea, eb;
  for (int i = 0; i < n; ++i) {
    a.push_back(fuzz::generate(seed, i));
    ea.push_back(*oracles::run_eager(a.back()));
    b.push_back(fuzz::generate(seed, n + i));
    eb.push_back(*oracles::run_eager(b.back()));
  }
  std::printf("lower_bench: %d generated programs (seed %llu), target %s, one region per statement\n", n,
              static_cast<unsigned long long>(seed), lowering::target_name(g_target));
  lowering::CompileCache cache;
  Phase cold = run_phase("eager cold", a, ea, 1, false, cache);
  print(cold);
  Phase warm = run_phase("eager warm", b, eb, 1, false, cache);
  print(warm);
  // Reruns are short: the best of 5 (the machine is shared).
  auto best_of = [&](const std::string& name, bool checked) {
    Phase best;
    for (int rep = 0; rep < 5; ++rep) {
      Phase p = run_phase(name, a, ea, 1, checked, cache);
      if (rep == 0 || p.secs < best.secs) best = p;
    }
    return best;
  };
  Phase rerun = best_of("eager rerun", false);
  print(rerun);
  Phase ccold = run_phase("checked cold", a, ea, 1, true, cache);
  print(ccold);
  Phase crerun = best_of("checked rerun", true);
  print(crerun);
  std::printf(
      "checked-mode overhead: cached pipelines %+.1f%% wall (%+.1f%% realize time, %d vs %d pipelines); "
      "cold %+.1f%% wall (compile p50 %.1f -> %.1f ms per region)\n",
      100.0 * (crerun.secs / std::max(rerun.secs, 1e-9) - 1),
      100.0 * (crerun.run_ms / std::max(rerun.run_ms, 1e-9) - 1), crerun.pipelines, rerun.pipelines,
      100.0 * (ccold.secs / std::max(cold.secs, 1e-9) - 1), pct(cold.compile_each, 0.5), pct(ccold.compile_each, 0.5));
  if (strat > 0) {
    const size_t m = std::min<size_t>(strat, a.size());
    std::vector<ir::Program> s1(a.begin(), a.begin() + m), s2(b.begin(), b.begin() + m);
    std::vector<oracles::Observables> e1(ea.begin(), ea.begin() + m), e2(eb.begin(), eb.begin() + m);
    for (const char* st : {"functionalize", "update_aliases-min"}) {
      lowering::CompileCache sc;
      print(run_phase(std::string(st).substr(0, 9) + " cold", s1, e1, -1, false, sc, st));
      print(run_phase(std::string(st).substr(0, 9) + " warm", s2, e2, -1, false, sc, st));
    }
  }
  if (whole > 0) {
    std::vector<ir::Program> w(a.begin(), a.begin() + std::min<size_t>(whole, a.size()));
    std::vector<oracles::Observables> ew(ea.begin(), ea.begin() + w.size());
    lowering::CompileCache wc;
    print(run_phase("whole cold", w, ew, 0, false, wc));
    print(run_phase("whole rerun", w, ew, 0, false, wc));
    print(run_phase("whole checked", w, ew, 0, true, wc));
  }
  return 0;
}
