// Strategy `functionalize` (PyTorch's FunctionalTensorWrapper /
// FunctionalStorageImpl, done as a program rewrite).
//
// Each storage has a base: a 1-D tensor over the whole storage in storage
// order, and a generation counter. Every value records its view chain from
// that base (slice, select, diagonal, transpose, permute, unsqueeze,
// squeeze, view/reshape, alias; expand and as_strided become one
// as_strided step from the base, absolute in the storage). Then:
//   - an in-place op on view v becomes an out-of-place op computing the new
//     value N of v, followed by the inverse of every step of v's chain,
//     innermost first (slice_scatter, select_scatter, diagonal_scatter,
//     as_strided_scatter, inverse transpose/permute, squeeze <-> unsqueeze,
//     reshape back), producing the new base; the generation increments;
//   - a read of a value whose generation is stale first regenerates it by
//     replaying its chain on the current base;
//   - at the end each mutated declared storage gets one write-back
//     `copy_(base0, base)`; the pipeline orders every read of that storage
//     before it (writeback_edges).
// Inputs that share a storage are views of one base, so aliased inputs are
// handled. Ops without an out-of-place form (clamp_, clamp_tensor_,
// addcmul_, addcdiv_, lerp_, and format v1.2's indexed writes) run in place
// on a private clone, which is still pure dataflow; out= ops become their
// functional op on the operands. Format v1.3's metadata ops arrive as the
// views they mirror (views_for_metadata_ops); what PyTorch's
// functionalization adds for an input (replaying its new geometry on the
// caller's tensor after the graph) is the pipeline's epilogue
// (replay_input_metadata, input_metadata.cc), the same for every strategy.
//
// Mutants: fn-per-input-base (each input gets its own base, as if inputs
// never aliased); fn-no-regenerate (stale views are read as they were).
#include <algorithm>

#include "schedulers/passes.h"

namespace af::schedulers {

using ir::Arg;
using ir::OpKind;
using ir::Shape;
using VK = ir::ViewKind;

namespace {

// Longest view chain replayed step by step (see view_op).
constexpr size_t kMaxReplay = 16;

struct Step {
  OpKind op;  // View, Transpose, Permute, Slice, Select, Unsqueeze, Squeeze, Diagonal, AsStrided, ViewDtype, Alias
  std::vector<Arg> args;                // the non-tensor arguments of the view op
  Shape in_sizes;                       // sizes of the tensor the step applies to
  ir::Dtype in_dtype = ir::Dtype::F32;  // its dtype (a dtype view's inverse views back to it)
};

struct Val {
  int key = -1;             // base (storage) this value lives in
  std::vector<Step> chain;  // from the base
  int cur = -1;             // new-program value holding its current value
  int gen = 0;              // generation cur corresponds to
  bool overlap = false;     // this value or a view it derives from has internal overlap
};

struct Base {
  int64_t numel = 0;
  int storage = -1;  // storage id (analysis numbering)
  bool declared = false;
  int origin = -1;            // new-program value on the storage at generation 0
  bool origin_whole = false;  // origin is the whole storage, 1-D contiguous
  // Fresh storages: how the origin's value lies in the storage in the source
  // (0 whole, 1 contiguous: a view of the base, 2 dense strided: geometry g).
  int layout = 0;
  ir::Geometry g;
  int root0 = -1;  // generation-0 base (a view of the storage)
  int root = -1;   // current base
  int gen = 0;
  // A declared storage's dtype, or a fresh result's (format v1.5: an i32
  // value's base is i32; its f32 views are a ViewDtype step away).
  ir::Dtype dtype = ir::Dtype::F32;
};

class Functionalize {
 public:
  Functionalize(const ir::Program& p, const ir::Analysis& an, run::Mutant mutant, bool an_exact)
      : p_(p),
        an_(an),
        b_(p, an_exact ? &an : nullptr),
        per_input_(mutant == run::Mutant::FnPerInputBase),
        no_regen_(mutant == run::Mutant::FnNoRegenerate) {}

