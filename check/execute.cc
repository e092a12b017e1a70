#include "check/execute.h"

namespace af::fuzz {

using run::RunConfig;

namespace {
TargetExecutor g_executor = nullptr;
}  // namespace

void register_target_executor(TargetExecutor executor) { g_executor = executor; }

const std::vector<std::string>& target_names() {
  static const std::vector<std::string> interp_only{run::target_name(run::Target::Interp)};
  return g_executor ? run::target_names() : interp_only;
}

bool target_available(run::Target target) { return target == run::Target::Interp || g_executor; }

schedulers::ExecuteOutcome execute(const schedulers::Schedule& s, const RunConfig& config,
                                   const schedulers::ExpectedByStmt* expected) {
  schedulers::ExecuteOutcome out;
  if (config.target == run::Target::Interp) {
    schedulers::ExpectedByStmt own;
    if (config.checked && !expected) {
      own = schedulers::checked_expectations(s, s.program, *s.analysis);
      expected = &own;
    }
    out.obs = schedulers::interpret(s, config.checked ? expected : nullptr, &out.first_failure);
    return out;
  }
  if (!g_executor) {
    out.failure = schedulers::ExecutionFailure{
        "lowering", 0, std::string("target '") + run::target_name(config.target) + "' is not linked into this program"};
    return out;
  }
  return g_executor(s, config, expected);
}

schedulers::RunOutcome run_on_target(const ir::Program& p, const ir::Analysis& an, const oracles::Observables& expected,
                                     const RunConfig& config) {
  return schedulers::run_and_compare(
      p, an, expected, config,
      [&config](const schedulers::Schedule& s, const schedulers::ExpectedByStmt* e) { return execute(s, config, e); });
}

}  // namespace af::fuzz
