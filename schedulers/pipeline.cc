// make_schedule: strategy -> mutant passes -> DAG -> reorder -> fusion ->
// counters (each pass's result printable for --dump-passes); and
// run_and_compare, the one path that executes a schedule and compares it.
#include <algorithm>

#include "ir/text.h"

#include "schedulers/passes.h"
#include "schedulers/schedulers.h"

namespace af::schedulers {

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

ir::Program views_for_metadata_ops(const ir::Program& p) {
  ir::Program q = p;
  for (auto& st : q.stmts) st.op = ir::geometry_op(st.op);
  return q;
}

ir::Program aten_for_custom_ops(const ir::Program& p) {
  ir::Program q = p;
  for (auto& st : q.stmts) st.op = ir::aten_equivalent(st.op);
  return q;
}

namespace {

Transformed run_strategy(const ir::Program& p0, const ir::Analysis& an, const run::RunConfig& c) {
  // Every strategy schedules a custom op as the aten op of its body (format
  // v1.4): the same values, statements and bindings, so `an` serves both.
  const bool custom = ir::has_custom_ops(p0);
  const ir::Program aten = custom ? aten_for_custom_ops(p0) : ir::Program();
  const ir::Program& p = custom ? aten : p0;
  // Thunder's rule sees the metadata ops (it predicts that Thunder refuses them).
  if (c.strategy.kind == run::StrategyKind::UpdateAliases)
    return update_aliases_strategy(p, an, c.strategy.fixes, c.mutant);
  const bool meta = ir::has_metadata_ops(p);
  // The others schedule the metadata ops as the views they mirror; `an`
  // serves that program too, but for the retired names' tensor identity.
  const ir::Program views = meta ? views_for_metadata_ops(p) : ir::Program();
  const ir::Program& q = meta ? views : p;
  switch (c.strategy.kind) {
    case run::StrategyKind::Eager: return eager_strategy(q, an);
    case run::StrategyKind::None: return none_strategy(q, an);
    case run::StrategyKind::Functionalize: return functionalize_strategy(q, an, c.mutant, !meta);
    case run::StrategyKind::UpdateAliases: break;
  }
  std::abort();  // every StrategyKind is handled above
}

// The mutant passes that run after the strategy (the others live inside
// a strategy or an executor).
void run_mutant_passes(Transformed& t, run::Mutant m) {
  if (m != run::Mutant::DceDropsOutputless) return;
  dce_drops_outputless(t);
  if (t.chain) {  // eager stays a total order
    t.added_edges.clear();
    for (size_t j = 1; j < t.program.stmts.size(); ++j)
      t.added_edges.push_back(Edge{static_cast<int>(j - 1), static_cast<int>(j), true});
  }
}

std::string edges_text(const std::vector<Edge>& edges) {
  std::string t;
  for (const auto& e : edges)
    t += std::to_string(e.from) + " -> " + std::to_string(e.to) + (e.added ? " (strategy)" : " (dataflow)") + "\n";
  return t;
}

std::string indices_text(const std::vector<int>& v) {
  std::string t;
  for (int j : v) t += (t.empty() ? "" : " ") + std::to_string(j);
  return t;
}

}  // namespace

ir::Result<Schedule> make_schedule(const ir::Program& p, const ir::Analysis& an, const run::RunConfig& c,
                                   std::vector<PassDump>* dump) {
  const std::string& s = c.strategy.spelling;
  Transformed t = run_strategy(p, an, c);
  if (dump) dump->push_back({"strategy " + s, t.error.empty() ? ir::print(t.program) : "# failed: " + t.error + "\n"});
  run_mutant_passes(t, c.mutant);
  if (dump && c.mutant == run::Mutant::DceDropsOutputless)
    dump->push_back({"mutant " + run::mutant_name(c.mutant), ir::print(t.program)});
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
  sc.mutant = c.mutant;
  sc.reorder = run::reorder_name(c.reorder);
  sc.fusion = run::fusion_name(c.fusion);
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
  // `df` is now predecessors(n, edges): sorted, deduplicated, every edge added.
  std::vector<std::vector<int>> preds = std::move(df);
  sc.edges = std::move(edges);
  if (dump) dump->push_back({"dag", edges_text(sc.edges)});
  Fusible fus = fusible_for(sc.program, t.chain);
  std::vector<int> order = reorder(preds, c.reorder, fus, sc.program);
  if (dump) dump->push_back({"order " + sc.reorder, indices_text(order) + "\n"});
  sc.regions = fuse(order, preds, t.chain ? run::Fusion::None : c.fusion, fus);
  if (dump) {
    std::string regions;
    for (const auto& r : sc.regions) regions += indices_text(r) + "\n";
    dump->push_back({"regions " + sc.fusion, regions});
  }
  // Format v1.3: the inputs' metadata replay, after everything the policies ordered.
  if (replay_input_metadata(p, an, &sc) && dump) dump->push_back({"input-metadata replay", ir::print(sc.program)});
  // Counters.
  Counters& k = sc.counters;
  k.regions = static_cast<int>(sc.regions.size());
  for (size_t r = 1; r < sc.regions.size(); ++r) {
    const int a = sc.regions[r - 1].back(), b = sc.regions[r].front();
    auto forced = [&](int v) { return sc.program.stmts[v].op == ir::OpKind::UpdateAliases; };
    if (t.chain || forced(a) || forced(b)) k.fusion_breaks++;
  }
  k.nodes_added = static_cast<int>(std::count(sc.added_node.begin(), sc.added_node.end(), true));
  k.extra_storages = static_cast<int>(sc.analysis->storage_numel.size()) - static_cast<int>(an.storage_numel.size());
  for (const auto& st : sc.program.stmts) k.bytes_moved += bytes_of(st, *sc.analysis);
  return sc;
}

ir::Result<Schedule> make_schedule(const ir::Program& p, const ir::Analysis& an, const run::RunConfig& c) {
  return make_schedule(p, an, c, nullptr);
}

ir::Result<Schedule> make_schedule(const ir::Program& p, const ir::Analysis& an, const run::SpelledSpec& o) {
  run::RunConfig c;
  if (auto e = run::parse_config(o, &c)) return ir::Error{ir::ErrorKind::Arg, 0, *e};
  auto sc = make_schedule(p, an, c);
  if (sc) {  // the labels as spelled (random:007 stays random:007)
    sc->reorder = o.reorder;
    sc->fusion = o.fusion;
  }
  return sc;
}

RunOutcome run_and_compare(const ir::Program& p, const ir::Analysis& an, const oracles::Observables& expected,
                           const run::RunConfig& c, const ExecuteFn& execute) {
  RunOutcome r;
  auto fail = [&r](ExecutionFailure f) {
    r.error = f.what;
    r.mismatch = oracles::Mismatch{f.observable, f.index, 0, 0, f.what};
    r.failure = std::move(f);
    return r;
  };
  auto s = make_schedule(p, an, c);
  if (!s) return fail({"schedule", 0, s.error().message});
  r.regions = s->counters.regions;
  r.counters = s->counters;
  ExecuteOutcome x;
  ExpectedByStmt checks;
  if (c.checked) checks = checked_expectations(*s, p, an);
  const ExpectedByStmt* e = c.checked ? &checks : nullptr;
  if (execute)
    x = execute(*s, e);
  else
    x.obs = interpret(*s, e, &x.first_failure);
  r.stats = std::move(x.stats);
  if (x.failure) return fail(std::move(*x.failure));
  r.first_failure = x.first_failure;
  r.mismatch = oracles::compare(p, expected, x.obs);
  r.agree = !r.mismatch && !r.first_failure;
  return r;
}

std::vector<Schedule> rotating_schedules(const ir::Program& p, const ir::Analysis& an,
                                         const std::vector<std::string>& strategies, size_t index) {
  std::vector<Schedule> out;
  const auto& fusions = run::fusion_policy_names();
  for (size_t k = 0; k < strategies.size(); ++k) {
    run::SpelledSpec o;
    o.strategy = strategies[k];
    o.fusion = fusions[(index + k) % fusions.size()];
    if (auto s = make_schedule(p, an, o)) out.push_back(std::move(*s));
  }
  return out;
}

RunOutcome run_and_compare(const ir::Program& p, const ir::Analysis& an, const oracles::Observables& expected,
                           const run::SpelledSpec& o) {
  run::RunConfig c;
  if (auto e = run::parse_config(o, &c)) {
    RunOutcome r;
    r.error = *e;
    r.mismatch = oracles::Mismatch{"schedule", 0, 0, 0, *e};
    r.failure = ExecutionFailure{"schedule", 0, *e};
    return r;
  }
  return run_and_compare(p, an, expected, c);
}

}  // namespace af::schedulers
