#include "ir/ops.h"

#include "ir/index_order.h"
#include "ir/matmul.h"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <iterator>
#include <map>
#include <sstream>
#include <tuple>

namespace af::ir {

std::pair<int64_t, int64_t> slice_bounds(int64_t n, int64_t start, int64_t end) {
  if (start < 0) start += n;
  if (end < 0) end += n;
  if (start < 0)
    start = 0;
  else if (start >= n)
    start = n;
  if (end < start)
    end = start;
  else if (end >= n)
    end = n;
  return {start, end};
}

namespace {

constexpr OpInfo kOps[] = {
#define AF_INFO(e, n, c, s, fam, m, fn, torch, recipe, w, saves) \
  {OpKind::e, n, OpClass::c, s, Family::fam, Math::m, OpKind::fn, torch, GenRecipe::recipe, w, saves},
    AF_OPS(AF_INFO)
#undef AF_INFO
};
static_assert(std::size(kOps) == kOpCount, "one OpInfo per OpKind");

// op_info indexes kOps by the enumerator: each row must sit at its own index.
constexpr bool rows_in_order() {
  for (int i = 0; i < kOpCount; ++i)
    if (static_cast<int>(kOps[i].kind) != i) return false;
  return true;
}
static_assert(rows_in_order(), "kOps rows follow OpKind order");

// An in-place op's functional counterpart computes the same function out of place.
constexpr bool functional_counterparts_agree() {
  for (const OpInfo& o : kOps) {
    const OpInfo& f = kOps[static_cast<int>(o.functional)];
    if (o.cls == OpClass::Scatter) {  // the view whose slot it writes (scatter_slot)
      if (f.cls != OpClass::View || f.functional != f.kind) return false;
      continue;
    }
    if (f.kind == o.kind) continue;
    // A metadata op (format v1.3) mirrors a view op of the same arguments.
    if (o.cls == OpClass::View && f.cls == OpClass::View && f.functional == f.kind) continue;
    if (o.cls != OpClass::InPlace || f.cls != OpClass::OutOfPlace || f.math != o.math) return false;
  }
  return true;
}
static_assert(functional_counterparts_agree(),
              "abs_ -> abs: same Math, in place -> out of place; transpose_ -> transpose; slice_scatter -> slice");

// The families' kinds (ops.h: AF_VIEWS, AF_REDUCTIONS, AF_INDEXED) by OpKind.
template <class Kind>
using KindOf = std::array<Kind, kOpCount>;  // value-initialized: Kind::None
constexpr KindOf<ViewKind> kViewKinds = [] {
  KindOf<ViewKind> r{};
#define AF_VIEW_KIND(v) r[static_cast<int>(OpKind::v)] = ViewKind::v;
  AF_VIEWS(AF_VIEW_KIND)
#undef AF_VIEW_KIND
  for (const OpInfo& o : kOps)  // a metadata op: the view it mirrors
    if (o.cls == OpClass::View && o.functional != o.kind)
      r[static_cast<int>(o.kind)] = r[static_cast<int>(o.functional)];
  return r;
}();
constexpr KindOf<ReductionKind> kReductionKinds = [] {
  KindOf<ReductionKind> r{};
#define AF_REDUCTION_KIND(k) r[static_cast<int>(OpKind::k)] = ReductionKind::k;
  AF_REDUCTIONS(AF_REDUCTION_KIND)
#undef AF_REDUCTION_KIND
  return r;
}();
constexpr KindOf<IndexedKind> kIndexedKinds = [] {
  KindOf<IndexedKind> r{};
#define AF_INDEXED_KIND(op, k) r[static_cast<int>(OpKind::op)] = IndexedKind::k;
  AF_INDEXED(AF_INDEXED_KIND)
#undef AF_INDEXED_KIND
  return r;
}();
constexpr bool families_have_their_kinds() {
  for (const OpInfo& o : kOps) {
    const int i = static_cast<int>(o.kind);
    if ((o.family == Family::Movement) != (kViewKinds[i] != ViewKind::None) ||
        (o.family == Family::Reduction) != (kReductionKinds[i] != ReductionKind::None) ||
        (o.family == Family::Indexed) != (kIndexedKinds[i] != IndexedKind::None))
      return false;
  }
  return true;
}
static_assert(families_have_their_kinds(),
              "a Movement, Reduction or Indexed op needs its row in ops.h's AF_VIEWS, "
              "AF_REDUCTIONS or AF_INDEXED (and no other op has one)");

constexpr MathArity kMathArity[] = {
#define AF_MATH_ARITY(m, arity, noise) MathArity::arity,
    AF_MATH(AF_MATH_ARITY)
#undef AF_MATH_ARITY
};
constexpr Noise kMathNoise[] = {
#define AF_MATH_NOISE(m, arity, noise) Noise::noise,
    AF_MATH(AF_MATH_NOISE)
#undef AF_MATH_NOISE
};
// Functionalization rewrites an in-place unary or binary op as its
// out-of-place counterpart (schedulers/functionalize.cc): each has one.
constexpr bool elementwise_writes_have_counterparts() {
  for (const OpInfo& o : kOps) {
    const MathArity a = kMathArity[static_cast<int>(o.math)];
    if (o.cls == OpClass::InPlace && (a == MathArity::Unary || a == MathArity::Binary) && o.functional == o.kind)
      return false;
  }
  return true;
}
static_assert(elementwise_writes_have_counterparts(), "an in-place unary or binary op needs its out-of-place op");

constexpr const char* kMathNames[] = {
#define AF_MATH_NAME(m, arity, noise) #m,
    AF_MATH(AF_MATH_NAME)
#undef AF_MATH_NAME
};

std::string fmt_shape(const Shape& s) {
  std::ostringstream o;
  o << "[";
  for (size_t i = 0; i < s.size(); ++i) o << (i ? ", " : "") << s[i];
  o << "]";
  return o.str();
}

Error err(ErrorKind k, std::string m) { return Error{k, 0, std::move(m)}; }

// c10's checked conversion of a Scalar to float (fill_, full, clamp_ and a
// setitem_ number): a finite value beyond float's range is an error
// (infinities and NaN convert).
std::optional<Error> check_f32(const CheckedArg& a) {
  const double v = a.f;
  if (std::isfinite(v) && (v > FLT_MAX || v < -FLT_MAX))
    return err(ErrorKind::Arg, "value cannot be converted to type float without overflow");
  return std::nullopt;
}

Error dim_error(int64_t dim, int64_t rank) {
  const int64_t r = rank == 0 ? 1 : rank;
  return err(ErrorKind::Arg, "Dimension out of range (expected to be in range of [" + std::to_string(-r) + ", " +
                                 std::to_string(r - 1) + "], but got " + std::to_string(dim) + ")");
}

// The shape rules append their results to a caller-owned OutMetas and
// return only the error (if any): infer runs for every statement of every
// analysis, generated candidate and schedule, and moving OutMetas (152-byte
// Geometries) through nested Result returns was ~10% of the oracle.
using Outs = OutMetas;
using Status = std::optional<Error>;
Status view_of(Outs* res, Geometry g, int arg = 0) {
  res->push_back(OutMeta{std::move(g), false, arg});
  return std::nullopt;
}
Status fresh(Outs* res, const Shape& sizes, Shape strides) {
  res->push_back(OutMeta{Geometry{sizes, std::move(strides), 0}, true, 0});
  return std::nullopt;
}
Status fresh_contiguous(Outs* res, const Shape& sizes) { return fresh(res, sizes, contiguous_strides(sizes)); }

// infer_size: resolves one -1 against numel.
Result<Shape> infer_size(const Shape& shape, int64_t numel) {
  Shape r = shape;
  int infer = -1;
  int64_t prod = 1;
  for (size_t i = 0; i < r.size(); ++i) {
    if (r[i] == -1) {
      if (infer >= 0) return err(ErrorKind::Arg, "only one dimension can be inferred");
      infer = static_cast<int>(i);
    } else if (r[i] < 0) {
      return err(ErrorKind::Arg, "invalid shape dimension " + std::to_string(r[i]));
    } else {
      prod *= r[i];
    }
  }
  if (infer >= 0) {
    if (prod == 0)
      return err(ErrorKind::Shape, "cannot reshape tensor of " + std::to_string(numel) + " elements into shape " +
                                       fmt_shape(shape) +
                                       " because the unspecified dimension size -1 can be any value");
    if (numel % prod == 0) {
      r[infer] = numel / prod;
      return r;
    }
  } else if (prod == numel) {
    return r;
  }
  return err(ErrorKind::Shape,
             "shape '" + fmt_shape(shape) + "' is invalid for input of size " + std::to_string(numel));
}

Result<Geometry> slice_geometry(const Geometry& g, int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (g.rank() == 0) return err(ErrorKind::Arg, "slice() cannot be applied to a 0-dim tensor.");
  auto d = wrap_dim(dim, g.rank());
  if (!d) return dim_error(dim, g.rank());
  if (step <= 0) return err(ErrorKind::Arg, "slice step must be positive");
  std::tie(start, end) = slice_bounds(g.sizes[*d], start, end);
  Geometry r = g;
  r.offset += start * g.strides[*d];
  r.sizes[*d] = (end - start + step - 1) / step;
  r.strides[*d] *= step;
  return r;
}

Result<Geometry> narrow_geometry(const Geometry& g, int64_t dim, int64_t start, int64_t length) {
  if (g.rank() == 0) return err(ErrorKind::Arg, "narrow() cannot be applied to a 0-dim tensor.");
  auto d = wrap_dim(dim, g.rank());
  if (!d) return dim_error(dim, g.rank());
  if (length < 0) return err(ErrorKind::Arg, "narrow(): length must be non-negative.");
  const int64_t n = g.sizes[*d];
  if (start < -n || start > n)
    return err(ErrorKind::Arg, "start out of range (expected to be in range of [" + std::to_string(-n) + ", " +
                                   std::to_string(n) + "], but got " + std::to_string(start) + ")");
  if (start < 0) start += n;
  if (start > n - length)
    return err(ErrorKind::Arg, "start (" + std::to_string(start) + ") + length (" + std::to_string(length) +
                                   ") exceeds dimension size (" + std::to_string(n) + ").");
  return slice_geometry(g, *d, start, start + length, 1);
}

Result<Geometry> select_geometry(const Geometry& g, int64_t dim, int64_t index) {
  if (g.rank() == 0) return err(ErrorKind::Arg, "select() cannot be applied to a 0-dim tensor.");
  auto d = wrap_dim(dim, g.rank());
  if (!d) return dim_error(dim, g.rank());
  const int64_t n = g.sizes[*d];
  if (index < -n || index >= n)
    return err(ErrorKind::Arg, "select(): index " + std::to_string(index) + " out of range for tensor of size " +
                                   fmt_shape(g.sizes) + " at dimension " + std::to_string(*d));
  if (index < 0) index += n;
  Geometry r = g;
  r.offset += index * g.strides[*d];
  r.sizes.erase(r.sizes.begin() + *d);
  r.strides.erase(r.strides.begin() + *d);
  return r;
}

Result<Geometry> diagonal_geometry(const Geometry& g, int64_t offset, int64_t dim1, int64_t dim2) {
  auto d1 = wrap_dim(dim1, g.rank());
  if (!d1) return dim_error(dim1, g.rank());
  auto d2 = wrap_dim(dim2, g.rank());
  if (!d2) return dim_error(dim2, g.rank());
  if (g.rank() == 0 || *d1 == *d2)
    return err(ErrorKind::Arg,
               "diagonal dimensions cannot be identical " + std::to_string(dim1) + ", " + std::to_string(dim2));
  int64_t n;
  if (offset >= 0)
    n = std::max<int64_t>(std::min(g.sizes[*d1], g.sizes[*d2] - offset), 0);
  else
    n = std::max<int64_t>(std::min(g.sizes[*d1] + offset, g.sizes[*d2]), 0);
  Geometry r = g;
  if (n > 0) {
    if (offset >= 0)
      r.offset += offset * g.strides[*d2];
    else
      r.offset -= offset * g.strides[*d1];
  }
  const int64_t hi = std::max(*d1, *d2), lo = std::min(*d1, *d2);
  for (int64_t d : {hi, lo}) {
    r.sizes.erase(r.sizes.begin() + d);
    r.strides.erase(r.strides.begin() + d);
  }
  r.sizes.push_back(n);
  r.strides.push_back(g.strides[*d1] + g.strides[*d2]);
  return r;
}

Result<Geometry> as_strided_geometry(const TensorMeta& t, const Shape& sizes, const Shape& strides, int64_t offset) {
  if (sizes.size() != strides.size()) return err(ErrorKind::Arg, "mismatch in length of strides and shape");
  for (int64_t s : sizes)
    if (s < 0) return err(ErrorKind::Arg, "Trying to create tensor with negative dimension " + std::to_string(s));
  for (int64_t s : strides)
    if (s < 0)
      return err(ErrorKind::Arg,
                 "as_strided: Negative strides are not supported at the moment, got strides: " + fmt_shape(strides));
  if (offset < 0) return err(ErrorKind::View, "Tensor: invalid storage offset " + std::to_string(offset));
  Geometry r{sizes, strides, offset};
  const int64_t need = required_storage(r);
  if (need > t.storage_numel)
    return err(ErrorKind::View, "setStorage: sizes " + fmt_shape(sizes) + ", strides " + fmt_shape(strides) +
                                    ", storage offset " + std::to_string(offset) +
                                    " are out of bounds for storage of size " + std::to_string(t.storage_numel));
  return r;
}

}  // namespace

// PyTorch's view(dtype) (TensorConversions.cpp: view_dtype), measured on
// torch 1.13 and 2.15.0: one element size keeps the geometry; a smaller
// one splits each element along the last dim, a larger one joins them, with
// these checks in this order (kind `view`, PyTorch's words).
Result<Geometry> view_dtype_geometry(const TensorMeta& t, Dtype to) {
  const int64_t from_size = element_size(t.dtype), to_size = element_size(to);
  if (from_size == to_size) return t.g;
  static const auto scalar = [](Dtype d) {
    return d == Dtype::I64 ? "Long" : d == Dtype::I32 ? "Int" : d == Dtype::F64 ? "Double" : "Float";
  };
  const std::string what =
      std::string(" to view ") + scalar(t.dtype) + " as " + scalar(to) + " (different element sizes)";
  const Geometry& g = t.g;
  if (g.rank() == 0) return err(ErrorKind::View, "self.dim() cannot be 0" + what);
  const int last = g.rank() - 1;
  Geometry r = g;
  if (from_size > to_size) {
    const int64_t k = from_size / to_size;
    if (g.strides[last] != 1)
      return err(ErrorKind::View, "self.stride(-1) must be 1" + what + ", but got " + std::to_string(g.strides[last]));
    for (int d = 0; d < last; ++d) r.strides[d] *= k;
    r.sizes[last] *= k;
    r.offset *= k;
    return r;
  }
  const int64_t k = to_size / from_size;
  if (g.sizes[last] % k != 0)
    return err(ErrorKind::View, "self.size(-1) must be divisible by " + std::to_string(k) + what + ", but got " +
                                    std::to_string(g.sizes[last]));
  if (g.offset % k != 0)
    return err(ErrorKind::View, "self.storage_offset() must be divisible by " + std::to_string(k) + what +
                                    ", but got " + std::to_string(g.offset));
  if (g.strides[last] != 1)
    return err(ErrorKind::View, "self.stride(-1) must be 1" + what + ", but got " + std::to_string(g.strides[last]));
  for (int d = 0; d < last; ++d) {
    if (g.strides[d] % k != 0)
      return err(ErrorKind::View, "self.stride(" + std::to_string(d) + ") must be divisible by " + std::to_string(k) +
                                      what + ", but got " + std::to_string(g.strides[d]));
    r.strides[d] /= k;
  }
  r.sizes[last] /= k;
  r.offset /= k;
  return r;
}

namespace {

Result<Geometry> expand_geometry(const Geometry& g, const Shape& sizes) {
  const int nd = static_cast<int>(sizes.size());
  if (nd < g.rank())
    return err(ErrorKind::Shape, "expand: the number of sizes provided (" + std::to_string(nd) +
                                     ") must be greater or equal to the number of dimensions in the tensor (" +
                                     std::to_string(g.rank()) + ")");
  if (g.rank() == 0) {
    // inferExpandGeometry: a 0-d tensor takes the sizes as given, all strides 0.
    for (int64_t s : sizes)
      if (s < 0) return err(ErrorKind::Arg, "numel: integer multiplication overflow");
    return Geometry{sizes, Shape(nd, 0), g.offset};
  }
  Geometry r{Shape(nd), Shape(nd), g.offset};
  for (int i = nd - 1; i >= 0; --i) {
    const int off = nd - 1 - i;
    const int dim = g.rank() - 1 - off;
    int64_t size = dim >= 0 ? g.sizes[dim] : 1;
    int64_t stride = dim >= 0 ? g.strides[dim] : (i == nd - 1 ? 1 : r.sizes[i + 1] * r.strides[i + 1]);
    int64_t target = sizes[i];
    if (target == -1) {
      if (dim < 0)
        return err(ErrorKind::Arg,
                   "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension " +
                       std::to_string(i));
      target = size;
    } else if (target < 0) {
      return err(ErrorKind::Arg, "The expanded size of the tensor (" + std::to_string(target) + ") isn't allowed");
    }
    if (size != target) {
      if (size != 1)
        return err(ErrorKind::Shape,
                   "The expanded size of the tensor (" + std::to_string(target) + ") must match the existing size (" +
                       std::to_string(size) + ") at non-singleton dimension " + std::to_string(i) +
                       ".  Target sizes: " + fmt_shape(sizes) + ".  Tensor sizes: " + fmt_shape(g.sizes));
      size = target;
      stride = 0;
    }
    r.sizes[i] = size;
    r.strides[i] = stride;
  }
  return r;
}

Status reshape_like(const Geometry& g, const Shape& req, bool must_view, Outs* res) {
  auto shape = infer_size(req, g.numel());
  if (!shape) return shape.error();
  auto st = view_strides(g, *shape);
  if (st) return view_of(res, Geometry{*shape, *st, g.offset});
  if (must_view)
    return err(ErrorKind::View,
               "view size is not compatible with input tensor's size and stride (at least one dimension spans across "
               "two contiguous subspaces). Use .reshape(...) instead.");
  return fresh_contiguous(res, *shape);
}

// The tensors an in-place write reads (x and up to three operands): inline.
using Reads = SmallVec<const TensorMeta*, 4>;

// PyTorch's memory-overlap checks for a write into `out` that also reads
// `reads` (TensorIterator's compute_mem_overlaps: the output's internal
// overlap, then partial overlap with every input that is not the output
// tensor itself). They run before the shape checks.
std::optional<Error> torch_overlap(const TensorMeta& out, const Reads& reads) {
  if (internal_overlap_status(out.g) == Overlap::Yes)
    return err(ErrorKind::Overlap,
               "unsupported operation: more than one element of the written-to tensor refers to a single memory "
               "location. Please clone() the tensor before performing the operation.");
  for (const TensorMeta* r : reads)
    if (r->storage == out.storage && !(r->impl >= 0 && r->impl == out.impl) &&
        overlap_status(out.g, r->g) == MemOverlap::Partial)
      return err(ErrorKind::Overlap,
                 "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
                 "memory location. Please clone() the tensor before performing the operation.");
  return std::nullopt;
}

// The cases PyTorch's checks cannot see (kind `undefined`): the result
// depends on the kernel's iteration order. `reads` are broadcast to `out`.
// `copies`: the write copies its one read (copy_, setitem_).
std::optional<Error> undefined_write(const TensorMeta& out, const Reads& reads, bool copies = false) {
  auto broadcast = [&](const TensorMeta* r) {
    return r->g.sizes == out.g.sizes ? r->g : broadcast_to(r->g, out.g.sizes);
  };
  // Two positions writing one element: only copies of one element agree.
  if (has_exact_internal_overlap(out.g) &&
      !(copies && reads.size() == 1 && !copies_collide(out.g, broadcast(reads[0]))))
    return err(ErrorKind::Undefined,
               "in-place write through a view whose elements overlap: the result depends on iteration order");
  for (const TensorMeta* r : reads) {
    if (r->storage != out.storage) continue;
    // Per element (docs/format.md "Order dependence"): only a read of an
    // element another position writes depends on the order.
    if (reads_across_positions(out.g, broadcast(r), copies))
      return err(
          ErrorKind::Undefined,
          "in-place write reads memory it also writes at other positions: the result depends on iteration order");
  }
  return std::nullopt;
}

std::optional<Error> check_write(const TensorMeta& out, const Reads& reads, bool exempt, bool copies = false) {
  if (exempt) return std::nullopt;
  if (auto e = torch_overlap(out, reads)) return e;
  return undefined_write(out, reads, copies);
}

Status check_broadcast_into(const TensorMeta& out, const TensorMeta& src) {
  Shape b;
  if (!broadcast_shapes(out.g.sizes, src.g.sizes, &b) || b != out.g.sizes) {
    if (!broadcast_shapes(out.g.sizes, src.g.sizes, &b))
      return err(ErrorKind::Shape, "The size of tensor a must match the size of tensor b at non-singleton dimension");
    return err(ErrorKind::Shape,
               "output with shape " + fmt_shape(out.g.sizes) + " doesn't match the broadcast shape " + fmt_shape(b));
  }
  return std::nullopt;
}

// An elementwise write into x from several operands: addcmul_, addcdiv_,
// lerp_, clamp_tensor_ (x is also an operand) and the out= ops (x is only
// written). TensorIterator's order: the memory-overlap checks of x against
// every tensor operand, then the broadcast shape of the operands, which
// must be x's (for out=, PyTorch would resize x instead, with a warning
// when x is not empty, unless x is also an operand: format v1.1 does not
// model resizing, error kind `resize`), then the conversion of number
// arguments to float (in the kernel), then the cases PyTorch's checks
// cannot see.
Status multi_operand(OpKind op, const std::vector<CheckedArg>& a, Outs* res) {
  const TensorMeta& x = *a[0].t;
  const bool out = is_out_variant(op);
  Reads reads;
  if (!out) reads.push_back(&x);
  for (size_t k = 1; k < a.size(); ++k)
    if (a[k].is_tensor()) reads.push_back(a[k].t);
  if (auto e = torch_overlap(x, reads)) return *e;
  Shape shape = reads.front()->g.sizes;
  for (const TensorMeta* r : reads) {
    Shape b;
    if (!broadcast_shapes(shape, r->g.sizes, &b))
      return err(ErrorKind::Shape, "The size of tensor a " + fmt_shape(shape) + " must match the size of tensor b " +
                                       fmt_shape(r->g.sizes) + " at non-singleton dimension");
    shape = b;
  }
  if (shape != x.g.sizes) {
    // TensorIterator resizes an output only when it is not also one of the
    // inputs (is_same: a read-write operand), else it raises.
    bool read_write = !out;
    for (const TensorMeta* r : reads) read_write = read_write || (r->impl >= 0 && r->impl == x.impl);
    if (!read_write)
      return err(ErrorKind::Resize, std::string(op_name(op)) + ": the out tensor has shape " + fmt_shape(x.g.sizes) +
                                        " but the result has shape " + fmt_shape(shape) +
                                        ": PyTorch resizes out; format v1.1 does not model out= resizing");
    return err(ErrorKind::Shape,
               "output with shape " + fmt_shape(x.g.sizes) + " doesn't match the broadcast shape " + fmt_shape(shape));
  }
  // A number operand of an out= binary op is a wrapped 0-d tensor (1e300
  // makes inf); the ternary ops' value and weight are Scalars converted to
  // float, out= or not (measured, torch 1.13 and 2.15.0).
  for (size_t k = 1; k < a.size(); ++k)
    if (!a[k].is_tensor() && (!out || is_ternary_out(op)))
      if (auto e = check_f32(a[k])) return *e;
  if (auto e = undefined_write(x, reads)) return *e;
  return view_of(res, x.g);
}

// An out-of-place indexed op's arguments as its in-place op sees them
// (format v1.5): x replaced by *copy, a contiguous tensor of x's sizes in
// no storage and no tensor object, which nothing overlaps.
std::vector<CheckedArg> on_fresh_copy(const std::vector<CheckedArg>& a, TensorMeta* copy) {
  const TensorMeta& x = *a[0].t;
  *copy = TensorMeta{Geometry{x.g.sizes, contiguous_strides(x.g.sizes), 0}, -1, x.g.numel(), -1, x.dtype};
  std::vector<CheckedArg> b = a;
  b[0].t = copy;
  return b;
}

// Format v1.2's indexed and masked writes: shapes and memory overlap, in
// PyTorch's order (tools/probe_format_v12.py checks each rule under 1.13
// and 2.9). The index values are checked by check_index_values. Where the
// versions differ the format takes the stricter rule, so that both accept
// every program the format accepts (index_add_'s source must have exactly
// the target's shape but along dim: 1.13 broadcasts it, 2.9 refuses).
Status indexed(OpKind op, const std::vector<CheckedArg>& a, Outs* res) {
  const TensorMeta& x = *a[0].t;
  const Geometry& g = x.g;
  const std::string nm = op_name(op);
  // at::assert_no_overlap(self, source): full overlap is refused too, and
  // the very same tensor object is full overlap whatever its layout.
  auto source_overlap = [&](const TensorMeta& src) -> std::optional<Error> {
    if (src.storage != x.storage) return std::nullopt;
    const MemOverlap m = (src.impl >= 0 && src.impl == x.impl) ? MemOverlap::Full : overlap_status(g, src.g);
    if (m == MemOverlap::Full || m == MemOverlap::Partial)
      return err(ErrorKind::Overlap,
                 "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
                 "memory location. Please clone() the tensor before performing the operation.");
    return std::nullopt;
  };
  // What that check cannot see (layouts too hard for it) is decided per
  // element from the index values, after their bounds
  // (check_index_values, ir/index_order.h).
  auto internal = [&]() -> std::optional<Error> {
    if (internal_overlap_status(g) == Overlap::Yes)
      return err(ErrorKind::Overlap,
                 "unsupported operation: more than one element of the written-to tensor refers to a single memory "
                 "location. Please clone() the tensor before performing the operation.");
    return std::nullopt;
  };
  switch (indexed_kind(op)) {
    case IndexedKind::IndexPut: {
      const TensorMeta& idx = *a[1].t;
      const TensorMeta& v = *a[2].t;
      if (g.rank() == 0) return err(ErrorKind::Arg, "too many indices for tensor of dimension 0 (got 1)");
      if (a[3].i != 0 && a[3].i != 1) return err(ErrorKind::Arg, "index_put_: accumulate must be 0 or 1");
      if (auto e = source_overlap(v)) return *e;
      Shape slot = idx.g.sizes;
      for (int d = 1; d < g.rank(); ++d) slot.push_back(g.sizes[d]);
      Shape b;
      if (!broadcast_shapes(slot, v.g.sizes, &b) || b != slot)
        return err(ErrorKind::Shape, "shape mismatch: value tensor of shape " + fmt_shape(v.g.sizes) +
                                         " cannot be broadcast to indexing result of shape " + fmt_shape(slot));
      return view_of(res, g);
    }
    case IndexedKind::IndexAdd:
    case IndexedKind::IndexCopy: {
      // Both versions: the dim, the index's rank, the source's rank, the
      // number of indices; index_copy_ checks overlap first, index_add_
      // after the shapes.
      const bool copy = op == OpKind::IndexCopyI;
      const TensorMeta& idx = *a[2].t;
      const TensorMeta& src = *a[3].t;
      const Geometry& sg = src.g;
      auto d = wrap_dim(a[1].i, g.rank());
      if (!d) return dim_error(a[1].i, g.rank());
      if (idx.g.rank() > 1)
        return err(ErrorKind::Arg,
                   nm + "(): Index is supposed to be a vector, but got dim: " + std::to_string(idx.g.rank()));
      if (copy) {
        if (auto e = internal()) return *e;
        if (auto e = source_overlap(src)) return *e;
      }
      const int64_t n = idx.g.numel();
      if (copy && sg.rank() > 0 && g.rank() > 0 && sg.rank() != g.rank())
        return err(ErrorKind::Shape,
                   "index_copy_(): When source and destination are not scalars, their dimensionality must match.");
      if (!copy && *d >= std::max(sg.rank(), 1))
        return err(ErrorKind::Arg, "index_add_(): Indexing dim " + std::to_string(*d) +
                                       " is out of bounds of the source tensor with dim " + std::to_string(sg.rank()));
      // A 0-d source takes one index (PyTorch's IndexError otherwise).
      if (sg.rank() == 0 && n != 1)
        return err(ErrorKind::Arg, copy ? "index_copy_(): When source is scalar, index should have one element (got " +
                                              std::to_string(n) + ")"
                                        : std::string("Dimension specified as 0 but tensor has no dimensions"));
      if (n != (sg.rank() > 0 ? sg.sizes[*d] : 1))
        return err(ErrorKind::Shape,
                   nm + "(): Number of indices (" + std::to_string(n) + ") should be equal to source.size(dim)");
      Shape want = g.sizes;
      if (g.rank() > 0) want[*d] = n;
      // index_copy_, both versions: a 0-d source for one index into a
      // target of rank <= 1, and a 1-d source of one element per index into
      // a 0-d target.
      const bool copy_scalar = copy && ((sg.rank() == 0 && g.rank() <= 1) || (g.rank() == 0 && sg.rank() == 1));
      if (sg.sizes != want && !copy_scalar) {
        // 1.13's index_add_ broadcasts the source's slices into the target's
        // (or takes a 0-d or 1-element source for a target of rank <= 1),
        // 2.9 refuses both.
        if (!copy) {
          bool v113 = g.rank() <= 1 ? sg.rank() <= 1 : true;
          // A 0-d source (one index) into a target of rank > 1: 1.13 selects
          // from the source (IndexError: select() of a 0-dim tensor), 2.x
          // compares the shapes.
          if (g.rank() > 1 && sg.rank() == 0)
            return err(ErrorKind::Version, "index_add_(): a 0-d source for a target of shape " + fmt_shape(g.sizes) +
                                               ": PyTorch 1.13 raises IndexError (select() cannot be applied to a "
                                               "0-dim tensor), 2.x a shape error");
          if (g.rank() > 1) {
            Shape xs = g.sizes, ss = sg.sizes, b;
            xs.erase(xs.begin() + *d);
            ss.erase(ss.begin() + *d);
            v113 = broadcast_shapes(xs, ss, &b) && b == xs;
          }
          if (v113)
            return err(ErrorKind::Version, "index_add_(): source of shape " + fmt_shape(sg.sizes) +
                                               " for a target of shape " + fmt_shape(g.sizes) +
                                               ": PyTorch 1.13 broadcasts it, 2.x refuses it");
          // 1.13 checks memory overlap before this shape rule, 2.x after.
          if (internal() || source_overlap(src))
            return err(ErrorKind::Version,
                       "index_add_(): source of shape " + fmt_shape(sg.sizes) + " for a target of shape " +
                           fmt_shape(g.sizes) +
                           " overlapping it: PyTorch 1.13 raises an overlap error, 2.x a shape error");
        }
        return err(ErrorKind::Shape, nm +
                                         "(): source tensor shape must match self tensor shape, excluding the "
                                         "specified dimension. Got self.shape = " +
                                         fmt_shape(g.sizes) + " source.shape = " + fmt_shape(sg.sizes));
      }
      if (!copy) {
        if (auto e = internal()) return *e;
        if (auto e = source_overlap(src)) return *e;
      }
      // 1.13 adds a target of rank > 1 slice by slice through one
      // TensorIterator built on the slices at index 0 (target and source),
      // whose partial-overlap check runs before the index values; 2.x
      // builds no such iterator.
      if (!copy && g.rank() > 1 && n > 0 && g.sizes[*d] > 0 && src.storage == x.storage &&
          overlap_status(*select_geometry(g, *d, 0), *select_geometry(sg, *d, 0)) == MemOverlap::Partial)
        return err(ErrorKind::Version,
                   "index_add_(): the target's and the source's first slices overlap partially: PyTorch 1.13 raises an "
                   "overlap error, 2.x runs it");
      return view_of(res, g);
    }
    case IndexedKind::Scatter:
    case IndexedKind::ScatterAdd: {
      // Shapes (a 0-d tensor counts as rank 1 of size 1), then overlap.
      const TensorMeta& idx = *a[2].t;
      const TensorMeta& src = *a[3].t;
      auto d = wrap_dim(a[1].i, g.rank());
      if (!d) return dim_error(a[1].i, g.rank());
      const int rank = std::max(g.rank(), 1);
      auto size = [](const Geometry& t, int k) { return t.rank() == 0 ? int64_t{1} : t.sizes[k]; };
      // scatter_shape_check: nothing when the index is empty; the index's
      // rank; its sizes against the target's, then (when those fit) the
      // source's, whose size(d) raises for a source of lower rank; the
      // source's rank; then the sizes' verdict.
      if (idx.g.numel() > 0) {
        if (std::max(idx.g.rank(), 1) != rank)
          return err(ErrorKind::Shape, "Index tensor must have the same number of dimensions as self tensor");
        bool wrong = false;
        for (int k = 0; k < rank && !wrong; ++k) wrong = k != *d && size(idx.g, k) > size(g, k);
        for (int k = 0; k < rank && !wrong; ++k) {
          if (src.g.rank() > 0 && k >= src.g.rank()) return dim_error(k, src.g.rank());
          wrong = size(idx.g, k) > size(src.g, k);
        }
        if (std::max(src.g.rank(), 1) != rank)
          return err(ErrorKind::Shape, "Index tensor must have the same number of dimensions as src tensor");
        if (wrong)
          return err(ErrorKind::Shape, "Expected index " + fmt_shape(idx.g.sizes) + " to be smaller than self " +
                                           fmt_shape(g.sizes) + " apart from dimension " + std::to_string(*d) +
                                           " and to be smaller size than src " + fmt_shape(src.g.sizes));
      }
      if (auto e = internal()) return *e;
      if (auto e = source_overlap(src)) return *e;
      return view_of(res, g);
    }
    case IndexedKind::MaskedFill: {
      // A number written where the mask is set: PyTorch checks no overlap
      // (an expanded target only warns), and every write is the same value.
      const TensorMeta& mask = *a[1].t;
      Shape b;
      if (!broadcast_shapes(g.sizes, mask.g.sizes, &b))
        return err(ErrorKind::Shape, "The size of tensor a " + fmt_shape(g.sizes) +
                                         " must match the size of tensor b " + fmt_shape(mask.g.sizes) +
                                         " at non-singleton dimension");
      if (b != g.sizes)
        return err(ErrorKind::Shape,
                   "output with shape " + fmt_shape(g.sizes) + " doesn't match the broadcast shape " + fmt_shape(b));
      if (auto e = check_f32(a[2])) return *e;
      return view_of(res, g);
    }
    case IndexedKind::None: break;
  }
  internal_error("indexed: not an indexed op: " + nm);
}

// setitem_(x, dim, start, end, v): x[..., start:end] = v, as Python
// indexing and copy_to write it.
Status setitem(const std::vector<CheckedArg>& a) {
  const TensorMeta& x = *a[0].t;
  // Python converts a number value to a tensor before indexing.
  if (!a[4].is_tensor())
    if (auto e = check_f32(a[4])) return *e;
  auto tgt = setitem_target(x.g, a[1].i, a[2].i, a[3].i);
  if (!tgt) return tgt.error();
  TensorMeta dst{tgt->g, x.storage, x.storage_numel, tgt->self ? x.impl : -1};
  if (!a[4].is_tensor()) return std::nullopt;  // a number: fill_, no overlap check
  const TensorMeta& v = *a[4].t;
  TensorMeta src = v;
  if (v.g.sizes == dst.g.sizes) {
    // copy_to: dst.copy_(v), a no-op when dst is v itself.
    if (tgt->self && v.impl == x.impl) return std::nullopt;
  } else if (v.g.rank() == 0) {
    return std::nullopt;  // a 0-d tensor value: fill_
  } else {
    // copy_to: strip leading 1s of the value, then expand_inplace.
    Geometry s = v.g;
    while (s.rank() > 0 && s.sizes[0] == 1) {
      s.sizes.erase(s.sizes.begin());
      s.strides.erase(s.strides.begin());
    }
    auto e = expand_geometry(s, dst.g.sizes);
    if (!e)
      return err(ErrorKind::Shape, "shape mismatch: value tensor of shape " + fmt_shape(v.g.sizes) +
                                       " cannot be broadcast to indexing result of shape " + fmt_shape(dst.g.sizes));
    src.g = *e;
    src.impl = -2;  // a new (expanded) tensor object
  }
  if (auto chk = check_write(dst, {&src}, false, true)) return *chk;
  return std::nullopt;
}

Status inplace(OpKind op, const std::vector<CheckedArg>& a, Outs* res) {
  const TensorMeta& x = *a[0].t;
  if (is_multi_operand_write(op)) return multi_operand(op, a, res);
  if (added_in_v12(op)) return indexed(op, a, res);
  Reads reads{&x};
  bool exempt = false;
  switch (math_arity(math_of(op))) {
    case MathArity::Constant:  // fill_ (a number converted to float), zero_
      if (math_of(op) == Math::Fill)
        if (auto e = check_f32(a[1])) return *e;
      exempt = true;
      break;
    case MathArity::Clamp:
      // clamp_out: TensorIterator's overlap checks, then a NaN bound fills
      // the result with NaN, else the bounds convert to float.
      if (auto e = torch_overlap(x, reads)) return *e;
      if (!std::isnan(a[1].f) && !std::isnan(a[2].f)) {
        if (auto e = check_f32(a[1])) return *e;
        if (auto e = check_f32(a[2])) return *e;
      }
      break;
    case MathArity::Copy:  // copy_, setitem_
      if (op == OpKind::SetitemI) return setitem(a);
      if (a[1].t->impl == a[0].t->impl) return view_of(res, x.g);  // is_same: no-op
      [[fallthrough]];
    case MathArity::Binary:
      if (a[1].is_tensor()) {
        if (op == OpKind::CopyI)
          reads = {a[1].t};
        else
          reads.push_back(a[1].t);
        // TensorIterator checks memory overlap before shapes.
        if (auto e = torch_overlap(x, reads)) return *e;
        if (auto e = check_broadcast_into(x, *a[1].t)) return *e;
        if (auto e = undefined_write(x, reads, op == OpKind::CopyI)) return *e;
        return view_of(res, x.g);
      }
      break;
    case MathArity::Unary: break;
    case MathArity::Ternary:         // multi_operand, above
    case MathArity::NotElementwise:  // indexed, above
      break;
  }
  if (auto e = check_write(x, reads, exempt)) return *e;
  return view_of(res, x.g);
}

Status elementwise(const std::vector<CheckedArg>& a, Outs* res) {
  Geometries ops{a[0].t->g};
  Shape shape = a[0].t->g.sizes;
  bool scalar = a.size() > 1 && !a[1].is_tensor();
  if (a.size() > 1 && a[1].is_tensor()) {
    if (!broadcast_shapes(shape, a[1].t->g.sizes, &shape))
      return err(ErrorKind::Shape, "The size of tensor a " + fmt_shape(a[0].t->g.sizes) +
                                       " must match the size of tensor b " + fmt_shape(a[1].t->g.sizes) +
                                       " at non-singleton dimension");
    ops.push_back(a[1].t->g);
  }
  if (scalar) {
    // A wrapped scalar operand defeats TensorIterator's fast set-up; a
    // 0-d stand-in reproduces that without influencing the ordering.
    ops.push_back(Geometry{});
  }
  Shape strides = elementwise_output_strides(shape, ops);
  return fresh(res, shape, strides);
}

Status reduction(OpKind op, const Geometry& g, int64_t dim, int64_t keepdim, Outs* res) {
  auto d = wrap_dim(dim, g.rank());
  if (!d) return dim_error(dim, g.rank());
  if (keepdim != 0 && keepdim != 1) return err(ErrorKind::Arg, "keepdim must be 0 or 1");
  if (op == OpKind::Amax && g.rank() > 0 && g.sizes[*d] == 0)
    return err(ErrorKind::Arg, "amax(): Expected reduction dim " + std::to_string(*d) + " to have non-zero size.");
  Shape s = g.sizes;
  if (g.rank() > 0) {
    if (keepdim)
      s[*d] = 1;
    else
      s.erase(s.begin() + *d);
  }
  return fresh_contiguous(res, s);
}

Status cat(const std::vector<const TensorMeta*>& ts, int64_t dim, Outs* res) {
  if (ts.empty()) return err(ErrorKind::Arg, "torch.cat(): expected a non-empty list of Tensors");
  for (size_t i = 0; i < ts.size(); ++i)
    if (ts[i]->g.rank() == 0)
      return err(ErrorKind::Arg,
                 "zero-dimensional tensor (at position " + std::to_string(i) + ") cannot be concatenated");
  auto skip = [](const TensorMeta* t) { return t->g.rank() == 1 && t->g.sizes[0] == 0; };
  const TensorMeta* ref = nullptr;
  for (auto* t : ts)
    if (!skip(t)) {
      ref = t;
      break;
    }
  if (!ref) return fresh_contiguous(res, Shape{0});
  auto d = wrap_dim(dim, ref->g.rank());
  if (!d) return dim_error(dim, ref->g.rank());
  Shape out = ref->g.sizes;
  out[*d] = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    const TensorMeta* t = ts[i];
    if (skip(t)) continue;
    if (t->g.rank() != ref->g.rank())
      return err(ErrorKind::Shape, "Tensors must have same number of dimensions: got " + std::to_string(ref->g.rank()) +
                                       " and " + std::to_string(t->g.rank()));
    for (int k = 0; k < t->g.rank(); ++k)
      if (k != *d && t->g.sizes[k] != ref->g.sizes[k])
        return err(ErrorKind::Shape, "Sizes of tensors must match except in dimension " + std::to_string(*d) +
                                         ". Expected size " + std::to_string(ref->g.sizes[k]) + " but got size " +
                                         std::to_string(t->g.sizes[k]) + " for tensor number " + std::to_string(i) +
                                         " in the list.");
    out[*d] += t->g.sizes[*d];
  }
  // cat_compute_output_memory_format: the inputs' common suggested format.
  MemoryFormat fmt = suggest_memory_format(ts[0]->g);
  for (auto* t : ts)
    if (suggest_memory_format(t->g) != fmt) fmt = MemoryFormat::Contiguous;
  return fresh(res, out, format_strides(out, fmt));
}

// slice_scatter(self, src, ...) and friends are, in PyTorch 1.13:
// output = self.clone() (preserve format); output.VIEW(...).copy_(src).
Status scatter(OpKind op, const std::vector<CheckedArg>& a, Outs* res) {
  const TensorMeta& base = *a[0].t;
  const TensorMeta& src = *a[1].t;
  const Geometry outg{base.g.sizes, preserve_format_strides(base.g), 0};
  const TensorMeta out{outg, -1, outg.numel(), -1};
  Result<Geometry> slot = scatter_slot(op, outg, a);
  if (!slot) return slot.error();
  if (slot->sizes != src.g.sizes)
    return err(ErrorKind::Shape, std::string(op_name(op)) +
                                     ": expected src to have a size equal to the slice of self. src size = " +
                                     fmt_shape(src.g.sizes) + ", slice size = " + fmt_shape(slot->sizes));
  TensorMeta dst{*slot, -1, out.storage_numel, -1};
  if (auto e = check_write(dst, {&src}, false)) return *e;
  return fresh(res, outg.sizes, outg.strides);
}

}  // namespace

