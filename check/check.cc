#include "check/check.h"

#include "base/activity.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>
#include <memory>
#include <set>
#include <nlohmann/json.hpp>

#include "generate/invalid.h"
#include "ir/analysis.h"
#include "ir/relayout.h"
#include "compilers/runner.h"
#include "schedulers/schedulers.h"
#include "run/ua_fixes.h"

namespace af::fuzz {

using run::Fusion;
using run::Mutant;
using run::RunConfig;

nlohmann::json check_failure_json(const schedulers::CheckFailure& f) {
  return {{"stmt", f.stmt},   {"source_stmt", f.source_stmt}, {"op", f.op}, {"line", f.line}, {"region", f.region},
          {"count", f.count}, {"first_index", f.first_index}};
}

namespace {

// The program cut after its first n statements, returning every value
// those statements define (prefix_an: its analysis, ir::prefix_analysis):
// its divergence shows whether the bug has happened by then.
ir::Program prefix(const ir::Program& p, size_t n, const ir::Analysis& prefix_an) {
  ir::Program q = p;
  q.stmts.resize(n);
  q.returns.clear();
  q.has_return = true;
  // Format v1.3: a metadata op retires the earlier names of its tensor
  // object (returning one is an error); only its result is returned.
  std::vector<char> retired(q.num_values(), 0);
  for (const auto& st : q.stmts)
    if (ir::is_metadata_inplace(st.op))
      for (const auto& s2 : q.stmts)
        for (int o : s2.outs)
          if (&s2 < &st && prefix_an.values[o].impl == prefix_an.values[st.outs[0]].impl) retired[o] = 1;
  for (const auto& st : q.stmts)
    for (int o : st.outs)
      if (!retired[o]) q.returns.push_back(o);
  return q;
}

// The prefixes of one program, each cut once with its analysis (from p's:
// nothing is analyzed again) and its eager observables: every spec that
// diverges on a program bisects over the same cuts (the campaign's
// bisections were 16% of a worker's instructions).
class Prefixes {
 public:
  struct Cut {
    ir::Analysis an;
    ir::Program q;
    oracles::Observables expected;
  };
  Prefixes(const ir::Program& p, const ir::Analysis& an) : p_(p), an_(an), cuts_(p.stmts.size() + 1) {}
  const Cut& at(size_t n) {
    auto& c = cuts_[n];
    if (!c) {
      c = std::make_unique<Cut>();
      c->an = ir::prefix_analysis(p_, an_, n);
      c->q = prefix(p_, n, c->an);
      c->expected = oracles::run_eager(c->q, c->an);
    }
    return *c;
  }

