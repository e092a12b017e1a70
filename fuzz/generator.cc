// The random program generator (see generator.h).
//
// How validity is guaranteed: every candidate statement goes through
// ir::infer (the same shape/stride/overlap rule analyze() uses) against an
// incrementally maintained ir::Analysis; a candidate that errors (including
// `undefined`) is dropped and another choice is made. How finiteness is
// guaranteed: the generator runs the eager oracle alongside (the programs are
// tiny), so it knows every value exactly; a candidate whose result leaves
// [-value_bound, value_bound] (or is not finite) is rolled back, divisors are
// checked to be bounded away from 0 and exp arguments to be small. Each
// element also carries a bound on its rounding noise (see
// fuzz/noise_model.h) so that compiled tiers cannot diverge from the oracle by rounding.
//
// Scenario mix: ops are drawn by weight; in-place ops prefer recently made
// aliases ("hot" values), inputs and views of inputs; a fresh alias, piece or
// clone is often written right away; reads prefer siblings of the last
// written tensor; the return favours the last result, the last written view
// and a view made before a later write to its storage (a stale-view check).
//
// Determinism: a private xoshiro256** seeded by splitmix64 from (seed,
// index); no std:: distributions, no unordered containers, no addresses.
// Decisions that look at computed values (bounds, divisors, noise) use the
// oracle's float results, which come from the C library's exp/tanh: a
// different libm could in principle flip a decision sitting exactly on a
// threshold. The golden test in generator_test.cc pins a few programs.
#include "fuzz/generator.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "fuzz/noise_model.h"
#include "ir/analysis.h"
#include "ir/hash.h"
#include "oracles/eager.h"

namespace af::fuzz {

using ir::Arg;
using ir::Geometry;
using ir::OpKind;
using ir::Shape;

namespace {

using ir::splitmix64;

class Rng {
 public:
  Rng(uint64_t seed, uint64_t index) {
    uint64_t x = seed ^ 0x6A09E667F3BCC909ULL;
    const uint64_t a = splitmix64(&x);
    x = a ^ (index * 0xD1B54A32D192ED03ULL + 0x9E3779B97F4A7C15ULL);
    for (auto& w : s_) w = splitmix64(&x);
  }
  uint64_t next() {
    const uint64_t r = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return r;
  }
  // Byte mode (the libFuzzer decoder): choices are read from the bytes,
  // one or two per choice, so that a mutated byte changes one decision;
  // when the bytes run out, the seeded stream takes over.
  void use_bytes(const uint8_t* data, size_t size) {
    bytes_ = data;
    left_ = size;
  }
  // Uniform in [0, n) (n > 0), by multiply-shift.
  int64_t below(int64_t n) {
    if (left_ > 0) {
      uint64_t v = *bytes_++;
      --left_;
      if (n > 256 && left_ > 0) {
        v = (v << 8) | *bytes_++;
        --left_;
      }
      return static_cast<int64_t>(v % static_cast<uint64_t>(n));
    }
    return static_cast<int64_t>((static_cast<unsigned __int128>(next()) * static_cast<uint64_t>(n)) >> 64);
  }
  // Uniform in [lo, hi].
  int64_t range(int64_t lo, int64_t hi) { return lo + below(hi - lo + 1); }
  // True with probability num/1000 (integer arithmetic only).
  bool chance(int per_mille) { return below(1000) < per_mille; }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[below(static_cast<int64_t>(v.size()))]; }
  template <class T, size_t N>
  const T& pick(const T (&v)[N]) { return v[below(N)]; }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
  const uint8_t* bytes_ = nullptr;
  size_t left_ = 0;
};

const double kSmall[] = {0.5, -0.5, 1.0, -1.0, 2.0, 0.25, 1.5, -2.0, 0.75, 3.0};
const double kMulScalars[] = {0.5, -1.0, 2.0, -0.5, 1.5, 0.75, -2.0, 0.25};
const double kDivScalars[] = {2.0, -2.0, 4.0, 0.5, -1.5, 1.25, -0.5, 3.0};
const double kFill[] = {0.0, 1.0, -1.0, 0.5, 2.5, -3.25, 7.0, 0.125};
const int64_t kNumels[] = {1, 2, 3, 4, 6, 8, 9, 12, 12, 16, 16, 18, 20, 24, 24, 27, 30, 32, 36, 48, 64};

struct Gen {
  const GenOptions& o;
  Rng r;
  ir::Program p;
  ir::Analysis an;
  oracles::Memory mem;
  int next_impl = 0;
  int num_stmt_values = 0;
  std::vector<int> weights;     // parallel to generated_ops() (integers: determinism)
  int total_weight = 0;
  std::vector<int> hot;         // recently created aliases / fresh copies: favourite write targets
  int last_written_storage = -1;
  int last_written_value = -1;
  int bound_exceeded = 0;
  oracles::Memory noise;                // by storage: a bound on each element's rounding noise
  int noise_rejected = 0;
  int invalid_rejected = 0;
  int pending_target = -1;              // a value the next in-place op should write
  int inplace_weight = 0;               // total weight of the in-place ops
  std::vector<int> def_stmt;            // by value id: defining statement, -1 for inputs
  std::vector<int> storage_last_write;  // by storage id: last writing statement, -1 if none