  Transformed run() {
    vals_.resize(p_.num_values());
    std::vector<int> base_of_storage(an_.storage_numel.size(), -1);
    for (size_t k = 0; k < p_.inputs.size(); ++k) {
      const auto& in = p_.inputs[k];
      int key = per_input_ ? -1 : base_of_storage[in.storage];
      if (key < 0) {
        key = new_base(in.storage, true, static_cast<int>(k), in.whole, p_.storages[in.storage].dtype);
        if (!per_input_) base_of_storage[in.storage] = key;
      } else if (in.whole && !bases_[key].origin_whole) {
        bases_[key].origin = static_cast<int>(k);
        bases_[key].origin_whole = true;
      }
      Val& v = vals_[k];
      v.key = key;
      v.cur = static_cast<int>(k);
      v.overlap = ir::has_exact_internal_overlap(an_.values[k].g);
      if (!in.whole)
        v.chain.push_back(Step{OpKind::AsStrided,
                               {Arg::ints(in.sizes), Arg::ints(in.strides), Arg::integer(in.offset)},
                               {bases_[key].numel}});
    }
    for (size_t k = 0; k < p_.stmts.size(); ++k) {
      b_.set_source(static_cast<int>(k));
      stmt(p_.stmts[k]);
    }
    b_.set_source(-1);
    // Returns read the current values. A returned value that still views the
    // memory of a storage about to be written back (e.g. the source of a
    // copy_ taken as the new value) is cloned first: returns are read after
    // the write-backs.
    std::vector<bool> written(an_.storage_numel.size(), false);
    for (const Base& bs : bases_)
      if (bs.declared && bs.gen > 0) written[bs.storage] = true;
    for (int r : p_.returns) {
      int c = current(r, p_.return_line);
      const int st = b_.meta(c).storage;
      if (st >= 0 && st < static_cast<int>(written.size()) && written[st])
        c = b_.emit1(OpKind::Clone, name_of(r), {Arg::tensor(c)}, p_.return_line, true);
      b_.program().returns.push_back(c);
    }
    b_.program().has_return = p_.has_return;
    b_.program().return_line = p_.return_line;
    // One write-back per mutated declared storage (per base).
    Transformed t;
    for (size_t k = 0; k < bases_.size(); ++k) {
      Base& bs = bases_[k];
      if (!bs.declared || bs.gen == 0) continue;
      int j = b_.emit(OpKind::CopyI, {}, {Arg::tensor(bs.root0), Arg::tensor(bs.root)}, p_.return_line, true);
      t.writebacks.push_back({j, bs.storage});
    }
    if (b_.failed())
      t.error = b_.error();
    else
      t.analysis = std::make_shared<const ir::Analysis>(b_.analysis(an_.num_declared));
    t.program = std::move(b_.program());
    t.added_node = std::move(b_.added());
    t.origin = std::move(b_.origin());
    return t;
  }

 private:
  int new_base(int storage, bool declared, int origin, bool whole, ir::Dtype dtype) {
    Base bs;
    // In the base dtype's elements: a fresh i64 or f64 result's storage
    // (format v1.5: i64 and f64 data) holds two memory words an element.
    bs.numel = an_.storage_numel[storage] / (!declared && ir::element_size(dtype) == 8 ? 2 : 1);
    bs.storage = storage;
    bs.declared = declared;
    bs.origin = origin;
    bs.origin_whole = whole;
    bs.dtype = dtype;
    bases_.push_back(bs);
    return static_cast<int>(bases_.size()) - 1;
  }

  std::string name_of(int v) const { return p_.value_names[v]; }

  // The current base of a key (creating the generation-0 base lazily).
  // The base is canonical: 1-D, contiguous, offset 0, over a storage of
  // exactly its size, so that absolute as_strided steps index it like the
  // source storage.
  int root(int key, int line) {
    Base& bs = bases_[key];
    if (bs.root >= 0) return bs.root;
    const std::string bname = bs.declared ? p_.storages[bs.storage].name : "base";
    if (bs.declared) {
      bs.root0 =
          bs.origin_whole
              ? bs.origin
              : b_.emit1(OpKind::AsStrided, bname,
                         {Arg::tensor(bs.origin), Arg::ints({bs.numel}), Arg::ints({1}), Arg::integer(0)}, line, true);
    } else if (bs.layout == 2) {
      // The source value lay strided in its storage: scatter it into a
      // fresh base at that geometry (it is dense, so it covers the base).
      const int64_t words = bs.numel * ir::element_size(bs.dtype) / 4;  // (i64, f64 data: f32 pairs viewed)
      int z = b_.emit1(OpKind::Full, bname, {Arg::ints({words}), Arg::number(0.0)}, line, true);
      if (bs.dtype != ir::Dtype::F32) z = as_dtype(z, bs.dtype, bname, line);
      bs.root0 = b_.emit1(OpKind::AsStridedScatter, bname,
                          {Arg::tensor(z), Arg::tensor(bs.origin), Arg::ints(bs.g.sizes), Arg::ints(bs.g.strides),
                           Arg::integer(bs.g.offset)},
                          line, true);
    } else {
      // Logical order is storage order: flatten (the value may lie
      // differently in the new program than in the source).
      int r = bs.origin;
      if (bs.layout == 1) r = b_.emit1(OpKind::Reshape, bname, {Arg::tensor(r), Arg::ints({bs.numel})}, line, true);
      if (!canonical_base(r, bs.numel)) r = b_.emit1(OpKind::Clone, bname, {Arg::tensor(r)}, line, true);
      bs.root0 = r;
    }
    bs.root = bs.root0;
    return bs.root;
  }

