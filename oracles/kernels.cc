#include "oracles/kernels.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace af::oracles {

Dense gather(ConstFloats storage, const Geometry& g) {
  Dense d{g.sizes, {}};
  gather_into(storage, g, &d.v);
  return d;
}

void gather_into(ConstFloats storage, const Geometry& g, std::vector<float>* out) {
  out->resize(g.numel());
  float* w = out->data();
  ir::for_each_offset(g, [&](int64_t o) { *w++ = storage[o]; });
}

void scatter(Floats storage, const Geometry& g, ConstFloats values) {
  size_t i = 0;
  ir::for_each_offset(g, [&](int64_t o) { storage[o] = values[i++]; });
}

// The reference definition of each unary Math function; Halide's twin is
// in lowering/halide_backend.cc (binary ones are shared: kernels.h). Math
// that is not a unary function reaching here is a caller's bug.
float unary(ir::Math f, float x) {
  using M = ir::Math;
  switch (f) {
    case M::Exp: return std::exp(x);
    case M::Neg: return -x;
    case M::Abs: return std::fabs(x);
    case M::Relu: return x < 0.f ? 0.f : x;  // NaN and -0.0 pass through, as PyTorch's relu
    case M::Tanh: return std::tanh(x);
    case M::Sin: return std::sin(x);  // float sinf, as tanh is tanhf
    case M::Sigmoid: return static_cast<float>(1.0 / (1.0 + std::exp(-static_cast<double>(x))));
    case M::None:
    case M::Add:
    case M::Sub:
    case M::Mul:
    case M::Div:
    case M::Clamp:
    case M::Fill:
    case M::Zero:
    case M::Copy:
    case M::Addcmul:
    case M::Addcdiv:
    case M::Lerp:
    case M::ClampTensor: break;
  }
  ir::internal_error(std::string("unary: not a unary function: ") + ir::math_name(f));
}

float ternary(ir::Math f, float x, float a, float b, float s) {
  using M = ir::Math;
  switch (f) {
    case M::Addcmul: return x + s * a * b;
    case M::Addcdiv: return x + s * a / b;
    // ATen's lerp (Lerp.h): the formula anchored at the nearer end point.
    case M::Lerp: return std::fabs(b) < 0.5f ? x + b * (a - x) : a - (a - x) * (1.f - b);
    case M::ClampTensor: return clamp(x, a, b);
    case M::None:
    case M::Add:
    case M::Sub:
    case M::Mul:
    case M::Div:
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
    case M::Copy: break;
  }
  ir::internal_error(std::string("ternary: not a ternary function: ") + ir::math_name(f));
}

