// The recipe of format v1.5's foreach calls, `foreach_add_([a, b], [c, d])`
// (torch._foreach_add_; ir::Foreach, docs/format.md "foreach"): one
// in-place statement per element, in list order, as eager runs them.
//
// Why: a compiler sees one call that writes every list element and
// functionalizes it as one op over all of them (its outputs computed from
// the inputs before any is written back), which is eager's result only when
// no element reads what an earlier element wrote. So the recipe makes the
// lists alias: an element's operand is another element's target (the swap
// `foreach_add_([a, b], [b, a])`), a flip of its own target (the 2025 bug
// `torch._foreach_add_([x], [x.flip(0)])`), or two targets are views of one
// storage (pick_target favours recently written values and inputs).
#include "generate/gen_state.h"

namespace af::fuzz::detail {

bool Gen::recipe_foreach(OpKind op) {
  const int n = static_cast<int>(rng.range(1, 3));
  std::vector<int> targets;
  for (int i = 0; i < n; ++i)
    if (const int x = pick_target(); x >= 0) targets.push_back(x);
  if (targets.empty()) return false;
  const bool div = op == OpKind::DivI;
  auto draw = [&] { return div ? rng.pick(kDivScalars) : op == OpKind::MulI ? rng.pick(kMulScalars) : rng.pick(kSmall); };
  const float min_abs = div ? 0.5f : 0;
  // The second list: tensors (always for copy_), one number, or a number each.
  const bool tensors = op == OpKind::CopyI || rng.chance(700);
  const bool one_number = rng.chance(500);
  const double number = draw();
  // Every operand is made before the first element is written: a flip it
  // needs is a statement of its own, and the elements must be consecutive.
  std::vector<Arg> others;
  for (size_t i = 0; i < targets.size(); ++i) {
    const int x = targets[i];
    const Shape to = geo(x).sizes;
    if (!tensors) {
      others.push_back(F(one_number ? number : draw()));
      continue;
    }
    const int roll = static_cast<int>(rng.below(100));
    int y = -1;
    if (roll < 30 && !div) {  // another element's target: the lists alias each other
      const int z = targets[rng.below(targets.size())];
      if (z != x && geo(z).sizes == to) y = z;
    } else if (roll < 45 && !div && enabled(OpKind::Flip) && geo(x).rank() >= 1 &&
               emit(OpKind::Flip, {T(x), L({rand_dim(geo(x).rank())})}) >= 1) {
      y = num_values() - 1;  // x's own elements, reversed
    }
    if (y < 0) y = pick_operand_for(to, min_abs, x);
    if (y < 0) return false;
    others.push_back(T(y));
  }
  // The elements; one the generator's checks refuse (an overlap, a noise
  // bound) is left out of the call.
  bool first = true;
  for (size_t i = 0; i < targets.size(); ++i) {
    if (emit(op, {T(targets[i]), others[i]}) < 0) continue;
    program.stmts.back().foreach = first ? ir::Foreach::Starts : ir::Foreach::Continues;
    first = false;
  }
  return !first;
}

}  // namespace af::fuzz::detail