  // A tensor of `sizes` holding the number `value` in `dtype`: full; for
  // i32 (format v1.5) zeros viewed as i32 plus the integer, as no f32 full
  // holds an integer's bits; for i64 and f64 data the zeros are f32 pairs
  // (sizes + [2]) viewed as i64 or f64 ([1] last) and squeezed; f64's
  // number is filled in (0.0 + -0.0 would lose the sign).
  int constant(const Shape& sizes, const Arg& value, ir::Dtype dtype, const std::string& name, int line, bool added) {
    if (dtype == ir::Dtype::F32) return b_.emit1(OpKind::Full, name, {Arg::ints(sizes), value}, line, added);
    const bool wide = ir::element_size(dtype) == 8;
    Shape f32_sizes = sizes;
    if (wide) f32_sizes.push_back(2);
    int zeros =
        as_dtype(b_.emit1(OpKind::Full, name, {Arg::ints(f32_sizes), Arg::number(0.0)}, line, true), dtype, name, line);
    if (wide) zeros = b_.emit1(OpKind::Squeeze, name, {Arg::tensor(zeros), Arg::integer(-1)}, line, true);
    if (dtype == ir::Dtype::F64) {
      const int w = b_.value(name, false);
      b_.emit(OpKind::FillI, {w}, {Arg::tensor(zeros), Arg::number(value.as_double())}, line, added);
      return w;
    }
    const Arg integer = Arg::integer(static_cast<int64_t>(value.as_double()));  // (analysis made it one)
    return b_.emit1(OpKind::Add, name, {Arg::tensor(zeros), integer}, line, added);
  }

  // x's values in a fresh tensor of contiguous strides (an in-place copy_
  // into a constant, its result bound so the dataflow carries it).
  int dense_copy(int x, const std::string& name, int line) {
    const ir::TensorMeta& m = b_.meta(x);
    const int z = constant(m.g.sizes, Arg::integer(0), m.dtype, name, line, true);
    const int w = b_.value(name, false);
    b_.emit(OpKind::CopyI, {w}, {Arg::tensor(z), Arg::tensor(x)}, line, true);
    return w;
  }

  // The steps from base bs, absolute, to a view of geometry g in dtype d:
  // as_strided in the base's dtype, then the dtype view; where the element
  // size changes (format v1.5's i64 data) the dtype view of the whole base
  // comes first (an f32 base of an odd length cut to an even one), then
  // as_strided in d's elements.
  std::vector<Step> absolute_steps(const Base& bs, const ir::Geometry& g, ir::Dtype d) const {
    const std::vector<Arg> at{Arg::ints(g.sizes), Arg::ints(g.strides), Arg::integer(g.offset)};
    const Arg to = Arg::integer(static_cast<int64_t>(d));
    if (ir::element_size(d) == ir::element_size(bs.dtype)) {
      std::vector<Step> s{Step{OpKind::AsStrided, at, {bs.numel}, bs.dtype}};
      if (d != bs.dtype) s.push_back(Step{OpKind::ViewDtype, {to}, g.sizes, bs.dtype});
      return s;
    }
    std::vector<Step> s;
    int64_t n = bs.numel;
    if (ir::element_size(d) > ir::element_size(bs.dtype) && n % 2 != 0) {
      s.push_back(Step{OpKind::AsStrided, {Arg::ints({n - 1}), Arg::ints({1}), Arg::integer(0)}, {n}, bs.dtype});
      --n;
    }
    s.push_back(Step{OpKind::ViewDtype, {to}, {n}, bs.dtype});
    s.push_back(Step{OpKind::AsStrided, at, {n * ir::element_size(bs.dtype) / ir::element_size(d)}, d});
    return s;
  }

  // x viewed as dtype (format v1.5), or x itself when it has it.
  int as_dtype(int x, ir::Dtype dtype, const std::string& name, int line) {
    if (b_.meta(x).dtype == dtype) return x;
    return b_.emit1(OpKind::ViewDtype, name, {Arg::tensor(x), Arg::integer(static_cast<int64_t>(dtype))}, line, true);
  }

  // Applies one chain step to new-program value x.
  int apply(const Step& s, int x, const std::string& base, int line) {
    std::vector<Arg> args{Arg::tensor(x)};
    args.insert(args.end(), s.args.begin(), s.args.end());
    if (s.op == OpKind::Alias) return x;
    return b_.emit1(s.op, base, std::move(args), line, true);
  }

  // Replays v's chain on the current base.
  int regenerate(int v, int line) {
    Val& val = vals_[v];
    int x = root(val.key, line);
    for (const auto& s : val.chain) x = apply(s, x, name_of(v), line);
    return x;
  }

