#include "oracles/eager.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace af::oracles {

using ir::Arg;
using ir::OpKind;

Memory initial_memory(const ir::Program& p, const ir::Analysis& an) {
  Memory mem;
  initial_memory(p, an, &mem);
  return mem;
}

void initial_memory(const ir::Program& p, const ir::Analysis& an, Memory* mem) {
  mem->layout(an.storage_numel);
  for (size_t s = 0; s < p.storages.size() && s < mem->size(); ++s) {
    const Floats m = (*mem)[s];
    if (static_cast<int64_t>(m.size()) == p.storages[s].numel) ir::initial_values_into(p.storages[s], m.data());
  }
}

namespace {

// A value as observables hold it: its sizes, and its elements in logical
// order (a wide i64 value's as two words each, format v1.5).
Dense read(const ir::Analysis& an, const Memory& mem, int v) {
  const auto& m = an.values[v];
  Dense d = gather(mem[m.storage], ir::memory_geometry(m));
  d.sizes = m.g.sizes;
  d.dtype = m.dtype;
  return d;
}

// A number as an operand of a statement computing in `dtype`: an f32, or
// (format v1.5) an integer's i32 bits.
float number_in(const Arg& a, ir::Dtype dtype) {
  return dtype == ir::Dtype::I32 ? i32_bits(a.i) : static_cast<float>(a.as_double());
}

// A tensor-or-number argument broadcast to `shape`, in logical order, into
// *out (a reused buffer: its capacity survives, so no allocation per op).
// `wide`: the statement computes on i64 or f64 data, two words an element.
void operand(const Arg& a, const ir::Analysis& an, const Memory& mem, const ir::Shape& shape, std::vector<float>* out,
             ir::Dtype dtype = ir::Dtype::F32, bool wide = false) {
  if (a.kind != Arg::Tensor) {
    if (!wide) return out->assign(ir::numel_of(shape), number_in(a, dtype));
    float w[2];
    if (dtype == ir::Dtype::F64)
      f64_words(a.as_double(), w);  // a Python number as PyTorch's double scalar
    else
      i64_words(a.i, w);
    out->resize(2 * ir::numel_of(shape));
    for (size_t i = 0; i < out->size(); ++i) (*out)[i] = w[i % 2];
    return;
  }
  const auto& m = an.values[a.i];
  if (m.g.sizes == shape && !m.wide)
    gather_into(mem[m.storage], m.g, out);  // (a ?: would copy m.g)
  else
    gather_into(mem[m.storage], ir::memory_geometry(m, ir::broadcast_to(m.g, shape)), out);
}

// A fresh result's storage: zeroed first (nothing an earlier use of the
// arena left shows where the geometry does not reach), then the values in
// logical order (a wide result's words).
void write_fresh(const ir::Stmt& st, const ir::Analysis& an, Memory& mem, ConstFloats values) {
  const auto& m = an.values[st.outs[0]];
  const Floats s = mem[m.storage];
  std::fill(s.begin(), s.end(), 0.f);
  scatter(s, ir::memory_geometry(m), values);
}

int64_t wrapped(int64_t dim, int64_t rank) { return *ir::wrap_dim(dim, rank); }

// The values an elementwise op writes, in logical order over `shape` (the
// written slot in place, the result out of place), into *v. Argument 0 is
// the target (in place) or the first operand, read broadcast to `shape`.
void elementwise_values(const ir::Stmt& st, const ir::Analysis& an, const Memory& mem, const ir::Shape& shape,
                        std::vector<float>* v) {
  using M = ir::Math;
  const auto& A = st.args;
  const M m = ir::math_of(st.op);
  const size_t f = ir::first_operand(st.op);  // 1 for out= (argument 0 is only written)
  // Format v1.5: the dtype the statement computes in (its operands').
  const ir::Dtype dt = A[0].kind == Arg::Tensor ? an.values[A[0].i].dtype : ir::Dtype::F32;
  const bool i32 = dt == ir::Dtype::I32;
  const bool wide = A[0].kind == Arg::Tensor && an.values[A[0].i].wide;  // i64, f64 data: words in pairs
  const bool f64 = dt == ir::Dtype::F64;
  using MA = ir::MathArity;
  switch (ir::math_arity(m)) {
    case MA::Binary: {
      thread_local std::vector<float> b;  // the second operand's scratch
      operand(A[f], an, mem, shape, v, dt, wide);
      operand(A[f + 1], an, mem, shape, &b, dt, wide);
      if (wide)
        for (size_t i = 0; i < v->size(); i += 2)
          (f64 ? f64_binary : i64_binary)(m, v->data() + i, b.data() + i, v->data() + i);
      else
        for (size_t i = 0; i < v->size(); ++i) (*v)[i] = i32 ? i32_binary(m, (*v)[i], b[i]) : binary(m, (*v)[i], b[i]);
      return;
    }
    case MA::Unary:
      operand(A[f], an, mem, shape, v, dt, wide);
      if (wide)
        for (size_t i = 0; i < v->size(); i += 2) (f64 ? f64_unary : i64_unary)(m, v->data() + i, v->data() + i);
      else
        for (auto& e : *v) e = i32 ? i32_unary(m, e) : unary(m, e);
      return;
    case MA::Ternary: {  // addcmul_(x, a, b, s), lerp_(x, a, b); out= (format v1.5) after the out tensor
      thread_local std::vector<float> a, b;
      operand(A[f], an, mem, shape, v);
      operand(A[f + 1], an, mem, shape, &a);
      operand(A[f + 2], an, mem, shape, &b);
      const float s = A.size() > f + 3 ? static_cast<float>(A[f + 3].as_double()) : 0.f;
      for (size_t i = 0; i < v->size(); ++i) (*v)[i] = ternary(m, (*v)[i], a[i], b[i], s);
      return;
    }
    case MA::Clamp: {
      operand(A[0], an, mem, shape, v);
      const float lo = static_cast<float>(A[1].as_double()), hi = static_cast<float>(A[2].as_double());
      for (auto& e : *v) e = clamp(e, lo, hi);
      return;
    }
    case MA::Constant:  // fill_ and full's number argument, zero_'s 0 (i32 0 is the bits of 0.f)
      if (wide) return operand(m == M::Zero ? Arg::integer(0) : A[1], an, mem, shape, v, dt, true);
      v->assign(ir::numel_of(shape), m == M::Zero ? 0.f : number_in(A[1], dt));
      return;
    case MA::Copy:
      operand(A[A.size() - 1], an, mem, shape, v, dt, wide);
      return;  // copy_'s source, setitem_'s value, clone's argument
    case MA::NotElementwise: break;
  }
  ir::internal_error(std::string("eager: not elementwise: ") + ir::op_name(st.op));
}

// A value in logical order into *d (per-thread scratch: no allocation
// once its capacity suffices).
// A wide i64 value (format v1.5) comes as its words, sizes + [2], which
// the layout kernels (flip, cat) move as they move elements.
void read_into(const ir::Analysis& an, const Memory& mem, int v, Dense* d) {
  const auto& m = an.values[v];
  d->sizes = m.g.sizes;
  if (m.wide && !(m.g.sizes.size() == 1 && m.g.sizes[0] == 0)) d->sizes.push_back(2);  // (cat skips a [0] as is)
  d->dtype = m.dtype;
  gather_into(mem[m.storage], ir::memory_geometry(m), &d->v);
}

void reduction(const ir::Stmt& st, const ir::Analysis& an, const Memory& mem, Dense* r) {
  const auto& A = st.args;
  thread_local Dense a, b;
  switch (ir::reduction_kind(st.op)) {
    case ir::ReductionKind::Sum:
    case ir::ReductionKind::Amax:
      read_into(an, mem, A[0].i, &a);
      return reduce(st.op, a, wrapped(A[1].i, a.sizes.size()), A[2].i != 0, r);
    case ir::ReductionKind::Softmax:
      read_into(an, mem, A[0].i, &a);
      return softmax(a, wrapped(A[1].i, a.sizes.size()), r);
    case ir::ReductionKind::Matmul:
    case ir::ReductionKind::Bmm:
    case ir::ReductionKind::MatmulNd:
      read_into(an, mem, A[0].i, &a);
      read_into(an, mem, A[1].i, &b);
      return matmul(a, b, ir::matmul_plan(a.sizes, b.sizes), r);
    case ir::ReductionKind::None: break;
  }
  ir::internal_error(std::string("eager: not a reduction: ") + ir::op_name(st.op));
}

void concat(const ir::Stmt& st, const ir::Analysis& an, const Memory& mem, Dense* r) {
  thread_local std::vector<Dense> parts;
  const auto& list = st.args[0].list;
  parts.resize(list.size());
  for (size_t k = 0; k < list.size(); ++k) read_into(an, mem, static_cast<int>(list[k]), &parts[k]);
  int64_t rank = 0;
  for (size_t k = 0; k < list.size(); ++k)
    if (const auto& g = an.values[list[k]].g; !(g.sizes.size() == 1 && g.sizes[0] == 0)) {
      rank = g.sizes.size();
      break;
    }
  cat(parts, rank ? wrapped(st.args[1].i, rank) : 0, r);
}

// Format v1.2's indexed and masked writes: the target's new values by
// indexed_write, stored back only where it wrote (a masked_fill_ target may
// be an expanded view: an element it does not write must not overwrite one
// it does through the same memory). Format v1.5's out-of-place ones
// (index_add ..) write their fresh result, which first gets x's values.
void indexed(const ir::Stmt& st, const ir::Analysis& an, Memory& mem) {
  const auto& A = st.args;
  const bool copy = ir::is_indexed_copy(st.op);
  const ir::OpKind op = ir::indexed_write_op(st.op);
  const auto& x = an.values[copy ? st.outs[0] : A[0].i];
  thread_local Dense xv, index, src;  // per-thread scratch, as every operand here
  thread_local std::vector<char> written;
  read_into(an, mem, static_cast<int>(A[0].i), &xv);
  if (copy) write_fresh(st, an, mem, xv.v);
  written.assign(xv.v.size(), 0);
  auto value_of = [&](const Arg& a, const ir::Shape* to, Dense* d) {  // broadcast to *to when given
    if (!to) return read_into(an, mem, static_cast<int>(a.i), d);
    d->sizes = *to;
    operand(a, an, mem, *to, &d->v);
  };
  const int64_t rank = static_cast<int64_t>(x.g.rank());
  switch (ir::indexed_kind(op)) {
    case ir::IndexedKind::IndexPut: {
      value_of(A[1], nullptr, &index);
      ir::Shape slot = index.sizes;
      for (int64_t d = 1; d < rank; ++d) slot.push_back(x.g.sizes[d]);
      value_of(A[2], &slot, &src);
      indexed_write(op, 0, index, src, 0.f, A[3].i != 0, &xv, &written);
      break;
    }
    case ir::IndexedKind::MaskedFill:
      value_of(A[1], &x.g.sizes, &index);
      src.sizes.clear();  // masked_fill_ has no source
      src.v.clear();
      indexed_write(op, 0, index, src, static_cast<float>(A[2].as_double()), false, &xv, &written);
      break;
    case ir::IndexedKind::IndexAdd:
    case ir::IndexedKind::IndexCopy:
    case ir::IndexedKind::Scatter:
    case ir::IndexedKind::ScatterAdd:  // (x, dim, index, src)
      value_of(A[2], nullptr, &index);
      value_of(A[3], nullptr, &src);
      indexed_write(op, wrapped(A[1].i, rank), index, src, 0.f, false, &xv, &written);
      break;
    case ir::IndexedKind::None: ir::internal_error(std::string("indexed_write: not an indexed op: ") + ir::op_name(op));
  }
  const Floats s = mem[x.storage];
  size_t i = 0;
  ir::for_each_offset(x.g, [&](int64_t o) {
    if (written[i]) s[o] = xv.v[i];
    ++i;
  });
}

}  // namespace

