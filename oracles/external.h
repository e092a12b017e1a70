// External strategies under study: a program run through a real compiler
// in Python and compared with eager PyTorch of the same Python. Every one
// is an entry of one table (external.cc, kBuiltins): the Python it runs in
// and a Python expression that compiles `fn`, the program's function:
//
//   torch-functionalize        functorch.experimental.functionalize(fn), /usr/bin/python3 (PyTorch 1.13)
//   thunder                    thunder.jit(fn) with its defaults (CPU, torch executor)
//   thunder-dataflow           thunder.jit(fn, fusion_type="dataflow")
//   thunder-no-alias-updates   thunder.jit(fn, skip_inplace_alias_updates=True)
//   inductor                   torch.compile(fn, backend="inductor") (CPU)
//   aot-eager                  torch.compile(fn, backend="aot_eager")
//   thunderfx                  thunder.dynamo.thunderfx(fn) (Thunder as a torch.compile backend)
//   torch-func-functionalize   torch.func.functionalize(fn)
//   inductor@2.15.0, ...       a torch.compile-family strategy under one torch
//                              version (.venvs/torch-2.15.0; `./aliasfuzz
//                              setup --torch 2.15.0`); without '@', the newest
//                              installed
//   py:MODULE:FUNCTION[@PYTHON]  MODULE.FUNCTION(fn): any compiler, in PYTHON
//                              (default: the venv's); MODULE importable there
//                              (the working directory is on sys.path)
//
// The Thunder ones and py: run in .venv-thunder (torch 2.9.1,
// lightning-thunder 0.2.6; `./aliasfuzz setup --thunder`), torch-functionalize
// in Debian's PyTorch 1.13, the torch.compile family under any installed
// torch (installed_torches(): .venv-thunder's 2.9.1 is one). Eager runs fn on
// one set of storages, the compiled function on a fresh, independent set
// with the same aliasing (oracles/torch_function.h); Dynamo is reset before
// every program, so each compiles afresh. Programs go to one long-lived
// Python process per interpreter (oracles/external_runner.py), started
// lazily on first use and restarted after a crash, a timeout or a fork.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

#include "ir/program.h"
#include "oracles/line_process.h"
#include "oracles/eager.h"

