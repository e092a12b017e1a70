// The public face of the schedulers package: names of strategies, mutants
// and policies, make_schedule, and the interpreter tier.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/analysis.h"
#include "ir/error.h"
#include "ir/program.h"
#include "oracles/eager.h"
#include "schedulers/execution.h"
#include "run/vocabulary.h"
#include "schedulers/schedule.h"

namespace af::schedulers {

// The names of strategies, mutants and policies, their parsers and the
// spelled ones (run::SpelledSpec) are in run/vocabulary.h.

// Runs the pipeline. `an` is the analysis of `p` (which must be valid).
// An error here means a strategy produced an invalid program: a bug in
// the strategy (reported, never a crash). The target and checked mode of
// the config play no part.
ir::Result<Schedule> make_schedule(const ir::Program& p, const ir::Analysis& an, const run::RunConfig& c);
// The same from spelled settings: an unknown name is an Arg error naming
// the valid choices.
ir::Result<Schedule> make_schedule(const ir::Program& p, const ir::Analysis& an, const run::SpelledSpec& o);

// Program `index`'s schedule under each strategy (benchmarks, kits): the
// fusion policy rotates with index + the strategy's position, so a run over
// many programs covers every strategy/fusion pair; reorder program.
// Strategies that cannot schedule the program are left out.
std::vector<Schedule> rotating_schedules(const ir::Program& p, const ir::Analysis& an,
                                         const std::vector<std::string>& strategies, size_t index);

// What each pass made of a program, for `aliasfuzz run --dump-passes`
// (as Halide's Lower.cpp logs the IR after each pass): the program after
// the strategy pass and after the mutant pass (.af text), the dependence
// DAG, the order and the regions.
struct PassDump {
  std::string pass;  // "strategy functionalize", "mutant dce-drops-outputless", "dag", "order", "regions"
  std::string text;  // .af text for the program passes, plain lines otherwise
};
ir::Result<Schedule> make_schedule(const ir::Program& p, const ir::Analysis& an, const run::RunConfig& c,
                                   std::vector<PassDump>* dump);

// The interpreter tier: executes the schedule region by region in its
// order against real shared storage with the reference kernels. Inside a
// region a read sees the newest version of a storage written earlier in
// the region, except under the fusion-stale-copy mutant (it sees the value
// from before the region's first in-place write to that storage).
oracles::Observables interpret(const Schedule& s);

// Checked mode, the same on every target: what each statement of a
// schedule must produce (oracles::produced_values), by statement of
// s.program. A statement that stands for a source statement (s.origin)
// must produce the source statement's values, so a strategy's own bug is
// caught at the first source statement whose value it changes; one the
// strategy inserted must produce what the oracle computes for the
// scheduled program, so lowering bugs in scatters and copies are caught too.
using ExpectedByStmt = std::vector<std::optional<oracles::Dense>>;
ExpectedByStmt checked_expectations(const Schedule& s, const ir::Program& source, const ir::Analysis& source_an);
// The interpreter tier in checked mode: compares every statement with
// `expected` as it runs and reports the first failure as a device would.
oracles::Observables interpret(const Schedule& s, const ExpectedByStmt* expected, std::optional<CheckFailure>* failure);

// Schedule + execute + compare with the oracle's observables. A run agrees
// when nothing differs and checked mode reported no failure.
struct RunOutcome {
  bool agree = false;
  int regions = 0;
  std::optional<oracles::Mismatch> mismatch;  // set when !agree
  std::string error;                          // the strategy failed (invalid transformed program), or the target
  Counters counters;
  // Why nothing was compared: observable "schedule" (the strategy failed),
  // "lowering" or "ptx" (the target failed; ExecutionFailure).
  std::optional<ExecutionFailure> failure;
  std::optional<CheckFailure> first_failure;  // checked mode: the first op that differed on the device
  std::shared_ptr<const nlohmann::json> stats;  // the target's counters (null on interp)
};
// `execute` runs the schedule (the interpreter tier unless told otherwise:
// fuzz::execute passes the executor of the run's target).
// In checked mode it receives what every statement must produce
// (checked_expectations against the source program); null otherwise.
using ExecuteFn = std::function<ExecuteOutcome(const Schedule&, const ExpectedByStmt*)>;
RunOutcome run_and_compare(const ir::Program& p, const ir::Analysis& an, const oracles::Observables& expected,
                           const run::RunConfig& c, const ExecuteFn& execute = {});
RunOutcome run_and_compare(const ir::Program& p, const ir::Analysis& an, const oracles::Observables& expected,
                           const run::SpelledSpec& o);

// Format v1.3: whether statement j of s is the epilogue that gives an input
// its final geometry (`x_1 = as_strided_(x, ...)`, input_metadata.cc).
bool is_input_metadata_replay(const Schedule& s, int j);
// The schedule as a compiler that forgets to replay its inputs' metadata
// mutations would run it: the same without those epilogue statements (the
// tests' hand-made bug; values and storages are unchanged).
Schedule without_input_metadata_replay(const Schedule& s);

// Pairs (a, b), a < b, of a statement that writes in place and one that
// reads some of the same storage elements, with no path between them in
// the schedule's DAG: the order a policy picks decides what the read sees.
std::vector<std::pair<int, int>> unordered_hazards(const Schedule& s);
// Graphviz text of a schedule: nodes in order, dataflow edges (solid),
// strategy ordering edges (dashed blue), unordered hazards (dotted red),
// regions as clusters.
std::string to_dot(const Schedule& s);
// The transformed program followed by comment lines giving the order and
// regions (still a valid .af text).
std::string schedule_text(const Schedule& s);

}  // namespace af::schedulers