void execute(const ir::Stmt& st, const ir::Analysis& an, Memory& mem) {
  const auto& A = st.args;
  const auto& info = ir::op_info(st.op);
  if (info.cls == ir::OpClass::View || info.cls == ir::OpClass::Meta) return;  // geometry only
  if (info.cls == ir::OpClass::MayAlias) {
    const auto& out = an.values[st.outs[0]];
    const auto& in = an.values[A[0].i];
    if (out.storage != in.storage) {
      thread_local std::vector<float> v;
      gather_into(mem[in.storage], ir::memory_geometry(in), &v);
      write_fresh(st, an, mem, v);
    }
    return;
  }
  if (info.family == ir::Family::Indexed) return indexed(st, an, mem);
  if (info.cls == ir::OpClass::InPlace) {
    const auto& x = an.values[A[0].i];
    // setitem_ writes its slice of x, every other in-place op all of x.
    const Geometry g = ir::written_geometry(st, an);
    thread_local std::vector<float> v;  // reused: no allocation per statement
    elementwise_values(st, an, mem, g.sizes, &v);
    scatter(mem[x.storage], ir::memory_geometry(x, g), v);
    return;
  }
  // Out-of-place and scatter ops: compute the result in logical order.
  const auto& out = an.values[st.outs[0]];
  thread_local Dense r;  // a reduction's or cat's result, reused
  switch (info.family) {
    case ir::Family::Elementwise: {
      thread_local std::vector<float> v;
      elementwise_values(st, an, mem, out.g.sizes, &v);
      write_fresh(st, an, mem, v);
      return;
    }
    case ir::Family::Reduction: reduction(st, an, mem, &r); break;
    case ir::Family::Concat: concat(st, an, mem, &r); break;
    case ir::Family::Reorder: {  // flip
      thread_local Dense a;
      thread_local std::vector<int64_t> dims;  // wrapped by the element rank (a wide value's words add a dim)
      read_into(an, mem, A[0].i, &a);
      dims.clear();
      const int64_t rank = an.values[A[0].i].g.rank();
      for (int64_t d : A[1].list)  // (a 0-d tensor's 0 and -1 wrap to a dim it lacks: a no-op)
        if (const int64_t w = wrapped(d, rank); w < rank) dims.push_back(w);
      flip(a, dims, &r);
      break;
    }
    case ir::Family::Scatter: {  // a clone of the base (preserved strides) with src written into the slot
      thread_local std::vector<float> v;
      thread_local std::vector<ir::CheckedArg> checked;
      const auto& base = an.values[A[0].i];
      gather_into(mem[base.storage], ir::memory_geometry(base), &v);
      write_fresh(st, an, mem, v);
      ir::checked_args_into(st, an.values, &checked);
      const Geometry slot = ir::scatter_slot(st.op, out.g, checked).value();
      const auto& src = an.values[A[1].i];
      gather_into(mem[src.storage], ir::memory_geometry(src), &v);
      scatter(mem[out.storage], ir::memory_geometry(out, slot), v);
      return;
    }
    case ir::Family::Movement:
    case ir::Family::Meta:
    case ir::Family::Indexed:
      ir::internal_error(std::string("eager: movement or indexed op past the checks above: ") + info.name);
  }
  write_fresh(st, an, mem, r.v);
}