  Gen(uint64_t seed, uint64_t index, const GenOptions& opt) : o(opt), r(seed, index) {
    for (OpKind k : generated_ops()) {
      int w = ir::op_info(k).weight;
      auto it = o.op_weights.find(ir::op_name(k));
      if (it != o.op_weights.end()) w = static_cast<int>(std::lround(std::max(0.0, it->second) * w * 10));
      else w *= 10;
      weights.push_back(w);
      total_weight += w;
      if (ir::is_inplace(k)) inplace_weight += w;
    }
  }

  bool enabled(OpKind k) const {
    for (size_t i = 0; i < weights.size(); ++i)
      if (generated_ops()[i] == k) return weights[i] > 0;
    return false;
  }
  int64_t cap() const { return std::max<int64_t>(o.max_numel, 1); }
  int max_rank() const { return std::max(1, std::min(o.max_rank, 6)); }
  const ir::TensorMeta& meta(int v) const { return an.values[v]; }
  const Geometry& geo(int v) const { return an.values[v].g; }
  int num_values() const { return static_cast<int>(an.values.size()); }

  // ---- shapes -------------------------------------------------------------

  std::vector<int64_t> divisors(int64_t n) {
    std::vector<int64_t> d;
    for (int64_t k = 1; k <= n; ++k)
      if (n % k == 0) d.push_back(k);
    return d;
  }

  // A random factorization of n into `rank` sizes (n > 0).
  Shape factor(int64_t n, int rank) {
    Shape s(rank, 1);
    if (rank == 0) return s;
    int64_t rest = n;
    for (int i = 0; i < rank - 1; ++i) {
      std::vector<int64_t> d = divisors(rest);
      if (d.size() > 2 && r.chance(750)) d = std::vector<int64_t>(d.begin() + 1, d.end() - 1);  // avoid 1s
      s[i] = r.pick(d);
      rest /= s[i];
    }
    s[rank - 1] = rest;
    // shuffle so the big remainder is not always last
    for (int i = rank - 1; i > 0; --i) std::swap(s[i], s[r.below(i + 1)]);
    return s;
  }

  // A non-overlapping window (sizes, strides, offset) inside a storage of
  // `numel` elements: a random dense layout with optional steps.
  bool window(int64_t numel, Shape* sizes, Shape* strides, int64_t* offset) {
    for (int tries = 0; tries < 8; ++tries) {
      const int rank = static_cast<int>(r.range(1, max_rank()));
      int64_t m = r.range(1, numel);
      if (r.chance(500)) {  // prefer a count with divisors
        std::vector<int64_t> good;
        for (int64_t k : kNumels)
          if (k <= numel && k >= 2) good.push_back(k);
        if (!good.empty()) m = r.pick(good);
      }
      *sizes = factor(m, rank);
      // layout order: a permutation of dims, innermost first
      std::vector<int> order(rank);
      for (int i = 0; i < rank; ++i) order[i] = rank - 1 - i;
      if (r.chance(350))
        for (int i = rank - 1; i > 0; --i) std::swap(order[i], order[r.below(i + 1)]);
      strides->assign(rank, 0);
      int64_t st = r.chance(200) ? 2 : 1;
      for (int i = 0; i < rank; ++i) {
        const int d = order[i];
        (*strides)[d] = st;
        st *= (*sizes)[d];
        if (r.chance(150)) st += 1;  // a gap
      }
      Geometry g{*sizes, *strides, 0};
      const int64_t need = ir::required_storage(g);
      if (need > numel) continue;
      *offset = r.range(0, numel - need);
      return true;
    }
    return false;
  }

  // ---- picking tensors ------------------------------------------------------

  bool writable(int v) const {
    const Geometry& g = geo(v);
    return g.numel() > 0 && ir::internal_overlap_status(g) != ir::Overlap::Yes && !ir::has_exact_internal_overlap(g);
  }

  int pick_any() {
    const int n = num_values();
    const int roll = static_cast<int>(r.below(100));
    if (roll < 35 && last_written_storage >= 0) {  // a sibling of the last write
      std::vector<int> sib;
      for (int v = 0; v < n; ++v)
        if (meta(v).storage == last_written_storage) sib.push_back(v);
      if (!sib.empty()) return r.pick(sib);
    }
    if (roll < 60) return static_cast<int>(r.range(std::max(0, n - 4), n - 1));
    return static_cast<int>(r.below(n));
  }

  template <class Pred>
  int pick_where(Pred pred, int tries = 6) {
    for (int t = 0; t < tries; ++t) {
      int v = pick_any();
      if (pred(v)) return v;
    }
    std::vector<int> ok;
    for (int v = 0; v < num_values(); ++v)
      if (pred(v)) ok.push_back(v);
    if (ok.empty()) return -1;
    return r.pick(ok);
  }

