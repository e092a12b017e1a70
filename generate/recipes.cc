// The per-op recipes of the generator: for an op drawn by the driver, the
// random arguments its GenRecipe (ir/ops.h) calls for. Each recipe picks
// tensors that make the op interesting (writable aliases for in-place ops,
// safe divisors, small exp arguments) and hands the statement to emit(),
// which keeps it only if it is valid and numerically safe.
#include "generate/gen_state.h"

namespace af::fuzz::detail {

// A number argument; integral values are sometimes written as integers
// (`add_(x, 2)`), which the format and PyTorch accept as well.
Arg Gen::F(double f) {
  if (f == std::floor(f) && std::fabs(f) < 1e6 && rng.chance(150)) return Arg::integer(static_cast<int64_t>(f));
  return Arg::number(f);
}

Arg Gen::scalar_or_tensor(const Shape& to, const double* scalars, size_t ns, float min_abs, int avoid) {
  if (!rng.chance(450)) {
    int v = pick_operand_for(to, min_abs, avoid);
    if (v >= 0) return T(v);
  }
  return F(scalars[rng.below(static_cast<int64_t>(ns))]);
}

bool Gen::recipe_reshape(OpKind op) {
  const int maxr = max_rank();
  int x = pick_where([&](int v) { return geo(v).numel() > 0; });
  if (x < 0) return false;
  const int rank = static_cast<int>(rng.range(1, maxr));
  Shape s = factor(geo(x).numel(), rank);
  if (rng.chance(300)) s[rng.below(rank)] = -1;
  if (emit(op, {T(x), L(s)}) >= 0) return true;
  // a view that is not expressible with strides: reshape copies instead
  return op == OpKind::View && enabled(OpKind::Reshape) && rng.chance(500) && emit(OpKind::Reshape, {T(x), L(s)}) >= 0;
}

bool Gen::recipe_whole(OpKind op) {
  int x = pick_any();
  return emit(op, {T(x)}) >= 0;
}

bool Gen::recipe_t(OpKind op) {
  int x = pick_where([&](int v) { return geo(v).rank() == 2; });
  if (x < 0) x = pick_where([&](int v) { return geo(v).rank() <= 2; });
  if (x < 0) return false;
  return emit(op, {T(x)}) >= 0;
}

bool Gen::recipe_transpose(OpKind op) {
  int x = pick_where([&](int v) { return geo(v).rank() >= 2; });
  if (x < 0) return false;
  const int rank = geo(x).rank();
  return emit(op, {T(x), I(rand_dim(rank)), I(rand_dim(rank))}) >= 0;
}

bool Gen::recipe_permute(OpKind op) {
  int x = pick_where([&](int v) { return geo(v).rank() >= 2; });
  if (x < 0) return false;
  const int rank = geo(x).rank();
  Shape perm(rank);
  for (int i = 0; i < rank; ++i) perm[i] = i;
  for (int i = rank - 1; i > 0; --i) std::swap(perm[i], perm[rng.below(i + 1)]);
  if (rng.chance(150)) perm[0] -= rank;
  return emit(op, {T(x), L(perm)}) >= 0;
}

// Format v1.5's flip: distinct dims (sometimes negative); then often its
// result written back into x (add_ or copy_): eager flips first, and a
// compiler that fuses the flip's reads with the write reads written
// elements (the foreach bug of issue #58 in its plainest form).
bool Gen::recipe_flip(OpKind op) {
  int x = pick_where([&](int v) { return geo(v).rank() >= 1; });
  if (x < 0) return false;
  const int rank = geo(x).rank();
  Shape dims;
  for (int d = 0; d < rank; ++d)
    if (rng.chance(500)) dims.push_back(rng.chance(150) ? d - rank : d);
  if (dims.empty()) dims.push_back(rand_dim(rank));
  if (emit(op, {T(x), L(dims)}) < 0) return false;
  const int t = num_values() - 1;
  if (writable(x) && rng.chance(600)) write_back(x, t, 500);
  return true;
}

// Format v1.5's write of a result back into its source (flip, bmm,
// indexed copies): add_ in `add_per_mille` of them, else copy_; an op the
// caller disabled (weight 0) is never emitted, as for every recipe.
void Gen::write_back(int x, int r, int add_per_mille) {
  const bool add = enabled(OpKind::AddI) && (!enabled(OpKind::CopyI) || rng.chance(add_per_mille));
  if (add || enabled(OpKind::CopyI)) emit(add ? OpKind::AddI : OpKind::CopyI, {T(x), T(r)});
}

// x given a new leading dim, `unsqueeze(x, 0)`, then (when `expand`)
// expanded over `batch`: stride 0, one tensor read `batch` times, the layout
// compilers mishandle (format v1.5's bmm batches and indexed copies).
// Returns the last value made, or -1 when not even the unsqueeze was.
int Gen::batch_of(int x, int64_t batch, bool expand) {
  if (!enabled(OpKind::Unsqueeze) || emit(OpKind::Unsqueeze, {T(x), I(0)}) < 1) return -1;
  const int u = num_values() - 1;
  if (!expand || !enabled(OpKind::Expand)) return u;
  Shape to = geo(x).sizes;
  to.insert(to.begin(), batch);
  return emit(OpKind::Expand, {T(u), L(to)}) < 1 ? u : num_values() - 1;
}

bool Gen::recipe_slice(OpKind op) {
  int x = pick_where([&](int v) { return geo(v).rank() >= 1 && geo(v).numel() > 1; });
  if (x < 0) return false;
  const Geometry& g = geo(x);
  const int d = static_cast<int>(rng.below(g.rank()));
  const int64_t n = g.sizes[d];
  const int64_t dim = rng.chance(150) ? d - g.rank() : d;
  if (op == OpKind::Select) {
    int64_t i = rng.below(n);
    if (rng.chance(200)) i -= n;
    return emit(op, {T(x), I(dim), I(i)}) >= 0;
  }
  const int64_t start = rng.below(n);
  const int64_t len = rng.range(1, n - start);
  if (op == OpKind::Narrow) return emit(op, {T(x), I(dim), I(start), I(len)}) >= 0;
  int64_t end = start + len;
  if (end == n && rng.chance(200)) end = n + rng.range(1, 3);  // clamped like Python
  int64_t s0 = start;
  if (s0 > 0 && rng.chance(150)) s0 -= n;  // negative start
  const int64_t step = rng.chance(250) ? rng.range(2, 3) : 1;
  return emit(op, {T(x), I(dim), I(s0), I(end), I(step)}) >= 0;
}

bool Gen::recipe_unsqueeze(OpKind op) {
  const int maxr = max_rank();
  int x = pick_where([&](int v) { return geo(v).rank() < maxr; });
  if (x < 0) return false;
  const int rank = geo(x).rank();
  return emit(op, {T(x), I(rng.range(-(rank + 1), rank))}) >= 0;
}

bool Gen::recipe_squeeze(OpKind op) {
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
  int64_t d = (!ones.empty() && rng.chance(800)) ? rng.pick(ones) : rand_dim(g.rank());
  return emit(op, {T(x), I(d)}) >= 0;
}

bool Gen::recipe_expand(OpKind op) {
  const int maxr = max_rank();
  int x = pick_where([&](int v) {
    if (geo(v).rank() < maxr) return true;
    for (auto s : geo(v).sizes)
      if (s == 1) return true;
    return false;
  });
  if (x < 0) return false;
  const Geometry& g = geo(x);
  Shape s;
  if (g.rank() < maxr && (rng.chance(500) || g.rank() == 0)) s.push_back(rng.range(2, 3));
  // A 0-d tensor expands with all strides 0 in PyTorch; ir::infer
  // gives new size-1 dims a stride of 1, so only sizes >= 2 here.
  if (g.rank() == 0 && maxr >= 2 && rng.chance(500)) s.push_back(rng.range(2, 3));
  for (int d = 0; d < g.rank(); ++d) {
    int64_t t = g.sizes[d];
    if (t == 1 && rng.chance(700))
      t = rng.range(2, 4);
    else if (rng.chance(300))
      t = -1;
    s.push_back(t);
  }
  return emit(op, {T(x), L(s)}) >= 0;
}

bool Gen::recipe_diagonal(OpKind op) {
  int x = pick_where([&](int v) { return geo(v).rank() >= 2; });
  if (x < 0) return false;
  const int rank = geo(x).rank();
  int64_t d0 = rng.below(rank), d1 = rng.below(rank - 1);
  if (d1 >= d0) ++d1;
  return emit(op, {T(x), I(rng.range(-1, 1)), I(d0), I(d1)}) >= 0;
}

bool Gen::recipe_as_strided(OpKind op) {
  const int maxr = max_rank();
  int x = pick_any();
  const int64_t sn = meta(x).storage_numel;
  Shape sz, st;
  int64_t off;
  if (sn >= 4 && maxr >= 2 && rng.chance(120)) {
    // analysis overlapping window (sliding rows, or a broadcast row): fine to
    // read, to fill_ and zero_; other writes are refused by ir::infer
    const int64_t b = rng.range(2, std::min<int64_t>(sn, 4));
    const int64_t a = rng.range(2, 3);
    const int64_t step = rng.below(b);  // 0: every row the same elements
    sz = {a, b};
    st = {step, 1};
    const int64_t need = ir::required_storage(Geometry{sz, st, 0});
    if (need > sn) return false;
    off = rng.range(0, sn - need);
  } else if (!window(sn, &sz, &st, &off)) {
    return false;
  }
  return emit(op, {T(x), L(sz), L(st), I(off)}) >= 0;
}

bool Gen::recipe_split(OpKind op) {
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
  const int64_t d = rng.pick(dims);
  const int64_t n = g.sizes[d];
  const int64_t dim = rng.chance(150) ? d - g.rank() : d;
  if (op == OpKind::Unbind) return emit(op, {T(x), I(dim)}) >= 0;
  if (op == OpKind::Chunk) return emit(op, {T(x), I(rng.range(2, std::min<int64_t>(n, 4))), I(dim)}) >= 0;
  const int64_t lo = (n + 3) / 4;
  return emit(op, {T(x), I(rng.range(std::max<int64_t>(lo, 1), n - 1)), I(dim)}) >= 0;
}

bool Gen::recipe_unfold(OpKind op) {
  int x = pick_where([&](int v) { return geo(v).rank() >= 1 && geo(v).numel() > 0; });
  if (x < 0) return false;
  const Geometry& g = geo(x);
  const int d = static_cast<int>(rng.below(g.rank()));
  const int64_t n = g.sizes[d];
  const int64_t size = rng.range(1, n);
  // Overlapping windows (step < size) half the time.
  const int64_t step = size > 1 && rng.chance(500) ? rng.range(1, size - 1) : rng.range(size, n + 1);
  return emit(op, {T(x), I(rng.chance(150) ? d - g.rank() : d), I(size), I(step)}) >= 0;
}

bool Gen::recipe_meta_in_place(OpKind op) {
  const OpKind view = ir::geometry_op(op);
  const int maxr = max_rank();
  // The five views a metadata op mirrors (its functional column), by op as
  // the arguments below are: a new metadata op adds its view to both.
  auto fits = [&](int v) {
    const int r = geo(v).rank();
    if (view == OpKind::Transpose) return r >= 2;
    if (view == OpKind::T) return r <= 2;
    if (view == OpKind::Squeeze) return r >= 1;
    if (view == OpKind::Unsqueeze) return r < maxr;
    return geo(v).numel() > 0;  // as_strided
  };
  // An input or a view of one most of the time: the caller's tensor changes.
  int x = rng.chance(650) ? pick_where([&](int v) { return meta(v).storage < analysis.num_declared && fits(v); }) : -1;
  if (x < 0) x = pick_where(fits);
  if (x < 0) return false;
  const Geometry& g = geo(x);
  std::vector<Arg> args{T(x)};
  if (view == OpKind::Transpose) {
    args.push_back(I(rand_dim(g.rank())));
    args.push_back(I(rand_dim(g.rank())));
  } else if (view == OpKind::Squeeze) {
    std::vector<int64_t> ones;
    for (int d = 0; d < g.rank(); ++d)
      if (g.sizes[d] == 1) ones.push_back(d);
    args.push_back(I((!ones.empty() && rng.chance(700)) ? rng.pick(ones) : rand_dim(g.rank())));
  } else if (view == OpKind::Unsqueeze) {
    args.push_back(I(rng.range(-(g.rank() + 1), g.rank())));
  } else if (view == OpKind::AsStrided) {
    Shape sz, st;
    int64_t off;
    if (!window(meta(x).storage_numel, &sz, &st, &off)) return false;
    args.push_back(L(sz));
    args.push_back(L(st));
    args.push_back(I(off));
  }
  if (emit(op, std::move(args)) < 0) return false;
  // Reads and writes through the new geometry follow.
  if (rng.chance(500)) pending_target = program.stmts.back().outs[0];
  return true;
}

bool Gen::recipe_in_place_binary(OpKind op) {
  int x = pick_target();
  if (x < 0) return false;
  const Shape to = geo(x).sizes;
  // custom_scale_ (format v1.4) takes a number only: mul_'s scalars.
  if (ir::op_info(op).sig[1] == 'N') return emit(op, {T(x), F(rng.pick(kMulScalars))}) >= 0;
  Arg y = op == OpKind::DivI   ? scalar_or_tensor(to, kDivScalars, std::size(kDivScalars), 0.5f, x)
          : op == OpKind::MulI ? scalar_or_tensor(to, kMulScalars, std::size(kMulScalars), 0, x)
                               : scalar_or_tensor(to, kSmall, std::size(kSmall), 0, x);
  if (y.kind == Arg::Tensor && rng.chance(100) && op != OpKind::DivI) y = T(x);  // x op= x
  return emit(op, {T(x), y}, rng.chance(150)) >= 0;
}

bool Gen::recipe_in_place_unary(OpKind op) {
  int x = op == OpKind::ZeroI && rng.chance(200) ? pick_any() : pick_target();
  if (x < 0) return false;
  if (op == OpKind::ExpI && !(max_of(x) <= 4.0f)) return false;
  return emit(op, {T(x)}, rng.chance(150)) >= 0;
}

bool Gen::recipe_clamp(OpKind op) {
  int x = pick_target();
  if (x < 0) return false;
  const double lo = rng.pick(kSmall) - 1.0;
  const double hi = lo + rng.range(1, 6) * 0.5;
  // (arguments built before the call: the order of evaluation of a
  // call's arguments is unspecified, and each draws random numbers)
  std::vector<Arg> args{T(x), F(lo), F(hi)};
  return emit(op, std::move(args), rng.chance(150)) >= 0;
}

bool Gen::recipe_fill(OpKind op) {
  int x = rng.chance(300) ? pick_any() : pick_target();  // fill_ may write analysis expanded tensor
  if (x < 0) return false;
  std::vector<Arg> args{T(x), F(rng.pick(kFill))};
  return emit(op, std::move(args), rng.chance(150)) >= 0;
}

bool Gen::recipe_copy(OpKind op) {
  int x = pending_target < 0 && rng.chance(400)
              ? pick_where([&](int v) { return v < static_cast<int>(program.inputs.size()) && writable(v); })
              : pick_target();
  if (x < 0) x = pick_target();
  if (x < 0) return false;
  int y = pick_operand_for(geo(x).sizes, 0, x);
  if (y < 0) return false;
  return emit(op, {T(x), T(y)}, rng.chance(150)) >= 0;
}

bool Gen::recipe_setitem(OpKind op) {
  int x = pick_target();
  if (x < 0 || geo(x).rank() < 1) x = pick_where([&](int v) { return geo(v).rank() >= 1 && writable(v); });
  if (x < 0) return false;
  const Geometry& g = geo(x);
  const int d = static_cast<int>(rng.below(g.rank()));
  const int64_t n = g.sizes[d];
  const int64_t start = rng.below(n), end = rng.range(start + 1, n);
  Shape dst = g.sizes;
  dst[d] = end - start;
  Arg v = F(rng.pick(kFill));
  if (rng.chance(700)) {
    int y = pick_operand_for(dst);
    // PyTorch strips the value's leading 1s: a value of all-1 sizes
    // becomes 0-d and expands with all strides 0, and its overlap
    // check then differs from ir::infer's (which keeps stride 1 for
    // size-1 dims; reported). Avoid that case when it shares memory.
    if (y >= 0 && geo(y).rank() >= 1 && geo(y).numel() == 1 && meta(y).storage == meta(x).storage) y = -1;
    if (y >= 0) v = T(y);
  }
  return emit(op, {T(x), I(rng.chance(150) ? d - g.rank() : d), I(start), I(end), v}) >= 0;
}

// Format v1.5's out= forms (addcmul_out, addcdiv_out, lerp_out) put the
// out tensor first: a target as the in-place forms pick one (a view of an
// input, an aliased input), its first operand often x itself (out= into
// its own input, which TensorIterator allows) or another operand of x's
// shape (often a view sharing x's storage; x when there is none).
std::vector<Arg> Gen::with_out(OpKind op, int x, std::vector<Arg> args) {
  if (!ir::is_out_variant(op)) return args;
  int first = rng.chance(300) ? x : pick_operand_for(geo(x).sizes, 0, x);
  if (first < 0) first = x;
  args.insert(args.begin() + 1, T(first));
  return args;
}

bool Gen::recipe_addc(OpKind op) {
  int x = pick_target();
  if (x < 0) return false;
  const Shape to = geo(x).sizes;
  int t1 = rng.chance(100) ? x : pick_operand_for(to, 0, x);  // an operand identical to x is legal
  const bool div = ir::math_of(op) == ir::Math::Addcdiv;
  int t2 = pick_operand_for(to, div ? 0.5f : 0.f, x);
  if (t2 < 0 && div && ir::is_out_variant(op) && enabled(OpKind::Full) && emit(OpKind::Full, {L(to), F(2.0)}) >= 1)
    t2 = num_values() - 1;  // format v1.5's addcdiv_out: a divisor away from 0 when no value is one
  if (t1 < 0 || t2 < 0) return false;
  std::vector<Arg> args = with_out(op, x, {T(x), T(t1), T(t2), F(rng.pick(kSmall))});
  return emit(op, std::move(args), rng.chance(150)) >= 0;
}

bool Gen::recipe_lerp(OpKind op) {
  int x = pick_target();
  if (x < 0) return false;
  const Shape to = geo(x).sizes;
  int end = pick_operand_for(to, 0, x);
  if (end < 0) return false;
  Arg w = F(rng.pick(kLerpWeights));
  if (rng.chance(400)) {
    int wt = pick_operand_for(to, 0, x);
    if (wt >= 0) w = T(wt);
  }
  std::vector<Arg> args = with_out(op, x, {T(x), T(end), w});
  return emit(op, std::move(args), rng.chance(150)) >= 0;
}

bool Gen::recipe_clamp_tensor(OpKind op) {
  int x = pick_target();
  if (x < 0) return false;
  const Shape to = geo(x).sizes;
  int lo = pick_operand_for(to, 0, x);
  int hi = pick_operand_for(to, 0, x);  // lo > hi somewhere is legal: the result is hi there
  if (lo < 0 || hi < 0) return false;
  return emit(op, {T(x), T(lo), T(hi)}, rng.chance(150)) >= 0;
}

int Gen::pick_same_shape(int x, float min_abs) {
  const Shape to = geo(x).sizes;  // a copy: partial_alias_of's emit() may move geo(x)
  auto ok = [&](int v) { return geo(v).sizes == to && (min_abs <= 0 || min_abs_at_least(v, min_abs)); };
  if (rng.chance(kPartialAliasPerMille)) {
    const int v = partial_alias_of(x, to);
    if (v >= 0 && ok(v)) return v;
  }
  if (rng.chance(150) && ok(x)) return x;
  if (rng.chance(600)) {
    int v = pick_where([&](int v) { return v != x && meta(v).storage == meta(x).storage && ok(v); });
    if (v >= 0) return v;
  }
  return pick_where(ok);
}

bool Gen::recipe_out_binary(OpKind op) {
  int c = pick_target();
  if (c < 0) return false;
  const Shape to = geo(c).sizes;
  // One operand has the out tensor's shape exactly, the other broadcasts to it
  // (or is a number): their broadcast shape is then c's, as the format requires.
  const bool div = op == OpKind::DivOut;
  const double* pool = div ? kDivScalars : op == OpKind::MulOut ? kMulScalars : kSmall;
  const size_t np = div ? std::size(kDivScalars) : op == OpKind::MulOut ? std::size(kMulScalars) : std::size(kSmall);
  const bool exact_first = rng.chance(650);
  int e = pick_same_shape(c, (div && !exact_first) ? 0.5f : 0);
  if (e < 0) return false;
  Arg other = scalar_or_tensor(to, pool, np, (exact_first && div) ? 0.5f : 0, -1);
  if (exact_first) return emit(op, {T(c), T(e), other}, rng.chance(150)) >= 0;
  if (other.kind != Arg::Tensor) return false;  // a number cannot be the first operand
  return emit(op, {T(c), other, T(e)}, rng.chance(150)) >= 0;
}

bool Gen::recipe_out_unary(OpKind op) {
  int c = pick_target();
  if (c < 0) return false;
  int a = pick_same_shape(c);
  if (a < 0) return false;
  if (op == OpKind::ExpOut && !(max_of(a) <= 4.0f)) return false;
  return emit(op, {T(c), T(a)}, rng.chance(150)) >= 0;
}

bool Gen::recipe_binary(OpKind op) {
  const int maxr = max_rank();
  int a = pick_any();
  Arg b = F(op == OpKind::Div ? rng.pick(kDivScalars) : op == OpKind::Mul ? rng.pick(kMulScalars) : rng.pick(kSmall));
  if (!rng.chance(350)) {
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

bool Gen::recipe_unary(OpKind op) {
  int a = pick_any();
  if (op == OpKind::Exp && !(max_of(a) <= 4.0f)) return false;
  return emit(op, {T(a)}) >= 0;
}

bool Gen::recipe_reduce(OpKind op) {
  int a = pick_where([&](int v) { return geo(v).rank() >= 1; });
  if (a < 0) a = pick_any();
  const int rank = std::max(1, geo(a).rank());
  if (op == OpKind::Softmax) return emit(op, {T(a), I(rand_dim(rank))}) >= 0;
  return emit(op, {T(a), I(rand_dim(rank)), I(rng.below(2))}) >= 0;
}

bool Gen::recipe_matmul(OpKind op) {
  int a = pick_where([&](int v) { return geo(v).rank() == 2; });
  if (a < 0) return false;
  const int64_t k = geo(a).sizes[1];
  int b = pick_where(
      [&](int v) { return geo(v).rank() == 2 && geo(v).sizes[0] == k && geo(a).sizes[0] * geo(v).sizes[1] <= cap(); });
  if (b < 0) {  // multiply by its own transpose
    if (!enabled(OpKind::T) || geo(a).sizes[0] * geo(a).sizes[0] > cap()) return false;
    const int nb = emit(OpKind::T, {T(a)});
    if (nb < 1) return false;
    b = program.stmts.back().outs[0];
  }
  return emit(op, {T(a), T(b)}) >= 0;
}

// bmm (format v1.5): a [B, m, k] batch, either a 3-D value or a matrix made
// one by unsqueeze(x, 0) and, most of the time, expanded over B = 2..3
// (stride 0 over the batch: one matrix read B times, the layout compilers
// mishandle), times a [B, k, n] value or the batch's own transpose(1, 2);
// the product is often written back into the batch (add_ or copy_).
bool Gen::recipe_bmm(OpKind op) {
  int a = pick_where([&](int v) { return geo(v).rank() == 3 && geo(v).sizes[0] * geo(v).sizes[1] <= cap(); });
  if (a < 0 || rng.chance(400)) {
    const int x = pick_where([&](int v) { return geo(v).rank() == 2 && geo(v).sizes[0] * geo(v).sizes[0] <= cap(); });
    if (x < 0) return false;
    const int64_t batch = rng.range(2, 3), m = geo(x).sizes[0];
    a = batch_of(x, batch, rng.chance(700) && batch * m * std::max<int64_t>(m, 1) <= cap());
    if (a < 0) return false;
  }
  const Shape sa = geo(a).sizes;
  int b = pick_where([&](int v) {
    const Shape& s = geo(v).sizes;
    return s.size() == 3 && s[0] == sa[0] && s[1] == sa[2] && sa[0] * sa[1] * s[2] <= cap();
  });
  if (b < 0) {  // the batch times its own transpose: [B, m, k] x [B, k, m]
    if (!enabled(OpKind::Transpose) || sa[0] * sa[1] * sa[1] > cap() || emit(OpKind::Transpose, {T(a), I(1), I(2)}) < 1)
      return false;
    b = num_values() - 1;
  }
  if (emit(op, {T(a), T(b)}) < 0) return false;
  const int r = num_values() - 1;
  if (writable(a) && geo(r).sizes == sa && rng.chance(600)) write_back(a, r, 500);
  return true;
}

bool Gen::recipe_cat(OpKind op) {
  int a = pick_where([&](int v) { return geo(v).rank() >= 1 && geo(v).numel() > 0; });
  if (a < 0) return false;
  const Geometry& g = geo(a);
  const int d = static_cast<int>(rng.below(g.rank()));
  std::vector<int64_t> parts{a};
  const int want = static_cast<int>(rng.range(1, 2));
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
  return emit(op, {Arg::tensors(parts), I(rng.chance(150) ? d - g.rank() : d)}) >= 0;
}

bool Gen::recipe_full(OpKind op) {
  const int maxr = max_rank();
  const int rank = static_cast<int>(rng.range(0, maxr));
  Shape s = factor(rank == 0 ? 1 : rng.range(1, std::min<int64_t>(cap(), 16)), rank);
  return emit(op, {L(s), F(rng.pick(kFill))}) >= 0;
}

// graph_break (format v1.4): right after a view or a write, so that the
// view, or the written storage, crosses the break into a later region of
// a Dynamo-based compiler; never first, never twice in a row.
bool Gen::recipe_graph_break(OpKind op) {
  if (program.stmts.empty()) return false;
  const ir::OpInfo& last = ir::op_info(program.stmts.back().op);
  if (last.cls != ir::OpClass::View && last.cls != ir::OpClass::InPlace) return false;
  return emit(op, {}) >= 0;
}

bool Gen::try_op(OpKind op) {
  // One recipe per GenRecipe (ir/ops.h); ops sharing a recipe differ only
  // in what the op itself does.
  using R = ir::GenRecipe;
  switch (ir::op_info(op).recipe) {
    case R::Reshape: return recipe_reshape(op);
    case R::Whole: return recipe_whole(op);
    case R::T: return recipe_t(op);
    case R::Transpose: return recipe_transpose(op);
    case R::Permute: return recipe_permute(op);
    case R::Slice: return recipe_slice(op);
    case R::Unsqueeze: return recipe_unsqueeze(op);
    case R::Squeeze: return recipe_squeeze(op);
    case R::Expand: return recipe_expand(op);
    case R::Diagonal: return recipe_diagonal(op);
    case R::AsStrided: return recipe_as_strided(op);
    case R::Split: return recipe_split(op);
    case R::Unfold: return recipe_unfold(op);
    case R::MetaInPlace: return recipe_meta_in_place(op);
    case R::InPlaceBinary: return recipe_in_place_binary(op);
    case R::InPlaceUnary: return recipe_in_place_unary(op);
    case R::Clamp: return recipe_clamp(op);
    case R::Fill: return recipe_fill(op);
    case R::Copy: return recipe_copy(op);
    case R::Setitem: return recipe_setitem(op);
    case R::Addc: return recipe_addc(op);
    case R::Lerp: return recipe_lerp(op);
    case R::ClampTensor: return recipe_clamp_tensor(op);
    case R::OutBinary: return recipe_out_binary(op);
    case R::OutUnary: return recipe_out_unary(op);
    case R::Binary: return recipe_binary(op);
    case R::Unary: return recipe_unary(op);
    case R::Reduce: return recipe_reduce(op);
    case R::Matmul: return recipe_matmul(op);
    case R::Cat: return recipe_cat(op);
    case R::Full: return recipe_full(op);
    case R::GraphBreak: return recipe_graph_break(op);
    case R::ViewDtype: return recipe_view_dtype(op);
    case R::Flip: return recipe_flip(op);
    case R::Bmm: return recipe_bmm(op);
    case R::MatmulNd: return recipe_matmul_nd(op);
    case R::IndexPut: return recipe_index_put(op);
    case R::IndexAlong: return recipe_index_along(op);
    case R::ScatterAlong: return recipe_scatter_along(op);
    case R::MaskedFill: return recipe_masked_fill(op);
    case R::NotGenerated: return false;
  }
  return false;
}

}  // namespace af::fuzz::detail
