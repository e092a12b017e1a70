#include "lowering/spec.h"

#include <map>
#include <sstream>

namespace af::lowering::detail {

using ir::Arg;
using ir::Geometry;
using ir::OpKind;

bool is_flat(NK k) {
  return k == NK::Input || k == NK::Zeros || k == NK::Scatter || k == NK::IndexScatter || k == NK::Dense;
}

namespace {

// Padded geometry: 0-d becomes [1] with stride 0.
Geometry padded(const Geometry& g) {
  if (g.rank() > 0) return g;
  Geometry p;
  p.sizes = {1};
  p.strides = {0};
  p.offset = g.offset;
  return p;
}

class Builder {
 public:
  Builder(const ir::Program& p, const ir::Analysis& an, const std::vector<bool>& needed, bool checked, bool stale)
      : p_(p),
        an_(an),
        needed_(needed),
        checked_(checked),
        stale_(stale),
        cur_(an.storage_numel.size(), -1),
        before_(an.storage_numel.size(), -1),
        fresh_(an.storage_numel.size()) {}

  RegionSpec build(const std::vector<int>& region) {
    stale_ = stale_ && region.size() > 1;
    for (int si : region) stmt(si, p_.stmts[si]);
    // Outputs: every storage whose version changed and that is observed later.
    for (size_t s = 0; s < cur_.size(); ++s) {
      if (cur_[s] < 0 || spec_.nodes[cur_[s]].k == NK::Input) continue;
      const bool declared = static_cast<int>(s) < an_.num_declared;
      if (!declared && !(s < needed_.size() && needed_[s])) continue;
      if (an_.storage_numel[s] == 0) continue;
      spec_.output_nodes.push_back(cur_[s]);
      spec_.output_storages.push_back(static_cast<int>(s));
      spec_.output_numel.push_back(an_.storage_numel[s]);
    }
    // Materialize logical nodes used more than once (keeps inlined expressions small).
    // Uses are counted among nodes reachable from the outputs and checks;
    // the checks themselves do not count (they re-evaluate inlined values).
    std::vector<bool> live(spec_.nodes.size(), false);
    for (int o : spec_.output_nodes) live[o] = true;
    for (const auto& c : spec_.checks) live[c.node] = true;
    for (size_t i = spec_.nodes.size(); i-- > 0;)
      if (live[i])
        for (int j : spec_.nodes[i].in) live[j] = true;
    std::vector<int> uses(spec_.nodes.size(), 0);
    for (size_t i = 0; i < spec_.nodes.size(); ++i)
      if (live[i])
        for (int j : spec_.nodes[i].in) ++uses[j];
    for (size_t i = 0; i < spec_.nodes.size(); ++i) {
      auto& n = spec_.nodes[i];
      if (n.k == NK::Scatter || n.k == NK::IndexScatter || n.k == NK::Reduce || n.k == NK::Softmax || n.k == NK::Matmul)
        n.root = true;
      else if (!is_flat(n.k) && n.k != NK::Const && n.k != NK::Read && uses[i] > 1)
        n.root = true;
    }
    compact(live);
    // Canonical key.
    std::ostringstream k;
    k << (checked_ ? "C" : "U") << (stale_ ? "S" : "") << spec_.input_storages.size() << "|";
    for (const auto& n : spec_.nodes) {
      k << static_cast<int>(n.k) << "." << n.op << "." << n.rank << "." << n.dim << "." << n.keep << "." << n.slot
        << "." << n.root << "(";
      for (int i : n.in) k << i << ",";
      k << ")";
    }
    k << "|o";
    for (int o : spec_.output_nodes) k << o << ",";
    k << "|c";
    for (const auto& c : spec_.checks) k << c.node << ":" << c.rank << ",";
    spec_.key = k.str();
    return std::move(spec_);
  }

 private:
  // Int and float parameter counts of a node (fixed by its structure).
  static std::pair<int, int> param_counts(const Node& n) {
    switch (n.k) {
      case NK::Scatter: return {1 + 2 * n.rank, 0};
      case NK::IndexScatter: return {3 + 2 * n.rank, 0};
      case NK::Read: return {1 + n.rank, 0};
      case NK::Const: return {0, 1};
      case NK::Bcast: return {n.dim, 0};
      case NK::Clamp: return {0, 2};
      case NK::Ternary: return {0, 1};
      case NK::Reduce:
      case NK::Softmax:
      case NK::Matmul: return {1, 0};
      case NK::Cat: return {2 * static_cast<int>(n.in.size()), 0};
      case NK::Dense: return {2 * n.dim, 0};
      default: return {0, 0};
    }
  }

