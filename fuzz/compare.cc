#include "fuzz/compare.h"

#include <chrono>

#include "fuzz/check.h"
#include "ir/analysis.h"
#include "oracles/eager.h"
#include "schedulers/schedulers.h"
#include "run/ua_fixes.h"

namespace af::fuzz {

namespace {
double now_us() {
  using namespace std::chrono;
  return duration<double, std::micro>(steady_clock::now().time_since_epoch()).count();
}
}  // namespace

std::vector<CompareRow> compare_strategies(const CompareOptions& o) {
  // By default every strategy, and Thunder's rule with each fix alone next
  // to it, so the table shows which fix removes which divergences.
  std::vector<std::string> strategies = o.strategies;
  if (strategies.empty()) {
    strategies = run::strategy_names();
    // update_aliases with each fix alone (dedupe and min only refine war).
    const auto& fixes = run::ua_fix_names();
    for (size_t k = 0; k < fixes.size(); ++k) {
      const auto fix = static_cast<run::UaFix>(1u << k);  // names follow the enum's bits
      if (fix != run::UaFix::Dedupe && fix != run::UaFix::Min) strategies.push_back("update_aliases+" + fixes[k]);
    }
  }
  std::vector<CompareRow> rows;
  for (const auto& s : strategies)
    for (const auto& r : o.reorders)
      for (const auto& f : o.fusions) rows.push_back(CompareRow{s, r, f});
  // Each row's settings, parsed once (nullopt: a name no table knows, counted as errors).
  std::vector<std::optional<run::ReorderKind>> kinds;
  std::vector<std::optional<run::RunConfig>> configs;
  for (const CompareRow& row : rows) {
    kinds.push_back(run::parse_reorder_kind(row.reorder));
    auto& config = configs.emplace_back();
    const auto strategy = run::parse_strategy(row.strategy);
    const auto fusion = run::parse_fusion(row.fusion);
    if (!strategy || !fusion) continue;
    config.emplace();
    config->strategy = *strategy;
    config->fusion = *fusion;
    config->target = o.target;
  }
  for (int64_t k = 0; k < o.programs; ++k) {
    Generated g = generate_analyzed(o.seed, static_cast<uint64_t>(k), o.gen);
    const ir::Program& p = g.program;
    const auto& an = g.analysis;
    if (!an) continue;
    const oracles::Observables expected = oracles::run_eager(p, *an);
    for (size_t r = 0; r < rows.size(); ++r) {
      CompareRow& row = rows[r];
      ++row.programs;
      if (!kinds[r] || !configs[r]) {
        ++row.errors;
        continue;
      }
      // "random" in the table: a random order seeded per program.
      const run::Reorder reorder{
          *kinds[r], *kinds[r] == run::ReorderKind::Random ? o.seed * 1000003 + static_cast<uint64_t>(k) : 0};
      run::RunConfig config = *configs[r];
      config.reorder = reorder;
      const double t0 = now_us();
      auto sched = schedulers::make_schedule(p, *an, config);
      const double t1 = now_us();
      row.schedule_us += t1 - t0;
      if (!sched) {
        ++row.errors;
        continue;
      }
      const schedulers::ExecuteOutcome x = execute(*sched, config);
      if (x.failure) {
        ++row.errors;
        continue;
      }
      row.run_us += now_us() - t1;
      if (!oracles::compare(p, expected, x.obs)) ++row.agree;
      const schedulers::Counters& c = sched->counters;
      row.regions += c.regions;
      row.fusion_breaks += c.fusion_breaks;
      row.nodes_added += c.nodes_added;
      row.extra_storages += c.extra_storages;
      row.bytes_moved += static_cast<double>(c.bytes_moved);
    }
  }
  for (CompareRow& row : rows) {
    const double n = row.programs > 0 ? static_cast<double>(row.programs) : 1.0;
    for (double* v : {&row.regions, &row.fusion_breaks, &row.nodes_added, &row.extra_storages, &row.bytes_moved,
                      &row.schedule_us, &row.run_us})
      *v /= n;
  }
  return rows;
}

}  // namespace af::fuzz
