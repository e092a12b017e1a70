// The minimizer's same-size pass: statements and aliases reordered toward the
// least skeleton (minimize/skeleton.h).
#include "minimize/minimize_edits.h"
#include "minimize/minimize_passes.h"

#include <functional>
#include <optional>

#include "minimize/skeleton.h"
#include "ir/analysis.h"
#include "ir/text.h"

namespace af::fuzz::minimizing {

// Same-size rewrites toward the program whose skeleton is least: the
// statements in another order the dataflow allows (every such order of a
// program of up to kPermuteUpTo statements, least skeleton first; two
// adjacent statements trading places in a longer one), or two values of
// one storage trading every later use (the returns too). Kept only when the skeleton gets
// smaller (so this ends) and the bug stays: findings of one bug that
// differ in which of two aliases a statement touches, or in the order of
// independent statements, meet at one program (triage/signature.h).
constexpr size_t kPermuteUpTo = 5;
void canonical_order(Search& search) {
  const Program& cur = search.cur();
  // The skeleton, then (two programs of one skeleton: which alias is
  // written, which returned) the text itself.
  auto key = [](const Program& c) -> std::optional<std::string> {
    const std::string text = ir::print(c);
    auto q = ir::parse_and_validate(text);
    if (!q) return std::nullopt;
    return skeleton(*q) + '\x01' + text;
  };
  const std::string here = key(cur).value_or(skeleton(cur));
  const size_t n = cur.stmts.size();
  std::vector<std::vector<bool>> after(n, std::vector<bool>(n, false));  // after[j][i]: j reads what i wrote
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j)
      for (int o : cur.stmts[i].outs)
        ir::for_each_tensor_arg(cur.stmts[j], [&](int v) { after[j][i] = after[j][i] || v == o; });
  auto in_order = [&](const std::vector<size_t>& order) {
    Program c = cur;
    for (size_t k = 0; k < n; ++k) c.stmts[k] = cur.stmts[order[k]];
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
    if (search.out_of_budget()) return;
    if (search.try_candidate(c.second)) return;  // `here` is cur's no more
  }
  auto an = ir::analyze(cur);
  if (!an) return;
  std::vector<int> def(cur.num_values(), -1);  // defining statement; -1 for inputs
  for (size_t i = 0; i < cur.stmts.size(); ++i)
    for (int o : cur.stmts[i].outs) def[o] = static_cast<int>(i);
  for (int u = 0; u < cur.num_values() && !search.out_of_budget(); ++u)
    for (int v = u + 1; v < cur.num_values() && !search.out_of_budget(); ++v) {
      const int su = an->values[u].storage, sv = an->values[v].storage;
      if (su < 0 || su != sv) continue;
      Program c = cur;
      const size_t from = static_cast<size_t>(std::max(def[u], def[v]) + 1);
      for (size_t i = from; i < c.stmts.size(); ++i)
        ir::for_each_tensor_arg(c.stmts[i].args, [&](int64_t& a) { a = a == u ? v : a == v ? u : a; });
      // The returns are later uses too (a write through one input and a
      // read of the other, or the other way round: one program).
      for (int& r : c.returns) r = r == u ? v : r == v ? u : r;
      if (auto k = key(c); k && *k < here && search.try_candidate(c)) return;  // the analysis is cur's no more
    }
}

}  // namespace af::fuzz::minimizing