  // Drops dead nodes (and their parameters and input slots), renumbering
  // the rest, so that regions differing only in dead code share a key.
  void compact(const std::vector<bool>& live) {
    RegionSpec out;
    std::vector<int> remap(spec_.nodes.size(), -1);
    auto copy_params = [&](int ip, int ni, int fp, int nf, int* nip, int* nfp) {
      if (ni > 0) {
        *nip = static_cast<int>(out.iparams.size());
        out.iparams.insert(out.iparams.end(), spec_.iparams.begin() + ip, spec_.iparams.begin() + ip + ni);
      }
      if (nf > 0) {
        *nfp = static_cast<int>(out.fparams.size());
        out.fparams.insert(out.fparams.end(), spec_.fparams.begin() + fp, spec_.fparams.begin() + fp + nf);
      }
    };
    for (size_t i = 0; i < spec_.nodes.size(); ++i) {
      if (!live[i]) continue;
      Node n = spec_.nodes[i];
      for (int& j : n.in) j = remap[j];
      const auto [ni, nf] = param_counts(n);
      copy_params(n.ip, ni, n.fp, nf, &n.ip, &n.fp);
      if (n.k == NK::Input) {
        const int storage = spec_.input_storages[n.slot];
        n.slot = static_cast<int>(out.input_storages.size());
        out.input_storages.push_back(storage);
      }
      remap[i] = static_cast<int>(out.nodes.size());
      out.nodes.push_back(std::move(n));
    }
    for (int o : spec_.output_nodes) out.output_nodes.push_back(remap[o]);
    out.output_storages = spec_.output_storages;
    out.output_numel = spec_.output_numel;
    for (Check c : spec_.checks) {
      c.node = remap[c.node];
      int unused = -1;
      copy_params(c.ip, c.rank + 2, 0, 0, &c.ip, &unused);
      out.checks.push_back(c);
    }
    out.check_stmts = spec_.check_stmts;
    spec_ = std::move(out);
  }

  int add(Node n) {
    spec_.nodes.push_back(std::move(n));
    return static_cast<int>(spec_.nodes.size()) - 1;
  }
  int iparam(int64_t v) {
    spec_.iparams.push_back(static_cast<int>(v));
    return static_cast<int>(spec_.iparams.size()) - 1;
  }
  int fparam(double v) {
    spec_.fparams.push_back(static_cast<float>(v));
    return static_cast<int>(spec_.fparams.size()) - 1;
  }

  int flat(int s) {
    if (cur_[s] < 0) {
      Node n{NK::Input};
      n.slot = static_cast<int>(spec_.input_storages.size());
      spec_.input_storages.push_back(s);
      cur_[s] = add(n);
    }
    return cur_[s];
  }

  int read(int flat_node, const Geometry& g0) {
    Geometry g = padded(g0);
    Node n{NK::Read};
    n.rank = g.rank();
    n.in = {flat_node};
    n.ip = iparam(g.offset);
    for (auto st : g.strides) iparam(st);
    return add(n);
  }

  // The version of storage s that a statement reads: the newest, or under
  // the fusion-stale-copy mutant the one from before the region's first
  // in-place write to s.
  int read_version(int s) {
    if (stale_ && before_[s] >= 0) return before_[s];
    return flat(s);
  }

  // The logical value of tensor value v.
  int logical(int v) {
    const auto& m = an_.values[v];
    const auto& f = fresh_[m.storage];
    const int ver = read_version(m.storage);
    if (f.node >= 0 && f.value == v && ver == f.flat) return f.node;
    return read(ver, m.g);
  }

  int rank_of(const Geometry& g) const { return std::max(1, g.rank()); }

  int constant(double v, int rank) {
    Node n{NK::Const};
    n.rank = rank;
    n.fp = fparam(v);
    return add(n);
  }

