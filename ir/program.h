// The program of format v1 (docs/design.md): storages, inputs, statements and a
// return. Values are numbered; every name is defined once, so a value id
// and its name are interchangeable. Programs are plain values: a pass is a
// function from Program to Program.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/ops.h"
#include "ir/small_vec.h"

namespace af::ir {

enum class InitKind { Iota, Full, List, Random };

struct StorageDecl {
  std::string name;
  Dtype dtype = Dtype::F32;  // format v1.2: i64 and bool storages hold indices and masks
  int64_t numel = 0;
  InitKind init = InitKind::Full;
  double a = 0, b = 0;        // iota(start, step) / full(v)
  uint64_t seed = 0;          // random(seed)
  std::vector<float> values;  // list
  int line = 0;
  // The init's parameters: a field this init does not use reads 0 (another
  // init may have left a value there, which the text does not carry), so
  // equality and the structural hash see the program as its text has it.
  double init_a() const { return init == InitKind::Iota || init == InitKind::Full ? a : 0.0; }
  double init_b() const { return init == InitKind::Iota ? b : 0.0; }
  uint64_t init_seed() const { return init == InitKind::Random ? seed : 0; }
  bool operator==(const StorageDecl& o) const;
};

// The initial contents of a storage, exactly as the format defines them
// (i64 values exactly, bool as 0 and 1; random(seed) of a bool storage sets
// an element when the top bit of its splitmix64 word is set: density 1/2).
std::vector<float> initial_values(const StorageDecl& s);
// The same written to out[0, s.numel) (an executor's arena: no vector per run).
void initial_values_into(const StorageDecl& s, float* out);

struct InputDecl {
  std::string name;
  int storage = 0;       // index into Program::storages
  bool whole = true;     // `input x = s0`: 1-D contiguous over the storage
  Shape sizes, strides;  // as_strided form
  int64_t offset = 0;
  // Format v1.4 training: `input x = ... requires_grad`, a leaf of
  // autograd (f32 only). Values are unchanged; PyTorch judges what autograd
  // makes of the program (docs/format.md "Training").
  bool requires_grad = false;
  int line = 0;
  bool operator==(const InputDecl& o) const;
};

// One argument of a statement.
struct Arg {
  enum Kind { Tensor, Int, Float, IntList, TensorList } kind = Int;
  int64_t i = 0;              // Int; the value id for Tensor
  double f = 0;               // Float
  std::vector<int64_t> list;  // IntList; value ids for TensorList

