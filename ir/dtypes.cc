// Format v1.5's dtype rule (docs/format.md "Format v1.5"): which dtype each
// statement computes in, and which mixes the format keeps out. PyTorch
// promotes f32 and i32 operands to f32, a Python float makes an i32
// operation f32, and i32 reductions give i64; the format writes none of
// that (kind `dtype`, as format v1.2 does for i64 and bool tensors used as
// data), so every value has the dtype of its operands and memory never
// converts a value between dtypes: it only reinterprets bytes. f64 (the
// tenth slice) computes with the same exact set: IEEE double rounds add,
// sub and mul once, in every kernel and compiler (Inductor's C++ does not
// contract them), so f64 results are compared bit for bit like integers;
// a Python float stays a double there (no promotion).
#include <string>

#include "ir/ops.h"

namespace af::ir {

namespace {

// The i32/i64 arithmetic PyTorch does exactly (wrapping), and the f64
// arithmetic every kernel rounds alike, that the format keeps: add, sub,
// mul, neg, abs, and copying, filling and zeroing.
bool exact_math(Math m) {
  switch (m) {
    case Math::Add:
    case Math::Sub:
    case Math::Mul:
    case Math::Neg:
    case Math::Abs:
    case Math::Copy:
    case Math::Fill:
    case Math::Zero: return true;
    case Math::None:
    case Math::Div:
    case Math::Exp:
    case Math::Relu:
    case Math::Tanh:
    case Math::Sin:
    case Math::Sigmoid:
    case Math::Clamp:
    case Math::Addcmul:
    case Math::Addcdiv:
    case Math::Lerp:
    case Math::ClampTensor: break;
  }
  return false;
}

Error dtype_error(const std::string& message) { return Error{ErrorKind::Dtype, 0, message}; }

}  // namespace

Result<Dtype> result_dtype(OpKind op, const std::vector<CheckedArg>& args) {
  const OpInfo& info = op_info(op);
  if (op == OpKind::ViewDtype) {
    const Dtype to = static_cast<Dtype>(args[1].i);
    if (!is_data_dtype(to) && to != Dtype::I64)
      return dtype_error(std::string("view(x, ") + dtype_name(to) +
                         "): format v1.5 views data as f32, i32, i64 or f64 only (bool tensors are only masks)");
    return to;
  }
  // Strategies' scatters write a slot's bytes into a base of the base's
  // dtype; update_aliases keeps each tensor's (analyze takes it per result).
  if (info.cls == OpClass::Scatter) return args[0].t->dtype;
  if (info.cls == OpClass::Meta) return Dtype::F32;
  // The data operands: every tensor argument but indices and masks.
  std::optional<Dtype> data;
  for (size_t k = 0; k < args.size(); ++k) {
    const char c = info.sig[k];
    if (c == 'J' || c == 'M') continue;
    auto see = [&](const TensorMeta* t) -> std::optional<Error> {
      if (!data) data = t->dtype;
      if (*data != t->dtype)
        return dtype_error(std::string(info.name) + " mixes " + dtype_name(*data) + " and " + dtype_name(t->dtype) +
                           " tensors: format v1.5 keeps type promotion out");
      return std::nullopt;
    };
    if (args[k].t)
      if (auto e = see(args[k].t)) return *e;
    for (const TensorMeta* t : args[k].ts)
      if (auto e = see(t)) return *e;
  }
  if (!data || *data == Dtype::F32) return Dtype::F32;
  // A bool tensor as data: analyze's own check reports it (an i64 one
  // reaching here is wide: i64 data, which computes as i32 does).
  if (*data == Dtype::Bool) return *data;
  // An i32, i64 or f64 statement: views, copies, concatenation and the exact arithmetic.
  const std::string of = std::string(info.name) + " of an " + dtype_name(*data) + " tensor";
  const bool ok = info.family == Family::Movement || info.family == Family::Concat || info.family == Family::Reorder ||
                  (info.family == Family::Elementwise && exact_math(info.math) && !is_custom_op(op)) ||
                  info.family == Family::Meta;
  if (!ok)
    return dtype_error(
        of + ": format v1.5 computes on i32, i64 and f64 with add, sub, mul, neg, abs, copies and fills only");
  if (*data == Dtype::F64) return *data;  // a Python float stays a double
  for (size_t k = 0; k < args.size(); ++k)
    if ((info.sig[k] == 'X' || info.sig[k] == 'N') && !args[k].t && args[k].is_float)
      return dtype_error(of +
                         " and a float number: PyTorch computes that in f32 (or refuses it in place); format "
                         "v1.5 keeps type promotion out");
  return *data;
}

}  // namespace af::ir