  // Argument a (tensor or number) broadcast to shape.
  int operand(const Arg& a, const ir::Shape& shape) {
    const int r = std::max<int>(1, shape.size());
    if (a.kind != Arg::Tensor) return constant(a.as_double(), r);
    const auto& m = an_.values[a.i];
    const int in = logical(static_cast<int>(a.i));
    Node n{NK::Bcast};
    n.rank = r;
    n.dim = std::max(1, m.g.rank());
    n.in = {in};
    n.ip = -1;
    if (m.g.rank() == 0) {
      n.ip = iparam(0);
    } else {
      const size_t lead = shape.size() - m.g.sizes.size();
      for (size_t k = 0; k < m.g.sizes.size(); ++k) {
        const int mult = (m.g.sizes[k] == shape[lead + k] && m.g.sizes[k] != 1) ? 1 : 0;
        const int id = iparam(mult);
        if (n.ip < 0) n.ip = id;
      }
    }
    return add(n);
  }

  int scatter(int prev, int src, const Geometry& g0) {
    Geometry g = padded(g0);
    Node n{NK::Scatter};
    n.rank = g.rank();
    n.in = {prev, src};
    n.ip = iparam(g.offset);
    for (auto s : g.sizes) iparam(s);
    for (auto s : g.strides) iparam(s);
    return add(n);
  }

  // Logical node src laid out in storage order by g0 (dense, offset 0).
  int dense(int src, const Geometry& g0) {
    Geometry g = padded(g0);
    Node n{NK::Dense};
    n.dim = g.rank();
    n.in = {src};
    n.ip = iparam(g.sizes[0]);
    for (int k = 1; k < g.rank(); ++k) iparam(g.sizes[k]);
    for (auto s : g.strides) iparam(s);
    return add(n);
  }

  void check(int node, const Geometry& g0, int stmt) {
    if (!checked_) return;
    Geometry g = padded(g0);
    Check c;
    c.node = node;
    c.rank = g.rank();
    c.ip = iparam(g.sizes[0]);
    for (size_t k = 1; k < g.sizes.size(); ++k) iparam(g.sizes[k]);
    iparam(0);     // expected base: set at bind time
    iparam(stmt);  // check id
    c.stmt = stmt;
    spec_.checks.push_back(c);
    spec_.check_stmts.push_back(stmt);
  }

  // A fresh result: logical node `v_node` becomes the value of `out`.
  // `built`: a temporary flat node already holding the result in its own
  // layout (reshape and the *_scatter ops build one), which becomes the
  // storage's version instead of a second copy. A functionalized program is
  // chains of *_scatter ops, so this saves a materialized Func (and LLVM's
  // tens of milliseconds for it, issue #13) per mutation.
  void fresh_result(int out, int v_node, int stmt, int built = -1) {
    const auto& m = an_.values[out];
    const int s = m.storage;
    const int fl = built >= 0 ? built : scatter(add(Node{NK::Zeros}), v_node, m.g);
    cur_[s] = fl;
    fresh_[s] = Fresh{out, v_node, fl};
    check(v_node, m.g, stmt);
  }