const OpInfo& op_info(OpKind k) { return kOps[static_cast<int>(k)]; }

bool result_is_wide(OpKind op, Dtype dtype, const TensorMeta* src, const std::vector<CheckedArg>& args) {
  if (dtype == Dtype::F64) return true;
  if (dtype != Dtype::I64) return false;
  if (src) return src->wide || op == OpKind::ViewDtype;
  for (const CheckedArg& a : args) {
    if (a.t && a.t->wide) return true;
    for (const TensorMeta* t : a.ts)
      if (t->wide) return true;
  }
  return false;
}

Geometry word_geometry(const Geometry& g) {
  Geometry w = g;
  for (auto& s : w.strides) s *= 2;
  w.sizes.push_back(2);
  w.strides.push_back(1);
  w.offset *= 2;
  return w;
}

const char* dtype_name(Dtype d) {
  switch (d) {
    case Dtype::F32: return "f32";
    case Dtype::I64: return "i64";
    case Dtype::Bool: return "bool";
    case Dtype::I32: return "i32";
    case Dtype::F64: return "f64";
  }
  return "?";
}

std::optional<Dtype> dtype_from_name(const std::string& name) {
  for (Dtype d : {Dtype::F32, Dtype::I64, Dtype::Bool, Dtype::I32, Dtype::F64})
    if (name == dtype_name(d)) return d;
  return std::nullopt;
}

