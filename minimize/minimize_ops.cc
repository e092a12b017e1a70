// Minimizer passes that replace ops by their class's representative, so that
// findings of one bug meet at one program (triage/signature.h).
#include "minimize/minimize_edits.h"
#include "minimize/minimize_passes.h"

namespace af::fuzz::minimizing {

namespace {

// The simpler statements st may become, in the order they are tried.
std::vector<Stmt> simpler_stmts(const Stmt& st) {
  const auto& info = ir::op_info(st.op);
  std::vector<Stmt> cands;
  if (st.args.empty()) return cands;  // graph_break (format v1.4): only deleted
  auto with = [&](OpKind op, std::vector<Arg> args) {
    Stmt n = st;
    n.op = op;
    n.args = std::move(args);
    cands.push_back(n);
  };
  const bool view_like = info.cls == OpClass::View || info.cls == OpClass::MayAlias;
  if (view_like && st.outs.size() == 1 && st.op != OpKind::Alias) {
    if (st.op == OpKind::Reshape) with(OpKind::View, st.args);
    if (st.op == OpKind::Flatten) with(OpKind::View, {st.args[0], Arg::ints({-1})});
    // A metadata op (format v1.3) becomes the view it mirrors (same
    // geometry, x itself unchanged), before alias drops the geometry.
    if (ir::is_metadata_inplace(st.op)) with(ir::geometry_op(st.op), st.args);
    with(OpKind::Alias, {st.args[0]});
    // A may-alias op whose copy-or-view matters becomes reshape, the
    // representative of its class (flatten, contiguous: the same
    // decision over the same strides).
    if (info.cls == OpClass::MayAlias && st.op != OpKind::Reshape) with(OpKind::Reshape, {st.args[0], Arg::ints({-1})});
  }
  // Multi-output views become chunk with as many pieces along the same
  // dim (split's pieces are chunk's when the sizes agree; unbind's keep
  // a dim of 1, which later statements may accept).
  if (st.op == OpKind::Split || st.op == OpKind::Unbind) {
    const Arg dim = st.args[st.op == OpKind::Split ? 2 : 1];
    with(OpKind::Chunk, {st.args[0], Arg::integer(static_cast<int64_t>(st.outs.size())), dim});
  }
  // copy_ walks down the copy class: a fill of the whole tensor, else a
  // number written into its first slot (setitem_, the class's simplest
  // member that a strategy still treats as a copy; none for a 0-d x,
  // whose setitem_ is kind version).
  if (st.op == OpKind::CopyI) {
    with(OpKind::FillI, {st.args[0], Arg::number(1.0)});
    // (2.0 after 1.0: writing the value already there writes nothing.)
    for (double v : {1.0, 2.0})
      with(OpKind::SetitemI, {st.args[0], Arg::integer(0), Arg::integer(0), Arg::integer(1), Arg::number(v)});
    // A copy whose bug needs its source (a write through one alias that
    // reads another) meets the binary ops' representative: add_(x, y),
    // or add_(x, x) where the source is an alias whose add_ would be
    // order-dependent (a copy may read an element it writes onto itself).
    if (st.args[1].kind == Arg::Tensor) {
      with(OpKind::AddI, {st.args[0], st.args[1]});
      with(OpKind::AddI, {st.args[0], st.args[0]});
    }
  }
  // Every elementwise op becomes a representative of its class, when the
  // bug stays: in place add_(x, 1.0), else mul_(x, 2.0), else
  // fill_(x, 1.0), else clamp_(x, -1.0, 1.0); out of place add(x, 1.0),
  // else mul(x, 2.0). A
  // statement tries only the representatives before the one it already
  // is (whatever its constant), so every op walks down one list and
  // findings of one bug meet at one program (triage/signature.h). A bug
  // that needs two ops that do not commute keeps one of each.
  // (Reductions, cat, matmul and may-alias ops too: one that only reads
  // its operand for the bug is a read like any other.)
  const bool reads = ir::is_elementwise(st.op) || st.op == OpKind::FillI || st.op == OpKind::ZeroI ||
                     st.op == OpKind::ClampI || (info.cls == OpClass::MayAlias && st.outs.size() == 1) ||
                     (info.cls == OpClass::OutOfPlace && st.outs.size() == 1 && st.op != OpKind::Full);
  const bool first_tensor =
      st.args[0].kind == Arg::Tensor || (st.args[0].kind == Arg::TensorList && !st.args[0].list.empty());
  if (reads && first_tensor) {
    const Arg x = st.args[0].kind == Arg::Tensor ? st.args[0] : Arg::tensor(static_cast<int>(st.args[0].list[0]));
    using Rep = std::pair<OpKind, std::vector<Arg>>;
    // clamp_ last: an op a strategy splits into steps (clamp_, addcmul_,
    // lerp_, ... run on a private clone) keeps a bug in those steps.
    const std::vector<Rep> reps =
        ir::is_inplace(st.op)
            ? std::vector<Rep>{{OpKind::AddI, {x, Arg::number(1.0)}},
                               {OpKind::MulI, {x, Arg::number(2.0)}},
                               {OpKind::FillI, {x, Arg::number(1.0)}},
                               {OpKind::ClampI, {x, Arg::number(-1.0), Arg::number(1.0)}}}
            : std::vector<Rep>{{OpKind::Add, {x, Arg::number(1.0)}}, {OpKind::Mul, {x, Arg::number(2.0)}}};
    auto numbers_after_first = [&] {
      return std::all_of(st.args.begin() + 1, st.args.end(),
                         [](const Arg& a) { return a.kind == Arg::Float || a.kind == Arg::Int; });
    };
    size_t own = reps.size();
    for (size_t k = 0; k < reps.size(); ++k)
      if (st.op == reps[k].first && st.args.size() == reps[k].second.size() && numbers_after_first()) own = k;
    for (size_t k = 0; k < own; ++k) with(reps[k].first, reps[k].second);
    // A binary op that needs its tensor operand (a write through one
    // alias that reads another: div_(t, t)) becomes add_(x, y) / add(x, y).
    const OpKind add = ir::is_inplace(st.op) ? OpKind::AddI : OpKind::Add;
    if (ir::math_arity(info.math) == ir::MathArity::Binary && st.op != add && st.args.size() >= 2 &&
        st.args[0].kind == Arg::Tensor && st.args[1].kind == Arg::Tensor)
      with(add, {st.args[0], st.args[1]});
  }
  // Any other in-place write (the scatter and indexed families:
  // index_copy_, index_put_, scatter_, masked_fill_, ...) becomes the
  // elementwise representative, or a write of one slot (setitem_, what
  // an indexed write of part of x is closest to), when the bug stays: a
  // bug of writing, not of that op, then meets the others at add_.
  if (ir::is_inplace(st.op) && !reads && first_tensor && st.args[0].kind == Arg::Tensor && st.op != OpKind::SetitemI &&
      !ir::is_metadata_inplace(st.op) && ir::op_info(st.op).family != ir::Family::Meta) {
    with(OpKind::AddI, {st.args[0], Arg::number(1.0)});
    with(OpKind::FillI, {st.args[0], Arg::number(1.0)});
    with(OpKind::SetitemI, {st.args[0], Arg::integer(0), Arg::integer(0), Arg::integer(1), Arg::number(1.0)});
    // A bug that needs the source (f32 operand 'T' after x) meets the
    // binary representative, as copy_'s does.
    for (size_t k = 1; k < st.args.size() && info.sig[k]; ++k)
      if (info.sig[k] == 'T' && st.args[k].kind == Arg::Tensor) {
        with(OpKind::AddI, {st.args[0], st.args[k]});
        with(OpKind::AddI, {st.args[0], st.args[0]});
      }
  }
  // Several operands (addcmul_, addcdiv_, lerp_, clamp_tensor_): keep the
  // write and one operand, add_(x, t). An out= op becomes the out=
  // representative add_out(c, a, 1.0), or copy_(c, a) (c written from
  // a, c itself not read).
  if (ir::math_arity(info.math) == ir::MathArity::Ternary)
    for (size_t k = 1; k < 3; ++k)
      if (st.args[k].kind == Arg::Tensor) with(OpKind::AddI, {st.args[0], st.args[k]});
  if (ir::is_out_variant(st.op) && st.args[1].kind == Arg::Tensor) {
    const bool rep = st.op == OpKind::AddOut && st.args[2].kind != Arg::Tensor && st.args[2].as_double() == 1.0;
    if (!rep) with(OpKind::AddOut, {st.args[0], st.args[1], Arg::number(1.0)});
    with(OpKind::CopyI, {st.args[0], st.args[1]});
  }
  // A tensor operand where a number is allowed becomes 1.0.
  for (size_t k = 0; k < st.args.size() && info.sig[k]; ++k)
    if (info.sig[k] == 'X' && st.args[k].kind == Arg::Tensor) {
      std::vector<Arg> args = st.args;
      args[k] = Arg::number(1.0);
      with(st.op, args);
    }
  // A multi-input cat loses one part.
  if (st.op == OpKind::Cat && st.args[0].list.size() > 1)
    for (size_t k = 0; k < st.args[0].list.size(); ++k) {
      std::vector<Arg> args = st.args;
      args[0].list.erase(args[0].list.begin() + k);
      with(st.op, args);
    }
  return cands;
}

}  // namespace

void simpler_ops(Search& search) {
  const Program& cur = search.cur();
  for (size_t i = 0; i < cur.stmts.size() && !search.out_of_budget(); ++i)
    for (const Stmt& n : simpler_stmts(cur.stmts[i])) {
      Program c = cur;
      c.stmts[i] = n;
      if (search.try_candidate(c)) break;
    }
}

// A representative may need other values to show the bug (add_(x, x) on
// zeros writes what is there; div_(x, x) wrote NaN): on a small program,
// a statement's simpler form together with a simpler initial value of one
// storage, so that two findings of one bug do not stop at two ops.
bool simpler_ops_with_inits(Search& search) {
  const Program& cur = search.cur();
  if (cur.stmts.empty() || cur.stmts.size() > 4) return false;
  for (size_t i = 0; i < cur.stmts.size() && !search.out_of_budget(); ++i)
    for (const Stmt& n : simpler_stmts(cur.stmts[i]))
      for (size_t s = 0; s < cur.storages.size() && !search.out_of_budget(); ++s)
        for (const ir::StorageDecl& d : simpler_inits(cur.storages[s], kAnyInit)) {
          Program c = cur;
          c.stmts[i] = n;
          c.storages[s] = d;
          if (search.try_candidate(c)) return true;
        }
  return false;
}

// Two writes a bug needs both of (add_ and mul_ do not commute): the
// earlier becomes add_, the later mul_, when the bug stays, so which op
// the generator drew first does not split one bug in two.
void order_writes(Search& search) {
  const Program& cur = search.cur();
  auto number_write = [](const Stmt& st, OpKind op) {
    return st.op == op && st.args.size() == 2 && st.args[1].kind != Arg::Tensor;
  };
  for (size_t i = 0; i < cur.stmts.size() && !search.out_of_budget(); ++i)
    for (size_t j = i + 1; j < cur.stmts.size() && !search.out_of_budget(); ++j)
      if (number_write(cur.stmts[i], OpKind::MulI) && number_write(cur.stmts[j], OpKind::AddI)) {
        Program c = cur;
        c.stmts[i].op = OpKind::AddI;
        c.stmts[i].args[1] = Arg::number(1.0);
        c.stmts[j].op = OpKind::MulI;
        c.stmts[j].args[1] = Arg::number(2.0);
        search.try_candidate(c);
      }
}

// Format v1.5: a foreach call becomes its elements as statements of their
// own (the same writes in the same order, as eager runs them) when the bug
// stays: then the call is not what the compiler gets wrong, and the repro
// does not say it is.
void plain_foreach(Search& search) {
  for (size_t si = 0; si < search.cur().stmts.size() && !search.out_of_budget(); ++si) {
    const size_t end = ir::foreach_end(search.cur(), si);
    if (end == si) continue;
    Program c = search.cur();
    for (size_t k = si; k < end; ++k) c.stmts[k].foreach = ir::Foreach::None;
    if (!search.try_candidate(c)) si = end - 1;  // (its elements are not calls of their own)
  }
}

}  // namespace af::fuzz::minimizing
