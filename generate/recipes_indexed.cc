// The recipes of format v1.2's indexed and masked writes (index_put_,
// index_add_, index_copy_, scatter_, scatter_add_, masked_fill_), format
// v1.5's out-of-place index_add .. scatter_add (an x often expanded, the
// result often copied back), and the i64/bool inputs they read.
//
// Index values are data the validator reads, so they are drawn for the
// target they index: every program with an indexed op enabled declares a
// few one-element placeholder inputs (two i64, one bool), and a recipe
// gives a free one its storage and layout when it uses it. Indices are in
// range, and unique where PyTorch leaves the result of duplicates
// unspecified (index_put_ without accumulate, index_copy_, scatter_); the
// accumulating ops often get duplicates. Targets come from pick_target
// (views of inputs, aliased inputs, hot aliases), where compilers diverge.
#include "generate/gen_state.h"

namespace af::fuzz::detail {

namespace {
constexpr int kIndexSlots = 2, kMaskSlots = 1;
}  // namespace

void Gen::make_index_slots() {
  bool any = false;
  for (OpKind k : generated_ops()) any = any || (ir::is_indexed(k) && enabled(k));
  if (!any) return;  // programs without indexed ops stay exactly as before format v1.2
  for (int k = 0; k < kIndexSlots + kMaskSlots; ++k) {
    const bool mask = k >= kIndexSlots;
    ir::StorageDecl d;
    d.name = mask ? "mask" + std::to_string(k - kIndexSlots) : "idx" + std::to_string(k);
    d.dtype = mask ? ir::Dtype::Bool : ir::Dtype::I64;
    d.numel = 1;
    d.init = ir::InitKind::List;
    d.values = {0.f};
    const int s = static_cast<int>(program.storages.size());
    program.storages.push_back(d);
    analysis.storage_numel.push_back(1);
    memory.append(1);  // the placeholder's value 0, exact
    noise.append(1);
    storage_last_write.push_back(-1);
    ir::InputDecl in;
    in.name = mask ? "m" + std::to_string(k - kIndexSlots) : "i" + std::to_string(k);
    in.storage = s;
    ir::TensorMeta m{Geometry{{1}, {1}, 0}, s, 1, next_impl++, d.dtype};
    analysis.values.push_back(m);
    index_slots.push_back(program.new_value(in.name));
    slot_used.push_back(false);
    program.inputs.push_back(std::move(in));
    def_stmt.push_back(-1);
  }
  analysis.num_declared = static_cast<int>(program.storages.size());
}

int Gen::define_index(const ir::StorageDecl& d, const ir::InputDecl& in) {
  for (size_t k = 0; k < index_slots.size(); ++k) {
    const int v = index_slots[k];
    const int s = meta(v).storage;
    if (slot_used[k] || program.storages[s].dtype != d.dtype) continue;
    ir::StorageDecl nd = d;
    nd.name = program.storages[s].name;
    program.storages[s] = nd;
    ir::InputDecl& pin = program.inputs[v];
    pin.whole = in.whole;
    pin.sizes = in.sizes;
    pin.strides = in.strides;
    pin.offset = in.offset;
    ir::TensorMeta& m = analysis.values[v];
    m.storage_numel = nd.numel;
    m.g = in.whole ? Geometry{{nd.numel}, {1}, 0} : Geometry{in.sizes, in.strides, in.offset};
    analysis.storage_numel[s] = nd.numel;
    memory.reset(s, nd.numel);
    ir::initial_values_into(nd, memory[s].data());
    noise.reset(s, nd.numel);
    slot_used[k] = true;
    return static_cast<int>(k);
  }
  return -1;
}

void Gen::release_index(int k) {
  const int v = index_slots[k];
  const int s = meta(v).storage;
  ir::StorageDecl& d = program.storages[s];
  d.numel = 1;
  d.init = ir::InitKind::List;
  d.a = d.b = 0;  // (an iota spelling's fields; the placeholder has none)
  d.seed = 0;
  d.values = {0.f};
  ir::InputDecl& in = program.inputs[v];
  in.whole = true;
  in.sizes.clear();
  in.strides.clear();
  in.offset = 0;
  analysis.values[v].g = Geometry{{1}, {1}, 0};
  analysis.values[v].storage_numel = 1;
  analysis.storage_numel[s] = 1;
  memory.reset(s, 1);
  noise.reset(s, 1);
  slot_used[k] = false;
}

int Gen::index_input(const std::vector<int64_t>& vals, const Shape& sizes, int* slot_pos) {
  ir::StorageDecl d;
  d.dtype = ir::Dtype::I64;
  d.init = ir::InitKind::List;
  ir::InputDecl in;
  const int64_t n = static_cast<int64_t>(vals.size());
  if (sizes.size() == 1 && rng.chance(300)) {
    // A strided view of a larger index storage: the input a compiler gets
    // is not the storage itself; the other elements are never read.
    const int64_t off = rng.below(2);
    d.numel = 2 * n + off;
    for (int64_t i = 0; i < d.numel; ++i) d.values.push_back(static_cast<float>(rng.range(-3, 9)));
    for (int64_t i = 0; i < n; ++i) d.values[off + 2 * i] = static_cast<float>(vals[i]);
    in.whole = false;
    in.sizes = sizes;
    in.strides = {2};
    in.offset = off;
  } else {
    d.numel = n;
    for (int64_t v : vals) d.values.push_back(static_cast<float>(v));
    // Iota spelling when the indices count up by one.
    bool iota = n > 1;
    for (int64_t i = 1; i < n && iota; ++i) iota = vals[i] == vals[0] + i;
    if (iota) {
      d.init = ir::InitKind::Iota;
      d.a = static_cast<double>(vals[0]);
      d.b = 1;
      d.values.clear();
    }
    in.whole = sizes.size() == 1;
    if (!in.whole) {
      in.sizes = sizes;
      in.strides = ir::contiguous_strides(sizes);
    }
  }
  *slot_pos = define_index(d, in);
  return *slot_pos < 0 ? -1 : index_slots[*slot_pos];
}

int Gen::source_of(Shape sizes, int x) {
  if (rng.chance(2 * kPartialAliasPerMille)) {
    const int a = partial_alias_of(x, sizes);
    if (a >= 0) return a;
  }
  int v = pick_where([&](int v) { return geo(v).sizes == sizes && meta(v).storage != meta(x).storage; });
  if (v >= 0) return v;
  // A disabled full (weight 0: the compiler under test lacks it) is never
  // emitted as a helper either; the recipe then gives up.
  if (ir::numel_of(sizes) == 0 || !enabled(OpKind::Full)) return -1;
  const int n = emit(OpKind::Full, {L(sizes), F(rng.pick(kFill))});
  return n > 0 ? program.stmts.back().outs[0] : -1;
}

bool Gen::emit_indexed(OpKind op, std::vector<Arg> args, int slot_pos) {
  if (emit(op, std::move(args), rng.chance(150)) >= 0) return true;
  release_index(slot_pos);
  return false;
}

// `count` indices in [0, n) (n > 0): distinct unless `dups` or count > n
// (only the accumulating ops ask for more indices than n), repeats drawn
// from a few values.
static std::vector<int64_t> draw_indices(Rng& rng, int64_t count, int64_t n, bool dups) {
  std::vector<int64_t> pool(n);
  for (int64_t i = 0; i < n; ++i) pool[i] = i;
  for (int64_t i = n - 1; i > 0; --i) std::swap(pool[i], pool[rng.below(i + 1)]);
  std::vector<int64_t> r;
  for (int64_t i = 0; i < count; ++i) r.push_back(dups || i >= n ? pool[rng.below(std::min<int64_t>(n, 3))] : pool[i]);
  return r;
}

bool Gen::recipe_index_put(OpKind op) {
  int x = pick_target();
  if (x < 0 || geo(x).rank() < 1 || geo(x).sizes[0] == 0) return false;
  const Shape xs = geo(x).sizes;  // a copy: source_of may emit
  const int64_t n = xs[0];
  const bool acc = rng.chance(500);
  const int64_t k = acc ? rng.range(1, 5) : rng.range(1, std::min<int64_t>(n, 4));
  std::vector<int64_t> vals = draw_indices(rng, k, n, acc);
  for (auto& v : vals)
    if (rng.chance(250)) v -= n;  // Python's negative indexing
  Shape slot{k};
  for (size_t d = 1; d < xs.size(); ++d) slot.push_back(xs[d]);
  // The values: exactly the indexing result's shape, or a tensor broadcasting to it.
  int v = rng.chance(300) ? pick_where([&](int c) {
    return broadcasts_to(geo(c).sizes, slot) && meta(c).storage != meta(x).storage && geo(c).numel() > 0;
  })
                          : -1;
  if (v < 0) v = source_of(slot, x);
  if (v < 0) return false;
  int pos;
  const int idx = index_input(vals, {k}, &pos);
  if (idx < 0) return false;
  return emit_indexed(op, {T(x), T(idx), T(v), I(acc ? 1 : 0)}, pos);
}

// The x of an out-of-place indexed op (format v1.5): a target as the
// in-place ops pick one, else any value of rank >= 1; in 40% of them
// expanded over a new leading dim of 2 (stride 0: the layout the in-place
// op refuses, which the copy must turn into a contiguous tensor), half of
// those an intermediate the program computed (a compiler may write the
// copy into that buffer: Inductor's reinplacing, pytorch#183986).
int Gen::indexed_copy_operand() {
  const bool expand = rng.chance(400);
  int x = expand && rng.chance(500) ? pick_where([&](int v) {
    return geo(v).rank() >= 1 && meta(v).storage >= analysis.num_declared;
  })
                                    : -1;
  if (x < 0) x = pick_target();
  if (x < 0) x = pick_where([&](int v) { return geo(v).rank() >= 1; });
  if (x < 0 || geo(x).rank() < 1 || !expand || 2 * geo(x).numel() > cap() || !enabled(OpKind::Expand)) return x;
  const int b = batch_of(x, 2, true);
  return b < 0 ? x : b;
}

// An out-of-place indexed op's result, often copied back into its x
// (`x.copy_(x.index_add(..))`, format v1.5) when x can be written.
bool Gen::write_back_copy(int x) {
  const int r = num_values() - 1;
  if (writable(x) && rng.chance(400)) write_back(x, r, 0);
  return true;
}

bool Gen::recipe_index_along(OpKind op) {
  const bool copy = ir::is_indexed_copy(op);
  int x = copy ? indexed_copy_operand() : pick_target();
  if (x < 0 || geo(x).rank() < 1) return false;
  const Shape xs = geo(x).sizes;
  const int d = static_cast<int>(rng.below(static_cast<int64_t>(xs.size())));
  const int64_t n = xs[d];
  if (n == 0) return false;
  const bool add = ir::indexed_write_op(op) == OpKind::IndexAddI;
  const int64_t k = add ? rng.range(1, 5) : rng.range(1, std::min<int64_t>(n, 4));
  const std::vector<int64_t> vals = draw_indices(rng, k, n, add && rng.chance(500));
  Shape ss = xs;
  ss[d] = k;
  const int src = source_of(ss, x);
  if (src < 0) return false;
  int pos;
  const int idx = index_input(vals, {k}, &pos);
  if (idx < 0) return false;
  if (!emit_indexed(op, {T(x), I(rng.chance(150) ? d - static_cast<int64_t>(xs.size()) : d), T(idx), T(src)}, pos))
    return false;
  return !copy || write_back_copy(x);
}

bool Gen::recipe_scatter_along(OpKind op) {
  const bool copy = ir::is_indexed_copy(op);
  int x = copy ? indexed_copy_operand() : pick_target();
  if (x < 0 || geo(x).rank() < 1 || geo(x).numel() == 0) return false;
  const Shape xs = geo(x).sizes;
  const int r = static_cast<int>(xs.size());
  const int d = static_cast<int>(rng.below(r));
  const bool add = ir::indexed_write_op(op) == OpKind::ScatterAddI;
  // The index's shape: at most the target's along the other dims; along
  // dim at most the target's size for scatter_ (each column distinct).
  Shape is(r);
  for (int k = 0; k < r; ++k) is[k] = rng.range(1, std::min<int64_t>(xs[k], 4));
  if (add) is[d] = rng.range(1, 4);
  if (ir::numel_of(is) > 48) return false;
  // Columns along dim: distinct values for scatter_.
  int64_t outer = 1, inner = 1;
  for (int k = 0; k < d; ++k) outer *= is[k];
  for (int k = d + 1; k < r; ++k) inner *= is[k];
  std::vector<int64_t> vals(ir::numel_of(is));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const std::vector<int64_t> col = draw_indices(rng, is[d], xs[d], add && rng.chance(500));
      for (int64_t j = 0; j < is[d]; ++j) vals[(o * is[d] + j) * inner + i] = col[j];
    }
  // The source: the index's shape, sometimes larger (only its leading corner is read).
  Shape ss = is;
  if (rng.chance(300))
    for (int k = 0; k < r; ++k) ss[k] += rng.below(2);
  const int src = source_of(ss, x);
  if (src < 0) return false;
  int pos;
  const int idx = index_input(vals, is, &pos);
  if (idx < 0) return false;
  if (!emit_indexed(op, {T(x), I(rng.chance(150) ? d - r : d), T(idx), T(src)}, pos)) return false;
  return !copy || write_back_copy(x);
}

