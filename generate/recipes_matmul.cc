// The recipe of format v1.5's matmul_nd (torch.matmul): the operand layouts
// of the batched-matmul bugs of 2025-26 (docs/format.md "matmul_nd"). A
// batch whose dims broadcast against the other operand's: a matrix
// unsqueezed and often expanded over B (stride 0: one matrix read B times)
// by a matrix (torch folds it into one mm) or by a batch of one
// (broadcast), a matrix by a batch, 4-D batches against 3-D ones, and the
// 1-D operands (a row or a column, dropped from the result). The product is
// often written back into an operand of its shape, so a later read of the
// expanded alias meets the write.
#include "generate/gen_state.h"
#include "ir/matmul.h"

namespace af::fuzz::detail {

namespace {

// Whether a times b is valid and its result within the cap.
bool fits(const Shape& a, const Shape& b, int64_t cap) {
  const ir::Result<ir::MatmulPlan> p = ir::matmul_nd_plan(a, b);
  return p && ir::numel_of(p->out) <= cap;
}

}  // namespace

bool Gen::recipe_matmul_nd(OpKind op) {
  int a = pick_where([&](int v) { return geo(v).rank() >= 1 && geo(v).rank() <= 4; });
  if (a < 0) return false;
  if (geo(a).rank() == 2 && rng.chance(450)) {  // a matrix made a batch, mostly expanded
    const int64_t batch = rng.range(2, 3);
    const int x = a;
    a = batch_of(x, batch, rng.chance(700) && batch * geo(x).numel() <= cap());
    if (a < 0) return false;
  }
  const Shape sa = geo(a).sizes;
  // Another value that fits, mostly; else a is multiplied by a view of itself.
  int b = rng.chance(600) ? pick_where([&](int v) { return geo(v).rank() >= 1 && fits(sa, geo(v).sizes, cap()); }) : -1;
  if (b < 0) {
    if (sa.size() == 1) {
      b = a;  // a dot product, or a row by a column: unsqueeze(a, 1) is [k, 1]
      if (rng.chance(500) && enabled(OpKind::Unsqueeze) && emit(OpKind::Unsqueeze, {T(a), I(1)}) >= 1)
        b = num_values() - 1;
    } else {
      // a's transpose [.., k, m]: the same batch; then, half the time, one
      // matrix of it (select: the fold into mm) or a leading batch of one.
      if (!enabled(OpKind::Transpose) || emit(OpKind::Transpose, {T(a), I(-1), I(-2)}) < 1) return false;
      b = num_values() - 1;
      if (sa.size() >= 3 && rng.chance(300) && enabled(OpKind::Select) && emit(OpKind::Select, {T(b), I(0), I(0)}) >= 1)
        b = num_values() - 1;
      else if (rng.chance(300) && enabled(OpKind::Unsqueeze) && emit(OpKind::Unsqueeze, {T(b), I(0)}) >= 1)
        b = num_values() - 1;
    }
    if (!fits(sa, geo(b).sizes, cap())) return false;
  }
  const bool swap = rng.chance(200) && fits(geo(b).sizes, sa, cap());  // b first: a matrix by a batch
  if (emit(op, swap ? std::vector<Arg>{T(b), T(a)} : std::vector<Arg>{T(a), T(b)}) < 0) return false;
  const int r = num_values() - 1;
  const int into = swap ? b : a;
  if (writable(into) && geo(r).sizes == geo(into).sizes && rng.chance(600)) write_back(into, r, 500);
  return true;
}

}  // namespace af::fuzz::detail