  int pick_target() {
    if (pending_target >= 0) {  // the follow-up write of a fresh alias or copy
      const int v = pending_target;
      pending_target = -1;
      if (writable(v)) return v;
    }
    const int roll = static_cast<int>(r.below(100));
    if (roll < 45 && !hot.empty()) {
      const int n = static_cast<int>(hot.size());
      int v = hot[r.range(std::max(0, n - 3), n - 1)];
      if (writable(v)) return v;
    }
    if (roll < 60) {  // an input, or a view of one
      int v = pick_where([&](int v) { return meta(v).storage < an.num_declared && writable(v); });
      if (v >= 0) return v;
    }
    return pick_where([&](int v) { return writable(v); });
  }

  bool broadcasts_to(const Shape& from, const Shape& to) const {
    Shape b;
    return ir::broadcast_shapes(to, from, &b) && b == to;
  }

  std::vector<float> values_of(int v) const { return oracles::gather(mem[meta(v).storage], geo(v)).v; }
  bool min_abs_at_least(int v, float m) const {
    for (float x : values_of(v))
      if (!(std::fabs(x) >= m)) return false;
    return true;
  }
  float max_of(int v) const {
    float mx = -INFINITY;
    for (float x : values_of(v)) mx = std::max(mx, x);
    return mx;
  }

  // A tensor whose shape broadcasts to `to` (rarely `avoid` itself), or -1.
  int pick_operand_for(const Shape& to, float min_abs = 0, int avoid = -1) {
    if (avoid >= 0 && r.chance(100)) avoid = -1;
    return pick_where([&](int v) {
      return v != avoid && geo(v).numel() > 0 && broadcasts_to(geo(v).sizes, to) &&
             (min_abs <= 0 || min_abs_at_least(v, min_abs));
    });
  }

  // ---- emitting -------------------------------------------------------------

  std::string fresh_name() { return "t" + std::to_string(num_stmt_values++); }

  bool bounded(const std::vector<float>& s) const {
    for (float x : s)
      if (!std::isfinite(x) || std::fabs(x) > o.value_bound) return false;
    return true;
  }

  // Checks a candidate with ir::infer, runs it on the oracle's memory and
  // keeps it only when valid and every value stays bounded. Returns the
  // number of outputs bound (>= 0) or -1 when rejected.
  int emit(OpKind op, std::vector<Arg> args, bool bind_inplace = false) {
    ir::Stmt st{op, {}, std::move(args), 0};
    auto res = ir::infer(op, ir::checked_args(st, an.values));
    if (!res) {
      ++invalid_rejected;
      return -1;
    }
    const auto& outs = *res;
    const bool inplace = ir::is_inplace(op);
    if (!inplace) {
      bool fits = !outs.empty() && outs.size() <= 4;
      for (const auto& om : outs)
        if (om.g.rank() > max_rank() || om.g.numel() > cap() || om.g.numel() == 0) fits = false;
      if (!fits) {
        ++invalid_rejected;
        return -1;
      }
    }
    const size_t nout = inplace ? (op == OpKind::SetitemI ? 0 : (bind_inplace ? 1 : 0)) : outs.size();
    const size_t nv = an.values.size(), ns = an.storage_numel.size();
    const int saved_impl = next_impl, saved_names = num_stmt_values;
    int written = -1;
    std::vector<float> saved;
    if (inplace) {
      written = meta(static_cast<int>(st.args[0].i)).storage;
      saved = mem[written];
    }
    int fresh_storage = -1;
    for (size_t k = 0; k < nout; ++k) {
      const ir::OutMeta& om = outs[k];
      ir::TensorMeta m;
      m.g = om.g;
      if (om.fresh) {
        m.storage = static_cast<int>(an.storage_numel.size());
        m.storage_numel = om.g.numel();
        an.storage_numel.push_back(m.storage_numel);
        fresh_storage = m.storage;
        m.impl = next_impl++;
      } else {
        const ir::TensorMeta src = an.values[st.args[om.source_arg].i];
        m.storage = src.storage;
        m.storage_numel = src.storage_numel;
        const bool self = inplace || ((op == OpKind::Contiguous || op == OpKind::Flatten) && om.g == src.g &&
                                      (op == OpKind::Contiguous || src.g.rank() == 1));
        m.impl = self ? src.impl : next_impl++;
      }
      an.values.push_back(m);
      st.outs.push_back(p.new_value(fresh_name()));
    }
    mem.resize(an.storage_numel.size());
    noise.resize(an.storage_numel.size());
    if (fresh_storage >= 0) noise[fresh_storage].assign(an.storage_numel[fresh_storage], 0.f);
    const NoiseCapture pre = o.guard_noise ? capture_operands(st, an, mem, noise, fresh_storage) : NoiseCapture();
    oracles::execute(st, an, mem);
    bool ok = inplace ? bounded(mem[written]) : (fresh_storage < 0 || bounded(mem[fresh_storage]));
    if (!ok) ++bound_exceeded;
    std::vector<float> out_noise;
    if (ok && pre.storage >= 0 && !written_noise(st, an, mem, pre, &out_noise)) {
      ok = false;
      ++noise_rejected;
    }
    if (ok && pre.storage >= 0) oracles::scatter(noise[pre.storage], pre.written, out_noise);
    if (!ok) {
      noise.resize(ns);
      an.values.resize(nv);
      an.storage_numel.resize(ns);
      mem.resize(ns);
      p.value_names.resize(nv);
      next_impl = saved_impl;
      num_stmt_values = saved_names;
      if (inplace) mem[written] = std::move(saved);
      return -1;
    }
    an.fresh_storage.push_back(fresh_storage);
    def_stmt.resize(an.values.size(), static_cast<int>(p.stmts.size()));
    storage_last_write.resize(an.storage_numel.size(), -1);
    if (inplace) storage_last_write[written] = static_cast<int>(p.stmts.size());
    if (inplace) {
      last_written_storage = written;
      last_written_value = static_cast<int>(st.args[0].i);
    }
    const int bound = static_cast<int>(st.outs.size());
    // Aliases and fresh copies become favourite targets of later writes.
    const auto cls = ir::op_info(op).cls;
    if (cls == ir::OpClass::View || cls == ir::OpClass::MayAlias || op == OpKind::Clone) {
      for (int v : st.outs) hot.push_back(v);
      // Sometimes write the new alias (or copy) right away: a mutated piece
      // of chunk/split/unbind, a mutated reshape result, clone then mutate.
      const bool interesting = ir::is_multi_output(op) || cls == ir::OpClass::MayAlias || op == OpKind::Clone;
      if (r.chance(interesting ? 450 : 150)) pending_target = r.pick(st.outs);
    }
    p.stmts.push_back(std::move(st));
    return bound;
  }

