// Fidelity of the update_aliases model: does it predict the real Thunder?
//
// Each generated program (ops the real systems refuse left out, from their
// capability probes) runs through the model (strategy `update_aliases`,
// Thunder 0.2.6's rule, under the policy that matches each real mode, and
// under K random reorders) and through the real `thunder` and
// `thunder-dataflow` external strategies. Per pair (model policy, real
// strategy) a 2x2 table of value divergences: both, real only (a real bug
// the model misses), model only (a hazard the real system does not show),
// neither; programs where the real system raised are counted apart
// (unsupported vs internal errors), as are programs where the model
// predicts an error (Thunder raises) and whether the real one raised too.
// Every disagreement is saved as a case under OUT/disagreements/.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "generate/generator.h"

namespace af::fuzz {

struct FidelityOptions {
  uint64_t seed = 1;
  uint64_t programs = 200;
  int random_reorders = 4;  // K: extra model runs under random:S
  std::string out;          // folder for fidelity.{json,md} and disagreements/ ("" = none)
  GenOptions gen;
};

struct FidelityPair {
  std::string model;  // e.g. "update_aliases reorder=thunder-dataflow"
  std::string real;   // "thunder" or "thunder-dataflow"
  int64_t both = 0, real_only = 0, model_only = 0, neither = 0;
  int64_t real_unsupported = 0, real_internal = 0;      // the real system raised (not in the table)
  int64_t model_raises = 0, model_raises_real_too = 0;  // the model predicts Thunder raises
  double recall() const { return both + real_only ? double(both) / double(both + real_only) : 1.0; }
  double precision() const { return both + model_only ? double(both) / double(both + model_only) : 1.0; }
};

struct FidelityResult {
  std::vector<FidelityPair> pairs;
  uint64_t programs = 0;
  std::string versions;  // of the real systems
  std::string excluded;  // ops left out of generation, and why
  double seconds = 0;
};

// Runs the measurement; progress lines go to stderr.
FidelityResult measure_fidelity(const FidelityOptions& o);
// Markdown table of a result.
std::string fidelity_markdown(const FidelityResult& r);
// JSON text of a result.
std::string fidelity_json(const FidelityResult& r);

}  // namespace af::fuzz
