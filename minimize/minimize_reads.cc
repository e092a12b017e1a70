// Minimizer passes that turn statements into reads: bypass a statement,
// a read into a return, a write into a returned read.
#include "minimize/minimize_edits.h"
#include "minimize/minimize_passes.h"

namespace af::fuzz::minimizing {

void bypass(Search& search) {
  const Program& cur = search.cur();
  for (size_t i = cur.stmts.size(); i-- > 0 && !search.out_of_budget();) {
    if (i >= cur.stmts.size()) continue;
    const Stmt st = cur.stmts[i];
    if (st.outs.empty()) continue;
    if (st.outs.size() > 1) {
      // Multi-output views: every piece becomes the argument itself.
      Program c = cur;
      for (int o : st.outs) substitute(c, o, static_cast<int>(st.args[0].i), i);
      std::vector<bool> d(c.stmts.size(), false);
      d[i] = true;
      search.try_candidate(remove(c, d, {}, {}, {}));
      continue;
    }
    const int out = st.outs[0];
    if (ir::is_inplace(st.op)) {
      // `u = add_(x, 1.0)` -> `add_(x, 1.0)`, later uses of u read x.
      Program c = cur;
      substitute(c, out, static_cast<int>(st.args[0].i), i);
      c.stmts[i].outs.clear();
      search.try_candidate(remove(c, {}, {}, {}, {}));
      continue;
    }
    for (const Arg& a : st.args) {
      if (a.kind != Arg::Tensor) continue;
      Program c = cur;
      substitute(c, out, static_cast<int>(a.i), i);
      std::vector<bool> d(c.stmts.size(), false);
      d[i] = true;
      if (search.try_candidate(remove(c, d, {}, {}, {}))) break;
    }
  }
}

// A statement that only reads for the bug goes, and what it read is
// returned instead; an in-place operand becomes 1.0 and is returned. A
// return is not part of the skeleton, so one bug observed through
// add(x), alias(x), copy_(y, x), mul_(y, x) or a return minimizes alike.
void reads_to_returns(Search& search) {
  const Program& cur = search.cur();
  for (size_t i = cur.stmts.size(); i-- > 0 && !search.out_of_budget();) {
    if (i >= cur.stmts.size()) continue;
    const Stmt st = cur.stmts[i];
    auto returning = [&](Program c, std::vector<int64_t> read) {
      for (int64_t v : read)
        if (std::find(c.returns.begin(), c.returns.end(), v) == c.returns.end())
          c.returns.push_back(static_cast<int>(v));
      c.has_return = !c.returns.empty();
      return c;
    };
    std::vector<int64_t> read;
    ir::for_each_tensor_arg(st, [&](int v) { read.push_back(v); });
    if (read.empty()) continue;
    if (!ir::is_inplace(st.op)) {
      std::vector<bool> d(cur.stmts.size(), false);
      d[i] = true;
      search.try_candidate(remove(returning(cur, read), d, {}, {}, {}));
      continue;
    }
    const char* sig = ir::op_info(st.op).sig;
    // (1.0 first, then 2.0: mul_(x, 1.0) or a fill with the value already
    // there writes nothing.)
    bool done = false;
    for (size_t k = 1; k < st.args.size() && sig[k] && !done; ++k)
      if (sig[k] == 'X' && st.args[k].kind == Arg::Tensor)
        for (double v : {1.0, 2.0}) {
          Program c = returning(cur, {st.args[k].i});
          c.stmts[i].args[k] = Arg::number(v);
          if ((done = search.try_candidate(c))) break;
        }
    if (st.op == OpKind::CopyI)
      for (double v : {1.0, 2.0}) {
        Program c = returning(cur, {st.args[1].i});
        c.stmts[i].op = OpKind::FillI;
        c.stmts[i].args[1] = Arg::number(v);
        if (search.try_candidate(c)) break;
      }
  }
}

// An in-place statement without a bound result becomes a returned read
// of one of its tensors, `add_(x, c)` -> `r = add(x, 1.0)` (the written
// one first, then each tensor operand: `mul_(y, x)` -> `r = add(x, 1.0)`),
// when the bug stays: a bug seen as a stale read and as a lost write, or
// through a write's operand and through a plain read, then minimizes
// alike (the count of writes falls, so this ends).
void writes_to_reads(Search& search) {
  const Program& cur = search.cur();
  for (size_t i = cur.stmts.size(); i-- > 0 && !search.out_of_budget();) {
    if (i >= cur.stmts.size()) continue;
    const Stmt st = cur.stmts[i];
    if (!ir::is_inplace(st.op) || !st.outs.empty()) continue;
    for (const Arg& a : st.args) {
      if (a.kind != Arg::Tensor) continue;
      Program c = cur;
      Stmt& n = c.stmts[i];
      n.op = OpKind::Add;
      n.args = {a, Arg::number(1.0)};
      std::string name = "r";
      while (std::find(c.value_names.begin(), c.value_names.end(), name) != c.value_names.end()) name += "_";
      n.outs = {c.new_value(name)};
      c.returns.push_back(n.outs[0]);  // the read is observed
      c.has_return = true;
      if (search.try_candidate(remove(c, {}, {}, {}, {}))) break;  // renumbers the new value into statement order
    }
  }
}

}  // namespace af::fuzz::minimizing