  // The new-program value holding v's current value (regenerating it when stale).
  int current(int v, int line) {
    Val& val = vals_[v];
    if (val.gen == bases_[val.key].gen || no_regen_) return val.cur;
    val.cur = regenerate(v, line);
    val.gen = bases_[val.key].gen;
    return val.cur;
  }

  bool canonical_base(int x, int64_t numel) {
    const auto& m = b_.meta(x);
    // ... and never a view of a declared storage's memory, which the
    // write-backs overwrite (a copy_'s source taken as the new value).
    return m.g.rank() == 1 && m.g.sizes[0] == numel && m.g.offset == 0 && (numel <= 1 || m.g.strides[0] == 1) &&
           m.storage_numel == numel && m.storage >= an_.num_declared;
  }

  // Writes new value n of v (source value) back into v's base.
  void write(int v, int n, int line) {
    Val& val = vals_[v];
    Base& bs = bases_[val.key];
    const int k = static_cast<int>(val.chain.size());
    // Levels of the current base: lv[i] is the value after i steps.
    std::vector<int> lv(k, -1);
    int x = root(val.key, line);
    int deepest = -1;
    for (int i = 0; i < k; ++i) {
      OpKind op = val.chain[i].op;
      if (op == OpKind::Slice || op == OpKind::Select || op == OpKind::Diagonal || op == OpKind::AsStrided) deepest = i;
    }
    for (int i = 0; i <= deepest; ++i) {
      lv[i] = x;
      if (i < deepest) x = apply(val.chain[i], x, "lvl", line);
    }
    int m = n;
    const std::string bname = bs.declared ? p_.storages[bs.storage].name : "base";
    for (int i = k - 1; i >= 0; --i) {
      const Step& s = val.chain[i];
      std::vector<Arg> a;
      switch (ir::view_kind(s.op)) {
        case VK::View:
          m = b_.emit1(OpKind::Reshape, name_of(v) + "_inv", {Arg::tensor(m), Arg::ints(s.in_sizes)}, line, true);
          break;
        case VK::Transpose:
          m = b_.emit1(OpKind::Transpose, name_of(v) + "_inv", {Arg::tensor(m), s.args[0], s.args[1]}, line, true);
          break;
        case VK::Permute: {
          const auto& d = s.args[0].list;
          std::vector<int64_t> inv(d.size());
          for (size_t q = 0; q < d.size(); ++q) inv[*ir::wrap_dim(d[q], d.size())] = static_cast<int64_t>(q);
          m = b_.emit1(OpKind::Permute, name_of(v) + "_inv", {Arg::tensor(m), Arg::ints(inv)}, line, true);
          break;
        }
        case VK::Unsqueeze:
          m = b_.emit1(OpKind::Squeeze, name_of(v) + "_inv", {Arg::tensor(m), s.args[0]}, line, true);
          break;
        case VK::Squeeze:
          m = b_.emit1(OpKind::Unsqueeze, name_of(v) + "_inv", {Arg::tensor(m), s.args[0]}, line, true);
          break;
        case VK::ViewDtype:  // back to the dtype the step viewed
          // Splitting or joining i64 elements needs a dense last dim (and
          // whole offsets and strides); a new value need not have one (an
          // expand's broadcast, a slice at an odd offset): copied first.
          if (!ir::view_dtype_geometry(b_.meta(m), s.in_dtype).ok()) m = dense_copy(m, name_of(v) + "_inv", line);
          m = as_dtype(m, s.in_dtype, name_of(v) + "_inv", line);
          break;
        case VK::Slice:
        case VK::Select:
        case VK::Diagonal:
        case VK::AsStrided: {
          OpKind sc = s.op == OpKind::Slice      ? OpKind::SliceScatter
                      : s.op == OpKind::Select   ? OpKind::SelectScatter
                      : s.op == OpKind::Diagonal ? OpKind::DiagonalScatter
                                                 : OpKind::AsStridedScatter;
          a = {Arg::tensor(lv[i]), Arg::tensor(m)};
          a.insert(a.end(), s.args.begin(), s.args.end());
          m = b_.emit1(sc, i == 0 ? bname : name_of(v) + "_inv", std::move(a), line, true);
          break;
        }
        case VK::Alias: break;
        // step_of makes these the steps above (or one as_strided step).
        case VK::Reshape:
        case VK::Flatten:
        case VK::Contiguous:
        case VK::T:
        case VK::Narrow:
        case VK::Expand:
        case VK::Chunk:
        case VK::Split:
        case VK::Unbind:
        case VK::Unfold:
        case VK::None: break;
      }
    }
    if (!canonical_base(m, bs.numel)) m = b_.emit1(OpKind::Clone, bname, {Arg::tensor(m)}, line, true);
    bs.root = m;
    bs.gen++;
  }

