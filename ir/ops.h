// The op vocabulary of the format (v1 to v1.4, docs/format.md): every op's name, class, signature and
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

// One row per op: what the parser, the oracle, the backends, the torch
// bridge and the generator need to know about it. Columns:
//   kind, name   the OpKind enumerator and the op's name in .af text;
//   class        how its result relates to its argument's storage (OpClass);
//   sig          one char per argument (see OpInfo::sig);
//   family       what it computes (Family);
//   math         the per-element function of an elementwise op (Math);
//   functional   the out-of-place op computing what an in-place op writes
//                (abs_ -> abs); for a metadata op (format v1.3) the view
//                op whose geometry it gives x (transpose_ -> transpose,
//                swapdims_ -> transpose); for a scatter op the view whose
//                slot it writes (slice_scatter -> slice); else the op itself;
//   torch        the PyTorch callable the torch bridge writes: ".m" a
//                method of the first argument, "torch.f" a function of all
//                arguments (the bridge respells a few ops as users write
//                them: slice, alias, setitem_, clone, sum/amax, full);
//   recipe       how the generator draws its arguments (GenRecipe);
//   weight       the generator's default relative weight (units of 1/10);
//                0: drawn only when asked for (fuzz::GenOptions::op_weights),
//                so that a new op leaves every seed's programs as they were;
//   saves        what autograd saves for backward when it records the op
//                (OpInfo::saves): a new op must say, "" for nothing.
// New rows go last: OpKind numbers are in ir::structural_hash (the
// generator's golden programs, corpus/regressions file names).
//
// A new unary op is its rows here (its op rows, and its Math's row with the
// arity and noise class), the reference kernel (oracles/kernels.cc: unary)
// and the Halide kernel (lowering/halide_backend.cc: unary); every other
// layer reads the rows. -Werror=switch names each switch over Family,
// GenRecipe, Math or a family's kinds (ViewKind ..., below) that must learn
// a new value; the kernels are picked by arity, and lowering:host_test
// EveryElementwiseOp runs every elementwise op of the table through both.
// clang-format off
#define AF_OPS(X) \
  /* views and may-alias ops: geometry, or a plain copy */                                           \
  X(View, "view", View, "TL", Movement, None, View, ".view", Reshape, 11, "") \
  X(Reshape, "reshape", MayAlias, "TL", Movement, None, Reshape, ".reshape", Reshape, 11, "") \
  X(Flatten, "flatten", MayAlias, "T", Movement, None, Flatten, ".flatten", Whole, 8, "") \
  X(Contiguous, "contiguous", MayAlias, "T", Movement, None, Contiguous, ".contiguous", Whole, 8, "") \
  X(T, "t", View, "T", Movement, None, T, ".t", T, 8, "") \
  X(Transpose, "transpose", View, "TII", Movement, None, Transpose, ".transpose", Transpose, 11, "") \
  X(Permute, "permute", View, "TL", Movement, None, Permute, ".permute", Permute, 8, "") \
  X(Slice, "slice", View, "TIIII", Movement, None, Slice, "torch.ops.aten.slice.Tensor", Slice, 14, "") \
  X(Narrow, "narrow", View, "TIII", Movement, None, Narrow, ".narrow", Slice, 11, "") \
  X(Select, "select", View, "TII", Movement, None, Select, ".select", Slice, 14, "") \
  X(Unsqueeze, "unsqueeze", View, "TI", Movement, None, Unsqueeze, ".unsqueeze", Unsqueeze, 8, "") \
  X(Squeeze, "squeeze", View, "TI", Movement, None, Squeeze, ".squeeze", Squeeze, 6, "") \
  X(Expand, "expand", View, "TL", Movement, None, Expand, ".expand", Expand, 8, "") \
  X(Diagonal, "diagonal", View, "TIII", Movement, None, Diagonal, ".diagonal", Diagonal, 8, "") \
  X(AsStrided, "as_strided", View, "TLLI", Movement, None, AsStrided, ".as_strided", AsStrided, 11, "") \
  X(Chunk, "chunk", View, "TII", Movement, None, Chunk, ".chunk", Split, 14, "") \
  X(Split, "split", View, "TII", Movement, None, Split, ".split", Split, 11, "") \
  X(Unbind, "unbind", View, "TI", Movement, None, Unbind, ".unbind", Split, 11, "") \
  X(Alias, "alias", View, "T", Movement, None, Alias, "torch.ops.aten.alias", Whole, 6, "") \
  X(Unfold, "unfold", View, "TIII", Movement, None, Unfold, ".unfold", Unfold, 8, "") \
  /* metadata in-place (format v1.3): Y = op(x, ..) gives x's object the view's geometry */         \
  X(TransposeI, "transpose_", View, "TII", Movement, None, Transpose, ".transpose_", MetaInPlace, 4, "") \
  X(TI, "t_", View, "T", Movement, None, T, ".t_", MetaInPlace, 4, "") \
  X(SqueezeI, "squeeze_", View, "TI", Movement, None, Squeeze, ".squeeze_", MetaInPlace, 4, "") \
  X(UnsqueezeI, "unsqueeze_", View, "TI", Movement, None, Unsqueeze, ".unsqueeze_", MetaInPlace, 4, "") \
  X(SwapdimsI, "swapdims_", View, "TII", Movement, None, Transpose, ".swapdims_", MetaInPlace, 4, "") \
  X(AsStridedI, "as_strided_", View, "TLLI", Movement, None, AsStrided, ".as_strided_", MetaInPlace, 4, "") \
  /* in-place */                                                                                     \
  X(AddI, "add_", InPlace, "TX", Elementwise, Add, Add, ".add_", InPlaceBinary, 18, "") \
  X(SubI, "sub_", InPlace, "TX", Elementwise, Sub, Sub, ".sub_", InPlaceBinary, 14, "") \
  X(MulI, "mul_", InPlace, "TX", Elementwise, Mul, Mul, ".mul_", InPlaceBinary, 18, "1") \
  X(DivI, "div_", InPlace, "TX", Elementwise, Div, Div, ".div_", InPlaceBinary, 14, "1") \
  X(ExpI, "exp_", InPlace, "T", Elementwise, Exp, Exp, ".exp_", InPlaceUnary, 11, "r") \
  X(NegI, "neg_", InPlace, "T", Elementwise, Neg, Neg, ".neg_", InPlaceUnary, 11, "") \
  X(AbsI, "abs_", InPlace, "T", Elementwise, Abs, Abs, ".abs_", InPlaceUnary, 11, "") \
  X(ReluI, "relu_", InPlace, "T", Elementwise, Relu, Relu, ".relu_", InPlaceUnary, 11, "r") \
  X(TanhI, "tanh_", InPlace, "T", Elementwise, Tanh, Tanh, ".tanh_", InPlaceUnary, 11, "r") \
  X(SigmoidI, "sigmoid_", InPlace, "T", Elementwise, Sigmoid, Sigmoid, ".sigmoid_", InPlaceUnary, 11, "r") \
  X(ClampI, "clamp_", InPlace, "TNN", Elementwise, Clamp, ClampI, ".clamp_", Clamp, 11, "") \
  X(FillI, "fill_", InPlace, "TN", Elementwise, Fill, FillI, ".fill_", Fill, 11, "") \
  X(ZeroI, "zero_", InPlace, "T", Elementwise, Zero, ZeroI, ".zero_", InPlaceUnary, 6, "") \
  X(CopyI, "copy_", InPlace, "TT", Elementwise, Copy, CopyI, ".copy_", Copy, 18, "") \
  X(SetitemI, "setitem_", InPlace, "TIIIX", Elementwise, Copy, SetitemI, ".__setitem__", Setitem, 18, "") \
  /* in-place, several operands (format v1.1) */                                                    \
  X(AddcmulI, "addcmul_", InPlace, "TTTN", Elementwise, Addcmul, AddcmulI, ".addcmul_", Addc, 8, "12") \
  X(AddcdivI, "addcdiv_", InPlace, "TTTN", Elementwise, Addcdiv, AddcdivI, ".addcdiv_", Addc, 8, "12") \
  X(LerpI, "lerp_", InPlace, "TTX", Elementwise, Lerp, LerpI, ".lerp_", Lerp, 8, "12") \
  X(ClampTensorI, "clamp_tensor_", InPlace, "TTT", Elementwise, ClampTensor, ClampTensorI, ".clamp_", \
    ClampTensor, 8, "12") \
  /* out= variants (format v1.1): OUT = op(out, operands) writes out and binds it */                \
  X(AddOut, "add_out", InPlace, "OTX", Elementwise, Add, Add, "torch.add", OutBinary, 8, "") \
  X(SubOut, "sub_out", InPlace, "OTX", Elementwise, Sub, Sub, "torch.sub", OutBinary, 6, "") \
  X(MulOut, "mul_out", InPlace, "OTX", Elementwise, Mul, Mul, "torch.mul", OutBinary, 6, "") \
  X(DivOut, "div_out", InPlace, "OTX", Elementwise, Div, Div, "torch.div", OutBinary, 6, "") \
  X(ExpOut, "exp_out", InPlace, "OT", Elementwise, Exp, Exp, "torch.exp", OutUnary, 4, "") \
  X(NegOut, "neg_out", InPlace, "OT", Elementwise, Neg, Neg, "torch.neg", OutUnary, 4, "") \
  X(AbsOut, "abs_out", InPlace, "OT", Elementwise, Abs, Abs, "torch.abs", OutUnary, 4, "") \
  X(TanhOut, "tanh_out", InPlace, "OT", Elementwise, Tanh, Tanh, "torch.tanh", OutUnary, 4, "") \
  X(SigmoidOut, "sigmoid_out", InPlace, "OT", Elementwise, Sigmoid, Sigmoid, "torch.sigmoid", OutUnary, 4, "") \
  /* indexed and masked writes (format v1.2): J an i64 index tensor, M a bool mask */                \
  X(IndexPutI, "index_put_", InPlace, "TJTI", Indexed, None, IndexPutI, ".index_put_", IndexPut, 8, "") \
  X(IndexAddI, "index_add_", InPlace, "TIJT", Indexed, None, IndexAddI, ".index_add_", IndexAlong, 8, "3") \
  X(IndexCopyI, "index_copy_", InPlace, "TIJT", Indexed, None, IndexCopyI, ".index_copy_", IndexAlong, 8, "3") \
  X(ScatterI, "scatter_", InPlace, "TIJT", Indexed, None, ScatterI, ".scatter_", ScatterAlong, 8, "") \
  X(ScatterAddI, "scatter_add_", InPlace, "TIJT", Indexed, None, ScatterAddI, ".scatter_add_", ScatterAlong, 8, "") \
  X(MaskedFillI, "masked_fill_", InPlace, "TMN", Indexed, None, MaskedFillI, ".masked_fill_", MaskedFill, 8, "") \
  /* out-of-place */                                                                                 \
  X(Add, "add", OutOfPlace, "TX", Elementwise, Add, Add, "torch.add", Binary, 11, "") \
  X(Sub, "sub", OutOfPlace, "TX", Elementwise, Sub, Sub, "torch.sub", Binary, 8, "") \
  X(Mul, "mul", OutOfPlace, "TX", Elementwise, Mul, Mul, "torch.mul", Binary, 11, "01") \
  X(Div, "div", OutOfPlace, "TX", Elementwise, Div, Div, "torch.div", Binary, 8, "01") \
  X(Exp, "exp", OutOfPlace, "T", Elementwise, Exp, Exp, "torch.exp", Unary, 8, "r") \
  X(Neg, "neg", OutOfPlace, "T", Elementwise, Neg, Neg, "torch.neg", Unary, 8, "") \
  X(Abs, "abs", OutOfPlace, "T", Elementwise, Abs, Abs, "torch.abs", Unary, 8, "0") \
  X(Relu, "relu", OutOfPlace, "T", Elementwise, Relu, Relu, "torch.relu", Unary, 8, "r") \
  X(Tanh, "tanh", OutOfPlace, "T", Elementwise, Tanh, Tanh, "torch.tanh", Unary, 8, "r") \
  X(Sigmoid, "sigmoid", OutOfPlace, "T", Elementwise, Sigmoid, Sigmoid, "torch.sigmoid", Unary, 8, "r") \
  X(Clone, "clone", OutOfPlace, "T", Elementwise, Copy, Clone, ".clone", Whole, 11, "") \
  X(Sum, "sum", OutOfPlace, "TII", Reduction, None, Sum, "torch.sum", Reduce, 8, "") \
  X(Amax, "amax", OutOfPlace, "TII", Reduction, None, Amax, "torch.amax", Reduce, 8, "0r") \
  X(Softmax, "softmax", OutOfPlace, "TI", Reduction, None, Softmax, "torch.softmax", Reduce, 8, "r") \
  X(Matmul, "matmul", OutOfPlace, "TT", Reduction, None, Matmul, "torch.mm", Matmul, 8, "01") \
  X(Cat, "cat", OutOfPlace, "SI", Concat, None, Cat, "torch.cat", Cat, 8, "") \
  X(Full, "full", OutOfPlace, "LN", Elementwise, Fill, Full, "torch.full", Full, 6, "") \
  /* introduced by strategies: functionalization's scatters */                                      \
  X(SliceScatter, "slice_scatter", Scatter, "TTIIII", Scatter, None, Slice, "torch.slice_scatter", NotGenerated, 0, "") \
  X(SelectScatter, "select_scatter", Scatter, "TTII", Scatter, None, Select, "torch.select_scatter", NotGenerated, 0, "") \
  X(DiagonalScatter, "diagonal_scatter", Scatter, "TTIII", Scatter, None, Diagonal, "torch.diagonal_scatter", NotGenerated, 0, "") \
  X(AsStridedScatter, "as_strided_scatter", Scatter, "TTLLI", Scatter, None, AsStrided, "torch.as_strided_scatter", NotGenerated, 0, "") \
  /* introduced by strategies: Thunder's alias threading (the bridge binds the inputs) */           \
  X(UpdateAliases, "update_aliases", Meta, "S", Meta, None, UpdateAliases, "", NotGenerated, 0, "") \
  /* added since format v1.3, off by default (docs/format.md) */                                    \
  X(SinI, "sin_", InPlace, "T", Elementwise, Sin, Sin, ".sin_", InPlaceUnary, 0, "") \
  X(Sin, "sin", OutOfPlace, "T", Elementwise, Sin, Sin, "torch.sin", Unary, 0, "0") \
  /* format v1.4: mutable custom ops (torch.library.custom_op, mutates_args=("x",)), off by default */ \
  X(CustomScaleI, "custom_scale_", InPlace, "TN", Elementwise, Mul, Mul, "torch.ops.aliasfuzz.scale_", \
    InPlaceBinary, 0, "") \
  X(CustomCopyI, "custom_copy_", InPlace, "TT", Elementwise, Copy, CustomCopyI, "torch.ops.aliasfuzz.copy_", \
    Copy, 0, "") \
  /* format v1.4: torch._dynamo.graph_break() for Dynamo, a no-op elsewhere; no arguments, no result */ \
  X(GraphBreak, "graph_break", Meta, "", Meta, None, GraphBreak, "_graph_break", GraphBreak, 0, "") \
  /* format v1.5: view(x, i32), the view that reads the storage's bytes as another dtype; off by default */ \
  X(ViewDtype, "view_dtype", View, "TD", Movement, None, ViewDtype, ".view", ViewDtype, 0, "") \
  /* format v1.5: a copy whose elements move (not a view) */ \
  X(Flip, "flip", OutOfPlace, "TL", Reorder, None, Flip, ".flip", Flip, 0, "") \
  /* format v1.5: torch.bmm, [B, m, k] x [B, k, n] (no broadcast; expanded and transposed operands) */ \
  X(Bmm, "bmm", OutOfPlace, "TT", Reduction, None, Bmm, "torch.bmm", Bmm, 0, "01") \
  /* format v1.5: the indexed writes out of place: x copied (contiguous), then written as the in-place op writes */ \
  X(IndexAdd, "index_add", OutOfPlace, "TIJT", Indexed, None, IndexAdd, ".index_add", IndexAlong, 0, "3") \
  X(IndexCopy, "index_copy", OutOfPlace, "TIJT", Indexed, None, IndexCopy, ".index_copy", IndexAlong, 0, "3") \
  X(Scatter, "scatter", OutOfPlace, "TIJT", Indexed, None, Scatter, ".scatter", ScatterAlong, 0, "") \
  X(ScatterAdd, "scatter_add", OutOfPlace, "TIJT", Indexed, None, ScatterAdd, ".scatter_add", ScatterAlong, 0, "") \
  /* format v1.5: out= for the ternary ops: OUT = op(out, x, ..) writes out (often a view of an operand) */ \
  X(AddcmulOut, "addcmul_out", InPlace, "OTTTN", Elementwise, Addcmul, AddcmulOut, "torch.addcmul", Addc, 0, "") \
  X(AddcdivOut, "addcdiv_out", InPlace, "OTTTN", Elementwise, Addcdiv, AddcdivOut, "torch.addcdiv", Addc, 0, "") \
  X(LerpOut, "lerp_out", InPlace, "OTTX", Elementwise, Lerp, LerpOut, "torch.lerp", Lerp, 0, "") \
  /* format v1.5: torch.matmul, operands of any rank >= 1, batch dims broadcast (ir/matmul.h) */ \
  X(MatmulNd, "matmul_nd", OutOfPlace, "TT", Reduction, None, MatmulNd, "torch.matmul", MatmulNd, 0, "01")
