// Strategy `none`: the known-unsafe baseline. The program is unchanged and
// the DAG has dataflow edges only: an op depends on the ops that produced
// its tensor arguments; side effects through aliases are invisible, so an
// unbound in-place op may move anywhere after its inputs are defined.
#include "schedulers/passes.h"

namespace af::schedulers {

Transformed none_strategy(const ir::Program& p, const ir::Analysis& an) { return unchanged(p, an); }

}  // namespace af::schedulers