  // A write through a view whose elements overlap (PyTorch allows only
  // fill_, zero_ and setitem_ of a number there): a scatter cannot express
  // it (PyTorch rejects scatters into an overlapping slot), so the new base
  // is a private clone of the base, written in place through the same
  // absolute view, and re-viewed as the whole storage. Still pure dataflow:
  // nothing else sees the clone.
  void write_overlapping(const ir::Stmt& st) {
    const int v = static_cast<int>(st.args[0].i);
    const int line = st.line;
    Val& val = vals_[v];
    Base& bs = bases_[val.key];
    const auto& g = an_.values[v].g;
    const std::string bname = bs.declared ? p_.storages[bs.storage].name : "base";
    int c = b_.emit1(OpKind::Clone, bname, {Arg::tensor(root(val.key, line))}, line, true);
    int w = c;
    for (const Step& s : absolute_steps(bs, g, an_.values[v].dtype)) w = apply(s, w, name_of(v), line);
    std::vector<Arg> a = st.args;
    a[0] = Arg::tensor(w);
    OpKind op = st.op;
    if (op == OpKind::SetitemI) {
      w = b_.emit1(OpKind::Slice, name_of(v), {Arg::tensor(w), st.args[1], st.args[2], st.args[3], Arg::integer(1)},
                   line, true);
      if (st.args[4].kind == Arg::Tensor) {
        int src = current(static_cast<int>(st.args[4].i), line);
        while (b_.meta(src).g.rank() > b_.meta(w).g.rank() && b_.meta(src).g.sizes[0] == 1)
          src = b_.emit1(OpKind::Squeeze, name_of(v), {Arg::tensor(src), Arg::integer(0)}, line, true);
        if (b_.meta(src).g.rank() == 0) {
          op = OpKind::CopyI;
          src = b_.emit1(OpKind::Expand, name_of(v), {Arg::tensor(src), Arg::ints(b_.meta(w).g.sizes)}, line, true);
        }
        op = OpKind::CopyI;
        a = {Arg::tensor(w), Arg::tensor(src)};
      } else {
        op = OpKind::FillI;
        a = {Arg::tensor(w), st.args[4]};
      }
    } else {
      for (size_t k = 1; k < a.size(); ++k)
        if (a[k].kind == Arg::Tensor) a[k].i = current(static_cast<int>(a[k].i), line);
    }
    int w2 = b_.value(name_of(v), false);
    b_.emit(op, {w2}, std::move(a), line, false);
    // The whole base again, from w2 (the dependence on the write stays in
    // the dataflow): a dtype view of another element size takes the whole
    // storage in w2's dtype first (w2 itself may not be viewable: a stride
    // 0 or an odd last dim), and as_strided reaches the whole storage.
    int whole = w2;
    if (ir::element_size(b_.meta(w2).dtype) != ir::element_size(bs.dtype))
      whole = b_.emit1(OpKind::AsStrided, bname,
                       {Arg::tensor(w2), Arg::ints({b_.meta(w2).storage_numel}), Arg::ints({1}), Arg::integer(0)}, line,
                       true);
    int m = b_.emit1(
        OpKind::AsStrided, bname,
        {Arg::tensor(as_dtype(whole, bs.dtype, bname, line)), Arg::ints({bs.numel}), Arg::ints({1}), Arg::integer(0)},
        line, true);
    bs.root = m;
    bs.gen++;
    val.gen = -1;  // stale: regenerated from the new base when read
    if (!st.outs.empty()) vals_[st.outs[0]] = val;
  }

