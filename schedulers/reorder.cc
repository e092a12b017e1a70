// Reorder policies. Each returns a topological order of the DAG it is
// given and nothing else: a strategy whose DAG misses an edge really runs
// in a wrong order under some policy, which is what the fuzzer detects.
//   program       source order where legal (Kahn, smallest index first)
//   random:SEED   at each step a seeded random pick among the ready nodes
//   fusion        greedy: keep picking fusible ready nodes while the current
//                 run is fusible, flush the fusion breaks together otherwise
//   asap, alap    by earliest / latest level, ties by index
//   thunder-dataflow  Thunder's dataflow fusion order (thunder_dataflow.cc)
#include <algorithm>
#include <queue>

#include "schedulers/passes.h"

#include "ir/hash.h"

namespace af::schedulers {

namespace {

// Successor lists in one flat array (two allocations, not one per node);
// succ[u] lists u's successors in increasing order.
struct Successors {
  std::vector<int> start, to;  // succ[u] = to[start[u] .. start[u + 1])
  struct Range {
    const int *b, *e;
    const int* begin() const { return b; }
    const int* end() const { return e; }
  };
  Range operator[](int u) const { return {to.data() + start[u], to.data() + start[u + 1]}; }
};

Successors successors(const std::vector<std::vector<int>>& preds) {
  Successors s;
  s.start.assign(preds.size() + 1, 0);
  for (const auto& p : preds)
    for (int u : p) ++s.start[u + 1];
  for (size_t u = 0; u < preds.size(); ++u) s.start[u + 1] += s.start[u];
  s.to.resize(s.start.back());
  std::vector<int> fill(s.start.begin(), s.start.end() - 1);
  for (size_t v = 0; v < preds.size(); ++v)
    for (int u : preds[v]) s.to[fill[u]++] = static_cast<int>(v);
  return s;
}

// Kahn's algorithm with a pick function over the ready list.
template <class Pick>
std::vector<int> kahn(const std::vector<std::vector<int>>& preds, Pick pick) {
  const int n = static_cast<int>(preds.size());
  auto succ = successors(preds);
  std::vector<int> indeg(n);
  std::vector<int> ready, order;
  order.reserve(n);
  for (int v = 0; v < n; ++v) {
    indeg[v] = static_cast<int>(preds[v].size());
    if (!indeg[v]) ready.push_back(v);
  }
  while (!ready.empty()) {
    size_t k = pick(ready, order);
    int v = ready[k];
    ready.erase(ready.begin() + k);
    order.push_back(v);
    for (int s : succ[v])
      if (--indeg[s] == 0) ready.push_back(s);
  }
  return order;
}

size_t smallest(const std::vector<int>& ready) {
  return static_cast<size_t>(std::min_element(ready.begin(), ready.end()) - ready.begin());
}

}  // namespace

std::vector<int> reorder(const std::vector<std::vector<int>>& preds, const run::Reorder& policy, const Fusible& fusible,
                         const ir::Program& program) {
  const int n = static_cast<int>(preds.size());
  if (policy.kind == run::ReorderKind::ThunderDataflow) return thunder_dataflow_order(preds, program);
  if (policy.kind == run::ReorderKind::Random) {
    uint64_t state = policy.seed ^ 0x5eedULL;
    return kahn(preds, [&](const std::vector<int>& ready, const std::vector<int>&) {
      return static_cast<size_t>(ir::splitmix64(&state) % ready.size());
    });
  }
  if (policy.kind == run::ReorderKind::Fusion) {
    return kahn(preds, [&](const std::vector<int>& ready, const std::vector<int>& order) {
      const bool last_fusible = !order.empty() && fusible(order.back());
      int best_f = -1, best_n = -1;
      for (size_t k = 0; k < ready.size(); ++k) {
        int v = ready[k];
        if (fusible(v)) {
          if (best_f < 0 || v < ready[best_f]) best_f = static_cast<int>(k);
        } else if (best_n < 0 || v < ready[best_n])
          best_n = static_cast<int>(k);
      }
      if (best_f >= 0 && (last_fusible || best_n < 0)) return static_cast<size_t>(best_f);
      return static_cast<size_t>(best_n >= 0 ? best_n : best_f);
    });
  }
  if (policy.kind == run::ReorderKind::Asap || policy.kind == run::ReorderKind::Alap) {
    // level: longest path from a source; height: longest path to a sink.
    std::vector<int> topo = kahn(preds, [](const std::vector<int>& r, const std::vector<int>&) { return smallest(r); });
    std::vector<int> key(n, 0);
    if (policy.kind == run::ReorderKind::Asap) {
      for (int v : topo)
        for (int u : preds[v]) key[v] = std::max(key[v], key[u] + 1);
    } else {
      auto succ = successors(preds);
      std::vector<int> height(n, 0);
      int maxh = 0;
      for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
        for (int s : succ[*it]) height[*it] = std::max(height[*it], height[s] + 1);
        maxh = std::max(maxh, height[*it]);
      }
      for (int v = 0; v < n; ++v) key[v] = maxh - height[v];
    }
    return kahn(preds, [&](const std::vector<int>& ready, const std::vector<int>&) {
      size_t b = 0;
      for (size_t k = 1; k < ready.size(); ++k)
        if (key[ready[k]] < key[ready[b]] || (key[ready[k]] == key[ready[b]] && ready[k] < ready[b])) b = k;
      return b;
    });
  }
  // program
  return kahn(preds, [](const std::vector<int>& r, const std::vector<int>&) { return smallest(r); });
}

}  // namespace af::schedulers
