// One bug, one key: the signature of a finding is taken from its
// *minimized* program, so that the many classes a campaign sorts findings
// into online (fuzz/check.h bucket_of: strategy, reorder and fusion class,
// observable, class of the first diverging op) fold into the bugs behind
// them. The key is the strategy (and mutant), the error type for errors
// (accepts-invalid-KIND for a program eager rejects that it ran), and the
// program's skeleton: its ops and alias structure (which inputs
// share a storage, which statements read which values) with names made
// canonical and sizes, offsets, constants and initial values abstracted.
// Which observable diverged is not part of it (a property of the bug).
#pragma once
#include <string>

#include "fuzz/check.h"
#include "ir/program.h"

namespace af::fuzz {

// The skeleton as text, one line per storage, input and statement
// (returns left out; an input over a whole storage reads as as_strided
// too), with inputs in order of first use and names made canonical.
std::string skeleton(const ir::Program& p);

// "IndexError", "AssertionError", ... from an error message; "error" when it
// names none; runner_failure_kind (check.h) for a crashed or hung runner.
std::string error_type(const std::string& error);

// How a run diverges, as a bug key and the ledger's `what:` line name it:
// "values", the error type (error_type), or accepts-invalid-KIND for a
// program eager rejects that the strategy ran.
std::string bug_what(const RunRecord& rec);

struct BugSignature {
  std::string key;   // strategy[+mutant] | error type, accepts-invalid-KIND or "values" | skeleton
  std::string name;  // readable and unique: update_aliases__IndexError__add_-tanh___3f2a91c4
};
BugSignature bug_signature(const RunRecord& rec, const ir::Program& minimized);

}  // namespace af::fuzz
