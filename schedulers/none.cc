// Strategy `none`: the known-unsafe baseline. The program is unchanged and
// the DAG has dataflow edges only: an op depends on the ops that produced
// its tensor arguments; side effects through aliases are invisible, so an
// unbound in-place op may move anywhere after its inputs are defined.
#include "schedulers/passes.h"

namespace af::schedulers {

Transformed none_strategy(const ir::Program& p, const ir::Analysis& an) {
  Transformed t;
  t.program = p;
  t.analysis = std::make_shared<const ir::Analysis>(an);
  t.added_node.assign(p.stmts.size(), false);
  t.origin = identity_origin(p);
  return t;
}

}  // namespace af::schedulers
