// Strategy comparison: every strategy under every reorder and fusion
// policy over the same generated programs, with agreement and the
// schedule's cost counters (regions, fusion breaks, added nodes, extra
// storages, bytes moved) and times.
#pragma once
#include <cstdint>
#include <utility>
#include <string>
#include <vector>

#include "generate/generator.h"
#include "run/vocabulary.h"

namespace af::fuzz {

struct CompareRow {
  std::string strategy, reorder, fusion;
  int64_t programs = 0, agree = 0, errors = 0;
  // Means per program.
  double regions = 0, fusion_breaks = 0, nodes_added = 0, extra_storages = 0, bytes_moved = 0;
  double schedule_us = 0, run_us = 0;
};

struct CompareOptions {
  uint64_t seed = 1;
  int64_t programs = 200;
  std::vector<std::string> strategies;                                               // default: every strategy
  std::vector<std::string> reorders{"program", "random", "fusion", "asap", "alap"};  // random: seeded per program
  std::vector<std::string> fusions{"none", "greedy", "dataflow"};
  GenOptions gen;
  run::Target target = run::Target::Interp;  // or a registered code-generating target (check/check.h)
};

// The question a comparison answers (issue #59), one row per strategy:
// on how many programs it is correct (agrees with the oracle under every
// reorder and fusion policy compared), how many it refuses (a setting
// could not schedule or run it) and why, and its costs on the programs
// every compared strategy supports (means over its settings).
struct CompareSummary {
  std::string strategy;
  int64_t programs = 0, correct = 0, refused = 0;
  std::vector<std::pair<std::string, int64_t>> refusals;  // reason -> programs, most first
  double regions = 0, fusion_breaks = 0, nodes_added = 0, bytes_moved = 0, schedule_us = 0, run_us = 0;
};
struct CompareResult {
  std::vector<CompareRow> rows;  // the details: one per strategy, reorder and fusion
  std::vector<CompareSummary> summary;
  int64_t common = 0;  // programs every compared strategy supports (the summary's costs are on them)
};

CompareResult compare_strategies(const CompareOptions& o);

}  // namespace af::fuzz
