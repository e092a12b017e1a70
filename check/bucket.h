// The bucket of a finding: the coarse class a campaign sorts findings into
// before minimizing them (strategy, reorder and fusion class, what diverged,
// class of the first diverging op).
#pragma once
#include <optional>
#include <string>

#include "check/check.h"

namespace af::fuzz {

// The bucket of a diverging run: strategy and mutant, reorder class
// (program-order or reordered), fusion class (unfused or fused), which
// observable diverged (return, storage, error) and the class of the first
// diverging op (inplace, view, may-alias, compute, reduction, ...; "returns"
// when only the full program diverges). RunRecord::op keeps the exact op.
// A run whose external runner crashed or hung has a kind of its own,
// STRATEGY__REORDER__FUSION__runner-crash-SIGSEGV (or -exit-N, or
// __runner-timeout), never mixed with the compiler's values or exceptions.
// A program eager rejects that the strategy runs is of kind
// "accepts-invalid-KIND" (the oracle's error kind), classed by the failing
// statement's op.
// A divergence the checks reported (checked mode) is of kind "stmt" and
// classed by the reported source statement's op: the same bucket whatever
// the order the schedule ran in, which prefix bisection cannot promise.
struct Bucket {
  std::string who;     // STRATEGY[+MUTANT], as a folder name may spell it
  std::string order;   // program-order or reordered
  std::string fusion;  // unfused or fused
  std::string what;    // return, storage, error, stmt, input-meta, accepts-invalid-KIND, runner-...
  std::string op;      // the first diverging op's class; "" for a runner failure
  static Bucket of(const RunRecord& r);
  // WHO__ORDER__FUSION__WHAT[__OP]: the folder name under findings/.
  std::string to_string() const;
  // A name to_string wrote; nullopt for any other (crash, timeout).
  static std::optional<Bucket> parse(const std::string& name);
};
// Bucket::of(r).to_string().
std::string bucket_of(const RunRecord& r);

// The word for an accepts-invalid finding, in its bucket kind, its bug
// signature and the ledger's `what:`: "accepts-invalid-" + the oracle's error
// kind. accepted_invalid_kind reads the kind back ("" for any other word).
std::string accepts_invalid_what(const std::string& kind);
std::string accepted_invalid_kind(const std::string& what);
// The word for a finding where only an input's final geometry differs
// (format v1.3's metadata ops), in its bucket kind, its bug signature and
// the ledger's `what:`.
inline constexpr char kInputMeta[] = "input-meta";
// The word before a bucket's or a bug's `what` when the second call of a
// recall run diverged ("recall-values", "recall-AssertionError"): a
// compiled function that is right on its first inputs and wrong on
// another alias layout is a bug of its own.
inline constexpr char kRecallPrefix[] = "recall-";
// The history across processes (issue #56): the recall layout compiled in a
// new process over the compiler cache the program's own layout left.
inline constexpr char kStaleFromCachePrefix[] = "stale-from-cache-";

// "runner-crash-SIGSEGV", "runner-crash-exit-1", "runner-crash" (how it
// died unknown) or "runner-timeout" for the error of a run whose external
// runner died or hung (check_program's "external runner crash: ..." text);
// "" for any other error.
std::string runner_failure_kind(const std::string& error);

}  // namespace af::fuzz
