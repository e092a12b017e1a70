#include "fuzz/check.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>
#include <memory>
#include <set>

#include "fuzz/invalid.h"
#include "ir/analysis.h"
#include "ir/hash.h"
#include "oracles/external.h"
#include "schedulers/schedulers.h"
#include "run/ua_fixes.h"

namespace af::fuzz {

using run::Fusion;
using run::Mutant;
using run::RunConfig;

namespace {
using ir::mix64;
uint64_t hash_str(const std::string& s) {
  return ir::fnv1a(s);
}
}  // namespace

nlohmann::json check_failure_json(const schedulers::CheckFailure& f) {
  return {{"stmt", f.stmt},     {"source_stmt", f.source_stmt}, {"op", f.op},          {"line", f.line},
          {"region", f.region}, {"count", f.count},             {"first_index", f.first_index}};
}

std::vector<run::RunSpec> campaign_specs(uint64_t seed, uint64_t index, const std::vector<run::RunStrategy>& strategies,
                                    const std::vector<Mutant>& mutants, run::Target target, bool checked) {
  std::vector<run::RunStrategy> ss = strategies;
  if (ss.empty() && mutants.empty()) {  // with only mutants asked for, run only them
    for (const auto* names : {&run::must_agree_strategy_names(), &run::under_study_strategy_names()})
      for (const auto& name : *names) ss.push_back(*run::RunStrategy::parse(name));
  }
  std::vector<run::RunSpec> runs;
  for (const auto& s : ss) runs.emplace_back().strategy = s;
  for (const auto m : mutants) runs.emplace_back().mutant = m;
  static const Fusion kFusion[] = {Fusion::None, Fusion::Greedy, Fusion::Dataflow};
  std::vector<run::RunSpec> specs;
  for (run::RunSpec r : runs) {
    const uint64_t h = mix64(mix64(seed ^ mix64(index)) ^ hash_str(r.strategy.name() + "/" + r.mutant_name()));
    r.target = target;
    if (r.is_external()) {  // no reorder or fusion policy of ours applies
      specs.push_back(r);
      continue;
    }
    r.checked = checked;
    // Mostly random topological orders (they find ordering bugs); the
    // named policies now and then.
    const auto& named = run::seedless_reorders();
    const uint64_t pick = h % (6 + named.size());
    if (pick < 6) r.reorder = {run::ReorderKind::Random, (h >> 8) % 1000000};
    else r.reorder = named[pick - 6];
    r.fusion = kFusion[(h >> 40) % 3];
    if (r.mutant != Mutant::None && run::mutant_info(r.mutant).needs_fused_regions && r.fusion == Fusion::None)
      r.fusion = Fusion::Greedy;
    specs.push_back(r);
  }
  return specs;
}

namespace {
// Coarse classes keep one bug in one bucket: a mutant's bug shows up under
// many orders and ops, and a user wants one entry for it.
std::string reorder_class(const run::Reorder& reorder) {
  return reorder.kind == run::ReorderKind::Program ? "program-order" : "reordered";
}
std::string fusion_class(Fusion fusion) { return fusion == Fusion::None ? "unfused" : "fused"; }
std::string op_class(const std::string& op) {
  if (op.empty()) return "returns";  // no prefix diverges: the full program's returns do
  auto k = ir::op_from_name(op);
  if (!k) return op;
  switch (ir::op_info(*k).cls) {
    case ir::OpClass::View: return "view";
    case ir::OpClass::MayAlias: return "may-alias";
    case ir::OpClass::InPlace: return "inplace";
    case ir::OpClass::Scatter: return "scatter";
    case ir::OpClass::Meta: return "meta";
    default: return ir::is_reduction(*k) ? "reduction" : "compute";
  }
}
}  // namespace

std::string runner_failure_kind(const std::string& error) {
  static const std::string crash = "external runner crash: ", timeout = "external runner timeout: ";
  if (error.rfind(timeout, 0) == 0) return "runner-timeout";
  if (error.rfind(crash, 0) != 0) return "";
  // "... the Python process died (SIGSEGV)": the signal or exit code names the crash.
  const size_t open = error.rfind(" ("), close = error.rfind(')');
  if (open == std::string::npos || close != error.size() - 1 || close < open) return "runner-crash";
  std::string death = error.substr(open + 2, close - open - 2);
  for (char& c : death)
    if (c == ' ') c = '-';
  return "runner-crash-" + death;
}

static constexpr char kAcceptsInvalid[] = "accepts-invalid-";

std::string accepts_invalid_what(const std::string& kind) { return kAcceptsInvalid + kind; }

std::string accepted_invalid_kind(const std::string& what) {
  const std::string prefix = kAcceptsInvalid;
  return what.size() > prefix.size() && what.compare(0, prefix.size(), prefix) == 0 ? what.substr(prefix.size()) : "";
}

std::string bucket_of(const RunRecord& r) {
  std::string what;
  if (const std::string runner = runner_failure_kind(r.error); !runner.empty()) {
    // The compiler's process died or hung: a kind of its own, never mixed
    // with the values it computes or the exceptions it raises.
    std::string b = r.spec.strategy.name() + "__" + reorder_class(r.spec.reorder) + "__" + fusion_class(r.spec.fusion) + "__" + runner;
    for (char& c : b)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '+' || c == '.' || c == '@')) c = '_';
    return b;
  }
  if (!r.accepted_invalid.empty()) what = accepts_invalid_what(r.accepted_invalid);
  else if (r.first_failure) what = "stmt";
  else if (!r.error.empty()) what = "error";
  else if (r.mismatch && r.mismatch->observable.rfind("return", 0) == 0) what = "return";
  else if (r.mismatch && oracles::is_input_geometry(r.mismatch->observable)) what = kInputMeta;
  else what = "storage";
  std::string b = r.spec.strategy_name();
  if (r.spec.mutant != Mutant::None) b += "+" + r.spec.mutant_name();
  b += "__" + reorder_class(r.spec.reorder) + "__" + fusion_class(r.spec.fusion) + "__" + what + "__" + op_class(r.op);
  for (char& c : b)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '+' || c == '.' || c == '@')) c = '_';
  return b;
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