namespace af::oracles {

// One external strategy: an entry of the built-in table or a parsed py: spec.
struct ExternalStrategy {
  enum class Python { Venv, System, Given, Torch };
  std::string name;
  Python python = Python::Venv;
  std::string python_path;  // Python::Given: the path after '@'
  // Python::Torch: the torch version after '@' (NAME@VERSION); "" when the
  // name has none, which means the newest installed (newest_torch()).
  std::string torch_version;
  std::string imports;      // Python statements that make `compile` evaluable
  std::string compile;      // a Python expression in `fn` giving the compiled callable
  bool thunder = false;     // lightning-thunder's version belongs to its versions
  // Attribution: `lower_stage` names the strategy that runs this one's
  // front stages alone (inductor: aot-eager, AOTAutograd without Inductor).
  // When both run, a divergence both show is `lower_label`'s, one only this
  // strategy shows is `own_label`'s.
  std::string lower_stage, lower_label, own_label;
  // A Python expression in `cfn` (the compiled callable, after a call): the
  // parts of the program the compiler handed back to eager PyTorch (e.g.
  // thunderfx's split reasons), as strings; "" when it cannot tell. The
  // capability probe counts an op it hands back as unsupported.
  std::string fallbacks;
  // A torch.compile-family strategy (inductor, aot-eager,
  // torch-func-functionalize): it runs under any installed torch,
  // NAME@VERSION in .venvs/torch-VERSION (`./aliasfuzz setup --torch VERSION`).
  bool versioned = false;
};

// The built-in names (not the py: ones), in table order.
const std::vector<std::string>& external_strategies();
// The table entry of `strategy`, or the parsed `py:MODULE:FUNCTION[@PYTHON]`;
// nullopt for any other name (a malformed py: spec included).
std::optional<ExternalStrategy> external_strategy(const std::string& strategy);
bool is_external_strategy(const std::string& strategy);
bool is_thunder_strategy(const std::string& strategy);
// The installed torch versions a versioned strategy can run under, oldest
// first, with their Pythons: every .venvs/torch-VERSION (under $AF_TORCH_VENVS,
// then the checkout, as find_thunder_python looks), and .venv-thunder's
// pinned torch. Tests stand a stub version up with $AF_TORCH_VENVS.
struct InstalledTorch {
  std::string version, python;
};
std::vector<InstalledTorch> installed_torches();
std::string newest_torch();  // "" when none is installed
// `strategy` with its torch version spelled out: a versioned built-in
// without '@' gets `version` ("" = newest_torch()); anything else, and any
// strategy when no torch is installed, comes back as it is.
std::string with_torch_version(const std::string& strategy, const std::string& version = "");
// The strategy without its torch version ("aot-eager@2.15.0" -> "aot-eager"):
// one bug on two versions has one signature.
std::string strategy_base(const std::string& strategy);
// Whether `v` is spelled as a torch version (2.15.0, 2.16.0.dev20261201).
bool is_torch_version(const std::string& v);
// Numeric order of dotted versions ("2.9.1" < "2.15.0"; a "+cu128" suffix ignored).
bool version_less(const std::string& a, const std::string& b);
// Why `strategy` (starting with "py:") is malformed, "" when it is well formed
// or not a py: spec at all.
std::string py_spec_error(const std::string& strategy);

// The .venv-thunder Python: $AF_THUNDER_PYTHON, else .venv-thunder/bin/python
// under $AF_ROOT, $BUILD_WORKSPACE_DIRECTORY, the directories above the
// binary (and the working directory). Empty when not installed.
std::string find_thunder_python();
// The Python that runs `strategy`: the thunder venv's, $AF_TORCH_PYTHON or
// /usr/bin/python3 for torch-functionalize, a py: spec's own, a versioned
// strategy's torch (the newest installed without '@'). Empty when not
// installed.
std::string external_python(const std::string& strategy);
// Why external_python(strategy) is empty, with the way to install it.
std::string external_unavailable(const std::string& strategy);
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
  // `invalid`: p is a program the oracle rejects; when eager PyTorch
  // raises, the compiled function runs too (ExternalResult::strategy_accepted).
  ExternalResult run(const ir::Program& p, const std::string& strategy, bool invalid = false);
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

// Runs p (valid, or with `invalid` one the oracle rejects) under an
// external strategy in this process's runner for that strategy's Python
// (one per Python, lazily started, kept for the life of the process; a
// forked child starts its own).
ExternalResult run_external(const ir::Program& p, const std::string& strategy, bool invalid = false);
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

// ---- capability probe (oracles/capabilities.cc)

// What an external strategy cannot run: for every op of the vocabulary
// (ir::all_ops() without the ops strategies introduce), tiny programs (the
// op alone on an input; after an in-place write to that input; on a
// strided view that is then written; on one of two inputs sharing a
// storage; each form of its arguments, e.g. add_ with a number and with a
// tensor) go through the strategy next to the same programs without the
// op. An op is unsupported when one of its programs raises an unsupported
// error (classify_external_error) while the program without it runs.
struct Capabilities {
  std::string strategy;
  std::string versions;                         // "torch 2.9.1, thunder 0.2.6"; "" when not probed
  std::map<std::string, std::string> unsupported;  // op name -> "ErrorType: message [probe]" of one failing probe
  // Contexts whose program without any op already failed (so no op was
  // judged there): variant -> "ErrorType: message" (e.g. thunder-dataflow
  // raises AssertionError on a written strided view).
  std::map<std::string, std::string> inconclusive;
  // Forms of program (not ops) the strategy fails on while the same
  // program without that form runs: form -> "ErrorType: message". A
  // campaign generates around them (fuzz::GenOptions), so that one known
  // crash does not end most of its programs. Forms: see kFormChecks in
  // capabilities.cc ("aliased-inputs-of-different-sizes").
  std::map<std::string, std::string> failing_forms;
  int probes = 0;                               // programs run (0 when read from the cache)
  bool from_cache = false;
  bool available = false;                       // the strategy's Python is installed and the probe ran
  std::string error;                            // why not available
  std::string cache_path;
};

// The capabilities of `strategy`, probed at its first use in this process
// and cached across processes per strategy and system version in
// $AF_CAPABILITY_CACHE, else $XDG_CACHE_HOME/aliasfuzz/capabilities, else
// ~/.cache/aliasfuzz/capabilities (STRATEGY--VERSIONS.json, written
// atomically; a cache of another version is never read). refresh: probe
// again and rewrite the cache. Unavailable (no Python): available false.
Capabilities probe_capabilities(const std::string& strategy, bool refresh = false);
// Forgets what this process probed or read (the next call reads the cache): for tests.
void forget_capabilities();

// op name -> 0.0 for every op `strategy` cannot run (empty when it can run
// them all or is not installed): fuzz::GenOptions::op_weights takes it
// directly (weight 0 disables an op).
std::map<std::string, double> unsupported_op_weights(const std::string& strategy);

// "not supported by thunder 0.2.6: fill_, sigmoid_" ("" when nothing is).
std::string capabilities_summary(const Capabilities& c);
// "thunderfx (torch 2.9.1, thunder 0.2.6) fails on aliased-inputs-of-different-sizes
// (RuntimeError: ...)" ("" when it fails on no form).
std::string failing_forms_summary(const Capabilities& c);

// The probe's programs for one op (.af text, valid) with their names, and
// the controls (the same programs without the op): exposed for tests.
struct ProbeProgram {
  std::string name;     // "OP/FORM/VARIANT" or "control/VARIANT"
  std::string op;       // "" for a control
  std::string variant;  // alone, after-inplace, on-view, aliased-inputs
  std::string text;
};
std::vector<ProbeProgram> probe_programs();

}  // namespace af::oracles