// clang-format on

enum class OpKind {
#define AF_ENUM(e, ...) e,
  AF_OPS(AF_ENUM)
#undef AF_ENUM
};
constexpr int kOpCount = 0
#define AF_COUNT(...) +1
    AF_OPS(AF_COUNT)
#undef AF_COUNT
    ;

enum class OpClass { View, MayAlias, InPlace, OutOfPlace, Scatter, Meta };

// What an op computes; fusion (schedulers/fusion.cc) decides by family
// which ops a region may hold.
enum class Family {
  Movement,     // views and may-alias ops: geometry, or a copy of the values as they are
  Elementwise,  // one Math function per element
  Reduction,    // sum, amax, softmax, matmul: each result element reads many inputs
  Concat,       // cat
  Reorder,      // format v1.5's flip: a fresh copy whose elements move (each reads another position)
  Scatter,      // a clone of the base with a source written into a slot
  Indexed,      // format v1.2: in-place writes at positions an index tensor or a mask names
  Meta,         // update_aliases: no values move
};

// The ops of one family, for the switches that dispatch within it (ir::infer,
// functionalization's steps, the oracle's and the lowering's kernels), so
// that -Werror=switch names each switch a new kind must reach. ops.cc checks
// that every op of the family, and no other, has a kind here.
//   ViewKind       Family::Movement, one per view op; a metadata op (format
//                  v1.3) has its mirrored view's (transpose_: Transpose);
//   ReductionKind  Family::Reduction, one per op;
//   IndexedKind    Family::Indexed: the write, in place or on a copy of x
//                  (index_add_ and index_add: IndexAdd).
// clang-format off
#define AF_VIEWS(X)                                                                                         \
  X(View) X(Reshape) X(Flatten) X(Contiguous) X(T) X(Transpose) X(Permute) X(Slice) X(Narrow) X(Select)     \
  X(Unsqueeze) X(Squeeze) X(Expand) X(Diagonal) X(AsStrided) X(Chunk) X(Split) X(Unbind) X(Alias) X(Unfold) \
  X(ViewDtype)