int32_t i32_value(float bits) {
  int32_t v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

float i32_bits(int64_t v) {
  const uint32_t low = static_cast<uint32_t>(static_cast<uint64_t>(v));
  float f;
  std::memcpy(&f, &low, sizeof f);
  return f;
}

// Unsigned arithmetic: wraps as PyTorch's int32 kernels do, without C++'s
// signed overflow.
float i32_binary(ir::Math f, float a, float b) {
  const uint32_t x = static_cast<uint32_t>(i32_value(a)), y = static_cast<uint32_t>(i32_value(b));
  using M = ir::Math;
  switch (f) {
    case M::Add: return i32_bits(x + y);
    case M::Sub: return i32_bits(x - y);
    case M::Mul: return i32_bits(x * y);
    default: break;  // which Math a dtype takes is decided once, in ir/dtypes.cc (exact_math)
  }
  ir::internal_error(std::string("i32_binary: not an i32 binary function: ") + ir::math_name(f));
}

float i32_unary(ir::Math f, float x) {
  const uint32_t v = static_cast<uint32_t>(i32_value(x));
  using M = ir::Math;
  switch (f) {
    case M::Neg: return i32_bits(0u - v);
    case M::Abs: return i32_bits(i32_value(x) < 0 ? 0u - v : v);
    default: break;  // which Math a dtype takes is decided once, in ir/dtypes.cc (exact_math)
  }
  ir::internal_error(std::string("i32_unary: not an i32 unary function: ") + ir::math_name(f));
}

int64_t i64_value(const float* words) {
  const uint64_t lo = static_cast<uint32_t>(i32_value(words[0])), hi = static_cast<uint32_t>(i32_value(words[1]));
  return static_cast<int64_t>(lo | hi << 32);
}

void i64_words(int64_t v, float* out) {
  const uint64_t u = static_cast<uint64_t>(v);
  out[0] = i32_bits(static_cast<int64_t>(u & 0xffffffffu));
  out[1] = i32_bits(static_cast<int64_t>(u >> 32));
}

void i64_binary(ir::Math f, const float* a, const float* b, float* out) {
  const uint64_t x = static_cast<uint64_t>(i64_value(a)), y = static_cast<uint64_t>(i64_value(b));
  using M = ir::Math;
  switch (f) {
    case M::Add: return i64_words(static_cast<int64_t>(x + y), out);
    case M::Sub: return i64_words(static_cast<int64_t>(x - y), out);
    case M::Mul: return i64_words(static_cast<int64_t>(x * y), out);
    default: break;  // which Math a dtype takes is decided once, in ir/dtypes.cc (exact_math)
  }
  ir::internal_error(std::string("i64_binary: not an i64 binary function: ") + ir::math_name(f));
}

void i64_unary(ir::Math f, const float* x, float* out) {
  const int64_t v = i64_value(x);
  const uint64_t u = static_cast<uint64_t>(v);
  using M = ir::Math;
  switch (f) {
    case M::Neg: return i64_words(static_cast<int64_t>(0u - u), out);
    case M::Abs: return i64_words(static_cast<int64_t>(v < 0 ? 0u - u : u), out);
    default: break;  // which Math a dtype takes is decided once, in ir/dtypes.cc (exact_math)
  }
  ir::internal_error(std::string("i64_unary: not an i64 unary function: ") + ir::math_name(f));
}

double f64_value(const float* words) {
  const int64_t bits = i64_value(words);
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

void f64_words(double v, float* out) {
  int64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  i64_words(bits, out);
}

void f64_binary(ir::Math f, const float* a, const float* b, float* out) {
  const double x = f64_value(a), y = f64_value(b);
  using M = ir::Math;
  switch (f) {
    case M::Add: return f64_words(x + y, out);
    case M::Sub: return f64_words(x - y, out);
    case M::Mul: return f64_words(x * y, out);
    default: break;  // which Math a dtype takes is decided once, in ir/dtypes.cc (exact_math)
  }
  ir::internal_error(std::string("f64_binary: not an f64 binary function: ") + ir::math_name(f));
}

void f64_unary(ir::Math f, const float* x, float* out) {
  // The sign is the high word's top bit: neg and abs touch nothing else.
  const uint64_t sign = uint64_t{1} << 63, bits = static_cast<uint64_t>(i64_value(x));
  using M = ir::Math;
  switch (f) {
    case M::Neg: return i64_words(static_cast<int64_t>(bits ^ sign), out);
    case M::Abs: return i64_words(static_cast<int64_t>(bits & ~sign), out);
    default: break;  // which Math a dtype takes is decided once, in ir/dtypes.cc (exact_math)
  }
  ir::internal_error(std::string("f64_unary: not an f64 unary function: ") + ir::math_name(f));
}

float clamp(float x, float lo, float hi) {
  // clamp_out fills the result with NaN when a bound is NaN.
  if (std::isnan(lo) || std::isnan(hi)) return NAN;
  if (std::isnan(x)) return x;
  return std::min(std::max(x, lo), hi);
}

void around(const Shape& s, int64_t dim, int64_t* outer, int64_t* n, int64_t* inner) {
  *outer = 1;
  *inner = 1;
  *n = s.empty() ? 1 : s[dim];
  for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d) {
    if (d < dim) *outer *= s[d];
    if (d > dim) *inner *= s[d];
  }
}

void indexed_write(ir::OpKind op, int64_t dim, const Dense& index, const Dense& src, float number, bool accumulate,
                   Dense* x, std::vector<char>* written) {
  auto put = [&](int64_t pos, float v, bool add) {
    x->v[pos] = add ? x->v[pos] + v : v;
    (*written)[pos] = 1;
  };
  // An index out of range writes nothing (never out of bounds): analyze()
  // rejects such programs, but a strategy's or mutant's rewrite that moves
  // an indexed write onto another target is only checked for geometry, and
  // must show up as a value divergence, not a crash.
  auto in_range = [](int64_t i, int64_t n) { return i >= 0 && i < n; };
  using K = ir::IndexedKind;
  const K kind = ir::indexed_kind(op);
  switch (kind) {
    case K::IndexPut: {  // x[idx] = v (or +=): a slice of x per index, along dim 0
      const int64_t n = x->sizes[0], inner = n == 0 ? 0 : static_cast<int64_t>(x->v.size()) / n;
      for (size_t k = 0; k < index.v.size(); ++k) {
        int64_t i = static_cast<int64_t>(index.v[k]);
        if (i < 0) i += n;
        if (!in_range(i, n)) continue;
        for (int64_t j = 0; j < inner; ++j) put(i * inner + j, src.v[k * inner + j], accumulate);
      }
      return;
    }
    case K::IndexAdd:
    case K::IndexCopy: {  // x.select(dim, idx[k]) (+)= src.select(dim, k)
      int64_t outer, n, inner;
      around(x->sizes, dim, &outer, &n, &inner);
      const int64_t len = static_cast<int64_t>(index.v.size());
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t k = 0; k < len; ++k)
          if (in_range(static_cast<int64_t>(index.v[k]), n))
            for (int64_t j = 0; j < inner; ++j)
              put((o * n + static_cast<int64_t>(index.v[k])) * inner + j, src.v[(o * len + k) * inner + j],
                  kind == K::IndexAdd);
      return;
    }
    case K::Scatter:
    case K::ScatterAdd: {
      // For each position p of the index (its own shape): the element of x
      // at p with coordinate dim replaced by index[p] (+)= src at p.
      // A 0-d target, index or source counts as rank 1 of size 1 (PyTorch's ensure_nonempty).
      const int r = std::max<int>(static_cast<int>(x->sizes.size()), 1);
      const Shape is = index.sizes.empty() ? Shape(r, 1) : index.sizes;
      const Shape xst = ir::contiguous_strides(x->sizes.empty() ? Shape{1} : x->sizes);
      const Shape sst = src.sizes.empty() ? Shape(r, 0) : ir::contiguous_strides(src.sizes);
      Shape c(r, 0);
      for (size_t p = 0; p < index.v.size(); ++p) {
        int64_t xo = 0, so = 0;
        for (int d = 0; d < r; ++d) {
          xo += (d == dim ? static_cast<int64_t>(index.v[p]) : c[d]) * xst[d];
          so += c[d] * sst[d];
        }
        const int64_t along = x->sizes.empty() ? 1 : x->sizes[dim];
        bool ok = in_range(static_cast<int64_t>(index.v[p]), along) && so < static_cast<int64_t>(src.v.size());
        for (int d = 0; d < r && ok && !x->sizes.empty(); ++d) ok = d == dim || c[d] < x->sizes[d];
        if (ok) put(xo, src.v[so], kind == K::ScatterAdd);
        for (int d = r - 1; d >= 0; --d) {
          if (++c[d] < is[d]) break;
          c[d] = 0;
        }
      }
      return;
    }
    case K::MaskedFill:
      for (size_t i = 0; i < x->v.size(); ++i)
        if (index.v[i] != 0) put(static_cast<int64_t>(i), number, false);
      return;
    case K::None: break;
  }
  ir::internal_error(std::string("indexed_write: not an indexed op: ") + ir::op_name(op));
}

