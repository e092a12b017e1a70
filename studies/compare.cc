#include "studies/compare.h"

#include <chrono>
#include <map>
#include <regex>

#include "check/check.h"
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

namespace {
// Why a setting refused a program, as a reason to count: the error's kind
// and the head of its message, numbers and quoted names dropped.
std::string refusal(const ir::Error& e) {
  static const std::regex noise("[0-9]+|'[^']*'|\"[^\"]*\"");
  // "strategy S produced an invalid program: Thunder raises: TypeError: ...": the part after the strategy's name.
  const std::string marker = "produced an invalid program: ";
  const size_t at = e.message.find(marker);
  std::string m =
      std::regex_replace(at == std::string::npos ? e.message : e.message.substr(at + marker.size()), noise, "_");
  if (m.size() > 70) m = m.substr(0, 70) + "...";
  return std::string(ir::kind_name(e.kind)) + ": " + m;
}

// Per strategy and program: whether each setting ran it and agreed, and
// the costs summed over its settings.
struct PerProgram {
  bool supported = true, correct = true;
  std::string why;
  double regions = 0, fusion_breaks = 0, nodes_added = 0, bytes_moved = 0, schedule_us = 0, run_us = 0;
  int settings = 0;
};
}  // namespace

CompareResult compare_strategies(const CompareOptions& o) {
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
  std::map<std::string, size_t> index;  // strategy -> its place in `strategies`
  for (const auto& s : strategies) index.emplace(s, index.size());
  // [strategy][program]
  std::vector<std::vector<PerProgram>> per(strategies.size(), std::vector<PerProgram>(o.programs));
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
      PerProgram& pp = per[index.at(row.strategy)][k];
      ++row.programs;
      auto refuse = [&](const std::string& why) {
        ++row.errors;
        if (pp.supported) pp.why = why;
        pp.supported = pp.correct = false;
      };
      if (!kinds[r] || !configs[r]) {
        refuse("unknown: no such strategy, reorder or fusion");
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
        refuse(refusal(sched.error()));
        continue;
      }
      const schedulers::ExecuteOutcome x = execute(*sched, config);
      if (x.failure) {
        refuse("the schedule failed at run time");
        continue;
      }
      const double run = now_us() - t1;
      row.run_us += run;
      const bool agree = !oracles::compare(p, expected, x.obs);
      row.agree += agree;
      pp.correct = pp.correct && agree;
      const schedulers::Counters& c = sched->counters;
      pp.regions += c.regions;
      pp.fusion_breaks += c.fusion_breaks;
      pp.nodes_added += c.nodes_added;
      pp.bytes_moved += static_cast<double>(c.bytes_moved);
      pp.schedule_us += t1 - t0;
      pp.run_us += run;
      ++pp.settings;
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
  CompareResult out;
  out.rows = std::move(rows);
  // The programs every strategy supports (generated and valid), where costs compare.
  std::vector<bool> common(o.programs, false);
  for (int64_t k = 0; k < o.programs; ++k) {
    bool all = true, any = false;
    for (const auto& s : per) {
      all = all && s[k].supported;
      any = any || s[k].settings > 0;
    }
    common[k] = all && any;
    out.common += common[k];
  }
  for (size_t i = 0; i < strategies.size(); ++i) {
    CompareSummary sum;
    sum.strategy = strategies[i];
    std::map<std::string, int64_t> why;
    int settings = 0;
    for (int64_t k = 0; k < o.programs; ++k) {
      const PerProgram& pp = per[i][k];
      if (pp.supported && pp.settings == 0) continue;  // not generated (invalid program)
      ++sum.programs;
      sum.correct += pp.supported && pp.correct;
      if (!pp.supported) {
        ++sum.refused;
        ++why[pp.why];
      }
      if (!common[k]) continue;
      settings += pp.settings;
      for (auto [to, from] : {std::pair{&sum.regions, pp.regions},
                              {&sum.fusion_breaks, pp.fusion_breaks},
                              {&sum.nodes_added, pp.nodes_added},
                              {&sum.bytes_moved, pp.bytes_moved},
                              {&sum.schedule_us, pp.schedule_us},
                              {&sum.run_us, pp.run_us}})
        *to += from;
    }
    if (settings > 0)
      for (double* v :
           {&sum.regions, &sum.fusion_breaks, &sum.nodes_added, &sum.bytes_moved, &sum.schedule_us, &sum.run_us})
        *v /= settings;
    sum.refusals.assign(why.begin(), why.end());
    std::stable_sort(sum.refusals.begin(), sum.refusals.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    out.summary.push_back(std::move(sum));
  }
  return out;
}

}  // namespace af::fuzz
