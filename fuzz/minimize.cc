#include "fuzz/minimize.h"

#include "fuzz/signature.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <optional>
#include <unordered_set>

#include "fuzz/invalid.h"
#include "ir/analysis.h"
#include "ir/geometry.h"
#include "ir/text.h"
#include "schedulers/schedulers.h"

namespace af::fuzz {

using ir::Arg;
using ir::InitKind;
using ir::OpClass;
using ir::OpKind;
using ir::Program;
using ir::Stmt;

namespace {

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// ---- structural edits (they may produce invalid programs: the caller checks)

// Removes the marked statements, inputs, storages and returns, and with them
// every statement that uses (transitively) a value they defined, then
// renumbers values (inputs first, then statement results, in order).
Program remove(const Program& p, const std::vector<bool>& drop_stmt, const std::vector<bool>& drop_input,
               const std::vector<bool>& drop_storage, const std::vector<bool>& drop_return) {
  const int nv = p.num_values();
  std::vector<bool> dead(nv, false);
  std::vector<int> storage_map(p.storages.size(), -1);
  Program q;
  for (size_t s = 0; s < p.storages.size(); ++s)
    if (drop_storage.empty() || !drop_storage[s]) {
      storage_map[s] = static_cast<int>(q.storages.size());
      q.storages.push_back(p.storages[s]);
    }
  std::vector<int> vmap(nv, -1);
  for (size_t k = 0; k < p.inputs.size(); ++k) {
    const auto& in = p.inputs[k];
    if ((!drop_input.empty() && drop_input[k]) || storage_map[in.storage] < 0) {
      dead[k] = true;
      continue;
    }
    ir::InputDecl d = in;
    d.storage = storage_map[in.storage];
    vmap[k] = q.new_value(p.value_names[k]);
    q.inputs.push_back(d);
  }
  for (size_t i = 0; i < p.stmts.size(); ++i) {
    const Stmt& st = p.stmts[i];
    bool drop = !drop_stmt.empty() && drop_stmt[i];
    ir::for_each_tensor_arg(st, [&](int v) { drop = drop || dead[v]; });
    if (drop) {
      for (int o : st.outs) dead[o] = true;
      continue;
    }
    Stmt n = st;
    for (int& o : n.outs) {
      const int id = q.new_value(p.value_names[o]);
      vmap[o] = id;
      o = id;
    }
    ir::for_each_tensor_arg(n.args, [&](int64_t& v) { v = vmap[v]; });
    q.stmts.push_back(std::move(n));
  }
  for (size_t j = 0; j < p.returns.size(); ++j) {
    const int v = p.returns[j];
    if (dead[v] || (!drop_return.empty() && drop_return[j])) continue;
    q.returns.push_back(vmap[v]);
  }
  q.has_return = p.has_return && !q.returns.empty();
  return q;
}

// p with one more input, declared last (its value id is the old input
// count; statement values move up by one).
Program with_input(const Program& p, ir::InputDecl d, const std::string& name) {
  const int n = static_cast<int>(p.inputs.size());
  auto moved = [n](int64_t v) { return v < n ? v : v + 1; };
  Program q = p;
  d.name = name;
  q.inputs.push_back(d);
  q.value_names.insert(q.value_names.begin() + n, name);
  for (Stmt& st : q.stmts) {
    for (int& o : st.outs) o = static_cast<int>(moved(o));
    ir::for_each_tensor_arg(st.args, [&](int64_t& v) { v = moved(v); });
  }
  for (int& r : q.returns) r = static_cast<int>(moved(r));
  return q;
}

Program drop_stmts(const Program& p, size_t begin, size_t end) {
  std::vector<bool> d(p.stmts.size(), false);
  for (size_t i = begin; i < end && i < d.size(); ++i) d[i] = true;
  return remove(p, d, {}, {}, {});
}

// Later uses of value `from` (after statement `after`) read `to` instead.
void substitute(Program& p, int from, int to, size_t after) {
  for (size_t i = after + 1; i < p.stmts.size(); ++i)
    ir::for_each_tensor_arg(p.stmts[i].args, [&](int64_t& v) {
      if (v == from) v = to;
    });
  for (int& r : p.returns)
    if (r == from) r = to;
}

// Whether a statement after `after`, or a return, reads value v.
bool used_after(const Program& p, int v, size_t after) {
  for (size_t i = after + 1; i < p.stmts.size(); ++i) {
    bool reads = false;
    ir::for_each_tensor_arg(p.stmts[i], [&](int a) { reads = reads || a == v; });
    if (reads) return true;
  }
  return std::find(p.returns.begin(), p.returns.end(), v) != p.returns.end();
}

// How simple a number is: 0 < 1 < 2 < -1 < anything else.
int number_rank(double v) {
  if (v == 0) return 0;
  if (v == 1) return 1;
  if (v == 2) return 2;
  if (v == -1) return 3;
  return 4;
}
const double kSimple[] = {0, 1, 2, -1};

int init_rank(const ir::StorageDecl& s) {
  switch (s.init) {
    case InitKind::Full: return number_rank(s.a);
    case InitKind::Iota: return s.a == 0 && s.b == 1 ? 5 : 6;
    case InitKind::List: return 7;
    case InitKind::Random: return 8;
  }
  return 9;
}
// Above every init_rank: simpler_inits(d, kAnyInit) gives every simple init.
constexpr int kAnyInit = 10;

// Storage elements the inputs need (as_strided inputs only; a whole input
// follows its storage).
int64_t needed_numel(const Program& p, int s) {
  int64_t need = 1;
  for (const auto& in : p.inputs)
    if (in.storage == s && !in.whole)
      need = std::max(need, ir::required_storage(ir::Geometry{in.sizes, in.strides, in.offset}));
  return need;
}

void set_numel(ir::StorageDecl& s, int64_t n) {
  s.numel = n;
  if (s.init == InitKind::List) s.values.resize(static_cast<size_t>(n), 0.0f);
}

// ---- the loop

// A candidate the predicate may see: valid, or for an accepts-invalid
// finding rejected with the same kind.
bool acceptable(const Program& q, const MinimizeOptions& o) {
  auto an = ir::analyze(q);
  if (!o.error_kind) return an.ok();
  return !an && an.error().kind == *o.error_kind;
}

class Minimizer {
 public:
  Minimizer(const Interesting& pred, const MinimizeOptions& o, MinimizeStats& st)
      : pred_(pred), o_(o), st_(st), start_(now_s()) {}