  // ---- one statement of a given op -------------------------------------------

  static Arg T(int v) { return Arg::tensor(v); }
  static Arg I(int64_t i) { return Arg::integer(i); }
  // A number argument; integral values are sometimes written as integers
  // (`add_(x, 2)`), which the format and PyTorch accept as well.
  Arg F(double f) {
    if (f == std::floor(f) && std::fabs(f) < 1e6 && r.chance(150)) return Arg::integer(static_cast<int64_t>(f));
    return Arg::number(f);
  }
  static Arg L(Shape s) { return Arg::ints(std::move(s)); }

  int64_t rand_dim(int rank) {  // a dim, sometimes negative
    int64_t d = r.below(rank);
    if (r.chance(200)) d -= rank;
    return d;
  }

  Arg scalar_or_tensor(const Shape& to, const double* scalars, size_t ns, float min_abs = 0, int avoid = -1) {
    if (!r.chance(450)) {
      int v = pick_operand_for(to, min_abs, avoid);
      if (v >= 0) return T(v);
    }
    return F(scalars[r.below(static_cast<int64_t>(ns))]);
  }

  bool try_op(OpKind op) {
    const int maxr = max_rank();
    // One recipe per GenRecipe (ir/ops.h); ops sharing a recipe differ only
    // in what the op itself does.
    using R = ir::GenRecipe;
    switch (ir::op_info(op).recipe) {
      case R::Reshape: {
        int x = pick_where([&](int v) { return geo(v).numel() > 0; });
        if (x < 0) return false;
        const int rank = static_cast<int>(r.range(1, maxr));
        Shape s = factor(geo(x).numel(), rank);
        if (r.chance(300)) s[r.below(rank)] = -1;
        if (emit(op, {T(x), L(s)}) >= 0) return true;
        // a view that is not expressible with strides: reshape copies instead
        return op == OpKind::View && enabled(OpKind::Reshape) && r.chance(500) && emit(OpKind::Reshape, {T(x), L(s)}) >= 0;
      }
      case R::Whole: {
        int x = pick_any();
        return emit(op, {T(x)}) >= 0;
      }
      case R::T: {
        int x = pick_where([&](int v) { return geo(v).rank() == 2; });
        if (x < 0) x = pick_where([&](int v) { return geo(v).rank() <= 2; });
        if (x < 0) return false;
        return emit(op, {T(x)}) >= 0;
      }
      case R::Transpose: {
        int x = pick_where([&](int v) { return geo(v).rank() >= 2; });
        if (x < 0) return false;
        const int rank = geo(x).rank();
        return emit(op, {T(x), I(rand_dim(rank)), I(rand_dim(rank))}) >= 0;
      }
      case R::Permute: {
        int x = pick_where([&](int v) { return geo(v).rank() >= 2; });
        if (x < 0) return false;
        const int rank = geo(x).rank();
        Shape perm(rank);
        for (int i = 0; i < rank; ++i) perm[i] = i;
        for (int i = rank - 1; i > 0; --i) std::swap(perm[i], perm[r.below(i + 1)]);
        if (r.chance(150)) perm[0] -= rank;
        return emit(op, {T(x), L(perm)}) >= 0;
      }
      case R::Slice: {
        int x = pick_where([&](int v) { return geo(v).rank() >= 1 && geo(v).numel() > 1; });
        if (x < 0) return false;
        const Geometry& g = geo(x);
        const int d = static_cast<int>(r.below(g.rank()));
        const int64_t n = g.sizes[d];
        const int64_t dim = r.chance(150) ? d - g.rank() : d;
        if (op == OpKind::Select) {
          int64_t i = r.below(n);
          if (r.chance(200)) i -= n;
          return emit(op, {T(x), I(dim), I(i)}) >= 0;
        }
        const int64_t start = r.below(n);
        const int64_t len = r.range(1, n - start);
        if (op == OpKind::Narrow) return emit(op, {T(x), I(dim), I(start), I(len)}) >= 0;
        int64_t end = start + len;
        if (end == n && r.chance(200)) end = n + r.range(1, 3);  // clamped like Python
        int64_t s0 = start;
        if (s0 > 0 && r.chance(150)) s0 -= n;                      // negative start
        const int64_t step = r.chance(250) ? r.range(2, 3) : 1;
        return emit(op, {T(x), I(dim), I(s0), I(end), I(step)}) >= 0;
      }
      case R::Unsqueeze: {
        int x = pick_where([&](int v) { return geo(v).rank() < maxr; });
        if (x < 0) return false;
        const int rank = geo(x).rank();
        return emit(op, {T(x), I(r.range(-(rank + 1), rank))}) >= 0;
      }
      case R::Squeeze: {
        int x = pick_where([&](int v) {
          for (auto s : geo(v).sizes)
            if (s == 1) return true;
          return false;
        });
        if (x < 0) x = pick_where([&](int v) { return geo(v).rank() >= 1; });
        if (x < 0) return false;
        const Geometry& g = geo(x);
        std::vector<int64_t> ones;
        for (int d = 0; d < g.rank(); ++d)
          if (g.sizes[d] == 1) ones.push_back(d);
        int64_t d = (!ones.empty() && r.chance(800)) ? r.pick(ones) : rand_dim(g.rank());
        return emit(op, {T(x), I(d)}) >= 0;
      }
      case R::Expand: {
        int x = pick_where([&](int v) {
          if (geo(v).rank() < maxr) return true;
          for (auto s : geo(v).sizes)
            if (s == 1) return true;
          return false;
        });
        if (x < 0) return false;
        const Geometry& g = geo(x);
        Shape s;
        if (g.rank() < maxr && (r.chance(500) || g.rank() == 0)) s.push_back(r.range(2, 3));
        // A 0-d tensor expands with all strides 0 in PyTorch; ir::infer
        // gives new size-1 dims a stride of 1, so only sizes >= 2 here.
        if (g.rank() == 0 && maxr >= 2 && r.chance(500)) s.push_back(r.range(2, 3));
        for (int d = 0; d < g.rank(); ++d) {
          int64_t t = g.sizes[d];
          if (t == 1 && r.chance(700)) t = r.range(2, 4);
          else if (r.chance(300)) t = -1;
          s.push_back(t);
        }
        return emit(op, {T(x), L(s)}) >= 0;
      }
      case R::Diagonal: {
        int x = pick_where([&](int v) { return geo(v).rank() >= 2; });
        if (x < 0) return false;
        const int rank = geo(x).rank();
        int64_t d0 = r.below(rank), d1 = r.below(rank - 1);
        if (d1 >= d0) ++d1;
        return emit(op, {T(x), I(r.range(-1, 1)), I(d0), I(d1)}) >= 0;
      }
      case R::AsStrided: {
        int x = pick_any();
        const int64_t sn = meta(x).storage_numel;
        Shape sz, st;
        int64_t off;
        if (sn >= 4 && maxr >= 2 && r.chance(120)) {
          // an overlapping window (sliding rows, or a broadcast row): fine to
          // read, to fill_ and zero_; other writes are refused by ir::infer
          const int64_t b = r.range(2, std::min<int64_t>(sn, 4));
          const int64_t a = r.range(2, 3);
          const int64_t step = r.below(b);  // 0: every row the same elements
          sz = {a, b};
          st = {step, 1};
          const int64_t need = ir::required_storage(Geometry{sz, st, 0});
          if (need > sn) return false;
          off = r.range(0, sn - need);
        } else if (!window(sn, &sz, &st, &off)) {
          return false;
        }
        return emit(op, {T(x), L(sz), L(st), I(off)}) >= 0;
      }
      case R::Split: {
        int x = pick_where([&](int v) {
          for (auto s : geo(v).sizes)
            if (s >= 2 && s <= (op == OpKind::Unbind ? 4 : 8)) return true;
          return false;
        });
        if (x < 0) return false;
        const Geometry& g = geo(x);
        std::vector<int64_t> dims;
        for (int d = 0; d < g.rank(); ++d)
          if (g.sizes[d] >= 2 && g.sizes[d] <= (op == OpKind::Unbind ? 4 : 8)) dims.push_back(d);
        const int64_t d = r.pick(dims);
        const int64_t n = g.sizes[d];
        const int64_t dim = r.chance(150) ? d - g.rank() : d;
        if (op == OpKind::Unbind) return emit(op, {T(x), I(dim)}) >= 0;
        if (op == OpKind::Chunk) return emit(op, {T(x), I(r.range(2, std::min<int64_t>(n, 4))), I(dim)}) >= 0;
        const int64_t lo = (n + 3) / 4;
        return emit(op, {T(x), I(r.range(std::max<int64_t>(lo, 1), n - 1)), I(dim)}) >= 0;
      }
      // ---- in-place ----
      case R::InPlaceBinary: {
        int x = pick_target();
        if (x < 0) return false;
        const Shape to = geo(x).sizes;
        Arg y = op == OpKind::DivI   ? scalar_or_tensor(to, kDivScalars, std::size(kDivScalars), 0.5f, x)
                : op == OpKind::MulI ? scalar_or_tensor(to, kMulScalars, std::size(kMulScalars), 0, x)
                                     : scalar_or_tensor(to, kSmall, std::size(kSmall), 0, x);
        if (y.kind == Arg::Tensor && r.chance(100) && op != OpKind::DivI) y = T(x);  // x op= x
        return emit(op, {T(x), y}, r.chance(150)) >= 0;
      }
      case R::InPlaceUnary: {
        int x = op == OpKind::ZeroI && r.chance(200) ? pick_any() : pick_target();
        if (x < 0) return false;
        if (op == OpKind::ExpI && !(max_of(x) <= 4.0f)) return false;
        return emit(op, {T(x)}, r.chance(150)) >= 0;
      }
      case R::Clamp: {
        int x = pick_target();
        if (x < 0) return false;
        const double lo = r.pick(kSmall) - 1.0;
        const double hi = lo + r.range(1, 6) * 0.5;
        // (arguments built before the call: the order of evaluation of a
        // call's arguments is unspecified, and each draws random numbers)
        std::vector<Arg> args{T(x), F(lo), F(hi)};
        return emit(op, std::move(args), r.chance(150)) >= 0;
      }
      case R::Fill: {
        int x = r.chance(300) ? pick_any() : pick_target();  // fill_ may write an expanded tensor
        if (x < 0) return false;
        std::vector<Arg> args{T(x), F(r.pick(kFill))};
        return emit(op, std::move(args), r.chance(150)) >= 0;
      }
      case R::Copy: {
        int x = pending_target < 0 && r.chance(400)
                    ? pick_where([&](int v) { return v < static_cast<int>(p.inputs.size()) && writable(v); })
                    : pick_target();
        if (x < 0) x = pick_target();
        if (x < 0) return false;
        int y = pick_operand_for(geo(x).sizes, 0, x);
        if (y < 0) return false;
        return emit(op, {T(x), T(y)}, r.chance(150)) >= 0;
      }
      case R::Setitem: {
        int x = pick_target();
        if (x < 0 || geo(x).rank() < 1) x = pick_where([&](int v) { return geo(v).rank() >= 1 && writable(v); });
        if (x < 0) return false;
        const Geometry& g = geo(x);
        const int d = static_cast<int>(r.below(g.rank()));
        const int64_t n = g.sizes[d];
        const int64_t start = r.below(n), end = r.range(start + 1, n);
        Shape dst = g.sizes;
        dst[d] = end - start;
        Arg v = F(r.pick(kFill));
        if (r.chance(700)) {
          int y = pick_operand_for(dst);
          // PyTorch strips the value's leading 1s: a value of all-1 sizes
          // becomes 0-d and expands with all strides 0, and its overlap
          // check then differs from ir::infer's (which keeps stride 1 for
          // size-1 dims; reported). Avoid that case when it shares memory.
          if (y >= 0 && geo(y).rank() >= 1 && geo(y).numel() == 1 && meta(y).storage == meta(x).storage) y = -1;
          if (y >= 0) v = T(y);
        }
        return emit(op, {T(x), I(r.chance(150) ? d - g.rank() : d), I(start), I(end), v}) >= 0;
      }
      // ---- out of place ----
      case R::Binary: {
        int a = pick_any();
        Arg b = F(op == OpKind::Div ? r.pick(kDivScalars) : op == OpKind::Mul ? r.pick(kMulScalars) : r.pick(kSmall));
        if (!r.chance(350)) {
          const Shape& sa = geo(a).sizes;
          int y = pick_where([&](int v) {
            Shape out;
            return geo(v).numel() > 0 && ir::broadcast_shapes(sa, geo(v).sizes, &out) && ir::numel_of(out) <= cap() &&
                   static_cast<int>(out.size()) <= maxr && (op != OpKind::Div || min_abs_at_least(v, 0.5f));
          });
          if (y >= 0) b = T(y);
        }
        return emit(op, {T(a), b}) >= 0;
      }
      case R::Unary: {
        int a = pick_any();
        if (op == OpKind::Exp && !(max_of(a) <= 4.0f)) return false;
        return emit(op, {T(a)}) >= 0;
      }
      case R::Reduce: {
        int a = pick_where([&](int v) { return geo(v).rank() >= 1; });
        if (a < 0) a = pick_any();
        const int rank = std::max(1, geo(a).rank());
        if (op == OpKind::Softmax) return emit(op, {T(a), I(rand_dim(rank))}) >= 0;
        return emit(op, {T(a), I(rand_dim(rank)), I(r.below(2))}) >= 0;
      }
      case R::Matmul: {
        int a = pick_where([&](int v) { return geo(v).rank() == 2; });
        if (a < 0) return false;
        const int64_t k = geo(a).sizes[1];
        int b = pick_where([&](int v) { return geo(v).rank() == 2 && geo(v).sizes[0] == k && geo(a).sizes[0] * geo(v).sizes[1] <= cap(); });
        if (b < 0) {  // multiply by its own transpose
          if (!enabled(OpKind::T) || geo(a).sizes[0] * geo(a).sizes[0] > cap()) return false;
          const int nb = emit(OpKind::T, {T(a)});
          if (nb < 1) return false;
          b = p.stmts.back().outs[0];
        }
        return emit(op, {T(a), T(b)}) >= 0;
      }
      case R::Cat: {
        int a = pick_where([&](int v) { return geo(v).rank() >= 1 && geo(v).numel() > 0; });
        if (a < 0) return false;
        const Geometry& g = geo(a);
        const int d = static_cast<int>(r.below(g.rank()));
        std::vector<int64_t> parts{a};
        const int want = static_cast<int>(r.range(1, 2));
        for (int i = 0; i < want; ++i) {
          int b = pick_where([&](int v) {
            const Shape& s = geo(v).sizes;
            if (static_cast<int>(s.size()) != g.rank() || s[d] == 0) return false;
            for (int k = 0; k < g.rank(); ++k)
              if (k != d && s[k] != g.sizes[k]) return false;
            return true;
          });
          if (b >= 0) parts.push_back(b);
        }
        if (parts.size() < 2) parts.push_back(a);
        return emit(op, {Arg::tensors(parts), I(r.chance(150) ? d - g.rank() : d)}) >= 0;
      }
      case R::Full: {
        const int rank = static_cast<int>(r.range(0, maxr));
        Shape s = factor(rank == 0 ? 1 : r.range(1, std::min<int64_t>(cap(), 16)), rank);
        return emit(op, {L(s), F(r.pick(kFill))}) >= 0;
      }
      case R::NotGenerated:
        return false;
    }
    return false;
  }