#define AF_REDUCTIONS(X) X(Sum) X(Amax) X(Softmax) X(Matmul) X(Bmm) X(MatmulNd)
#define AF_INDEXED(X)                                                                                 \
  X(IndexPutI, IndexPut) X(IndexAddI, IndexAdd) X(IndexCopyI, IndexCopy) X(ScatterI, Scatter)         \
  X(ScatterAddI, ScatterAdd) X(MaskedFillI, MaskedFill) X(IndexAdd, IndexAdd) X(IndexCopy, IndexCopy) \
  X(Scatter, Scatter) X(ScatterAdd, ScatterAdd)
// clang-format on
#define AF_KIND_ENUM(k) k,
enum class ViewKind { None, AF_VIEWS(AF_KIND_ENUM) };
enum class ReductionKind { None, AF_REDUCTIONS(AF_KIND_ENUM) };
#undef AF_KIND_ENUM
enum class IndexedKind { None, IndexPut, IndexAdd, IndexCopy, Scatter, ScatterAdd, MaskedFill };
// The kind of op k in its family; None for an op of another family.
ViewKind view_kind(OpKind k);
ReductionKind reduction_kind(OpKind k);
IndexedKind indexed_kind(OpKind k);

// The per-element function of an elementwise op. Columns: the Math, its
// arity (MathArity: which arguments it reads; every layer but the kernels
// sorts Math by it) and its noise class (Noise).
//   Unary    f(x) of the target (in place) or the argument;
//   Binary   f(x, y), y the second argument (tensor broadcast, or number);
//   Clamp    clamp(x, lo, hi) with two number bounds (NaN bound -> NaN);
//   Constant the number argument (Fill: fill_, full), or 0 (Zero: zero_);
//   Copy     the source tensor, broadcast (copy_, setitem_, clone);
//   Ternary  f(x, a, b, s) of the target and two operands (broadcast;
//            lerp's weight may be a number) and, for addcmul/addcdiv, the
//            number `value` s (oracles/kernels.h: ternary).
// clang-format off
#define AF_MATH(X)                                                                             \
  X(None, NotElementwise, NotElementwise)                                                     \
  X(Add, Binary, Sum) X(Sub, Binary, Sum) X(Mul, Binary, Product) X(Div, Binary, Quotient)    \
  X(Exp, Unary, Exponential) X(Neg, Unary, Exact) X(Abs, Unary, Exact)                        \
  X(Relu, Unary, ClampedAtZero) X(Tanh, Unary, Slope1) X(Sin, Unary, Slope1)                  \
  X(Sigmoid, Unary, SlopeQuarter) X(Clamp, Clamp, Clamped) X(Fill, Constant, Constant)        \
  X(Zero, Constant, Constant) X(Copy, Copy, Exact)                                            \
  X(Addcmul, Ternary, Addc) X(Addcdiv, Ternary, Addc) X(Lerp, Ternary, Lerp)                  \
  X(ClampTensor, Ternary, MaxOfOperands)
