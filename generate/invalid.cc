#include "generate/invalid.h"

#include <algorithm>
#include <vector>

#include "ir/analysis.h"
#include "ir/hash.h"
#include "ir/text.h"

namespace af::fuzz {

using ir::Arg;
using ir::ErrorKind;
using ir::Program;

size_t failing_stmt(const Program& p, const ir::Error& error) {
  for (size_t i = 0; i < p.stmts.size(); ++i)
    if (error.line > 0 && p.stmts[i].line == error.line) return i;
  return p.stmts.size();
}

bool eager_raises(ErrorKind k) {
  return k == ErrorKind::Overlap || k == ErrorKind::Shape || k == ErrorKind::View || k == ErrorKind::Arg;
}

namespace {

// Moves of an integer argument: neighbours (a dim or index one off), the
// ends past a size, a negative one.
constexpr int64_t kIntMoves[] = {1, -1, 2, -2, 3, 5, -7, 9};
// Index values that leave a range or land on another index.
constexpr float kIndexMoves[] = {5.f, -1.f, 64.f, -9.f};

// The values defined before statement si: inputs, then earlier results.
std::vector<int> values_before(const Program& p, size_t si) {
  std::vector<int> v;
  for (size_t k = 0; k < p.inputs.size(); ++k) v.push_back(static_cast<int>(k));
  for (size_t i = 0; i < si; ++i)
    for (int o : p.stmts[i].outs) v.push_back(o);
  return v;
}

// p up to and including statement si, returning what survives of its
// returns and the statement's results (or, for a statement without one,
// the tensor it writes).
Program cut_after(const Program& p, size_t si) {
  Program q = p;
  q.stmts.resize(si + 1);
  std::vector<bool> defined(static_cast<size_t>(q.num_values()), false);
  for (size_t k = 0; k < q.inputs.size(); ++k) defined[k] = true;
  for (const auto& st : q.stmts)
    for (int o : st.outs) defined[static_cast<size_t>(o)] = true;
  std::vector<int> rets;
  for (int r : q.returns)
    if (defined[static_cast<size_t>(r)]) rets.push_back(r);
  const ir::Stmt& last = q.stmts.back();
  std::vector<int> made = last.outs;
  if (made.empty())
    ir::for_each_tensor_arg(last, [&](int v) {
      if (made.empty()) made.push_back(v);
    });
  for (int v : made)
    if (std::find(rets.begin(), rets.end(), v) == rets.end()) rets.push_back(v);
  q.returns = rets;
  q.has_return = true;
  return q;
}

}  // namespace

Program variant(const Program& p, size_t si, uint64_t h) {
  Program q = p;
  ir::Stmt& st = q.stmts[si];
  const char* sig = ir::op_info(st.op).sig;
  std::vector<size_t> tensors, ints, indices;
  for (size_t j = 0; j < st.args.size(); ++j) {
    if (st.args[j].kind == Arg::Tensor) (sig[j] == 'J' ? indices : tensors).push_back(j);
    if (st.args[j].kind == Arg::Int && sig[j] != 'D') ints.push_back(j);  // a dtype (format v1.5) is no integer to move
  }
  const uint64_t which = ir::mix64(h) % 4;
  const uint64_t a = ir::mix64(h + 1), b = ir::mix64(h + 2);
  ir::StorageDecl* ix = nullptr;
  if (!indices.empty()) {
    const int input = static_cast<int>(st.args[indices[a % indices.size()]].i);
    if (input < static_cast<int>(q.inputs.size())) ix = &q.storages[q.inputs[input].storage];
  }
  if (which == 3 && ix && ix->init == ir::InitKind::List && !ix->values.empty()) {
    std::vector<float>& v = ix->values;
    const size_t at = a % v.size();
    v[at] = b % 2 ? v[(b >> 8) % v.size()] : kIndexMoves[(b >> 8) % 4];
  } else if (which >= 2 && !ints.empty()) {
    st.args[ints[a % ints.size()]].i += kIntMoves[b % 8];
  } else if (!tensors.empty()) {
    const std::vector<int> before = values_before(q, si);
    st.args[tensors[a % tensors.size()]].i = before[b % before.size()];
  }
  auto r = ir::parse(ir::print(q));
  return r ? std::move(*r) : q;
}

std::optional<Program> invalid_from(const Program& p, uint64_t h) {
  if (p.stmts.empty()) return std::nullopt;
  // Overlap, shape and view errors are what a compiler's graph can lose
  // (they are checks of eager kernels on memory); most `arg` errors (a dim
  // out of range) any tracer raises as well: one is kept only when no
  // variant of another kind turns up.
  std::optional<Program> arg_error;
  for (uint64_t t = 0; t < 64; ++t) {
    const uint64_t ht = ir::mix64(h ^ (t * 0x9E3779B97F4A7C15ULL));
    const size_t si = ht % p.stmts.size();
    const Program v = variant(p, si, ht >> 8);
    const auto an = ir::analyze(v);
    if (an || !eager_raises(an.error().kind) || an.error().line <= 0) continue;
    const size_t fail = failing_stmt(v, an.error());
    if (fail == v.stmts.size()) continue;  // an input or the return failed
    auto cut = ir::parse(ir::print(cut_after(v, fail)));
    if (!cut) continue;
    const auto an2 = ir::analyze(*cut);
    if (an2 || an2.error().kind != an.error().kind) continue;
    if (an2.error().kind != ErrorKind::Arg) return std::move(*cut);
    if (!arg_error) arg_error = std::move(*cut);
  }
  return arg_error;
}

}  // namespace af::fuzz
