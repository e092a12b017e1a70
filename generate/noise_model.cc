#include "generate/noise_model.h"

#include "ir/matmul.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "oracles/kernels.h"

namespace af::fuzz {

using ir::Arg;
using ir::Geometry;
using ir::OpKind;
using ir::Shape;

namespace {

constexpr double kEps = 1.2e-7;               // float rounding
constexpr double kTranscendental = 4 * kEps;  // exp, tanh: a few ulp

NoisyOperand broadcast_operand(const Arg& a, const Shape& shape, const ir::Analysis& an, const oracles::Memory& values,
                               const oracles::Memory& noise) {
  const int64_t n = ir::numel_of(shape);
  if (a.kind != Arg::Tensor)
    return {std::vector<float>(n, static_cast<float>(a.as_double())), std::vector<float>(n, 0.f)};
  const ir::TensorMeta& m = an.values[a.i];
  const Geometry g = m.g.sizes == shape ? m.g : ir::broadcast_to(m.g, shape);
  return {oracles::gather(values[m.storage], g).v, oracles::gather(noise[m.storage], g).v};
}

NoisyOperand whole_operand(int64_t v, const ir::Analysis& an, const oracles::Memory& values,
                           const oracles::Memory& noise) {
  const ir::TensorMeta& m = an.values[v];
  return {oracles::gather(values[m.storage], m.g).v, oracles::gather(noise[m.storage], m.g).v};
}

int64_t wrapped(int64_t d, size_t rank) { return *ir::wrap_dim(d, static_cast<int64_t>(rank)); }

// index_put_'s indexing result: the index's shape, then the target's
// trailing dims.
Shape index_put_slot(const ir::Stmt& st, const ir::Analysis& an) {
  Shape slot = an.values[st.args[1].i].g.sizes;
  const Shape& xs = an.values[st.args[0].i].g.sizes;
  for (size_t d = 1; d < xs.size(); ++d) slot.push_back(xs[d]);
  return slot;
}

// Format v1.2's indexed writes: a copied element carries its source's
// noise (a filled one none); an accumulated one adds its sources' noise and
// one rounding per add, each at most kEps of the sum of the magnitudes.
// The same kernel as the oracle's moves the noise, the magnitudes and the
// count of adds.
void indexed_noise(const ir::Stmt& st, const ir::Analysis& an, const NoiseCapture& pre, std::vector<double>* n) {
  const auto& A = st.args;
  const Shape& xs = pre.written.sizes;
  const OpKind op = ir::indexed_write_op(st.op);  // index_add (format v1.5) writes its copy as index_add_
  const bool fill = op == OpKind::MaskedFillI, put = op == OpKind::IndexPutI;
  const int64_t dim = fill || put ? 0 : wrapped(A[1].i, xs.size());
  const bool put_acc = put && A[3].i != 0;
  const bool acc = put_acc || op == OpKind::IndexAddI || op == OpKind::ScatterAddI;
  const oracles::Dense idx{fill ? xs : an.values[A[put ? 1 : 2].i].g.sizes, pre.operands[1].values};
  const Shape src_sizes = fill ? Shape{} : put ? index_put_slot(st, an) : an.values[A[3].i].g.sizes;
  auto run = [&](std::vector<float> x, std::vector<float> src) {
    oracles::Dense xd{xs, std::move(x)}, sd{src_sizes, std::move(src)};
    std::vector<char> w(xd.v.size(), 0);
    oracles::indexed_write(op, dim, idx, sd, 0.f, put_acc, &xd, &w);
    return xd.v;
  };
  const std::vector<float> src_noise = fill ? std::vector<float>() : pre.operands[2].noise;
  const std::vector<float> nx = run(pre.operands[0].noise, src_noise);
  for (size_t i = 0; i < n->size(); ++i) (*n)[i] = nx[i];
  if (!acc) return;
  auto absolute = [](std::vector<float> v) {
    for (auto& e : v) e = std::fabs(e);
    return v;
  };
  const std::vector<float> mag = run(absolute(pre.operands[0].values), absolute(pre.operands[2].values));
  const std::vector<float> adds = run(std::vector<float>(xs.empty() ? 1 : ir::numel_of(xs), 0.f),
                                      std::vector<float>(pre.operands[2].values.size(), 1.f));
  for (size_t i = 0; i < n->size(); ++i) (*n)[i] += adds[i] * kEps * mag[i];
}

// Elementwise math: out[i] from the operands' values and noise at i, by
// the Math's noise class (ir/ops.h: Noise).
// Returns false when a divisor is not safely away from 0.
bool elementwise_noise(const ir::Stmt& st, const NoiseCapture& pre, const std::vector<float>& out,
                       std::vector<double>* noise) {
  using N = ir::Noise;
  auto& n = *noise;
  const auto& ops = pre.operands;
  switch (ir::math_noise(ir::math_of(st.op))) {
    case N::Sum:
      for (size_t i = 0; i < out.size(); ++i) n[i] = ops[0].noise[i] + ops[1].noise[i] + kEps * std::fabs(out[i]);
      return true;
    case N::Product:
      for (size_t i = 0; i < out.size(); ++i) {
        const double a = std::fabs(ops[0].values[i]), b = std::fabs(ops[1].values[i]);
        const double na = ops[0].noise[i], nb = ops[1].noise[i];
        n[i] = a * nb + b * na + na * nb + kEps * std::fabs(out[i]);
      }
      return true;
    case N::Quotient:
      for (size_t i = 0; i < out.size(); ++i) {
        const double d = std::fabs(ops[1].values[i]) - ops[1].noise[i];
        if (!(d > 0.25)) return false;
        n[i] = (ops[0].noise[i] + std::fabs(out[i]) * ops[1].noise[i]) / d + kEps * std::fabs(out[i]);
      }
      return true;
    case N::Exponential:
      for (size_t i = 0; i < out.size(); ++i)
        n[i] = std::fabs(out[i]) * (std::expm1(static_cast<double>(ops[0].noise[i])) + kTranscendental);
      return true;
    case N::Slope1:
      for (size_t i = 0; i < out.size(); ++i) n[i] = ops[0].noise[i] + kTranscendental * std::fabs(out[i]);
      return true;
    case N::SlopeQuarter:
      for (size_t i = 0; i < out.size(); ++i) n[i] = 0.25 * ops[0].noise[i] + kTranscendental * std::fabs(out[i]);
      return true;
    case N::ClampedAtZero:
      for (size_t i = 0; i < out.size(); ++i)
        n[i] = ops[0].values[i] < -ops[0].noise[i] ? 0.0 : ops[0].noise[i];  // robustly clamped to 0
      return true;
    case N::Clamped: {
      const double lo = st.args[1].as_double(), hi = st.args[2].as_double();
      for (size_t i = 0; i < out.size(); ++i) {
        const double a = ops[0].values[i], na = ops[0].noise[i];
        n[i] = (a < lo - na || a > hi + na) ? 0.0 : na;
      }
      return true;
    }
    case N::Addc: {
      // x + (s * a) op b: the product/quotient's noise, two roundings in
      // it and one in the sum.
      const double sv = std::fabs(st.args[ir::first_operand(st.op) + 3].as_double());
      for (size_t i = 0; i < out.size(); ++i) {
        const double x = ops[0].noise[i], a = std::fabs(ops[1].values[i]), na = ops[1].noise[i];
        const double b = std::fabs(ops[2].values[i]), nb = ops[2].noise[i];
        double q, nq;
        if (ir::math_of(st.op) == ir::Math::Addcmul) {
          q = sv * a * b;
          nq = sv * (a * nb + b * na + na * nb);
        } else {
          const double d = b - nb;
          if (!(d > 0.25)) return false;
          q = sv * a / b;
          nq = sv * (na + (a / b) * nb) / d;
        }
        n[i] = x + nq + 2 * kEps * q + kEps * std::fabs(out[i]);
      }
      return true;
    }
    case N::Lerp:
      // x + w (e - x) or e - (e - x)(1 - w): both forms bounded at once.
      for (size_t i = 0; i < out.size(); ++i) {
        const double x = std::fabs(ops[0].values[i]), e = std::fabs(ops[1].values[i]);
        const double nx = ops[0].noise[i], ne = ops[1].noise[i];
        const double w = ops[2].values[i], nw = ops[2].noise[i];
        const double d = std::fabs(static_cast<double>(ops[1].values[i]) - ops[0].values[i]);
        const double nd = nx + ne + kEps * d;
        const double c = std::max(std::fabs(w), std::fabs(1 - w)) + nw;
        n[i] = nx + ne + c * nd + d * nw + 2 * kEps * (c * d + x + e) + kEps * std::fabs(out[i]);
      }
      return true;
    case N::MaxOfOperands:
      // min(max(x, lo), hi) is 1-Lipschitz in each argument (max norm).
      for (size_t i = 0; i < out.size(); ++i) n[i] = std::max({ops[0].noise[i], ops[1].noise[i], ops[2].noise[i]});
      return true;
    case N::Exact:  // the noise carries over
      for (size_t i = 0; i < out.size(); ++i) n[i] = ops[0].noise[i];
      return true;
    case N::Constant:  // exact constants
      return true;
    case N::NotElementwise: break;
  }
  ir::internal_error(std::string("noise model: not elementwise: ") + ir::op_name(st.op));
}

// sum, amax, softmax along a dim; matmul.
void reduction_noise(const ir::Stmt& st, const ir::Analysis& an, const NoiseCapture& pre, const std::vector<float>& out,
                     std::vector<double>* noise) {
  auto& n = *noise;
  const auto& A = st.args;
  if (st.op == OpKind::Matmul || st.op == OpKind::Bmm || st.op == OpKind::MatmulNd) {  // one product per batch
    const NoisyOperand &a = pre.operands[0], &b = pre.operands[1];
    const ir::MatmulPlan plan = ir::matmul_plan(an.values[A[0].i].g.sizes, an.values[A[1].i].g.sizes);
    const int64_t P = plan.products(), M = plan.m, K = plan.k, N = plan.n;
    for (int64_t p = 0; p < P; ++p)
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
          double acc = 0, sabs = 0;
          for (int64_t k = 0; k < K; ++k) {
            const int64_t ia = (plan.a_batch[p] * M + i) * K + k, ib = (plan.b_batch[p] * K + k) * N + j;
            const double av = std::fabs(a.values[ia]), bv = std::fabs(b.values[ib]);
            const double na = a.noise[ia], nb = b.noise[ib];
            acc += av * nb + bv * na + na * nb;
            sabs += av * bv;
          }
          n[(p * M + i) * N + j] = acc + kEps * static_cast<double>(K) * sabs;
        }
    return;
  }
  const NoisyOperand& a = pre.operands[0];
  const Shape& in = an.values[A[0].i].g.sizes;
  int64_t outer, len, inner;
  oracles::around(in, in.empty() ? 0 : wrapped(A[1].i, in.size()), &outer, &len, &inner);
  for (int64_t q = 0; q < outer; ++q)
    for (int64_t i = 0; i < inner; ++i) {
      double sn = 0, sabs = 0, mx = 0;
      for (int64_t k = 0; k < len; ++k) {
        const int64_t j = (q * len + k) * inner + i;
        sn += a.noise[j];
        sabs += std::fabs(a.values[j]);
        mx = std::max<double>(mx, a.noise[j]);
      }
      if (st.op == OpKind::Sum)
        n[q * inner + i] = sn + kEps * static_cast<double>(len) * sabs;
      else if (st.op == OpKind::Amax)
        n[q * inner + i] = mx;
      else  // softmax
        for (int64_t k = 0; k < len; ++k) {
          const int64_t j = (q * len + k) * inner + i;
          n[j] = std::fabs(out[j]) * (std::expm1(2 * mx) + (len + 2) * kTranscendental);
        }
    }
}

}  // namespace

