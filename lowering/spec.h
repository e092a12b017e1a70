// The Halide-free description of one region: a small dataflow graph of
// flat (storage version) and logical (tensor value) nodes whose every size,
// stride, offset and number constant is a parameter slot. Its `key` is the
// canonical structure the compile cache keys on; the parameter values are
// bound at run time. Built by build_spec(); turned into a Halide pipeline
// by halide_backend.cc.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/analysis.h"
#include "ir/program.h"

namespace af::lowering::detail {

enum class NK : uint8_t {
  // flat nodes (1-D over a storage)
  Input,    // slot: the region's input storage `slot`
  Zeros,    // all zeros
  Scatter,  // in[0] flat prev, in[1] logical src (rank); ip: off, sizes[rank], strides[rank]
  // logical nodes (rank >= 1; 0-d tensors are padded to [1] with stride 0)
  Read,     // in[0] flat; ip: off, strides[rank]
  Const,    // fp: value
  Bcast,    // in[0] logical of rank `dim` (<= rank); ip: multipliers[dim] (0 or 1)
  Unary,    // op; in[0]
  Binary,   // op; in[0], in[1]
  Clamp,    // in[0]; fp: lo, hi
  Ternary,  // op (addcmul_, addcdiv_, lerp_, clamp_tensor_); in[0] target, in[1], in[2]; fp: value
  Reduce,   // op (sum/amax); in[0] of rank `keep ? rank : rank + 1` (or 1); dim, keep; ip: n
  Softmax,  // in[0]; dim; ip: n
  Matmul,   // in[0], in[1]; ip: k
  Cat,      // in = parts; dim; ip: start[p], size[p] along dim
  // flat (last, so that the keys of the older kinds stay as they were)
  // Format v1.2's indexed and masked writes (op: the OpKind): a Scatter over
  // a domain of `rank` dims whose position also moves by an index value.
  // in[0] flat prev; in[1] logical index (index_put_: idx's padded rank;
  // index_add_/index_copy_: rank 1, read at the domain's coordinate `dim`;
  // scatter_/scatter_add_: rank) or mask (masked_fill_: rank, written where
  // != 0); in[2] logical values (rank). ip: off, sizes[rank],
  // strides[rank] (0 along the indexed dims), index stride, index bound
  // (index_put_ wraps negative indices by it); keep: the op accumulates
  // (index_add_, scatter_add_, index_put_ with accumulate). Index values arrive as exact
  // floats (oracles::Memory holds i64 and bool storages so).
  IndexScatter,
  // A flat version laid out by a dense geometry (offset 0, no overlap,
  // covering the whole version): element i holds in[0] (logical, rank
  // `dim`) at the coordinate the geometry maps to i. ip: sizes[dim],
  // strides[dim]. Inlined: the clone of a *_scatter op's base that its
  // Scatter starts from, without materializing it first.
  Dense,
};

bool is_flat(NK k);

struct Node {
  NK k;
  int op = 0;    // ir::OpKind for Unary/Binary/Ternary/Reduce
  int rank = 1;  // logical rank (padded, >= 1); flat nodes: 1
  std::vector<int> in;
  int dim = 0, keep = 0, slot = 0;
  int ip = -1, fp = -1;  // first int / float parameter slot
  bool root = false;     // materialized (compute_root); else inlined
};

struct Check {
  int node = -1;  // logical node holding the value
  int rank = 1;
  int ip = -1;  // sizes[rank], expected base, stmt index
  int stmt = -1;
};

struct RegionSpec {
  std::vector<Node> nodes;
  std::vector<int> input_storages;   // slot -> storage id
  std::vector<int> output_nodes;     // flat nodes realized as outputs
  std::vector<int> output_storages;  // storage id of each output
  std::vector<int64_t> output_numel;
  std::vector<Check> checks;
  std::vector<int> check_stmts;  // statement index of each check (same order)
  std::vector<int> iparams;
  std::vector<float> fparams;
  std::string key;
  bool has_code() const { return !output_nodes.empty() || !checks.empty(); }
};

// needed_later[s]: storage s is read after this region (by a later region
// or the returns); declared storages are always committed when written.
// stale_reads: the fusion-stale-copy mutant (a statement reads a storage as
// it was before the region's first in-place write to it), as the
// interpreter tier implements it.
RegionSpec build_spec(const ir::Program& p, const ir::Analysis& an, const std::vector<int>& region,
                      const std::vector<bool>& needed_later, bool checked, bool stale_reads = false);

// For each region, which storages are needed after it.
std::vector<std::vector<bool>> needed_after(const ir::Program& p, const ir::Analysis& an,
                                            const std::vector<std::vector<int>>& regions);

}  // namespace af::lowering::detail