  Program run(const Program& p) {
    cur_ = p;
    seen_.insert(ir::print(p));
    for (;;) {
      const int64_t before = st_.accepted;
      ++st_.rounds;
      pass_delete_stmts();
      pass_delete_decls();
      pass_merge_inputs();
      pass_bypass();
      pass_hoist_views();
      pass_fresh_to_inputs();
      pass_reads_to_returns();
      pass_simpler_ops();
      pass_order_writes();
      pass_writes_to_reads();
      pass_canonical_order();
      pass_shrink();
      pass_constants();
      pass_inits();
      if (out_of_budget()) break;
      // At a fixed point of the single-step passes, pairs of statements
      // (two deletions that only work together) on small programs.
      if (st_.accepted == before && !pass_delete_pairs() && !pass_delete_with_inits()) break;
    }
    if (o_.rename && !out_of_budget()) {
      Program c = canonical_names(cur_);
      // Renaming cannot change a verdict, but the predicate is the judge.
      if (c != cur_) try_candidate(c);
    }
    return cur_;
  }

 private:
  bool out_of_budget() {
    if (st_.budget_hit) return true;
    if ((o_.time_s > 0 && now_s() - start_ > o_.time_s) || (o_.max_tests >= 0 && st_.tests >= o_.max_tests))
      st_.budget_hit = true;
    return st_.budget_hit;
  }

  // Keeps c when it is new, valid and interesting.
  bool try_candidate(const Program& c) {
    if (out_of_budget()) return false;
    std::string text = ir::print(c);
    if (!seen_.insert(text).second) {
      ++st_.duplicates;
      return false;
    }
    auto q = ir::parse(text);
    if (!q || !acceptable(*q, o_)) {
      ++st_.invalid;
      return false;
    }
    ++st_.tests;
    if (!pred_(*q)) return false;
    cur_ = std::move(*q);
    ++st_.accepted;
    return true;
  }

  void pass_delete_stmts() {
    size_t n = cur_.stmts.size();
    for (size_t chunk = std::max<size_t>(1, n / 2);; chunk /= 2) {
      // From the end: later statements have fewer dependents.
      for (size_t end = cur_.stmts.size(); end > 0 && !out_of_budget();) {
        const size_t begin = end >= chunk ? end - chunk : 0;
        if (try_candidate(drop_stmts(cur_, begin, end))) end = std::min(begin, cur_.stmts.size());
        else end = begin;
      }
      if (chunk <= 1 || out_of_budget()) break;
    }
  }

  bool pass_delete_pairs() {
    const size_t n = cur_.stmts.size();
    if (n < 2 || n > 24) return false;
    for (size_t j = n; j-- > 1 && !out_of_budget();)
      for (size_t i = j; i-- > 0 && !out_of_budget();) {
        std::vector<bool> d(cur_.stmts.size(), false);
        d[i] = d[j] = true;
        if (try_candidate(remove(cur_, d, {}, {}, {}))) return true;
      }
    return false;
  }

  // A statement that only put values in place for the bug (add_(x, 1.0)
  // before clamp_(x, 0.0, 0.0), t = add(x, 1.0) read instead of x) goes
  // while a storage starts from other values, when the bug stays: neither
  // edit alone keeps it, so one bug found after a write and on the input
  // itself minimizes alike. At the fixed point, on small programs only.
  bool pass_delete_with_inits() {
    const size_t n = cur_.stmts.size();
    if (n < 2 || n > 4) return false;
    for (size_t i = n; i-- > 0 && !out_of_budget();) {
      std::vector<Program> cands;
      cands.push_back(drop_stmts(cur_, i, i + 1));
      const Stmt& st = cur_.stmts[i];
      if (st.outs.size() == 1 && !st.args.empty() && st.args[0].kind == Arg::Tensor) {
        Program c = cur_;
        substitute(c, st.outs[0], static_cast<int>(st.args[0].i), i);  // later reads read its operand
        cands.push_back(drop_stmts(c, i, i + 1));
      }
      for (const Program& c : cands)
        for (size_t s = 0; s < c.storages.size() && !out_of_budget(); ++s)
          for (const ir::StorageDecl& d : simpler_inits(c.storages[s], kAnyInit)) {
            Program e = c;
            e.storages[s] = d;
            if (try_candidate(e)) return true;
          }
    }
    return false;
  }