std::vector<ir::Geometry> input_geometries(const ir::Program& p, const ir::Analysis& an) {
  // The last metadata op's result on each input's object (analysis gives
  // every name its object: ir::TensorMeta::impl), in statement order. Only
  // a metadata op gives an object another geometry (in-place and out=
  // results keep it), so a program without one (most; this runs in every
  // executor's observe) keeps its declared geometries.
  ir::SmallVec<int, 8> last(p.inputs.size());  // inline for the usual few inputs: this runs after every run
  for (size_t k = 0; k < p.inputs.size(); ++k) last[k] = static_cast<int>(k);
  for (const auto& st : p.stmts)
    if (ir::is_metadata_inplace(st.op))
      for (int o : st.outs)
        for (size_t k = 0; k < p.inputs.size(); ++k)
          if (an.values[o].impl == an.values[k].impl) last[k] = o;
  std::vector<ir::Geometry> g;
  g.reserve(last.size());
  for (int v : last) g.push_back(an.values[v].g);
  return g;
}

Observables observe(const ir::Program& p, const ir::Analysis& an, const Memory& mem) {
  Observables o;
  o.returns.reserve(p.returns.size());
  for (int v : p.returns) o.returns.push_back(read(an, mem, v));
  o.storages.reserve(p.storages.size());
  for (size_t s = 0; s < p.storages.size() && s < mem.size(); ++s) o.storages.push_back(mem[s].to_vector());
  o.inputs = input_geometries(p, an);
  return o;
}