  OpKind choose_op() {
    const bool only_inplace = pending_target >= 0 && inplace_weight > 0;
    int64_t x = r.below(std::max(only_inplace ? inplace_weight : total_weight, 1));
    for (size_t i = 0; i < weights.size(); ++i) {
      if (only_inplace && !ir::is_inplace(generated_ops()[i])) continue;
      if (x < weights[i]) return generated_ops()[i];
      x -= weights[i];
    }
    return OpKind::Clone;
  }

  // ---- storages and inputs ---------------------------------------------------

  void make_storages_and_inputs() {
    const int ns = static_cast<int>(r.range(1, std::max(1, o.max_storages)));
    for (int s = 0; s < ns; ++s) {
      ir::StorageDecl d;
      d.name = "s" + std::to_string(s);
      std::vector<int64_t> ok;
      for (int64_t k : kNumels)
        if (k <= cap() && k >= 2) ok.push_back(k);
      d.numel = ok.empty() ? cap() : r.pick(ok);
      if (cap() > 64) d.numel = std::min(cap(), d.numel * r.range(1, cap() / 64));  // larger programs
      const int kind = static_cast<int>(r.below(10));
      if (kind < 5) {
        d.init = ir::InitKind::Random;
        d.seed = r.next() >> 40;
      } else if (kind < 8) {
        d.init = ir::InitKind::Iota;
        d.a = static_cast<double>(r.range(-8, 8)) * 0.25;
        const double steps[] = {0.25, 0.5, -0.25, 0.125, 1.0, -0.5};
        d.b = r.pick(steps);
      } else if (kind < 9) {
        d.init = ir::InitKind::Full;
        d.a = r.pick(kSmall);
      } else {
        d.init = ir::InitKind::List;
        for (int64_t i = 0; i < d.numel; ++i) d.values.push_back(static_cast<float>(r.range(-16, 16)) * 0.25f);
      }
      p.storages.push_back(std::move(d));
      an.storage_numel.push_back(p.storages.back().numel);
    }
    an.num_declared = ns;
    // Inputs: every storage gets one; some get more (aliased inputs).
    int budget = std::max(ns, o.max_inputs);
    for (int s = 0; s < ns; ++s) {
      int count = 1;
      const int roll = static_cast<int>(r.below(100));
      if (roll < 40) count = 2;
      else if (roll < 55) count = 3;
      count = std::max(1, std::min(count, budget - (ns - s - 1)));
      budget -= count;
      const int64_t n = p.storages[s].numel;
      const bool disjoint = count >= 2 && n >= 4 && r.chance(300);
      int first = -1;
      for (int c = 0; c < count; ++c) {
        ir::InputDecl in;
        in.name = "x" + std::to_string(p.inputs.size());
        in.storage = s;
        const int mode = static_cast<int>(r.below(100));
        if (c > 0 && mode < 20 && !p.inputs[first].whole) {
          // identical window, a different tensor object
          in.whole = false;
          in.sizes = p.inputs[first].sizes;
          in.strides = p.inputs[first].strides;
          in.offset = p.inputs[first].offset;
        } else if (!disjoint && mode < 45) {
          in.whole = true;
        } else {
          in.whole = false;
          int64_t lo = 0, len = n;
          if (disjoint) {  // windows in disjoint ranges of the storage
            len = n / count;
            lo = c * len;
          }
          Shape sz, st;
          int64_t off;
          if (!window(len, &sz, &st, &off)) {
            sz = {len};
            st = {1};
            off = 0;
          }
          in.sizes = sz;
          in.strides = st;
          in.offset = lo + off;
        }
        ir::TensorMeta m;
        m.storage = s;
        m.storage_numel = n;
        m.impl = next_impl++;
        m.g = in.whole ? Geometry{{n}, {1}, 0} : Geometry{in.sizes, in.strides, in.offset};
        an.values.push_back(m);
        p.new_value(in.name);
        if (first < 0) first = static_cast<int>(p.inputs.size());
        p.inputs.push_back(std::move(in));
      }
    }
    mem.resize(ns);
    noise.resize(ns);
    for (int s = 0; s < ns; ++s) {
      mem[s] = ir::initial_values(p.storages[s]);
      noise[s].assign(mem[s].size(), 0.f);  // declared values are exact
    }
    def_stmt.assign(an.values.size(), -1);
    storage_last_write.assign(ns, -1);
  }

