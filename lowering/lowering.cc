#include "lowering/lowering.h"

#include <algorithm>
#include <climits>
#include <stdexcept>

#include "lowering/backend.h"
#include "lowering/spec.h"

namespace af::lowering {

std::optional<Target> target_from_name(const std::string& s) {
  auto t = run::parse_target(s);
  if (!t || *t == Target::Interp) return std::nullopt;
  return t;
}

const std::vector<std::string>& target_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& name : run::target_names())
      if (target_from_name(name)) v.push_back(name);
    return v;
  }();
  return names;
}

Expected expected_values(const ir::Program& p, const ir::Analysis& an) {
  return Expected{oracles::produced_values(p, an)};
}

schedulers::Schedule program_order_schedule(const ir::Program& p, int per_region) {
  schedulers::Schedule s;
  s.strategy = per_region == 1 ? "eager" : "program-order";
  s.reorder = "program";
  s.fusion = per_region == 1 ? "none" : (per_region == 0 ? "whole" : "chunks:" + std::to_string(per_region));
  s.program = p;
  const int n = static_cast<int>(p.stmts.size());
  const int k = per_region <= 0 ? std::max(1, n) : per_region;
  for (int i = 0; i < n; i += k) {
    std::vector<int> r;
    for (int j = i; j < std::min(n, i + k); ++j) r.push_back(j);
    s.regions.push_back(r);
  }
  s.counters.regions = static_cast<int>(s.regions.size());
  return s;
}

namespace detail {

AotTimes& aot_times() {
  static AotTimes t;
  return t;
}

int grid_fold(int64_t max_numel) {
  const int64_t blocks = (max_numel + 31) / 32;
  return static_cast<int>(std::max<int64_t>(1, (blocks + 65534) / 65535));
}

LowerResult run_with(const schedulers::Schedule& schedule, const LowerOptions& options, const Expected* expected,
                     const ExecutorFactory& make) {
  LowerResult res;
  const ir::Program& p = schedule.program;
  std::shared_ptr<const ir::Analysis> an = schedule.analysis;
  if (!an) {
    auto a = ir::analyze(p);
    if (!a) {
      res.error = "invalid program: " + a.error().to_string();
      return res;
    }
    an = std::make_shared<const ir::Analysis>(std::move(*a));
  }
  Expected own;
  if (options.checked && !expected) {
    own = expected_values(p, *an);
    expected = &own;
  }
  res.stats.regions = static_cast<int>(schedule.regions.size());
  for (const auto& region : schedule.regions)
    for (int si : region)
      if (si < 0 || si >= static_cast<int>(p.stmts.size())) {
        res.error = "malformed schedule: statement index " + std::to_string(si) + " out of range";
        return res;
      }
  const auto needed = detail::needed_after(p, *an, schedule.regions);
  oracles::Memory mem = oracles::initial_memory(p, *an);  // every storage at its full size
  int64_t max_numel = 1;
  for (int64_t n : an->storage_numel) max_numel = std::max(max_numel, n);
  for (const auto& v : an->values) max_numel = std::max(max_numel, v.g.numel());
  const Target exec = options.target == Target::Ptx ? Target::Host : options.target;
  auto honors = [&](Mutant m) { return options.mutant == m || schedule.mutant == m; };
  const bool stale = honors(Mutant::FusionStaleCopy);
  const bool alias_mutant = honors(Mutant::LowerHalideAlias);
  const std::unique_ptr<detail::Executor> owned = make(exec, alias_mutant, max_numel, res.stats);
  detail::Executor& session = *owned;
  // Checked mode: the expected values of all statements in one buffer (one
  // upload); base[k] is where statement k's values start.
  std::vector<int64_t> base;
  if (options.checked) {
    std::vector<float> all;
    base.assign(p.stmts.size(), -1);
    for (size_t k = 0; k < p.stmts.size() && k < expected->by_stmt.size(); ++k)
      if (expected->by_stmt[k]) {
        base[k] = static_cast<int64_t>(all.size());
        all.insert(all.end(), expected->by_stmt[k]->v.begin(), expected->by_stmt[k]->v.end());
      }
    if (all.size() > static_cast<size_t>(INT_MAX)) {
      res.error = "checked mode: more than 2^31 expected values";
      return res;
    }
    session.set_expected(std::move(all));
  }
  for (size_t r = 0; r < schedule.regions.size(); ++r) {
    detail::RegionSpec spec;
    try {
      spec = detail::build_spec(p, *an, schedule.regions[r], needed[r], options.checked, stale);
    } catch (const std::exception& e) {
      res.error = "region " + std::to_string(r) + ": malformed schedule: " + e.what();
      return res;
    }
    if (!spec.has_code()) continue;
    for (const auto& c : spec.checks) {
      int64_t numel = 1;
      for (int k = 0; k < c.rank; ++k) numel *= spec.iparams[c.ip + k];
      const bool have = c.stmt < static_cast<int>(base.size()) && base[c.stmt] >= 0 &&
                        static_cast<int64_t>(expected->by_stmt[c.stmt]->v.size()) == numel;
      if (!have) {
        res.error = "checked mode: no expected value of the right size for statement " + std::to_string(c.stmt);
        return res;
      }
      spec.iparams[c.ip + c.rank] = static_cast<int>(base[c.stmt]);
    }
    if (options.target == Target::Ptx || (options.ptx_check && options.target != Target::Host)) {
      std::string finding;
      std::string err = session.ptx(spec, options, &finding);
      if (!err.empty()) {
        res.error = "region " + std::to_string(r) + ": " + err;
        return res;
      }
      if (!finding.empty()) res.ptx_findings.push_back({static_cast<int>(r), finding});
    }
    std::string err = session.run(static_cast<int>(r), spec, mem);
    if (!err.empty()) {
      res.error = "region " + std::to_string(r) + ": " + err;
      return res;
    }
  }
  // Only what the comparison reads comes back: declared storages and the returns' storages.
  std::vector<bool> observed(mem.size(), false);
  for (size_t s = 0; s < p.storages.size() && s < observed.size(); ++s) observed[s] = true;
  for (int v : p.returns) observed[an->values[v].storage] = true;
  detail::Status st;
  if (std::string err = session.finish(mem, observed, &st); !err.empty()) {
    res.error = err;
    return res;
  }
  if (st.count > 0) {
    CheckFailure f;
    f.stmt = st.stmt;
    f.op = ir::op_name(p.stmts[f.stmt].op);
    f.line = p.stmts[f.stmt].line;
    f.region = st.region;
    f.count = st.count;
    f.first_index = st.first_index;
    if (f.stmt < static_cast<int>(schedule.origin.size())) f.source_stmt = schedule.origin[f.stmt];
    res.first_failure = f;
  }
  res.obs = oracles::observe(p, *an, mem);
  res.ok = true;
  return res;
}

}  // namespace detail

}  // namespace af::lowering