Observables run_eager(const ir::Program& p, const ir::Analysis& an) {
  thread_local Memory mem;  // its arena is reused: a run allocates only its observables
  initial_memory(p, an, &mem);
  for (const auto& st : p.stmts) execute(st, an, mem);
  return observe(p, an, mem);
}

std::vector<std::optional<Dense>> produced_values(const ir::Program& p, const ir::Analysis& an) {
  std::vector<std::optional<Dense>> by_stmt(p.stmts.size());
  Memory mem = initial_memory(p, an);
  for (size_t i = 0; i < p.stmts.size(); ++i) {
    const auto& st = p.stmts[i];
    execute(st, an, mem);
    if (ir::computes_values(st, an)) by_stmt[i] = produced_value(st, an, mem);
  }
  return by_stmt;
}

Dense produced_value(const ir::Stmt& st, const ir::Analysis& an, const Memory& mem) {
  const auto& m = an.values[ir::is_inplace(st.op) ? st.args[0].i : st.outs[0]];
  const Geometry g = ir::is_inplace(st.op) ? ir::written_geometry(st, an) : m.g;
  Dense d = gather(mem[m.storage], ir::memory_geometry(m, g));
  d.sizes = g.sizes;
  d.dtype = m.dtype;
  return d;
}

ir::Result<Observables> run_eager(const ir::Program& p, const ir::Limits& limits) {
  auto an = ir::analyze(p, limits);
  if (!an) return an.error();
  return run_eager(p, *an);
}