NoiseCapture capture_operands(const ir::Stmt& st, const ir::Analysis& an, const oracles::Memory& values,
                              const oracles::Memory& noise, int fresh_storage) {
  NoiseCapture pre;
  const auto& A = st.args;
  const ir::OpInfo& info = ir::op_info(st.op);
  if (info.cls == ir::OpClass::InPlace) {
    const ir::TensorMeta& x = an.values[A[0].i];
    pre.storage = x.storage;
    pre.written = st.op == OpKind::SetitemI ? ir::setitem_target(x.g, A[1].i, A[2].i, A[3].i).value().g : x.g;
  } else if (fresh_storage >= 0) {
    pre.storage = fresh_storage;
    pre.written = an.values[st.outs[0]].g;
  } else {
    return pre;  // a view: no values written
  }
  // Format v1.5's i64 data (two words an element) is computed exactly or
  // not at all (written_noise): each tensor operand's words, whole, is what
  // that needs, and the written words.
  if (an.values[info.cls == ir::OpClass::InPlace ? A[0].i : st.outs[0]].wide) {
    pre.written = ir::word_geometry(pre.written);
    ir::for_each_tensor_arg(st, [&](int v) {
      const ir::TensorMeta& m = an.values[v];
      const Geometry g = ir::memory_geometry(m);
      pre.operands.push_back({oracles::gather(values[m.storage], g).v, oracles::gather(noise[m.storage], g).v});
    });
    return pre;
  }
  const Shape& shape = pre.written.sizes;
  auto broadcast = [&](const Arg& a) { return broadcast_operand(a, shape, an, values, noise); };
  switch (info.family) {
    case ir::Family::Elementwise:
      switch (ir::math_arity(info.math)) {
        case ir::MathArity::Binary: {
          const size_t f = ir::first_operand(st.op);  // out=: after the out tensor
          pre.operands = {broadcast(A[f]), broadcast(A[f + 1])};
          break;
        }
        case ir::MathArity::Unary: pre.operands = {broadcast(A[ir::first_operand(st.op)])}; break;
        case ir::MathArity::Clamp: pre.operands = {broadcast(A[0])}; break;
        case ir::MathArity::Ternary: {
          const size_t f = ir::first_operand(st.op);  // out= (format v1.5): after the out tensor
          pre.operands = {broadcast(A[f]), broadcast(A[f + 1]), broadcast(A[f + 2])};
          break;
        }
        // copy_'s source, setitem_'s value, clone's argument
        case ir::MathArity::Copy: pre.operands = {broadcast(A.back())}; break;
        case ir::MathArity::Constant: break;  // fill_, zero_, full: exact
        case ir::MathArity::NotElementwise: ir::internal_error("noise model: elementwise op without Math");
      }
      break;
    case ir::Family::Movement:
    case ir::Family::Reduction:  // every tensor argument, whole
      for (size_t k = 0; k < A.size(); ++k)
        if (info.sig[k] == 'T') pre.operands.push_back(whole_operand(A[k].i, an, values, noise));
      break;
    case ir::Family::Concat:
      for (auto v : A[0].list) pre.operands.push_back(whole_operand(v, an, values, noise));
      break;
    case ir::Family::Reorder: pre.operands.push_back(whole_operand(A[0].i, an, values, noise)); break;
    case ir::Family::Indexed: {
      // The target, the index (a mask broadcast to the target), the source
      // (index_put_'s broadcast to the indexing result).
      pre.operands.push_back(whole_operand(A[0].i, an, values, noise));
      if (st.op == OpKind::MaskedFillI) {
        pre.operands.push_back(broadcast(A[1]));
      } else if (st.op == OpKind::IndexPutI) {
        pre.operands.push_back(whole_operand(A[1].i, an, values, noise));
        pre.operands.push_back(broadcast_operand(A[2], index_put_slot(st, an), an, values, noise));
      } else {
        pre.operands.push_back(whole_operand(A[2].i, an, values, noise));
        pre.operands.push_back(whole_operand(A[3].i, an, values, noise));
      }
      break;
    }
    case ir::Family::Scatter:
    case ir::Family::Meta: ir::internal_error(std::string("noise model: the generator does not emit ") + info.name);
  }
  return pre;
}

