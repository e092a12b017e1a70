// Root defects (issue #57): the unit a maintainer counts is what one
// upstream fix removes, not a bug signature (which counts faces: one
// defect seen through select, narrow and chunk is three signatures).
// Bugs are grouped by the evidence the compiler itself gives
// (fuzz/evidence.h), within one system (compilers' `system`: thunder and
// thunderfx are one code base). The rule, from the ledger's data
// (docs/design.md, "Root defects"):
//
//   1. two bugs with the same fault frame (the innermost frame of the
//      compiler proper of an error or crash) are one defect, whatever the
//      exception type or the view;
//   2. an error with no such frame (PyTorch's C++ check fired below the
//      compiler) is one defect with the others of the same message template;
//   3. a bug whose top suspect (by Ochiai over its passing neighbours) is
//      another's top suspect or fault frame is that one's defect;
//   4. a bug with neither stands alone.
//
// The links are taken transitively (union-find); each defect is named by
// its smallest face (fewest statements, then name).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "fuzz/evidence.h"
#include "fuzz/ledger.h"

namespace af::fuzz {

struct Defect {
  std::string name;                  // its smallest face's entry
  std::string system;                // compilers' system of its strategies
  std::vector<std::string> entries;  // its faces, smallest first
  std::string evidence;              // what grouped them ("fault F", "message M", "suspect S", "alone: ...")
};

// The system an entry's strategy runs ("torch.compile", "thunder", ...).
std::string entry_system(const LedgerEntry& e);

// The defects of `entries`, each entry in exactly one; `evidence` by entry
// name (an entry without any stands alone). Ordered by system, then by
// faces (most first), then name.
std::vector<Defect> group_defects(const std::vector<LedgerEntry>& entries,
                                  const std::map<std::string, Evidence>& evidence);

}  // namespace af::fuzz