bool values_agree(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::fabs(static_cast<double>(a) - b) <= 1e-5 + 1e-5 * std::fabs(static_cast<double>(b));
}

std::optional<Mismatch> compare(const ir::Program& p, const Observables& e, const Observables& a) {
  // The first disagreeing element; the caller names the observable (only
  // then: every run of every executor ends in this comparison).
  auto cmp = [](const std::vector<float>& ev, const std::vector<float>& av,
                bool exact = false) -> std::optional<Mismatch> {
    if (ev.size() != av.size()) return Mismatch{"", 0, 0, 0, "element count differs"};
    for (size_t i = 0; i < ev.size(); ++i)  // equal floats agree (most elements): no tolerance arithmetic then
      if (exact ? i32_value(av[i]) != i32_value(ev[i]) : av[i] != ev[i] && !values_agree(av[i], ev[i]))
        return Mismatch{"", static_cast<int64_t>(i), ev[i], av[i], ""};
    return std::nullopt;
  };
  if (e.returns.size() != a.returns.size()) return Mismatch{"returns", 0, 0, 0, "number of returns differs"};
  for (size_t r = 0; r < e.returns.size(); ++r) {
    const auto name = [r] { return "return " + std::to_string(r); };
    if (e.returns[r].sizes != a.returns[r].sizes) return Mismatch{name(), 0, 0, 0, "shape differs"};
    if (e.returns[r].dtype != a.returns[r].dtype)
      return Mismatch{name(), 0, 0, 0,
                      std::string("dtype differs: ") + ir::dtype_name(a.returns[r].dtype) + ", expected " +
                          ir::dtype_name(e.returns[r].dtype)};
    // Format v1.5: i32, i64 and f64 elements agree bit for bit (integers,
    // and doubles from IEEE's exact operations: no tolerance; an i64 or
    // f64 element is two words, compared each), but any two f64 NaNs agree
    // (which payload an operation with two NaN operands keeps is the
    // compiler's choice of operand order).
    const ir::Dtype dt = e.returns[r].dtype;
    const bool f64 = dt == ir::Dtype::F64, exact = dt == ir::Dtype::I32 || dt == ir::Dtype::I64 || f64;
    auto m = cmp(e.returns[r].v, a.returns[r].v, exact);
    if (m && f64 && m->what.empty()) {
      for (size_t i = static_cast<size_t>(m->index) / 2 * 2; i + 1 < e.returns[r].v.size(); i += 2) {
        const double x = f64_value(&e.returns[r].v[i]), y = f64_value(&a.returns[r].v[i]);
        if (i64_value(&e.returns[r].v[i]) == i64_value(&a.returns[r].v[i]) || (std::isnan(x) && std::isnan(y)))
          continue;
        m->index = static_cast<int64_t>(i / 2);
        m->f64 = true;
        m->expected_f64 = x;
        m->actual_f64 = y;
        break;
      }
      if (!m->f64) m.reset();  // only NaNs of other payloads differed
    }
    if (m) {
      m->observable = name();
      if (m->what.empty() && (dt == ir::Dtype::I32 || dt == ir::Dtype::I64)) {
        m->integer = true;
        const size_t w = dt == ir::Dtype::I64 ? 2 : 1, i = static_cast<size_t>(m->index) / w * w;
        m->index = static_cast<int64_t>(i / w);
        m->expected_int = w == 2 ? i64_value(&e.returns[r].v[i]) : i32_value(e.returns[r].v[i]);
        m->actual_int = w == 2 ? i64_value(&a.returns[r].v[i]) : i32_value(a.returns[r].v[i]);
      }
      return m;
    }
  }
  for (size_t s = 0; s < e.storages.size() && s < a.storages.size(); ++s)
    if (auto m = cmp(e.storages[s], a.storages[s])) {
      m->observable = p.storages[s].name;
      return m;
    }
  // An executor that reports no input geometry is a mismatch too (never a
  // silent pass): every executor fills it (observe, the runners' JSON).
  if (e.inputs.size() != a.inputs.size())
    return Mismatch{"inputs", 0, 0, 0,
                    "input geometry of " + std::to_string(a.inputs.size()) + " inputs reported, expected " +
                        std::to_string(e.inputs.size())};
  for (size_t k = 0; k < e.inputs.size(); ++k)
    if (!input_geometry_agrees(a.inputs[k], e.inputs[k])) {
      const std::string name = k < p.inputs.size() ? p.inputs[k].name : std::to_string(k);
      return Mismatch{"input " + name, 0, 0, 0,
                      geometry_text(a.inputs[k]) + ", expected " + geometry_text(e.inputs[k])};
    }
  // Format v1.4 training: gradients, when both runs computed them (two
  // PyTorch runs: eager and a compiler; the oracle computes none).
  if (!e.grads.empty() && !a.grads.empty())
    for (size_t k = 0; k < e.grads.size() && k < a.grads.size(); ++k) {
      const std::string name = "grad " + (k < p.inputs.size() ? p.inputs[k].name : std::to_string(k));
      if (e.grads[k].has_value() != a.grads[k].has_value())
        return Mismatch{name, 0, 0, 0, e.grads[k] ? "no gradient, expected one" : "a gradient, expected none"};
      if (!e.grads[k]) continue;
      if (auto m = cmp(*e.grads[k], *a.grads[k])) {
        m->observable = name;
        return m;
      }
    }
  return std::nullopt;
}

bool input_geometry_agrees(const ir::Geometry& a, const ir::Geometry& e) {
  if (a.sizes != e.sizes || a.offset != e.offset || a.strides.size() != e.strides.size()) return false;
  for (size_t d = 0; d < e.sizes.size(); ++d)
    if (e.sizes[d] > 1 && a.strides[d] != e.strides[d]) return false;
  return true;
}

std::string geometry_text(const ir::Geometry& g) {
  auto list = [](const ir::Shape& s) {
    std::string t = "[";
    for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
    return t + "]";
  };
  return "sizes " + list(g.sizes) + " strides " + list(g.strides) + " offset " + std::to_string(g.offset);
}

}  // namespace af::oracles