// clang-format on
enum class Math {
#define AF_MATH_ENUM(m, arity, noise) m,
  AF_MATH(AF_MATH_ENUM)
#undef AF_MATH_ENUM
};
enum class MathArity { NotElementwise, Unary, Binary, Clamp, Constant, Copy, Ternary };
// How a Math moves rounding noise: the class of the generator's noise
// rule (generate/noise_model.cc: one rule per class), so that a new Math with
// the same kind of function takes an existing rule.
enum class Noise {
  NotElementwise,
  Exact,          // the operand's noise as it is (neg, abs, copy)
  Constant,       // none (fill, zero)
  Sum,            // add, sub: the operands' noise and one rounding
  Product,        // mul
  Quotient,       // div: the divisor bounded away from 0
  Exponential,    // exp: relative to the result
  Slope1,         // |f'| <= 1 and a few ulp (tanh, sin)
  SlopeQuarter,   // |f'| <= 1/4 and a few ulp (sigmoid)
  ClampedAtZero,  // relu: none where robustly below 0, else the operand's
  Clamped,        // clamp: the same at two number bounds
  Addc,           // addcmul, addcdiv
  Lerp,
  MaxOfOperands,  // clamp_tensor: 1-Lipschitz in each argument
};
MathArity math_arity(Math m);
Noise math_noise(Math m);
const char* math_name(Math m);

