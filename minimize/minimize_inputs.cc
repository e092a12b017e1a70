// Minimizer passes toward inputs, the format's simplest tensors: aliased
// inputs merged, views and fresh tensors hoisted into inputs.
#include "minimize/minimize_edits.h"
#include "minimize/minimize_passes.h"

#include "ir/analysis.h"

namespace af::fuzz::minimizing {

// Two inputs of one storage: every use of one reads the other, and the
// unused one goes (a bug seen through two aliased inputs and the same
// bug seen through one then minimize alike when it stays).
void merge_inputs(Search& search) {
  const Program& cur = search.cur();
  for (size_t k = cur.inputs.size(); k-- > 1 && !search.out_of_budget();)
    for (size_t j = 0; j < k && k < cur.inputs.size() && !search.out_of_budget(); ++j) {
      if (cur.inputs[j].storage != cur.inputs[k].storage) continue;
      bool merged = false;
      for (auto [from, to] : {std::pair{k, j}, std::pair{j, k}}) {
        Program c = cur;
        substitute(c, static_cast<int>(from), static_cast<int>(to), static_cast<size_t>(-1));
        std::vector<bool> d(c.inputs.size(), false);
        d[from] = true;
        if ((merged = search.try_candidate(remove(c, {}, d, {}, {})))) break;
      }
      if (merged) break;
    }
}

// A view of an input's storage becomes inputs with the view's geometry
// (aliased inputs: one per piece a later statement uses), when the bug
// stays: the same bug reached through a slice, a chunk piece, an alias
// or a second input then minimizes to one program. A bug that needs the
// view op keeps it. The view statement always goes (an in-place op loses
// its binding), so every accepted hoist shortens the program (a kept
// multi-output view let hoisting and input merging take turns without
// end).
void hoist_views(Search& search) {
  const Program& cur = search.cur();
  auto an = ir::analyze(cur);
  if (!an) return;
  for (size_t i = 0; i < cur.stmts.size() && !search.out_of_budget(); ++i) {
    const Stmt& st = cur.stmts[i];
    // An in-place op's bound result (t = add_(x, 1.0)) is x itself, a
    // view in all but name: it is hoisted too, and the write stays.
    const bool bound_write = ir::is_inplace(st.op) && st.outs.size() == 1;
    if (ir::op_info(st.op).cls != OpClass::View && !bound_write) continue;
    Program c = cur;
    int added = 0;
    for (size_t k = 0; k < st.outs.size(); ++k) {
      const ir::TensorMeta& m = an->values[st.outs[k]];
      if (m.storage < 0 || m.storage >= an->num_declared || !used_after(cur, st.outs[k], i)) continue;
      ir::InputDecl d;
      d.storage = m.storage;
      d.whole = false;
      d.sizes = m.g.sizes;
      d.strides = m.g.strides;
      d.offset = m.g.offset;
      std::string name = "h";
      while (std::find(c.value_names.begin(), c.value_names.end(), name) != c.value_names.end()) name += "_";
      const int in = static_cast<int>(c.inputs.size());
      c = with_input(c, d, name);
      substitute(c, st.outs[k] + in + 1 - static_cast<int>(cur.inputs.size()), in, i);
      ++added;
    }
    if (added == 0) continue;
    std::vector<bool> drop(c.stmts.size(), false);
    if (bound_write)
      c.stmts[i].outs.clear();
    else
      drop[i] = true;
    if (search.try_candidate(remove(c, drop, {}, {}, {}))) return;  // the analysis is cur's no more
  }
}

// A fresh tensor (full) becomes an input over a storage of its own with
// the same shape and values, when the bug stays: a bug through views of
// an intermediate and the same bug through views of an input then
// minimize alike (inputs are the format's simplest tensors).
void fresh_to_inputs(Search& search) {
  const Program& cur = search.cur();
  for (size_t i = 0; i < cur.stmts.size() && !search.out_of_budget(); ++i) {
    const Stmt& st = cur.stmts[i];
    if (st.op != OpKind::Full || st.outs.size() != 1 || st.args[0].kind != Arg::IntList) continue;
    ir::StorageDecl sd;
    sd.numel = 1;
    for (int64_t n : st.args[0].list) sd.numel *= n;
    if (sd.numel < 1) continue;
    sd.init = InitKind::Full;
    sd.a = st.args[1].as_double();
    sd.name = "f";
    auto taken = [&](const std::string& n) {
      return std::find(cur.value_names.begin(), cur.value_names.end(), n) != cur.value_names.end() ||
             std::any_of(cur.storages.begin(), cur.storages.end(), [&](const auto& x) { return x.name == n; });
    };
    while (taken(sd.name)) sd.name += "_";
    ir::InputDecl d;
    d.storage = static_cast<int>(cur.storages.size());
    d.whole = false;
    d.sizes = ir::Shape(st.args[0].list.begin(), st.args[0].list.end());
    d.strides = ir::contiguous_strides(d.sizes);
    d.offset = 0;
    Program c = cur;
    c.storages.push_back(sd);
    std::string name = "h";
    while (taken(name) || name == sd.name) name += "_";
    c = with_input(c, d, name);
    substitute(c, st.outs[0] + 1, static_cast<int>(cur.inputs.size()), i);
    std::vector<bool> drop(c.stmts.size(), false);
    drop[i] = true;
    if (search.try_candidate(remove(c, drop, {}, {}, {}))) return;
  }
}

}  // namespace af::fuzz::minimizing