bool written_noise(const ir::Stmt& st, const ir::Analysis& an, const oracles::Memory& values, const NoiseCapture& pre,
                   std::vector<float>* out) {
  const std::vector<float> o = oracles::gather(values[pre.storage], pre.written).v;
  std::vector<double> n(o.size(), 0.0);
  // Format v1.5: i32 arithmetic is exact on exact operands; on any other
  // it would turn a rounding into a different integer (no bound).
  const int v = static_cast<int>(ir::is_inplace(st.op) ? st.args[0].i : st.outs[0]);
  if (an.values[v].is_exact_data()) {
    bool exact = true;
    for (const NoisyOperand& op : pre.operands)
      for (float e : op.noise) exact = exact && e == 0.f;
    out->assign(o.size(), exact ? 0.f : std::numeric_limits<float>::infinity());
    return exact;
  }
  switch (ir::op_info(st.op).family) {
    case ir::Family::Elementwise:
      if (!elementwise_noise(st, pre, o, &n)) return false;
      break;
    case ir::Family::Movement:  // a copy (reshape, flatten, contiguous): the noise carries over
      for (size_t i = 0; i < o.size(); ++i) n[i] = pre.operands[0].noise[i];
      break;
    case ir::Family::Reduction: reduction_noise(st, an, pre, o, &n); break;
    case ir::Family::Concat: {
      std::vector<oracles::Dense> parts;
      for (size_t k = 0; k < pre.operands.size(); ++k)
        parts.push_back({an.values[st.args[0].list[k]].g.sizes, pre.operands[k].noise});
      oracles::Dense c;
      oracles::cat(parts, wrapped(st.args[1].i, pre.written.sizes.size()), &c);
      for (size_t i = 0; i < o.size(); ++i) n[i] = c.v[i];
      break;
    }
    case ir::Family::Reorder: {  // flip: each element's noise moves with it
      oracles::Dense flipped;
      oracles::flip({pre.written.sizes, pre.operands[0].noise}, st.args[1].list, &flipped);
      for (size_t i = 0; i < o.size(); ++i) n[i] = flipped.v[i];
      break;
    }
    case ir::Family::Indexed: indexed_noise(st, an, pre, &n); break;
    case ir::Family::Scatter:
    case ir::Family::Meta:
      ir::internal_error(std::string("noise model: the generator does not emit ") + ir::op_name(st.op));
  }
  // A zero that a max or min made (relu, clamp, clamp_tensor, amax) or a
  // reduction summed has a sign implementations choose differently
  // (max(0, -0.0)): no value noise, but its bits are not exact, which
  // format v1.5's i32 views would read.
  const ir::OpInfo& info = ir::op_info(st.op);
  const ir::Noise cls = ir::math_noise(info.math);
  if (info.family == ir::Family::Reduction || cls == ir::Noise::ClampedAtZero || cls == ir::Noise::Clamped ||
      cls == ir::Noise::MaxOfOperands)
    for (size_t i = 0; i < o.size(); ++i)
      if (o[i] == 0.f) n[i] = std::max<double>(n[i], std::numeric_limits<float>::denorm_min());
  // Every bound is given (inf where it has none), so that a replay of any
  // program (bit_exact_returns) reads them; the generator keeps only
  // candidates within a quarter of the tolerance.
  out->resize(o.size());
  bool within = true;
  for (size_t i = 0; i < o.size(); ++i) {
    if (!(n[i] <= 0.25 * (1e-5 + 1e-5 * std::fabs(o[i])))) within = false;
    (*out)[i] = std::isnan(n[i]) ? std::numeric_limits<float>::infinity() : static_cast<float>(n[i]);
  }
  return within;
}