// How the generator (generate/recipes.cc) draws an op's arguments; ops that
// share a recipe differ only in what the op itself does.
enum class GenRecipe {
  NotGenerated,  // introduced by strategies only
  Reshape,       // view, reshape: a factorization of numel
  Whole,         // flatten, contiguous, alias, clone: the tensor alone
  T,
  Transpose,
  Permute,
  Unsqueeze,
  Squeeze,
  Expand,
  Diagonal,
  AsStrided,
  Unfold,         // unfold: a dim, a window size and a step (overlapping when step < size)
  MetaInPlace,    // transpose_ .. as_strided_: the mirrored view's arguments; x's names retire
  Slice,          // slice, narrow, select: a dim and a window
  Split,          // chunk, split, unbind: a dim of 2..8 (unbind 2..4)
  InPlaceBinary,  // add_ .. div_: a writable target and a safe operand
  InPlaceUnary,   // exp_ .. sigmoid_, zero_: a writable target
  Clamp,
  Fill,
  Copy,
  Setitem,
  Addc,          // addcmul_, addcdiv_: a writable target, two operands, a value
  Lerp,          // lerp_: a writable target, an end, a weight (number or tensor)
  ClampTensor,   // clamp_tensor_: a writable target and two bound tensors
  IndexPut,      // index_put_: a target, a 1-D index (unique unless accumulate), values
  IndexAlong,    // index_add_, index_copy_: a dim, a 1-D index (unique for index_copy_), a source
  ScatterAlong,  // scatter_, scatter_add_: a dim, an index of the target's rank, a source
  MaskedFill,    // masked_fill_: a mask (sparse or dense) broadcast to the target, a number
  OutBinary,     // add_out .. div_out: an out tensor (often a view of an operand) and two operands
  OutUnary,      // exp_out .. sigmoid_out: an out tensor and one operand
  Binary,        // add .. div
  Unary,         // exp .. sigmoid
  Reduce,        // sum, amax, softmax: a dim
  Matmul,
  Cat,
  Full,
  GraphBreak,  // graph_break (format v1.4): after a view or a write, so that aliases cross the break
  ViewDtype,   // view(x, i32) (format v1.5): an exact f32 value viewed as i32, or an i32 one back as f32
  Flip,        // flip(x, dims) (format v1.5): distinct dims, often written back into x
  Bmm,         // bmm(a, b) (format v1.5): a batch (often a matrix unsqueezed and expanded) by b or a's transpose
  MatmulNd,  // matmul_nd(a, b) (format v1.5): operands whose batch dims broadcast (an expanded or size-1 batch), or 1-D
};