  // The chain step of a view op producing output k of st from value x.
  // Returns false when the op is replaced by an absolute as_strided step.
  bool step_of(const ir::Stmt& st, size_t k, Step* s) {
    const auto& x = an_.values[st.args[0].i];
    const Shape& xs = x.g.sizes;
    const int64_t rank = static_cast<int64_t>(xs.size());
    const auto& out = an_.values[st.outs[k]];
    s->in_sizes = xs;
    s->in_dtype = x.dtype;
    s->args.clear();
    switch (ir::view_kind(st.op)) {
      case VK::View:
      case VK::Reshape:
      case VK::Flatten:
        // Not an alias when only the sizes agree: view recomputes a size-1
        // dim's stride (PyTorch: [1, 2] of strides (3, 1) viewed as [1, 2]
        // has (2, 1)), which a later view(x, i64) checks (format v1.5).
        if (out.g == x.g) {
          s->op = OpKind::Alias;
          return true;
        }
        s->op = OpKind::View;
        s->args = {Arg::ints(out.g.sizes)};
        return true;
      case VK::Contiguous:
      case VK::Alias: s->op = OpKind::Alias; return true;
      case VK::ViewDtype:
        s->op = static_cast<ir::Dtype>(st.args[1].i) == x.dtype ? OpKind::Alias : OpKind::ViewDtype;
        s->args = {st.args[1]};
        return true;
      case VK::T:
        if (rank < 2) {
          s->op = OpKind::Alias;
          return true;
        }
        s->op = OpKind::Transpose;
        s->args = {Arg::integer(0), Arg::integer(1)};
        return true;
      case VK::Transpose:
        s->op = OpKind::Transpose;
        s->args = {st.args[1], st.args[2]};
        return true;
      case VK::Permute:
        s->op = OpKind::Permute;
        s->args = {st.args[1]};
        return true;
      case VK::Slice:
        s->op = OpKind::Slice;
        s->args = {st.args[1], st.args[2], st.args[3], st.args[4]};
        return true;
      case VK::Narrow: {
        const int64_t d = *ir::wrap_dim(st.args[1].i, rank);
        int64_t start = st.args[2].i;
        if (start < 0) start += xs[d];
        s->op = OpKind::Slice;
        s->args = {Arg::integer(d), Arg::integer(start), Arg::integer(start + st.args[3].i), Arg::integer(1)};
        return true;
      }
      case VK::Select:
        s->op = OpKind::Select;
        s->args = {st.args[1], st.args[2]};
        return true;
      case VK::Unsqueeze:
        s->op = OpKind::Unsqueeze;
        s->args = {Arg::integer(*ir::wrap_dim(st.args[1].i, rank + 1))};
        return true;
      case VK::Squeeze: {
        const int64_t d = *ir::wrap_dim(st.args[1].i, rank);
        if (rank == 0 || xs[d] != 1) {
          s->op = OpKind::Alias;
          return true;
        }
        s->op = OpKind::Squeeze;
        s->args = {Arg::integer(d)};
        return true;
      }
      case VK::Diagonal:
        s->op = OpKind::Diagonal;
        s->args = {st.args[1], st.args[2], st.args[3]};
        return true;
      case VK::Chunk:
      case VK::Split: {
        const int64_t d = *ir::wrap_dim(st.args[2].i, rank);
        const int64_t n = xs[d];
        int64_t split = st.args[1].i;
        if (st.op == OpKind::Chunk) split = (n + split - 1) / split;
        int64_t start = 0;
        if (split > 0) start = static_cast<int64_t>(k) * split;
        s->op = OpKind::Slice;
        s->args = {Arg::integer(d), Arg::integer(start), Arg::integer(start + out.g.sizes[d]), Arg::integer(1)};
        return true;
      }
      case VK::Unbind:
        s->op = OpKind::Select;
        s->args = {Arg::integer(*ir::wrap_dim(st.args[1].i, rank)), Arg::integer(static_cast<int64_t>(k))};
        return true;
      case VK::Expand:
      case VK::AsStrided:
      case VK::Unfold:
      case VK::None: break;
    }
    return false;
  }

  std::vector<Arg> map_args(const ir::Stmt& st) {
    std::vector<Arg> a = st.args;
    for_each_tensor_arg(a, [&](int64_t& v) { v = current(static_cast<int>(v), st.line); });
    return a;
  }

  // A fresh result (out-of-place op, or may-alias op that copied).
  void fresh_result(const ir::Stmt& st, int out, int nv) {
    const auto& m = an_.values[out];
    Val& v = vals_[out];
    v.key = new_base(m.storage, false, nv, false, m.dtype);
    v.cur = nv;
    v.gen = 0;
    v.overlap = false;
    bases_[v.key].g = m.g;
    // Contiguous with PyTorch's own strides even in its size-1 dims: a
    // size-1 dim's stride is free (flip keeps x's), and a later view(x,
    // i64) checks it (format v1.5), so any other stride takes layout 2.
    if (m.g.offset == 0 && m.g.strides == ir::contiguous_strides(m.g.sizes)) {
      if (m.g.rank() == 1) {
        bases_[v.key].layout = 0;
      } else {
        bases_[v.key].layout = 1;
        v.chain.push_back(Step{OpKind::View, {Arg::ints(m.g.sizes)}, {m.storage_numel}});
      }
    } else {
      bases_[v.key].layout = 2;
      v.chain.push_back(Step{OpKind::AsStrided,
                             {Arg::ints(m.g.sizes), Arg::ints(m.g.strides), Arg::integer(m.g.offset)},
                             {m.storage_numel}});
    }
    (void)st;
  }

