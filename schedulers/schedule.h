// A Schedule: what a strategy makes of a program. The (possibly
// transformed) program, printable as .af text; a linear order of its
// statements; and a partition of that order into regions (one region = one
// Halide pipeline = one kernel-launch group).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/program.h"

namespace af::schedulers {

struct Counters {
  int regions = 0;
  int fusion_breaks = 0;      // region boundaries forced by the strategy (update_aliases, write-back edges...)
  int nodes_added = 0;        // statements the strategy inserted
  int extra_storages = 0;     // storages the strategy allocated beyond the source program's
  int64_t bytes_moved = 0;    // estimate: 4 * elements read and written by every statement
};

struct Schedule {
  std::string strategy;       // e.g. "functionalize"
  std::string inject;         // mutant name or ""
  std::string reorder;        // e.g. "random:3"
  std::string fusion;         // e.g. "greedy"
  ir::Program program;        // the transformed program
  // Regions in execution order; each is a list of indices into
  // program.stmts in execution order. Concatenated, they are the order.
  std::vector<std::vector<int>> regions;
  Counters counters;
};

}  // namespace af::schedulers
