// One bug, one key: the signature of a finding is taken from its
// *minimized* program, so that the many classes a campaign sorts findings
// into online (check/check.h bucket_of: strategy, reorder and fusion class,
// observable, class of the first diverging op) fold into the bugs behind
// them. The key is the strategy (and mutant), the error type for errors
// (accepts-invalid-KIND for a program eager rejects that it ran), and the
// cause: the alias relations of the bug program (generate/features.h
// alias_relations: "alias:input~shared", "alias:input/unfold",
// "meta:input"); when it has none, the fusion policies it agrees under if
// some does (a defect of scheduling, whatever op shows it:
// MinimizedFinding::schedule_sensitivity, our strategies only); else its
// ops (a wrong kernel for exp_ is not one for tanh_); "mode:training"
// after it when the bug program kept requires_grad or backward (a wrong
// gradient is not the forward defect of the same ops). Not the skeleton:
// two findings of one defect often minimize to programs that differ by a
// statement the minimizer could not remove (issue #40), or by the op
// doing an aliased write, while the relation is the defect's. Alias
// first: whether a fusion policy shows an alias bug depends on the
// program the minimizer stopped at. Which observable diverged is not part
// of it (a property of the bug), nor are sizes, constants or names.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "check/bucket.h"
#include "check/check.h"
#include "triage/minimize_finding.h"
#include "ir/program.h"

namespace af::fuzz {

// "IndexError", "AssertionError", ... from an error message; "error" when it
// names none; runner_failure_kind (check.h) for a crashed or hung runner.
std::string error_type(const std::string& error);

// How a run diverges, as the ledger's `what:` line names it: "values",
// input-meta (only an input's final geometry differs), the error type
// (error_type), or accepts-invalid-KIND for a program eager rejects that
// the strategy ran. A bug key says "values" for input-meta too (one
// defect shows as either, by the initial values: bug_signature).
std::string bug_what(const RunRecord& rec);

// The cause part of the key (see above).
std::string bug_cause(const ir::Program& minimized, const std::string& schedule_sensitivity = "");

// The bug a finding is. Its key, "who|what|cause", is what minimize.json
// (bug_key) and the ledger hold; one parse reads it back, so no reader
// splits it by hand.
struct BugSignature {
  std::string who;    // strategy[+mutant], without a torch version: one bug on 2.9.1 and 2.15.0 is one bug
  std::string what;   // bug_what, input-meta read as "values": "values", an error type or accepts-invalid-KIND
  std::string cause;  // bug_cause: comma-separated words ("alias:input~shared,meta:input")
  std::string name;   // readable and unique: update_aliases__IndexError__input~shared__3f2a91c4 ("" when parsed)

  std::string key() const;
  // nullopt unless `key` has three parts; the name stays empty.
  static std::optional<BugSignature> parse(const std::string& key);
  std::vector<std::string> cause_words() const;
  // Same who and what, and the causes share an alias root ("alias:input~shared",
  // "alias:input" of "alias:input/chunk", "meta:input"): a lead that this
  // bug may be another face of one already known.
  bool resembles(const BugSignature& other) const;
  // The alias roots of the cause ("alias:input~shared", "alias:input",
  // "meta:input"); empty for a cause of ops or fusion policies alone.
  std::set<std::string> alias_roots() const;
  bool operator==(const BugSignature& o) const { return who == o.who && what == o.what && cause == o.cause; }
  bool operator!=(const BugSignature& o) const { return !(*this == o); }
};
// A run record that diverges the way `what` (bug_what's word) says: what
// a ledger entry or a stored bug key holds, read back into a record for
// bug_signature.
RunRecord record_of_what(const run::RunSpec& spec, const std::string& what);
BugSignature bug_signature(const RunRecord& rec, const ir::Program& minimized,
                           const std::string& schedule_sensitivity = "");
// The bug of a minimized finding: its bug program, run and schedule sensitivity.
BugSignature finding_bug(const MinimizedFinding& m);

}  // namespace af::fuzz
