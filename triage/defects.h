// Root defects (issue #57): the unit a maintainer counts is what one
// upstream fix removes, not a bug signature (which counts faces: one
// defect seen through select, narrow and chunk is three signatures).
// Bugs are grouped by the evidence the compiler itself gives
// (triage/evidence.h), within one system (compilers' `system`: thunder and
// thunderfx are one code base). The rule, from the ledger's data
// (docs/design.md, "Root defects"):
//
//   1. two bugs with the same fault frame (the innermost frame of the
//      compiler proper of an error or crash; for a wrong return, the
//      compiler function that made it) are one defect, whatever the
//      exception type or the view; a closure counts as the function it is
//      defined in;
//   2. an error with no such frame (PyTorch's C++ check fired below the
//      compiler) is one defect with the others of the same `what` and
//      message template;
//   3. wrong values with neither, made by one pass or lowering of
//      torch.compile's backend (the evidence's stage, compiler_bisector's
//      subsystem and what it names, not its count: stage_pass), are one
//      defect with the others of the same `what` and pass; a stage that is
//      a backend alone ("aot_eager": all of AOTAutograd) is too wide;
//   3b. wrong values with neither, whose minimized programs need the same
//      construct (program_trigger: a foreach call), first wrong in the
//      same backend of torch.compile (or with no stage), are one defect
//      with the others of the same `what`: the faces of one construct's
//      handling (a foreach call's elements aliasing through the same
//      tensor twice, the lists swapped, overlapping views);
//   4. other wrong values are one defect with the others of the same
//      `what`, the same wrong observable ("return shape") and the same
//      ranked suspects (all kMaxSuspects of them: a top suspect alone is
//      often the precondition of a mechanism, which several defects share);
//   5. a bug with none of those whose only evidence is the one setting
//      that removes it (a bug-zoo mutant of aliasfuzz's own strategies:
//      `removed by --inject none`) is one defect with the others of its
//      strategy removed so;
//   6. a bug with no evidence stands alone;
//   and over all of them: bugs that a release tells apart (one agrees
//   there, the other does not: a fix landed for one alone) are never one
//   defect (DefectCandidate::fixed_in).
//
// The links are taken transitively (union-find); each defect is named by
// its smallest face (fewest statements, then name).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "triage/evidence.h"
#include "triage/ledger.h"

namespace af::fuzz {

struct Defect {
  std::string name;                  // its smallest face's entry
  std::string system;                // compilers' system of its strategies
  std::vector<std::string> entries;  // its faces, smallest first
  std::string evidence;              // what grouped them ("fault F", "message M", "suspect S", "alone: ...")
};

// The system a strategy runs ("torch.compile", "thunder", ...; compilers'
// `system`, else the strategy's name).
std::string strategy_system(const std::string& strategy);

// The pass of a stage that names one ("inductor: post_grad_passes #14
// (decompose_auto_functionalized)" -> "inductor: post_grad_passes
// (decompose_auto_functionalized)"); "" for a backend alone or none.
std::string stage_pass(const std::string& stage);

// A bug to group: a ledger entry, or a campaign's bug.
struct DefectCandidate {
  std::string name, system, what;  // system: strategy_system of its strategy
  size_t size = 0;                 // statements of its program: the smallest face names the defect
  std::string trigger;             // program_trigger of its (minimized) program
  // The versions it was checked on and agrees on, though it reproduces on
  // another (ledger `on` lines: "torch 2.15.0"; "" for a campaign's bug,
  // checked on one version): bugs fixed in different releases are two fixes.
  std::string fixed_in;
  std::string writes;  // write_shapes of its (minimized) program
};

// fixed_in of a ledger entry's `on` lines.
std::string fixed_in(const std::map<std::string, std::string>& on);

// The construct a minimized bug program needs that a compiler handles in
// one place: "foreach call" when it holds one (the minimizer's
// plain_foreach pass turns a call the bug does not need into statements);
// "" otherwise.
std::string program_trigger(const ir::Program& p);

// The shapes of the writes into inputs a minimized bug program makes, as an
// input-mutation pass tells them apart ("empty", "overlapping": an element
// reached twice, "outside the inputs": storage no input's elements hold;
// sorted, comma-separated; "" when every write is a plain one). Rule 4
// keys on it too: coverage ranks the same functions first for every
// program that mutates an input, so equal suspects alone join defects
// whose fixes differ by the write's shape.
std::string write_shapes(const ir::Program& p);

// The defects of `bugs`, each in exactly one; `evidence` by name (a bug
// without any stands alone). Ordered by system, then by faces (most
// first), then name.
std::vector<Defect> group_defects(const std::vector<DefectCandidate>& bugs,
                                  const std::map<std::string, Evidence>& evidence);
std::vector<Defect> group_defects(const std::vector<LedgerEntry>& entries,
                                  const std::map<std::string, Evidence>& evidence);

// issue.md of a defect (`ledger defects --issues DIR`): the title from
// its smallest face's cause, where to look (the evidence), the versions,
// the upstream status and searches of its faces, the smallest face's
// repro.py (`repro`, already written), and its other faces one line each.
// `texts`: each entry's file text by name (for its header's upstream lines).
std::string defect_issue(const Defect& d, const std::vector<LedgerEntry>& entries,
                         const std::map<std::string, Evidence>& evidence,
                         const std::map<std::string, std::string>& texts, const std::string& repro);

// A defect's upstream status from its faces' headers: "known URL" (the
// first face, smallest first, with an upstream report), "fixed VERSION"
// when every face is fixed, else "new".
std::string defect_status(const Defect& d, const std::vector<LedgerEntry>& entries);

// DEFECTS.md of a ledger folder (`ledger defects --index`): the ledger as
// a maintainer counts it, one entry per defect (its smallest face's cause,
// status, evidence, first bad release, and every face), by system. The
// face files stay the replayable programs; the suite checks the index is
// current.
std::string defects_index(const std::vector<Defect>& defects, const std::vector<LedgerEntry>& entries);

}  // namespace af::fuzz