  void make_return() {
    const int n = num_values();
    std::vector<int> ret;
    auto add = [&](int v) {
      if (v >= 0 && v < n && std::find(ret.begin(), ret.end(), v) == ret.end()) ret.push_back(v);
    };
    const int want = static_cast<int>(r.range(1, std::max(1, o.max_returns)));
    // the last result, a tensor on the last written storage, then any
    if (!p.stmts.empty() && !p.stmts.back().outs.empty()) add(p.stmts.back().outs[0]);
    if (last_written_value >= 0 && r.chance(700)) add(last_written_value);
    if (r.chance(600)) {  // a view created before a later write to its storage
      std::vector<int> stale;
      for (int v = 0; v < n; ++v)
        if (storage_last_write[meta(v).storage] > def_stmt[v]) stale.push_back(v);
      if (!stale.empty()) add(r.pick(stale));
    }
    for (int t = 0; t < 4 * want && static_cast<int>(ret.size()) < want; ++t) add(pick_any());
    p.returns = ret;
    p.has_return = true;
  }

  void run() {
    make_storages_and_inputs();
    int failures = 0;
    while (static_cast<int>(p.stmts.size()) < o.size && failures < 40 + 4 * o.size) {
      const bool follow_up = pending_target >= 0;
      if (!try_op(choose_op())) ++failures;
      if (follow_up) pending_target = -1;  // one try at the follow-up write
    }
    make_return();
  }
};

}  // namespace

