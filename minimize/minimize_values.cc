// Minimizer passes that shrink values: sizes and ranks, constants, initial
// values of storages.
#include "minimize/minimize_edits.h"
#include "minimize/minimize_passes.h"

#include "ir/geometry.h"

namespace af::fuzz::minimizing {

void shrink(Search& search) {
  const Program& cur = search.cur();
  // Storage numel.
  for (size_t s = 0; s < cur.storages.size() && !search.out_of_budget(); ++s) {
    const int64_t n = cur.storages[s].numel;
    for (int64_t m : {needed_numel(cur, static_cast<int>(s)), n / 2, n - 1}) {
      if (m < 1 || m >= cur.storages[s].numel) continue;
      Program c = cur;
      set_numel(c.storages[s], m);
      search.try_candidate(c);
    }
  }
  // A storage's inputs all moved down together (the first at offset 0):
  // how they overlap stays, the storage can then shrink.
  for (size_t s = 0; s < cur.storages.size() && !search.out_of_budget(); ++s) {
    int64_t low = -1;
    bool all_strided = true;
    for (const auto& in : cur.inputs)
      if (in.storage == static_cast<int>(s)) {
        all_strided = all_strided && !in.whole;
        low = low < 0 ? in.offset : std::min(low, in.offset);
      }
    if (!all_strided || low <= 0) continue;
    Program c = cur;
    for (auto& in : c.inputs)
      if (in.storage == static_cast<int>(s)) in.offset -= low;
    set_numel(c.storages[s], needed_numel(c, static_cast<int>(s)));
    search.try_candidate(c);
  }
  // Inputs: rank, sizes, strides, offset, whole form.
  for (size_t k = 0; k < cur.inputs.size() && !search.out_of_budget(); ++k) {
    if (cur.inputs[k].whole) continue;
    auto edit = [&](auto f) {
      Program c = cur;
      f(c.inputs[k]);
      return search.try_candidate(c);
    };
    const auto in = cur.inputs[k];
    const int64_t sn = cur.storages[in.storage].numel;
    // Over every element of its storage, contiguous, in whatever shape (a
    // 0-d input of a 1-element storage too): the whole storage.
    if (in.offset == 0 && ir::numel_of(in.sizes) == sn && in.strides == ir::contiguous_strides(in.sizes) &&
        edit([](ir::InputDecl& d) { d.whole = true, d.sizes.clear(), d.strides.clear(); }))
      continue;
    for (size_t d = 0; d < in.sizes.size(); ++d)
      if (edit([d](ir::InputDecl& x) {
            x.sizes.erase(x.sizes.begin() + d);
            x.strides.erase(x.strides.begin() + d);
          }))
        break;
    for (const auto& sz : smaller_sizes(cur.inputs[k].sizes))
      if (edit([&sz](ir::InputDecl& x) { x.sizes = sz; })) break;
    if (cur.inputs[k].offset != 0) edit([](ir::InputDecl& x) { x.offset = 0; });
    const auto cs = ir::contiguous_strides(cur.inputs[k].sizes);
    if (cur.inputs[k].strides != cs) edit([&cs](ir::InputDecl& x) { x.strides = cs; });
  }
  // Statements: size lists and integers.
  for (size_t i = 0; i < cur.stmts.size() && !search.out_of_budget(); ++i) {
    const Stmt st = cur.stmts[i];
    auto edit = [&](std::vector<Arg> args) {
      Program c = cur;
      c.stmts[i].args = std::move(args);
      return search.try_candidate(c);
    };
    if (st.op == OpKind::AsStrided) {
      bool done = false;
      for (size_t d = 0; d < st.args[1].list.size() && !done; ++d) {
        auto args = st.args;
        args[1].list.erase(args[1].list.begin() + d);
        args[2].list.erase(args[2].list.begin() + d);
        done = edit(args);
      }
      if (done) continue;
    }
    for (size_t k = 0; k < st.args.size(); ++k) {
      const Arg& a = cur.stmts[i].args[k];
      if (a.kind == Arg::IntList && st.op != OpKind::Permute) {
        for (const auto& sz : smaller_sizes(a.list)) {
          auto args = cur.stmts[i].args;
          args[k].list = sz;
          if (edit(args)) break;
        }
      } else if (a.kind == Arg::Int) {
        for (double v : kSimple)
          if (number_rank(v) < number_rank(static_cast<double>(a.i))) {
            auto args = cur.stmts[i].args;
            args[k] = Arg::integer(static_cast<int64_t>(v));
            if (edit(args)) break;
          }
      }
    }
  }
}

void constants(Search& search) {
  const Program& cur = search.cur();
  for (size_t i = 0; i < cur.stmts.size() && !search.out_of_budget(); ++i)
    for (size_t k = 0; k < cur.stmts[i].args.size(); ++k) {
      const Arg a = cur.stmts[i].args[k];
      if (a.kind != Arg::Float) continue;
      for (double v : kSimple)
        if (number_rank(v) < number_rank(a.f)) {
          Program c = cur;
          c.stmts[i].args[k] = Arg::number(v);
          if (search.try_candidate(c)) break;
        }
    }
}

void inits(Search& search) {
  const Program& cur = search.cur();
  for (size_t s = 0; s < cur.storages.size() && !search.out_of_budget(); ++s)
    for (const ir::StorageDecl& d : simpler_inits(cur.storages[s], init_rank(cur.storages[s]))) {
      Program c = cur;
      c.storages[s] = d;
      if (search.try_candidate(c)) break;
    }
}

}  // namespace af::fuzz::minimizing
