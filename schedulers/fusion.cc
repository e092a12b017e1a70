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

namespace {

// Whether a region may hold ops of this family (DESIGN.md, fusion
// policies): reductions (sum, amax, softmax, matmul) and cat read many
// elements for each one they write, and update_aliases nodes are Thunder's
// fusion breaks; every other family fuses. A family added to ir/ops.h must
// be placed here (-Werror=switch), so a new reduction is never fused by default.
bool fusible_family(ir::Family f) {
  switch (f) {
    case ir::Family::Movement:
    case ir::Family::Elementwise:
    case ir::Family::Scatter:
    case ir::Family::Indexed: return true;
    case ir::Family::Reduction:
    case ir::Family::Concat:
    case ir::Family::Reorder:  // flip reads other positions: fused with a write of x, it would read written ones
    case ir::Family::Meta: return false;
  }
  return false;
}

}  // namespace

Fusible fusible_for(const ir::Program& p, bool chain) {
  if (chain) return [](int) { return false; };
  const ir::Program* pp = &p;
  return [pp](int s) { return fusible_family(ir::op_info(pp->stmts[s].op).family); };
}

std::vector<std::vector<int>> fuse(const std::vector<int>& order, const std::vector<std::vector<int>>& preds,
                                   run::Fusion policy, const Fusible& fusible) {
  std::vector<std::vector<int>> regions;
  if (policy == run::Fusion::Greedy ||
      policy == run::Fusion::Consecutive) {  // consecutive: Thunder's default name for it
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
          if (region_fusible[k]) {
            r = k;
            break;
          }
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
