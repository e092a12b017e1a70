// Strategies `update_aliases`, `update_aliases-ordered`, `update_aliases-min`
// (Lightning Thunder's alias threading).
//
// View groups: union of every value with the values it may share a storage
// with (view results with their argument, inputs on one storage, may-alias
// results (reshape, flatten, contiguous) with their argument, multi-output
// pieces with their argument, bound in-place results with their argument).
// Groups without a mutated member are dropped.
//
// update_aliases (Thunder's rule, faithfully): before every in-place op,
// every view-creating op and every other op that touches a member of a kept
// group, insert `n1, ..., nk = update_aliases([c1, ..., ck])` over the
// members seen so far (current names in, fresh names out) and rename later
// uses. In-place ops stay in place; an in-place op is ordered before the
// next update_aliases of its group (in Thunder its result is threaded into
// that node; here unbound ops such as setitem_ get the same edge). A read
// consuming n1 has no edge to the next update_aliases that also consumes n1,
// so a later write may be scheduled before an earlier read: the rule leaves
// write-after-read unordered.
//
// -ordered adds an edge from every access of a group member to the next
// update_aliases of that group (closing write-after-read). -min is -ordered
// inserting nodes only before a write and before the first access after a
// write.
//
// Mutants (on -ordered): ua-no-maybe-views (may-alias results are fresh
// tensors), ua-no-multi-output (pieces of chunk/split/unbind are left out of
// the group), ua-writes-only (nodes only before in-place ops).
#include <numeric>

#include "schedulers/passes.h"

namespace af::schedulers {

using ir::Arg;
using ir::OpKind;

namespace {

struct UnionFind {
  std::vector<int> p;
  explicit UnionFind(int n) : p(n) { std::iota(p.begin(), p.end(), 0); }
  int find(int x) { return p[x] == x ? x : p[x] = find(p[x]); }
  void unite(int a, int b) { p[find(a)] = find(b); }
};

}  // namespace

Transformed update_aliases_strategy(const ir::Program& p, const ir::Analysis& an, UaVariant variant,
                                    const std::string& inject) {
  const bool no_maybe = inject == "ua-no-maybe-views";
  const bool no_multi = inject == "ua-no-multi-output";
  const bool writes_only = inject == "ua-writes-only";
  const int nv = p.num_values();
  UnionFind uf(nv);
  // Groups.
  std::vector<int> first_on_storage(an.storage_numel.size(), -1);
  for (size_t k = 0; k < p.inputs.size(); ++k) {
    int& f = first_on_storage[p.inputs[k].storage];
    if (f < 0) f = static_cast<int>(k);
    else uf.unite(static_cast<int>(k), f);
  }
  for (const auto& st : p.stmts) {
    const auto cls = ir::op_info(st.op).cls;
    if (st.outs.empty()) continue;
    const int x = st.args[0].kind == Arg::Tensor ? static_cast<int>(st.args[0].i) : -1;
    if (x < 0) continue;
    if (cls == ir::OpClass::View) {
      if (no_multi && ir::is_multi_output(st.op)) continue;
      for (int o : st.outs) uf.unite(o, x);
    } else if (cls == ir::OpClass::MayAlias) {
      if (!no_maybe) uf.unite(st.outs[0], x);
    } else if (cls == ir::OpClass::InPlace) {
      uf.unite(st.outs[0], x);
    }
  }
  std::vector<bool> kept(nv, false);
  for (const auto& st : p.stmts)
    if (ir::is_inplace(st.op)) kept[uf.find(static_cast<int>(st.args[0].i))] = true;
  auto group = [&](int v) { int g = uf.find(v); return kept[g] ? g : -1; };

  Builder b(p);
  Transformed t;
  std::vector<int> cur(nv, -1);
  std::vector<std::vector<int>> members(nv);       // by group root: source values seen so far
  std::vector<std::vector<int>> pending(nv);       // accesses since the group's last update_aliases
  std::vector<std::vector<int>> writes(nv);        // in-place ops since the group's last update_aliases
  std::vector<bool> dirty(nv, false);              // a write since the last update_aliases
  for (size_t k = 0; k < p.inputs.size(); ++k) {
    cur[k] = static_cast<int>(k);
    int g = group(static_cast<int>(k));
    if (g >= 0) members[g].push_back(static_cast<int>(k));
  }
  auto insert_node = [&](int g, int line) {
    if (members[g].empty()) return;
    std::vector<int64_t> ins;
    std::vector<int> outs;
    for (int m : members[g]) {
      ins.push_back(cur[m]);
      outs.push_back(b.value(p.value_names[m], false));
    }
    int j = b.emit(OpKind::UpdateAliases, outs, {Arg::tensors(ins)}, line, true);
    for (int w : writes[g]) t.added_edges.push_back(Edge{w, j, true});
    if (variant != UaVariant::Plain)
      for (int r : pending[g]) t.added_edges.push_back(Edge{r, j, true});
    writes[g].clear();
    pending[g].clear();
    dirty[g] = false;
    for (size_t i = 0; i < members[g].size(); ++i) cur[members[g][i]] = outs[i];
  };
  for (const auto& st : p.stmts) {
    // Groups this statement touches, in argument order.
    std::vector<int> touched;
    auto touch = [&](int v) {
      int g = group(v);
      if (g >= 0 && std::find(touched.begin(), touched.end(), g) == touched.end()) touched.push_back(g);
    };
    for (const auto& a : st.args) {
      if (a.kind == Arg::Tensor) touch(static_cast<int>(a.i));
      else if (a.kind == Arg::TensorList)
        for (auto v : a.list) touch(static_cast<int>(v));
    }
    const bool inplace = ir::is_inplace(st.op);
    const int wg = inplace ? group(static_cast<int>(st.args[0].i)) : -1;
    for (int g : touched) {
      bool need;
      if (writes_only) need = g == wg;
      else if (variant == UaVariant::Min) need = g == wg || dirty[g];
      else need = true;
      if (need) insert_node(g, st.line);
    }
    std::vector<Arg> a = st.args;
    for (auto& x : a) {
      if (x.kind == Arg::Tensor) x.i = cur[x.i];
      else if (x.kind == Arg::TensorList)
        for (auto& v : x.list) v = cur[v];
    }
    std::vector<int> outs;
    for (int o : st.outs) outs.push_back(b.value(p.value_names[o]));
    int j = b.emit(st.op, outs, std::move(a), st.line, false);
    for (int g : touched) pending[g].push_back(j);
    if (wg >= 0) {
      writes[wg].push_back(j);
      dirty[wg] = true;
    }
    for (size_t k = 0; k < st.outs.size(); ++k) {
      cur[st.outs[k]] = outs[k];
      int g = group(st.outs[k]);
      if (g >= 0) members[g].push_back(st.outs[k]);
    }
  }
  for (int r : p.returns) b.program().returns.push_back(cur[r]);
  b.program().has_return = p.has_return;
  b.program().return_line = p.return_line;
  if (b.failed()) t.error = b.error();
  else t.analysis = std::make_shared<const ir::Analysis>(b.analysis(an.num_declared));
  t.program = std::move(b.program());
  t.added_node = std::move(b.added());
  return t;
}

}  // namespace af::schedulers
