// The runs of a campaign: which settings each program is checked under.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "run/spec.h"

namespace af::fuzz {

// The run settings of program `index` of a campaign: every strategy with a
// reorder seed and fusion policy derived from (seed, index, strategy), so
// the same campaign makes the same choices on every machine. No strategies
// and no mutants: the must-agree and under-study strategies; only mutants:
// just them (each with strategy_for_mutant).
// `checked` applies to every spec but the external strategies'.
std::vector<run::RunSpec> campaign_specs(uint64_t seed, uint64_t index, const std::vector<run::RunStrategy>& strategies,
                                         const std::vector<run::Mutant>& mutants,
                                         run::Target target = run::Target::Interp, bool checked = false,
                                         bool recall = false, bool across_processes = false);

// The runs of a campaign by name ("update_aliases", "functionalize+fn-no-regenerate"),
// split into those that must agree with the oracle (a divergence is a bug
// in aliasfuzz) and those expected to diverge (under study, mutants).
struct CampaignRuns {
  std::vector<std::string> must_agree, expected_to_diverge;
};
CampaignRuns campaign_runs(const std::vector<run::RunStrategy>& strategies, const std::vector<run::Mutant>& mutants);

}  // namespace af::fuzz