struct OpInfo {
  OpKind kind;
  const char* name;
  OpClass cls;
  // One char per argument: T tensor, X tensor or number, N number,
  // I integer, L integer list, S tensor list, O the out= tensor (written,
  // not read; PyTorch's `out=` keyword; always argument 0), J an i64 index
  // tensor, M a bool mask tensor (format v1.2: the only places i64 and bool
  // tensors may appear), D a dtype name (format v1.5's view(x, i32); held
  // as an Int argument whose value is the Dtype).
  const char* sig;
  Family family;
  Math math;
  OpKind functional;
  const char* torch;
  GenRecipe recipe;
  int weight;
  // What autograd saves for backward when it records this op: the digits
  // are the argument positions of tensors saved before the op writes, 'r'
  // its result ("01": both operands of mul; "r": exp's result). Measured
  // on torch 2.15.0 (a tensor's version bumped after the op, then
  // backward: "modified by an inplace operation"); an in-place op saving
  // its original self saves a clone. The generator's training mode
  // (generate/training.cc) keeps programs autograd would refuse out.
  const char* saves;
};

const OpInfo& op_info(OpKind k);
std::optional<OpKind> op_from_name(const std::string& name);
const std::vector<OpKind>& all_ops();
inline const char* op_name(OpKind k) { return op_info(k).name; }
inline bool is_inplace(OpKind k) { return op_info(k).cls == OpClass::InPlace; }
bool is_multi_output(OpKind k);
// The out-of-place op computing what an in-place elementwise op writes
// (add_ -> add, exp_ -> exp, add_out -> add: called on the operands, i.e.
// the arguments from first_operand on); nothing for the others (clamp_,
// clamp_tensor_, addcmul_, addcdiv_, lerp_, fill_, zero_, copy_, setitem_,
// and ops that are not in place).
inline std::optional<OpKind> out_of_place(OpKind k) {
  const OpKind f = op_info(k).functional;
  if (f == k || op_info(k).cls != OpClass::InPlace) return std::nullopt;
  return f;
}
// The out= variants (add_out(c, a, b) is torch.add(a, b, out=c)): argument
// 0 is the tensor written, the operands follow it. Every other in-place op
// reads its target as its first operand.
inline bool is_out_variant(OpKind k) { return op_info(k).sig[0] == 'O'; }
// Index of the first operand of an elementwise op's Math (1 for out=).
inline size_t first_operand(OpKind k) { return is_out_variant(k) ? 1 : 0; }
// The ops format v1.1 added (docs/format.md): the out= variants and the
// in-place ops of several operands.
// Format v1.5's out= forms of the ternary ops (addcmul_out, addcdiv_out, lerp_out).
inline bool is_ternary_out(OpKind k) { return is_out_variant(k) && math_arity(op_info(k).math) == MathArity::Ternary; }
// The writes PyTorch checks as one TensorIterator op over several operands
// (out= of any arity, the ternary in-place ops): ir::infer's one rule for
// their overlap, shapes and out= resizing.
inline bool is_multi_operand_write(OpKind k) {
  return is_out_variant(k) || math_arity(op_info(k).math) == MathArity::Ternary;
}
inline bool added_in_v11(OpKind k) { return is_multi_operand_write(k) && !is_ternary_out(k); }
// The indexed ops, all of which read i64 index values (or a bool mask):
// format v1.2's in-place writes and format v1.5's out-of-place copies.
inline bool is_indexed(OpKind k) { return op_info(k).family == Family::Indexed; }
// The ops format v1.2 added: indexed and masked in-place writes.
inline bool added_in_v12(OpKind k) { return is_indexed(k) && op_info(k).cls == OpClass::InPlace; }
// Format v1.5's out-of-place indexed ops (index_add, index_copy, scatter,
// scatter_add): PyTorch copies x into a fresh contiguous tensor (whatever
// x's layout: an expanded x too) and writes that as the in-place op would.
inline bool is_indexed_copy(OpKind k) { return is_indexed(k) && op_info(k).cls == OpClass::OutOfPlace; }
// The in-place op whose write an indexed op performs: index_add ->
// index_add_ (by name: the table pairs them so); an in-place one itself.
OpKind indexed_write_op(OpKind k);
// Format v1.3's metadata-mutating in-place ops (transpose_, t_, squeeze_,
// unsqueeze_, swapdims_, as_strided_): `y = transpose_(x, 0, 1)` gives the
// tensor object x (and every name bound to it) y's geometry. For geometry
// they are the view op they mirror (the table's `functional` column), of
// class View; validation retires x's names after the statement (a later
// use is error kind `retired`), so every name keeps one geometry (SSA).
inline bool is_metadata_inplace(OpKind k) { return op_info(k).cls == OpClass::View && op_info(k).functional != k; }
// The view op a metadata op mirrors (transpose_ -> transpose); k itself otherwise.
inline OpKind geometry_op(OpKind k) { return is_metadata_inplace(k) ? op_info(k).functional : k; }
// The ops format v1.3 added: the metadata ops and unfold.
inline bool added_in_v13(OpKind k) { return is_metadata_inplace(k) || k == OpKind::Unfold; }
// Format v1.4's mutable custom ops (docs/format.md): ops the runner defines
// with torch.library.custom_op(mutates_args=("x",)), whose Python body is
// one aten op. Every layer of this project gives them that op's semantics
// (aten_equivalent); PyTorch sees an opaque op that returns None.
inline bool is_custom_op(OpKind k) { return k == OpKind::CustomScaleI || k == OpKind::CustomCopyI; }
// The aten op a custom op's body is (custom_scale_ -> mul_, custom_copy_
// -> copy_); k itself for every other op.
inline OpKind aten_equivalent(OpKind k) {
  return k == OpKind::CustomScaleI ? OpKind::MulI : k == OpKind::CustomCopyI ? OpKind::CopyI : k;
}
// Ops whose PyTorch form returns nothing (setitem_ is a Python assignment,
// a custom op and graph_break return None): a name bound to one is error
// kind `name`, as PyTorch's unpacking of nothing is. Not "in place":
// graph_break writes nothing; callers that ask it of an in-place op read
// it as "writes and binds no result".
inline bool binds_nothing(OpKind k) { return k == OpKind::SetitemI || is_custom_op(k) || k == OpKind::GraphBreak; }
// The constructs format v1.4 added: the custom ops and graph_break.
inline bool added_in_v14(OpKind k) { return is_custom_op(k) || k == OpKind::GraphBreak; }
// The constructs format v1.5 added: view(x, dtype).
inline bool added_in_v15(OpKind k) {
  return k == OpKind::ViewDtype || k == OpKind::Flip || k == OpKind::Bmm || k == OpKind::MatmulNd ||
         is_indexed_copy(k) || is_ternary_out(k);
}
// The element type of a storage (format v1.2). f32 is the only data type;
// i64 and bool storages hold indices and masks, never written (their
// values are stored exactly as floats in memory: |v| <= kMaxIndexValue).
// Format v1.5 adds i32, the dtype of a view(x, i32) of an f32 tensor and
// of what is computed from one: a data dtype like f32 (docs/format.md).
// Memory holds an i32 element as its 32 bits in the float slot of the
// element it shares storage with, so views move bytes, never values.
// Its seventh slice adds i64 data: a view(x, i64) of an f32 or i32 tensor
// (two elements become one) and what is computed from it, each element two
// memory words, low then high (TensorMeta::wide); declared i64 storages stay
// index operands, one word each, never written.
// Its tenth slice adds f64 data the same way: a view(x, f64) of f32, i32
// or i64 memory and what is computed from it, always wide (no storage is
// declared f64), computed in IEEE double with the exact operations only.
enum class Dtype : uint8_t { F32, I64, Bool, I32, F64 };
const char* dtype_name(Dtype d);
std::optional<Dtype> dtype_from_name(const std::string& name);
// The dtypes values are computed in (f32, and format v1.5's i32 and f64;
// i64 when the tensor is wide).
inline bool is_data_dtype(Dtype d) { return d == Dtype::F32 || d == Dtype::I32 || d == Dtype::F64; }
// PyTorch's element sizes in bytes (a dtype view's geometry rule).
inline int64_t element_size(Dtype d) { return d == Dtype::I64 || d == Dtype::F64 ? 8 : d == Dtype::Bool ? 1 : 4; }
constexpr int64_t kMaxIndexValue = int64_t{1} << 24;
// The dtype a tensor argument at signature position `c` must have.
inline Dtype dtype_of_sig(char c) { return c == 'J' ? Dtype::I64 : c == 'M' ? Dtype::Bool : Dtype::F32; }
// Elementwise ops (in or out of place), the ones fusion passes merge.
inline bool is_elementwise(OpKind k) { return op_info(k).family == Family::Elementwise; }
inline bool is_reduction(OpKind k) {
  return op_info(k).family == Family::Reduction;
}  // sum, amax, softmax, matmul, bmm
inline Math math_of(OpKind k) { return op_info(k).math; }

