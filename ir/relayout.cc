#include "ir/relayout.h"

#include <map>
#include <set>

namespace af::ir {

namespace {

bool shares_a_storage(const Program& p) {
  std::set<int> seen;
  for (const auto& in : p.inputs)
    if (!seen.insert(in.storage).second) return true;
  return false;
}

// A storage name no declaration uses yet: BASE_2, BASE_3, ...
std::string fresh_storage_name(const Program& p, const std::string& base) {
  std::set<std::string> used;
  for (const auto& s : p.storages) used.insert(s.name);
  for (const auto& n : p.value_names) used.insert(n);
  for (int k = 2;; ++k) {
    std::string n = base + "_" + std::to_string(k);
    if (!used.count(n)) return n;
  }
}

// The input as an explicit as_strided view: a whole input keeps its
// geometry, [numel] [1] 0, when it moves into a larger storage (into one
// of its own size it stays whole: then it is the same tensor as the
// storage's other whole inputs, the format v1.3 way of passing one tensor twice).
void make_explicit(InputDecl& in, int64_t numel, int64_t host_numel) {
  if (!in.whole || numel == host_numel) return;
  in.whole = false;
  in.sizes = {numel};
  in.strides = {1};
  in.offset = 0;
}

Program apart(const Program& p) {
  Program q = p;
  std::set<int> kept;
  for (auto& in : q.inputs) {
    if (kept.insert(in.storage).second) continue;  // the storage's first input stays
    StorageDecl copy = q.storages[in.storage];
    copy.name = fresh_storage_name(q, copy.name);
    copy.line = 0;
    q.storages.push_back(std::move(copy));
    in.storage = static_cast<int>(q.storages.size()) - 1;
  }
  return q;
}

std::optional<Program> together(const Program& p) {
  std::map<Dtype, std::vector<size_t>> by_dtype;  // inputs by their storage's dtype
  for (size_t k = 0; k < p.inputs.size(); ++k) by_dtype[p.storages[p.inputs[k].storage].dtype].push_back(k);
  Program q = p;
  bool moved = false;
  for (const auto& [dtype, ins] : by_dtype) {
    if (ins.size() < 2) continue;
    int host = q.inputs[ins[0]].storage;  // the largest storage of the group (the first of equals)
    for (size_t k : ins)
      if (q.storages[q.inputs[k].storage].numel > q.storages[host].numel) host = q.inputs[k].storage;
    for (size_t k : ins) {
      InputDecl& in = q.inputs[k];
      if (in.storage == host) continue;
      make_explicit(in, q.storages[in.storage].numel, q.storages[host].numel);
      in.storage = host;
      moved = true;
    }
  }
  if (!moved) return std::nullopt;
  // A storage whose inputs all moved out is dropped (nothing else refers to one).
  std::vector<char> had(q.storages.size(), 0), has(q.storages.size(), 0);
  for (const auto& in : p.inputs) had[in.storage] = 1;
  for (const auto& in : q.inputs) has[in.storage] = 1;
  std::vector<int> renumber(q.storages.size(), -1);
  std::vector<StorageDecl> kept;
  for (size_t s = 0; s < q.storages.size(); ++s)
    if (has[s] || !had[s]) {
      renumber[s] = static_cast<int>(kept.size());
      kept.push_back(q.storages[s]);
    }
  for (auto& in : q.inputs) in.storage = renumber[in.storage];
  q.storages = std::move(kept);
  return q;
}

}  // namespace

std::optional<Program> recall_layout(const Program& p) {
  if (p.inputs.size() < 2) return std::nullopt;
  if (shares_a_storage(p)) return apart(p);
  return together(p);
}

std::string recall_direction(const Program& p) {
  if (!recall_layout(p)) return "";
  return shares_a_storage(p) ? "apart" : "together";
}

}  // namespace af::ir
