// Running programs through an external strategy: one long-lived Python
// process per interpreter (compilers/external_runner.py), and what a
// compiler exception means (unsupported, or a finding).
#pragma once
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

#include "compilers/table.h"
#include "ir/program.h"
#include "oracles/eager.h"
#include "oracles/line_process.h"

namespace af::compilers {
// The second call of a recall run (run(..., recall)): the compiled
// function on the inputs of the recall layout, and eager PyTorch on its own
// copy of them. Observables are the recall program's.
struct RecallResult {
  enum class Status {
    Ok,             // both ran: eager and actual hold the observables
    StrategyError,  // the compiled function raised on the second call (error_type, message)
    EagerError,     // eager PyTorch refused the recall layout: nothing to judge
  };
  Status status = Status::EagerError;
  oracles::Observables eager, actual;
  std::string error_type, message;
  std::vector<std::string> frames;  // evidence (set_external_evidence): as ExternalResult::frames
};

struct ExternalResult {
  enum class Status {
    Ok,             // both ran: eager and actual hold the observables
    StrategyError,  // the transform raised (error_type, message); eager holds eager's observables
    EagerError,     // eager PyTorch of that Python raised (error_type, message)
    Unavailable,    // the Python or the runner is missing (message)
    Failed,         // the runner crashed, hung or answered nonsense (error_type: crash, timeout, internal)
  };
  Status status = Status::Failed;
  oracles::Observables eager, actual;
  std::string error_type, message;
  // Failed with error_type "crash": how the Python process ended ("SIGSEGV",
  // "exit 1"; "" when unknown) and the last lines it wrote on stderr.
  std::string death, stderr_tail;
  // Ok or StrategyError: what the compiler handed back to eager PyTorch
  // (ExternalStrategy::fallbacks evaluated after the call).
  std::vector<std::string> fallbacks;
  double exec_s = 0;  // time of the transformed call in Python (compilation included)
  // run(..., invalid = true), EagerError: the compiled function ran anyway
  // and returned (accepted: a program eager refuses), or raised
  // (strategy_error_type, strategy_message).
  bool strategy_accepted = false;
  std::string strategy_error_type, strategy_message;
  // Ok with a recall layout asked for: the second call.
  std::optional<RecallResult> recall;
  // Evidence (issue #57; set_external_evidence, triage/evidence.h), as
  // PATH:QUALNAME with PATH relative to site-packages: the compiler's frames
  // of the exception it raised (outermost first), and every function of the
  // compiler that ran while compiling and calling (sorted).
  std::vector<std::string> frames, coverage;
  // For each returned tensor, the compiler function that first returned it
  // (where a wrong output was made); "" where none did.
  std::vector<std::string> producers;
};

struct ExternalOptions {
  std::string python;      // required
  std::string runner;      // default: find_external_runner()
  double timeout_s = 120;  // per program
  double startup_s = 180;  // importing torch (and thunder)
  // The history check: a compiler cache folder shared with another runner
  // process, its caches on (the runner's AF_RUNNER_CACHE_DIR); "": the
  // runner's private folder, caches off.
  std::string cache_dir;
  // Evidence: each answer has the compiler's frames and function coverage
  // (ExternalResult::frames, coverage). Tracing costs; only for bug programs.
  bool evidence = false;
};

// One long-lived Python process running external_runner.py.
class ExternalRunner {
 public:
  explicit ExternalRunner(ExternalOptions o);
  ~ExternalRunner();
  ExternalRunner(const ExternalRunner&) = delete;
  ExternalRunner& operator=(const ExternalRunner&) = delete;

  bool start(std::string* error);
  // `invalid`: p is a program the oracle rejects; when eager PyTorch
  // raises, the compiled function runs too (ExternalResult::strategy_accepted).
  // `recall`: p's recall layout (ir/relayout.h): after a first call that
  // returned, the same compiled function is called on its inputs
  // (ExternalResult::recall).
  ExternalResult run(const ir::Program& p, const ExternalStrategy& strategy, bool invalid = false,
                     const ir::Program* recall = nullptr);
  // torch_compile_stage's request, in this runner (under `timeout_s`).
  std::optional<std::string> bisect(const ir::Program& p, const ExternalStrategy& strategy, double timeout_s,
                                    std::string* why);
  void stop();
  // After fork(): forget the parent's process without touching it.
  void abandon();
  const std::string& torch_version() const { return torch_version_; }
  const std::string& thunder_version() const { return thunder_version_; }
  int restarts() const { return restarts_; }
  void set_timeout(double seconds) { o_.timeout_s = seconds; }
  void set_evidence(bool on) { o_.evidence = on; }