// What the shape rule knows of a tensor argument.
struct TensorMeta {
  Geometry g;
  int storage = -1;  // storage id (declared storages first, then fresh ones)
  int64_t storage_numel = 0;
  int impl = -1;             // identity of the tensor object (PyTorch's is_same)
  Dtype dtype = Dtype::F32;  // format v1.2's i64/bool inputs, v1.5's i32 values
  // Format v1.5: an i64 data value (a view(x, i64) of f32/i32 memory, or
  // computed from one) or any f64 value, whose elements are two memory
  // words each; an i64 value that is not wide is an index input's.
  bool wide = false;
  bool is_data() const { return is_data_dtype(dtype) || wide; }
  // Compared bit for bit between runs (format v1.5): i32 and i64 data,
  // and f64, whose operations the format keeps to IEEE's exact ones.
  bool is_exact_data() const { return dtype == Dtype::I32 || wide; }
};
// The memory words of a wide value's geometry g (an element of two words,
// low then high, at twice its element offset): sizes + [2], strides * 2 +
// [1]; g itself for every other value.
Geometry word_geometry(const Geometry& g);
inline Geometry memory_geometry(const TensorMeta& m) { return m.wide ? word_geometry(m.g) : m.g; }
// The memory of g, a part of m (a slot, the elements a write covers) or m
// broadcast: g's words where m is wide.
inline Geometry memory_geometry(const TensorMeta& m, const Geometry& g) { return m.wide ? word_geometry(g) : g; }
// PyTorch's view(dtype) geometry of t viewed as `to` (format v1.5), or its
// `view` error (a dim, size, offset or stride that the element sizes' ratio
// does not allow).
Result<Geometry> view_dtype_geometry(const TensorMeta& t, Dtype to);
// The memory words of a fresh result's storage.
inline int64_t memory_words(const TensorMeta& m) { return m.storage_numel * (m.wide ? 2 : 1); }
// A view result's storage size in its own elements: its source's, but for a
// dtype view between element sizes (wide i64 <-> f32/i32) the storage's
// memory `words` in the view's elements (an i64 view of an odd number of
// f32 words sees one element fewer). Every analysis (ir::analyze, the
// generator's, the schedule builder's) sets a result's meta with this.
inline int64_t view_storage_numel(const TensorMeta& src, const TensorMeta& view, int64_t words) {
  return view.wide == src.wide ? src.storage_numel : view.wide ? words / 2 : words;
}

