#include "ir/matmul.h"

#include <algorithm>
#include <string>

namespace af::ir {

namespace {

Error shape_error(const std::string& message) { return Error{ErrorKind::Shape, 0, message}; }
std::string str(int64_t v) { return std::to_string(v); }
int64_t product(const Shape& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= s[i];
  return p;
}

// The batch dims of both operands broadcast (PyTorch's infer_size: the
// first mismatch from the last dim, named by its index in the result).
Result<Shape> broadcast_batch(const Shape& a, const Shape& b) {
  const size_t n = std::max(a.size(), b.size());
  Shape r(n);
  for (size_t i = n; i-- > 0;) {
    const size_t off = n - 1 - i;
    const int64_t da = off < a.size() ? a[a.size() - 1 - off] : 1;
    const int64_t db = off < b.size() ? b[b.size() - 1 - off] : 1;
    if (da != db && da != 1 && db != 1)
      return shape_error("The size of tensor a (" + str(da) + ") must match the size of tensor b (" + str(db) +
                         ") at non-singleton dimension " + str(static_cast<int64_t>(i)));
    r[i] = da == 1 ? db : da;
  }
  return r;
}

// Fills the per-product batch numbers of an operand with batch dims `own`
// under the result's batch `batch` (own right-aligned, size-1 dims broadcast).
std::vector<int64_t> batch_numbers(const Shape& own, const Shape& batch) {
  const int64_t P = product(batch, 0, batch.size());
  std::vector<int64_t> r(static_cast<size_t>(P), 0);
  const size_t lead = batch.size() - own.size();
  for (int64_t p = 0; p < P; ++p) {
    int64_t rest = p, number = 0, scale = 1;
    for (size_t i = batch.size(); i-- > 0;) {
      const int64_t coord = rest % batch[i];
      rest /= batch[i];
      if (i < lead) continue;
      const int64_t size = own[i - lead];
      number += (size == 1 ? 0 : coord) * scale;
      scale *= size;
    }
    r[static_cast<size_t>(p)] = number;
  }
  return r;
}

}  // namespace

Result<MatmulPlan> matmul_nd_plan(const Shape& a, const Shape& b) {
  const size_t ra = a.size(), rb = b.size();
  if (ra == 0 || rb == 0)
    return Error{ErrorKind::Arg, 0,
                 "both arguments to matmul need to be at least 1D, but they are " + str(static_cast<int64_t>(ra)) +
                     "D and " + str(static_cast<int64_t>(rb)) + "D"};
  MatmulPlan p;
  const int64_t ka = a[ra - 1], kb = rb >= 2 ? b[rb - 2] : b[0];
  p.m = ra >= 2 ? a[ra - 2] : 1;
  p.k = ka;
  p.n = rb >= 2 ? b[rb - 1] : 1;
  const Shape a_batch(a.begin(), a.end() - std::min<size_t>(ra, 2));
  const Shape b_batch(b.begin(), b.end() - std::min<size_t>(rb, 2));
  Shape batch;
  if (ra == 1 && rb == 1) {  // dot
    if (ka != kb)
      return shape_error("inconsistent tensor size, expected tensor [" + str(ka) + "] and src [" + str(kb) +
                         "] to have the same number of elements, but got " + str(ka) + " and " + str(kb) +
                         " elements respectively");
  } else if (rb == 1) {  // mv of a folded to [M, k]
    const int64_t M = product(a, 0, ra - 1);
    if (ka != kb)
      return shape_error("size mismatch, got input (" + str(M) + "), mat (" + str(M) + "x" + str(ka) + "), vec (" +
                         str(kb) + ")");
    batch = a_batch;
  } else if (rb == 2) {  // mm of a folded to [M, k] (a row when 1-D)
    const int64_t M = product(a, 0, ra - 1);
    if (ka != kb)
      return shape_error("mm: mat1 and mat2 shapes cannot be multiplied (" + str(M) + "x" + str(ka) + " and " +
                         str(kb) + "x" + str(p.n) + ")");
    batch = a_batch;
  } else {  // the batch dims broadcast, then one bmm
    Result<Shape> bc = broadcast_batch(a_batch, b_batch);
    if (!bc) return bc.error();
    batch = std::move(*bc);
    if (ka != kb) {
      const std::string P = str(product(batch, 0, batch.size()));
      return shape_error("Expected size for first two dimensions of batch2 tensor to be: [" + P + ", " + str(ka) +
                         "] but got: [" + P + ", " + str(kb) + "].");
    }
  }
  p.out = batch;
  if (ra >= 2) p.out.push_back(p.m);
  if (rb >= 2) p.out.push_back(p.n);
  p.a_batch = batch_numbers(a_batch, batch);
  p.b_batch = batch_numbers(b_batch, batch);
  return p;
}

MatmulPlan matmul_plan(const Shape& a, const Shape& b) {
  // mm and bmm are matmul_nd's 2-D and equal-batch 3-D cases.
  Result<MatmulPlan> p = matmul_nd_plan(a, b);
  if (!p) internal_error("matmul_plan: shapes the shape rule refused: " + p.error().message);
  return std::move(*p);
}

}  // namespace af::ir
