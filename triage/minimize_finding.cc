// A finding minimized: its bucket kept (min.af), then the bug behind it
// (the program its signature comes from), through check_program as a
// campaign defines a finding.
#include <algorithm>

#include "check/bucket.h"
#include "generate/features.h"
#include "generate/invalid.h"
#include "minimize/minimize.h"
#include "triage/signature.h"
#include "ir/analysis.h"
#include "oracles/line_process.h"
#include "schedulers/schedulers.h"
#include "triage/minimize_finding.h"

namespace af::fuzz {

using ir::Program;

using oracles::now_s;

std::optional<RunRecord> run_spec(const Program& p, const run::RunSpec& spec, const CheckOptions& options) {
  auto an = ir::analyze(p);
  if (!an) {
    if (!eager_raises(an.error().kind)) return std::nullopt;
    for (RunRecord& r : check_invalid_program(p, an.error(), {spec}))
      if (r.spec == spec) return r;
    return std::nullopt;
  }
  oracles::Observables expected = oracles::run_eager(p, *an);
  for (RunRecord& r : check_program(p, expected, {spec}, options))
    if (r.spec == spec) return r;
  return std::nullopt;
}

constexpr int64_t kBugTests = 1000;

std::vector<std::string> features_of(const Program& q) {
  auto an = ir::analyze(q);
  return program_features(q, an ? &*an : nullptr);
}

MinimizedFinding minimize_finding(const Program& p, const run::RunSpec& spec, const MinimizeOptions& options,
                                  const std::vector<std::string>& keep) {
  const double t_start = now_s();
  MinimizedFinding m;
  m.original_spec = spec;
  m.spec = spec;
  m.original = p;
  m.minimized = p;
  auto an = ir::analyze(p);
  MinimizeOptions o = options;
  if (!an) {
    if (!eager_raises(an.error().kind) || !spec.is_external()) {
      m.error = "invalid program: " + an.error().to_string();
      return m;
    }
    o.error_kind = an.error().kind;  // an accepts-invalid finding stays one
  }
  const double t_run0 = now_s();
  auto r = run_spec(p, spec);
  // One run of the whole program: the checks after phases 1 and 2 (the
  // minimized program's run, phase 3's first check, the bug program's run)
  // cost about three such runs, kept out of the phases' budget so that a
  // slow real compiler's minimizer ends inside its caller's deadline.
  const double t_run = now_s() - t_run0;
  if (!r) {
    m.error = "no run for this spec (strategy '" + spec.strategy_name() + "'" +
              (spec.mutant == run::Mutant::None ? std::string() : ", mutant '" + spec.mutant_name() + "'") +
              " not available)";
    return m;
  }
  if (r->agree) {
    m.error = "the program does not diverge under this spec: nothing to minimize";
    return m;
  }
  m.bucket = bucket_of(*r);
  m.keep = keep;
  // The current spec follows the accepted candidates: the predicate may
  // switch the random seed, and a candidate is kept exactly when it holds.
  run::RunSpec cur = spec;
  std::vector<run::Reorder> alternatives;
  if (!spec.is_external() && spec.reorder.kind == run::ReorderKind::Random)
    for (int s = 0; s < o.seeds; ++s) alternatives.push_back({run::ReorderKind::Random, static_cast<uint64_t>(s)});
  const std::string bucket = m.bucket;
  const std::string what = bug_what(*r);
  bool switch_seeds = false;
  // A kept candidate that is a known bug ends the search there (see
  // MinimizeOptions::known_bug); `known` names it.
  std::string known;
  auto note_known = [&o, &known](const Program& q, const RunRecord& rec) {
    if (o.known_bug && known.empty()) known = o.known_bug(q, rec);
    return true;  // (a predicate's last conjunct: it only notes)
  };
  o.stop = [&known] { return !known.empty(); };
  // With features to keep (a finding a campaign found novel, issue #34):
  // any divergence of the same kind (values, error type) while one of them
  // stays, so that the minimizer cannot slip to a bug that needs none of
  // them (the known one the program also holds).
  auto holds = [&keep, &what, &bucket, &note_known](const run::RunSpec& s, const Program& q) {
    if (keep.empty()) {
      auto rq = run_spec(q, s);
      return rq && !rq->agree && bucket_of(*rq) == bucket && note_known(q, *rq);
    }
    if (!shares_feature(features_of(q), keep)) return false;
    auto rq = run_spec(q, s, {/*first_op=*/false});  // the kind of divergence needs no bisection
    return rq && !rq->agree && bug_what(*rq) == what && note_known(q, *rq);
  };
  Interesting pred = [&cur, &alternatives, &holds, &switch_seeds](const Program& q) {
    if (holds(cur, q)) return true;
    if (!switch_seeds) return false;
    for (const auto& a : alternatives) {
      if (a.kind == cur.reorder.kind && a.seed == cur.reorder.seed) continue;
      run::RunSpec s = cur;
      s.reorder = a;
      if (holds(s, q)) {
        cur = s;
        return true;
      }
    }
    return false;
  };
  // Phase 1 keeps the seed; phase 2 (random:SEED only) goes on from its
  // result and may switch seeds. Starting with the seed fixed avoids the
  // worse local minima that an early switch can lead to.
  MinimizeOptions o1 = o;
  if (o.time_s > 0) o1.time_s = std::max(0.2 * o.time_s, o.time_s - 4 * t_run);
  m.minimized = minimize(p, pred, o1, &m.stats);
  if (!alternatives.empty() && !m.stats.budget_hit && !m.stats.stopped) {
    switch_seeds = true;
    MinimizeOptions o2 = o;
    if (o.time_s > 0) o2.time_s = std::max(1e-3, o1.time_s - m.stats.elapsed_s);
    if (o.max_tests >= 0) o2.max_tests = std::max<int64_t>(0, o.max_tests - m.stats.tests);
    MinimizeStats s2;
    m.minimized = minimize(m.minimized, pred, o2, &s2);
    MinimizeStats& s = m.stats;
    s.tests += s2.tests;
    s.invalid += s2.invalid;
    s.duplicates += s2.duplicates;
    s.accepted += s2.accepted;
    s.rounds += s2.rounds;
    s.budget_hit = s2.budget_hit;
    s.stopped = s2.stopped;
    s.elapsed_s += s2.elapsed_s;
    s.stmts_after = s2.stmts_after;
    s.bytes_after = s2.bytes_after;
  }
  m.spec = cur;
  const Program r2_program = m.minimized;
  auto r2 = run_spec(m.minimized, m.spec);
  if (!r2 || r2->agree || (keep.empty() ? bucket_of(*r2) != m.bucket : bug_what(*r2) != what)) {
    // Cannot happen for a deterministic strategy; keep the original then.
    m.minimized = p;
    m.spec = spec;
    r2 = r;
  }
  m.record = *r2;
  if (!keep.empty()) m.bucket = bucket_of(m.record);  // may differ from the finding's
  if (auto man = ir::analyze(m.minimized)) m.expected = oracles::run_eager(m.minimized, *man);
  if (!known.empty() && m.minimized == r2_program) {
    // A known bug already: its own minimization is the ledger entry's.
    m.known_bug = known;
    m.bug_program = m.minimized;
    m.bug_record = m.record;
    m.explained = !keep.empty();
    m.ok = true;
    return m;
  }
  known.clear();  // phase 3 looks again (min.af fell back to the finding's program)
  // The bug behind it: from min.af, shrink further while the same spec
  // still diverges the same way (values, or the same error type), whatever
  // observable or first op; a budget in runs keeps it deterministic.
  MinimizeOptions o3 = o;
  o3.max_tests = o.max_tests >= 0 ? std::min<int64_t>(kBugTests, o.max_tests) : kBugTests;
  // Within the caller's time budget (what phases 1 and 2 left of it).
  if (o.time_s > 0) o3.time_s = std::max(1e-3, o.time_s - (now_s() - t_start) - 2 * t_run);
  // Like phase 2, a random:SEED order may switch seeds (the order is a
  // chaotic function of the program: deleting a dead statement changes it).
  // On the interpreter any reorder and fusion policy may take over too:
  // the bug is the strategy's (its key has no policy), and under asap,
  // alap or dataflow fusion a dead statement moves the others as well.
  std::vector<std::pair<run::Reorder, run::Fusion>> bug_alternatives;
  for (const auto& a : alternatives) bug_alternatives.push_back({a, spec.fusion});
  if (!spec.is_external() && spec.target == run::Target::Interp) {
    std::vector<run::Fusion> fusions{spec.fusion};
    for (const auto f : run::fusion_policies())
      if (f != spec.fusion) fusions.push_back(f);
    for (const auto f : fusions) {
      for (const auto& r : run::seedless_reorders()) bug_alternatives.push_back({r, f});
      for (int k = 0; k < o.seeds; ++k)
        bug_alternatives.push_back({{run::ReorderKind::Random, static_cast<uint64_t>(k)}, f});
    }
  }
  const RunRecord first = m.record;
  run::RunSpec bug_spec = m.spec;
  // The same bug: values, an input's geometry, or the same error type.
  auto same_bug = [&first, &note_known](const Program& q, const run::RunSpec& s) {
    auto rq = run_spec(q, s, {/*first_op=*/false});
    return rq && !rq->agree && bug_what(*rq) == bug_what(first) && note_known(q, *rq);
  };
  MinimizeStats s3;
  m.bug_program = minimize(
      m.minimized,
      [&](const Program& q) {
        if (same_bug(q, bug_spec)) return true;
        for (const auto& [reorder, fusion] : bug_alternatives) {
          run::RunSpec s = bug_spec;
          s.reorder = reorder;
          s.fusion = fusion;
          if (!(s == bug_spec) && same_bug(q, s)) {
            bug_spec = s;
            return true;
          }
        }
        return false;
      },
      o3, &s3);
  m.bug_cut = s3.budget_hit;
  m.known_bug = known;
  auto r3 = run_spec(m.bug_program, bug_spec);
  m.bug_record = r3 && !r3->agree ? *r3 : m.record;
  if (!(r3 && !r3->agree)) m.bug_program = m.minimized;
  // Its bug needs none of the novel features: the finding is explained by
  // that bug (one found before, or a known one), not a bug of its own.
  // (Without gap marks: a write through unfold windows that leave holes
  // can shrink to zero-size windows, one bug still.)
  auto unmarked = [](std::vector<std::string> v) {
    for (auto& w : v) w = without_marks(w);
    std::sort(v.begin(), v.end());
    return v;
  };
  m.explained =
      !keep.empty() && (!known.empty() || !shares_feature(unmarked(features_of(m.bug_program)), unmarked(keep)));
  // Which fusion policies the bug needs (our strategies only): a bug that
  // some policy does not show is the schedule's, whatever op shows it.
  if (!bug_spec.is_external()) {
    std::string agree;
    for (const auto f : run::fusion_policies()) {
      run::RunSpec s = bug_spec;
      s.fusion = f;
      auto rf = run_spec(m.bug_program, s, {/*first_op=*/false});
      if (rf && (rf->agree || bug_what(*rf) != bug_what(m.bug_record)))
        agree += (agree.empty() ? "" : "+") + s.fusion_name();
    }
    if (!agree.empty()) m.schedule_sensitivity = "agrees-under:" + agree;
  }
  m.ok = true;
  return m;
}

}  // namespace af::fuzz