  void stmt(int si, const ir::Stmt& st) {
    if (!ir::computes_values(st, an_)) return;
    const auto& A = st.args;
    const auto cls = ir::op_info(st.op).cls;
    if (ir::added_in_v12(st.op)) return indexed(si, st);
    if (cls == ir::OpClass::InPlace) {
      const auto& x = an_.values[A[0].i];
      const Geometry g = ir::written_geometry(st, an_);
      if (g.numel() == 0) return;
      const int wv = flat(x.storage);  // the version the write lands on
      if (before_[x.storage] < 0) before_[x.storage] = wv;
      const int r = rank_of(g);
      int v = -1;
      using MA = ir::MathArity;
      // The first operand: the target itself, or for out= the argument after it.
      auto first = [&] {
        return ir::is_out_variant(st.op) ? operand(A[1], g.sizes) : read(read_version(x.storage), x.g);
      };
      const size_t f = ir::first_operand(st.op);
      const ir::Math m = ir::math_of(st.op);
      switch (ir::math_arity(m)) {
        case MA::Binary: {
          const int a = first();
          v = math_node(NK::Binary, st, r, {a, operand(A[f + 1], g.sizes)});
          break;
        }
        case MA::Unary: v = math_node(NK::Unary, st, r, {first()}); break;
        case MA::Ternary: {
          const int t = first();
          const int a = operand(A[f + 1], g.sizes);
          const int b = operand(A[f + 2], g.sizes);
          v = math_node(NK::Ternary, st, r, {t, a, b});
          spec_.nodes[v].fp = fparam(A.size() > f + 3 ? A[f + 3].as_double() : 0.0);
          break;
        }
        case MA::Clamp: {
          Node n{NK::Clamp};
          n.rank = r;
          n.in = {read(read_version(x.storage), x.g)};
          n.fp = fparam(A[1].as_double());
          fparam(A[2].as_double());
          v = add(n);
          break;
        }
        case MA::Constant: v = constant(m == ir::Math::Zero ? 0.0 : A[1].as_double(), r); break;  // zero_, fill_
        case MA::Copy: v = operand(A.back(), g.sizes); break;  // copy_'s source, setitem_'s value
        case MA::NotElementwise:
          ir::internal_error(std::string("spec: in-place op without Math: ") + ir::op_name(st.op));
      }
      const int nv = scatter(wv, v, g);
      cur_[x.storage] = nv;
      if (checked_) check(read(nv, g), g, si);
      return;
    }
    const auto& out = an_.values[st.outs[0]];
    if (out.g.numel() == 0) return;
    const int r = rank_of(out.g);
    int v = -1, built = -1;
    if (ir::is_elementwise(st.op)) {
      fresh_result(st.outs[0], elementwise_result(st, r, out.g.sizes), si);
      return;
    }
    switch (ir::op_info(st.op).family) {
      case ir::Family::Movement:  // a may-alias op that copied (views compute no values)
        if (st.op == OpKind::Contiguous) {
          v = logical(static_cast<int>(A[0].i));
        } else {  // reshape, flatten: in row-major order, through a contiguous temporary
          const auto& a = an_.values[A[0].i];
          const int t =
              scatter(add(Node{NK::Zeros}), logical(static_cast<int>(A[0].i)), ir::contiguous_geometry(a.g.sizes));
          v = read(t, ir::contiguous_geometry(out.g.sizes));
          if (out.g == ir::contiguous_geometry(out.g.sizes)) built = t;  // a reshape's copy is row-major
        }
        break;
      case ir::Family::Reduction: v = reduction_node(st, r); break;
      case ir::Family::Concat: {
        int64_t rank = 0;
        for (auto pv : A[0].list) {
          const auto& g = an_.values[pv].g;
          if (!(g.rank() == 1 && g.sizes[0] == 0)) {
            rank = g.rank();
            break;
          }
        }
        const int64_t d = *ir::wrap_dim(A[1].i, rank);
        Node n{NK::Cat};
        n.rank = r;
        n.dim = static_cast<int>(d);
        std::vector<std::pair<int64_t, int64_t>> parts;  // start, size
        int64_t start = 0;
        for (auto pv : A[0].list) {
          const auto& g = an_.values[pv].g;
          if (g.rank() != rank || g.sizes[d] == 0) continue;
          n.in.push_back(logical(static_cast<int>(pv)));
          parts.push_back({start, g.sizes[d]});
          start += g.sizes[d];
        }
        n.ip = static_cast<int>(spec_.iparams.size());
        for (auto& pr : parts) iparam(pr.first);
        for (auto& pr : parts) iparam(pr.second);
        v = add(n);
        break;
      }
      case ir::Family::Scatter: {
        // As the oracle: a clone of the base in the result's own layout
        // (PyTorch's preserved strides), then src written into the slot,
        // which is a view of that result. as_strided_scatter's slot is
        // storage positions, so a row-major temporary would put src
        // elsewhere when the base is dense but not row-major.
        const Geometry slot = ir::scatter_slot(st.op, out.g, ir::checked_args(st, an_.values)).value();
        const int base = logical(static_cast<int>(A[0].i));
        const int t1 = slot.numel() > 0 ? scatter(dense(base, out.g), logical(static_cast<int>(A[1].i)), slot)
                                        : scatter(add(Node{NK::Zeros}), base, out.g);
        v = read(t1, out.g);
        built = t1;
        break;
      }
      case ir::Family::Elementwise:  // above
      case ir::Family::Reorder:
      case ir::Family::Indexed:
      case ir::Family::Meta: ir::internal_error(std::string("spec: no lowering for ") + ir::op_name(st.op));
    }
    fresh_result(st.outs[0], v, si, built);
  }

