// make_schedule: strategy -> mutant passes -> DAG -> reorder -> fusion ->
// counters; and the names every command line and report uses.
#include <algorithm>
#include <cctype>

#include "schedulers/passes.h"
#include "schedulers/schedulers.h"

namespace af::schedulers {

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> v{"eager", "none", "functionalize", "update_aliases", "update_aliases-ordered",
                                          "update_aliases-min"};
  return v;
}
const std::vector<std::string>& must_agree_strategy_names() {
  static const std::vector<std::string> v{"eager", "functionalize", "update_aliases-ordered", "update_aliases-min"};
  return v;
}
const std::vector<std::string>& mutant_names() {
  static const std::vector<std::string> v{"ua-no-maybe-views", "ua-no-multi-output", "ua-writes-only",
                                          "dce-drops-outputless", "fusion-stale-copy", "fn-per-input-base",
                                          "fn-no-regenerate", "lower-halide-alias"};
  return v;
}
const std::vector<std::string>& fusion_policy_names() {
  static const std::vector<std::string> v{"none", "greedy", "consecutive", "dataflow"};
  return v;
}
const std::vector<std::string>& reorder_policy_names() {
  static const std::vector<std::string> v{"program", "random:SEED", "fusion", "asap", "alap", "thunder-dataflow"};
  return v;
}

bool valid_reorder_policy(const std::string& r) {
  if (r == "program" || r == "fusion" || r == "asap" || r == "alap" || r == "thunder-dataflow") return true;
  if (r.rfind("random:", 0) != 0 || r.size() == 7 || r.size() > 7 + 20) return false;
  return std::all_of(r.begin() + 7, r.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

namespace {
std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}
bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}
}  // namespace

std::optional<std::string> check_options(const Options& o) {
  if (!contains(strategy_names(), o.strategy) && !ua_fixes_of(o.strategy))
    return "unknown strategy '" + o.strategy + "' (valid: " + join(strategy_names()) +
           ", or update_aliases+FIX[+FIX...] with FIX one of " + join(ua_fix_names()) + ")";
  if (!o.inject.empty() && !contains(mutant_names(), o.inject))
    return "unknown mutant '" + o.inject + "' (valid: " + join(mutant_names()) + ")";
  if (!valid_reorder_policy(o.reorder))
    return "unknown reorder policy '" + o.reorder + "' (valid: " + join(reorder_policy_names()) + ")";
  if (!contains(fusion_policy_names(), o.fusion))
    return "unknown fusion policy '" + o.fusion + "' (valid: " + join(fusion_policy_names()) + ")";
  return std::nullopt;
}

namespace {

// 4 bytes per element read (tensor arguments) and written (results; the
// written view of in-place ops). Views and update_aliases move nothing.
int64_t bytes_of(const ir::Stmt& st, const ir::Analysis& an) {
  const auto cls = ir::op_info(st.op).cls;
  if (cls == ir::OpClass::View || cls == ir::OpClass::Meta) return 0;
  if (cls == ir::OpClass::MayAlias && an.values[st.outs[0]].storage == an.values[st.args[0].i].storage) return 0;
  int64_t n = 0;
  for_each_tensor_arg(st, [&](int v) { n += an.values[v].g.numel(); });
  if (cls == ir::OpClass::InPlace) n += an.values[st.args[0].i].g.numel();
  for (int o : st.outs)
    if (cls != ir::OpClass::InPlace) n += an.values[o].g.numel();
  return 4 * n;
}

}  // namespace

