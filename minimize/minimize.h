// The minimizer (docs/design.md, "Campaigns, findings, minimization"): a greedy
// delta-debugging loop over program-shrinking passes, run to a fixed point.
//
// The core, minimize(), is generic over an interestingness predicate: it
// only ever hands the predicate valid programs (every candidate is printed,
// re-parsed and passed through ir::analyze; invalid candidates are counted
// and dropped, never emitted), keeps a candidate when the predicate holds,
// and returns the smallest program it reached. Passes (declared in
// minimize/minimize_passes.h, one file per family: minimize_delete.cc,
// _inputs, _reads, _ops, _order, _values; each tested alone by its
// before/after text in minimize_passes_test.cc), roughly in the order one
// round runs them:
//   1. delete statements (ddmin chunks, each with its whole dependent chain;
//      at a fixed point of every pass, also pairs of statements)
//   2. delete returns, inputs and storages (with their dependent chains)
//   3. bypass a statement (later uses read one of its tensor arguments)
//      and unbind bound in-place results
//   4. replace views and ops by simpler ones (alias, view; tensor operands
//      of binary/in-place ops by 1.0; copy_ by fill_)
//   5. shrink sizes and ranks (storage numel, input as_strided sizes,
//      strides and offset, size lists and integers of statements)
//   6. simplify constants (to 0, 1, 2, -1) and initial values
//      (random/list/iota -> full(0|1|2|-1) or iota(0, 1))
// and at the end renames everything to short canonical names (s0.., x0..,
// t0..). Deterministic: the same input, predicate and options give the
// same output, unless the wall-clock budget cuts the loop short (use
// max_tests for a budget that is deterministic too).
//
// minimize_finding() (triage/minimize_finding.h) is the finding-level call: the predicate is "the run
// of this RunSpec disagrees with the oracle and bucket_of() is unchanged",
// through check_program, exactly as a campaign defines a finding.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "check/bucket.h"
#include "check/check.h"
#include "ir/program.h"
#include "oracles/eager.h"

namespace af::fuzz {

using Interesting = std::function<bool(const ir::Program&)>;

struct MinimizeOptions {
  double time_s = 60;      // wall-clock budget; <= 0: none
  int64_t max_tests = -1;  // budget in predicate calls; < 0: none
  bool rename = true;      // canonical short names at the end
  // minimize_finding only: for a `random:SEED` reorder policy (bucket class
  // "random"), after a first fixed point with the spec's seed, go on where
  // a candidate that loses the divergence under the current seed may also
  // try random:0 .. random:(seeds-1), in that order, keeping the first
  // that shows the same bucket. A random topological order is a chaotic
  // function of the program, so a fixed seed stalls the minimizer; the
  // bucket does not name the seed. 0: keep the spec's seed.
  int seeds = 16;
  // Minimizing a program the oracle rejects (the accepts-invalid class):
  // candidates must be rejected with this error kind instead of valid.
  std::optional<ir::ErrorKind> error_kind;
  // Ends the search early, at the current program, when it returns true
  // (checked between candidates): the caller has what it looked for. Not a
  // budget cut (MinimizeStats::stopped, not budget_hit).
  std::function<bool()> stop;
  // minimize_finding only: the known bug (a ledger entry's name, "" when
  // none) a diverging candidate and its run are. A campaign's minimizer
  // ends at the first candidate that is a known bug (issue #34): what is
  // left of a known bug's minimization is the ledger's work, and its tests
  // go to findings that may hold a new one. Empty: minimize to the end.
  std::function<std::string(const ir::Program&, const RunRecord&)> known_bug;
};

struct MinimizeStats {
  bool initially_interesting = false;
  int64_t tests = 0;        // predicate calls (candidates evaluated)
  int64_t invalid = 0;      // candidates rejected by the validity check (never shown to the predicate)
  int64_t duplicates = 0;   // candidates already tried
  int64_t accepted = 0;     // candidates kept
  int rounds = 0;           // rounds of all passes
  bool budget_hit = false;  // stopped by time_s or max_tests before the fixed point
  bool stopped = false;     // ended by MinimizeOptions::stop before the fixed point
  double elapsed_s = 0;
  int stmts_before = 0, stmts_after = 0;
  int64_t bytes_before = 0, bytes_after = 0;  // size of the printed program
};

// Minimizes p while interesting() holds. p must be valid (or rejected with
// o.error_kind); when p itself is not interesting it is returned unchanged
// (stats->initially_interesting false).
ir::Program minimize(const ir::Program& p, const Interesting& interesting, const MinimizeOptions& o = MinimizeOptions(),
                     MinimizeStats* stats = nullptr);

// Short canonical names: storages s0, s1, ..., inputs x0, x1, ..., statement
// results t0, t1, ... in definition order.
ir::Program canonical_names(const ir::Program& p);

}  // namespace af::fuzz
