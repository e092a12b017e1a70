// Mutant pass `dce-drops-outputless` (any strategy): a dead-code
// elimination that believes a statement binding nothing is dead, so it
// removes setitem_ and unbound copy_ (Thunder's lost setitem write).
#include "schedulers/passes.h"

namespace af::schedulers {

void dce_drops_outputless(Transformed& t) {
  const auto& stmts = t.program.stmts;
  std::vector<int> remap(stmts.size(), -1);
  std::vector<ir::Stmt> kept;
  std::vector<bool> added;
  std::vector<int> origin;
  for (size_t j = 0; j < stmts.size(); ++j) {
    const auto& st = stmts[j];
    if (st.outs.empty() && (st.op == ir::OpKind::SetitemI || st.op == ir::OpKind::CopyI)) continue;
    remap[j] = static_cast<int>(kept.size());
    kept.push_back(st);
    added.push_back(t.added_node[j]);
    origin.push_back(t.origin[j]);
  }
  t.program.stmts = std::move(kept);
  t.analysis = nullptr;  // re-analyzed by the pipeline
  t.added_node = std::move(added);
  t.origin = std::move(origin);
  std::vector<Edge> edges;
  for (auto e : t.added_edges)
    if (remap[e.from] >= 0 && remap[e.to] >= 0) edges.push_back(Edge{remap[e.from], remap[e.to], e.added});
  t.added_edges = std::move(edges);
  std::vector<std::pair<int, int>> wbs;
  for (auto [s, st] : t.writebacks)
    if (remap[s] >= 0) wbs.push_back({remap[s], st});
  t.writebacks = std::move(wbs);
}

}  // namespace af::schedulers
