// Structural edits of programs for the minimizer's passes. They may make
// invalid programs: the search checks every candidate.
#include "minimize/minimize_edits.h"

#include <algorithm>

#include "ir/geometry.h"

namespace af::fuzz::minimizing {

using ir::InitKind;
using ir::Program;
using ir::Stmt;

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

int init_rank(const ir::StorageDecl& s) {
  switch (s.init) {
    case InitKind::Full: return number_rank(s.a);
    case InitKind::Iota: return s.a == 0 && s.b == 1 ? 5 : 6;
    case InitKind::List: return 7;
    case InitKind::Random: return 8;
  }
  return 9;
}
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

// The simple initial values (full of 0, 1, 2, -1, then iota(0, 1)) of
// rank below `below`, simplest first.
std::vector<ir::StorageDecl> simpler_inits(const ir::StorageDecl& from, int below) {
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

// Smaller versions of a size list (one entry at a time).
std::vector<std::vector<int64_t>> smaller_sizes(const std::vector<int64_t>& v) {
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

}  // namespace af::fuzz::minimizing
