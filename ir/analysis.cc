#include "ir/analysis.h"
#include "ir/text.h"

#include <algorithm>
#include <cstring>

namespace af::ir {

std::vector<CheckedArg> checked_args(const Stmt& st, const std::vector<TensorMeta>& values) {
  std::vector<CheckedArg> r;
  checked_args_into(st, values, &r);
  return r;
}

void checked_args_into(const Stmt& st, const std::vector<TensorMeta>& values, std::vector<CheckedArg>* out) {
  std::vector<CheckedArg>& r = *out;
  r.resize(st.args.size());
  for (size_t k = 0; k < st.args.size(); ++k) {
    const Arg& a = st.args[k];
    CheckedArg& c = r[k];
    c.t = nullptr;  // reset what an earlier statement left (the vectors keep their capacity)
    c.ts.clear();
    c.i = 0;
    c.f = 0;
    c.is_float = false;
    c.list.clear();
    switch (a.kind) {
      case Arg::Tensor: c.t = &values[a.i]; break;
      case Arg::Int:
        c.i = a.i;
        c.f = static_cast<double>(a.i);
        break;
      case Arg::Float:
        c.f = a.f;
        c.is_float = true;
        break;
      case Arg::IntList: c.list.assign(a.list.begin(), a.list.end()); break;
      case Arg::TensorList:
        for (auto v : a.list) c.ts.push_back(&values[v]);
        break;
    }
  }
}

namespace {

std::optional<Error> check_limits(const Geometry& g, const Limits& l, int line) {
  if (g.rank() > l.max_rank)
    return Error{ErrorKind::Limit, line,
                 "rank " + std::to_string(g.rank()) + " exceeds the limit of " + std::to_string(l.max_rank)};
  int64_t n = 1;
  for (int64_t s : g.sizes) {
    if (s > l.max_numel || (s > 0 && n > l.max_numel / s))
      return Error{ErrorKind::Limit, line, "tensor of more than " + std::to_string(l.max_numel) + " elements"};
    n *= s;
  }
  return std::nullopt;
}

// Sizes in lists (view, expand, full, as_strided) are checked before the
// rule runs so that an enormous request is a limit error, not an overflow.
std::optional<Error> check_int_list(const int64_t* list, size_t n, const Limits& l, int line) {
  if (static_cast<int>(n) > l.max_rank)
    return Error{ErrorKind::Limit, line,
                 "a list of " + std::to_string(n) + " sizes exceeds the rank limit of " + std::to_string(l.max_rank)};
  for (const int64_t* x = list; x != list + n; ++x)
    if (*x > l.max_numel || *x < -l.max_numel)
      return Error{ErrorKind::Limit, line,
                   "size or stride " + std::to_string(*x) + " exceeds the limit of " + std::to_string(l.max_numel)};
  return std::nullopt;
}

std::optional<Error> check_int(int64_t i, const Limits& l, int line) {
  if (i > l.max_numel || i < -l.max_numel)
    return Error{ErrorKind::Limit, line,
                 "integer argument " + std::to_string(i) + " exceeds the limit of " + std::to_string(l.max_numel)};
  return std::nullopt;
}

// Every list argument first, then every integer argument.
std::optional<Error> check_list_limits(const Stmt& st, const Limits& l) {
  for (const Arg& a : st.args)
    if (a.kind == Arg::IntList)
      if (auto e = check_int_list(a.list.data(), a.list.size(), l, st.line)) return e;
  for (const Arg& a : st.args)
    if (a.kind == Arg::Int)
      if (auto e = check_int(a.i, l, st.line)) return e;
  return std::nullopt;
}

// Format v1.2: an i64 tensor only where an op takes an index (signature
// 'J'), a bool tensor only where it takes a mask ('M'), data (f32, i32,
// wide i64) everywhere else; format v1.5's i64 data is never an index (the
// analysis checks index values statically: they are a declared storage's).
std::optional<Error> check_dtypes(const Program& p, const Stmt& st, const std::vector<TensorMeta>& values) {
  const char* sig = op_info(st.op).sig;
  for (size_t k = 0; k < st.args.size(); ++k) {
    const Arg& a = st.args[k];
    if (a.kind != Arg::Tensor && a.kind != Arg::TensorList) continue;
    const Dtype want = dtype_of_sig(sig[k]);
    const int64_t* vs = a.kind == Arg::Tensor ? &a.i : a.list.data();  // no copy: this runs for every argument
    const size_t n = a.kind == Arg::Tensor ? 1 : a.list.size();
    for (const int64_t* it = vs; it != vs + n; ++it) {
      const int64_t v = *it;
      const TensorMeta& m = values[v];
      if (want == Dtype::F32 ? !m.is_data() : m.dtype != want || m.wide)
        return Error{
            ErrorKind::Dtype, st.line,
            std::string(op_spelling(st.op)) + ": argument " + std::to_string(k + 1) + " ('" + p.value_names[v] +
                "') is " +
                (m.wide && m.dtype == Dtype::I64 ? "i64 data" : std::string("a ") + dtype_name(m.dtype) + " tensor") +
                " where " + (want == Dtype::F32 ? "data" : std::string("a ") + dtype_name(want) + " tensor") +
                " is expected" +
                (want == Dtype::F32                ? ": i64 and bool inputs are only index and mask operands"
                 : m.wide && m.dtype == Dtype::I64 ? ": an index is a declared i64 storage's, never i64 data"
                                                   : "")};
    }
  }
  return std::nullopt;
}

// The values of an indexed op's index (or mask) argument in logical order:
// it is an input over a declared i64/bool storage, which no op writes.
std::vector<int64_t> index_elements(const Program& p, const Stmt& st, const Analysis& an) {
  const char* sig = op_info(st.op).sig;
  std::vector<int64_t> r;
  for (size_t k = 0; k < st.args.size(); ++k) {
    if (sig[k] != 'J' && sig[k] != 'M') continue;
    const TensorMeta& m = an.values[st.args[k].i];
    const std::vector<float> vals = initial_values(p.storages[m.storage]);
    for_each_offset(m.g, [&](int64_t o) { r.push_back(static_cast<int64_t>(vals[o])); });
  }
  return r;
}

}  // namespace

int64_t statement_work(OpKind op, const std::vector<CheckedArg>& args, const OutMetas& outs) {
  const OpClass c = op_info(op).cls;
  if (c == OpClass::View || c == OpClass::Meta) return 1;  // geometry only (metadata ops are View too)
  if (op == OpKind::Matmul || op == OpKind::Bmm || op == OpKind::MatmulNd) {
    // The result's elements times k: batch*m*n*k <= (a's numel)*(b's
    // numel) <= 2^44, no overflow.
    return std::max<int64_t>(1, outs[0].g.numel() * args[0].t->g.sizes.back());
  }
  int64_t w = 1;
  for (const CheckedArg& a : args) {
    if (a.t) w = std::max(w, a.t->g.numel());
    for (const TensorMeta* t : a.ts) w = std::max(w, t->g.numel());
  }
  for (const OutMeta& o : outs) w = std::max(w, o.g.numel());
  return w;
}

Result<Analysis> analyze(const Program& p, const Limits& limits) {
  Analysis an;
  int64_t& work = an.work;
  an.values.resize(p.num_values());
  int64_t total_numel = 0;
  for (const auto& s : p.storages) {
    an.storage_numel.push_back(s.numel);
    total_numel += s.numel;
  }
  if (total_numel > limits.max_total_numel)
    return Error{ErrorKind::Limit, 0,
                 "storages of more than " + std::to_string(limits.max_total_numel) + " elements in all"};
  an.num_declared = static_cast<int>(p.storages.size());
  int next_impl = 0;
  std::vector<CheckedArg> checked;  // reused by every input and statement
  OutMetas outs;                    // the same
  for (size_t k = 0; k < p.inputs.size(); ++k) {
    const InputDecl& in = p.inputs[k];
    const int64_t sn = p.storages[in.storage].numel;
    TensorMeta m{Geometry{{sn}, {1}, 0}, in.storage, sn, next_impl++};
    if (!in.whole) {
      // as_strided(storage, sizes, strides, offset), checked as that statement would be.
      if (auto e = check_int_list(in.sizes.data(), in.sizes.size(), limits, in.line)) return *e;
      if (auto e = check_int_list(in.strides.data(), in.strides.size(), limits, in.line)) return *e;
      if (auto e = check_int(in.offset, limits, in.line)) return *e;
      checked.assign(4, CheckedArg{});
      checked[0].t = &m;
      checked[1].list = in.sizes;
      checked[2].list = in.strides;
      checked[3].i = in.offset;
      if (auto e = infer_into(OpKind::AsStrided, checked, &outs)) return Error{e->kind, in.line, e->message};
      m.g = std::move(outs[0].g);
    }
    if (auto e = check_limits(m.g, limits, in.line)) return *e;
    m.dtype = p.storages[in.storage].dtype;
    an.values[k] = m;
  }
  an.fresh_storage.assign(p.stmts.size(), -1);
  // Format v1.2: only inputs may be i64 or bool; format v1.5's i32 values
  // are views of f32 ones and what is computed from them.
  bool all_f32 = true;
  for (const auto& s : p.storages) all_f32 = all_f32 && s.dtype == Dtype::F32;
  auto dtype = [&](int64_t v) { return an.values[v].dtype; };
  // Format v1.3: names whose tensor object a metadata op re-shaped (the
  // op's own result is the object's one live name from then on).
  std::vector<char> retired(p.num_values(), 0);
  bool any_retired = false;  // (most programs have no metadata op: no per-argument check then)
  auto retired_use = [&](int v, int line) -> std::optional<Error> {
    if (!retired[v]) return std::nullopt;
    return Error{ErrorKind::Retired, line,
                 "'" + p.value_names[v] +
                     "' names a tensor whose sizes and strides an in-place metadata op changed: "
                     "the format retires it (use that op's result)"};
  };
  for (size_t si = 0; si < p.stmts.size(); ++si) {
    const Stmt& st = p.stmts[si];
    if (any_retired) {
      std::optional<Error> stale;
      for_each_tensor_arg(st, [&](int v) {
        if (!stale) stale = retired_use(v, st.line);
      });
      if (stale) return *stale;
    }
    if (auto e = check_list_limits(st, limits)) return *e;
    // With only f32 storages every tensor is f32 or i32: only an op taking
    // an index or a mask can get a tensor of the wrong dtype.
    if (!all_f32 || std::strpbrk(op_info(st.op).sig, "JM"))
      if (auto e = check_dtypes(p, st, an.values)) return *e;
    if (st.op == OpKind::SetitemI && squeezed_to_0d(p, an.values, si, static_cast<int>(st.args[0].i)))
      return Error{
          ErrorKind::Version, st.line,
          "setitem_ on a tensor squeeze_ made 0-d: PyTorch 1.13 slices it as the 1-d tensor it was, 2.x raises"};
    checked_args_into(st, an.values, &checked);
    const Result<Dtype> computes_in = result_dtype(st.op, checked);
    if (!computes_in) return Error{computes_in.error().kind, st.line, computes_in.error().message};
    std::optional<Error> ie = infer_into(st.op, checked, &outs);
    // Format v1's rule for a 0-d setitem_ (`x[0:0] = v` writes the whole
    // tensor) is PyTorch 1.13's; torch 2.x raises "slice() cannot be applied
    // to a 0-dim tensor" for every 0-d setitem_, so the program is `version`.
    if (!ie && st.op == OpKind::SetitemI && checked[0].t->g.rank() == 0)
      return Error{
          ErrorKind::Version, st.line,
          "setitem_ on a 0-d tensor: PyTorch 1.13 writes the whole tensor, 2.x raises (slice() of a 0-dim tensor)"};
    if (!ie && is_indexed(st.op)) ie = check_index_values(st.op, checked, index_elements(p, st, an));
    const bool inplace = is_inplace(st.op);
    if (ie) {
      // An `undefined` (or `resize`) write still runs in PyTorch; a wrong number of
      // names then fails when the result is unpacked.
      const size_t want = binds_nothing(st.op) ? 0 : 1;
      if ((ie->kind == ErrorKind::Undefined || ie->kind == ErrorKind::Resize) && inplace && st.outs.size() > want)
        return Error{ErrorKind::Name, st.line,
                     std::string(op_spelling(st.op)) + " produces " + std::to_string(want) + " result" +
                         (want == 1 ? "" : "s") + ", " + std::to_string(st.outs.size()) + " names given"};
      return Error{ie->kind, st.line, ie->message};
    }
    work += statement_work(st.op, checked, outs);
    if (work > limits.max_work)
      return Error{ErrorKind::Limit, st.line,
                   "the program's work passes the limit of " + std::to_string(limits.max_work) +
                       " element operations here (estimated before it runs: docs/format.md, Limits)"};
    const size_t want = inplace ? (binds_nothing(st.op) ? 0 : 1) : outs.size();
    // A view binds all its results; so does a metadata op (format v1.3), whose
    // result is x's only live name after it (PyTorch would also run it unbound).
    const bool count_ok = inplace ? st.outs.size() <= want : st.outs.size() == want;
    if (!count_ok)
      return Error{ErrorKind::Name, st.line,
                   std::string(op_spelling(st.op)) + " produces " + std::to_string(want) + " result" +
                       (want == 1 ? "" : "s") + ", " + std::to_string(st.outs.size()) + " name" +
                       (st.outs.size() == 1 ? "" : "s") + " given"};
    for (size_t k = 0; k < st.outs.size(); ++k) {
      OutMeta& o = outs[k];
      if (auto e = check_limits(o.g, limits, st.line)) return *e;
      // Written in place: an output is a new value, never one of the arguments read below.
      TensorMeta& m = an.values[st.outs[k]];
      const bool fresh = o.fresh;
      m = result_meta(st, std::move(o), *computes_in, checked, an.values, an.storage_numel, &next_impl);
      if (fresh) {
        m.storage = static_cast<int>(an.storage_numel.size());
        an.storage_numel.push_back(memory_words(m));
        total_numel += an.storage_numel.back();
        if (total_numel > limits.max_total_numel)
          return Error{ErrorKind::Limit, st.line,
                       "storages of more than " + std::to_string(limits.max_total_numel) +
                           " elements in all (declared and made by ops)"};
        an.fresh_storage[si] = m.storage;
      }
    }
    if (is_metadata_inplace(st.op)) {
      any_retired = true;
      const int x_impl = an.values[st.args[0].i].impl;
      for (int v = 0; v < p.num_values(); ++v)
        if (an.values[v].impl == x_impl && v != st.outs[0]) retired[v] = 1;
    }
  }
  for (int v : p.returns) {
    if (auto e = retired_use(v, p.return_line)) return *e;
    work += std::max<int64_t>(1, an.values[v].g.numel());  // each return is read out once
  }
  if (work > limits.max_work)
    return Error{ErrorKind::Limit, p.return_line,
                 "the program's work passes the limit of " + std::to_string(limits.max_work) +
                     " element operations with its returns (docs/format.md, Limits)"};
  for (int v : p.returns)
    if (!an.values[v].is_data())
      return Error{ErrorKind::Dtype, p.return_line,
                   "'" + p.value_names[v] + "' is a " + dtype_name(dtype(v)) +
                       " tensor: i64 and bool tensors are index and mask operands, never returned"};
  return an;
}

Analysis prefix_analysis(const Program& p, const Analysis& an, size_t n) {
  n = std::min(n, p.stmts.size());
  Analysis out;
  out.num_declared = an.num_declared;
  out.values = an.values;
  for (size_t s = n; s < p.stmts.size(); ++s)
    for (int o : p.stmts[s].outs) out.values[o] = TensorMeta{};
  int storages = an.num_declared;
  for (const TensorMeta& m : out.values) storages = std::max(storages, m.storage + 1);
  out.storage_numel.assign(an.storage_numel.begin(), an.storage_numel.begin() + storages);
  out.fresh_storage.assign(an.fresh_storage.begin(), an.fresh_storage.begin() + static_cast<long>(n));
  out.work = an.work;  // the whole program's: an upper bound of the prefix's
  return out;
}

Result<Program> parse_and_validate(const std::string& text, const Limits& limits) {
  auto p = parse(text, limits);
  if (!p) return p.error();
  auto a = analyze(*p, limits);
  if (!a) return a.error();
  return p;
}

Geometry written_geometry(const Stmt& st, const Analysis& an) {
  const auto& x = an.values[st.args[0].i];
  if (st.op != OpKind::SetitemI) return x.g;
  // The slot as validation computed it: a 0-d x[0:0] is x itself, which
  // slice() would reject.
  return setitem_target(x.g, st.args[1].i, st.args[2].i, st.args[3].i).value().g;
}

bool returns_self(OpKind op, const Geometry& out, const Geometry& src) {
  return is_inplace(op) || is_metadata_inplace(op) ||
         ((op == OpKind::Contiguous || op == OpKind::Flatten) && out == src &&
          (op == OpKind::Contiguous || src.rank() == 1));
}

TensorMeta result_meta(const Stmt& st, OutMeta o, Dtype dtype, const std::vector<CheckedArg>& args,
                       const std::vector<TensorMeta>& values, const std::vector<int64_t>& storage_words,
                       int* next_impl) {
  const OpKind op = st.op;
  const TensorMeta* src = nullptr;
  if (!o.fresh)
    src = op == OpKind::UpdateAliases ? &values[st.args[0].list[o.source_arg]] : &values[st.args[o.source_arg].i];
  TensorMeta m;
  m.g = std::move(o.g);
  m.dtype = dtype;
  m.wide = result_is_wide(op, dtype, src, args);
  if (!src) {
    m.storage = -1;
    m.storage_numel = m.g.numel();
    m.impl = (*next_impl)++;
    return m;
  }
  m.storage = src->storage;
  if (op == OpKind::UpdateAliases) {
    m.dtype = src->dtype;
    m.wide = src->wide;
  }
  m.storage_numel = view_storage_numel(*src, m, storage_words[src->storage]);
  m.impl = returns_self(op, m.g, src->g) ? src->impl : (*next_impl)++;
  return m;
}

bool squeezed_to_0d(const Program& p, const std::vector<TensorMeta>& values, size_t upto, int v) {
  if (values[v].g.rank() != 0) return false;
  for (size_t si = 0; si < upto && si < p.stmts.size(); ++si) {
    const Stmt& st = p.stmts[si];
    if (st.op == OpKind::SqueezeI && !st.outs.empty() && values[st.args[0].i].impl == values[v].impl &&
        values[st.args[0].i].g.rank() == 1)
      return true;
  }
  return false;
}

bool has_metadata_ops(const Program& p) {
  for (const auto& st : p.stmts)
    if (is_metadata_inplace(st.op)) return true;
  return false;
}

bool computes_values(const Stmt& st, const Analysis& an) {
  const auto cls = op_info(st.op).cls;
  if (cls == OpClass::View || cls == OpClass::Meta) return false;
  if (cls == OpClass::MayAlias) return an.values[st.outs[0]].storage != an.values[st.args[0].i].storage;
  return true;
}

}  // namespace af::ir
