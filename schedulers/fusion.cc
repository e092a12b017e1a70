// Fusion policies: partition an order into regions.
//   none      one op per region
//   greedy    maximal runs of fusible ops in the order; a fusion break is a
//             region of its own (`consecutive` is the same policy under the
//             name of Thunder's default fusion_type: thunder/executors/
//             data_dependent_partition.py consecutive_fusion)
//   dataflow  merge across the DAG where legal: each fusible op joins the
//             earliest fusible region that comes after every region holding
//             one of its predecessors (so it may move earlier than the order
//             had it; the result is still a topological order)
#include <algorithm>

#include "schedulers/passes.h"

namespace af::schedulers {

Fusible fusible_for(const ir::Program& p, bool chain) {
  if (chain) return [](int) { return false; };
  const ir::Program* pp = &p;
  return [pp](int s) {
    switch (pp->stmts[s].op) {
      case ir::OpKind::UpdateAliases: case ir::OpKind::Sum: case ir::OpKind::Amax:
      case ir::OpKind::Softmax: case ir::OpKind::Matmul: case ir::OpKind::Cat:
        return false;
      default:
        return true;
    }
  };
}

std::vector<std::vector<int>> fuse(const std::vector<int>& order, const std::vector<std::vector<int>>& preds,
                                   run::Fusion policy, const Fusible& fusible) {
  std::vector<std::vector<int>> regions;
  if (policy == run::Fusion::Greedy || policy == run::Fusion::Consecutive) {  // consecutive: Thunder's default name for it
    bool open = false;
    for (int v : order) {
      if (fusible(v)) {
        if (!open) regions.emplace_back();
        regions.back().push_back(v);
        open = true;
      } else {
        regions.push_back({v});
        open = false;
      }
    }
    return regions;
  }
  if (policy == run::Fusion::Dataflow) {
    std::vector<int> region_of(preds.size(), -1);
    std::vector<bool> region_fusible;
    for (int v : order) {
      int lo = 0;
      for (int u : preds[v]) lo = std::max(lo, region_of[u]);
      int r = -1;
      if (fusible(v))
        for (int k = lo; k < static_cast<int>(regions.size()); ++k)
          if (region_fusible[k]) { r = k; break; }
      if (r < 0) {
        r = static_cast<int>(regions.size());
        regions.emplace_back();
        region_fusible.push_back(fusible(v));
      }
      regions[r].push_back(v);
      region_of[v] = r;
    }
    return regions;
  }
  for (int v : order) regions.push_back({v});
  return regions;
}

}  // namespace af::schedulers
