// One differential check: a program, the run settings to try on it, and
// what each run gave. The campaign, the minimizer and the libFuzzer target
// all go through check_program, so a finding means the same everywhere.
#pragma once
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ir/program.h"
#include "oracles/eager.h"
#include "run/spec.h"
#include "check/execute.h"
#include "schedulers/schedulers.h"

namespace af::fuzz {

// What checked mode reported, as `run --json` and findings spell it.
nlohmann::json check_failure_json(const schedulers::CheckFailure& f);
struct RunRecord {
  run::RunSpec spec;
  bool agree = true;
  int regions = 0;
  std::optional<oracles::Mismatch> mismatch;
  std::string op;     // kind of the op behind the first mismatching observable
  std::string error;  // the strategy itself failed (an exception): a finding too
  // An external strategy raised an *unsupported* error ("Type: message";
  // compilers::classify_external_error): the program never reached a value
  // comparison, but this is not a divergence (agree stays true, error
  // empty). A campaign counts these apart from findings.
  std::string unsupported;
  // The external runner's Python process died (error "external runner
  // crash: ... (SIGSEGV)"): the last lines it wrote on stderr.
  std::string stderr_tail;
  // Checked mode: the first statement the checks reported, as the source
  // program's statement when provenance names one (then `op` is its op and
  // no prefix bisection ran).
  std::optional<schedulers::CheckFailure> first_failure;
  // A program the oracle rejects (check_invalid_program) that the strategy
  // ran to the end: the oracle's error kind ("overlap", "shape", ...). A
  // finding of the accepts-invalid class; `op` is the failing statement's op.
  std::string accepted_invalid;
  // A recall run (RunSpec::recall) whose first call agreed and whose second
  // call, on the recall layout, diverged: `mismatch` or `error` is that
  // call's (its observables are the recall layout's, ir::recall_layout).
  bool recall = false;
  // A recall run whose second call diverged as a fresh compile of the
  // recall layout does too: the layout's own first-call bug, no recall
  // bug (the run agrees; `run --recall` says so).
  bool recall_layout_diverges = false;
  // A recall run checked across processes (CheckOptions::across_processes)
  // whose recall layout, compiled in a new process over the compiler cache
  // a first process left compiling the program, diverged while a fresh
  // cache folder gives the right result: `mismatch` or `error` is that
  // run's (the recall layout's observables).
  bool stale_from_cache = false;
  double ms = 0;  // wall time of the run, first-op bisection included
  // Evidence of an external strategy (compilers::set_external_evidence on;
  // triage/evidence.h): the compiler's frames of the error it raised (of the
  // second call for a recall divergence), and the compiler's functions
  // that ran.
  std::vector<std::string> frames, coverage;
  std::vector<std::string> producers;  // by return: the compiler function that made it
};

// RunRecord::unsupported of a training program (format v1.4) that eager
// PyTorch refuses under autograd: the arbiter rejects it, nothing to compare.
inline constexpr char kEagerRejectsTraining[] = "eager PyTorch rejects it under autograd: ";

// What a check computes beyond the verdict. The first diverging op (a
// bisection over prefixes: one more run per cut, a compile each for a
// real compiler) names a finding's bucket; a minimizer that only asks
// whether the same kind of divergence stays does without it.
struct CheckOptions {
  bool first_op = true;
  // A campaign's shortcut for slow compilers (issue #34 item 4): called on
  // an external strategy's value divergence before the bisection; a
  // non-empty answer (a known bug's name, e.g. its ledger entry) is the
  // finding's op class instead ("ledger-NAME"), and no prefix is compiled.
  std::function<std::string(const RunRecord&)> known_bug;
  // Recall runs (RunSpec::recall) of an external strategy check the history
  // across processes instead of a second call: compile the program in one
  // process and the recall layout in a second over the first's compiler
  // cache folder (RunRecord::stale_from_cache). Two Python start-ups a program.
  bool across_processes = false;
};

// A model's prediction that the real compiler refuses the program as
// unsupported ("strategy update_aliases produced an invalid program:
// Thunder raises: TypeError: add() got an unexpected keyword argument
// 'out' (line 3)", classified as a real
// Thunder's error would be): the refusal ("TypeError: ..."); nullopt for
// any other error, which stays a finding.
std::optional<std::string> predicted_refusal(const std::string& error);

// Why a run of our own strategies has nothing to compare, as `run` and
// campaigns both count it: the Halide lowering refused an op it does not
// implement (schedulers::kLoweringUnsupported: the ops of
// lowering::unsupported_reason), or a model predicts its real compiler's refusal
// (predicted_refusal); nullopt for a run that compared.
std::optional<std::string> unsupported_run(const schedulers::RunOutcome& res);

// The strategies of real compilers run in Python (the rows of
// compilers/table.h's table: thunder, inductor, ...; and py:MODULE:FUNCTION):
// under study, run only when named, compared with eager PyTorch of the
// same Python (not with the oracle). A compiler exception is either
// unsupported (NotImplementedError, "not supported", an unknown attribute
// or op: RunRecord::unsupported, not a finding) or an internal error on a
// program it accepted (AssertionError, IndexError, a shape RuntimeError,
// ...): an error-kind divergence whose bucket ends in the exception type.
// A strategy that is not installed gives no record (warned once on stderr).
// Runs every spec on a valid program (already analyzed) against the oracle's observables.
std::vector<RunRecord> check_program(const ir::Program& p, const oracles::Observables& expected,
                                     const std::vector<run::RunSpec>& specs, const CheckOptions& options = {});
// The same with the program's analysis at hand (a campaign's worker has it
// from the generator: fuzz::generate_analyzed).
std::vector<RunRecord> check_program(const ir::Program& p, const ir::Analysis& an, const oracles::Observables& expected,
                                     const std::vector<run::RunSpec>& specs, const CheckOptions& options = {});

// Runs the external specs (the others are skipped: a schedule of ours has
// no meaning for a program eager refuses) on a program the oracle rejects
// with `error`, of a kind eager PyTorch raises on (generate/invalid.h). A
// strategy that runs it to the end disagrees (accepted_invalid); one that
// raises too agrees. When that Python's eager PyTorch runs it after all
// (a version difference), the run is unsupported, with the reason.
std::vector<RunRecord> check_invalid_program(const ir::Program& p, const ir::Error& error,
                                             const std::vector<run::RunSpec>& specs);

}  // namespace af::fuzz
