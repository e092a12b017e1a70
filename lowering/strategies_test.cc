// The real strategies through Halide on the host: strategies that must agree
// with the oracle do so, and for every strategy and mutant the Halide tier
// gives exactly the interpreter tier's observables (same schedule, same
// semantics; lower-halide-alias excepted, it exists only in Halide).
#include <gtest/gtest.h>

#include "fuzz/generator.h"
#include "ir/text.h"
#include "lowering/lowering.h"
#include "oracles/eager.h"
#include "schedulers/schedulers.h"

namespace af::lowering {
namespace {

struct Combo {
  const char* reorder;
  const char* fusion;
};
const Combo kCombos[] = {{"program", "greedy"}, {"random:7", "greedy"}, {"fusion", "dataflow"}};

TEST(StrategiesOnHost, MustAgreeStrategiesAgreeWithOracle) {
  CompileCache cache;
  int runs = 0, regions = 0;
  for (int i = 0; i < 20; ++i) {
    ir::Program p = fuzz::generate(555, i);
    auto an = ir::analyze(p);
    ASSERT_TRUE(an.ok());
    const auto expected = oracles::run_eager(p, *an);
    for (const auto& strategy : schedulers::must_agree_strategy_names())
      for (const auto& c : kCombos) {
        schedulers::Options so;
        so.strategy = strategy;
        so.reorder = c.reorder;
        so.fusion = c.fusion;
        auto sched = schedulers::make_schedule(p, *an, so);
        ASSERT_TRUE(sched.ok()) << strategy << ": " << sched.error().to_string();
        LowerResult r = run_schedule(*sched, LowerOptions(), nullptr, cache);
        ASSERT_TRUE(r.ok) << strategy << " " << c.reorder << " " << c.fusion << ": " << r.error << "\n"
                          << schedulers::schedule_text(*sched);
        auto mm = oracles::compare(p, expected, r.obs);
        EXPECT_FALSE(mm) << "program " << i << " " << strategy << " " << c.reorder << " " << c.fusion << ": "
                         << (mm ? mm->observable + "[" + std::to_string(mm->index) + "]" : "") << "\n"
                         << schedulers::schedule_text(*sched);
        ++runs;
        regions += r.stats.regions;
      }
    if (::testing::Test::HasFailure()) break;
  }
  std::printf("strategies: %d runs, %d regions, cache hits %lld misses %lld, compile %.0f ms\n", runs, regions,
              static_cast<long long>(cache.hits()), static_cast<long long>(cache.misses()), cache.compile_ms());
}

TEST(StrategiesOnHost, HalideTierEqualsInterpreterTierUnderMutants) {
  CompileCache cache;
  int runs = 0, diverging = 0;
  for (int i = 0; i < 12; ++i) {
    ir::Program p = fuzz::generate(556, i);
    auto an = ir::analyze(p);
    ASSERT_TRUE(an.ok());
    const auto expected = oracles::run_eager(p, *an);
    for (const auto& row : schedulers::mutant_table()) {
      if (row.needs_halide_target) continue;
      const std::string mutant = row.name;
      schedulers::Options so;
      // fusion-stale-copy under eager: one op per region, it must change nothing.
      so.strategy = row.mutant == schedulers::Mutant::FusionStaleCopy ? "eager" : row.default_strategy;
      so.inject = mutant;
      so.reorder = "random:3";
      so.fusion = "greedy";
      auto sched = schedulers::make_schedule(p, *an, so);
      ASSERT_TRUE(sched.ok()) << mutant << ": " << sched.error().to_string();
      const oracles::Observables interp = schedulers::interpret(*sched);
      LowerResult r = run_schedule(*sched, LowerOptions(), nullptr, cache);
      ASSERT_TRUE(r.ok) << mutant << ": " << r.error;
      auto mm = oracles::compare(sched->program, interp, r.obs);
      EXPECT_FALSE(mm) << "program " << i << " mutant " << mutant << ": "
                       << (mm ? mm->observable + "[" + std::to_string(mm->index) + "]" : "") << "\n"
                       << schedulers::schedule_text(*sched);
      ++runs;
      if (oracles::compare(p, expected, r.obs)) ++diverging;
    }
    if (::testing::Test::HasFailure()) break;
  }
  std::printf("mutants: %d runs, %d diverge from the oracle (found by the Halide tier)\n", runs, diverging);
}

}  // namespace
}  // namespace af::lowering
