// The recipe of format v1.5's dtype view, view(x, i32), and the i32 values
// it makes (docs/format.md "Format v1.5").
//
// An i32 view reads its f32 elements' bits, so only elements whose value
// every implementation computes bit for bit may be viewed (noise bound 0:
// inputs, copies, fills, negations; a rounding that a compiler may do
// otherwise would show as a different integer). The i32 values are not
// data for the other recipes (Gen::is_data): this recipe alone computes on
// them, with the exact arithmetic PyTorch does on int32 (add, sub, mul by
// an integer, neg, abs, clone, fill, zero), right after the view or later
// through an existing i32 view, and views them back as f32, which the other
// recipes then read and write. So a write through either dtype lands in
// the other's values, and a consumer of the view may be computed before a
// later write to its storage: the scenarios compilers reorder.
#include "generate/gen_state.h"
#include "generate/noise_model.h"

namespace af::fuzz::detail {

namespace {
constexpr int64_t kI32Numbers[] = {1, -1, 2, 3, -7, 255, 1 << 20, -(1 << 23), 1 << 30};
}  // namespace

bool Gen::exact(int v) const { return noise_free(noise[meta(v).storage], geo(v)); }

std::vector<int> Gen::exact_i32_values() const {
  std::vector<int> r;
  for (int v = 0; v < num_values(); ++v)
    if (live(v) && meta(v).dtype == ir::Dtype::I32 && exact(v)) r.push_back(v);
  return r;
}

bool Gen::i32_op(int y) {
  const bool write = writable(y) && rng.chance(450);
  static constexpr OpKind kWrites[] = {OpKind::AddI, OpKind::SubI,  OpKind::MulI, OpKind::NegI,
                                       OpKind::AbsI, OpKind::FillI, OpKind::ZeroI};
  static constexpr OpKind kResults[] = {OpKind::Add, OpKind::Sub, OpKind::Mul, OpKind::Neg, OpKind::Abs, OpKind::Clone};
  const OpKind op = write ? rng.pick(kWrites) : rng.pick(kResults);
  if (!enabled(op)) return false;
  std::vector<Arg> args{T(y)};
  if (ir::math_arity(ir::math_of(op)) == ir::MathArity::Binary || op == OpKind::FillI)
    args.push_back(I(rng.pick(kI32Numbers)));
  return emit(op, std::move(args), write && rng.chance(300)) >= 0;
}

bool Gen::recipe_view_dtype(OpKind op) {
  const std::vector<int> i32s = exact_i32_values();
  if (!i32s.empty() && rng.chance(250))  // back to f32: data for every recipe
    return emit(op, {T(rng.pick(i32s)), I(static_cast<int64_t>(ir::Dtype::F32))}) >= 0;
  if (!i32s.empty() && rng.chance(300)) return i32_op(rng.pick(i32s));  // later, through an existing view
  const int x = pick_where([&](int v) { return exact(v); });
  if (x < 0 || emit(op, {T(x), I(static_cast<int64_t>(ir::Dtype::I32))}) < 0) return false;
  if (rng.chance(600)) i32_op(num_values() - 1);  // a consumer of the view, or a write through it
  return true;
}

}  // namespace af::fuzz::detail