 private:
  ExternalOptions o_;
  oracles::LineProcess proc_;
  std::string torch_version_, thunder_version_;
  long next_id_ = 0;
  int restarts_ = 0;
};

// Runs p (valid, or with `invalid` one the oracle rejects) under an
// external strategy in this process's runner for that strategy's Python
// (one per Python, lazily started, kept for the life of the process; a
// forked child starts its own).
// The strategy comes parsed (run::RunSpec holds it so: parsed once per
// campaign, not per program and bisection prefix).
ExternalResult run_external(const ir::Program& p, const ExternalStrategy& strategy, bool invalid = false,
                            const ir::Program* recall = nullptr);
// The same in a new Python process of its own (a fresh Dynamo, a fresh
// Inductor cache folder, nothing an earlier program left in memory): what
// a user's fresh process gets. Costs the Python's start-up.
ExternalResult run_external_fresh(const ir::Program& p, const ExternalStrategy& strategy);
// By name, parsed here (a command's flag, a test): Unavailable for a name
// that is not an external strategy.
ExternalResult run_external(const ir::Program& p, const std::string& strategy, bool invalid = false,
                            const ir::Program* recall = nullptr);
ExternalResult run_external_fresh(const ir::Program& p, const std::string& strategy);

// Where in torch.compile a wrong value is made (issue #57, the evidence of
// a torch.compile-family bug): torch._inductor.compiler_bisector run over p
// by a Python process of its own (the bisector keeps state per process),
// torch.compile's backend picked by the bisector: the first of eager
// (Dynamo alone), aot_eager, aot_eager_decomp_partition, inductor whose
// result differs from eager (within 1e-3; an error is not that wrong value),
// and within it the subsystem and its application ("inductor:
// post_grad_passes #2 (...)"). "" when every backend was right; nullopt
// and *why when it cannot tell (no bisector in that torch, eager raised,
// the runner failed or took longer than `timeout_s`; 0: kBisectAnswers
// times this process's bound on one answer, set_external_timeout's, so
// that a campaign's --case-timeout bounds it too).
inline constexpr double kBisectAnswers = 8;  // a bisection compiles the program about 5-15 times
std::optional<std::string> torch_compile_stage(const ir::Program& p, const ExternalStrategy& strategy,
                                               std::string* why, double timeout_s = 0);

// The history check across processes (issue #56, `stale-from-cache`): a
// runner process compiles and runs `first` with a compiler cache folder it
// shares with a second, new process that then compiles and runs `second`
// (the same program in another alias layout) over what the first left
// there. The second's result; the first's status in *first_status.
ExternalResult run_external_over_cache(const ir::Program& first, const ir::Program& second,
                                       const ExternalStrategy& strategy,
                                       ExternalResult::Status* first_status = nullptr);

// The bound on one program's answer for this process's runners (a
// campaign worker: below the case timeout, so that a compiler that hangs
// is that compiler's `runner-timeout` finding and the worker goes on).
void set_external_timeout(double seconds);
// That bound (ExternalOptions' default where none was set).
double external_timeout();
// Whether this process's runners answer with evidence (frames, coverage).
void set_external_evidence(bool on);
// The versions the per-process runner of `strategy` reports ("" before it started).
std::string external_versions(const std::string& strategy);

// ---- what an exception of an external strategy means

// A compiler exception is either *unsupported* (the compiler says it does
// not implement an op, a form or an argument: NotImplementedError, "not
// (yet) supported", an unknown attribute, an unregistered torch op): the
// program never reached a value comparison, which a campaign counts and
// which is not a finding; or *internal* (AssertionError, IndexError, a
// shape RuntimeError, PyTorch's overlap error inside the compiled code...)
// on a program the compiler accepted: a finding. One table of patterns
// (external.cc, kErrorPatterns), first match wins; no match is internal.
struct ErrorClass {
  bool unsupported = false;
  std::string rule;  // the pattern that decided (for reports and tests)
};
ErrorClass classify_external_error(const std::string& error_type, const std::string& message);
inline bool is_unsupported_error(const std::string& error_type, const std::string& message) {
  return classify_external_error(error_type, message).unsupported;
}

}  // namespace af::compilers