std::optional<Error> check_index_values(OpKind op, const std::vector<CheckedArg>& a,
                                        const std::vector<int64_t>& index) {
  if (is_indexed_copy(op)) {  // format v1.5: the in-place op's rules on a fresh copy of x
    TensorMeta copy;
    return check_index_values(indexed_write_op(op), on_fresh_copy(a, &copy), index);
  }
  if (op == OpKind::MaskedFillI) return std::nullopt;  // any mask is valid
  const Geometry& g = a[0].t->g;
  const std::string nm = op_name(op);
  const bool put = op == OpKind::IndexPutI;
  const int64_t d = put ? 0 : *wrap_dim(a[1].i, g.rank());
  const int64_t n = g.rank() == 0 ? 1 : g.sizes[d];
  // An empty indexing result reads no index (PyTorch checks bounds in the kernel).
  if (put && n > 0 && g.numel() == 0) return std::nullopt;
  // index_put_ wraps negative indices as Python indexing does; index_add_,
  // index_copy_ and scatter_ take none.
  for (int64_t v : index)
    if (v >= n || v < (put ? -n : 0))
      return err(ErrorKind::Arg, nm + ": index " + std::to_string(v) + " is out of bounds for dimension " +
                                     std::to_string(d) + " with size " + std::to_string(n));
  return indexed_order_dependence(op, a, index);
}

