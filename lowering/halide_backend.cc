// Region specs to Halide pipelines: the only file that includes Halide.h.
#include <Halide.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <climits>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "lowering/aot.h"
#include "lowering/backend.h"
#include "lowering/kernel_source.h"
#include "oracles/kernels.h"

namespace af::lowering {

namespace H = Halide;
using detail::grid_fold;
using detail::NK;
using detail::RegionSpec;
using ir::OpKind;

namespace {

constexpr int kBig = INT_MAX;

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
// CPU time of this thread (compile times are reported in CPU ms: wall time
// on a shared machine measures the neighbours).
double thread_cpu_ms() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

const std::vector<H::Var>& vars() {
  static const std::vector<H::Var> v = [] {
    std::vector<H::Var> r;
    for (int i = 0; i < 8; ++i) r.push_back(H::Var("v" + std::to_string(i)));
    return r;
  }();
  return v;
}

std::vector<H::Expr> args_of(int rank) {
  std::vector<H::Expr> a;
  for (int i = 0; i < rank; ++i) a.push_back(vars()[i]);
  return a;
}
std::vector<H::Var> pure_vars(int rank) { return std::vector<H::Var>(vars().begin(), vars().begin() + rank); }

// Float classification by bits, immune to fast-math assumptions.
H::Expr u32(uint32_t v) { return H::cast<uint32_t>(H::Expr(static_cast<int>(v))); }
H::Expr bits(H::Expr f) { return H::reinterpret(H::UInt(32), f); }
H::Expr nonfinite(H::Expr f) { return (bits(f) & u32(0x7f800000u)) == u32(0x7f800000u); }
H::Expr isnan_(H::Expr f) { return nonfinite(f) && (bits(f) & u32(0x007fffffu)) != u32(0); }

// Halide's twin of oracles/kernels.cc's unary: the same Math, the same
// order of float operations (binary Math is one template for both,
// oracles::binary). Math that is not a unary function here is a bug in
// lowering/spec.cc.
H::Expr unary(ir::Math f, H::Expr x) {
  using M = ir::Math;
  switch (f) {
    // Halide 14's exp_f32 on the CPU (its own range reduction, with an
    // int32 exponent) gives 0 for NaN and for x >= ~2^31 (+inf included),
    // where expf gives NaN and inf; expf is inf for every x > 88.73.
    // corpus/examples/exp_of_nonfinite.af
    case M::Exp: return H::select(isnan_(x), x, x > 89.f, H::cast<float>(INFINITY), H::exp(x));
    case M::Neg: return -x;
    case M::Abs: return H::abs(x);
    case M::Relu: return H::select(isnan_(x) || x > 0.f, x, 0.f);
    case M::Tanh: return H::tanh(x);
    case M::Sin: return H::sin(x);  // sinf on the CPU, as the oracle
    case M::Sigmoid: return H::cast<float>(H::Expr(1.0) / (H::Expr(1.0) + H::exp(-H::cast<double>(x))));
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
  ir::internal_error(std::string("halide unary: not a unary function: ") + ir::math_name(f));
}

// Halide's twin of oracles/kernels.cc's ternary (the same float operations
// in the same order).
H::Expr ternary(ir::Math f, H::Expr x, H::Expr a, H::Expr b, H::Expr s) {
  using M = ir::Math;
  switch (f) {
    case M::Addcmul: return x + s * a * b;
    case M::Addcdiv: return x + s * a / b;
    case M::Lerp: return H::select(H::abs(b) < 0.5f, x + b * (a - x), a - (a - x) * (1.f - b));
    case M::ClampTensor:
      return H::select(isnan_(a) || isnan_(b), H::cast<float>(NAN), H::select(isnan_(x), x, H::min(H::max(x, a), b)));
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
  ir::internal_error(std::string("halide ternary: not a ternary function: ") + ir::math_name(f));
}

// GPU schedules, one for every stage of every GPU target (cuda, opencl,
// and the CUDA code ptx assembles): the stage's loop variables (innermost
// first) fused into one, split into blocks of 32 threads, and the blocks
// folded into a 2-D grid `fold` wide, so that no grid dimension exceeds
// 65,535 blocks (CUDA's limit for y and z) whatever the tensor's shape:
// Session sets fold from the largest tensor of the program.
void gpu_loops(H::Stage s, std::vector<H::VarOrRVar> loops, const H::Expr& fold) {
  H::VarOrRVar f = loops[0];
  for (size_t k = 1; k < loops.size(); ++k) {
    H::VarOrRVar g(f.name() + "_" + loops[k].name(), f.is_rvar);
    s.fuse(f, loops[k], g);
    f = g;
  }
  H::VarOrRVar b("gb", f.is_rvar), t("gt", f.is_rvar), bx("gbx", f.is_rvar), by("gby", f.is_rvar);
  s.split(f, b, t, 32, H::TailStrategy::GuardWithIf)
      .split(b, by, bx, fold, H::TailStrategy::GuardWithIf)
      .gpu_blocks(bx, by)
      .gpu_threads(t);
}
void gpu_pure_stage(H::Stage s, int rank, const H::Expr& fold) {
  std::vector<H::VarOrRVar> loops;
  for (int k = 0; k < rank; ++k) loops.push_back(vars()[k]);
  gpu_loops(s, loops, fold);
}
void gpu_pure(H::Func f, int rank, const H::Expr& fold) {
  gpu_pure_stage(f, rank, fold);
  for (int u = 0; u < f.num_update_definitions(); ++u) gpu_pure_stage(f.update(u), rank, fold);
}
// Update stages whose domain is an RDom (scatters, checks).
void gpu_rdom(H::Stage s, const H::RDom& r, int rank, const H::Expr& fold) {
  std::vector<H::VarOrRVar> loops;
  for (int k = 0; k < rank; ++k) loops.push_back(r[k]);
  gpu_loops(s, loops, fold);
}

// Format v1.2's indexed and masked writes (spec.h's IndexScatter): f is
// the previous version, then one update over the op's domain. The RDom
// lists the domain's dims last first, so that its serial loop nest visits
// the domain in row-major order, the oracle's (oracles/kernels.cc:
// indexed_write): accumulating ops then add duplicates in the oracle's
// order, bit for bit. On GPU targets the last-writer ops (unique indices)
// and masked_fill_ (one number) run one thread per domain element; the
// accumulating ones run their update in a single GPU thread: float atomics
// would add duplicates in a racy order, and the domains are fuzzer-sized.
// `index_rank`: the rank of the index node (in[1]).
template <typename IP>
void index_scatter(H::Func& f, const detail::Node& n, int index_rank, const std::vector<H::Func>& F, const IP& I,
                   bool gpu, const H::Expr& fold) {
  const auto& v = vars();
  const OpKind op = static_cast<OpKind>(n.op);
  f(v[0]) = F[n.in[0]](v[0]);
  const int r = n.rank;
  H::Region dom;
  for (int k = r - 1; k >= 0; --k) dom.push_back(H::Range(0, I(n.ip + 1 + k)));
  H::RDom rd(dom);
  // The domain coordinate, in logical dim order. Clamped to the domain: on
  // GPU targets the guarded split rounds the loops up to whole blocks, and
  // Halide's bounds inference of the `where` predicates below does not see
  // the guard, so an unclamped mask or index read was inferred past its
  // buffer ("Input buffer in1 is accessed at 63, which is beyond the max
  // (47)"). Iterations that run are inside the domain: no value changes.
  std::vector<H::Expr> c(r);
  for (int k = 0; k < r; ++k) c[k] = H::clamp(rd[r - 1 - k], 0, H::max(I(n.ip + 1 + k) - 1, 0));
  H::Expr pos = I(n.ip);
  for (int k = 0; k < r; ++k) pos = pos + c[k] * I(n.ip + 1 + r + k);
  const H::Expr ist = I(n.ip + 1 + 2 * r), bound = I(n.ip + 2 + 2 * r);
  std::vector<H::Expr> ic;  // where the index (or mask) is read
  switch (ir::indexed_kind(op)) {
    case ir::IndexedKind::IndexPut: ic.assign(c.begin(), c.begin() + index_rank); break;
    case ir::IndexedKind::IndexAdd:
    case ir::IndexedKind::IndexCopy: ic = {c[n.dim]}; break;
    case ir::IndexedKind::Scatter:
    case ir::IndexedKind::ScatterAdd:
    case ir::IndexedKind::MaskedFill: ic = c; break;
    case ir::IndexedKind::None: ir::internal_error(std::string("halide: not an indexed op: ") + ir::op_name(op));
  }
  const H::Expr iv = F[n.in[1]](ic);
  const H::Expr val = F[n.in[2]](c);
  if (op == OpKind::MaskedFillI) {
    rd.where(iv != 0.f);
  } else {
    H::Expr i = H::cast<int>(iv);                                     // exact: validated indices are small integers
    if (op == OpKind::IndexPutI) i = H::select(i < 0, i + bound, i);  // Python indexing
    // As the oracle: an index out of range writes nothing (validation
    // rejects it; a strategy's or mutant's rewrite could make one). The
    // clamp only tells Halide's bounds inference where the writes land.
    rd.where(i >= 0 && i < bound);
    pos = pos + H::clamp(i, 0, H::max(bound - 1, 0)) * ist;
  }
  if (n.keep) {
    f(pos) = f(pos) + val;
  } else {
    f(pos) = val;
  }
  f.compute_root();
  if (!gpu) return;
  gpu_pure_stage(f, 1, fold);
  H::Stage u = f.update(0);
  if (n.keep) {
    u.gpu_single_thread();
  } else {
    u.allow_race_conditions();
    std::vector<H::VarOrRVar> loops;
    for (int k = 0; k < r; ++k) loops.push_back(rd[k]);
    gpu_loops(u, loops, fold);
  }
}

struct Built {
  std::vector<H::ImageParam> inputs;
  std::vector<H::Param<int>> ip;
  std::vector<H::Param<float>> fp;
  H::Param<int> fold{"fold"};
  // Checked regions: the program's expected values, its status (read and
  // written: bound to the same buffer as the status output), this region's index.
  H::ImageParam expected, status_in;
  H::Param<int> region{"region"};
  bool has_status = false;
  std::vector<H::Func> outputs;  // flat outputs, then the status
};

Built build(const RegionSpec& s, bool gpu) {
  Built b;
  for (size_t i = 0; i < s.input_storages.size(); ++i) b.inputs.emplace_back(H::Float(32), 1, "in" + std::to_string(i));
  for (size_t i = 0; i < s.iparams.size(); ++i) b.ip.emplace_back("i" + std::to_string(i));
  for (size_t i = 0; i < s.fparams.size(); ++i) b.fp.emplace_back("f" + std::to_string(i));
  auto I = [&](int k) -> H::Expr { return b.ip[k]; };
  const auto& v = vars();
  std::vector<H::Func> F(s.nodes.size());
  for (size_t ni = 0; ni < s.nodes.size(); ++ni) {
    const auto& n = s.nodes[ni];
    H::Func f("n" + std::to_string(ni));
    const auto a = args_of(n.rank);
    const auto pv = pure_vars(n.rank);
    auto in = [&](int k) -> H::Func& { return F[n.in[k]]; };
    switch (n.k) {
      case NK::Input: f(v[0]) = b.inputs[n.slot](v[0]); break;
      case NK::Zeros: f(v[0]) = 0.f; break;
      case NK::Scatter: {
        f(v[0]) = in(0)(v[0]);
        H::Region dom;
        for (int k = 0; k < n.rank; ++k) dom.push_back(H::Range(0, I(n.ip + 1 + k)));
        H::RDom r(dom);
        H::Expr idx = I(n.ip);
        std::vector<H::Expr> ra;
        for (int k = 0; k < n.rank; ++k) {
          idx = idx + r[k] * I(n.ip + 1 + n.rank + k);
          ra.push_back(r[k]);
        }
        f(idx) = in(1)(ra);
        f.compute_root();
        if (gpu) {
          gpu_pure_stage(f, 1, b.fold);
          H::Stage u = f.update(0);
          u.allow_race_conditions();
          gpu_rdom(u, r, n.rank, b.fold);
        }
        break;
      }
      case NK::IndexScatter: index_scatter(f, n, s.nodes[n.in[1]].rank, F, I, gpu, b.fold); break;
      case NK::Dense: {
        // Coordinate k of element i is (i / stride k) mod size k for a
        // dense layout; clamped so that bounds inference sees in[0]'s extent.
        std::vector<H::Expr> idx;
        for (int k = 0; k < n.dim; ++k) {
          const H::Expr sz = H::max(I(n.ip + k), 1), st = H::max(I(n.ip + n.dim + k), 1);
          idx.push_back(H::clamp((v[0] / st) % sz, 0, sz - 1));
        }
        f(v[0]) = in(0)(idx);
        break;
      }
      case NK::Read: {
        H::Expr idx = I(n.ip);
        for (int k = 0; k < n.rank; ++k) idx = idx + v[k] * I(n.ip + 1 + k);
        f(pv) = in(0)(idx);
        break;
      }
      case NK::Const: f(pv) = H::Expr(b.fp[n.fp]); break;
      case NK::Bcast: {
        std::vector<H::Expr> idx;
        for (int k = 0; k < n.dim; ++k) idx.push_back(v[k + n.rank - n.dim] * I(n.ip + k));
        f(pv) = in(0)(idx);
        break;
      }
      case NK::Unary: f(pv) = unary(ir::math_of(static_cast<OpKind>(n.op)), in(0)(a)); break;
      case NK::Binary:
        f(pv) = oracles::binary<H::Expr>(ir::math_of(static_cast<OpKind>(n.op)), in(0)(a), in(1)(a));
        break;
      case NK::Ternary:
        f(pv) = ternary(ir::math_of(static_cast<OpKind>(n.op)), in(0)(a), in(1)(a), in(2)(a), b.fp[n.fp]);
        break;
      case NK::Clamp: {
        H::Expr x = in(0)(a);
        f(pv) = H::select(isnan_(x), x, H::min(H::max(x, b.fp[n.fp]), b.fp[n.fp + 1]));
        break;
      }
      case NK::Reduce: {
        const int ra = s.nodes[n.in[0]].rank;
        H::RDom r(0, I(n.ip));
        std::vector<H::Expr> idx;
        if (n.keep) {
          idx = a;
          idx[n.dim] = r.x;
        } else if (ra == 1) {
          idx = {r.x};
        } else {
          idx = a;
          idx.insert(idx.begin() + n.dim, r.x);
        }
        H::Func acc("acc" + std::to_string(ni));
        if (static_cast<OpKind>(n.op) == OpKind::Sum) {
          acc(pv) = H::cast<double>(0);
          acc(pv) += H::cast<double>(in(0)(idx));
          f(pv) = H::cast<float>(acc(pv));
        } else {
          acc(pv) = H::cast<float>(-INFINITY);
          H::Expr x = in(0)(idx), c = acc(pv);
          acc(pv) = H::select(isnan_(c), c, H::select(isnan_(x) || x > c, x, c));
          f(pv) = acc(pv);
        }
        acc.compute_root();
        if (gpu) gpu_pure(acc, n.rank, b.fold);
        break;
      }
      case NK::Softmax: {
        H::RDom r(0, I(n.ip));
        std::vector<H::Expr> idx = a, at0 = a;
        idx[n.dim] = r.x;
        at0[n.dim] = 0;
        H::Func mx("mx" + std::to_string(ni)), se("se" + std::to_string(ni));
        mx(pv) = H::cast<float>(-INFINITY);
        mx(pv) = H::max(mx(pv), in(0)(idx));
        se(pv) = H::cast<double>(0);
        se(pv) += H::exp(H::cast<double>(in(0)(idx)) - H::cast<double>(mx(at0)));
        f(pv) = H::cast<float>(H::exp(H::cast<double>(in(0)(a)) - H::cast<double>(mx(at0))) / se(at0));
        mx.compute_root();
        se.compute_root();
        if (gpu) {
          gpu_pure(mx, n.rank, b.fold);
          gpu_pure(se, n.rank, b.fold);
        }
        break;
      }
      case NK::Matmul: {
        H::RDom r(0, I(n.ip));
        H::Func m("mm" + std::to_string(ni));
        m(v[0], v[1]) = H::cast<double>(0);
        m(v[0], v[1]) += H::cast<double>(in(0)(v[0], r.x)) * H::cast<double>(in(1)(r.x, v[1]));
        f(v[0], v[1]) = H::cast<float>(m(v[0], v[1]));
        m.compute_root();
        if (gpu) gpu_pure(m, 2, b.fold);
        break;
      }
      case NK::Cat: {
        const int np = static_cast<int>(n.in.size());
        H::Expr e;
        for (int p = np - 1; p >= 0; --p) {
          std::vector<H::Expr> idx = a;
          idx[n.dim] = H::clamp(a[n.dim] - I(n.ip + p), 0, I(n.ip + np + p) - 1);
          H::Expr val = in(p)(idx);
          e = p == np - 1 ? val : H::select(a[n.dim] < I(n.ip + p + 1), val, e);
        }
        f(pv) = e;
        break;
      }
    }
    if (n.root && n.k != NK::Scatter && n.k != NK::IndexScatter) {
      f.compute_root();
      if (gpu) gpu_pure(f, n.rank, b.fold);
    }
    F[ni] = f;
  }
  for (int o : s.output_nodes) b.outputs.push_back(F[o]);
  if (!s.checks.empty()) {
    b.has_status = true;
    b.expected = H::ImageParam(H::Float(32), 1, "expected");
    H::Func chk("chk");
    chk(v[0]) = H::select(v[0] % 2 == 0, 0, kBig);
    std::vector<H::RDom> doms;
    for (size_t c = 0; c < s.checks.size(); ++c) {
      const auto& ck = s.checks[c];
      // bad(i) per element, materialized once; then two cheap reductions.
      const auto a = args_of(ck.rank);
      H::Expr flat_p = 0, cst = 1;
      for (int k = ck.rank - 1; k >= 0; --k) {
        flat_p = flat_p + a[k] * cst;
        cst = cst * I(ck.ip + k);
      }
      H::Expr act = F[ck.node](a);
      H::Expr exp = b.expected(I(ck.ip + ck.rank) + flat_p);
      H::Expr anan = isnan_(act), enan = isnan_(exp);
      H::Expr close = H::abs(H::cast<double>(act) - H::cast<double>(exp)) <=
                      H::Expr(1e-5) + H::Expr(1e-5) * H::abs(H::cast<double>(exp));
      H::Expr ok =
          H::select(anan || enan, anan && enan, nonfinite(act) || nonfinite(exp), bits(act) == bits(exp), close);
      H::Func badf("bad" + std::to_string(c));
      badf(pure_vars(ck.rank)) = H::select(ok, 0, 1);
      badf.compute_root();
      if (gpu) gpu_pure(badf, ck.rank, b.fold);
      H::Region dom;
      for (int k = 0; k < ck.rank; ++k) dom.push_back(H::Range(0, I(ck.ip + k)));
      H::RDom r(dom);
      std::vector<H::Expr> ra;
      H::Expr flat = 0;
      cst = 1;
      for (int k = ck.rank - 1; k >= 0; --k) {
        flat = flat + r[k] * cst;
        cst = cst * I(ck.ip + k);
      }
      for (int k = 0; k < ck.rank; ++k) ra.push_back(r[k]);
      const int c2 = static_cast<int>(2 * c);
      chk(c2) = chk(c2) + badf(ra);
      chk(c2 + 1) = H::min(chk(c2 + 1), H::select(badf(ra) != 0, flat, kBig));
      doms.push_back(r);
    }
    chk.compute_root();
    if (gpu) {
      gpu_pure_stage(chk, 1, b.fold);
      for (size_t c = 0; c < s.checks.size(); ++c)
        for (int u = 0; u < 2; ++u) {
          H::Stage st = chk.update(static_cast<int>(2 * c + u));
          st.atomic();
          gpu_rdom(st, doms[c], s.checks[c].rank, b.fold);
        }
    }
    H::Expr minop = kBig, cnt = 0, first = -1;
    for (size_t c = 0; c < s.checks.size(); ++c) {
      const auto& ck = s.checks[c];
      H::Expr id = I(ck.ip + ck.rank + 1);
      H::Expr n = chk(static_cast<int>(2 * c));
      H::Expr better = n > 0 && id < minop;
      first = H::select(better, chk(static_cast<int>(2 * c + 1)), first);
      minop = H::select(better, id, minop);
      cnt = cnt + n;
    }
    // Merge into the program's status on the device: the first region (in
    // execution order) that fails sets where; every region adds its count.
    // nst is computed whole before status overwrites status_in.
    b.status_in = H::ImageParam(H::Int(32), 1, "status_in");
    const H::Expr first_fail = b.status_in(1) == 0 && cnt > 0;
    H::Func nst("nst"), status("status");
    nst(v[0]) = H::select(v[0] == 0, H::select(first_fail, minop, b.status_in(0)),  //
                          v[0] == 1, b.status_in(1) + cnt,                          //
                          v[0] == 2, H::select(first_fail, first, b.status_in(2)),  //
                          H::select(first_fail, b.region, b.status_in(3)));
    nst.compute_root();
    status(v[0]) = nst(v[0]);
    if (gpu) {
      gpu_pure_stage(nst, 1, b.fold);
      gpu_pure_stage(status, 1, b.fold);
    }
    b.outputs.push_back(status);
  }
  return b;
}

struct Entry {
  Built b;
  H::Pipeline pipe;
  uint64_t last_use = 0;
};

struct PtxVerdict {
  std::string error, finding;
};

}  // namespace

struct CompileCache::Impl {
  size_t max_entries = 0;
  uint64_t clock = 0;
  int64_t evictions = 0;
  std::unordered_map<std::string, std::unique_ptr<Entry>> jit;
  std::unordered_map<std::string, PtxVerdict> ptx;
  int64_t hits = 0, misses = 0;
  double compile_ms = 0;
  std::vector<double> each;
  detail::AotKernels aot;  // the persistent cache's loaded kernels (lowering/aot_cache.cc)
};

CompileCache::CompileCache(size_t max_entries) : impl_(new Impl) { impl_->max_entries = max_entries; }
int64_t CompileCache::evictions() const { return impl_->evictions + impl_->aot.evictions; }
CompileCache::~CompileCache() = default;
int64_t CompileCache::hits() const { return impl_->hits; }
int64_t CompileCache::misses() const { return impl_->misses; }
double CompileCache::compile_ms() const { return impl_->compile_ms; }
const std::vector<double>& CompileCache::compile_ms_each() const { return impl_->each; }
size_t CompileCache::size() const { return impl_->jit.size() + impl_->aot.loaded.size(); }
void CompileCache::clear() {
  impl_->jit.clear();
  impl_->ptx.clear();
  impl_->hits = impl_->misses = 0;
  impl_->compile_ms = 0;
  impl_->each.clear();
  impl_->aot.loaded.clear();  // kernels stay mapped; the next lookups go to the disk store
}
int64_t CompileCache::disk_hits() const { return impl_->aot.disk_hits; }
int64_t CompileCache::disk_corrupt() const { return impl_->aot.corrupt; }

bool cuda_available(std::string* why) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    if (why) *why = "no CUDA driver (libcuda.so.1 not found)";
    return false;
  }
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int*);
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "cuInit"));
  auto count = reinterpret_cast<CountFn>(dlsym(lib, "cuDeviceGetCount"));
  int n = 0;
  if (!init || !count || init(0) != 0 || count(&n) != 0 || n == 0) {
    if (why) *why = "no CUDA device (cuInit/cuDeviceGetCount found none)";
    return false;
  }
  return true;  // the driver stays loaded: Halide's CUDA runtime uses it
}

