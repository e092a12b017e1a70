#include "generate/training.h"

#include <set>
#include <string>
#include <vector>

#include "ir/analysis.h"
#include "ir/hash.h"
#include "ir/text.h"

namespace af::fuzz {

namespace {
std::string ints(const ir::Shape& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// A name no storage or value of p uses: BASE, BASE_2, ...
std::string fresh_name(const ir::Program& p, const std::string& base) {
  std::set<std::string> used(p.value_names.begin(), p.value_names.end());
  for (const auto& s : p.storages) used.insert(s.name);
  if (!used.count(base)) return base;
  for (int k = 2;; ++k)
    if (!used.count(base + "_" + std::to_string(k))) return base + "_" + std::to_string(k);
}
// What autograd saves for backward when it records a statement (the op
// table's `saves`, ir/ops.h): the argument positions of tensors saved
// before the statement writes, and whether it saves its result.
struct Saved {
  std::vector<size_t> args;
  bool result = false;
};
Saved saved_for_backward(ir::OpKind k) {
  Saved s;
  for (const char* c = ir::op_info(k).saves; *c; ++c)
    if (*c == 'r')
      s.result = true;
    else
      s.args.push_back(static_cast<size_t>(*c - '0'));
  return s;
}

// Statements autograd refuses (PyTorch's own rules), once the storages in
// `grad` (the weighted inputs') require grad:
//  - an out= op on an operand that requires grad ("functions with
//    out=... arguments don't support automatic differentiation");
//  - an in-place write that involves grad into a piece of
//    unbind/split/chunk or a view of one ("Output 0 of Split is a view and
//    is being modified inplace");
//  - a write into a storage that a recorded statement saved for backward
//    (saved_for_backward; views share their base's version counter), also
//    by the statement that saved it ("modified by an inplace operation").
// Requiring grad spreads by storage: a result computed from a tensor that
// requires grad, and every tensor of a storage such a value was written
// into. Such programs stay inference programs.
bool autograd_refuses(const ir::Program& p, const ir::Analysis& an, std::set<int> grad) {
  std::vector<char> piece(an.values.size(), 0), grad_value(an.values.size(), 0);
  std::set<int> saved;  // storages whose version backward checks
  auto needs_grad = [&](int v) { return grad_value[v] || grad.count(an.values[v].storage) > 0; };
  auto tensor_at = [&](const ir::Stmt& st, size_t k) {
    return k < st.args.size() && st.args[k].kind == ir::Arg::Tensor ? static_cast<int>(st.args[k].i) : -1;
  };
  for (const auto& st : p.stmts) {
    bool operands = false;  // an operand (not the written tensor) requires grad
    for (size_t k = 0; k < st.args.size(); ++k) {
      const ir::Arg& a = st.args[k];
      const bool written = k == 0 && (ir::is_inplace(st.op) || ir::is_custom_op(st.op) || ir::is_out_variant(st.op));
      if (written) continue;
      if (a.kind == ir::Arg::Tensor && needs_grad(a.i)) operands = true;
      if (a.kind == ir::Arg::TensorList)
        for (int64_t v : a.list) operands = operands || needs_grad(static_cast<int>(v));
    }
    const int target = tensor_at(st, 0);
    const bool has_target = target >= 0;
    if (ir::is_out_variant(st.op) && operands) return true;
    const bool writes = ir::is_inplace(st.op) || ir::is_custom_op(st.op) || ir::is_metadata_inplace(st.op);
    if (writes && has_target && piece[target] && (operands || needs_grad(target))) return true;
    const bool recorded = operands || (has_target && needs_grad(target));
    const Saved keep = recorded ? saved_for_backward(st.op) : Saved{};
    for (size_t k : keep.args)
      if (int v = tensor_at(st, k); v >= 0) saved.insert(an.values[v].storage);
    const bool bumps = ir::is_inplace(st.op) || ir::is_custom_op(st.op);  // out= ops are in-place too
    if (bumps && has_target && saved.count(an.values[target].storage)) return true;
    if ((writes || ir::is_out_variant(st.op)) && has_target && operands) grad.insert(an.values[target].storage);
    for (int o : st.outs) {
      if (recorded) grad_value[o] = 1;
      if (ir::is_multi_output(st.op) ||
          (has_target && piece[target] && an.values[o].storage == an.values[target].storage))
        piece[o] = 1;
    }
    if (keep.result) {
      if (bumps && has_target) saved.insert(an.values[target].storage);
      for (int o : st.outs) saved.insert(an.values[o].storage);
    }
  }
  return false;
}
}  // namespace

std::optional<ir::Program> training_form(const ir::Program& p, uint64_t h) {
  auto an = ir::analyze(p);
  if (!an) return std::nullopt;
  // An input that shares its storage with no other input: after mul_(x, w)
  // the storage requires grad, and PyTorch then refuses an in-place write
  // through a view of it made before (another input): "a leaf Variable
  // that requires grad is being used in an in-place operation".
  std::vector<int> inputs_of(p.storages.size(), 0);
  for (const auto& in : p.inputs) ++inputs_of[in.storage];
  std::vector<size_t> f32;
  for (size_t k = 0; k < p.inputs.size(); ++k)
    if (p.storages[p.inputs[k].storage].dtype == ir::Dtype::F32 && inputs_of[p.inputs[k].storage] == 1)
      f32.push_back(k);
  if (f32.empty()) return std::nullopt;
  std::vector<size_t> scaled = {f32[0]};
  if (f32.size() > 1 && (h & 1)) scaled.push_back(f32[1 + (h >> 1) % (f32.size() - 1)]);
  std::set<int> grad;
  for (size_t k : scaled) grad.insert(an->values[k].storage);
  if (autograd_refuses(p, *an, grad)) return std::nullopt;
  // As text: new storages after the last storage, leaves after the last
  // input, the scaling first among the statements (value ids renumber).
  std::string storages, inputs, scale;
  ir::Program names = p;  // grows with the new names, so that each is fresh
  for (size_t k : scaled) {
    const ir::Geometry& g = an->values[k].g;
    const std::string gw = fresh_name(names, "gw"), w = fresh_name(names, "w");
    names.storages.push_back(ir::StorageDecl{gw});
    names.value_names.push_back(w);
    storages += "storage " + gw + " f32[" + std::to_string(std::max<int64_t>(1, g.numel())) + "] = full(1.0)\n";
    inputs += "input " + w + " = as_strided(" + gw + ", " + ints(g.sizes) + ", " +
              ints(ir::contiguous_strides(g.sizes)) + ", 0) requires_grad\n";
    scale += "mul_(" + p.value_names[k] + ", " + w + ")\n";
  }
  std::string text = ir::print(p), out;
  size_t at = 0;
  bool after_storages = false, after_inputs = false, scaled_yet = false;
  while (at < text.size()) {
    const size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end - at + 1);
    at = end + 1;
    const bool is_storage = line.rfind("storage ", 0) == 0, is_input = line.rfind("input ", 0) == 0;
    if (!is_storage && !after_storages && line.rfind("aliasfuzz", 0) != 0) after_storages = true, out += storages;
    if (!is_storage && !is_input && after_storages && !after_inputs) after_inputs = true, out += inputs;
    if (after_inputs && !scaled_yet) scaled_yet = true, out += scale;
    out += line;
  }
  out += "backward(" + std::to_string(ir::mix64(h) % 1000000) + ")\n";
  auto q = ir::parse_and_validate(out);
  if (!q) return std::nullopt;
  return std::move(*q);
}

}  // namespace af::fuzz