TargetExecutor g_executor = nullptr;

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
    if (prefix_diverges(mid)) hi = mid;
    else lo = mid;
  }
  return ir::op_name(p.stmts[hi - 1].op);
}

}  // namespace

void register_target_executor(TargetExecutor executor) { g_executor = executor; }

const std::vector<std::string>& target_names() {
  static const std::vector<std::string> interp_only{run::target_name(run::Target::Interp)};
  return g_executor ? run::target_names() : interp_only;
}

bool target_available(run::Target target) { return target == run::Target::Interp || g_executor; }

schedulers::ExecuteOutcome execute(const schedulers::Schedule& s, const RunConfig& config,
                                   const schedulers::ExpectedByStmt* expected) {
  schedulers::ExecuteOutcome out;
  if (config.target == run::Target::Interp) {
    schedulers::ExpectedByStmt own;
    if (config.checked && !expected) {
      own = schedulers::checked_expectations(s, s.program, *s.analysis);
      expected = &own;
    }
    out.obs = schedulers::interpret(s, config.checked ? expected : nullptr, &out.first_failure);
    return out;
  }
  if (!g_executor) {
    out.failure = schedulers::ExecutionFailure{
        "lowering", 0, std::string("target '") + run::target_name(config.target) + "' is not linked into this program"};
    return out;
  }
  return g_executor(s, config, expected);
}

schedulers::RunOutcome run_on_target(const ir::Program& p, const ir::Analysis& an,
                                       const oracles::Observables& expected, const RunConfig& config) {
  return schedulers::run_and_compare(p, an, expected, config,
                                     [&config](const schedulers::Schedule& s, const schedulers::ExpectedByStmt* e) {
                                       return execute(s, config, e);
                                     });
}

CampaignRuns campaign_runs(const std::vector<run::RunStrategy>& strategies, const std::vector<Mutant>& mutants) {
  CampaignRuns r;
  for (const auto& spec : campaign_specs(0, 0, strategies, mutants)) {
    const std::string strategy = spec.strategy_name();
    const std::string name = spec.mutant == Mutant::None ? strategy : strategy + "+" + spec.mutant_name();
    auto& list = spec.mutant == Mutant::None && run::is_must_agree(strategy) ? r.must_agree : r.expected_to_diverge;
    if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
  }
  return r;
}