bool opencl_available(std::string* why) {
  static std::once_flag once;
  if (!detail::opencl_load(why)) return false;
  // Before the runtime's first OpenCL call (it looks its entry points up
  // once): every lookup goes through the counting wrappers.
  std::call_once(once, [] {
    H::JITHandlers h = H::Internal::JITSharedRuntime::set_default_handlers(H::JITHandlers{});
    h.custom_get_library_symbol = &detail::opencl_symbol;
    H::Internal::JITSharedRuntime::set_default_handlers(h);
  });
  return true;
}

namespace detail {

struct Session::Impl {
  CompileCache::Impl& cache;
  Target target;
  bool gpu, alias_mutant;
  H::Target jit_target;
  H::DeviceAPI api = H::DeviceAPI::Host;
  int fold = 1;
  LowerStats& stats;
  DriverCounts driver0;
  // Each storage's current version, from its first use by a region (on the
  // device for GPU targets); undefined while `mem` still holds it.
  std::vector<H::Buffer<float>> store;
  std::vector<bool> written;
  std::vector<float> expected_host;
  H::Buffer<float> expected;  // uploaded at the first checked region
  H::Buffer<int> status;      // stmt, count, first index, region

  // One host-to-device copy of a buffer whose host values are current.
  template <typename T>
  void upload(H::Buffer<T>& b) {
    if (!gpu) return;
    b.set_host_dirty();
    if (b.copy_to_device(api, jit_target) != 0) throw std::runtime_error("copy to device failed");
    ++stats.uploads;
    stats.upload_bytes += static_cast<int64_t>(b.size_in_bytes());
  }
  template <typename T>
  void download(H::Buffer<T>& b) {
    if (!gpu || !b.device_dirty()) return;
    if (b.copy_to_host() != 0) throw std::runtime_error("copy to host failed");
    ++stats.downloads;
    stats.download_bytes += static_cast<int64_t>(b.size_in_bytes());
  }
  // Drops a version; its device copy is freed explicitly (Halide refuses to
  // free a device allocation newer than its host one implicitly).
  template <typename T>
  static void release(H::Buffer<T>& b) {
    if (b.defined() && b.has_device_allocation()) b.device_free();
    b = H::Buffer<T>();
  }
  // Storage s as a region input: resident from its first use on.
  H::Buffer<float>& resident(int s, const oracles::Memory& mem) {
    auto& b = store[s];
    if (!b.defined()) {
      const auto& host = mem[s];
      b = H::Buffer<float>(std::max<int>(1, static_cast<int>(host.size())));
      std::copy(host.begin(), host.end(), b.data());
      upload(b);
    }
    return b;
  }
};

Session::Session(CompileCache& cache, Target target, bool alias_mutant, int64_t max_numel, LowerStats& stats)
    : impl_(new Impl{*cache.impl(),
                     target,
                     target == Target::Cuda || target == Target::OpenCL,
                     alias_mutant,
                     H::get_jit_target_from_environment(),
                     H::DeviceAPI::Host,
                     grid_fold(max_numel),
                     stats,
                     {},
                     {},
                     {},
                     {},
                     {},
                     {}}) {
  auto& m = *impl_;
  if (target == Target::Cuda) {
    m.jit_target = m.jit_target.with_feature(H::Target::CUDA).with_feature(H::Target::CUDACapability86);
    m.api = H::DeviceAPI::CUDA;
  } else if (target == Target::OpenCL) {
    // Sums and softmax accumulate in double, as on the host (pocl has cl_khr_fp64).
    m.jit_target = m.jit_target.with_feature(H::Target::OpenCL).with_feature(H::Target::CLDoubles);
    m.api = H::DeviceAPI::OpenCL;
    m.driver0 = opencl_counts();
    reset_opencl_max_groups();
  }
}

Session::~Session() {
  for (auto& b : impl_->store) Impl::release(b);
  Impl::release(impl_->expected);
  Impl::release(impl_->status);
}

void Session::set_expected(std::vector<float> values) { impl_->expected_host = std::move(values); }

std::string Session::run(int region, const RegionSpec& spec, const oracles::Memory& mem) {
  auto& m = *impl_;
  auto& c = m.cache;
  auto& stats = m.stats;
  if (m.store.empty()) {
    m.store.resize(mem.size());
    m.written.assign(mem.size(), false);
  }
  const std::string key = std::string(target_name(m.target)) + ":" + spec.key;
  try {
    Entry* e;
    auto it = c.jit.find(key);
    if (it != c.jit.end()) {
      ++c.hits;
      ++stats.cache_hits;
      e = it->second.get();
    } else {
      if (c.max_entries > 0 && c.jit.size() >= c.max_entries) {  // evict the least recently used
        auto oldest = c.jit.begin();
        for (auto j = c.jit.begin(); j != c.jit.end(); ++j)
          if (j->second->last_use < oldest->second->last_use) oldest = j;
        c.jit.erase(oldest);
        ++c.evictions;
      }
      const double t0 = thread_cpu_ms();
      auto ne = std::make_unique<Entry>();
      ne->b = build(spec, m.gpu);
      ne->pipe = H::Pipeline(ne->b.outputs);
      ne->pipe.compile_jit(m.jit_target);
      const double ms = thread_cpu_ms() - t0;
      ++c.misses;
      ++stats.cache_misses;
      c.compile_ms += ms;
      c.each.push_back(ms);
      stats.compile_ms += ms;
      e = ne.get();
      c.jit.emplace(key, std::move(ne));
    }
    e->last_use = ++c.clock;
    const auto t0 = std::chrono::steady_clock::now();
    Built& b = e->b;
    for (size_t i = 0; i < spec.iparams.size(); ++i) b.ip[i].set(spec.iparams[i]);
    for (size_t i = 0; i < spec.fparams.size(); ++i) b.fp[i].set(spec.fparams[i]);
    b.fold.set(m.fold);
    for (size_t i = 0; i < spec.input_storages.size(); ++i) b.inputs[i].set(m.resident(spec.input_storages[i], mem));
    std::vector<H::Buffer<>> outs;
    std::vector<H::Buffer<float>> fresh(spec.output_nodes.size());
    for (size_t o = 0; o < spec.output_nodes.size(); ++o) {
      const int s = spec.output_storages[o];
      const bool is_input =
          std::find(spec.input_storages.begin(), spec.input_storages.end(), s) != spec.input_storages.end();
      if (m.alias_mutant && is_input) {
        // The mutant: the storage's buffer is bound as input and output
        // (the same Buffer object, so also the same device allocation).
        outs.push_back(m.store[s]);
      } else {
        fresh[o] = H::Buffer<float>(static_cast<int>(spec.output_numel[o]));
        outs.push_back(fresh[o]);
      }
    }
    if (b.has_status) {
      if (!m.status.defined()) {
        m.expected = H::Buffer<float>(std::max<int>(1, static_cast<int>(m.expected_host.size())));
        std::copy(m.expected_host.begin(), m.expected_host.end(), m.expected.data());
        m.upload(m.expected);
        m.status = H::Buffer<int>(4);
        m.status(0) = kBig;
        m.status(1) = 0;
        m.status(2) = m.status(3) = -1;
        m.upload(m.status);
      }
      b.expected.set(m.expected);
      b.status_in.set(m.status);
      b.region.set(region);
      outs.push_back(m.status);
    }
    H::Realization real(outs);
    e->pipe.realize(real, m.jit_target);
    for (size_t o = 0; o < spec.output_nodes.size(); ++o) {
      const int s = spec.output_storages[o];
      m.written[s] = true;
      if (!fresh[o].defined()) continue;  // written in place (the mutant)
      Impl::release(m.store[s]);
      m.store[s] = fresh[o];
    }
    for (auto& ib : b.inputs) ib.reset();
    if (b.has_status) {
      b.expected.reset();
      b.status_in.reset();
    }
    stats.run_ms += ms_since(t0);
    ++stats.pipelines_run;
  } catch (const H::Error& err) {
    return std::string("Halide: ") + err.what();
  } catch (const std::exception& err) {
    return std::string("lowering: ") + err.what();
  }
  return "";
}

std::string Session::ptx(const RegionSpec& spec, const LowerOptions& o, std::string* finding) {
  auto& c = impl_->cache;
  auto& stats = impl_->stats;
  auto it = c.ptx.find(spec.key);
  if (it == c.ptx.end()) {
    PtxVerdict v;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      Built b = build(spec, true);
      H::Pipeline p(b.outputs);
      H::Target t = H::Target("x86-64-linux").with_feature(H::Target::CUDA).with_feature(H::Target::CUDACapability86);
      H::Module m = p.compile_to_module(p.infer_arguments(), "region", t);
      std::string text;
      for (const auto& buf : m.buffers())
        if (buf.name().find("gpu_source_kernels") != std::string::npos) {
          text.assign(reinterpret_cast<const char*>(buf.data()), buf.size_in_bytes());
          while (!text.empty() && text.back() == '\0') text.pop_back();
        }
      if (text.empty()) {
        v.error = "Halide produced no CUDA kernels for the region";
      } else {
        stats.ptx_bytes += static_cast<int64_t>(text.size());
        char tmpl[] = "/tmp/aflowerXXXXXX";
        const int fd = mkstemp(tmpl);
        if (fd < 0) throw std::runtime_error("mkstemp failed");
        close(fd);
        const std::string path = std::string(tmpl) + ".ptx";
        std::rename(tmpl, path.c_str());
        { std::ofstream(path) << text; }
        if (!o.ptx_dump_dir.empty()) {
          std::ofstream(o.ptx_dump_dir + "/region_" + std::to_string(std::hash<std::string>()(spec.key)) + ".ptx")
              << text;
        }
        const std::string cmd = o.ptxas + " -arch=" + o.ptx_arch + " " + path + " -o /dev/null 2>&1";
        FILE* pipe = popen(cmd.c_str(), "r");
        std::string out;
        char line[512];
        while (pipe && fgets(line, sizeof line, pipe)) out += line;
        const int rc = pipe ? pclose(pipe) : -1;
        std::remove(path.c_str());
        if (rc != 0) v.finding = "ptxas rejected the PTX (rc " + std::to_string(rc) + "): " + out;
      }
    } catch (const H::Error& err) {
      v.error = std::string("Halide CUDA codegen: ") + err.what();
    } catch (const std::exception& err) {
      v.error = std::string("ptx: ") + err.what();
    }
    stats.ptx_ms += ms_since(t0);
    ++stats.ptx_compiled;
    it = c.ptx.emplace(spec.key, v).first;
  }
  if (!it->second.finding.empty()) {
    ++stats.ptx_rejected;
    *finding = it->second.finding;
  }
  return it->second.error;
}

