// The public face of the schedulers package: names of strategies, mutants
// and policies, make_schedule, and the interpreter tier.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ir/analysis.h"
#include "ir/error.h"
#include "ir/program.h"
#include "oracles/eager.h"
#include "schedulers/schedule.h"

namespace af::schedulers {

// Every strategy this package implements, and the ones that must agree.
const std::vector<std::string>& strategy_names();
const std::vector<std::string>& must_agree_strategy_names();  // eager, functionalize, update_aliases-ordered, update_aliases-min
// The bug zoo (lower-halide-alias is accepted and only matters to Halide targets).
const std::vector<std::string>& mutant_names();
const std::vector<std::string>& fusion_policy_names();         // none, greedy, dataflow
const std::vector<std::string>& reorder_policy_names();        // program, random:SEED, fusion, asap, alap
bool valid_reorder_policy(const std::string& policy);

struct Options {
  std::string strategy = "eager";
  std::string inject;              // "" or a mutant name
  std::string reorder = "program";
  std::string fusion = "none";
};

// A usage error (unknown strategy, mutant or policy), naming the valid
// choices; nothing when the options are valid.
std::optional<std::string> check_options(const Options& o);

// Runs the pipeline. `an` is the analysis of `p` (which must be valid).
// An error here means a strategy produced an invalid program: a bug in
// the strategy (reported, never a crash).
ir::Result<Schedule> make_schedule(const ir::Program& p, const ir::Analysis& an, const Options& o);

// Program `index`'s schedule under each strategy (benchmarks, kits): the
// fusion policy rotates with index + the strategy's position, so a run over
// many programs covers every strategy/fusion pair; reorder program.
// Strategies that cannot schedule the program are left out.
std::vector<Schedule> rotating_schedules(const ir::Program& p, const ir::Analysis& an,
                                         const std::vector<std::string>& strategies, size_t index);

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

// Schedule + interpret + compare with the oracle's observables.
struct RunOutcome {
  bool agree = false;
  int regions = 0;
  std::optional<oracles::Mismatch> mismatch;  // set when !agree
  std::string error;                          // the strategy failed (invalid transformed program)
  Counters counters;
};
RunOutcome run_and_compare(const ir::Program& p, const ir::Analysis& an, const oracles::Observables& expected,
                           const Options& o);

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