bool bit_exact_returns(const ir::Program& p, const ir::Analysis& an) {
  bool any = false;
  for (int v : p.returns) any = any || an.values[v].is_exact_data();
  if (!any) return true;
  oracles::Memory values = oracles::initial_memory(p, an);
  oracles::Memory noise(an.storage_numel);  // declared values are exact
  std::vector<float> out;
  for (size_t i = 0; i < p.stmts.size(); ++i) {
    const ir::Stmt& st = p.stmts[i];
    const ir::OpInfo& info = ir::op_info(st.op);
    if (info.family == ir::Family::Scatter || info.cls == ir::OpClass::Meta) return false;  // a strategy's program
    const NoiseCapture pre = capture_operands(st, an, values, noise, an.fresh_storage[i]);
    oracles::execute(st, an, values);
    if (pre.storage < 0) continue;
    out.clear();
    written_noise(st, an, values, pre, &out);
    const size_t n = static_cast<size_t>(pre.written.numel());
    if (out.size() != n) out.assign(n, std::numeric_limits<float>::infinity());  // a rule that gave no bound
    oracles::scatter(noise[pre.storage], pre.written, out);
  }
  for (int v : p.returns)
    if (an.values[v].is_exact_data() && !noise_free(noise[an.values[v].storage], ir::memory_geometry(an.values[v])))
      return false;
  return true;
}

bool noise_free(oracles::ConstFloats storage_noise, const ir::Geometry& g) {
  for (float n : oracles::gather(storage_noise, g).v)
    if (n != 0.f) return false;
  return true;
}

}  // namespace af::fuzz