  // Two inputs of one storage: every use of one reads the other, and the
  // unused one goes (a bug seen through two aliased inputs and the same
  // bug seen through one then minimize alike when it stays).
  void pass_merge_inputs() {
    for (size_t k = cur_.inputs.size(); k-- > 1 && !out_of_budget();)
      for (size_t j = 0; j < k && k < cur_.inputs.size() && !out_of_budget(); ++j) {
        if (cur_.inputs[j].storage != cur_.inputs[k].storage) continue;
        bool merged = false;
        for (auto [from, to] : {std::pair{k, j}, std::pair{j, k}}) {
          Program c = cur_;
          substitute(c, static_cast<int>(from), static_cast<int>(to), static_cast<size_t>(-1));
          std::vector<bool> d(c.inputs.size(), false);
          d[from] = true;
          if ((merged = try_candidate(remove(c, {}, d, {}, {})))) break;
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
  void pass_hoist_views() {
    auto an = ir::analyze(cur_);
    if (!an) return;
    for (size_t i = 0; i < cur_.stmts.size() && !out_of_budget(); ++i) {
      const Stmt& st = cur_.stmts[i];
      // An in-place op's bound result (t = add_(x, 1.0)) is x itself, a
      // view in all but name: it is hoisted too, and the write stays.
      const bool bound_write = ir::is_inplace(st.op) && st.outs.size() == 1;
      if (ir::op_info(st.op).cls != OpClass::View && !bound_write) continue;
      Program c = cur_;
      int added = 0;
      for (size_t k = 0; k < st.outs.size(); ++k) {
        const ir::TensorMeta& m = an->values[st.outs[k]];
        if (m.storage < 0 || m.storage >= an->num_declared || !used_after(cur_, st.outs[k], i)) continue;
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
        substitute(c, st.outs[k] + in + 1 - static_cast<int>(cur_.inputs.size()), in, i);
        ++added;
      }
      if (added == 0) continue;
      std::vector<bool> drop(c.stmts.size(), false);
      if (bound_write) c.stmts[i].outs.clear();
      else drop[i] = true;
      if (try_candidate(remove(c, drop, {}, {}, {}))) return;  // the analysis is cur_'s no more
    }
  }

  // A fresh tensor (full) becomes an input over a storage of its own with
  // the same shape and values, when the bug stays: a bug through views of
  // an intermediate and the same bug through views of an input then
  // minimize alike (inputs are the format's simplest tensors).
  void pass_fresh_to_inputs() {
    for (size_t i = 0; i < cur_.stmts.size() && !out_of_budget(); ++i) {
      const Stmt& st = cur_.stmts[i];
      if (st.op != OpKind::Full || st.outs.size() != 1 || st.args[0].kind != Arg::IntList) continue;
      ir::StorageDecl sd;
      sd.numel = 1;
      for (int64_t n : st.args[0].list) sd.numel *= n;
      if (sd.numel < 1) continue;
      sd.init = InitKind::Full;
      sd.a = st.args[1].as_double();
      sd.name = "f";
      auto taken = [&](const std::string& n) {
        return std::find(cur_.value_names.begin(), cur_.value_names.end(), n) != cur_.value_names.end() ||
               std::any_of(cur_.storages.begin(), cur_.storages.end(), [&](const auto& x) { return x.name == n; });
      };
      while (taken(sd.name)) sd.name += "_";
      ir::InputDecl d;
      d.storage = static_cast<int>(cur_.storages.size());
      d.whole = false;
      d.sizes = ir::Shape(st.args[0].list.begin(), st.args[0].list.end());
      d.strides = ir::contiguous_strides(d.sizes);
      d.offset = 0;
      Program c = cur_;
      c.storages.push_back(sd);
      std::string name = "h";
      while (taken(name) || name == sd.name) name += "_";
      c = with_input(c, d, name);
      substitute(c, st.outs[0] + 1, static_cast<int>(cur_.inputs.size()), i);
      std::vector<bool> drop(c.stmts.size(), false);
      drop[i] = true;
      if (try_candidate(remove(c, drop, {}, {}, {}))) return;
    }
  }

  // A statement that only reads for the bug goes, and what it read is
  // returned instead; an in-place operand becomes 1.0 and is returned. A
  // return is not part of the skeleton, so one bug observed through
  // add(x), alias(x), copy_(y, x), mul_(y, x) or a return minimizes alike.
  void pass_reads_to_returns() {
    for (size_t i = cur_.stmts.size(); i-- > 0 && !out_of_budget();) {
      if (i >= cur_.stmts.size()) continue;
      const Stmt st = cur_.stmts[i];
      auto returning = [&](Program c, std::vector<int64_t> read) {
        for (int64_t v : read)
          if (std::find(c.returns.begin(), c.returns.end(), v) == c.returns.end()) c.returns.push_back(static_cast<int>(v));
        c.has_return = !c.returns.empty();
        return c;
      };
      std::vector<int64_t> read;
      ir::for_each_tensor_arg(st, [&](int v) { read.push_back(v); });
      if (read.empty()) continue;
      if (!ir::is_inplace(st.op)) {
        std::vector<bool> d(cur_.stmts.size(), false);
        d[i] = true;
        try_candidate(remove(returning(cur_, read), d, {}, {}, {}));
        continue;
      }
      const char* sig = ir::op_info(st.op).sig;
      // (1.0 first, then 2.0: mul_(x, 1.0) or a fill with the value already
      // there writes nothing.)
      bool done = false;
      for (size_t k = 1; k < st.args.size() && sig[k] && !done; ++k)
        if (sig[k] == 'X' && st.args[k].kind == Arg::Tensor)
          for (double v : {1.0, 2.0}) {
            Program c = returning(cur_, {st.args[k].i});
            c.stmts[i].args[k] = Arg::number(v);
            if ((done = try_candidate(c))) break;
          }
      if (st.op == OpKind::CopyI)
        for (double v : {1.0, 2.0}) {
          Program c = returning(cur_, {st.args[1].i});
          c.stmts[i].op = OpKind::FillI;
          c.stmts[i].args[1] = Arg::number(v);
          if (try_candidate(c)) break;
        }
    }
  }

  // Two writes a bug needs both of (add_ and mul_ do not commute): the
  // earlier becomes add_, the later mul_, when the bug stays, so which op
  // the generator drew first does not split one bug in two.
  void pass_order_writes() {
    auto number_write = [](const Stmt& st, OpKind op) {
      return st.op == op && st.args.size() == 2 && st.args[1].kind != Arg::Tensor;
    };
    for (size_t i = 0; i < cur_.stmts.size() && !out_of_budget(); ++i)
      for (size_t j = i + 1; j < cur_.stmts.size() && !out_of_budget(); ++j)
        if (number_write(cur_.stmts[i], OpKind::MulI) && number_write(cur_.stmts[j], OpKind::AddI)) {
          Program c = cur_;
          c.stmts[i].op = OpKind::AddI;
          c.stmts[i].args[1] = Arg::number(1.0);
          c.stmts[j].op = OpKind::MulI;
          c.stmts[j].args[1] = Arg::number(2.0);
          try_candidate(c);
        }
  }

  // An in-place statement without a bound result becomes a returned read
  // of one of its tensors, `add_(x, c)` -> `r = add(x, 1.0)` (the written
  // one first, then each tensor operand: `mul_(y, x)` -> `r = add(x, 1.0)`),
  // when the bug stays: a bug seen as a stale read and as a lost write, or
  // through a write's operand and through a plain read, then minimizes
  // alike (the count of writes falls, so this ends).
  void pass_writes_to_reads() {
    for (size_t i = cur_.stmts.size(); i-- > 0 && !out_of_budget();) {
      if (i >= cur_.stmts.size()) continue;
      const Stmt st = cur_.stmts[i];
      if (!ir::is_inplace(st.op) || !st.outs.empty()) continue;
      for (const Arg& a : st.args) {
        if (a.kind != Arg::Tensor) continue;
        Program c = cur_;
        Stmt& n = c.stmts[i];
        n.op = OpKind::Add;
        n.args = {a, Arg::number(1.0)};
        std::string name = "r";
        while (std::find(c.value_names.begin(), c.value_names.end(), name) != c.value_names.end()) name += "_";
        n.outs = {c.new_value(name)};
        c.returns.push_back(n.outs[0]);  // the read is observed
        c.has_return = true;
        if (try_candidate(remove(c, {}, {}, {}, {}))) break;  // renumbers the new value into statement order
      }
    }
  }

  // Same-size rewrites toward the program whose skeleton is least: the
  // statements in another order the dataflow allows (every such order of a
  // program of up to kPermuteUpTo statements, least skeleton first; two
  // adjacent statements trading places in a longer one), or two values of
  // one storage trading every later use. Kept only when the skeleton gets
  // smaller (so this ends) and the bug stays: findings of one bug that
  // differ in which of two aliases a statement touches, or in the order of
  // independent statements, meet at one program (fuzz/signature.h).
  static constexpr size_t kPermuteUpTo = 5;
  void pass_canonical_order() {
    const std::string here = skeleton(cur_);
    auto key = [](const Program& c) -> std::optional<std::string> {
      auto q = ir::parse_and_validate(ir::print(c));
      if (!q) return std::nullopt;
      return skeleton(*q);
    };
    const size_t n = cur_.stmts.size();
    std::vector<std::vector<bool>> after(n, std::vector<bool>(n, false));  // after[j][i]: j reads what i wrote
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j)
        for (int o : cur_.stmts[i].outs)
          ir::for_each_tensor_arg(cur_.stmts[j], [&](int v) { after[j][i] = after[j][i] || v == o; });
    auto in_order = [&](const std::vector<size_t>& order) {
      Program c = cur_;
      for (size_t k = 0; k < n; ++k) c.stmts[k] = cur_.stmts[order[k]];
      return remove(c, {}, {}, {}, {});  // values back in statement order
    };
    std::vector<std::pair<std::string, Program>> cands;
    auto consider = [&](const std::vector<size_t>& order) {
      Program c = in_order(order);
      if (auto k = key(c); k && *k < here) cands.push_back({*k, std::move(c)});
    };
    if (n <= kPermuteUpTo) {
      std::vector<size_t> order;
      std::vector<bool> placed(n, false);
      std::function<void()> walk = [&] {
        if (order.size() == n) return consider(order);
        for (size_t j = 0; j < n; ++j) {
          if (placed[j]) continue;
          bool ready = true;
          for (size_t i = 0; i < n && ready; ++i) ready = !after[j][i] || placed[i];
          if (!ready) continue;
          placed[j] = true, order.push_back(j);
          walk();
          placed[j] = false, order.pop_back();
        }
      };
      walk();
    } else {
      for (size_t i = 0; i + 1 < n; ++i) {
        if (after[i + 1][i]) continue;
        std::vector<size_t> order(n);
        for (size_t k = 0; k < n; ++k) order[k] = k;
        std::swap(order[i], order[i + 1]);
        consider(order);
      }
    }
    std::stable_sort(cands.begin(), cands.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (const auto& c : cands) {
      if (out_of_budget()) return;
      if (try_candidate(c.second)) return;  // `here` is cur_'s no more
    }
    auto an = ir::analyze(cur_);
    if (!an) return;
    const int n_in = static_cast<int>(cur_.inputs.size());
    std::vector<int> def(cur_.num_values(), -1);  // defining statement; -1 for inputs
    for (size_t i = 0; i < cur_.stmts.size(); ++i)
      for (int o : cur_.stmts[i].outs) def[o] = static_cast<int>(i);
    for (int u = 0; u < cur_.num_values() && !out_of_budget(); ++u)
      for (int v = u + 1; v < cur_.num_values() && !out_of_budget(); ++v) {
        const int su = an->values[u].storage, sv = an->values[v].storage;
        if (su < 0 || su != sv || (u < n_in && v < n_in)) continue;  // two inputs: pass_merge_inputs
        Program c = cur_;
        const size_t from = static_cast<size_t>(std::max(def[u], def[v]) + 1);
        for (size_t i = from; i < c.stmts.size(); ++i)
          ir::for_each_tensor_arg(c.stmts[i].args, [&](int64_t& a) { a = a == u ? v : a == v ? u : a; });
        if (auto k = key(c); k && *k < here && try_candidate(c)) return;  // the analysis is cur_'s no more
      }
  }

  void pass_delete_decls() {
    for (size_t j = cur_.returns.size(); j-- > 0 && !out_of_budget();) {
      std::vector<bool> d(cur_.returns.size(), false);
      d[j] = true;
      try_candidate(remove(cur_, {}, {}, {}, d));
      j = std::min(j, cur_.returns.size());
    }
    for (size_t k = cur_.inputs.size(); k-- > 0 && !out_of_budget();) {
      std::vector<bool> d(cur_.inputs.size(), false);
      d[k] = true;
      try_candidate(remove(cur_, {}, d, {}, {}));
      k = std::min(k, cur_.inputs.size());
    }
    for (size_t s = cur_.storages.size(); s-- > 0 && !out_of_budget();) {
      std::vector<bool> d(cur_.storages.size(), false);
      d[s] = true;
      try_candidate(remove(cur_, {}, {}, d, {}));
      s = std::min(s, cur_.storages.size());
    }
  }

  void pass_bypass() {
    for (size_t i = cur_.stmts.size(); i-- > 0 && !out_of_budget();) {
      if (i >= cur_.stmts.size()) continue;
      const Stmt st = cur_.stmts[i];
      if (st.outs.empty()) continue;
      if (st.outs.size() > 1) {
        // Multi-output views: every piece becomes the argument itself.
        Program c = cur_;
        for (int o : st.outs) substitute(c, o, static_cast<int>(st.args[0].i), i);
        std::vector<bool> d(c.stmts.size(), false);
        d[i] = true;
        try_candidate(remove(c, d, {}, {}, {}));
        continue;
      }
      const int out = st.outs[0];
      if (ir::is_inplace(st.op)) {
        // `u = add_(x, 1.0)` -> `add_(x, 1.0)`, later uses of u read x.
        Program c = cur_;
        substitute(c, out, static_cast<int>(st.args[0].i), i);
        c.stmts[i].outs.clear();
        try_candidate(remove(c, {}, {}, {}, {}));
        continue;
      }
      for (const Arg& a : st.args) {
        if (a.kind != Arg::Tensor) continue;
        Program c = cur_;
        substitute(c, out, static_cast<int>(a.i), i);
        std::vector<bool> d(c.stmts.size(), false);
        d[i] = true;
        if (try_candidate(remove(c, d, {}, {}, {}))) break;
      }
    }
  }

  void pass_simpler_ops() {
    for (size_t i = 0; i < cur_.stmts.size() && !out_of_budget(); ++i) {
      const Stmt st = cur_.stmts[i];
      const auto& info = ir::op_info(st.op);
      std::vector<Stmt> cands;
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
      // member that a strategy still treats as a copy; x[0:0] of a 0-d x is
      // x itself).
      if (st.op == OpKind::CopyI) {
        with(OpKind::FillI, {st.args[0], Arg::number(1.0)});
        // (2.0 after 1.0: writing the value already there writes nothing.)
        for (int64_t end : {1, 0})
          for (double v : {1.0, 2.0})
            with(OpKind::SetitemI, {st.args[0], Arg::integer(0), Arg::integer(0), Arg::integer(end), Arg::number(v)});
      }
      // Every elementwise op becomes a representative of its class, when the
      // bug stays: in place add_(x, 1.0), else mul_(x, 2.0), else
      // fill_(x, 1.0), else clamp_(x, -1.0, 1.0); out of place add(x, 1.0),
      // else mul(x, 2.0). A
      // statement tries only the representatives before the one it already
      // is (whatever its constant), so every op walks down one list and
      // findings of one bug meet at one program (fuzz/signature.h). A bug
      // that needs two ops that do not commute keeps one of each.
      // (Reductions, cat, matmul and may-alias ops too: one that only reads
      // its operand for the bug is a read like any other.)
      const bool reads = ir::is_elementwise(st.op) || st.op == OpKind::FillI || st.op == OpKind::ZeroI ||
                         st.op == OpKind::ClampI || (info.cls == OpClass::MayAlias && st.outs.size() == 1) ||
                         (info.cls == OpClass::OutOfPlace && st.outs.size() == 1 && st.op != OpKind::Full);
      const bool first_tensor = st.args[0].kind == Arg::Tensor ||
                                (st.args[0].kind == Arg::TensorList && !st.args[0].list.empty());
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
      for (const Stmt& n : cands) {
        Program c = cur_;
        c.stmts[i] = n;
        if (try_candidate(c)) break;
      }
    }
  }

  // Smaller versions of a size list (one entry at a time).
  static std::vector<std::vector<int64_t>> smaller_sizes(const std::vector<int64_t>& v) {
    std::vector<std::vector<int64_t>> r;
    for (size_t d = 0; d < v.size(); ++d)
      for (int64_t x : {int64_t{1}, v[d] / 2, v[d] - 1})
        if (x >= 1 && x < v[d]) {
          auto w = v;
          w[d] = x;
          r.push_back(w);
        }
    return r;
  }

  void pass_shrink() {
    // Storage numel.
    for (size_t s = 0; s < cur_.storages.size() && !out_of_budget(); ++s) {
      const int64_t n = cur_.storages[s].numel;
      for (int64_t m : {needed_numel(cur_, static_cast<int>(s)), n / 2, n - 1}) {
        if (m < 1 || m >= cur_.storages[s].numel) continue;
        Program c = cur_;
        set_numel(c.storages[s], m);
        try_candidate(c);
      }
    }
    // Inputs: rank, sizes, strides, offset, whole form.
    for (size_t k = 0; k < cur_.inputs.size() && !out_of_budget(); ++k) {
      if (cur_.inputs[k].whole) continue;
      auto edit = [&](auto f) {
        Program c = cur_;
        f(c.inputs[k]);
        return try_candidate(c);
      };
      const auto in = cur_.inputs[k];
      const int64_t sn = cur_.storages[in.storage].numel;
      if (in.offset == 0 && in.sizes == ir::Shape{sn} && in.strides == ir::Shape{1} &&
          edit([](ir::InputDecl& d) { d.whole = true, d.sizes.clear(), d.strides.clear(); }))
        continue;
      for (size_t d = 0; d < in.sizes.size(); ++d)
        if (edit([d](ir::InputDecl& x) {
              x.sizes.erase(x.sizes.begin() + d);
              x.strides.erase(x.strides.begin() + d);
            }))
          break;
      for (const auto& sz : smaller_sizes(cur_.inputs[k].sizes))
        if (edit([&sz](ir::InputDecl& x) { x.sizes = sz; })) break;
      if (cur_.inputs[k].offset != 0) edit([](ir::InputDecl& x) { x.offset = 0; });
      const auto cs = ir::contiguous_strides(cur_.inputs[k].sizes);
      if (cur_.inputs[k].strides != cs) edit([&cs](ir::InputDecl& x) { x.strides = cs; });
    }
    // Statements: size lists and integers.
    for (size_t i = 0; i < cur_.stmts.size() && !out_of_budget(); ++i) {
      const Stmt st = cur_.stmts[i];
      auto edit = [&](std::vector<Arg> args) {
        Program c = cur_;
        c.stmts[i].args = std::move(args);
        return try_candidate(c);
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
        const Arg& a = cur_.stmts[i].args[k];
        if (a.kind == Arg::IntList && st.op != OpKind::Permute) {
          for (const auto& sz : smaller_sizes(a.list)) {
            auto args = cur_.stmts[i].args;
            args[k].list = sz;
            if (edit(args)) break;
          }
        } else if (a.kind == Arg::Int) {
          for (double v : kSimple)
            if (number_rank(v) < number_rank(static_cast<double>(a.i))) {
              auto args = cur_.stmts[i].args;
              args[k] = Arg::integer(static_cast<int64_t>(v));
              if (edit(args)) break;
            }
        }
      }
    }
  }

  void pass_constants() {
    for (size_t i = 0; i < cur_.stmts.size() && !out_of_budget(); ++i)
      for (size_t k = 0; k < cur_.stmts[i].args.size(); ++k) {
        const Arg a = cur_.stmts[i].args[k];
        if (a.kind != Arg::Float) continue;
        for (double v : kSimple)
          if (number_rank(v) < number_rank(a.f)) {
            Program c = cur_;
            c.stmts[i].args[k] = Arg::number(v);
            if (try_candidate(c)) break;
          }
      }
  }

  void pass_inits() {
    for (size_t s = 0; s < cur_.storages.size() && !out_of_budget(); ++s)
      for (const ir::StorageDecl& d : simpler_inits(cur_.storages[s], init_rank(cur_.storages[s]))) {
        Program c = cur_;
        c.storages[s] = d;
        if (try_candidate(c)) break;
      }
  }

  // The simple initial values (full of 0, 1, 2, -1, then iota(0, 1)) of
  // rank below `below`, simplest first.
  static std::vector<ir::StorageDecl> simpler_inits(const ir::StorageDecl& from, int below) {
    std::vector<ir::StorageDecl> cands;
    auto with = [&](InitKind k, double a, double b) {
      ir::StorageDecl d = from;
      d.init = k;
      d.a = a;
      d.b = b;
      d.seed = 0;
      d.values.clear();
      if (init_rank(d) < below) cands.push_back(d);
    };
    for (double v : kSimple) with(InitKind::Full, v, 0);
    with(InitKind::Iota, 0, 1);
    return cands;
  }

  const Interesting& pred_;
  const MinimizeOptions& o_;
  MinimizeStats& st_;
  double start_;
  Program cur_;
  std::unordered_set<std::string> seen_;
};

}  // namespace

Program canonical_names(const Program& p) {
  Program q = p;
  for (size_t s = 0; s < q.storages.size(); ++s) q.storages[s].name = "s" + std::to_string(s);
  for (size_t k = 0; k < q.inputs.size(); ++k) {
    q.inputs[k].name = "x" + std::to_string(k);
    q.value_names[k] = q.inputs[k].name;
  }
  int t = 0;
  for (const Stmt& st : q.stmts)
    for (int o : st.outs) q.value_names[o] = "t" + std::to_string(t++);
  return q;
}

Program minimize(const Program& p, const Interesting& interesting, const MinimizeOptions& o, MinimizeStats* stats) {
  MinimizeStats local;
  MinimizeStats& st = stats ? *stats : local;
  st = MinimizeStats();
  const double t0 = now_s();
  st.stmts_before = static_cast<int>(p.stmts.size());
  st.bytes_before = static_cast<int64_t>(ir::print(p).size());
  Program out = p;
  if (acceptable(p, o)) {
    ++st.tests;
    st.initially_interesting = interesting(p);
    if (st.initially_interesting) out = Minimizer(interesting, o, st).run(p);
  }
  st.stmts_after = static_cast<int>(out.stmts.size());
  st.bytes_after = static_cast<int64_t>(ir::print(out).size());
  st.elapsed_s = now_s() - t0;
  return out;
}

std::optional<RunRecord> run_spec(const Program& p, const RunSpec& spec) {
  auto an = ir::analyze(p);
  if (!an) {
    if (!eager_raises(an.error().kind)) return std::nullopt;
    for (RunRecord& r : check_invalid_program(p, an.error(), {spec}))
      if (r.spec == spec) return r;
    return std::nullopt;
  }
  oracles::Observables expected = oracles::run_eager(p, *an);
  for (RunRecord& r : check_program(p, expected, {spec}))
    if (r.spec == spec) return r;
  return std::nullopt;
}

Interesting same_bucket(const RunSpec& spec, const std::string& bucket) {
  return [spec, bucket](const Program& p) {
    auto r = run_spec(p, spec);
    return r && !r->agree && bucket_of(*r) == bucket;
  };
}

constexpr int64_t kBugTests = 1000;

MinimizedFinding minimize_finding(const Program& p, const RunSpec& spec, const MinimizeOptions& options) {
  const double t_start = now_s();
  MinimizedFinding m;
  m.original_spec = spec;
  m.spec = spec;
  m.original = p;
  m.minimized = p;
  auto an = ir::analyze(p);
  MinimizeOptions o = options;
  if (!an) {
    if (!eager_raises(an.error().kind) || !is_external(spec.strategy)) {
      m.error = "invalid program: " + an.error().to_string();
      return m;
    }
    o.error_kind = an.error().kind;  // an accepts-invalid finding stays one
  }
  schedulers::RunConfig config;
  if (!is_external(spec.strategy))  // external strategies (check.h) have no schedulers options
    if (auto e = parse_spec(spec, &config)) {
      m.error = *e;
      return m;
    }
  const double t_run0 = now_s();
  auto r = run_spec(p, spec);
  // One run of the whole program: the checks after phases 1 and 2 (the
  // minimized program's run, phase 3's first check, the bug program's run)
  // cost about three such runs, kept out of the phases' budget so that a
  // slow real compiler's minimizer ends inside its caller's deadline.
  const double t_run = now_s() - t_run0;
  if (!r) {
    m.error = "no run for this spec (strategy '" + spec.strategy + "'" +
              (spec.inject.empty() ? std::string() : ", mutant '" + spec.inject + "'") + " not available)";
    return m;
  }
  if (r->agree) {
    m.error = "the program does not diverge under this spec: nothing to minimize";
    return m;
  }
  m.bucket = bucket_of(*r);
  // The current spec follows the accepted candidates: the predicate may
  // switch the random seed, and a candidate is kept exactly when it holds.
  RunSpec cur = spec;
  std::vector<std::string> alternatives;
  if (!is_external(spec.strategy) && config.reorder.kind == schedulers::ReorderKind::Random)
    for (int s = 0; s < o.seeds; ++s)
      alternatives.push_back(schedulers::reorder_name({schedulers::ReorderKind::Random, static_cast<uint64_t>(s)}));
  const std::string bucket = m.bucket;
  bool switch_seeds = false;
  Interesting pred = [&cur, &alternatives, &bucket, &switch_seeds](const Program& q) {
    if (same_bucket(cur, bucket)(q)) return true;
    if (!switch_seeds) return false;
    for (const auto& a : alternatives) {
      if (a == cur.reorder) continue;
      RunSpec s = cur;
      s.reorder = a;
      if (same_bucket(s, bucket)(q)) {
        cur = s;
        return true;
      }
    }
    return false;
  };
  // Phase 1 keeps the seed; phase 2 (random:SEED only) goes on from its
  // result and may switch seeds. Starting with the seed fixed avoids the
  // worse local minima that an early switch can lead to.
  MinimizeOptions o1 = o;
  if (o.time_s > 0) o1.time_s = std::max(0.2 * o.time_s, o.time_s - 4 * t_run);
  m.minimized = minimize(p, pred, o1, &m.stats);
  if (!alternatives.empty() && !m.stats.budget_hit) {
    switch_seeds = true;
    MinimizeOptions o2 = o;
    if (o.time_s > 0) o2.time_s = std::max(1e-3, o1.time_s - m.stats.elapsed_s);
    if (o.max_tests >= 0) o2.max_tests = std::max<int64_t>(0, o.max_tests - m.stats.tests);
    MinimizeStats s2;
    m.minimized = minimize(m.minimized, pred, o2, &s2);
    MinimizeStats& s = m.stats;
    s.tests += s2.tests;
    s.invalid += s2.invalid;
    s.duplicates += s2.duplicates;
    s.accepted += s2.accepted;
    s.rounds += s2.rounds;
    s.budget_hit = s2.budget_hit;
    s.elapsed_s += s2.elapsed_s;
    s.stmts_after = s2.stmts_after;
    s.bytes_after = s2.bytes_after;
  }
  m.spec = cur;
  auto r2 = run_spec(m.minimized, m.spec);
  if (!r2 || r2->agree || bucket_of(*r2) != m.bucket) {
    // Cannot happen for a deterministic strategy; keep the original then.
    m.minimized = p;
    m.spec = spec;
    r2 = r;
  }
  m.record = *r2;
  if (auto man = ir::analyze(m.minimized)) m.expected = oracles::run_eager(m.minimized, *man);
  // The bug behind it: from min.af, shrink further while the same spec
  // still diverges the same way (values, or the same error type), whatever
  // observable or first op; a budget in runs keeps it deterministic.
  MinimizeOptions o3 = o;
  o3.max_tests = o.max_tests >= 0 ? std::min<int64_t>(kBugTests, o.max_tests) : kBugTests;
  // Within the caller's time budget (what phases 1 and 2 left of it).
  if (o.time_s > 0) o3.time_s = std::max(1e-3, o.time_s - (now_s() - t_start) - 2 * t_run);
  // Like phase 2, a random:SEED order may switch seeds (the order is a
  // chaotic function of the program: deleting a dead statement changes it).
  // On the interpreter any reorder and fusion policy may take over too:
  // the bug is the strategy's (its key has no policy), and under asap,
  // alap or dataflow fusion a dead statement moves the others as well.
  std::vector<std::pair<std::string, std::string>> bug_alternatives;  // (reorder, fusion)
  for (const auto& a : alternatives) bug_alternatives.push_back({a, spec.fusion});
  if (!is_external(spec.strategy) && spec.target == "interp") {
    std::vector<std::string> fusions{spec.fusion};
    for (const auto& f : schedulers::fusion_policy_names())
      if (f != spec.fusion) fusions.push_back(f);
    for (const auto& f : fusions) {
      for (const auto& r : schedulers::seedless_reorders()) bug_alternatives.push_back({schedulers::reorder_name(r), f});
      for (int k = 0; k < o.seeds; ++k)
        bug_alternatives.push_back({schedulers::reorder_name({schedulers::ReorderKind::Random, static_cast<uint64_t>(k)}), f});
    }
  }
  const RunRecord first = m.record;
  RunSpec bug_spec = m.spec;
  auto same_bug = [&first](const Program& q, const RunSpec& s) {
    auto rq = run_spec(q, s);
    return rq && !rq->agree && rq->error.empty() == first.error.empty() &&
           (first.error.empty() || error_type(rq->error) == error_type(first.error));
  };
  m.bug_program = minimize(m.minimized, [&](const Program& q) {
    if (same_bug(q, bug_spec)) return true;
    for (const auto& [reorder, fusion] : bug_alternatives) {
      RunSpec s = bug_spec;
      s.reorder = reorder;
      s.fusion = fusion;
      if (!(s == bug_spec) && same_bug(q, s)) {
        bug_spec = s;
        return true;
      }
    }
    return false;
  }, o3);
  auto r3 = run_spec(m.bug_program, bug_spec);
  m.bug_record = r3 && !r3->agree ? *r3 : m.record;
  if (!(r3 && !r3->agree)) m.bug_program = m.minimized;
  m.ok = true;
  return m;
}

}  // namespace af::fuzz
