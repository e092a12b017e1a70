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
#include "schedulers/ua_fixes.h"

namespace af::fuzz {

// Run through a real compiler in Python (oracles/external.h); under study,
// and only run when named (--strategy), never by default.
const std::vector<std::string>& external_strategies() { return oracles::external_strategies(); }
bool is_external(const std::string& s) { return oracles::is_external_strategy(s); }

using schedulers::Fusion;
using schedulers::Mutant;
using schedulers::RunConfig;

namespace {
using ir::mix64;
uint64_t hash_str(const std::string& s) {
  return ir::fnv1a(s);
}
}  // namespace

nlohmann::json spec_json(const RunSpec& s) {
  nlohmann::json j = {{"strategy", s.strategy}, {"inject", s.inject.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.inject)},
                      {"reorder", s.reorder}, {"fusion", s.fusion}, {"target", s.target}};
  if (s.checked) j["checked"] = true;
  return j;
}

RunSpec spec_from_json(const nlohmann::json& j) {
  RunSpec s;
  if (!j.is_object()) return s;
  auto str = [&](const char* key, std::string& field) {
    if (j.contains(key) && j[key].is_string()) field = j[key].get<std::string>();
  };
  str("strategy", s.strategy);
  str("inject", s.inject);
  str("reorder", s.reorder);
  str("fusion", s.fusion);
  str("target", s.target);
  s.checked = j.contains("checked") && j["checked"].is_boolean() && j["checked"].get<bool>();
  return s;
}

nlohmann::json check_failure_json(const schedulers::CheckFailure& f) {
  return {{"stmt", f.stmt},     {"source_stmt", f.source_stmt}, {"op", f.op},          {"line", f.line},
          {"region", f.region}, {"count", f.count},             {"first_index", f.first_index}};
}

std::string spec_flags(const RunSpec& s) {
  // The strategy always (a mutant alone would make `run` try it under every strategy).
  std::string f = "--strategy " + (s.strategy.empty() ? strategy_for_mutant(s.inject) : s.strategy) + " ";
  if (!s.inject.empty()) f += "--inject " + s.inject + " ";
  f += "--reorder " + s.reorder + " --fusion " + s.fusion + " --target " + s.target;
  return s.checked ? f + " --checked" : f;
}

std::vector<RunSpec> campaign_specs(uint64_t seed, uint64_t index, const std::vector<std::string>& strategies,
                                    const std::vector<std::string>& injects, const std::string& target,
                                    bool checked) {
  std::vector<std::string> ss = strategies;
  if (ss.empty() && injects.empty()) {  // with only mutants asked for, run only them
    ss = schedulers::must_agree_strategy_names();
    for (const auto& s : schedulers::under_study_strategy_names()) ss.push_back(s);
  }
  std::vector<std::pair<std::string, std::string>> runs;  // strategy, inject
  for (const auto& s : ss) runs.push_back({s, ""});
  for (const auto& m : injects) runs.push_back({"", m});
  static const Fusion kFusion[] = {Fusion::None, Fusion::Greedy, Fusion::Dataflow};
  std::vector<RunSpec> specs;
  for (const auto& [s, m] : runs) {
    const uint64_t h = mix64(mix64(seed ^ mix64(index)) ^ hash_str(s + "/" + m));
    RunSpec r;
    r.strategy = s;
    r.inject = m;
    r.target = target;
    if (oracles::is_external_strategy(s)) {  // no reorder or fusion policy of ours applies
      specs.push_back(r);
      continue;
    }
    r.checked = checked;
    // Mostly random topological orders (they find ordering bugs); the
    // named policies now and then.
    const auto& named = schedulers::seedless_reorders();
    const uint64_t pick = h % (6 + named.size());
    if (pick < 6) r.reorder = schedulers::reorder_name({schedulers::ReorderKind::Random, (h >> 8) % 1000000});
    else r.reorder = schedulers::reorder_name(named[pick - 6]);
    Fusion fusion = kFusion[(h >> 40) % 3];
    const auto mutant = schedulers::parse_mutant(m);
    if (mutant && *mutant != Mutant::None && schedulers::mutant_info(*mutant).needs_fused_regions &&
        fusion == Fusion::None)
      fusion = Fusion::Greedy;
    r.fusion = schedulers::fusion_name(fusion);
    specs.push_back(r);
  }
  return specs;
}

