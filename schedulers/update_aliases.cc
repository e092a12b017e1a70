// Strategies `update_aliases` (Lightning Thunder 0.2.6's rule, pass for
// pass), its fixed variants `update_aliases-ordered` / `-min`, and the
// single-fix variants `update_aliases+FIX` that the comparison table puts
// side by side (run/ua_fixes.h lists the fixes).
//
// The reference is thunder/core/update_aliases.py of lightning-thunder
// 0.2.6: `replace_args_with_alias_map` (pass 1) and `insert_alias_updates`
// (passes 2 and 3). The code below is ours, over our IR; each pass has a
// paragraph saying which part of Thunder it models.
//
// Pass 1 — aliased inputs (Thunder: replace_args_with_alias_map). Inputs
// that share a storage (Thunder groups them by untyped_storage().data_ptr())
// are replaced by the first input of their storage: uses of a later input
// read the first one, through `reshape(first, sizes)` inserted before its
// first use when the sizes differ. Offsets and strides are ignored, exactly
// as Thunder ignores them: `x1 = s[4:6]` becomes `s[0:2]`. The storage
// groups index every input, but are applied to the used inputs only
// (Thunder's computation trace drops unused arguments), so an unused input
// shifts the replacement onto other inputs. The inserted
// reshape is a prim in Thunder, not one of ltorch's view-creating symbols,
// so pass 2 does not put it in a view group. Fix `inputs` skips this pass
// and starts every storage's inputs in one group instead.
//
// Pass 2 — view groups (Thunder: the second loop of insert_alias_updates).
// For each view-creating op (ltorch._syms_returning_views and
// _syms_that_may_return_views: all our View and MayAlias ops) the first
// tensor argument and the outputs join the group that already holds the
// argument, else they start one; an in-place op marks its first argument
// as written (starting a group of its own if it has none) and adds nothing.
// Groups without a written member are dropped. The result of an in-place
// op is in no group (fix `results` puts it in its argument's group).
//
// Pass 3 — alias updates (Thunder: the third loop). For each op that is
// in-place, view-creating, or reads a member of a kept group: its "in" set
// is its first tensor argument for in-place ops (fix `args`: every tensor
// argument), all tensor arguments otherwise; the in set joins `encountered`;
// the groups meeting the in set are united and one
// `n1, ..., nk = update_aliases([c1, ..., ck])` is emitted over the
// encountered members of that union (current names in, fresh names out; the
// old names map to the new ones for every later statement). The op follows,
// renamed; its outputs join `encountered`. An in-place op's single output
// (bound here to a fresh name when the source binds none) renames its
// first argument for later statements. `setitem_` has an output in Thunder
// too (`t10 = ltorch.setitem_(...)`) but cannot bind one in format v1; its
// renaming is kept as dataflow edges from it to every later reader of the
// name it wrote. The DAG is dataflow over the renamed values and nothing
// else: a read that consumed n1 has no edge to the next update_aliases
// that also consumes n1, so a later write may run before it
// (write-after-read), and a read of a tensor that no update renames may
// run before an earlier write through another alias (read-after-write).
//
// Thunder executes an in-place elementwise op as its out-of-place op
// followed by copy_ into the destination (`t46 = torch.add(t45, 1.0);
// t47 = copy_(t46, t45)` in the executable trace), so the rule emits that
// pair: the operands are read by the first, the write happens at the
// second, and other statements may run in between. Fix `atomic` keeps the
// in-place op as one statement.
//
// Fixes (run/ua_fixes.h): `inputs`, `args`, `results` as above; `war` adds an
// edge from every access of a group member to the next update_aliases of
// the group (or to the next write when no update is emitted); `dedupe`
// (Thunder PR 2772) emits an update before a read only when one of the
// tensors it reads is stale — its name predates a write through another
// member of its group — and always before an in-place op; `min` also skips
// the update before an in-place op when everything it touches is current.
// `update_aliases-ordered` = inputs+args+results+war+dedupe+atomic and
// `update_aliases-min` = that + min: both must agree with the oracle.
//
// Mutants (on the fixed variants): ua-no-maybe-views (may-alias results are
// fresh tensors), ua-no-multi-output (pieces of chunk/split/unbind are left
// out of the group), ua-writes-only (no update before a read).
#include <algorithm>
#include <unordered_map>