  static Arg tensor(int v) {
    Arg a;
    a.kind = Tensor;
    a.i = v;
    return a;
  }
  static Arg integer(int64_t v) {
    Arg a;
    a.kind = Int;
    a.i = v;
    return a;
  }
  static Arg number(double v) {
    Arg a;
    a.kind = Float;
    a.f = v;
    return a;
  }
  static Arg ints(std::vector<int64_t> v) {
    Arg a;
    a.kind = IntList;
    a.list = std::move(v);
    return a;
  }
  static Arg tensors(std::vector<int64_t> v) {
    Arg a;
    a.kind = TensorList;
    a.list = std::move(v);
    return a;
  }
  bool is_number() const { return kind == Int || kind == Float; }
  double as_double() const { return kind == Int ? static_cast<double>(i) : f; }
  bool operator==(const Arg& o) const;
};

// A statement's bound values: one or two but for the multi-output views,
// inline (every strategy re-emits every statement; a heap block per
// statement was a visible share of the interpreter tier's allocations).
using OutIds = SmallVec<int, 2>;

// Format v1.5's foreach calls (`foreach_add_([a, b], [c, d])`, PyTorch's
// `torch._foreach_add_`): one in-place statement per list element, in list
// order, which is what eager does (element by element: an element reads
// what the earlier ones wrote), each marked as part of the call so that
// the text and the torch bridge write the one call a compiler sees.
enum class Foreach : uint8_t {
  None,      // a statement of its own
  Starts,    // the first element of a foreach call
  Continues  // a further element of the call the previous statement is in
};

struct Stmt {
  OpKind op;
  OutIds outs;  // value ids bound by this statement
  std::vector<Arg> args;
  int line = 0;
  Foreach foreach = Foreach::None;
  bool operator==(const Stmt& o) const {
    return op == o.op && outs == o.outs && args == o.args && foreach == o.foreach;
  }
};

// Calls f(value id) for every tensor argument of a statement (tensors and
// tensor lists, in argument order): the one walk every pass that follows
// uses of values shares.
template <class F>
void for_each_tensor_arg(const Stmt& st, F&& f) {
  for (const auto& a : st.args) {
    if (a.kind == Arg::Tensor)
      f(static_cast<int>(a.i));
    else if (a.kind == Arg::TensorList)
      for (auto v : a.list) f(static_cast<int>(v));
  }
}
// The same over arguments being rewritten: f(int64_t& value id).
template <class F>
void for_each_tensor_arg(std::vector<Arg>& args, F&& f) {
  for (auto& a : args) {
    if (a.kind == Arg::Tensor)
      f(a.i);
    else if (a.kind == Arg::TensorList)
      for (auto& v : a.list) f(v);
  }
}

struct Program {
  std::vector<StorageDecl> storages;
  std::vector<InputDecl> inputs;         // input k defines value id k
  std::vector<std::string> value_names;  // by value id
  std::vector<Stmt> stmts;
  std::vector<int> returns;  // value ids
  bool has_return = false;
  int return_line = 0;
  // Format v1.4 training: `backward(SEED)` after the return: the sum over
  // the returns that require grad of (return * weights).sum(), weights
  // drawn like random(SEED + i) for return i, then .backward(); every
  // leaf's .grad is observed (judged by PyTorch, not by the oracle).
  std::optional<uint64_t> backward;
  int backward_line = 0;

  int num_values() const { return static_cast<int>(value_names.size()); }
  int new_value(std::string name) {
    value_names.push_back(std::move(name));
    return num_values() - 1;
  }
  // Structural equality (names included, source lines ignored).
  bool operator==(const Program& o) const;
  bool operator!=(const Program& o) const { return !(*this == o); }
};

// Format v1.4: whether a statement calls a mutable custom op (custom_scale_, custom_copy_).
inline bool has_custom_ops(const Program& p) {
  for (const auto& st : p.stmts)
    if (is_custom_op(st.op)) return true;
  return false;
}

// Format v1.4 training: an input requires grad, or the program ends with backward(SEED).
inline bool is_training(const Program& p) {
  if (p.backward) return true;
  for (const auto& in : p.inputs)
    if (in.requires_grad) return true;
  return false;
}

// Format v1.5: the in-place ops a foreach call may apply (add_, sub_,
// mul_, div_, copy_: torch._foreach_OP exists for each).
bool foreach_op(OpKind op);
// The statements [si, end) that one foreach call writes, starting at
// statement si: an element continues the call when it is marked so, applies
// the same op, binds no name, and its second argument is of the first
// element's kind (tensor or number); si when si starts none (a statement
// of its own, or one a pass made unfit for a call: another op, a name). Every
// writer of a program (the text, the torch bridge) groups by this, so a
// pass that drops, reorders or rewrites elements leaves well-formed calls.
size_t foreach_end(const Program& p, size_t si);
// The call foreach_end found, as every writer spells it: PREFIX + OP +
// "([targets], second)", where the second list is the others' tensors, one
// number when every element has the same one, or a number each; `spell`
// writes one argument in the writer's language (.af names, Python).
std::string foreach_call_text(const Program& p, size_t si, size_t end, const std::string& prefix,
                              const std::function<std::string(const Arg&)>& spell);

// A 64-bit hash of the program's structure that ignores names and source
// lines: programs that differ only by renaming hash the same.
uint64_t structural_hash(const Program& p);

}  // namespace af::ir
