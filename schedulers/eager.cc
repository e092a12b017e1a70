// Strategy `eager`: the control. Program order (every statement ordered
// after the previous one), one region per op. Must always agree.
#include "schedulers/passes.h"

namespace af::schedulers {

Transformed eager_strategy(const ir::Program& p, const ir::Analysis& an) {
  Transformed t = unchanged(p, an);
  for (size_t j = 1; j < p.stmts.size(); ++j)
    t.added_edges.push_back(Edge{static_cast<int>(j - 1), static_cast<int>(j), true});
  t.chain = true;
  return t;
}

}  // namespace af::schedulers
