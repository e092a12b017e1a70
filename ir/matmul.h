// The shapes of the three matrix products of the format (docs/format.md):
// matmul (torch.mm, 2-D by 2-D), bmm (torch.bmm, 3-D by 3-D of one batch)
// and format v1.5's matmul_nd (torch.matmul: operands of any rank >= 1,
// the batch dims broadcast). One plan serves the shape rule, the work
// estimate, the oracle's kernel and the generator's noise model, so that
// they cannot disagree on which batch of an operand a product reads.
#pragma once
#include <cstdint>
#include <vector>

#include "ir/error.h"
#include "ir/geometry.h"

namespace af::ir {

struct MatmulPlan {
  Shape out;                    // the result's sizes
  int64_t m = 1, k = 0, n = 1;  // each product: [m, k] x [k, n]
  // Per product p of the result's batch (row-major): the matrix of a and
  // of b it reads, numbered row-major over that operand's own batch dims
  // (a broadcast dim of size 1 reads its one matrix for every p).
  std::vector<int64_t> a_batch, b_batch;
  int64_t products() const { return static_cast<int64_t>(a_batch.size()); }
};

// torch.matmul's rule as PyTorch 2.15 applies it, its checks in its order
// and words (1.13 words some differently; the kinds are the same): a 1-D
// first operand is a row [1, k] and a 1-D second a column [k, 1], each
// dropped from the result; 1-D by 1-D is a dot product (0-d result); a 2-D
// or larger first operand by a 1-D or 2-D second folds into one mv or mm;
// anything with a 3-D or larger second operand broadcasts the batch dims
// and is a bmm. Errors: `arg` for a 0-d operand, `shape` for sizes.
Result<MatmulPlan> matmul_nd_plan(const Shape& a, const Shape& b);
// The plan of matmul ([m, k] x [k, n]) or bmm ([B, m, k] x [B, k, n]) whose
// shapes their own rules (ir::infer) accepted.
MatmulPlan matmul_plan(const Shape& a, const Shape& b);

}  // namespace af::ir
