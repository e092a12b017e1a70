// The generator's toolbox (gen_state.h): random shapes and windows,
// picking tensors by role, and emitting a statement only after ir::infer,
// the oracle and the noise model accept it.
#include "generate/gen_state.h"

#include <algorithm>

#include <utility>

#include "generate/noise_model.h"

namespace af::fuzz::detail {

std::vector<int64_t> Gen::divisors(int64_t n) {
  std::vector<int64_t> d;
  for (int64_t k = 1; k <= n; ++k)
    if (n % k == 0) d.push_back(k);
  return d;
}

// A random factorization of n into `rank` sizes (n > 0).
Shape Gen::factor(int64_t n, int rank) {
  Shape s(rank, 1);
  if (rank == 0) return s;
  int64_t rest = n;
  for (int i = 0; i < rank - 1; ++i) {
    std::vector<int64_t> d = divisors(rest);
    if (d.size() > 2 && rng.chance(750)) d = std::vector<int64_t>(d.begin() + 1, d.end() - 1);  // avoid 1s
    s[i] = rng.pick(d);
    rest /= s[i];
  }
  s[rank - 1] = rest;
  // shuffle so the big remainder is not always last
  for (int i = rank - 1; i > 0; --i) std::swap(s[i], s[rng.below(i + 1)]);
  return s;
}

// A non-overlapping window (sizes, strides, offset) inside a storage of
// `numel` elements: a random dense layout with optional steps.
bool Gen::window(int64_t numel, Shape* sizes, Shape* strides, int64_t* offset) {
  for (int tries = 0; tries < 8; ++tries) {
    const int rank = static_cast<int>(rng.range(1, max_rank()));
    int64_t m = rng.range(1, numel);
    if (rng.chance(500)) {  // prefer a count with divisors
      std::vector<int64_t> good;
      for (int64_t k : kNumels)
        if (k <= numel && k >= 2) good.push_back(k);
      if (!good.empty()) m = rng.pick(good);
    }
    *sizes = factor(m, rank);
    // layout order: a permutation of dims, innermost first
    std::vector<int> order(rank);
    for (int i = 0; i < rank; ++i) order[i] = rank - 1 - i;
    if (rng.chance(350))
      for (int i = rank - 1; i > 0; --i) std::swap(order[i], order[rng.below(i + 1)]);
    strides->assign(rank, 0);
    int64_t st = rng.chance(200) ? 2 : 1;
    for (int i = 0; i < rank; ++i) {
      const int d = order[i];
      (*strides)[d] = st;
      st *= (*sizes)[d];
      if (rng.chance(150)) st += 1;  // a gap
    }
    Geometry g{*sizes, *strides, 0};
    const int64_t need = ir::required_storage(g);
    if (need > numel) continue;
    *offset = rng.range(0, numel - need);
    return true;
  }
  return false;
}

bool Gen::writable(int v) const {
  const Geometry& g = geo(v);
  return live(v) && g.numel() > 0 && ir::internal_overlap_status(g) != ir::Overlap::Yes &&
         !ir::has_exact_internal_overlap(g);
}

int Gen::pick_any() {
  for (;;) {  // index and mask inputs are never data operands (every program has f32 inputs)
    const int v = pick_any_value();
    if (is_data(v)) return v;
  }
}

int Gen::pick_any_value() {
  const int n = num_values();
  const int roll = static_cast<int>(rng.below(100));
  if (roll < 35 && last_written_storage >= 0) {  // a sibling of the last write
    // Counted, then the k-th taken: the draw rng.pick makes, without a vector.
    int count = 0;
    for (int v = 0; v < n; ++v) count += meta(v).storage == last_written_storage;
    if (count > 0) {
      int k = static_cast<int>(rng.below(count));
      for (int v = 0; v < n; ++v)
        if (meta(v).storage == last_written_storage && k-- == 0) return v;
    }
  }
  if (roll < 60) return static_cast<int>(rng.range(std::max(0, n - 4), n - 1));
  return static_cast<int>(rng.below(n));
}

int Gen::pick_target() {
  if (pending_target >= 0) {  // the follow-up write of a fresh alias or copy
    const int v = pending_target;
    pending_target = -1;
    if (writable(v)) return v;
  }
  const int roll = static_cast<int>(rng.below(100));
  if (roll < 45 && !hot.empty()) {
    const int n = static_cast<int>(hot.size());
    int v = hot[rng.range(std::max(0, n - 3), n - 1)];
    if (writable(v)) return v;
  }
  if (roll < 60) {  // analysis input, or a view of one
    int v = pick_where([&](int v) { return meta(v).storage < analysis.num_declared && writable(v); });
    if (v >= 0) return v;
  }
  return pick_where([&](int v) { return writable(v); });
}

bool Gen::broadcasts_to(const Shape& from, const Shape& to) const {
  Shape b;
  return ir::broadcast_shapes(to, from, &b) && b == to;
}

bool Gen::min_abs_at_least(int v, float m) const {
  for (float x : values_of(v))
    if (!(std::fabs(x) >= m)) return false;
  return true;
}

float Gen::max_of(int v) const {
  float mx = -INFINITY;
  for (float x : values_of(v)) mx = std::max(mx, x);
  return mx;
}

int Gen::partial_alias_of(int x, Shape sizes) {
  if (!enabled(OpKind::AsStrided) || ir::numel_of(sizes) == 0) return -1;
  const int64_t sn = meta(x).storage_numel;
  Shape st;
  for (size_t d = 0; d < sizes.size(); ++d) st.push_back(rng.below(4));
  const int64_t need = ir::required_storage(Geometry{sizes, st, 0});
  if (need > sn) return -1;
  const int64_t off = rng.range(0, sn - need);
  const PartialAlias before{-1, next_impl, num_stmt_values};
  const size_t hot_before = hot.size();
  const int pending_before = pending_target;
  if (emit(OpKind::AsStrided, {T(x), L(sizes), L(st), I(off)}) <= 0) return -1;
  // An operand, not a favourite target of later writes.
  hot.resize(hot_before);
  pending_target = pending_before;
  partial_alias = before;
  partial_alias.value = program.stmts.back().outs[0];
  return partial_alias.value;
}

// A tensor whose shape broadcasts to `to` (rarely `avoid` itself), or -1.
int Gen::pick_operand_for(Shape to, float min_abs, int avoid) {
  if (avoid >= 0 && rng.chance(kPartialAliasPerMille)) {
    const int v = partial_alias_of(avoid, to);
    if (v >= 0 && (min_abs <= 0 || min_abs_at_least(v, min_abs))) return v;
  }
  if (avoid >= 0 && rng.chance(100)) avoid = -1;
  return pick_where([&](int v) {
    return v != avoid && geo(v).numel() > 0 && broadcasts_to(geo(v).sizes, to) &&
           (min_abs <= 0 || min_abs_at_least(v, min_abs));
  });
}

bool Gen::bounded(oracles::ConstFloats s) const {
  for (float x : s)
    if (!std::isfinite(x) || std::fabs(x) > options.value_bound) return false;
  return true;
}

// Checks a candidate with ir::infer, runs it on the oracle's memory and
// keeps it only when valid and every value stays bounded. Returns the
// number of outputs bound (>= 0) or -1 when rejected.
int Gen::emit(OpKind op, std::vector<Arg> args, bool bind_inplace) {
  const PartialAlias alias = std::exchange(partial_alias, PartialAlias{});
  const int bound = emit_statement(op, std::move(args), bind_inplace);
  if (bound < 0 && alias.value >= 0) drop_partial_alias(alias);
  return bound;
}

void Gen::drop_partial_alias(const PartialAlias& a) {
  // Only while the view is the last value and nothing came after it.
  if (program.stmts.empty() || program.stmts.back().outs.size() != 1 || program.stmts.back().outs[0] != a.value ||
      a.value + 1 != num_values())
    return;
  program.stmts.pop_back();
  analysis.values.resize(a.value);
  analysis.fresh_storage.pop_back();
  program.value_names.resize(a.value);
  def_stmt.resize(a.value);
  if (retired.size() > static_cast<size_t>(a.value)) retired.resize(a.value);
  next_impl = a.impl;
  num_stmt_values = a.names;
}

int Gen::emit_statement(OpKind op, std::vector<Arg> args, bool bind_inplace) {
  // An operand must be a value that exists: a recipe that tries again after
  // a failed emit may hold the id of a partial-alias view that emit dropped
  // (drop_partial_alias), which the next statement's output would take:
  // `t5 = reshape(t5, [-1])`, run by the oracle on no geometry (a worker
  // crash, seed 1796561188 program 11157).
  auto exists = [&](int64_t v) { return v >= 0 && v < num_values(); };
  for (const Arg& a : args)
    if ((a.kind == Arg::Tensor && !exists(a.i)) ||
        (a.kind == Arg::TensorList && !std::all_of(a.list.begin(), a.list.end(), exists))) {
      ++invalid_rejected;
      return -1;
    }
  ir::Stmt st{op, {}, std::move(args), 0};
  const std::vector<ir::CheckedArg> checked = ir::checked_args(st, analysis.values);
  ir::OutMetas outs;
  std::optional<ir::Error> res = ir::infer_into(op, checked, &outs);
  const ir::Result<ir::Dtype> dtype = ir::result_dtype(op, checked);  // format v1.5
  if (!res && !dtype) res = dtype.error();
  if (!res && ir::is_indexed(op)) {  // the index values, as analyze() checks them
    const char* sig = ir::op_info(op).sig;
    std::vector<int64_t> index;
    for (size_t k = 0; k < st.args.size(); ++k)
      if (sig[k] == 'J' || sig[k] == 'M')
        for (float f : values_of(static_cast<int>(st.args[k].i))) index.push_back(static_cast<int64_t>(f));
    res = ir::check_index_values(op, checked, index);
  }
  if (!res && op == OpKind::SetitemI &&
      ir::squeezed_to_0d(program, analysis.values, program.stmts.size(), static_cast<int>(st.args[0].i)))
    res = ir::Error{ir::ErrorKind::Version, 0, "setitem_ on a tensor squeeze_ made 0-d"};  // as ir::analyze
  if (res) {
    ++invalid_rejected;
    return -1;
  }
  const bool inplace = ir::is_inplace(op);
  if (!inplace) {
    bool fits = (!outs.empty() || ir::binds_nothing(op)) && outs.size() <= 4;  // graph_break has none
    for (const auto& om : outs)
      if (om.g.rank() > max_rank() || om.g.numel() > cap() || om.g.numel() == 0) fits = false;
    if (!fits) {
      ++invalid_rejected;
      return -1;
    }
  }
  const size_t nout = inplace ? (ir::binds_nothing(op) ? 0 : (bind_inplace ? 1 : 0)) : outs.size();
  const size_t nv = analysis.values.size(), ns = analysis.storage_numel.size();
  const int saved_impl = next_impl, saved_names = num_stmt_values;
  int written = -1;
  std::vector<float> saved;
  if (inplace) {
    written = meta(static_cast<int>(st.args[0].i)).storage;
    saved = memory[written].to_vector();
  }
  int fresh_storage = -1;
  for (size_t k = 0; k < nout; ++k) {
    const ir::OutMeta& om = outs[k];
    ir::TensorMeta m = ir::result_meta(st, om, *dtype, checked, analysis.values, analysis.storage_numel, &next_impl);
    if (om.fresh) {
      m.storage = static_cast<int>(analysis.storage_numel.size());
      analysis.storage_numel.push_back(ir::memory_words(m));
      fresh_storage = m.storage;
    }
    analysis.values.push_back(std::move(m));
    st.outs.push_back(program.new_value(fresh_name()));
  }
  for (size_t s = memory.size(); s < analysis.storage_numel.size(); ++s) {  // the fresh result's storage, zeroed
    memory.append(analysis.storage_numel[s]);
    noise.append(analysis.storage_numel[s]);
  }
  const NoiseCapture pre =
      options.guard_noise ? capture_operands(st, analysis, memory, noise, fresh_storage) : NoiseCapture();
  oracles::execute(st, analysis, memory);
  // i32, i64 and f64 results are any bits (format v1.5), exact by the recipe's choice of
  // operands; f32 ones stay within the value bound where they are written
  // (elsewhere the storage may hold what an i32 write left).
  bool ok = *dtype == ir::Dtype::I32 || *dtype == ir::Dtype::I64 || *dtype == ir::Dtype::F64 ||
            (inplace ? bounded(oracles::gather(memory[written], ir::written_geometry(st, analysis)).v)
                     : (fresh_storage < 0 || bounded(memory[fresh_storage])));
  if (!ok) ++bound_exceeded;
  std::vector<float> out_noise;
  if (ok && pre.storage >= 0 && !written_noise(st, analysis, memory, pre, &out_noise)) {
    ok = false;
    ++noise_rejected;
  }
  if (ok && pre.storage >= 0) oracles::scatter(noise[pre.storage], pre.written, out_noise);
  if (!ok) {
    noise.truncate(ns);
    analysis.values.resize(nv);
    analysis.storage_numel.resize(ns);
    memory.truncate(ns);
    program.value_names.resize(nv);
    next_impl = saved_impl;
    num_stmt_values = saved_names;
    if (inplace) std::copy(saved.begin(), saved.end(), memory[written].begin());
    return -1;
  }
  analysis.fresh_storage.push_back(fresh_storage);
  def_stmt.resize(analysis.values.size(), static_cast<int>(program.stmts.size()));
  storage_last_write.resize(analysis.storage_numel.size(), -1);
  if (inplace) storage_last_write[written] = static_cast<int>(program.stmts.size());
  if (inplace) {
    last_written_storage = written;
    last_written_value = static_cast<int>(st.args[0].i);
  }
  if (ir::is_metadata_inplace(op)) {  // x's other names retire (ir::analyze's rule)
    const int x_impl = meta(static_cast<int>(st.args[0].i)).impl;
    retired.resize(analysis.values.size(), 0);
    for (int v = 0; v < num_values(); ++v)
      if (meta(v).impl == x_impl && v != st.outs[0]) retired[v] = 1;
  }
  const int bound = static_cast<int>(st.outs.size());
  // Aliases and fresh copies become favourite targets of later writes.
  const auto cls = ir::op_info(op).cls;
  if (cls == ir::OpClass::View || cls == ir::OpClass::MayAlias || op == OpKind::Clone) {
    for (int v : st.outs) hot.push_back(v);
    // Sometimes write the new alias (or copy) right away: a mutated piece
    // of chunk/split/unbind, a mutated reshape result, clone then mutate.
    const bool interesting = ir::is_multi_output(op) || cls == ir::OpClass::MayAlias || op == OpKind::Clone;
    if (rng.chance(interesting ? 450 : 150)) pending_target = rng.pick(st.outs);
  }
  program.stmts.push_back(std::move(st));
  return bound;
}

}  // namespace af::fuzz::detail
