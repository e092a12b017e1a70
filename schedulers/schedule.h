// A Schedule: what a strategy makes of a program. The (possibly
// transformed) program, printable as .af text; a linear order of its
// statements; and a partition of that order into regions (one region = one
// Halide pipeline = one kernel-launch group).
//
// The schedulers package is organised like an LLVM pass pipeline, one file
// per pass (see schedulers/passes.h):
//   strategy (eager | none | functionalize | update_aliases[-ordered|-min])
//     -> mutant passes of the bug zoo (dce-drops-outputless)
//     -> dependence DAG (dataflow edges + the strategy's added edges)
//     -> reorder policy (a topological order of THAT DAG)
//     -> fusion policy (regions over the order)
//     -> counters.
// The interpreter tier (schedulers/schedulers.h, interpreter.cc) executes a Schedule with
// the reference kernels of oracles/.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/analysis.h"
#include "ir/program.h"
#include "run/vocabulary.h"

namespace af::schedulers {

struct Counters {
  int regions = 0;
  int fusion_breaks = 0;    // region boundaries forced by the strategy (update_aliases nodes; every boundary of eager)
  int nodes_added = 0;      // statements the strategy inserted
  int extra_storages = 0;   // storages the strategy allocated beyond the source program's
  int64_t bytes_moved = 0;  // estimate: 4 * elements read and written by every statement
};

// One edge of the dependence DAG the reorder policy had to respect:
// statement `from` must run before statement `to` (indices into
// Schedule::program.stmts). `added` edges are the strategy's own (ordering
// through aliases); the others are dataflow (a use of a value).
struct Edge {
  int from = 0, to = 0;
  bool added = false;
};

// Checked mode's verdict (every target reports the same): the first
// region in execution order with a statement whose produced values differ
// from the expected ones, its smallest such statement, that statement's
// first failing element, and the count of failing elements in the whole
// run (every region runs after a failure).
struct CheckFailure {
  int stmt = -1;             // statement index in the schedule's program
  std::string op;            // its op name, e.g. "add_"
  int line = 0;              // its source line (0 when not parsed from text)
  int region = -1;           // index of the region that reported it
  int64_t count = 0;         // failing elements in the whole run
  int64_t first_index = -1;  // first failing flat logical index of that statement
  int source_stmt = -1;      // the source program's statement it stands for (Schedule::origin), or -1
};

struct Schedule {
  // How the schedule was made, as labels for printing (hand-built
  // schedules use labels of their own, e.g. fusion "chunks:3").
  std::string strategy;  // e.g. "functionalize"
  std::string reorder;   // e.g. "random:3"
  std::string fusion;    // e.g. "greedy"
  // The mutant, which the executors honor too (fusion-stale-copy in the
  // interpreter and the lowering, lower-halide-alias in the lowering).
  run::Mutant mutant = run::Mutant::None;
  ir::Program program;  // the transformed program
  // Regions in execution order; each is a list of indices into
  // program.stmts in execution order. Concatenated, they are the order.
  std::vector<std::vector<int>> regions;
  Counters counters;

  // Filled by make_schedule (may be empty for hand-built schedules).
  std::vector<Edge> edges;       // the dependence DAG
  std::vector<bool> added_node;  // by statement: inserted by the strategy
  // Provenance, by statement: the index of the source program's statement
  // this one stands for (its produced values, as lowering::expected_values
  // defines them, must equal that statement's), or -1 (inserted by the
  // strategy: scatters, clones, write-backs, update_aliases). Checked mode
  // compares against the source program through it, so a strategy's own
  // bug is named at its first diverging source statement.
  std::vector<int> origin;
  std::shared_ptr<const ir::Analysis> analysis;  // of `program`, when known

  // The order: the regions concatenated.
  std::vector<int> order() const {
    std::vector<int> o;
    for (const auto& r : regions) o.insert(o.end(), r.begin(), r.end());
    return o;
  }
};

}  // namespace af::schedulers
