// The one path that runs a schedule, and the registry of the
// code-generating targets (the Halide lowering registers itself).
#pragma once
#include <string>
#include <vector>

#include "ir/program.h"
#include "oracles/eager.h"
#include "run/vocabulary.h"
#include "schedulers/schedulers.h"

namespace af::fuzz {

// Executes a schedule on a code-generating target (every target but
// interp). The binary that links the Halide lowering registers it
// (tools/target_executor.cc), so that this checking core, the minimizer
// and the libFuzzer target stay free of Halide.
using TargetExecutor = schedulers::ExecuteOutcome (*)(const schedulers::Schedule& s, const run::RunConfig& config,
                                                      const schedulers::ExpectedByStmt* expected);
void register_target_executor(TargetExecutor executor);
bool target_available(run::Target target);
// interp, and the code-generating targets when an executor is registered:
// the list that validation and help texts name.
const std::vector<std::string>& target_names();

// The one path that runs a schedule: the interpreter tier for interp, the
// registered executor for the others (a "lowering" failure when none is
// linked). `run`, campaigns, `compare`, the minimizer and the libFuzzer
// target all come here.
// Checked mode compares every statement with `expected` (null: the
// oracle's run of the scheduled program itself).
schedulers::ExecuteOutcome execute(const schedulers::Schedule& s, const run::RunConfig& config,
                                   const schedulers::ExpectedByStmt* expected = nullptr);
// Schedule, execute and compare with the oracle's observables.
schedulers::RunOutcome run_on_target(const ir::Program& p, const ir::Analysis& an, const oracles::Observables& expected,
                                     const run::RunConfig& config);

}  // namespace af::fuzz
