// The recipe of format v1.5's dtype views, view(x, i32|i64|f64), and the
// values they make (docs/format.md "Format v1.5").
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
// Within the format's integer limit (2^22, docs/format.md "Limits"): a
// larger number would make the statement invalid. i64 data meets carries
// into its high word anyway: its low words are f32 bit patterns (about
// 2^30), and a product by 2^22 or a sum of two of them overflows 32 bits.
constexpr int64_t kIntNumbers[] = {1, -1, 2, 3, -7, 255, 1 << 20, -(1 << 22), 1 << 22};
// f64 values (the tenth slice) also meet Python floats, which PyTorch keeps
// as doubles there: halves and quarters round nothing, 0.1 and 1e-3 do
// (once, alike everywhere), -0.0 keeps its sign through fill_.
constexpr double kF64Numbers[] = {0.5, -1.5, 0.1, 2.25, 1e-3, -0.0};
}  // namespace

bool Gen::exact(int v) const { return noise_free(noise[meta(v).storage], ir::memory_geometry(meta(v))); }

std::vector<int> Gen::exact_integer_values() const {
  std::vector<int> r;
  for (int v = 0; v < num_values(); ++v)
    if (live(v) && meta(v).is_exact_data() && exact(v)) r.push_back(v);
  return r;
}

bool Gen::integer_op(int y) {
  const bool write = writable(y) && rng.chance(450);
  static constexpr OpKind kWrites[] = {OpKind::AddI, OpKind::SubI,  OpKind::MulI, OpKind::NegI,
                                       OpKind::AbsI, OpKind::FillI, OpKind::ZeroI};
  static constexpr OpKind kResults[] = {OpKind::Add, OpKind::Sub, OpKind::Mul, OpKind::Neg, OpKind::Abs, OpKind::Clone};
  const OpKind op = write ? rng.pick(kWrites) : rng.pick(kResults);
  if (!enabled(op)) return false;
  std::vector<Arg> args{T(y)};
  if (ir::math_arity(ir::math_of(op)) == ir::MathArity::Binary || op == OpKind::FillI)
    args.push_back(meta(y).dtype == ir::Dtype::F64 && rng.chance(500) ? Arg::number(rng.pick(kF64Numbers))
                                                                      : I(rng.pick(kIntNumbers)));
  return emit(op, std::move(args), write && rng.chance(300)) >= 0;
}

// The dtype views: f32 <-> i32 and i64 <-> f64 keep the geometry; i64 and
// f64 (pytorch#198101's shape) join two 32-bit elements of the last dim
// into one, and their views back split them, so a write through either
// lands in half an element of the other.
bool Gen::recipe_view_dtype(OpKind op) {
  const std::vector<int> ints = exact_integer_values();
  const auto view = [&](int x, ir::Dtype to) { return emit(op, {T(x), I(static_cast<int64_t>(to))}) >= 0; };
  if (!ints.empty() && rng.chance(250)) {  // back to f32 (data for every recipe), or a wide one to i32 or across
    const int y = rng.pick(ints);
    if (!meta(y).wide) return view(y, ir::Dtype::F32);
    const ir::Dtype across = meta(y).dtype == ir::Dtype::F64 ? ir::Dtype::I64 : ir::Dtype::F64;
    return view(y, rng.chance(300) ? across : rng.chance(400) ? ir::Dtype::I32 : ir::Dtype::F32);
  }
  if (!ints.empty() && rng.chance(300)) return integer_op(rng.pick(ints));  // later, through an existing view
  // i64 and f64 views where the last dim allows one (even, stride 1, ...).
  const bool wide = rng.chance(350);
  const ir::Dtype to = !wide ? ir::Dtype::I32 : rng.chance(500) ? ir::Dtype::F64 : ir::Dtype::I64;
  const int x = pick_where(
      [&](int v) { return exact(v) && !meta(v).wide && (!wide || ir::view_dtype_geometry(meta(v), to).ok()); });
  if (x < 0 || !view(x, to)) return false;
  if (rng.chance(600)) integer_op(num_values() - 1);  // a consumer of the view, or a write through it
  return true;
}

}  // namespace af::fuzz::detail
