// Builder: appends statements to a program under construction, keeping
// names unique and inferring geometry exactly like ir::analyze does.
#include <charconv>

#include "schedulers/passes.h"

namespace af::schedulers {

using ir::Arg;
using ir::OpKind;

namespace {

// Whether a name has the form base_digits (that of a suffixed name).
bool suffixed_form(const std::string& n) {
  const size_t u = n.rfind('_');
  if (u == std::string::npos || u + 1 == n.size()) return false;
  for (size_t k = u + 1; k < n.size(); ++k)
    if (n[k] < '0' || n[k] > '9') return false;
  return true;
}

}  // namespace

Builder::Builder(const ir::Program& src, const ir::Analysis* src_an) : src_(src), src_an_(src_an) {
  p_.storages = src.storages;
  p_.inputs = src.inputs;
  // update_aliases threads every group member through each update: its
  // programs have several times the source's values.
  p_.value_names.reserve(4 * src.value_names.size());
  metas_.reserve(4 * src.value_names.size());
  p_.stmts.reserve(2 * src.stmts.size());
  added_.reserve(2 * src.stmts.size());
  origin_.reserve(2 * src.stmts.size());
  defined_.assign(src.value_names.size(), false);
  for (const auto& n : src.value_names)
    if (suffixed_form(n)) suffixed_.insert(n);
  for (const auto& s : src.storages) {
    if (suffixed_form(s.name)) suffixed_.insert(s.name);
    storage_numel_.push_back(s.numel);
  }
  for (const auto& in : src.inputs) {
    defined_[p_.new_value(in.name)] = true;
    const int64_t sn = src.storages[in.storage].numel;
    ir::TensorMeta m{ir::Geometry{{sn}, {1}, 0}, in.storage, sn, next_impl_++};
    if (!in.whole) m.g = ir::Geometry{in.sizes, in.strides, in.offset};
    m.dtype = src.storages[in.storage].dtype;
    metas_.push_back(m);
  }
}

int Builder::value(int v) {
  if (defined_[v]) return value(src_.value_names[v], false);
  defined_[v] = true;
  metas_.emplace_back();
  return p_.new_value(src_.value_names[v]);
}

int Builder::value(const std::string& name, bool keep) {
  if (keep) {
    if (source_ids_.empty())
      for (size_t k = 0; k < src_.value_names.size(); ++k)
        source_ids_.emplace(src_.value_names[k], static_cast<int>(k));
    auto it = source_ids_.find(name);
    if (it != source_ids_.end()) return value(it->second);
  }
  return new_suffixed(name, &counter_[name]);
}

int Builder::suffixed(int v) {
  // update_aliases names every member of a group again at each update:
  // the counter is looked up by name once per source value.
  if (source_counter_.empty()) source_counter_.assign(src_.value_names.size(), nullptr);
  int*& k = source_counter_[v];
  if (!k) k = &counter_[src_.value_names[v]];
  return new_suffixed(src_.value_names[v], k);
}

int Builder::new_suffixed(const std::string& base, int* counter) {
  // One string built in place (no to_string temporary): every strategy
  // names thousands of values per thousand programs.
  std::string n;
  do {
    char digits[24];
    char* end = std::to_chars(digits, digits + sizeof digits, ++*counter).ptr;
    n.clear();
    n.reserve(base.size() + 1 + static_cast<size_t>(end - digits));
    n.append(base).push_back('_');
    n.append(digits, static_cast<size_t>(end - digits));
  } while (!suffixed_.empty() && suffixed_.count(n));
  metas_.emplace_back();
  return p_.new_value(std::move(n));
}

int Builder::emit(OpKind op, const std::vector<int>& outs, std::vector<Arg> args, int line, bool added) {
  ir::Stmt st{op, outs, std::move(args), line};
  if (op == OpKind::UpdateAliases && outs.size() == st.args[0].list.size()) {
    // Its shape rule (ir/ops.cc) makes result k a new tensor object viewing
    // member k as it is, and refuses nothing: the members' metas are the
    // results' but for identity. The strategy emits one per update.
    for (size_t k = 0; k < outs.size(); ++k) {
      ir::TensorMeta m = metas_[st.args[0].list[k]];
      m.impl = next_impl_++;
      metas_[outs[k]] = std::move(m);
    }
    return append(std::move(st), added);
  }
  ir::checked_args_into(st, metas_, &checked_);
  std::optional<ir::Error> e = ir::infer_into(op, checked_, &outs_);
  const ir::Result<ir::Dtype> dtype = ir::result_dtype(op, checked_);  // format v1.5
  if (!e && !dtype) e = dtype.error();
  if (e && tolerate_overlap_ && ir::is_inplace(op) && e->kind == ir::ErrorKind::Overlap) {
    for (int o : outs) metas_[o] = metas_[st.args[0].i];  // the written tensor itself
  } else if (e) {
    if (error_.empty()) error_ = std::string(ir::op_name(op)) + ": " + e->message;
  } else {
    ir::OutMetas& om = outs_;
    for (size_t k = 0; k < outs.size() && k < om.size(); ++k) {
      const bool fresh = om[k].fresh;
      ir::TensorMeta m = ir::result_meta(st, std::move(om[k]), *dtype, checked_, metas_, storage_numel_, &next_impl_);
      if (fresh) make_fresh(&m);
      metas_[outs[k]] = std::move(m);
    }
  }
  return append(std::move(st), added);
}

void Builder::make_fresh(ir::TensorMeta* m) {
  fresh_storage_.resize(p_.stmts.size() + 1, -1);
  fresh_storage_[p_.stmts.size()] = static_cast<int>(storage_numel_.size());
  m->storage = static_cast<int>(storage_numel_.size());
  storage_numel_.push_back(ir::memory_words(*m));
}

int Builder::append(ir::Stmt st, bool added) {
  p_.stmts.push_back(std::move(st));
  added_.push_back(added);
  origin_.push_back(added ? -1 : source_);
  return static_cast<int>(p_.stmts.size()) - 1;
}

int Builder::emit_source(int k, const std::vector<int>& outs, std::vector<Arg> args, bool added) {
  const ir::Stmt& s = src_.stmts[k];
  if (!src_an_ || !reuse_source_metas(s, outs, args)) return emit(s.op, outs, std::move(args), s.line, added);
  return append(ir::Stmt{s.op, outs, std::move(args), s.line}, added);
}

bool Builder::reuse_source_metas(const ir::Stmt& s, const std::vector<int>& outs, const std::vector<Arg>& args) {
  // An in-place op the source leaves unbound may be bound here: its result
  // is the written tensor itself (ir::returns_self).
  const bool bound_here = s.outs.empty() && outs.size() == 1 && ir::is_inplace(s.op) && !ir::binds_nothing(s.op);
  if ((outs.size() != s.outs.size() && !bound_here) || args.size() != s.args.size()) return false;
  // The tensors as (value here, value in the source), in argument order.
  ir::SmallVec<std::pair<int, int>, 8> t;
  for (size_t i = 0; i < args.size(); ++i) {
    const Arg &a = args[i], &b = s.args[i];
    if (a.kind != b.kind) return false;
    if (a.kind == Arg::Tensor) {
      t.push_back({static_cast<int>(a.i), static_cast<int>(b.i)});
    } else if (a.kind == Arg::TensorList) {
      if (a.list.size() != b.list.size()) return false;
      for (size_t m = 0; m < a.list.size(); ++m)
        t.push_back({static_cast<int>(a.list[m]), static_cast<int>(b.list[m])});
    } else if (!(a == b)) {
      return false;
    }
  }
  const std::vector<ir::TensorMeta>& sv = src_an_->values;
  for (size_t i = 0; i < t.size(); ++i) {
    const ir::TensorMeta &x = metas_[t[i].first], &y = sv[t[i].second];
    if (x.storage_numel != y.storage_numel || x.g != y.g || x.dtype != y.dtype) return false;
    for (size_t j = 0; j < i; ++j) {
      const ir::TensorMeta &xj = metas_[t[j].first], &yj = sv[t[j].second];
      if ((x.storage == xj.storage) != (y.storage == yj.storage) || (x.impl == xj.impl) != (y.impl == yj.impl))
        return false;
    }
  }
  // The same results as in the source. A result that is an argument's
  // object (ir::returns_self) has that argument's identity there and here;
  // one on an argument's storage is a new view of it; any other is a new
  // storage (as Builder::emit and ir::analyze number them).
  if (bound_here) {
    metas_[outs[0]] = metas_[args[0].i];
    return true;
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    const ir::TensorMeta& so = sv[s.outs[k]];
    ir::TensorMeta m;
    m.g = so.g;
    m.dtype = so.dtype;
    m.wide = so.wide;
    size_t same_impl = t.size(), same_storage = t.size();
    for (size_t i = 0; i < t.size(); ++i) {
      if (same_impl == t.size() && sv[t[i].second].impl == so.impl) same_impl = i;
      if (same_storage == t.size() && sv[t[i].second].storage == so.storage) same_storage = i;
    }
    if (same_impl < t.size()) {
      const ir::TensorMeta& a = metas_[t[same_impl].first];
      m.storage = a.storage;
      m.storage_numel = a.storage_numel;
      m.impl = a.impl;
    } else if (same_storage < t.size()) {
      const ir::TensorMeta& a = metas_[t[same_storage].first];
      m.storage = a.storage;
      m.storage_numel = ir::view_storage_numel(a, m, storage_numel_[a.storage]);  // (a may be i64 data, m f32)
      m.impl = next_impl_++;
    } else {
      m.storage_numel = m.g.numel();
      m.impl = next_impl_++;
      make_fresh(&m);
    }
    metas_[outs[k]] = std::move(m);
  }
  return true;
}

std::vector<int> identity_origin(const ir::Program& p) {
  std::vector<int> o(p.stmts.size());
  for (size_t k = 0; k < o.size(); ++k) o[k] = static_cast<int>(k);
  return o;
}

Transformed unchanged(const ir::Program& p, const ir::Analysis& an) {
  Transformed t;
  t.program = p;
  t.analysis = std::make_shared<const ir::Analysis>(an);
  t.added_node.assign(p.stmts.size(), false);
  t.origin = identity_origin(p);
  return t;
}

std::optional<ir::Error> Builder::try_infer(OpKind op, const std::vector<Arg>& args) const {
  ir::Stmt st{op, {}, args, 0};
  ir::OutMetas outs;
  return ir::infer_into(op, ir::checked_args(st, metas_), &outs);
}

ir::Analysis Builder::analysis(int num_declared) const {
  ir::Analysis an;
  an.values = metas_;
  an.storage_numel = storage_numel_;
  an.num_declared = num_declared;
  an.fresh_storage = fresh_storage_;
  an.fresh_storage.resize(p_.stmts.size(), -1);
  return an;
}

int Builder::emit1(OpKind op, const std::string& base, std::vector<Arg> args, int line, bool added) {
  int v = value(base, false);
  emit(op, {v}, std::move(args), line, added);
  return v;
}

}  // namespace af::schedulers
