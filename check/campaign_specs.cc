#include "check/campaign_specs.h"

#include <algorithm>

#include "ir/hash.h"

namespace af::fuzz {

using run::Fusion;
using run::Mutant;
using run::RunSpec;
using run::RunStrategy;

namespace {
uint64_t hash_str(const std::string& s) { return ir::fnv1a(s); }
}  // namespace

std::vector<run::RunSpec> campaign_specs(uint64_t seed, uint64_t index, const std::vector<run::RunStrategy>& strategies,
                                         const std::vector<Mutant>& mutants, run::Target target, bool checked,
                                         bool recall, bool across_processes) {
  std::vector<run::RunStrategy> ss = strategies;
  if (ss.empty() && mutants.empty()) {  // with only mutants asked for, run only them
    for (const auto* names : {&run::must_agree_strategy_names(), &run::under_study_strategy_names()})
      for (const auto& name : *names) ss.push_back(*run::RunStrategy::parse(name));
  }
  std::vector<run::RunSpec> runs;
  for (const auto& s : ss) runs.emplace_back().strategy = s;
  for (const auto m : mutants) runs.emplace_back().mutant = m;
  static const Fusion kFusion[] = {Fusion::None, Fusion::Greedy, Fusion::Dataflow};
  std::vector<run::RunSpec> specs;
  for (run::RunSpec r : runs) {
    const uint64_t h =
        ir::mix64(ir::mix64(seed ^ ir::mix64(index)) ^ hash_str(r.strategy.name() + "/" + r.mutant_name()));
    r.target = target;
    if (r.is_external()) {  // no reorder or fusion policy of ours applies
      r.recall = recall;
      r.across_processes = recall && across_processes;
      specs.push_back(r);
      continue;
    }
    r.checked = checked;
    // Mostly random topological orders (they find ordering bugs); the
    // named policies now and then.
    const auto& named = run::seedless_reorders();
    const uint64_t pick = h % (6 + named.size());
    if (pick < 6)
      r.reorder = {run::ReorderKind::Random, (h >> 8) % 1000000};
    else
      r.reorder = named[pick - 6];
    r.fusion = kFusion[(h >> 40) % 3];
    if (r.mutant != Mutant::None && run::mutant_info(r.mutant).needs_fused_regions && r.fusion == Fusion::None)
      r.fusion = Fusion::Greedy;
    specs.push_back(r);
  }
  return specs;
}

CampaignRuns campaign_runs(const std::vector<run::RunStrategy>& strategies, const std::vector<Mutant>& mutants) {
  CampaignRuns r;
  for (const auto& spec : campaign_specs(0, 0, strategies, mutants)) {
    const std::string strategy = spec.strategy_name();
    const std::string name = spec.mutant == Mutant::None ? strategy : strategy + "+" + spec.mutant_name();
    auto& list = spec.mutant == Mutant::None && run::is_must_agree(strategy) ? r.must_agree : r.expected_to_diverge;
    if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
  }
  return r;
}

}  // namespace af::fuzz