  // A reduction's node; bmm and matmul_nd have none (run.cc's unsupported_reason refuses them).
  int reduction_node(const ir::Stmt& st, int r) {
    const auto& A = st.args;
    switch (ir::reduction_kind(st.op)) {
      case ir::ReductionKind::Sum:
      case ir::ReductionKind::Amax: {
        const auto& a = an_.values[A[0].i];
        const int64_t d = *ir::wrap_dim(A[1].i, a.g.rank());
        Node n{NK::Reduce};
        n.op = static_cast<int>(st.op);
        n.rank = r;
        n.in = {logical(static_cast<int>(A[0].i))};
        n.dim = static_cast<int>(d);
        n.keep = (A[2].i != 0 || a.g.rank() == 0) ? 1 : 0;
        n.ip = iparam(a.g.rank() == 0 ? 1 : a.g.sizes[d]);
        return add(n);
      }
      case ir::ReductionKind::Softmax: {
        const auto& a = an_.values[A[0].i];
        const int64_t d = *ir::wrap_dim(A[1].i, a.g.rank());
        Node n{NK::Softmax};
        n.rank = r;
        n.in = {logical(static_cast<int>(A[0].i))};
        n.dim = static_cast<int>(d);
        n.ip = iparam(a.g.rank() == 0 ? 1 : a.g.sizes[d]);
        return add(n);
      }
      case ir::ReductionKind::Matmul: {
        Node n{NK::Matmul};
        n.rank = 2;
        const int a = logical(static_cast<int>(A[0].i));
        const int b = logical(static_cast<int>(A[1].i));
        n.in = {a, b};
        n.ip = iparam(an_.values[A[0].i].g.sizes[1]);
        return add(n);
      }
      case ir::ReductionKind::Bmm:
      case ir::ReductionKind::MatmulNd:
      case ir::ReductionKind::None: break;
    }
    ir::internal_error(std::string("spec: no lowering for ") + ir::op_name(st.op));
  }

  // Format v1.2's indexed and masked writes: one IndexScatter node over the
  // op's domain (index_put_: idx.shape + x.shape[1:]; index_add_ and
  // index_copy_: src's shape; scatter_: idx's shape; masked_fill_: x's),
  // whose position in x's storage is the domain coordinate through x's
  // strides with the indexed dim's coordinate replaced by the index value.
  // Validation guarantees in-range indices, unique ones where the op does
  // not accumulate, and a target without exactly overlapping elements
  // (masked_fill_ excepted: it writes one number, only where the mask is set).
  void indexed(int si, const ir::Stmt& st) {
    const auto& A = st.args;
    const auto& x = an_.values[A[0].i];
    const Geometry g = padded(x.g);
    const int xr = g.rank();
    if (x.g.numel() == 0) return;
    ir::Shape dom;                    // domain sizes
    std::vector<int64_t> st_(xr, 0);  // domain strides (filled below)
    int64_t ist = 0, bound = 0;
    int dim = 0, index = -1, values = -1;
    auto val = [&](int v) { return static_cast<int>(v); };
    switch (ir::indexed_kind(st.op)) {
      case ir::IndexedKind::IndexPut: {
        const auto& idx = an_.values[A[1].i];
        const Geometry ig = padded(idx.g);  // a 0-d index is one index: a leading domain dim of 1
        dom = ig.sizes;
        st_.assign(ig.rank(), 0);
        for (int d = 1; d < xr; ++d) {
          dom.push_back(g.sizes[d]);
          st_.push_back(g.strides[d]);
        }
        ist = g.strides[0];
        bound = g.sizes[0];
        index = logical(val(A[1].i));
        values = operand(A[2], dom);
        break;
      }
      case ir::IndexedKind::IndexAdd:
      case ir::IndexedKind::IndexCopy:
      case ir::IndexedKind::Scatter:
      case ir::IndexedKind::ScatterAdd: {
        const bool along = st.op == OpKind::IndexAddI || st.op == OpKind::IndexCopyI;
        dim = static_cast<int>(*ir::wrap_dim(A[1].i, x.g.rank()));
        // The domain: index_add_/index_copy_ the source's shape, scatter_
        // the index's (0-d counts as [1] throughout, as PyTorch's ensure_nonempty).
        const Geometry dg = padded(an_.values[(along ? A[3] : A[2]).i].g);
        if (dg.numel() == 0) return;  // nothing written (scatter_'s empty index is not shape-checked)
        dom = dg.sizes;
        st_ = g.strides;
        st_[dim] = 0;
        ist = g.strides[dim];
        bound = g.sizes[dim];
        index = logical(val(A[2].i));
        values = logical(val(A[3].i));
        break;
      }
      case ir::IndexedKind::MaskedFill:
        dom = g.sizes;
        st_ = g.strides;
        index = operand(A[1], x.g.sizes);
        values = constant(A[2].as_double(), xr);
        break;
      case ir::IndexedKind::None: ir::internal_error(std::string("spec: not an indexed op: ") + ir::op_name(st.op));
    }
    if (dom.size() != st_.size())
      ir::internal_error(std::string("spec: domain and target ranks differ for ") + ir::op_name(st.op));
    int wv = flat(x.storage);
    if (before_[x.storage] < 0) before_[x.storage] = wv;
    // Under the fusion-stale-copy mutant a later write in the region lands on
    // the stale copy, and the whole target is carried back (the interpreter
    // tier's run_stale_region): the target as it was, then the write.
    if (stale_ && before_[x.storage] != wv) wv = scatter(wv, read(before_[x.storage], x.g), x.g);
    Node n{NK::IndexScatter};
    n.op = static_cast<int>(st.op);
    n.rank = static_cast<int>(dom.size());
    n.dim = dim;
    n.keep = st.op == OpKind::IndexAddI || st.op == OpKind::ScatterAddI || (st.op == OpKind::IndexPutI && A[3].i != 0);
    n.in = {wv, index, values};
    n.ip = iparam(g.offset);
    for (auto s : dom) iparam(s);
    for (auto s : st_) iparam(s);
    iparam(ist);
    iparam(bound);
    const int nv = add(n);
    cur_[x.storage] = nv;
    if (checked_) check(read(nv, x.g), x.g, si);
  }