std::string Session::finish(oracles::Memory& mem, const std::vector<bool>& observed, Status* status) {
  auto& m = *impl_;
  try {
    for (size_t s = 0; s < m.store.size(); ++s) {
      if (!m.written[s] || !observed[s]) continue;
      m.download(m.store[s]);
      std::copy(m.store[s].data(), m.store[s].data() + mem[s].size(), mem[s].begin());
    }
    if (m.status.defined()) {
      m.download(m.status);
      *status = Status{m.status(0), m.status(1), m.status(2), m.status(3)};
    }
  } catch (const H::Error& err) {
    return std::string("Halide: ") + err.what();
  } catch (const std::exception& err) {
    return std::string("lowering: ") + err.what();
  }
  if (m.target == Target::OpenCL) {
    const DriverCounts now = opencl_counts();
    m.stats.cl_writes = static_cast<int>(now.writes - m.driver0.writes);
    m.stats.cl_reads = static_cast<int>(now.reads - m.driver0.reads);
    m.stats.cl_launches = static_cast<int>(now.launches - m.driver0.launches);
    m.stats.max_grid = now.max_groups;
  }
  return "";
}

AotKernels& aot_kernels(CompileCache& cache) {
  cache.impl()->aot.max_entries = cache.impl()->max_entries;
  return cache.impl()->aot;
}