void reduce(ir::OpKind op, const Dense& a, int64_t dim, bool keepdim, Dense* out) {
  int64_t outer, n, inner;
  around(a.sizes, dim, &outer, &n, &inner);
  Dense& r = *out;
  r.sizes = a.sizes;
  if (!r.sizes.empty()) {
    if (keepdim)
      r.sizes[dim] = 1;
    else
      r.sizes.erase(r.sizes.begin() + dim);
  }
  r.v.assign(outer * inner, 0.f);
  const bool is_sum = op == ir::OpKind::Sum;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double acc = is_sum ? 0.0 : -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < n; ++k) {
        const double x = a.v[(o * n + k) * inner + i];
        if (is_sum)
          acc += x;
        else if (std::isnan(x) || x > acc)
          acc = std::isnan(acc) ? acc : x;
      }
      r.v[o * inner + i] = static_cast<float>(acc);
    }
}

void softmax(const Dense& a, int64_t dim, Dense* out) {
  int64_t outer, n, inner;
  around(a.sizes, dim, &outer, &n, &inner);
  Dense& r = *out;
  r.sizes = a.sizes;
  r.v.assign(a.v.size(), 0.f);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < n; ++k) mx = std::max<double>(mx, a.v[(o * n + k) * inner + i]);
      double s = 0;
      for (int64_t k = 0; k < n; ++k) s += std::exp(a.v[(o * n + k) * inner + i] - mx);
      for (int64_t k = 0; k < n; ++k) {
        const int64_t j = (o * n + k) * inner + i;
        r.v[j] = static_cast<float>(std::exp(a.v[j] - mx) / s);
      }
    }
}

