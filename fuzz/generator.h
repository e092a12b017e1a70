// The random program generator: seeded, emitting only valid programs
// (no error of any kind, every value finite). Program k of seed S is the
// same on every machine: generate(S, k, options).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/program.h"

namespace af::fuzz {

struct GenOptions {
  int size = 12;            // number of statements (approximate target)
  int max_rank = 3;
  int64_t max_numel = 64;   // per storage (and per generated tensor); at most 65536
  std::map<std::string, double> op_weights;  // op name -> weight multiplier (default 1)
  // Extensions (defaults keep programs small).
  int max_storages = 3;     // declared storages: 1..max_storages
  int max_inputs = 5;       // inputs over all storages
  int max_returns = 4;      // returned tensors: 1..max_returns
  double value_bound = 1000;  // every value of every storage stays within +-value_bound
  // Re-validate the finished program with ir::analyze (the generator's
  // incremental checks already guarantee validity; this is a safety net).
  bool verify = true;
};

// The k-th program of a campaign seeded with `seed`.
ir::Program generate(uint64_t seed, uint64_t index, const GenOptions& options = GenOptions());

// The ops the generator emits (format v1 vocabulary minus the ops that
// strategies introduce: scatters and update_aliases).
const std::vector<ir::OpKind>& generated_ops();

}  // namespace af::fuzz
