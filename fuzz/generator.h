// The random program generator: seeded, emitting only valid programs
// (no error of any kind, every value finite). Program k of seed S is the
// same on every machine: generate(S, k, options).
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "ir/program.h"

namespace af::fuzz {

struct GenOptions {
  int size = 12;            // number of statements (approximate target)
  int max_rank = 3;
  int64_t max_numel = 64;   // per storage
  std::map<std::string, double> op_weights;  // op name -> weight multiplier (default 1)
};

// The k-th program of a campaign seeded with `seed`.
ir::Program generate(uint64_t seed, uint64_t index, const GenOptions& options = GenOptions());

}  // namespace af::fuzz