  void view_op(const ir::Stmt& st) {
    const int x = static_cast<int>(st.args[0].i);
    Val& xv = vals_[x];
    const bool current_x = xv.gen == bases_[xv.key].gen || no_regen_;
    std::vector<Step> steps(st.outs.size());
    bool relative = true;
    for (size_t k = 0; k < st.outs.size(); ++k) relative = step_of(st, k, &steps[k]) && relative;
    relative = relative && !xv.overlap;
    // Emit the op itself on x's current value when that is legal (x has the
    // source geometry); else rebuild every output from the base.
    // as_strided indexes the storage itself: only the declared storages at
    // generation 0 lie in memory as in the source (a fresh result may lie
    // differently in the new program, its inputs having other layouts).
    const bool same_geometry = b_.meta(xv.cur).g == an_.values[x].g;
    const bool direct = current_x && same_geometry &&
                        (st.op != OpKind::AsStrided || (bases_[xv.key].declared && bases_[xv.key].gen == 0));
    if (direct) {
      std::vector<Arg> a = st.args;
      a[0] = Arg::tensor(current(x, st.line));
      std::vector<int> outs;
      for (int o : st.outs) outs.push_back(b_.value(o));
      b_.emit_source(source_index(st), outs, std::move(a), false);
      for (size_t k = 0; k < st.outs.size(); ++k) vals_[st.outs[k]].cur = outs[k];
    }
    for (size_t k = 0; k < st.outs.size(); ++k) {
      Val& o = vals_[st.outs[k]];
      o.key = xv.key;
      o.gen = bases_[xv.key].gen;
      o.overlap = xv.overlap || ir::has_exact_internal_overlap(an_.values[st.outs[k]].g);
      // Below a view whose elements overlap, steps cannot be inverted one by
      // one (a scatter into the overlapping view would let stale duplicates
      // win): such views are one absolute as_strided step from the base.
      // So is a view whose chain would pass kMaxReplay steps: PyTorch
      // replays the whole chain on every regeneration and scatters through
      // every step on every write, which is quadratic in a view chain's
      // length (4,000 views: 1.2 GB here); as_strided is its own fallback
      // for views it cannot replay.
      if (relative && !xv.overlap && xv.chain.size() < kMaxReplay) {
        o.chain = xv.chain;
        o.chain.push_back(steps[k]);
      } else {
        o.chain = absolute_steps(bases_[xv.key], an_.values[st.outs[k]].g, an_.values[st.outs[k]].dtype);
      }
    }
    if (!direct)
      for (int out : st.outs) vals_[out].cur = regenerate(out, st.line);
  }

  void inplace(const ir::Stmt& st) {
    const int v = static_cast<int>(st.args[0].i);
    const auto& vm = an_.values[v];
    const int line = st.line;
    // copy_(x, x): PyTorch's no-op.
    if (st.op == OpKind::CopyI && st.args[1].kind == Arg::Tensor && an_.values[st.args[1].i].impl == vm.impl) {
      if (!st.outs.empty()) vals_[st.outs[0]] = vals_[v];
      return;
    }
    if (vals_[v].overlap) return write_overlapping(st);
    const int cv = current(v, line);
    const std::string nm = st.outs.empty() ? name_of(v) : name_of(st.outs[0]);
    int n = -1;
    auto other = [&](int k) {
      Arg a = st.args[k];
      if (a.kind == Arg::Tensor) a.i = current(static_cast<int>(a.i), line);
      return a;
    };
    auto expand_to = [&](int src, const Shape& sizes) {
      int s = src;
      while (b_.meta(s).g.rank() > static_cast<int>(sizes.size()) && b_.meta(s).g.sizes[0] == 1)
        s = b_.emit1(OpKind::Squeeze, nm, {Arg::tensor(s), Arg::integer(0)}, line, true);
      if (b_.meta(s).g.sizes != sizes) s = b_.emit1(OpKind::Expand, nm, {Arg::tensor(s), Arg::ints(sizes)}, line, true);
      return s;
    };
    if (ir::added_in_v12(st.op)) {
      // Format v1.2's indexed writes (index_put_, index_add_, index_copy_,
      // scatter_, scatter_add_, masked_fill_): the op itself on a private
      // clone of the target's current value (the functional op is that
      // clone and write), index and mask inputs as they are.
      int c = b_.emit1(OpKind::Clone, nm, {Arg::tensor(cv)}, line, true);
      n = b_.value(nm, false);
      std::vector<Arg> a{Arg::tensor(c)};
      for (size_t k = 1; k < st.args.size(); ++k) a.push_back(other(static_cast<int>(k)));
      b_.emit(st.op, {n}, std::move(a), line, false);
    }
    using MA = ir::MathArity;
    const auto functional = ir::out_of_place(st.op);
    if (n < 0 && functional) {
      // The functional counterpart (add_ -> add) on the current values;
      // for out= ops on the operands alone (add_out(c, a, b) -> add(a, b),
      // whose shape is c's: resizing is not in the format). Every in-place
      // unary and binary op has one (ir/ops.cc).
      std::vector<Arg> a;
      if (!ir::is_out_variant(st.op)) a.push_back(Arg::tensor(cv));
      for (size_t k = 1; k < st.args.size(); ++k) a.push_back(other(static_cast<int>(k)));
      n = b_.emit1(*functional, nm, std::move(a), line, false);
    }
    switch (n >= 0 ? MA::NotElementwise : ir::math_arity(ir::math_of(st.op))) {
      case MA::Clamp:
      case MA::Ternary: {
        // No out-of-place form in the vocabulary: the op itself on a private clone.
        int c = b_.emit1(OpKind::Clone, nm, {Arg::tensor(cv)}, line, true);
        n = b_.value(nm, false);
        std::vector<Arg> a{Arg::tensor(c)};
        for (size_t k = 1; k < st.args.size(); ++k) a.push_back(other(static_cast<int>(k)));
        b_.emit(st.op, {n}, std::move(a), line, false);
        break;
      }
      case MA::Constant: {  // fill_'s number, zero_'s 0
        const Arg value = ir::math_of(st.op) == ir::Math::Zero ? Arg::number(0.0) : st.args[1];
        n = constant(vm.g.sizes, value, vm.dtype, nm, line, false);
        break;
      }
      case MA::Copy:
        if (st.op == OpKind::SetitemI)
          n = setitem_scatter(st, vm, cv, nm, expand_to);
        else
          n = expand_to(other(1).i, vm.g.sizes);  // copy_
        break;
      case MA::Unary:
      case MA::Binary:
      case MA::NotElementwise: break;  // (the counterpart above)
    }
    if (n < 0) ir::internal_error(std::string("functionalize: no functional form of ") + ir::op_name(st.op));
    write(v, n, line);
    Val& val = vals_[v];
    val.cur = n;
    val.gen = bases_[val.key].gen;
    if (!st.outs.empty()) vals_[st.outs[0]] = val;
  }