ir::Result<Schedule> make_schedule(const ir::Program& p, const ir::Analysis& an, const Options& o) {
  if (auto e = check_options(o)) return ir::Error{ir::ErrorKind::Arg, 0, *e};
  Transformed t;
  const std::string& s = o.strategy;
  if (s == "eager") t = eager_strategy(p, an);
  else if (s == "none") t = none_strategy(p, an);
  else if (s == "functionalize") t = functionalize_strategy(p, an, o.inject);
  else t = update_aliases_strategy(p, an, *ua_fixes_of(s), o.inject);
  if (o.inject == "dce-drops-outputless") {
    dce_drops_outputless(t);
    if (t.chain) {  // eager stays a total order
      t.added_edges.clear();
      for (size_t j = 1; j < t.program.stmts.size(); ++j)
        t.added_edges.push_back(Edge{static_cast<int>(j - 1), static_cast<int>(j), true});
    }
  }
  if (!t.error.empty() && t.error.rfind("limit: ", 0) == 0)
    return ir::Error{ir::ErrorKind::Limit, 0, "strategy " + s + ": " + t.error.substr(7)};
  if (!t.error.empty())
    return ir::Error{ir::ErrorKind::Arg, 0, "strategy " + s + " produced an invalid program: " + t.error};
  if (!t.analysis) {
    auto tan = ir::analyze(t.program);
    if (!tan)
      return ir::Error{tan.error().kind, tan.error().line,
                       "strategy " + s + " produced an invalid program: " + tan.error().message};
    t.analysis = std::make_shared<const ir::Analysis>(std::move(*tan));
  }
  Schedule sc;
  sc.strategy = s;
  sc.inject = o.inject;
  sc.reorder = o.reorder;
  sc.fusion = o.fusion;
  sc.analysis = t.analysis;
  const int n = static_cast<int>(t.program.stmts.size());
  std::vector<Edge> edges = dataflow_edges(t.program);
  // Strategy edges that duplicate a dataflow edge are dropped.
  std::vector<std::vector<int>> df = predecessors(n, edges);
  auto add = [&](const Edge& e) {
    if (e.from == e.to) return;
    if (!std::binary_search(df[e.to].begin(), df[e.to].end(), e.from)) {
      edges.push_back(e);
      df[e.to].insert(std::upper_bound(df[e.to].begin(), df[e.to].end(), e.from), e.from);
    }
  };
  for (const auto& e : t.added_edges) add(e);
  for (const auto& e : writeback_edges(t.program, *sc.analysis, t.writebacks)) add(e);
  sc.program = std::move(t.program);
  sc.added_node = std::move(t.added_node);
  sc.origin = std::move(t.origin);
  auto preds = predecessors(n, edges);
  sc.edges = std::move(edges);
  Fusible fus = fusible_for(sc.program, o.fusion, t.chain);
  std::vector<int> order = reorder(preds, o.reorder, fus, sc.program);
  sc.regions = fuse(order, preds, t.chain ? "none" : o.fusion, fus);
  // Counters.
  Counters& c = sc.counters;
  c.regions = static_cast<int>(sc.regions.size());
  for (size_t r = 1; r < sc.regions.size(); ++r) {
    const int a = sc.regions[r - 1].back(), b = sc.regions[r].front();
    auto forced = [&](int v) { return sc.program.stmts[v].op == ir::OpKind::UpdateAliases; };
    if (t.chain || forced(a) || forced(b)) c.fusion_breaks++;
  }
  c.nodes_added = static_cast<int>(std::count(sc.added_node.begin(), sc.added_node.end(), true));
  c.extra_storages = static_cast<int>(sc.analysis->storage_numel.size()) - static_cast<int>(an.storage_numel.size());
  for (const auto& st : sc.program.stmts) c.bytes_moved += bytes_of(st, *sc.analysis);
  return sc;
}

RunOutcome run_and_compare(const ir::Program& p, const ir::Analysis& an, const oracles::Observables& expected,
                           const Options& o) {
  RunOutcome r;
  auto s = make_schedule(p, an, o);
  if (!s) {
    r.error = s.error().message;
    r.mismatch = oracles::Mismatch{"schedule", 0, 0, 0, r.error};
    return r;
  }
  r.regions = s->counters.regions;
  r.counters = s->counters;
  oracles::Observables actual = interpret(*s);
  r.mismatch = oracles::compare(p, expected, actual);
  r.agree = !r.mismatch;
  return r;
}

std::vector<Schedule> rotating_schedules(const ir::Program& p, const ir::Analysis& an,
                                         const std::vector<std::string>& strategies, size_t index) {
  std::vector<Schedule> out;
  const auto& fusions = fusion_policy_names();
  for (size_t k = 0; k < strategies.size(); ++k) {
    Options o;
    o.strategy = strategies[k];
    o.fusion = fusions[(index + k) % fusions.size()];
    if (auto s = make_schedule(p, an, o)) out.push_back(std::move(*s));
  }
  return out;
}

}  // namespace af::schedulers
