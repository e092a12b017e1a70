// Builder: appends statements to a program under construction, keeping
// names unique and inferring geometry exactly like ir::analyze does.
#include "schedulers/passes.h"

namespace af::schedulers {

using ir::Arg;
using ir::OpKind;

Builder::Builder(const ir::Program& src) {
  p_.storages = src.storages;
  p_.inputs = src.inputs;
  for (const auto& n : src.value_names) used_.insert(n);
  for (const auto& s : src.storages) {
    used_.insert(s.name);
    storage_numel_.push_back(s.numel);
  }
  for (const auto& in : src.inputs) {
    p_.new_value(in.name);
    taken_.insert(in.name);
    const int64_t sn = src.storages[in.storage].numel;
    ir::TensorMeta m{ir::Geometry{{sn}, {1}, 0}, in.storage, sn, next_impl_++};
    if (!in.whole) m.g = ir::Geometry{in.sizes, in.strides, in.offset};
    metas_.push_back(m);
  }
}

int Builder::value(const std::string& name, bool keep) {
  std::string n = name;
  if (!keep || taken_.count(n)) {
    int& k = counter_[name];
    do n = name + "_" + std::to_string(++k);
    while (used_.count(n));
  }
  used_.insert(n);
  taken_.insert(n);
  metas_.emplace_back();
  return p_.new_value(n);
}

int Builder::emit(OpKind op, const std::vector<int>& outs, std::vector<Arg> args, int line, bool added) {
  ir::Stmt st{op, outs, std::move(args), line};
  auto r = ir::infer(op, ir::checked_args(st, metas_));
  if (!r) {
    if (error_.empty()) error_ = std::string(ir::op_name(op)) + ": " + r.error().message;
  } else {
    const auto& om = r.value();
    for (size_t k = 0; k < outs.size() && k < om.size(); ++k) {
      ir::TensorMeta m;
      m.g = om[k].g;
      if (om[k].fresh) {
        m.storage = static_cast<int>(storage_numel_.size());
        m.storage_numel = m.g.numel();
        storage_numel_.push_back(m.storage_numel);
        m.impl = next_impl_++;
      } else {
        const ir::TensorMeta& src =
            op == OpKind::UpdateAliases ? metas_[st.args[0].list[om[k].source_arg]] : metas_[st.args[om[k].source_arg].i];
        m.storage = src.storage;
        m.storage_numel = src.storage_numel;
        m.impl = ir::is_inplace(op) ? src.impl : next_impl_++;
      }
      metas_[outs[k]] = m;
    }
  }
  p_.stmts.push_back(std::move(st));
  added_.push_back(added);
  return static_cast<int>(p_.stmts.size()) - 1;
}

int Builder::emit1(OpKind op, const std::string& base, std::vector<Arg> args, int line, bool added) {
  int v = value(base, false);
  emit(op, {v}, std::move(args), line, added);
  return v;
}

}  // namespace af::schedulers