void note_lookup(CompileCache& cache, LowerStats& stats, bool hit, bool compiled, double compile_ms) {
  auto& c = *cache.impl();
  if (hit) {
    ++c.hits;
    ++stats.cache_hits;
    return;
  }
  ++c.misses;
  ++stats.cache_misses;
  if (!compiled) return;  // the disk store had it
  c.compile_ms += compile_ms;
  c.each.push_back(compile_ms);
  stats.compile_ms += compile_ms;
}

std::string halide_version() {
  // Debian's Halide 14 headers carry no version macros: the major version,
  // the LLVM it was built with, and the library file's size (a rebuilt or
  // upgraded libHalide changes it) key the cache instead.
  static const std::string v = [] {
    std::string r = "14 llvm" + std::to_string(H::Internal::get_llvm_version());
    Dl_info info;
    struct stat st;
    if (dladdr(reinterpret_cast<void*>(&H::Internal::get_llvm_version), &info) && info.dli_fname &&
        stat(info.dli_fname, &st) == 0)
      r += " lib" + std::to_string(static_cast<long long>(st.st_size));
    return r;
  }();
  return v;
}

std::string aot_target_string(Target t, bool portable) {
  // Kits run on other machines: a baseline x86-64 (every AVX2 server) for
  // the host part; the cache serves this machine, so it uses all it has.
  H::Target h = portable ? H::Target("x86-64-linux-sse41-avx-avx2-f16c-fma") : H::get_host_target();
  // LLVM's loop passes were 40% of a miss's LLVM time (bench/kcache_bench:
  // 109 -> 64 ms per compile, p95 430 -> 238 ms); fuzzed tensors are tiny,
  // so the code they would speed up runs for microseconds.
  h = h.with_feature(H::Target::NoRuntime).with_feature(H::Target::DisableLLVMLoopOpt);
  // Experiments (bench/kcache_bench.sh): extra features, e.g. "no_asserts".
  if (const char* extra = std::getenv("AF_AOT_FEATURES"); extra && *extra) {
    std::stringstream ss(extra);
    std::string f;
    while (std::getline(ss, f, '-'))
      if (!f.empty()) h = h.with_feature(H::Target::feature_from_name(f));
  }
  if (t == Target::OpenCL) h = h.with_feature(H::Target::OpenCL).with_feature(H::Target::CLDoubles);
  if (t == Target::Cuda) h = h.with_feature(H::Target::CUDA).with_feature(H::Target::CUDACapability86);
  return h.to_string();
}

