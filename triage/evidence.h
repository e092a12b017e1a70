// Evidence of where a compiler goes wrong on a bug program (issue #57),
// taken from the system under test itself, not from the program's text:
//
//   - an error or a crash: the compiler's frames of its traceback (the
//     faulthandler stack of a crash), and the *fault frame*, the innermost
//     one outside the generic op machinery every program passes through
//     (torch/_refs, torch/_prims, the meta functions, FX, Thunder's prims
//     and interpreter...): "torch/_functorch/_aot_autograd/
//     functional_utils.py:gen_alias_from_base". An error PyTorch's C++
//     raises below the compiler has no such frame; its message template
//     (numbers as N) names the check that fired;
//   - every bug: the *suspects*, the compiler's functions ranked by
//     Ochiai over function coverage of the bug program (failing) and its
//     passing neighbours, the programs one edit away that the compiler
//     gets right (a statement or a return removed, the inputs in the
//     other alias layout). A function that only the failing run executes
//     ranks first (Ochiai 1); among equals, the one fewer of all runs
//     reached (the more specific) first.
//
// Gathering costs a handful of compiles with a trace hook on; it is done
// for bug programs only (the ledger: `aliasfuzz ledger evidence`), and
// recorded in the entry's header as one `# evidence:` line, which
// `ledger defects` groups by (triage/defects.h).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "triage/ledger.h"
#include "minimize/minimize.h"
#include "triage/minimize_finding.h"

namespace af::fuzz {

struct Evidence {
  std::string under;  // the strategy it was gathered under (aot-eager@2.15.0)
  // The system the error is in when it is not the strategy's own: one the
  // strategy runs inside ("torch.compile" for thunderfx's Dynamo), by the
  // innermost compiler frame; "" otherwise.
  std::string system;
  std::string fault;    // the fault frame (PATH:QUALNAME), "" when none
  std::string message;  // an error's message as a template ("" for wrong values)
  // Wrong values: what the compiler got wrong, "return values", "return
  // shape", "storage values", "input geometry", "grad values" (the first
  // observable that differs from eager's).
  std::string wrong;
  // A wrong return: the compiler function that made it (the first that
  // returned that tensor; outside the op machinery), "" otherwise.
  std::string made_by;
  // Wrong values under torch.compile: the first backend, and the subsystem
  // of it, that makes them (compilers::torch_compile_stage: "inductor:
  // post_grad_passes #2 (...)", "aot_eager"); "" when not bisected or
  // when no backend was wrong in the bisector's run (`no_stage` says which).
  std::string stage;
  // Thunder: the first of its options (compilers::thunder_options) under
  // which the program agrees with eager, as its keyword argument
  // ("skip_inplace_alias_updates=True"); "" when none does.
  std::string removed_by;
  std::vector<std::string> suspects;  // best first, at most kMaxSuspects
  int neighbours = 0, passing = 0;    // neighbours run, and those the compiler got right
  // Not recorded in the line: what gathering cost, and the whole error or
  // crash stack (the compiler's frames, outermost first).
  double seconds = 0;
  std::vector<std::string> frames;
  std::string no_stage;  // why a bisected wrong value has no stage
};
inline constexpr size_t kMaxSuspects = 6;

// A bug to gather evidence for: its program, spec (the strategy replaced
// by gather_evidence's; across_processes for a stale-from-cache bug) and
// how it diverges (bug_what).
struct BugCase {
  ir::Program program;
  run::RunSpec spec;
  std::string what;
};
// Gathers the evidence of bug `b` under `strategy` (for a ledger entry one
// of ledger_strategies(e), where it reproduces). nullopt and *why when the
// strategy is not installed or the bug does not diverge there as `what`.
// `all_suspects`: every function ranked, not kMaxSuspects (`ledger evidence --verbose`).
std::optional<Evidence> gather_evidence(const BugCase& b, const std::string& strategy, std::string* why,
                                        bool all_suspects = false);
inline std::optional<Evidence> gather_evidence(const LedgerEntry& e, const std::string& strategy, std::string* why,
                                               bool all_suspects = false) {
  return gather_evidence(BugCase{e.program, e.spec, e.what}, strategy, why, all_suspects);
}

// The `# evidence:` line's text, and back (nullopt when malformed):
//   under aot-eager@2.15.0[; in SYSTEM]; fault PATH:FN; message TEXT; wrong WHAT; made by PATH:FN;
//   stage BACKEND: SUBSYSTEM #N (INFO); removed by KEYWORD=VALUE; suspects A, B; passing 3 of 5
std::string evidence_text(const Evidence& ev);

// A minimized finding of an external strategy (its bug program at its
// fixed point): gathers its bug program's evidence and adds it to
// DIR/minimize.json ("evidence": the line's text, "evidence_s": its cost),
// which write_minimized wrote first (a worker killed meanwhile loses only
// the evidence). False when there is none to add (not an external
// strategy, a cut bug program, it did not diverge again).
bool record_finding_evidence(const std::string& dir, const MinimizedFinding& m);
std::optional<Evidence> parse_evidence_text(const std::string& text);

// The pieces, exposed for tests: the fault frame of frames ordered
// outermost first; a message as a template; faulthandler's stack in a
// crash's stderr as PATH:FUNCTION frames, outermost first; suspects
// ranked by Ochiai from one failing coverage and the passing ones.
std::string fault_frame(const std::vector<std::string>& frames);
std::string embedded_system(const std::string& system, const std::vector<std::string>& frames);
std::string message_template(const std::string& message);
std::vector<std::string> crash_frames(const std::string& stderr_tail);
std::vector<std::string> rank_suspects(const std::vector<std::string>& failing,
                                       const std::vector<std::vector<std::string>>& passing, size_t n);

}  // namespace af::fuzz