  // setitem_(x, dim, start, end, v) as slice_scatter(x, v broadcast to the slot, ...).
  template <class ExpandTo>
  int setitem_scatter(const ir::Stmt& st, const ir::TensorMeta& vm, int cv, const std::string& nm,
                      ExpandTo& expand_to) {
    const int line = st.line;
    const Shape slot = ir::written_geometry(st, an_).sizes;
    const bool whole = vm.g.rank() == 0;  // the value is the write itself, as for copy_
    int val;
    if (st.args[4].kind == Arg::Tensor)
      val = expand_to(current(static_cast<int>(st.args[4].i), line), slot);
    else
      val = constant(slot, Arg::number(st.args[4].as_double()), vm.dtype, nm, line, !whole);
    if (whole) return val;
    return b_.emit1(OpKind::SliceScatter, nm,
                    {Arg::tensor(cv), Arg::tensor(val), st.args[1], st.args[2], st.args[3], Arg::integer(1)}, line,
                    false);
  }

  void stmt(const ir::Stmt& st) {
    const auto cls = ir::op_info(st.op).cls;
    if (st.op == OpKind::UpdateAliases) {
      // Thunder's update_aliases in the program itself (a printed schedule
      // read back): result k is a new name for member k as it is, a view
      // with no step, so it shares the member's base and chain. Treated as
      // an out-of-place op it got a private copy that writes never reached.
      for (size_t k = 0; k < st.outs.size() && k < st.args[0].list.size(); ++k)
        vals_[st.outs[k]] = vals_[st.args[0].list[k]];
      return;
    }
    if (cls == ir::OpClass::InPlace) return inplace(st);
    if (cls == ir::OpClass::View ||
        (cls == ir::OpClass::MayAlias && an_.values[st.outs[0]].storage == an_.values[st.args[0].i].storage))
      return view_op(st);
    // Out-of-place (or a may-alias op that copies): same op on current values.
    std::vector<Arg> a = map_args(st);
    std::vector<int> outs;
    for (int o : st.outs) outs.push_back(b_.value(o));
    b_.emit_source(source_index(st), outs, std::move(a), false);
    for (size_t k = 0; k < st.outs.size(); ++k) fresh_result(st, st.outs[k], outs[k]);
  }

  // The index of a statement of p_ (stmt() runs them in place, in order).
  int source_index(const ir::Stmt& st) const { return static_cast<int>(&st - p_.stmts.data()); }

  const ir::Program& p_;
  const ir::Analysis& an_;
  Builder b_;
  bool per_input_, no_regen_;
  std::vector<Val> vals_;
  std::vector<Base> bases_;
};

}  // namespace

Transformed functionalize_strategy(const ir::Program& p, const ir::Analysis& an, run::Mutant mutant, bool an_exact) {
  Functionalize f(p, an, mutant, an_exact);
  return f.run();
}

}  // namespace af::schedulers
