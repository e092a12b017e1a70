// The PyTorch bridge: a program as a standalone PyTorch eager script, and a
// batch runner that executes many scripts in one /usr/bin/python3 process
// (oracles/torch_runner.py) to compare the oracle with real PyTorch.
#pragma once
#include <string>
#include <sys/types.h>
#include <vector>

#include "ir/program.h"
#include "oracles/eager.h"
#include "oracles/line_process.h"

namespace af::oracles {

// A standalone Python script (PyTorch eager) of the program with the exact
// initial storage values. Run on its own it prints one JSON object: the
// observables in the schema of the "oracle" field of `aliasfuzz run --json`
// ({"returns": [{"sizes", "values"}], "storages": {name: values}}), or
// {"error": {"kind": K, "line": N, "message": M}} when PyTorch raises (K is
// classified from PyTorch's message). The program need not pass analysis.
std::string torch_script(const ir::Program& p);

// The outcome of one program under PyTorch eager.
struct TorchResult {
  bool ok = false;  // PyTorch ran it: obs holds the observables
  Observables obs;
  // When !ok: an error kind of docs/design.md (arg, shape, view, overlap, name,
  // ...), or "unknown" (PyTorch's message not classified), "timeout",
  // "crash" (the Python process died) or "internal" (bridge failure).
  std::string kind;
  std::string message;
  int line = 0;             // program line of a PyTorch error, 0 if unknown
  double exec_seconds = 0;  // time of the program inside Python (storages and statements)
};

struct TorchOptions {
  double timeout_s = 30;   // per program; a hung or crashed program restarts the process
  double startup_s = 120;  // importing torch
  std::string python;      // default: $AF_TORCH_PYTHON or /usr/bin/python3
  std::string runner;      // default: find_torch_runner()
};

// Where oracles/torch_runner.py is: $AF_TORCH_RUNNER, else the runfiles of
// this binary (also under `bazel test`), else the source tree ($AF_ROOT,
// $BUILD_WORKSPACE_DIRECTORY, the directories above the binary, the
// working directory). Empty when not found.
std::string find_torch_runner();

// One long-lived Python process running torch_runner.py; programs are sent
// one at a time as JSON lines {"id", "code"}.
class TorchRunner {
 public:
  explicit TorchRunner(TorchOptions o = TorchOptions());
  ~TorchRunner();
  TorchRunner(const TorchRunner&) = delete;
  TorchRunner& operator=(const TorchRunner&) = delete;

  // Starts the process if needed; false (and *error) when it cannot.
  bool start(std::string* error);
  // Runs one script (as made by torch_script) for program p (for storage names).
  TorchResult run(const ir::Program& p, const std::string& code);
  TorchResult run(const ir::Program& p) { return run(p, torch_script(p)); }
  void stop();
  const std::string& torch_version() const { return version_; }
  int restarts() const { return restarts_; }

 private:
  TorchOptions o_;
  LineProcess proc_;
  std::string version_;
  long next_id_ = 0;
  int restarts_ = 0;
};

// Runs every program through PyTorch eager in one Python process.
std::vector<TorchResult> run_torch_batch(const std::vector<ir::Program>& programs,
                                         const TorchOptions& o = TorchOptions());

}  // namespace af::oracles