#include "schedulers/passes.h"
#include "run/ua_fixes.h"

namespace af::schedulers {

using ir::Arg;
using ir::OpKind;

namespace {

bool view_creating(const ir::Stmt& st) {
  const auto c = ir::op_info(st.op).cls;
  return c == ir::OpClass::View || c == ir::OpClass::MayAlias;
}

// Pass 1. Returns the program with aliased inputs replaced; `opaque[j]`
// marks the reshapes it inserted (prims, not view-creating for pass 2).
struct Pass1 {
  ir::Program program;
  std::vector<bool> added, opaque;
  std::vector<int> origin;  // by statement: the source statement, or -1
  std::string error;
};

Pass1 replace_aliased_inputs(const ir::Program& p) {
  Pass1 r;
  const int nin = static_cast<int>(p.inputs.size());
  std::vector<int> first_of_storage(p.storages.size(), -1), replaced_by(nin, -1);
  auto sizes_of = [&](int k) {
    const auto& in = p.inputs[k];
    return in.whole ? ir::Shape{p.storages[in.storage].numel} : in.sizes;
  };
  // Thunder groups the *function's* arguments by storage (every input, in
  // signature order), but applies the groups' indices to the arguments of
  // the computation trace, which holds only the inputs the program uses.
  // When an unused input comes first, the indices point at other inputs
  // (even on other storages), and an index past the end is an IndexError.
  std::vector<bool> used(nin, false);
  for (const auto& st : p.stmts)
    for_each_tensor_arg(st, [&](int v) {
      if (v < nin) used[v] = true;
    });
  for (int v : p.returns)
    if (v < nin) used[v] = true;
  std::vector<int> flat;  // the computation trace's arguments
  for (int k = 0; k < nin; ++k)
    if (used[k]) flat.push_back(k);
  std::vector<std::vector<int>> groups;
  for (int k = 0; k < nin; ++k) {
    int& f = first_of_storage[p.inputs[k].storage];
    if (f < 0) {
      f = static_cast<int>(groups.size());
      groups.emplace_back();
    }
    groups[f].push_back(k);
  }
  for (const auto& idx : groups) {
    if (idx.size() < 2) continue;  // only storages shared by several inputs
    if (idx[0] >= static_cast<int>(flat.size())) {
      r.error = std::string(run::kThunderRaises) + ": IndexError in replace_args_with_alias_map (alias index " +
                std::to_string(idx[0]) + " of input " + p.inputs[idx[0]].name + ", but the computation trace has " +
                std::to_string(flat.size()) + " arguments)";
      r.program = p;
      return r;
    }
    const int rep = flat[idx[0]];
    for (size_t i = 1; i < idx.size(); ++i)
      if (idx[i] < static_cast<int>(flat.size()) && flat[idx[i]] != rep) replaced_by[flat[idx[i]]] = rep;
  }
  // Format v1.2: an index or mask input whose trace argument is another
  // input of another dtype (the index misapplied above) reaches its op with
  // the wrong dtype, which Thunder's op refuses at trace time.
  for (int k = 0; k < nin; ++k) {
    if (replaced_by[k] < 0) continue;
    const ir::Dtype want = p.storages[p.inputs[k].storage].dtype,
                    got = p.storages[p.inputs[replaced_by[k]].storage].dtype;
    if (want != got) {
      r.error = std::string(run::kThunderRaises) + ": replace_args_with_alias_map passes input " +
                p.value_names[replaced_by[k]] + " (" + ir::dtype_name(got) + ") for input " + p.value_names[k] + " (" +
                ir::dtype_name(want) + ")";
      r.program = p;
      return r;
    }
  }
  Builder b(p);
  b.tolerate_overlap();
  std::vector<int> map(p.num_values(), -1);
  for (int k = 0; k < nin; ++k) map[k] = replaced_by[k] < 0 ? k : -1;
  std::vector<bool> reshape_pending(nin, false);
  for (int k = 0; k < nin; ++k) {
    if (replaced_by[k] < 0) continue;
    if (sizes_of(k) == sizes_of(replaced_by[k]))
      map[k] = replaced_by[k];
    else
      reshape_pending[k] = true;
  }
  // A reshape of the first input before the first use of a replaced one
  // (the return is a use too).
  auto use = [&](int v, int line) {
    if (v >= nin || !reshape_pending[v]) return;
    reshape_pending[v] = false;
    std::vector<int64_t> sz = sizes_of(v);
    int64_t numel = 1, first_numel = 1;
    for (auto d : sz) numel *= d;
    for (auto d : sizes_of(replaced_by[v])) first_numel *= d;
    if (numel != first_numel && r.error.empty())  // Thunder's prims.reshape raises at trace time
      r.error = std::string(run::kThunderRaises) + ": replace_args_with_alias_map reshapes input " +
                p.value_names[replaced_by[v]] + " (" + std::to_string(first_numel) +
                " elements) to the shape of input " + p.value_names[v] + " (" + std::to_string(numel) + " elements)";
    map[v] = b.emit1(OpKind::Reshape, p.value_names[v], {Arg::tensor(replaced_by[v]), Arg::ints(sz)}, line, true);
    r.opaque.resize(b.program().stmts.size(), false);
    r.opaque.back() = true;
  };
  auto raised = [&] {  // Thunder stops at trace time: nothing after runs
    r.program = p;
    return r;
  };
  for (size_t si = 0; si < p.stmts.size(); ++si) {
    const auto& st = p.stmts[si];
    b.set_source(static_cast<int>(si));
    for_each_tensor_arg(st, [&](int v) { use(v, st.line); });
    if (!r.error.empty()) return raised();
    std::vector<Arg> a = st.args;
    for_each_tensor_arg(a, [&](int64_t& v) { v = map[v]; });
    std::vector<int> outs;
    for (int o : st.outs) outs.push_back(map[o] = b.value(o));
    b.emit(st.op, outs, std::move(a), st.line, false);
  }
  for (int v : p.returns) use(v, p.return_line);
  if (!r.error.empty()) return raised();
  for (int v : p.returns) b.program().returns.push_back(map[v]);
  b.program().has_return = p.has_return;
  b.program().return_line = p.return_line;
  if (b.failed() && r.error.empty()) r.error = b.error();
  r.opaque.resize(b.program().stmts.size(), false);
  r.added = std::move(b.added());
  r.origin = std::move(b.origin());
  r.program = std::move(b.program());
  return r;
}

// Pass 2. group[v] = kept group id or -1, over the values of `p`.
// canon[v] is the value standing for v in groups (itself, or with fix
// `results` the argument of the in-place op that bound v).
struct Groups {
  std::vector<int> group, canon;
  int count = 0;
};

Groups view_groups(const ir::Program& p, const std::vector<bool>& opaque, run::UaFixes fx, run::Mutant mutant) {
  const int nv = p.num_values();
  Groups g;
  g.canon.resize(nv);
  for (int v = 0; v < nv; ++v) g.canon[v] = v;
  std::vector<int> raw(nv, -1);
  std::vector<bool> written;
  auto start = [&](int v) {
    raw[v] = static_cast<int>(written.size());
    written.push_back(false);
  };
  if (fx.has(run::UaFix::Inputs)) {  // every storage's inputs in one group
    std::vector<int> first(p.storages.size(), -1);
    for (size_t k = 0; k < p.inputs.size(); ++k) {
      int& f = first[p.inputs[k].storage];
      if (f < 0) {
        f = static_cast<int>(k);
        start(f);
      } else
        raw[k] = raw[f];
    }
  }
  for (size_t j = 0; j < p.stmts.size(); ++j) {
    const auto& st = p.stmts[j];
    if (st.op == OpKind::UpdateAliases && fx.any()) {
      // Thunder's update_aliases in the program itself (a printed schedule
      // read back). Thunder never traces one from user code, so its rule
      // says nothing of it (it is no view-creating symbol); the prim is the
      // identity, so the fixed variants put result k in member k's group.
      const auto& members = st.args[0].list;
      for (size_t k = 0; k < st.outs.size() && k < members.size(); ++k) {
        const int in = g.canon[members[k]];
        if (raw[in] < 0) start(in);
        raw[st.outs[k]] = raw[in];
      }
      continue;
    }
    const bool inplace = ir::is_inplace(st.op);
    if (!inplace && (!view_creating(st) || opaque[j])) continue;
    if (st.args.empty() || st.args[0].kind != Arg::Tensor) continue;
    const int in = g.canon[st.args[0].i];
    if (raw[in] < 0) start(in);
    if (inplace) {
      written[raw[in]] = true;
      if (fx.has(run::UaFix::Results))
        for (int o : st.outs) g.canon[o] = in;
      continue;
    }
    if (mutant == run::Mutant::UaNoMultiOutput && ir::is_multi_output(st.op)) continue;
    if (mutant == run::Mutant::UaNoMaybeViews && ir::op_info(st.op).cls == ir::OpClass::MayAlias) continue;
    for (int o : st.outs) raw[o] = raw[in];
  }
  // Keep groups with a written member; renumber densely.
  std::vector<int> id(written.size(), -1);
  for (size_t k = 0; k < written.size(); ++k)
    if (written[k]) id[k] = g.count++;
  g.group.assign(nv, -1);
  for (int v = 0; v < nv; ++v) {
    const int r = raw[g.canon[v]];
    if (r >= 0) g.group[v] = id[r];
  }
  return g;
}

}  // namespace

namespace {

// The strategy; `an_exact`: `an` is ir::analyze's analysis of `src` itself
// (not of the program before views_for_metadata_ops), so pass 3 may reuse
// its results (Builder::emit_source).
Transformed update_aliases_rule(const ir::Program& src, const ir::Analysis& an, run::UaFixes fx, run::Mutant mutant,
                                bool an_exact) {
  Transformed t;
  // out= (format v1.1's add_out etc.): Thunder 0.2.6's torch symbols take
  // no `out` keyword (ltorch.add(a, b, /, *, alpha)), so tracing
  // torch.add(a, b, out=c) raises "TypeError: add() got an unexpected
  // keyword argument 'out'"; ltorch.div has one and raises
  // NotImplementedError (both checked with thunder.jit). The rule predicts that;
  // with fix `atomic` the op runs as one statement, as in eager.
  if (!fx.has(run::UaFix::Atomic))
    for (const auto& st : src.stmts)
      if (ir::is_out_variant(st.op)) {
        const std::string fn = std::string(ir::op_info(st.op).torch).substr(6);  // "torch.add" -> "add"
        const std::string why = st.op == ir::OpKind::DivOut
                                    ? "NotImplementedError: out is not None which is currently unsupported"
                                    : "TypeError: " + fn + "() got an unexpected keyword argument 'out'";
        t.error = std::string(run::kThunderRaises) + ": " + why + " (line " + std::to_string(st.line) + ")";
        t.program = src;
        return t;
      }
  // Format v1.3's metadata ops: Thunder 0.2.6 has no symbol for transpose_,
  // t_, squeeze_, unsqueeze_, swapdims_ or as_strided_ (thunder.jit raises
  // "AttributeError: Unknown attribute transpose_" while tracing; checked in
  // the venv).
  // Its Tensor.unfold is registered automatically as an im2col-like op and
  // raises on every generated shape ("NotImplementedError: Exception
  // encountered when doing automatic registration for unfold ... Expected 3D
  // or 4D (batch mode) tensor"). With fix `atomic` (the fixed variants) the
  // metadata ops are the views they mirror and unfold is a view.
  for (const auto& st : src.stmts)
    if (ir::is_metadata_inplace(st.op) || st.op == ir::OpKind::Unfold) {
      if (fx.has(run::UaFix::Atomic)) {
        if (st.op == ir::OpKind::Unfold) continue;
        return update_aliases_rule(views_for_metadata_ops(src), an, fx, mutant, false);
      }
      t.error = std::string(run::kThunderRaises) + ": " +
                (st.op == ir::OpKind::Unfold ? std::string("NotImplementedError: automatic registration for unfold")
                                             : "AttributeError: Unknown attribute " + std::string(ir::op_name(st.op))) +
                " (line " + std::to_string(st.line) + ")";
      t.program = src;
      return t;
    }
  // Pass 1 (or its fix).
  Pass1 p1;
  const ir::Program* pp = &src;
  if (!fx.has(run::UaFix::Inputs)) {
    p1 = replace_aliased_inputs(src);
    if (!p1.error.empty()) {
      t.error = p1.error;
      t.program = std::move(p1.program);
      return t;
    }
    pp = &p1.program;
  } else {
    p1.opaque.assign(src.stmts.size(), false);
    p1.added.assign(src.stmts.size(), false);
    p1.origin = identity_origin(src);
  }
  const ir::Program& p = *pp;
  // Pass 2.
  const Groups gr = view_groups(p, p1.opaque, fx, mutant);
  const int nv = p.num_values();
  auto group = [&](int v) { return gr.group[v]; };
  auto canon = [&](int v) { return gr.canon[v]; };

  // Pass 3. Without pass 1 the program is `src`, whose analysis then
  // gives most statements' results.
  Builder b(p, fx.has(run::UaFix::Inputs) && an_exact ? &an : nullptr);
  std::vector<int> def(nv, -1);         // value of p -> its value in the new program
  std::unordered_map<int, int> swap;    // new value -> the value that replaced it
  std::unordered_map<int, int> writer;  // new value -> setitem_ that wrote through it
  std::vector<bool> encountered(nv, false);
  std::vector<std::vector<int>> members(gr.count);  // encountered members per group, in order
  std::vector<std::vector<int>> pending(gr.count);  // accesses since the group's last update (fix war)
  std::vector<int> wver(gr.count, 0);               // writes per group
  std::vector<int> seen(nv, 0);                     // wver of its group when v's name was last current
  for (size_t k = 0; k < p.inputs.size(); ++k) def[k] = static_cast<int>(k);
  auto resolve_new = [&](int w) {
    const int start = w;
    for (auto it = swap.find(w); it != swap.end(); it = swap.find(w)) w = it->second;
    // Path compression: renames only ever append at a chain's end, so
    // pointing the start at the end changes no later answer (Thunder walks
    // the whole chain each time; long view chains made that cubic here).
    if (w != start) swap[start] = w;
    return w;
  };
  auto resolve = [&](int v) { return resolve_new(def[v]); };
  // Thunder's _update_swap_map: the end of v's chain now maps to `to`.
  auto rename = [&](int v, int to) {
    const int e = resolve(v);
    if (e != to) swap[e] = to;
  };
  auto encounter = [&](int v) {
    const int c = canon(v);
    if (encountered[c]) return;
    encountered[c] = true;
    if (group(c) >= 0) members[group(c)].push_back(c);
  };
  std::vector<int> dataflow_from;  // extra dataflow (setitem_ renaming) into the statement being emitted
  // Arguments over values of `p` -> over the current names.
  auto resolve_args = [&](std::vector<Arg> args) {
    for_each_tensor_arg(args, [&](int64_t& v) {
      v = resolve(static_cast<int>(v));
      auto w = writer.find(static_cast<int>(v));
      if (w != writer.end()) dataflow_from.push_back(w->second);
    });
    return args;
  };
  // Statement j was just emitted over the resolved arguments: their renaming edges.
  auto with_dataflow = [&](int j) {
    for (int w : dataflow_from) t.added_edges.push_back(Edge{w, j, false});
    return j;
  };
  auto emit_resolved = [&](OpKind op, const std::vector<int>& outs, std::vector<Arg> args, int line, bool added) {
    return with_dataflow(b.emit(op, outs, std::move(args), line, added));
  };
  auto emit = [&](OpKind op, const std::vector<int>& outs, const std::vector<Arg>& args, int line, bool added) {
    dataflow_from.clear();
    return emit_resolved(op, outs, resolve_args(args), line, added);
  };
  // Statement si of `p` itself, its arguments resolved.
  auto emit_stmt = [&](size_t si, const std::vector<int>& outs, std::vector<Arg> resolved) {
    return with_dataflow(b.emit_source(static_cast<int>(si), outs, std::move(resolved), p1.added[si]));
  };
  int64_t update_values = 0;
  constexpr int64_t kMaxUpdateValues = int64_t{1} << 20;
  // The update node over the encountered members of `groups`.
  auto update = [&](const std::vector<int>& groups, int line) {
    std::vector<int> ms;
    for (int g : groups) ms.insert(ms.end(), members[g].begin(), members[g].end());
    std::sort(ms.begin(), ms.end());
    if (ms.empty()) return -1;
    // Thunder's rule threads every encountered member through every update:
    // quadratic in a view chain's length. Past a bound the strategy stops
    // with a limit error instead of exhausting memory.
    update_values += static_cast<int64_t>(ms.size());
    if (update_values > kMaxUpdateValues) {
      if (t.error.empty())
        t.error = "limit: update_aliases nodes would define more than " + std::to_string(kMaxUpdateValues) + " values";
      return -1;
    }
    std::vector<int> outs;
    for (int m : ms) outs.push_back(b.suffixed(m));
    std::vector<Arg> args{Arg::tensors(std::vector<int64_t>(ms.begin(), ms.end()))};
    const int j = emit(OpKind::UpdateAliases, outs, std::move(args), line, true);
    for (size_t k = 0; k < ms.size(); ++k) {
      rename(ms[k], outs[k]);
      seen[ms[k]] = wver[group(ms[k])];
    }
    for (int g : groups) {
      if (fx.has(run::UaFix::War))
        for (int r : pending[g]) t.added_edges.push_back(Edge{r, j, true});
      pending[g].clear();
    }
    return j;
  };

  std::vector<int> outs, in, groups;  // per statement, reused (they keep their capacity)
  for (size_t si = 0; si < p.stmts.size(); ++si) {
    const auto& st = p.stmts[si];
    b.set_source(p1.origin[si]);
    const bool inplace = ir::is_inplace(st.op);
    const bool viewop = view_creating(st) && !p1.opaque[si];
    bool involves = false;
    for_each_tensor_arg(st, [&](int v) { involves = involves || group(canon(v)) >= 0; });
    outs.clear();
    for (int o : st.outs) outs.push_back(def[o] = b.value(o));
    if (!(inplace || viewop || involves)) {
      dataflow_from.clear();
      emit_stmt(si, outs, resolve_args(st.args));
      continue;
    }
    // The in set, and the groups it meets.
    in.clear();
    if (inplace && !fx.has(run::UaFix::Args))
      in.push_back(canon(static_cast<int>(st.args[0].i)));
    else
      for_each_tensor_arg(st, [&](int v) { in.push_back(canon(v)); });
    for (int v : in) encounter(v);
    groups.clear();
    for (int v : in)
      if (group(v) >= 0 && std::find(groups.begin(), groups.end(), group(v)) == groups.end())
        groups.push_back(group(v));
    bool need = !groups.empty();
    if (need && fx.has(run::UaFix::Dedupe)) {
      bool stale = false;
      for (int v : in) stale = stale || (group(v) >= 0 && seen[v] < wver[group(v)]);
      need = fx.has(run::UaFix::Min) ? stale : inplace || stale;
    }
    if (mutant == run::Mutant::UaWritesOnly && fx.any()) need = need && inplace;
    if (need) update(groups, st.line);
    for (int o : st.outs) encounter(o);
    // The statement itself; an in-place op binds a fresh output if the source binds none.
    if (inplace && outs.empty() && !ir::binds_nothing(st.op))
      outs.push_back(b.suffixed(static_cast<int>(st.args[0].i)));
    dataflow_from.clear();
    std::vector<Arg> args = resolve_args(st.args);
    if (inplace && !fx.has(run::UaFix::Inputs) && (fx.has(run::UaFix::Atomic) || !ir::out_of_place(st.op))) {
      // Pass 1 can make an operand partly overlap the written tensor, which
      // our in-place ops reject; Thunder runs an in-place op as its
      // out-of-place op + copy_, reading every operand first. The same
      // here: the overlapping operands are cloned just before.
      auto e = b.try_infer(st.op, args);
      if (e && e->kind == ir::ErrorKind::Overlap)
        for (size_t k = 1; k < args.size(); ++k)
          if (args[k].kind == Arg::Tensor) {
            const int c = b.value(b.program().value_names[args[k].i], false);
            emit_resolved(OpKind::Clone, {c}, {Arg::tensor(static_cast<int>(args[k].i))}, st.line, true);
            args[k].i = c;
          }
    }
    int j;
    const auto oop = ir::out_of_place(st.op);
    if (inplace && oop && !fx.has(run::UaFix::Atomic)) {
      // Thunder's executable form: the out-of-place op reads every operand,
      // then copy_ writes the result (other statements may run between).
      const int x = static_cast<int>(args[0].i);
      const int tmp = b.value(b.program().value_names[x], false);
      emit_resolved(*oop, {tmp}, std::vector<Arg>(args.begin() + ir::first_operand(st.op), args.end()), st.line, true);
      j = emit_resolved(OpKind::CopyI, outs, {Arg::tensor(x), Arg::tensor(tmp)}, st.line, p1.added[si]);
    } else {
      j = emit_stmt(si, outs, std::move(args));
    }
    // Accesses, for fix war (an access of a group with no update before
    // the next write is ordered before that write directly).
    for (int v : in)
      if (group(v) >= 0 && fx.has(run::UaFix::War)) {
        auto& pend = pending[group(v)];
        if (inplace && !need) {
          for (int r : pend) t.added_edges.push_back(Edge{r, j, true});
          pend.clear();
        }
        if (std::find(pend.begin(), pend.end(), j) == pend.end()) pend.push_back(j);
      }
    for (size_t k = 0; k < st.outs.size(); ++k)
      if (group(canon(st.outs[k])) >= 0) seen[canon(st.outs[k])] = wver[group(canon(st.outs[k]))];
    if (inplace) {
      const int x = static_cast<int>(st.args[0].i);
      const int g = group(canon(x));
      if (g >= 0) seen[canon(x)] = ++wver[g];
      if (!outs.empty()) {
        // Bound results of the source read the same chain: `u` resolves like `x`.
        rename(x, outs[0]);
      } else {
        writer[resolve(x)] = j;  // setitem_: its renaming as dataflow edges
      }
    }
  }
  for (int r : p.returns) b.program().returns.push_back(resolve(r));
  b.program().has_return = p.has_return;
  b.program().return_line = p.return_line;
  if (!t.error.empty()) {
    t.program = std::move(b.program());
    return t;
  }
  if (b.failed())
    t.error = b.error();
  else
    t.analysis = std::make_shared<const ir::Analysis>(b.analysis(static_cast<int>(p.storages.size())));
  // Pass 1's reshapes are statements the strategy added.
  t.program = std::move(b.program());
  t.added_node = std::move(b.added());
  t.origin = std::move(b.origin());
  return t;
}

}  // namespace

Transformed update_aliases_strategy(const ir::Program& src, const ir::Analysis& an, run::UaFixes fx,
                                    run::Mutant mutant) {
  return update_aliases_rule(src, an, fx, mutant, true);
}

}  // namespace af::schedulers