  // A Unary, Binary or Ternary node computing st's Math over `in`.
  int math_node(NK k, const ir::Stmt& st, int rank, std::vector<int> in) {
    Node n{k};
    n.op = static_cast<int>(st.op);
    n.rank = rank;
    n.in = std::move(in);
    return add(n);
  }

  // The logical node of an out-of-place elementwise op's result.
  int elementwise_result(const ir::Stmt& st, int rank, const ir::Shape& sizes) {
    using MA = ir::MathArity;
    const auto& A = st.args;
    switch (ir::math_arity(ir::math_of(st.op))) {
      case MA::Binary: {
        const int a = operand(A[0], sizes);
        const int b = operand(A[1], sizes);
        return math_node(NK::Binary, st, rank, {a, b});
      }
      case MA::Unary: return math_node(NK::Unary, st, rank, {logical(static_cast<int>(A[0].i))});
      case MA::Copy: return logical(static_cast<int>(A[0].i));     // clone
      case MA::Constant: return constant(A[1].as_double(), rank);  // full (zero_ is in place only)
      case MA::Clamp:
      case MA::Ternary:
      case MA::NotElementwise: break;  // in place only
    }
    ir::internal_error(std::string("spec: no out-of-place lowering for ") + ir::op_name(st.op));
  }

  struct Fresh {
    int value = -1, node = -1, flat = -1;
  };
  const ir::Program& p_;
  const ir::Analysis& an_;
  const std::vector<bool>& needed_;
  bool checked_, stale_;
  std::vector<int> cur_, before_;
  std::vector<Fresh> fresh_;
  RegionSpec spec_;
};

}  // namespace

RegionSpec build_spec(const ir::Program& p, const ir::Analysis& an, const std::vector<int>& region,
                      const std::vector<bool>& needed_later, bool checked, bool stale_reads) {
  return Builder(p, an, needed_later, checked, stale_reads).build(region);
}

std::vector<std::vector<bool>> needed_after(const ir::Program& p, const ir::Analysis& an,
                                            const std::vector<std::vector<int>>& regions) {
  const size_t ns = an.storage_numel.size();
  std::vector<std::vector<bool>> out(regions.size(), std::vector<bool>(ns, false));
  std::vector<bool> live(ns, false);
  for (int v : p.returns) live[an.values[v].storage] = true;
  for (size_t ri = regions.size(); ri-- > 0;) {
    out[ri] = live;
    for (int si : regions[ri]) {
      ir::for_each_tensor_arg(p.stmts[si], [&](int v) { live[an.values[v].storage] = true; });
    }
  }
  return out;
}

}  // namespace af::lowering::detail