bool Gen::recipe_masked_fill(OpKind op) {
  int x = pick_target();
  if (x < 0) return false;
  const Shape xs = geo(x).sizes;
  // The mask: the target's shape, or its trailing dims (broadcast over the leading ones).
  Shape ms = xs;
  if (!ms.empty() && rng.chance(300)) ms.erase(ms.begin(), ms.begin() + rng.range(1, static_cast<int64_t>(ms.size())));
  const int64_t n = ir::numel_of(ms);
  if (n == 0 || n > 64) return false;
  ir::StorageDecl d;
  d.dtype = ir::Dtype::Bool;
  d.numel = n;
  const int density = static_cast<int>(rng.below(3));  // sparse, dense, random(seed): half
  if (density == 2) {
    d.init = ir::InitKind::Random;
    d.seed = rng.next() >> 40;
  } else {
    d.init = ir::InitKind::List;
    for (int64_t i = 0; i < n; ++i) d.values.push_back(rng.chance(density == 0 ? 150 : 850) ? 1.f : 0.f);
  }
  ir::InputDecl in;
  in.whole = ms.size() == 1;
  if (!in.whole) {
    in.sizes = ms;
    in.strides = ir::contiguous_strides(ms);
  }
  const int pos = define_index(d, in);
  if (pos < 0) return false;
  return emit_indexed(op, {T(x), T(index_slots[pos]), F(rng.pick(kFill))}, pos);
}

}  // namespace af::fuzz::detail