// The ops the generator draws, in table order (ir/ops.h: a recipe other
// than NotGenerated); their default weights come from the table too.
const std::vector<ir::OpKind>& generated_ops() {
  static const std::vector<ir::OpKind> v = [] {
    std::vector<ir::OpKind> r;
    for (ir::OpKind k : ir::all_ops())
      if (ir::op_info(k).recipe != ir::GenRecipe::NotGenerated) r.push_back(k);
    return r;
  }();
  return v;
}

ir::Program generate(uint64_t seed, uint64_t index, const GenOptions& opts) {
  return generate(seed, index, opts, nullptr);
}

namespace {
// Stay inside the format's default limits (ir::Limits).
GenOptions clamp_options(const GenOptions& opts) {
  GenOptions options = opts;
  options.size = std::max(0, std::min(options.size, 9000));
  options.max_rank = std::max(1, std::min(options.max_rank, 6));
  options.max_numel = std::max<int64_t>(1, std::min<int64_t>(options.max_numel, int64_t{1} << 16));
  return options;
}
}  // namespace

ir::Program generate_from_bytes(const uint8_t* data, size_t size, const GenOptions& opts) {
  const GenOptions options = clamp_options(opts);
  // The fallback stream depends on the bytes, so inputs that run out early still differ.
  const uint64_t h = ir::fnv1a(data, size);
  for (uint64_t attempt = 0;; ++attempt) {
    Gen g(h, attempt, options);
    g.r.use_bytes(data, size);
    g.run();
    if (!options.verify || attempt >= 16 || ir::analyze(g.p)) return std::move(g.p);
  }
}

ir::Program generate(uint64_t seed, uint64_t index, const GenOptions& opts, GenStats* stats) {
  const GenOptions options = clamp_options(opts);
  // The sub-seed `attempt` only changes if verification ever fails, which
  // the incremental checks are meant to rule out.
  for (uint64_t attempt = 0;; ++attempt) {
    Gen g(seed + attempt * 0x632BE59BD9B4E019ULL, index, options);
    g.run();
    if (stats) {
      stats->rejected_invalid += g.invalid_rejected;
      stats->rejected_bound += g.bound_exceeded;
      stats->rejected_noise += g.noise_rejected;
    }
    if (options.verify && attempt < 16 && !ir::analyze(g.p)) {
      if (stats) ++stats->regenerated;
      continue;
    }
    if (stats) {
      ++stats->programs;
      stats->statements += static_cast<int64_t>(g.p.stmts.size());
    }
    return std::move(g.p);
  }
}

}  // namespace af::fuzz
