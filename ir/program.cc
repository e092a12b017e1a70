#include "ir/program.h"

#include "ir/hash.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace af::ir {

namespace {
bool same_float(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }
}  // namespace

bool StorageDecl::operator==(const StorageDecl& o) const {
  if (name != o.name || dtype != o.dtype || numel != o.numel || init != o.init || values.size() != o.values.size())
    return false;
  for (size_t i = 0; i < values.size(); ++i)
    if (!same_float(values[i], o.values[i])) return false;
  return same_float(init_a(), o.init_a()) && same_float(init_b(), o.init_b()) && init_seed() == o.init_seed();
}

bool InputDecl::operator==(const InputDecl& o) const {
  if (name != o.name || storage != o.storage || whole != o.whole || requires_grad != o.requires_grad) return false;
  return whole || (sizes == o.sizes && strides == o.strides && offset == o.offset);
}

bool Arg::operator==(const Arg& o) const {
  if (kind != o.kind) return false;
  switch (kind) {
    case Tensor:
    case Int: return i == o.i;
    case Float: return same_float(f, o.f);
    default: return list == o.list;
  }
}

bool Program::operator==(const Program& o) const {
  return storages == o.storages && inputs == o.inputs && value_names == o.value_names && stmts == o.stmts &&
         returns == o.returns && has_return == o.has_return && backward == o.backward;
}

std::vector<float> initial_values(const StorageDecl& s) {
  std::vector<float> v(s.numel);
  initial_values_into(s, v.data());
  return v;
}

void initial_values_into(const StorageDecl& s, float* v) {
  switch (s.init) {
    case InitKind::Iota:
      for (int64_t i = 0; i < s.numel; ++i) v[i] = static_cast<float>(s.a + static_cast<double>(i) * s.b);
      break;
    case InitKind::Full: std::fill(v, v + s.numel, static_cast<float>(s.a)); break;
    case InitKind::List:  // the parser checks that the list has numel values
      std::copy(s.values.begin(), s.values.begin() + std::min<int64_t>(s.numel, s.values.size()), v);
      break;
    case InitKind::Random: {
      uint64_t state = s.seed;
      for (int64_t i = 0; i < s.numel; ++i) {
        const uint64_t z = splitmix64(&state);
        v[i] = s.dtype == Dtype::Bool ? static_cast<float>(z >> 63)
                                      : static_cast<float>(static_cast<double>(z >> 40) / 4194304.0 - 2.0);
      }
      break;
    }
  }
}

namespace {
// FNV-1a over a stream of 64-bit words.
struct Hasher {
  uint64_t h = fnv1a("", 0);
  void word(uint64_t w) {
    unsigned char b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(w >> (8 * i));  // little-endian on every host
    h = fnv1a(b, 8, h);
  }
  void dbl(double d) {
    if (std::isnan(d)) d = NAN;
    uint64_t w;
    std::memcpy(&w, &d, 8);
    word(w);
  }
};
}  // namespace

bool foreach_op(OpKind op) {
  return op == OpKind::AddI || op == OpKind::SubI || op == OpKind::MulI || op == OpKind::DivI || op == OpKind::CopyI;
}

namespace {
bool joins_foreach(const Stmt& first, const Stmt& st) {
  return st.foreach == Foreach::Continues && st.op == first.op && st.outs.empty() && st.args.size() == 2 &&
         (st.args[1].kind == Arg::Tensor) == (first.args[1].kind == Arg::Tensor);
}
}  // namespace

size_t foreach_end(const Program& p, size_t si) {
  const Stmt& first = p.stmts[si];
  if (first.foreach == Foreach::None || !first.outs.empty() || first.args.size() != 2 || !foreach_op(first.op))
    return si;
  size_t end = si + 1;
  while (end < p.stmts.size() && joins_foreach(first, p.stmts[end])) ++end;
  return end;
}

std::string foreach_call_text(const Program& p, size_t si, size_t end, const std::string& prefix,
                              const std::function<std::string(const Arg&)>& spell) {
  std::string targets, others;
  bool one_number = true;
  for (size_t k = si; k < end; ++k) {
    const Stmt& st = p.stmts[k];
    targets += (k > si ? ", " : "") + spell(st.args[0]);
    others += (k > si ? ", " : "") + spell(st.args[1]);
    one_number = one_number && st.args[1].is_number() && st.args[1] == p.stmts[si].args[1];
  }
  const std::string second = one_number ? spell(p.stmts[si].args[1]) : "[" + others + "]";
  return prefix + op_name(p.stmts[si].op) + "([" + targets + "], " + second + ")";
}

uint64_t structural_hash(const Program& p) {
  Hasher h;
  for (const auto& s : p.storages) {
    if (s.dtype != Dtype::F32) h.word(0xd7e0 + static_cast<uint64_t>(s.dtype));  // f32 programs hash as before v1.2
    h.word(static_cast<uint64_t>(s.numel));
    h.word(static_cast<uint64_t>(s.init));
    h.dbl(s.init_a());  // only the fields this init uses, as operator== compares them
    h.dbl(s.init_b());
    h.word(s.init_seed());
    for (float f : s.values) h.dbl(f);
  }
  for (const auto& in : p.inputs) {
    h.word(static_cast<uint64_t>(in.storage));
    h.word(in.whole);
    for (auto x : in.sizes) h.word(static_cast<uint64_t>(x));
    h.word(0xfeed);
    for (auto x : in.strides) h.word(static_cast<uint64_t>(x));
    h.word(static_cast<uint64_t>(in.offset));
    if (in.requires_grad) h.word(0x6ad);  // programs without training hash as before v1.4
  }
  for (const auto& st : p.stmts) {
    h.word(static_cast<uint64_t>(st.op));
    if (st.foreach != Foreach::None) h.word(0xf0e0 + static_cast<uint64_t>(st.foreach));  // as before v1.5 otherwise
    for (int o : st.outs) h.word(static_cast<uint64_t>(o));
    for (const auto& a : st.args) {
      h.word(a.kind);
      h.word(static_cast<uint64_t>(a.i));
      h.dbl(a.f);
      for (auto x : a.list) h.word(static_cast<uint64_t>(x));
      h.word(0xbeef);
    }
  }
  for (int r : p.returns) h.word(static_cast<uint64_t>(r));
  h.word(p.has_return);
  if (p.backward) {
    h.word(0xbac4);
    h.word(*p.backward);
  }
  return h.h;
}

}  // namespace af::ir