namespace {

bool external_prefix_diverges(const ir::Program& p, const ir::Analysis& an, size_t n, const std::string& strategy) {
  const ir::Program q = prefix(p, n, ir::prefix_analysis(p, an, n));
  const auto res = oracles::run_external(q, strategy);
  return res.status == oracles::ExternalResult::Status::Ok && oracles::compare(q, res.eager, res.actual);
}

// One run of an external strategy, compared with eager PyTorch of the same
// Python. nullopt when the strategy is not installed (like a spec with no
// run: the minimizer and the regression replay skip it). `an`: the
// program's analysis, for the first-diverging-op bisection; null for a
// program the oracle rejects (no Ok run to compare then) or when the
// check does without the op (CheckOptions::first_op).
std::optional<RunRecord> check_external_result(const ir::Program& p, const ir::Analysis* an, const run::RunSpec& s,
                                               const oracles::ExternalResult& res, const CheckOptions& options = {}) {
  using S = oracles::ExternalResult::Status;
  RunRecord r;
  r.spec = s;
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
      if (!r.agree && an) {
        if (const std::string known = options.known_bug ? options.known_bug(r) : ""; !known.empty())
          r.op = "ledger-" + known;
        else
          r.op = bisect_first_op(p, [&](size_t n) { return external_prefix_diverges(p, *an, n, s.strategy.name()); });
      }
      return r;
    }
    case S::StrategyError:  // the compiler raised
      if (oracles::is_unsupported_error(res.error_type, res.message)) {
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

std::optional<RunRecord> check_external(const ir::Program& p, const ir::Analysis& an, const run::RunSpec& s,
                                        const CheckOptions& options) {
  return check_external_result(p, options.first_op ? &an : nullptr, s, oracles::run_external(p, s.strategy.name()), options);
}

// One run of an external strategy on a program the oracle rejects.
std::optional<RunRecord> check_external_invalid(const ir::Program& p, const ir::Error& error, const run::RunSpec& s) {
  using S = oracles::ExternalResult::Status;
  const auto res = oracles::run_external(p, s.strategy.name(), /*invalid=*/true);
  if (res.status != S::EagerError) {
    if (res.status == S::Unavailable || res.status == S::Failed) return check_external_result(p, nullptr, s, res);
    RunRecord r;  // that Python's eager ran what the oracle rejects: nothing to compare
    r.spec = s;
    r.unsupported = std::string("eager PyTorch ran a program the oracle rejects (") + ir::kind_name(error.kind) + ")";
    return r;
  }
  RunRecord r;
  r.spec = s;
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
  for (const run::RunSpec& s : specs) {
    if (!s.is_external()) continue;
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
  if (!oracles::classify_external_error(rest.substr(0, colon), rest.substr(colon + 2)).unsupported) return std::nullopt;
  return rest.substr(0, rest.rfind(" (line "));
}

std::vector<RunRecord> check_program(const ir::Program& p, const oracles::Observables& expected,
                                     const std::vector<run::RunSpec>& specs, const CheckOptions& options) {
  return check_program(p, ir::analyze(p).value(), expected, specs, options);
}

std::vector<RunRecord> check_program(const ir::Program& p, const ir::Analysis& an,
                                     const oracles::Observables& expected, const std::vector<run::RunSpec>& specs,
                                     const CheckOptions& options) {
  std::vector<RunRecord> out;
  Prefixes prefixes(p, an);
  for (const run::RunSpec& s : specs) {
    const auto t0 = std::chrono::steady_clock::now();
    auto ms = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(); };
    if (s.is_external()) {
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
    if (res.failure && res.failure->observable == "lowering" &&
        res.failure->what.rfind(schedulers::kLoweringUnsupported, 0) == 0) {
      // The lowering refused an op it does not implement: no comparison, no finding.
      r.unsupported = res.failure->what;
      r.regions = res.regions;
      r.ms = ms();
      out.push_back(r);
      continue;
    }
    const bool schedule_failed = !res.agree && res.mismatch && res.mismatch->observable == "schedule";
    if (auto refusal = predicted_refusal(schedule_failed ? res.mismatch->what : res.error)) {
      // A model of a real compiler predicts that compiler refusing an op
      // (update_aliases: Thunder's torch symbols take no out=): counted as
      // the real compiler's refusal is, unsupported, not a finding.
      r.unsupported = *refusal;
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
