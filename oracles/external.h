// External strategies under study: a program run through a real compiler
// transform in Python and compared with eager PyTorch of the same Python.
//
//   torch-functionalize        functorch.experimental.functionalize(_fn),
//                              /usr/bin/python3 (Debian's PyTorch 1.13)
//   thunder                    thunder.jit(_fn) with its defaults (CPU, torch executor)
//   thunder-dataflow           thunder.jit(_fn, fusion_type="dataflow")
//   thunder-no-alias-updates   thunder.jit(_fn, skip_inplace_alias_updates=True)
//
// The thunder ones run in .venv-thunder (torch 2.9.1, lightning-thunder
// 0.2.6; `./aliasfuzz setup --thunder`). Eager runs _fn on one set of
// storages, the transformed function on a fresh, independent set with the
// same aliasing (oracles/torch_function.h). Programs go to one long-lived
// Python process per interpreter (oracles/external_runner.py), started
// lazily on first use and restarted after a crash, a timeout or a fork.
#pragma once
#include <string>
#include <sys/types.h>
#include <vector>

#include "ir/program.h"
#include "oracles/line_process.h"
#include "oracles/eager.h"

namespace af::oracles {

const std::vector<std::string>& external_strategies();
bool is_external_strategy(const std::string& strategy);
bool is_thunder_strategy(const std::string& strategy);

// The .venv-thunder Python: $AF_THUNDER_PYTHON, else .venv-thunder/bin/python
// under $AF_ROOT, $BUILD_WORKSPACE_DIRECTORY, the directories above the
// binary (and the working directory). Empty when not installed.
std::string find_thunder_python();
// The Python that runs `strategy`: the thunder venv's, or $AF_TORCH_PYTHON /
// /usr/bin/python3 for torch-functionalize. Empty when not installed.
std::string external_python(const std::string& strategy);
// oracles/external_runner.py ($AF_EXTERNAL_RUNNER, runfiles, source tree); empty when not found.
std::string find_external_runner();

struct ExternalResult {
  enum class Status {
    Ok,             // both ran: eager and actual hold the observables
    StrategyError,  // the transform raised (error_type, message); eager holds eager's observables
    EagerError,     // eager PyTorch of that Python raised (error_type, message)
    Unavailable,    // the Python or the runner is missing (message)
    Failed,         // the runner crashed, hung or answered nonsense (error_type: crash, timeout, internal)
  };
  Status status = Status::Failed;
  Observables eager, actual;
  std::string error_type, message;
  double exec_s = 0;  // time of the transformed call in Python (compilation included)
};

struct ExternalOptions {
  std::string python;       // required
  std::string runner;       // default: find_external_runner()
  double timeout_s = 120;   // per program
  double startup_s = 180;   // importing torch (and thunder)
};

// One long-lived Python process running external_runner.py.
class ExternalRunner {
 public:
  explicit ExternalRunner(ExternalOptions o);
  ~ExternalRunner();
  ExternalRunner(const ExternalRunner&) = delete;
  ExternalRunner& operator=(const ExternalRunner&) = delete;

  bool start(std::string* error);
  ExternalResult run(const ir::Program& p, const std::string& strategy);
  void stop();
  // After fork(): forget the parent's process without touching it.
  void abandon();
  const std::string& torch_version() const { return torch_version_; }
  const std::string& thunder_version() const { return thunder_version_; }
  int restarts() const { return restarts_; }

 private:
  ExternalOptions o_;
  LineProcess proc_;
  std::string torch_version_, thunder_version_;
  long next_id_ = 0;
  int restarts_ = 0;
};

// Runs p (valid) under an external strategy in this process's runner for
// that strategy's Python (one per Python, lazily started, kept for the
// life of the process; a forked child starts its own).
ExternalResult run_external(const ir::Program& p, const std::string& strategy);
// The versions the per-process runner of `strategy` reports ("" before it started).
std::string external_versions(const std::string& strategy);

}  // namespace af::oracles