ViewKind view_kind(OpKind k) { return kViewKinds[static_cast<int>(k)]; }
ReductionKind reduction_kind(OpKind k) { return kReductionKinds[static_cast<int>(k)]; }
IndexedKind indexed_kind(OpKind k) { return kIndexedKinds[static_cast<int>(k)]; }
MathArity math_arity(Math m) { return kMathArity[static_cast<int>(m)]; }
Noise math_noise(Math m) { return kMathNoise[static_cast<int>(m)]; }
const char* math_name(Math m) { return kMathNames[static_cast<int>(m)]; }

const std::vector<OpKind>& all_ops() {
  static const std::vector<OpKind> v = [] {
    std::vector<OpKind> r;
    for (const auto& o : kOps) r.push_back(o.kind);
    return r;
  }();
  return v;
}

OpKind indexed_write_op(OpKind k) {
  if (!is_indexed_copy(k)) return k;
  return *op_from_name(std::string(op_name(k)) + "_");
}

std::optional<OpKind> op_from_name(const std::string& name) {
  static const std::map<std::string, OpKind> m = [] {
    std::map<std::string, OpKind> r;
    for (const auto& o : kOps) r[o.name] = o.kind;
    return r;
  }();
  auto it = m.find(name);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

bool is_multi_output(OpKind k) {
  return k == OpKind::Chunk || k == OpKind::Split || k == OpKind::Unbind || k == OpKind::UpdateAliases;
}

std::optional<int64_t> wrap_dim(int64_t dim, int64_t rank) {
  const int64_t r = rank == 0 ? 1 : rank;
  if (dim < -r || dim >= r) return std::nullopt;
  return dim < 0 ? dim + r : dim;
}

std::vector<std::pair<int64_t, int64_t>> split_pieces(int64_t n, int64_t split) {
  std::vector<std::pair<int64_t, int64_t>> r;
  if (split == 0) return {{0, 0}};
  const int64_t pieces = std::max<int64_t>((n + split - 1) / split, 1);
  for (int64_t i = 0; i < pieces; ++i) r.push_back({i * split, std::min(split, n - i * split)});
  return r;
}

std::optional<Shape> view_strides(const Geometry& g, const Shape& newshape) {
  const Shape& oldshape = g.sizes;
  const Shape& oldstride = g.strides;
  if (oldshape.empty()) return Shape(newshape.size(), 1);
  const int64_t numel = numel_of(oldshape);
  if (numel == 0 && oldshape == newshape) return oldstride;
  const int64_t nd = static_cast<int64_t>(newshape.size());
  Shape ns(nd);
  if (numel == 0) {
    for (int64_t d = nd - 1; d >= 0; --d) ns[d] = d == nd - 1 ? 1 : std::max<int64_t>(newshape[d + 1], 1) * ns[d + 1];
    return ns;
  }
  int64_t view_d = nd - 1;
  int64_t chunk_base_stride = oldstride.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t td = static_cast<int64_t>(oldshape.size()) - 1; td >= 0; --td) {
    tensor_numel *= oldshape[td];
    if (td == 0 || (oldshape[td - 1] != 1 && oldstride[td - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || newshape[view_d] == 1)) {
        ns[view_d] = view_numel * chunk_base_stride;
        view_numel *= newshape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (td > 0) {
        chunk_base_stride = oldstride[td - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return ns;
}

Result<SetitemTarget> setitem_target(const Geometry& g, int64_t dim, int64_t start, int64_t end) {
  auto d = wrap_dim(dim, g.rank());
  if (g.rank() == 0) {
    // Python indexing reads size(0) of a 0-d tensor as 0: x[0:0] is x itself.
    if (d && *d == 0 && start == 0 && end == 0) return SetitemTarget{g, true};
    if (!d) return dim_error(dim, g.rank());
    return err(ErrorKind::Arg, "slice() cannot be applied to a 0-dim tensor.");
  }
  auto s = slice_geometry(g, dim, start, end, 1);
  if (!s) return s.error();
  // PyTorch's slice optimization: a leading slice with start 0 and end
  // exactly size(0) returns the tensor itself.
  return SetitemTarget{*s, *d == 0 && start == 0 && end == g.sizes[0]};
}

Result<Geometry> scatter_slot(OpKind op, const Geometry& out, const std::vector<CheckedArg>& a) {
  const OpInfo& info = op_info(op);
  if (info.cls != OpClass::Scatter) internal_error(std::string("scatter_slot: not a scatter: ") + op_name(op));
  // The slot is the table's view of the output (slice_scatter -> slice),
  // given the scatter's arguments after src.
  const TensorMeta o{out, -1, out.numel()};
  thread_local std::vector<CheckedArg> view_args;  // reused: no allocation per scatter
  thread_local OutMetas slot;
  view_args.assign(a.begin() + 1, a.end());
  view_args[0] = CheckedArg{};
  view_args[0].t = &o;
  if (auto e = infer_into(info.functional, view_args, &slot)) return *e;
  return slot[0].g;
}

namespace {

// unfold(x, dim, size, step) (format v1.3), as ATen computes it: windows
// of `size` elements every `step` along dim, a new last dim of the window
// (overlapping when step < size; a 0-d x counts as one element).
Result<Geometry> unfold_geometry(const Geometry& g, int64_t dim, int64_t size, int64_t step) {
  auto d = wrap_dim(dim, g.rank());
  if (!d) return dim_error(dim, g.rank());
  const int64_t max_size = g.rank() == 0 ? 1 : g.sizes[*d];
  if (size > max_size)
    return err(ErrorKind::Arg, "maximum size for tensor at dimension " + std::to_string(*d) + " is " +
                                   std::to_string(max_size) + " but size is " + std::to_string(size));
  if (step <= 0) return err(ErrorKind::Arg, "step is " + std::to_string(step) + " but must be > 0");
  // 1.13: as_strided with a negative size ("overflowed"); 2.x checks it here.
  if (size < 0) return err(ErrorKind::Arg, "size is " + std::to_string(size) + " but must be >= 0");
  Geometry r = g;
  r.sizes.push_back(size);
  r.strides.push_back(g.rank() == 0 ? 1 : g.strides[*d]);
  if (g.rank() > 0) {
    r.sizes[*d] = (g.sizes[*d] - size) / step + 1;
    r.strides[*d] = g.strides[*d] * step;
  }
  return r;
}

// The views' shape rules (Family::Movement; a metadata op's is its view's):
// a view of x, or for a may-alias op (reshape, flatten, contiguous) a copy
// where no view has the result's geometry.
Status view_rule(OpKind op, const Geometry* g, const std::vector<CheckedArg>& a, Outs* res) {
  auto wrap = [&](Result<Geometry> r) -> Status {
    if (!r) return r.error();
    return view_of(res, std::move(*r));
  };
  switch (view_kind(op)) {
    case ViewKind::View: return reshape_like(*g, a[1].list, true, res);
    case ViewKind::Reshape: return reshape_like(*g, a[1].list, false, res);
    case ViewKind::Flatten:
      if (g->rank() == 1) return view_of(res, *g);
      return reshape_like(*g, Shape{-1}, false, res);
    case ViewKind::Contiguous:
      if (is_contiguous(*g)) return view_of(res, *g);
      return fresh_contiguous(res, g->sizes);
    case ViewKind::T:
      if (g->rank() > 2)
        return err(ErrorKind::Arg,
                   "t() expects a tensor with <= 2 dimensions, but self is " + std::to_string(g->rank()) + "D");
      if (g->rank() < 2) return view_of(res, *g);
      [[fallthrough]];
    case ViewKind::Transpose: {
      const int64_t d0 = op == OpKind::T ? 0 : a[1].i, d1 = op == OpKind::T ? 1 : a[2].i;
      auto w0 = wrap_dim(d0, g->rank());
      if (!w0) return dim_error(d0, g->rank());
      auto w1 = wrap_dim(d1, g->rank());
      if (!w1) return dim_error(d1, g->rank());
      Geometry r = *g;
      if (r.rank() > 0) {
        std::swap(r.sizes[*w0], r.sizes[*w1]);
        std::swap(r.strides[*w0], r.strides[*w1]);
      }
      return view_of(res, std::move(r));
    }
    case ViewKind::Permute: {
      const Shape& dims = a[1].list;
      if (static_cast<int>(dims.size()) != g->rank())
        return err(ErrorKind::Arg,
                   "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
                   "desired ordering of dimensions i.e. input.dim() = " +
                       std::to_string(g->rank()) + " is not equal to len(dims) = " + std::to_string(dims.size()));
      Geometry r = *g;
      SmallVec<bool, 6> seen(g->rank(), false);
      for (size_t i = 0; i < dims.size(); ++i) {
        auto w = wrap_dim(dims[i], g->rank());
        if (!w) return dim_error(dims[i], g->rank());
        if (seen[*w]) return err(ErrorKind::Arg, "permute(): duplicate dims are not allowed.");
        seen[*w] = true;
        r.sizes[i] = g->sizes[*w];
        r.strides[i] = g->strides[*w];
      }
      return view_of(res, std::move(r));
    }
    case ViewKind::Slice: return wrap(slice_geometry(*g, a[1].i, a[2].i, a[3].i, a[4].i));
    case ViewKind::Narrow: return wrap(narrow_geometry(*g, a[1].i, a[2].i, a[3].i));
    case ViewKind::Select: return wrap(select_geometry(*g, a[1].i, a[2].i));
    case ViewKind::Unsqueeze: {
      auto w = wrap_dim(a[1].i, g->rank() + 1);
      if (!w) return dim_error(a[1].i, g->rank() + 1);
      Geometry r = *g;
      const int64_t st = *w >= g->rank() ? 1 : g->sizes[*w] * g->strides[*w];
      r.sizes.insert(r.sizes.begin() + *w, 1);
      r.strides.insert(r.strides.begin() + *w, st);
      return view_of(res, std::move(r));
    }
    case ViewKind::Squeeze: {
      auto w = wrap_dim(a[1].i, g->rank());
      if (!w) return dim_error(a[1].i, g->rank());
      Geometry r = *g;
      if (g->rank() > 0 && g->sizes[*w] == 1) {
        r.sizes.erase(r.sizes.begin() + *w);
        r.strides.erase(r.strides.begin() + *w);
      }
      return view_of(res, std::move(r));
    }
    case ViewKind::Expand: return wrap(expand_geometry(*g, a[1].list));
    case ViewKind::Diagonal: return wrap(diagonal_geometry(*g, a[1].i, a[2].i, a[3].i));
    case ViewKind::AsStrided: return wrap(as_strided_geometry(*a[0].t, a[1].list, a[2].list, a[3].i));
    case ViewKind::Alias: return view_of(res, *g);
    case ViewKind::ViewDtype: return wrap(view_dtype_geometry(*a[0].t, static_cast<Dtype>(a[1].i)));
    case ViewKind::Unfold: return wrap(unfold_geometry(*g, a[1].i, a[2].i, a[3].i));
    case ViewKind::Chunk:
    case ViewKind::Split: {
      const bool chunk = op == OpKind::Chunk;
      if (g->rank() == 0)
        return err(ErrorKind::Arg, std::string(chunk ? "chunk" : "split") + " expects at least a 1-dimensional tensor");
      auto w = wrap_dim(a[2].i, g->rank());
      if (!w) return dim_error(a[2].i, g->rank());
      const int64_t n = g->sizes[*w];
      int64_t split = a[1].i;
      std::vector<std::pair<int64_t, int64_t>> pieces;
      if (chunk) {
        if (split <= 0)
          return err(ErrorKind::Arg, "chunk expects `chunks` to be greater than 0, got: " + std::to_string(split));
        const int64_t chunks = split;
        split = (n + chunks - 1) / chunks;
        if (split == 0 && n == 0)
          pieces.assign(chunks, {0, 0});
        else
          pieces = split_pieces(n, split);
      } else {
        if (split < 0)
          return err(ErrorKind::Arg,
                     "split expects split_size be non-negative, but got split_size=" + std::to_string(split));
        if (split == 0 && n != 0)
          return err(ErrorKind::Arg,
                     "split_size can only be 0 if dimension size is 0, but got dimension size of " + std::to_string(n));
        pieces = split_pieces(n, split);
      }
      for (auto [s, l] : pieces) res->push_back(OutMeta{*slice_geometry(*g, *w, s, s + l, 1), false, 0});
      return std::nullopt;
    }
    case ViewKind::Unbind: {
      if (g->rank() == 0) return err(ErrorKind::Arg, "Dimension specified as 0 but tensor has no dimensions");
      auto w = wrap_dim(a[1].i, g->rank());
      if (!w) return dim_error(a[1].i, g->rank());
      for (int64_t i = 0; i < g->sizes[*w]; ++i) res->push_back(OutMeta{*select_geometry(*g, *w, i), false, 0});
      return std::nullopt;
    }
    case ViewKind::None: break;
  }
  internal_error(std::string("infer: no shape rule for ") + op_name(op));
}

// The reductions' shape rules (Family::Reduction).
Status reduction_rule(OpKind op, const Geometry* g, const std::vector<CheckedArg>& a, Outs* res) {
  switch (reduction_kind(op)) {
    case ReductionKind::Sum:
    case ReductionKind::Amax: return reduction(op, *g, a[1].i, a[2].i, res);
    case ReductionKind::Softmax: {
      auto w = wrap_dim(a[1].i, g->rank());
      if (!w) return dim_error(a[1].i, g->rank());
      return fresh_contiguous(res, g->sizes);
    }
    case ReductionKind::Matmul: {
      const Geometry& b = a[1].t->g;
      if (g->rank() != 2) return err(ErrorKind::Arg, "self must be a matrix");
      if (b.rank() != 2) return err(ErrorKind::Arg, "mat2 must be a matrix");
      if (g->sizes[1] != b.sizes[0])
        return err(ErrorKind::Shape, "mat1 and mat2 shapes cannot be multiplied (" + std::to_string(g->sizes[0]) + "x" +
                                         std::to_string(g->sizes[1]) + " and " + std::to_string(b.sizes[0]) + "x" +
                                         std::to_string(b.sizes[1]) + ")");
      return fresh_contiguous(res, Shape{g->sizes[0], b.sizes[1]});
    }
    case ReductionKind::Bmm: {  // torch.bmm's checks, in its order and words
      const Geometry& b = a[1].t->g;
      if (g->rank() != 3) return err(ErrorKind::Arg, "batch1 must be a 3D tensor");
      if (b.rank() != 3) return err(ErrorKind::Arg, "batch2 must be a 3D tensor");
      if (b.sizes[0] != g->sizes[0] || b.sizes[1] != g->sizes[2])
        return err(ErrorKind::Shape, "Expected size for first two dimensions of batch2 tensor to be: [" +
                                         std::to_string(g->sizes[0]) + ", " + std::to_string(g->sizes[2]) +
                                         "] but got: [" + std::to_string(b.sizes[0]) + ", " +
                                         std::to_string(b.sizes[1]) + "].");
      return fresh_contiguous(res, Shape{g->sizes[0], g->sizes[1], b.sizes[2]});
    }
    case ReductionKind::MatmulNd: {
      Result<MatmulPlan> p = matmul_nd_plan(g->sizes, a[1].t->g.sizes);
      if (!p) return p.error();
      return fresh_contiguous(res, p->out);
    }
    case ReductionKind::None: break;
  }
  internal_error(std::string("infer: no shape rule for ") + op_name(op));
}

}  // namespace

std::optional<Error> infer_into(OpKind op, const std::vector<CheckedArg>& a, OutMetas* res) {
  res->clear();
  const Geometry* g = (!a.empty() && a[0].t) ? &a[0].t->g : nullptr;
  // Format v1.3's metadata ops give x the geometry of the view they mirror
  // (t_ of a 3-d tensor raises as t does; squeeze_ of a dim that is not 1
  // leaves x as it is). Retiring x's names is analyze()'s business.
  if (is_metadata_inplace(op)) return infer_into(geometry_op(op), a, res);
  const OpInfo& info = op_info(op);
  if (info.cls == OpClass::InPlace) return inplace(aten_equivalent(op), a, res);
  switch (info.family) {
    case Family::Movement: return view_rule(op, g, a, res);
    case Family::Elementwise:  // out of place, by its Math's arity (clone: Copy, full: Constant)
      switch (math_arity(info.math)) {
        // Unary and binary math broadcasts its arguments into a fresh result.
        case MathArity::Unary:
        case MathArity::Binary: return elementwise(a, res);
        case MathArity::Copy: return fresh_contiguous(res, g->sizes);
        case MathArity::Constant:
          for (int64_t s : a[0].list)
            if (s < 0)
              return err(ErrorKind::Arg, "Trying to create tensor with negative dimension " + std::to_string(s));
          if (auto e = check_f32(a[1])) return *e;
          return fresh_contiguous(res, a[0].list);
        case MathArity::Clamp:
        case MathArity::Ternary:
        case MathArity::NotElementwise: break;  // in place only
      }
      break;
    case Family::Reduction: return reduction_rule(op, g, a, res);
    case Family::Concat: return cat(a[0].ts, a[1].i, res);
    case Family::Reorder: {  // flip (format v1.5): a fresh tensor in x's layout (empty_like, preserve format)
      SmallVec<bool, 6> seen(std::max(g->rank(), 1), false);
      for (int64_t d : a[1].list) {
        auto w = wrap_dim(d, g->rank());
        if (!w) return dim_error(d, g->rank());
        if (seen[*w])
          return err(ErrorKind::Arg, "dim " + std::to_string(*w) + " appears multiple times in the list of dims");
        seen[*w] = true;
      }
      return fresh(res, g->sizes, preserve_format_strides(*g));
    }
    case Family::Scatter: return scatter(op, a, res);
    case Family::Indexed: {  // format v1.5's out of place: the in-place op's rules on a fresh copy of x
      TensorMeta copy;
      OutMetas written;
      if (auto e = indexed(indexed_write_op(op), on_fresh_copy(a, &copy), &written)) return e;
      return fresh_contiguous(res, g->sizes);
    }
    case Family::Meta: {                   // update_aliases: each tensor of its list again
      if (a.empty()) return std::nullopt;  // graph_break (no arguments): no values, no result
      for (size_t i = 0; i < a[0].ts.size(); ++i) res->push_back(OutMeta{a[0].ts[i]->g, false, static_cast<int>(i)});
      return std::nullopt;
    }
  }
  internal_error(std::string("infer: no shape rule for ") + info.name);
}

Result<OutMetas> infer(OpKind op, const std::vector<CheckedArg>& a) {
  OutMetas r;
  if (auto e = infer_into(op, a, &r)) return *e;
  return r;
}

}  // namespace af::ir
