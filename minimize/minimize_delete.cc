// Minimizer passes that delete: statements (ddmin chunks, pairs, a statement
// together with a simpler initial value) and returns, inputs, storages.
#include "minimize/minimize_edits.h"
#include "minimize/minimize_passes.h"

namespace af::fuzz::minimizing {

void delete_stmts(Search& search) {
  const Program& cur = search.cur();
  size_t n = cur.stmts.size();
  for (size_t chunk = std::max<size_t>(1, n / 2);; chunk /= 2) {
    // From the end: later statements have fewer dependents.
    for (size_t end = cur.stmts.size(); end > 0 && !search.out_of_budget();) {
      const size_t begin = end >= chunk ? end - chunk : 0;
      if (search.try_candidate(drop_stmts(cur, begin, end)))
        end = std::min(begin, cur.stmts.size());
      else
        end = begin;
    }
    if (chunk <= 1 || search.out_of_budget()) break;
  }
}

bool delete_pairs(Search& search) {
  const Program& cur = search.cur();
  const size_t n = cur.stmts.size();
  if (n < 2 || n > 24) return false;
  for (size_t j = n; j-- > 1 && !search.out_of_budget();)
    for (size_t i = j; i-- > 0 && !search.out_of_budget();) {
      std::vector<bool> d(cur.stmts.size(), false);
      d[i] = d[j] = true;
      if (search.try_candidate(remove(cur, d, {}, {}, {}))) return true;
    }
  return false;
}

// A statement that only put values in place for the bug (add_(x, 1.0)
// before clamp_(x, 0.0, 0.0), t = add(x, 1.0) read instead of x) goes
// while a storage starts from other values, when the bug stays: neither
// edit alone keeps it, so one bug found after a write and on the input
// itself minimizes alike. At the fixed point, on small programs only.
bool delete_with_inits(Search& search) {
  const Program& cur = search.cur();
  const size_t n = cur.stmts.size();
  if (n < 2 || n > 4) return false;
  for (size_t i = n; i-- > 0 && !search.out_of_budget();) {
    std::vector<Program> cands;
    cands.push_back(drop_stmts(cur, i, i + 1));
    const Stmt& st = cur.stmts[i];
    if (st.outs.size() == 1 && !st.args.empty() && st.args[0].kind == Arg::Tensor) {
      Program c = cur;
      substitute(c, st.outs[0], static_cast<int>(st.args[0].i), i);  // later reads read its operand
      cands.push_back(drop_stmts(c, i, i + 1));
    }
    for (const Program& c : cands)
      for (size_t s = 0; s < c.storages.size() && !search.out_of_budget(); ++s)
        for (const ir::StorageDecl& d : simpler_inits(c.storages[s], kAnyInit)) {
          Program e = c;
          e.storages[s] = d;
          if (search.try_candidate(e)) return true;
        }
  }
  return false;
}

void delete_decls(Search& search) {
  const Program& cur = search.cur();
  // Training first (format v1.4): a bug that stays without backward, or
  // without an input's requires_grad, is a forward bug, and its repro
  // says so.
  if (cur.backward && !search.out_of_budget()) {
    Program c = cur;
    c.backward.reset();
    c.backward_line = 0;
    search.try_candidate(c);
  }
  for (size_t k = 0; k < cur.inputs.size() && !search.out_of_budget(); ++k) {
    if (!cur.inputs[k].requires_grad) continue;
    Program c = cur;
    c.inputs[k].requires_grad = false;
    search.try_candidate(c);
  }
  for (size_t j = cur.returns.size(); j-- > 0 && !search.out_of_budget();) {
    std::vector<bool> d(cur.returns.size(), false);
    d[j] = true;
    search.try_candidate(remove(cur, {}, {}, {}, d));
    j = std::min(j, cur.returns.size());
  }
  for (size_t k = cur.inputs.size(); k-- > 0 && !search.out_of_budget();) {
    std::vector<bool> d(cur.inputs.size(), false);
    d[k] = true;
    search.try_candidate(remove(cur, {}, d, {}, {}));
    k = std::min(k, cur.inputs.size());
  }
  for (size_t s = cur.storages.size(); s-- > 0 && !search.out_of_budget();) {
    std::vector<bool> d(cur.storages.size(), false);
    d[s] = true;
    search.try_candidate(remove(cur, {}, {}, d, {}));
    s = std::min(s, cur.storages.size());
  }
}

}  // namespace af::fuzz::minimizing