std::string aot_compile_object(const RegionSpec& spec, Target t, const std::string& target_string,
                               const std::string& object_path) {
  try {
    Built b = build(spec, t == Target::OpenCL || t == Target::Cuda);
    // The argument order of lowering/aot.h.
    std::vector<H::Argument> args;
    for (auto& in : b.inputs) args.push_back(in);
    for (auto& p : b.ip) args.push_back(p);
    for (auto& p : b.fp) args.push_back(p);
    args.push_back(b.fold);
    if (b.has_status) {
      args.push_back(b.expected);
      args.push_back(b.status_in);
      args.push_back(b.region);
    }
    H::Pipeline p(b.outputs);
    const double t0 = thread_cpu_ms();
    H::Module m = p.compile_to_module(args, "region", H::Target(target_string));
    // Counter-free OpenCL C (lowering/kernel_source.h): kits compress it
    // across kernels; the buffer keeps its size (and trailing NUL).
    if (t == Target::OpenCL)
      for (const auto& buf : m.buffers())
        if (buf.name().find("gpu_source_kernels") != std::string::npos && buf.size_in_bytes() > 1)
          canonicalize_opencl_source(static_cast<char*>(const_cast<void*>(buf.data())), buf.size_in_bytes() - 1);
    const double t1 = thread_cpu_ms();
    m.compile({{H::OutputFileType::object, object_path}});
    aot_times().lower_ms += t1 - t0;
    aot_times().llvm_ms += thread_cpu_ms() - t1;
    ++aot_times().compiles;
  } catch (const H::Error& err) {
    return std::string("Halide: ") + err.what();
  } catch (const std::exception& err) {
    return std::string("aot: ") + err.what();
  }
  return "";
}

std::string aot_compile_runtime(const std::string& target_string, const std::string& object_path) {
  try {
    H::compile_standalone_runtime(object_path, H::Target(target_string).without_feature(H::Target::NoRuntime));
  } catch (const H::Error& err) {
    return std::string("Halide runtime: ") + err.what();
  }
  return "";
}

}  // namespace detail
}  // namespace af::lowering