// One result of a statement: a view of the argument's storage (fresh ==
// false, storage = source argument's storage) or a new storage holding
// exactly this geometry's elements (fresh == true).
struct OutMeta {
  Geometry g;
  bool fresh = false;
  int source_arg = 0;  // the argument whose storage a non-fresh result shares
};

// The results of a statement: one for all but the multi-output ops, kept
// inline (infer runs for every statement of every analysis and schedule).
using OutMetas = SmallVec<OutMeta, 1>;

// An argument after checking: tensor args resolved to their metas.
struct CheckedArg {
  const TensorMeta* t = nullptr;      // Tensor
  std::vector<const TensorMeta*> ts;  // TensorList
  int64_t i = 0;                      // Int
  double f = 0;                       // Float (or Int as double)
  bool is_float = false;              // a Float number (format v1.5: never an i32 operand)
  Shape list;                         // IntList (inline, as the shape rules read it)
  bool is_tensor() const { return t != nullptr; }
};

// Whether a result in `dtype` is wide (i64 data): a view(x, i64), another
// view of a wide value, or a fresh i64 result computed from one; a
// strategy's view or copy of a declared i64 storage (an index input's) is
// not. `src`: the tensor a view result shares storage with (null for a
// fresh result, computed from `args`).
bool result_is_wide(OpKind op, Dtype dtype, const TensorMeta* src, const std::vector<CheckedArg>& args);

// The shape/stride rule: the results of applying op to args, or the error
// PyTorch raises (kind and message; the caller adds the line). For in-place
// ops this also applies PyTorch's memory-overlap checks and flags the
// `undefined` cases.
Result<OutMetas> infer(OpKind op, const std::vector<CheckedArg>& args);
// The same into a caller-owned result (cleared first; unspecified after an
// error), for the loops that infer every statement: no OutMetas is moved
// through returns and a reused one keeps its slots.
std::optional<Error> infer_into(OpKind op, const std::vector<CheckedArg>& args, OutMetas* out);

// Format v1.5's dtype rule (ir/dtypes.cc): the dtype a statement computes
// in (its results' dtype; a view(x, dtype) result's is the named one), or
// the `dtype` error of a mix the format keeps out (f32 with i32, an i32
// operand with a float number, i32 math beyond add/sub/mul/neg/abs/copy).
Result<Dtype> result_dtype(OpKind op, const std::vector<CheckedArg>& args);

// The data-dependent rules of the indexed ops (format v1.2), checked after
// infer() accepted the statement: `index` holds the index (or mask) tensor's
// values in logical order. Out-of-range indices are `arg` (PyTorch's
// IndexError / "out of bounds" RuntimeError), checked first; then the
// order dependence per element (ir/index_order.h): two writes of one
// element where they do not accumulate, or a source element another
// position writes, are `undefined`.
std::optional<Error> check_index_values(OpKind op, const std::vector<CheckedArg>& args,
                                        const std::vector<int64_t>& index);

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
