// The op vocabulary of format v1: every op's name, class, signature and
// shape/stride rule in one table (ops.cc). The oracle, the schedulers and
// the lowering ask this file for geometry; none computes it on its own.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/error.h"
#include "ir/geometry.h"

namespace af::ir {

#define AF_OPS(X)                                                      \
  /* views */                                                          \
  X(View, "view", View, "TL") X(Reshape, "reshape", MayAlias, "TL")    \
  X(Flatten, "flatten", MayAlias, "T")                                 \
  X(Contiguous, "contiguous", MayAlias, "T") X(T, "t", View, "T")      \
  X(Transpose, "transpose", View, "TII")                               \
  X(Permute, "permute", View, "TL") X(Slice, "slice", View, "TIIII")   \
  X(Narrow, "narrow", View, "TIII") X(Select, "select", View, "TII")   \
  X(Unsqueeze, "unsqueeze", View, "TI")                                \
  X(Squeeze, "squeeze", View, "TI") X(Expand, "expand", View, "TL")    \
  X(Diagonal, "diagonal", View, "TIII")                                \
  X(AsStrided, "as_strided", View, "TLLI")                             \
  X(Chunk, "chunk", View, "TII") X(Split, "split", View, "TII")        \
  X(Unbind, "unbind", View, "TI") X(Alias, "alias", View, "T")         \
  /* in-place */                                                       \
  X(AddI, "add_", InPlace, "TX") X(SubI, "sub_", InPlace, "TX")        \
  X(MulI, "mul_", InPlace, "TX") X(DivI, "div_", InPlace, "TX")        \
  X(ExpI, "exp_", InPlace, "T") X(NegI, "neg_", InPlace, "T")          \
  X(AbsI, "abs_", InPlace, "T") X(ReluI, "relu_", InPlace, "T")        \
  X(TanhI, "tanh_", InPlace, "T") X(SigmoidI, "sigmoid_", InPlace, "T") \
  X(ClampI, "clamp_", InPlace, "TNN") X(FillI, "fill_", InPlace, "TN") \
  X(ZeroI, "zero_", InPlace, "T") X(CopyI, "copy_", InPlace, "TT")     \
  X(SetitemI, "setitem_", InPlace, "TIIIX")                            \
  /* out-of-place */                                                   \
  X(Add, "add", OutOfPlace, "TX") X(Sub, "sub", OutOfPlace, "TX")      \
  X(Mul, "mul", OutOfPlace, "TX") X(Div, "div", OutOfPlace, "TX")      \
  X(Exp, "exp", OutOfPlace, "T") X(Neg, "neg", OutOfPlace, "T")        \
  X(Abs, "abs", OutOfPlace, "T") X(Relu, "relu", OutOfPlace, "T")      \
  X(Tanh, "tanh", OutOfPlace, "T")                                     \
  X(Sigmoid, "sigmoid", OutOfPlace, "T")                               \
  X(Clone, "clone", OutOfPlace, "T") X(Sum, "sum", OutOfPlace, "TII")  \
  X(Amax, "amax", OutOfPlace, "TII")                                   \
  X(Softmax, "softmax", OutOfPlace, "TI")                              \
  X(Matmul, "matmul", OutOfPlace, "TT") X(Cat, "cat", OutOfPlace, "SI") \
  X(Full, "full", OutOfPlace, "LN")                                    \
  /* introduced by strategies: functionalization's scatters */         \
  X(SliceScatter, "slice_scatter", Scatter, "TTIIII")                  \
  X(SelectScatter, "select_scatter", Scatter, "TTII")                  \
  X(DiagonalScatter, "diagonal_scatter", Scatter, "TTIII")             \
  X(AsStridedScatter, "as_strided_scatter", Scatter, "TTLLI")          \
  /* introduced by strategies: Thunder's alias threading */            \
  X(UpdateAliases, "update_aliases", Meta, "S")

enum class OpKind {
#define AF_ENUM(e, n, c, s) e,
  AF_OPS(AF_ENUM)
#undef AF_ENUM
};

enum class OpClass { View, MayAlias, InPlace, OutOfPlace, Scatter, Meta };

struct OpInfo {
  OpKind kind;
  const char* name;
  OpClass cls;
  // One char per argument: T tensor, X tensor or number, N number,
  // I integer, L integer list, S tensor list.
  const char* sig;
};

const OpInfo& op_info(OpKind k);
std::optional<OpKind> op_from_name(const std::string& name);
const std::vector<OpKind>& all_ops();
inline const char* op_name(OpKind k) { return op_info(k).name; }
inline bool is_inplace(OpKind k) { return op_info(k).cls == OpClass::InPlace; }
// Ops whose result shares the argument's storage (views; may-alias ops
// when they alias; update_aliases).
inline bool is_view_like(OpKind k) {
  auto c = op_info(k).cls;
  return c == OpClass::View || c == OpClass::MayAlias || c == OpClass::Meta;
}
bool is_multi_output(OpKind k);
// The out-of-place op computing what an in-place elementwise op writes
// (add_ -> add, exp_ -> exp, ...); nothing for the others (clamp_, fill_,
// zero_, copy_, setitem_).
std::optional<OpKind> out_of_place(OpKind k);
// Elementwise ops (in or out of place), the ones fusion passes merge.
bool is_elementwise(OpKind k);
bool is_reduction(OpKind k);  // sum, amax, softmax, matmul

// What the shape rule knows of a tensor argument.
struct TensorMeta {
  Geometry g;
  int storage = -1;           // storage id (declared storages first, then fresh ones)
  int64_t storage_numel = 0;
  int impl = -1;              // identity of the tensor object (PyTorch's is_same)
};

// One result of a statement: a view of the argument's storage (fresh ==
// false, storage = source argument's storage) or a new storage holding
// exactly this geometry's elements (fresh == true).
struct OutMeta {
  Geometry g;
  bool fresh = false;
  int source_arg = 0;  // the argument whose storage a non-fresh result shares
};

// An argument after checking: tensor args resolved to their metas.
struct CheckedArg {
  const TensorMeta* t = nullptr;          // Tensor
  std::vector<const TensorMeta*> ts;      // TensorList
  int64_t i = 0;                          // Int
  double f = 0;                           // Float (or Int as double)
  std::vector<int64_t> list;              // IntList
  bool is_tensor() const { return t != nullptr; }
};

// The shape/stride rule: the results of applying op to args, or the error
// PyTorch raises (kind and message; the caller adds the line). For in-place
// ops this also applies PyTorch's memory-overlap checks and flags the
// `undefined` cases.
Result<std::vector<OutMeta>> infer(OpKind op, const std::vector<CheckedArg>& args);

// The destination of setitem_(x, dim, start, end, v) as Python indexing
// makes it (x[..., start:end]): `self` when the indexing returns x itself
// (PyTorch's slice optimization: dim 0, start == 0 and end == size(0)
// exactly; a 0-d x with start == end == 0), else a new slice view.
struct SetitemTarget {
  Geometry g;
  bool self = false;
};
Result<SetitemTarget> setitem_target(const Geometry& x, int64_t dim, int64_t start, int64_t end);

// The slot a scatter op (slice/select/diagonal/as_strided_scatter, args as
// in the statement) writes in its output, whose geometry is `out` (offset
// 0; the output is a clone of the base with preserved strides).
Result<Geometry> scatter_slot(OpKind op, const Geometry& out, const std::vector<CheckedArg>& args);

// aten::slice's bounds of [start, end) along a dim of size n: negative
// ones wrapped once, then clamped to 0 <= start <= end <= n.
std::pair<int64_t, int64_t> slice_bounds(int64_t n, int64_t start, int64_t end);

// PyTorch's maybe_wrap_dim (a 0-d tensor accepts -1 and 0).
std::optional<int64_t> wrap_dim(int64_t dim, int64_t rank);

// The pieces of chunk/split as (start, length) along the dim.
std::vector<std::pair<int64_t, int64_t>> split_pieces(int64_t dim_size, int64_t split_size);
// The stride view() would give, or nothing when not expressible.
std::optional<Shape> view_strides(const Geometry& g, const Shape& new_sizes);

}  // namespace af::ir
