// One finding minimized (minimize/minimize.h's loop with the predicate a
// campaign defines a finding by: the run of its RunSpec disagrees with the
// oracle and bucket_of() is unchanged), then its bug program, whose bug
// signature (triage/signature.h) names the bug.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "check/bucket.h"
#include "check/check.h"
#include "ir/program.h"
#include "minimize/minimize.h"
#include "oracles/eager.h"
#include "run/spec.h"

namespace af::fuzz {

// The run of `spec` on a valid program against the eager oracle, through
// check_program (or on a program eager rejects, through
// check_invalid_program). Empty when p is invalid otherwise or no record
// was made for the spec (a strategy that does not exist yet).
std::optional<RunRecord> run_spec(const ir::Program& p, const run::RunSpec& spec, const CheckOptions& options = {});

struct MinimizedFinding {
  bool ok = false;
  std::string error;           // why not (invalid program, no divergence for this spec)
  run::RunSpec original_spec;  // the spec of the finding
  run::RunSpec spec;           // the spec that reproduces the minimized program (the seed may differ)
  std::string bucket;          // bucket_of the diverging run (kept)
  ir::Program original, minimized;
  RunRecord record;  // the diverging run of the minimized program
  // min.af shrunk further while the spec still diverges the same way
  // (values, or the same error type) on any observable: the program the
  // finding's bug signature comes from (triage/signature.h), and its run.
  ir::Program bug_program;
  RunRecord bug_record;
  oracles::Observables expected;  // the oracle's observables of the minimized program
  MinimizeStats stats;
  // Minimized for novelty (issue #34): the features (generate/features.h) one
  // of which every candidate kept, and whether the bug program lost them
  // all, so that the finding is explained by that bug, not one of its own.
  std::vector<std::string> keep;
  bool explained = false;
  // The bug program's own minimization stopped at its budget (not at a
  // fixed point): it may still hold what a finished one would have shed.
  bool bug_cut = false;
  // The ledger entry a candidate turned out to be (MinimizeOptions::
  // known_bug), where the minimization ended: the bug program has that
  // entry's bug signature, not necessarily its size. "" when it ran on.
  std::string known_bug;
  // The fusion policies under which the bug program agrees
  // ("agrees-under:none"; empty when it diverges under all, or for an
  // external strategy): part of the bug signature's cause.
  std::string schedule_sensitivity;
};

// Minimizes one finding: p diverges under spec; the result keeps its bucket.
// A finding of the accepts-invalid class stays a program eager rejects
// with the same error kind.
// With `keep` (features of the finding a campaign found novel), min.af is
// instead the smallest program that diverges the same way (values, or the
// same error type) in any bucket while holding one of those features.
MinimizedFinding minimize_finding(const ir::Program& p, const run::RunSpec& spec,
                                  const MinimizeOptions& o = MinimizeOptions(),
                                  const std::vector<std::string>& keep = {});

}  // namespace af::fuzz