 private:
  const ir::Program& p_;
  const ir::Analysis& an_;
  std::vector<std::unique_ptr<Cut>> cuts_;  // by n, cut when first asked for
};

// Whether the prefix cut after statement n diverges under `config`.
bool prefix_diverges(Prefixes& prefixes, size_t n, const RunConfig& config) {
  const Prefixes::Cut& c = prefixes.at(n);
  return !run_on_target(c.q, c.an, c.expected, config).agree;
}

// The kind of the first statement after which the run diverges (binary
// search over prefixes, given whether prefix(n) diverges; a prefix is a
// valid program), or "" when no prefix diverges on its own (the divergence
// needs the full program's returns, e.g. a returned view read after a
// later write).
std::string bisect_first_op(const ir::Program& p, const std::function<bool(size_t)>& prefix_diverges) {
  size_t lo = 0, hi = p.stmts.size();  // prefix(lo) agrees (empty prefix), prefix(hi) is checked
  if (hi == 0 || !prefix_diverges(hi)) return "";
  while (hi - lo > 1) {
    const size_t mid = (lo + hi) / 2;
    if (prefix_diverges(mid))
      hi = mid;
    else
      lo = mid;
  }
  return ir::op_name(p.stmts[hi - 1].op);
}

}  // namespace

namespace {

// The second call of a recall run whose first call agreed: compared with
// eager on the recall layout's own inputs (no prefix bisection: the first
// call of every prefix agrees too; the op class says "recall"). A second
// call that diverges is a recall bug only when a fresh compile of the
// recall layout agrees: otherwise the compiler recompiled (or did not
// need to) and is wrong on that layout itself, a first-call bug of
// another program (thunderfx on aliased inputs), which is no finding here.
RunRecord judge_recall(RunRecord r, const ir::Program& p, const compilers::RecallResult& second) {
  using R = compilers::RecallResult::Status;
  const ir::Program layout = *ir::recall_layout(p);
  switch (second.status) {
    case R::EagerError: return r;  // eager refuses the other layout: nothing to judge
    case R::Ok:
      r.mismatch = oracles::compare(layout, second.eager, second.actual);
      r.agree = !r.mismatch;
      break;
    case R::StrategyError:
      // Refusing the second layout as unsupported, having run the first, is no finding.
      if (compilers::is_unsupported_error(second.error_type, second.message)) return r;
      r.agree = false;
      r.error = second.error_type + ": " + second.message;
      r.frames = second.frames;
      break;
  }
  if (r.agree) return r;
  // A second-call divergence is the layout's own first-call bug only when a
  // fresh compile in a new process, with a fresh cache folder, shows it too
  // (issue #56): the same process could carry what the first call left.
  const auto alone = compilers::run_external_fresh(layout, *r.spec.strategy.external());
  const bool alone_agrees =
      alone.status == compilers::ExternalResult::Status::Ok && !oracles::compare(layout, alone.eager, alone.actual);
  if (!alone_agrees) {
    r.recall_layout_diverges = true;
    r.agree = true;
    r.mismatch.reset();
    r.error.clear();
    return r;
  }
  r.recall = true;
  r.op = "recall";
  return r;
}

bool external_prefix_diverges(const ir::Program& p, const ir::Analysis& an, size_t n,
                              const compilers::ExternalStrategy& strategy) {
  const ir::Program q = prefix(p, n, ir::prefix_analysis(p, an, n));
  const auto res = compilers::run_external(q, strategy);
  return res.status == compilers::ExternalResult::Status::Ok && oracles::compare(q, res.eager, res.actual);
}

// One run of an external strategy, compared with eager PyTorch of the same
// Python. nullopt when the strategy is not installed (like a spec with no
// run: the minimizer and the regression replay skip it). `an`: the
// program's analysis, for the first-diverging-op bisection; null for a
// program the oracle rejects (no Ok run to compare then) or when the
// check does without the op (CheckOptions::first_op).
std::optional<RunRecord> check_external_result(const ir::Program& p, const ir::Analysis* an, const run::RunSpec& s,
                                               const compilers::ExternalResult& res, const CheckOptions& options = {}) {
  using S = compilers::ExternalResult::Status;
  RunRecord r;
  r.spec = s;
  r.frames = res.frames;
  r.coverage = res.coverage;
  r.producers = res.producers;
  switch (res.status) {
    case S::Unavailable: {
      static std::set<std::string> warned;
      if (warned.insert(s.strategy.name()).second)
        std::cerr << "aliasfuzz: strategy " << s.strategy.name() << " skipped: " << res.message << "\n";
      return std::nullopt;
    }
    case S::Ok: {
      r.mismatch = oracles::compare(p, res.eager, res.actual);
      r.agree = !r.mismatch;
      if (r.agree && res.recall) return judge_recall(std::move(r), p, *res.recall);
      if (!r.agree && an) {
        if (const std::string known = options.known_bug ? options.known_bug(r) : ""; !known.empty())
          r.op = "ledger-" + known;
        else
          r.op =
              bisect_first_op(p, [&](size_t n) { return external_prefix_diverges(p, *an, n, *s.strategy.external()); });
      }
      return r;
    }
    case S::StrategyError:  // the compiler raised
      if (compilers::is_unsupported_error(res.error_type, res.message)) {
        // It said it cannot run this program: no comparison, no finding.
        r.unsupported = res.error_type + ": " + res.message;
        return r;
      }
      // An internal error on a program it accepted: an error-kind divergence, bucketed by exception type.
      r.agree = false;
      r.error = res.error_type + ": " + res.message;
      r.op = res.error_type.empty() ? "exception" : res.error_type;
      return r;
    case S::EagerError:  // eager PyTorch of that Python refused a program the oracle accepts
      // A training program (format v1.4): PyTorch's autograd is the arbiter
      // of its validity (an in-place write to a leaf that requires grad, a
      // saved tensor modified in place), which the oracle does not model:
      // nothing to compare, counted apart like an unsupported program.
      if (ir::is_training(p)) {
        r.unsupported = kEagerRejectsTraining + res.error_type + ": " + res.message;
        return r;
      }
      r.agree = false;
      r.error = "eager PyTorch raised " + res.error_type + ": " + res.message;
      r.op = "eager-raised";
      return r;
    case S::Failed:  // the Python process died, hung or answered nonsense
      r.agree = false;
      r.error = "external runner " + res.error_type + ": " + res.message;
      r.op = "runner-" + res.error_type;
      r.stderr_tail = res.stderr_tail;
      return r;
  }
  return std::nullopt;
}

// The history across processes: a first process compiles and runs p with
// a compiler cache folder it shares with a second, new process, which
// then compiles and runs the recall layout. A divergence there that a
// fresh cache folder does not show is stale_from_cache. `r`: the agreeing
// record of the ordinary (and recall) check.
RunRecord judge_across_processes(RunRecord r, const ir::Program& p, const ir::Program& layout) {
  using S = compilers::ExternalResult::Status;
  S first = S::Failed;
  const auto res = compilers::run_external_over_cache(p, layout, *r.spec.strategy.external(), &first);
  if (first != S::Ok) return r;  // the first layout did not run: no history to judge
  RunRecord h = r;
  if (res.status == S::Ok) {
    h.mismatch = oracles::compare(layout, res.eager, res.actual);
  } else if (res.status == S::StrategyError && !compilers::is_unsupported_error(res.error_type, res.message)) {
    h.error = res.error_type + ": " + res.message;
  } else {
    return r;
  }
  if (!h.mismatch && h.error.empty()) return r;
  const auto fresh = compilers::run_external_fresh(layout, *r.spec.strategy.external());
  if (fresh.status != S::Ok || oracles::compare(layout, fresh.eager, fresh.actual)) return r;  // its own bug
  h.agree = false;
  h.stale_from_cache = true;
  h.op = "stale-from-cache";
  return h;
}

std::optional<RunRecord> check_external(const ir::Program& p, const ir::Analysis& an, const run::RunSpec& s,
                                        const CheckOptions& options) {
  const std::optional<ir::Program> second = s.recall ? ir::recall_layout(p) : std::nullopt;
  // Across processes, the second layout's history is the other process's
  // cache, not a second call of the same compiled function.
  const bool across = options.across_processes || s.across_processes;
  const bool in_process = second && !across;
  auto r = check_external_result(
      p, options.first_op ? &an : nullptr, s,
      compilers::run_external(p, *s.strategy.external(), false, in_process ? &*second : nullptr), options);
  if (r && r->agree && r->unsupported.empty() && second && across)
    return judge_across_processes(std::move(*r), p, *second);
  return r;
}

// One run of an external strategy on a program the oracle rejects.
std::optional<RunRecord> check_external_invalid(const ir::Program& p, const ir::Error& error, const run::RunSpec& s) {
  using S = compilers::ExternalResult::Status;
  const auto res = compilers::run_external(p, *s.strategy.external(), /*invalid=*/true);
  if (res.status != S::EagerError) {
    if (res.status == S::Unavailable || res.status == S::Failed) return check_external_result(p, nullptr, s, res);
    RunRecord r;  // that Python's eager ran what the oracle rejects: nothing to compare
    r.spec = s;
    r.unsupported = std::string("eager PyTorch ran a program the oracle rejects (") + ir::kind_name(error.kind) + ")";
    return r;
  }
  RunRecord r;
  r.spec = s;
  r.coverage = res.coverage;
  if (!res.strategy_accepted) return r;  // refused like eager: agrees
  r.agree = false;
  r.accepted_invalid = ir::kind_name(error.kind);
  if (const size_t i = failing_stmt(p, error); i < p.stmts.size()) r.op = ir::op_name(p.stmts[i].op);
  return r;
}

}  // namespace

std::vector<RunRecord> check_invalid_program(const ir::Program& p, const ir::Error& error,
                                             const std::vector<run::RunSpec>& specs) {
  std::vector<RunRecord> out;
  for (size_t i = 0; i < specs.size(); ++i) {
    const run::RunSpec& s = specs[i];
    if (!s.is_external()) continue;
    const base::SpecActivity running(static_cast<int32_t>(i));  // a hang from here on is this compiler's
    const auto t0 = std::chrono::steady_clock::now();
    if (auto r = check_external_invalid(p, error, s)) {
      r->ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      out.push_back(std::move(*r));
    }
  }
  return out;
}

std::optional<std::string> predicted_refusal(const std::string& error) {
  const std::string head = std::string(run::kThunderRaises) + ": ";
  const size_t at = error.find(head);  // after "strategy S produced an invalid program: "
  if (at == std::string::npos) return std::nullopt;
  const std::string rest = error.substr(at + head.size());
  const size_t colon = rest.find(": ");
  if (colon == std::string::npos) return std::nullopt;
  if (!compilers::classify_external_error(rest.substr(0, colon), rest.substr(colon + 2)).unsupported)
    return std::nullopt;
  return rest.substr(0, rest.rfind(" (line "));
}

std::optional<std::string> unsupported_run(const schedulers::RunOutcome& res) {
  if (res.failure && res.failure->observable == "lowering" &&
      res.failure->what.rfind(schedulers::kLoweringUnsupported, 0) == 0)
    return res.failure->what;
  const bool schedule_failed = !res.agree && res.mismatch && res.mismatch->observable == "schedule";
  return predicted_refusal(schedule_failed ? res.mismatch->what : res.error);
}

std::vector<RunRecord> check_program(const ir::Program& p, const oracles::Observables& expected,
                                     const std::vector<run::RunSpec>& specs, const CheckOptions& options) {
  return check_program(p, ir::analyze(p).value(), expected, specs, options);
}

std::vector<RunRecord> check_program(const ir::Program& p, const ir::Analysis& an, const oracles::Observables& expected,
                                     const std::vector<run::RunSpec>& specs, const CheckOptions& options) {
  std::vector<RunRecord> out;
  Prefixes prefixes(p, an);
  for (size_t i = 0; i < specs.size(); ++i) {
    const run::RunSpec& s = specs[i];
    const auto t0 = std::chrono::steady_clock::now();
    auto ms = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(); };
    if (s.is_external()) {
      const base::SpecActivity running(static_cast<int32_t>(i));  // a hang from here on is this compiler's
      if (auto r = check_external(p, an, s, options)) {
        r->ms = ms();
        out.push_back(std::move(*r));
      }
      continue;
    }
    RunRecord r;
    r.spec = s;
    const RunConfig config = s.config();
    schedulers::RunOutcome res = run_on_target(p, an, expected, config);
    if (auto why = unsupported_run(res)) {
      // The lowering refused an op it does not implement, or a model of a
      // real compiler predicts that compiler refusing an op (update_aliases:
      // Thunder's torch symbols take no out=): counted as the real
      // compiler's refusal is, unsupported, not a finding.
      r.unsupported = *why;
      r.regions = res.regions;
      r.ms = ms();
      out.push_back(r);
      continue;
    }
    r.agree = res.agree;
    r.regions = res.regions;
    r.mismatch = res.mismatch;
    r.error = res.error;
    if (res.first_failure) {  // the checks named the statement: no bisection
      r.first_failure = res.first_failure;
      const int src = res.first_failure->source_stmt;
      r.op = src >= 0 && src < static_cast<int>(p.stmts.size()) ? ir::op_name(p.stmts[src].op) : res.first_failure->op;
    } else if (!r.agree && r.mismatch && r.error.empty() && options.first_op) {
      r.op = bisect_first_op(p, [&](size_t n) { return prefix_diverges(prefixes, n, config); });
    }
    r.ms = ms();
    out.push_back(r);
  }
  return out;
}

}  // namespace af::fuzz
