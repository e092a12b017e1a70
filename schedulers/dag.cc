// The dependence DAG: dataflow edges every strategy has, the write-back
// edges of functionalization, and predecessor lists for the policies.
#include <algorithm>

#include "schedulers/passes.h"

namespace af::schedulers {

std::vector<Edge> dataflow_edges(const ir::Program& p) {
  std::vector<int> def(p.num_values(), -1);
  std::vector<Edge> e;
  e.reserve(2 * p.stmts.size());
  std::vector<int> from;  // reused by every statement
  for (size_t j = 0; j < p.stmts.size(); ++j) {
    const auto& st = p.stmts[j];
    from.clear();
    for_each_tensor_arg(st, [&](int v) {
      if (def[v] >= 0) from.push_back(def[v]);
    });
    std::sort(from.begin(), from.end());
    from.erase(std::unique(from.begin(), from.end()), from.end());
    for (int f : from) e.push_back(Edge{f, static_cast<int>(j), false});
    for (int o : st.outs) def[o] = static_cast<int>(j);
  }
  return e;
}

std::vector<Edge> writeback_edges(const ir::Program& p, const ir::Analysis& an,
                                  const std::vector<std::pair<int, int>>& writebacks) {
  std::vector<Edge> e;
  for (const auto& wb_storage : writebacks) {
    // Not a structured binding: C++17 lambdas cannot capture those (clang).
    const int wb = wb_storage.first, storage = wb_storage.second;
    for (size_t j = 0; j < p.stmts.size(); ++j) {
      if (static_cast<int>(j) == wb) continue;
      const auto& st = p.stmts[j];
      const auto cls = ir::op_info(st.op).cls;
      if (cls == ir::OpClass::View || cls == ir::OpClass::Meta) continue;  // geometry only, reads nothing
      bool reads = false;
      for_each_tensor_arg(st, [&](int v) { reads = reads || an.values[v].storage == storage; });
      if (!reads) continue;
      if (static_cast<int>(j) < wb) e.push_back(Edge{static_cast<int>(j), wb, true});
    }
  }
  return e;
}

std::vector<std::vector<int>> predecessors(int n, const std::vector<Edge>& edges) {
  std::vector<std::vector<int>> preds(n);
  // One allocation per statement with predecessors, not one per growth step.
  std::vector<int> count(n, 0);
  for (const auto& e : edges) ++count[e.to];
  for (int j = 0; j < n; ++j) preds[j].reserve(count[j]);
  for (const auto& e : edges) preds[e.to].push_back(e.from);
  for (auto& v : preds) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  return preds;
}

}  // namespace af::schedulers
