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
// `ledger defects` groups by (fuzz/defects.h).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "fuzz/ledger.h"

namespace af::fuzz {

struct Evidence {
  std::string under;                // the strategy it was gathered under (aot-eager@2.15.0)
  std::string fault;                // the fault frame (PATH:QUALNAME), "" when none
  std::string message;              // an error's message as a template ("" for wrong values)
  std::vector<std::string> suspects;  // best first, at most kMaxSuspects
  int neighbours = 0, passing = 0;  // neighbours run, and those the compiler got right
  double seconds = 0;               // what gathering cost (not recorded in the line)
};
inline constexpr size_t kMaxSuspects = 6;

// Gathers the evidence of entry `e` under `strategy` (one of
// ledger_strategies(e), where it reproduces). nullopt and *why when the
// strategy is not installed or the entry does not diverge there.
std::optional<Evidence> gather_evidence(const LedgerEntry& e, const std::string& strategy, std::string* why);

// The `# evidence:` line's text, and back (nullopt when malformed):
//   under aot-eager@2.15.0; fault PATH:FN; message TEXT; suspects A, B; passing 3 of 5
std::string evidence_text(const Evidence& ev);
std::optional<Evidence> parse_evidence_text(const std::string& text);

// The pieces, exposed for tests: the fault frame of frames ordered
// outermost first; a message as a template; faulthandler's stack in a
// crash's stderr as PATH:FUNCTION frames, outermost first; suspects
// ranked by Ochiai from one failing coverage and the passing ones.
std::string fault_frame(const std::vector<std::string>& frames);
std::string message_template(const std::string& message);
std::vector<std::string> crash_frames(const std::string& stderr_tail);
std::vector<std::string> rank_suspects(const std::vector<std::string>& failing,
                                       const std::vector<std::vector<std::string>>& passing, size_t n);

}  // namespace af::fuzz