void matmul(const Dense& a, const Dense& b, const ir::MatmulPlan& plan, Dense* out) {
  const int64_t P = plan.products(), m = plan.m, k = plan.k, n = plan.n;
  Dense& r = *out;
  r.sizes = plan.out;
  r.v.assign(P * m * n, 0.f);
  for (int64_t p = 0; p < P; ++p) {
    const float* pa = a.v.data() + plan.a_batch[p] * m * k;
    const float* pb = b.v.data() + plan.b_batch[p] * k * n;
    float* pr = r.v.data() + p * m * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t t = 0; t < k; ++t) acc += static_cast<double>(pa[i * k + t]) * pb[t * n + j];
        pr[i * n + j] = static_cast<float>(acc);
      }
  }
}

void flip(const Dense& a, const std::vector<int64_t>& dims, Dense* out) {
  Dense& r = *out;
  r.sizes = a.sizes;
  r.dtype = a.dtype;
  r.v.resize(a.v.size());
  const size_t rank = a.sizes.size();
  std::vector<char> reversed(rank, 0);
  for (int64_t d : dims)  // as written; a 0-d tensor's 0 and -1 wrap to a dim it lacks: a no-op
    if (auto w = ir::wrap_dim(d, static_cast<int64_t>(rank)); w && static_cast<size_t>(*w) < rank) reversed[*w] = 1;
  const Shape st = ir::contiguous_strides(a.sizes);
  for (size_t i = 0; i < a.v.size(); ++i) {
    int64_t rem = static_cast<int64_t>(i), src = 0;
    for (size_t d = 0; d < rank; ++d) {
      int64_t idx = st[d] ? rem / st[d] : 0;
      rem -= idx * st[d];
      if (reversed[d]) idx = a.sizes[d] - 1 - idx;
      src += idx * st[d];
    }
    r.v[i] = a.v[src];
  }
}

void cat(const std::vector<Dense>& parts, int64_t dim, Dense* out) {
  const Dense* ref = nullptr;
  for (const auto& p : parts)
    if (!(p.sizes.size() == 1 && p.sizes[0] == 0)) {
      ref = &p;
      break;
    }
  Dense& r = *out;
  r.v.clear();
  if (!ref) {
    r.sizes = Shape{0};
    return;
  }
  r.sizes = ref->sizes;
  r.sizes[dim] = 0;
  for (const auto& p : parts)
    if (p.sizes.size() == r.sizes.size()) r.sizes[dim] += p.sizes[dim];
  int64_t outer, n, inner;
  around(r.sizes, dim, &outer, &n, &inner);
  r.v.reserve(ir::numel_of(r.sizes));
  for (int64_t o = 0; o < outer; ++o)
    for (const auto& p : parts) {
      if (p.sizes.size() != r.sizes.size()) continue;
      const int64_t chunk = p.sizes[dim] * inner;
      r.v.insert(r.v.end(), p.v.begin() + o * chunk, p.v.begin() + (o + 1) * chunk);
    }
}

}  // namespace af::oracles
