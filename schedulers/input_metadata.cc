// Format v1.3's input-metadata replay: what PyTorch's functionalization does
// for an input a metadata op (transpose_, as_strided_, ...) re-shaped.
//
// The strategies schedule the program with every metadata op replaced by
// the view it mirrors (views_for_metadata_ops), so in the scheduled program
// the caller's input tensors keep their declared geometry. torch 2.9's
// AOTAutograd records such an input as `mutates_metadata` and, after the
// compiled graph, its runtime wrapper applies the new geometry to the
// caller's tensor with one `as_strided_(sizes, strides, offset)` (and
// functionalization's sync/replace_ does the same for torch.func
// .functionalize). The schedule says so in its own text: for each input
// whose final geometry differs from its declared one, an epilogue statement
//     x_1 = as_strided_(x, [sizes], [strides], offset)
// after every other statement, in the text and in the order (added after
// the reorder and fusion policies ran, so a seed orders everything else as
// it did without it). Executors then read each input's final
// geometry from the scheduled program as the oracle reads it from the
// source (oracles::input_geometries): no data moves.
#include <algorithm>

#include "oracles/eager.h"
#include "schedulers/passes.h"
#include "schedulers/schedulers.h"

namespace af::schedulers {

bool replay_input_metadata(const ir::Program& src, const ir::Analysis& src_an, Schedule* s) {
  // Most programs re-shape no input (input_geometries: only metadata ops
  // do) and stop here, before any geometry is copied.
  if (!ir::has_metadata_ops(src)) return false;
  const std::vector<ir::Geometry> final = oracles::input_geometries(src, src_an);
  bool any = false;
  for (size_t k = 0; k < final.size(); ++k) any = any || final[k] != src_an.values[k].g;
  if (!any) return false;
  ir::Program& q = s->program;
  std::unordered_set<std::string> taken(q.value_names.begin(), q.value_names.end());
  for (const auto& st : q.storages) taken.insert(st.name);
  // Each epilogue statement's result: (input, result value id).
  std::vector<std::pair<int, int>> replayed;
  for (size_t k = 0; k < final.size() && k < q.inputs.size(); ++k) {
    if (final[k] == src_an.values[k].g) continue;  // unchanged (or changed and changed back)
    std::string name;
    for (int n = 1; name.empty() || taken.count(name); ++n) name = q.value_names[k] + "_" + std::to_string(n);
    taken.insert(name);
    const ir::Geometry& g = final[k];
    ir::Stmt st;
    st.op = ir::OpKind::AsStridedI;
    st.outs = {q.new_value(name)};
    st.args = {ir::Arg::tensor(static_cast<int>(k)), ir::Arg::ints({g.sizes.begin(), g.sizes.end()}),
               ir::Arg::ints({g.strides.begin(), g.strides.end()}), ir::Arg::integer(g.offset)};
    q.stmts.push_back(std::move(st));
    s->added_node.resize(q.stmts.size() - 1, false);
    s->added_node.push_back(true);
    s->origin.resize(q.stmts.size() - 1, -1);
    s->origin.push_back(-1);
    // Last in the order, in the last region (a view: it adds no kernel, and
    // the regions and order of everything else stay what the policies made).
    if (s->regions.empty()) s->regions.emplace_back();
    s->regions.back().push_back(static_cast<int>(q.stmts.size()) - 1);
    replayed.push_back({static_cast<int>(k), q.stmts.back().outs[0]});
  }
  if (replayed.empty()) return false;
  // The schedule's analysis, extended rather than computed again: the
  // result of an in-place as_strided_ is its input's tensor object (same
  // storage and impl) with the given geometry, which is in bounds (the
  // source reached it on the same storage). ir::analyze would say the
  // same (schedulers/property_test.cc checks it).
  auto an = std::make_shared<ir::Analysis>(*s->analysis);
  an->values.resize(q.num_values());
  an->fresh_storage.resize(q.stmts.size(), -1);
  for (const auto& [k, out] : replayed) {
    ir::TensorMeta m = an->values[k];
    m.g = final[k];
    an->values[out] = std::move(m);
  }
  s->analysis = std::move(an);
  return true;
}

bool is_input_metadata_replay(const Schedule& s, int j) {
  const auto& st = s.program.stmts[j];
  return st.op == ir::OpKind::AsStridedI && j < static_cast<int>(s.added_node.size()) && s.added_node[j] &&
         st.args[0].i < static_cast<int64_t>(s.program.inputs.size());
}

Schedule without_input_metadata_replay(const Schedule& s) {
  Schedule t = s;
  std::vector<int> remap(s.program.stmts.size(), -1);
  t.program.stmts.clear();
  t.added_node.clear();
  t.origin.clear();
  for (size_t j = 0; j < s.program.stmts.size(); ++j) {
    if (is_input_metadata_replay(s, static_cast<int>(j))) continue;
    remap[j] = static_cast<int>(t.program.stmts.size());
    t.program.stmts.push_back(s.program.stmts[j]);
    if (j < s.added_node.size()) t.added_node.push_back(s.added_node[j]);
    if (j < s.origin.size()) t.origin.push_back(s.origin[j]);
  }
  t.regions.clear();
  for (const auto& r : s.regions) {
    std::vector<int> kept;
    for (int j : r)
      if (remap[j] >= 0) kept.push_back(remap[j]);
    if (!kept.empty()) t.regions.push_back(std::move(kept));
  }
  t.edges.clear();
  for (const auto& e : s.edges)
    if (remap[e.from] >= 0 && remap[e.to] >= 0) t.edges.push_back(Edge{remap[e.from], remap[e.to], e.added});
  t.counters.nodes_added -= static_cast<int>(s.program.stmts.size() - t.program.stmts.size());
  t.analysis = std::make_shared<const ir::Analysis>(ir::analyze(t.program).value());
  return t;
}

}  // namespace af::schedulers