namespace {
// Coarse classes keep one bug in one bucket: a mutant's bug shows up under
// many orders and ops, and a user wants one entry for it.
std::string reorder_class(const std::string& reorder) {
  const auto r = schedulers::parse_reorder(reorder);
  return r && r->kind == schedulers::ReorderKind::Program ? "program-order" : "reordered";
}
std::string fusion_class(const std::string& fusion) {
  return schedulers::parse_fusion(fusion) == Fusion::None ? "unfused" : "fused";
}
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
    std::string b = r.spec.strategy + "__" + reorder_class(r.spec.reorder) + "__" + fusion_class(r.spec.fusion) + "__" + runner;
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
  std::string b = r.spec.strategy.empty() ? strategy_for_mutant(r.spec.inject) : r.spec.strategy;
  if (!r.spec.inject.empty()) b += "+" + r.spec.inject;
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
  static const std::vector<std::string> interp_only{schedulers::target_name(schedulers::Target::Interp)};
  return g_executor ? schedulers::target_names() : interp_only;
}

bool target_available(const std::string& target) {
  const auto t = schedulers::parse_target(target);
  return t && (*t == schedulers::Target::Interp || g_executor);
}

schedulers::ExecuteOutcome execute(const schedulers::Schedule& s, const RunConfig& config,
                                   const schedulers::ExpectedByStmt* expected) {
  schedulers::ExecuteOutcome out;
  if (config.target == schedulers::Target::Interp) {
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
        "lowering", 0, std::string("target '") + schedulers::target_name(config.target) + "' is not linked into this program"};
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

std::optional<std::string> parse_spec(const RunSpec& spec, RunConfig* out) {
  schedulers::Options spelled;
  spelled.strategy = spec.strategy.empty() ? strategy_for_mutant(spec.inject) : spec.strategy;
  spelled.inject = spec.inject;
  spelled.reorder = spec.reorder;
  spelled.fusion = spec.fusion;
  if (auto e = schedulers::parse_options(spelled, out)) return e;
  const auto target = schedulers::parse_target(spec.target.empty() ? "interp" : spec.target);
  if (!target)
    return "unknown target '" + spec.target + "' (valid: " + schedulers::join_names(schedulers::target_names()) + ")";
  if (out) {
    out->target = *target;
    out->checked = spec.checked;
  }
  return std::nullopt;
}

std::string strategy_for_mutant(const std::string& m) {
  const auto mutant = schedulers::parse_mutant(m);
  if (!mutant || *mutant == Mutant::None) return "update_aliases-ordered";  // as before: no mutant, no default of its own
  return schedulers::mutant_info(*mutant).default_strategy;
}

CampaignRuns campaign_runs(const std::vector<std::string>& strategies, const std::vector<std::string>& injects) {
  CampaignRuns r;
  for (const auto& spec : campaign_specs(0, 0, strategies, injects, "interp")) {
    const std::string strategy = spec.strategy.empty() ? strategy_for_mutant(spec.inject) : spec.strategy;
    const std::string name = spec.inject.empty() ? strategy : strategy + "+" + spec.inject;
    auto& list = spec.inject.empty() && is_must_agree(spec.strategy) ? r.must_agree : r.expected_to_diverge;
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
std::optional<RunRecord> check_external_result(const ir::Program& p, const ir::Analysis* an, const RunSpec& s,
                                               const oracles::ExternalResult& res, const CheckOptions& options = {}) {
  using S = oracles::ExternalResult::Status;
  RunRecord r;
  r.spec = s;
  switch (res.status) {
    case S::Unavailable: {
      static std::set<std::string> warned;
      if (warned.insert(s.strategy).second)
        std::cerr << "aliasfuzz: strategy " << s.strategy << " skipped: " << res.message << "\n";
      return std::nullopt;
    }
    case S::Ok: {
      r.mismatch = oracles::compare(p, res.eager, res.actual);
      r.agree = !r.mismatch;
      if (!r.agree && an) {
        if (const std::string known = options.known_bug ? options.known_bug(r) : ""; !known.empty())
          r.op = "ledger-" + known;
        else
          r.op = bisect_first_op(p, [&](size_t n) { return external_prefix_diverges(p, *an, n, s.strategy); });
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

std::optional<RunRecord> check_external(const ir::Program& p, const ir::Analysis& an, const RunSpec& s,
                                        const CheckOptions& options) {
  return check_external_result(p, options.first_op ? &an : nullptr, s, oracles::run_external(p, s.strategy), options);
}

// One run of an external strategy on a program the oracle rejects.
std::optional<RunRecord> check_external_invalid(const ir::Program& p, const ir::Error& error, const RunSpec& s) {
  using S = oracles::ExternalResult::Status;
  const auto res = oracles::run_external(p, s.strategy, /*invalid=*/true);
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
                                             const std::vector<RunSpec>& specs) {
  std::vector<RunRecord> out;
  for (const RunSpec& s : specs) {
    if (!oracles::is_external_strategy(s.strategy) || !s.inject.empty()) continue;
    const auto t0 = std::chrono::steady_clock::now();
    if (auto r = check_external_invalid(p, error, s)) {
      r->ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      out.push_back(std::move(*r));
    }
  }
  return out;
}

std::string tier_of(const RunSpec& s) {
  return oracles::is_external_strategy(s.strategy) && s.inject.empty() ? s.strategy : s.target;
}

std::optional<std::string> predicted_refusal(const std::string& error) {
  const std::string head = std::string(schedulers::kThunderRaises) + ": ";
  const size_t at = error.find(head);  // after "strategy S produced an invalid program: "
  if (at == std::string::npos) return std::nullopt;
  const std::string rest = error.substr(at + head.size());
  const size_t colon = rest.find(": ");
  if (colon == std::string::npos) return std::nullopt;
  if (!oracles::classify_external_error(rest.substr(0, colon), rest.substr(colon + 2)).unsupported) return std::nullopt;
  return rest.substr(0, rest.rfind(" (line "));
}

std::vector<RunRecord> check_program(const ir::Program& p, const oracles::Observables& expected,
                                     const std::vector<RunSpec>& specs, const CheckOptions& options) {
  return check_program(p, ir::analyze(p).value(), expected, specs, options);
}

std::vector<RunRecord> check_program(const ir::Program& p, const ir::Analysis& an,
                                     const oracles::Observables& expected, const std::vector<RunSpec>& specs,
                                     const CheckOptions& options) {
  std::vector<RunRecord> out;
  Prefixes prefixes(p, an);
  for (const RunSpec& s : specs) {
    const auto t0 = std::chrono::steady_clock::now();
    auto ms = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(); };
    if (oracles::is_external_strategy(s.strategy) && s.inject.empty()) {
      if (auto r = check_external(p, an, s, options)) {
        r->ms = ms();
        out.push_back(std::move(*r));
      }
      continue;
    }
    RunRecord r;
    r.spec = s;
    RunConfig config;
    if (auto e = parse_spec(s, &config)) {  // as make_schedule reports unknown names
      r.agree = false;
      r.error = *e;
      r.mismatch = oracles::Mismatch{"schedule", 0, 0, 0, *e};
      r.ms = ms();
      out.push_back(r);
      continue;
    }
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
