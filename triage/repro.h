// What a minimized finding leaves behind: min.af, a standalone PyTorch
// repro.py, minimize.json, and (on request) a regression case in
// corpus/regressions/ that the test suite replays.
#pragma once
#include <optional>
#include <string>

#include "check/check.h"
#include "minimize/minimize.h"
#include "ir/program.h"
#include "oracles/eager.h"
#include "triage/minimize_finding.h"

namespace af::fuzz {

// A standalone PyTorch script (runs under /usr/bin/python3, torch 1.13):
// builds the storages with their exact initial values and the inputs with
// torch.as_strided, runs the program eagerly, prints every observable as
// PyTorch eager computes it next to the oracle's expected values and the
// values the diverging strategy produced (embedded: `actual` when the full
// observables are known, else the first mismatch of `rec`), and names the
// diverging observable. For spec.strategy == "torch-functionalize" it also
// runs functorch.experimental.functionalize on the program function and
// prints where it differs from eager. For a Thunder strategy (thunder,
// thunder-dataflow, thunder-no-alias-updates) the script is for the
// .venv-thunder Python (its header names it): it imports thunder, runs
// thunder.jit(_fn, <the strategy's options>) on fresh inputs with the same
// aliasing and prints where it differs from eager of that Python. The
// program text comes from oracles::torch_script (one emitter for the whole
// project), split by oracles::functional_form into _setup() and _fn().
std::string repro_script(const ir::Program& p, const run::RunSpec& spec, const RunRecord& rec,
                         const oracles::Observables& expected, const oracles::Observables* actual = nullptr);

// The full observables the diverging run produced, recomputed through the
// interpreter tier (schedulers::make_schedule + interpret) for target
// interp; returned only when that run shows exactly rec's first mismatch
// (else nothing: the repro then embeds the first mismatch alone).
std::optional<oracles::Observables> strategy_observables(const ir::Program& p, const RunRecord& rec);

// The running aliasfuzz binary (what repro.py and the reports' repro
// commands run); "" when this process is another program (a test).
std::string aliasfuzz_binary();

// Writes DIR/min.af, DIR/repro.py and DIR/minimize.json (creating DIR).
// False and *error when a file cannot be written or m is not ok.
bool write_minimized(const std::string& dir, const MinimizedFinding& m, std::string* error);

// ---- regression cases (corpus/regressions/*.af)

// A regression case: the program plus a header comment with the spec and
// the expected verdict. For a must-agree strategy the verdict is `agree`
// (the case replays the bug after it was fixed); for a strategy or mutant
// under study it is `disagree` with the bucket.
struct RegressionCase {
  run::RunSpec spec;
  bool expect_agree = false;
  std::string bucket;  // the bucket of the original finding
  ir::Program program;
};

std::string regression_text(const RegressionCase& c);
// Parses a regression file (program and header); nullopt and *error when
// the header or the program is malformed or invalid.
std::optional<RegressionCase> parse_regression(const std::string& text, std::string* error);
// The regression case of a minimized finding.
RegressionCase regression_of(const MinimizedFinding& m);
// Writes ROOT/corpus/regressions/NAME.af (NAME from the bucket and the
// program's structural hash); returns the path, or "" and *error.
std::string add_to_corpus(const std::string& root, const MinimizedFinding& m, std::string* error);

// The outcome of replaying one regression case.
enum class Replay { Pass, Fail, Skipped /* no run for this spec (strategy not available) */ };
Replay replay(const RegressionCase& c, std::string* detail);

}  // namespace af::fuzz
