// The reference kernels: elementwise math, reductions, and the movement of
// values between a storage and a view of it. They exist once, shared by the
// eager oracle and by the interpreter tier that executes schedules.
#pragma once
#include <string>
#include <vector>

#include "ir/geometry.h"
#include "ir/matmul.h"
#include "ir/ops.h"
#include "oracles/memory.h"

namespace af::oracles {

using ir::Geometry;
using ir::Shape;

// A tensor's values in logical (row-major) order.
struct Dense {
  Shape sizes;
  std::vector<float> v;
  // Format v1.5: an i32 value's elements are their 32 bits in float slots
  // (ir/ops.h: Dtype), compared bit for bit.
  ir::Dtype dtype = ir::Dtype::F32;
};

// A storage is a Memory's slice or any float vector (Span converts both).
Dense gather(ConstFloats storage, const Geometry& g);
// The same into *out, whose capacity a hot loop reuses across calls.
void gather_into(ConstFloats storage, const Geometry& g, std::vector<float>* out);
void scatter(Floats storage, const Geometry& g, ConstFloats values);

// The kernels of each arity (ir/ops.h: MathArity): callers pick one by the
// Math's arity, so each switch computes the Math of its own arity only and
// names the others (a new Math is a compile error in each) as a bug.
float unary(ir::Math f, float x);  // MathArity::Unary (exp, tanh, ...)
// MathArity::Binary: add, sub, mul, div, for any value type with the four
// operators: float here, Halide::Expr in lowering/halide_backend.cc, so the
// reference kernels and Halide share one definition.
template <class V>
V binary(ir::Math f, V a, V b) {
  using M = ir::Math;
  switch (f) {
    case M::Add: return a + b;
    case M::Sub: return a - b;
    case M::Mul: return a * b;
    case M::Div: return a / b;
    case M::None:
    case M::Exp:
    case M::Neg:
    case M::Abs:
    case M::Relu:
    case M::Tanh:
    case M::Sin:
    case M::Sigmoid:
    case M::Clamp:
    case M::Fill:
    case M::Zero:
    case M::Copy:
    case M::Addcmul:
    case M::Addcdiv:
    case M::Lerp:
    case M::ClampTensor: break;
  }
  ir::internal_error(std::string("binary: not a binary function: ") + ir::math_name(f));
}
float clamp(float x, float lo, float hi);

// Format v1.5's i32 arithmetic on the bits memory holds: PyTorch's int32
// kernels, which wrap (add, sub, mul, neg, abs of INT32_MIN). A Python int
// operand is converted as PyTorch converts it, keeping its low 32 bits.
float i32_binary(ir::Math f, float a, float b);
float i32_unary(ir::Math f, float x);
float i32_bits(int64_t v);
int32_t i32_value(float bits);
// Format v1.5's i64 data: an element is two memory words, its low and high
// 32 bits (as a little-endian machine stores it), read and written as bits;
// the arithmetic wraps as PyTorch's int64 kernels do (add, sub, mul; neg,
// abs; abs of the least value is itself).
void i64_binary(ir::Math f, const float* a, const float* b, float* out);
void i64_unary(ir::Math f, const float* x, float* out);
void i64_words(int64_t v, float* out);
int64_t i64_value(const float* words);
// Format v1.5's f64 data: an element is two memory words too (its IEEE
// bits, low word first), computed in double: add, sub, mul rounded once,
// neg and abs flip or clear the sign bit (NaN payloads kept, as PyTorch's
// kernels keep them).
void f64_binary(ir::Math f, const float* a, const float* b, float* out);
void f64_unary(ir::Math f, const float* x, float* out);
void f64_words(double v, float* out);
double f64_value(const float* words);
// MathArity::Ternary of the target x, operands a and b and the number s, as
// PyTorch 1.13's CPU kernels compute them: addcmul x + s * a * b, addcdiv
// x + s * a / b (left to right), lerp(x, end = a, weight = b), clamp(x,
// lo = a, hi = b) (s unused for the last two). Halide's twin is in
// lowering/halide_backend.cc.
float ternary(ir::Math f, float x, float a, float b, float s);

// Splits a shape around dim into outer * n * inner (n = 1 for a 0-d shape):
// element (o, k, i) of the row-major order sits at (o * n + k) * inner + i.
void around(const Shape& s, int64_t dim, int64_t* outer, int64_t* n, int64_t* inner);

// Format v1.2's indexed and masked writes on the target's values x (logical
// order, in place): sets written[i] for every position it writes. `index`
// is the index tensor (index_put_: its values wrapped by PyTorch's negative
// indexing; a mask for masked_fill_, broadcast to x), `src` the values
// (index_put_: broadcast to the indexing result; index_add_/index_copy_/
// scatter_: the source as it is). `dim` is wrapped; `number` is
// masked_fill_'s value, `accumulate` index_put_'s flag. The statement has
// passed analysis (indices in range, unique where PyTorch needs it).
void indexed_write(ir::OpKind op, int64_t dim, const Dense& index, const Dense& src, float number, bool accumulate,
                   Dense* x, std::vector<char>* written);

// Results into *out (not aliasing an argument), whose capacity a hot loop
// reuses across calls: the executor keeps one per thread.
void reduce(ir::OpKind op, const Dense& a, int64_t dim, bool keepdim, Dense* out);  // sum, amax
void softmax(const Dense& a, int64_t dim, Dense* out);
// torch.mm, torch.bmm and torch.matmul (format v1.5's matmul_nd) by their
// plan (ir/matmul.h), each product accumulated in double.
void matmul(const Dense& a, const Dense& b, const ir::MatmulPlan& plan, Dense* out);
void cat(const std::vector<Dense>& parts, int64_t dim, Dense* out);
// torch.flip (format v1.5): a's elements reversed along each dim of `dims`
// as the program writes them (negative counts from the end; checked valid
// and distinct by the analysis); the dtype and bits carry over.
void flip(const Dense& a, const std::vector<int64_t>& dims, Dense* out);

}  // namespace af::oracles
