#include "fuzz/defects.h"

#include <algorithm>
#include <numeric>

#include "compilers/table.h"

namespace af::fuzz {

namespace {

struct UnionFind {
  std::vector<size_t> up;
  explicit UnionFind(size_t n) : up(n) { std::iota(up.begin(), up.end(), 0); }
  size_t find(size_t i) { return up[i] == i ? i : up[i] = find(up[i]); }
  void join(size_t a, size_t b) { up[find(a)] = find(b); }
};



}  // namespace

std::string entry_system(const LedgerEntry& e) {
  const auto ext = compilers::external_strategy(e.spec.strategy.name());
  return ext && !ext->system.empty() ? ext->system : e.spec.strategy.name();
}

std::vector<Defect> group_defects(const std::vector<LedgerEntry>& entries,
                                  const std::map<std::string, Evidence>& evidence) {
  const size_t n = entries.size();
  UnionFind uf(n);
  std::vector<std::string> system(n), why(n);
  // What each rule keys on, per system: the first entry seen with that key.
  std::map<std::string, size_t> by_fault, by_message, by_suspect;
  for (size_t i = 0; i < n; ++i) system[i] = entry_system(entries[i]);
  auto link = [&](std::map<std::string, size_t>& seen, const std::string& k, size_t i) {
    const auto [it, fresh] = seen.emplace(system[i] + "\n" + k, i);
    if (!fresh) uf.join(i, it->second);
  };
  for (size_t i = 0; i < n; ++i) {
    const auto it = evidence.find(entries[i].name);
    if (it == evidence.end()) {
      why[i] = "alone: no evidence";
      continue;
    }
    const Evidence& ev = it->second;
    if (!ev.fault.empty()) {
      why[i] = "fault " + ev.fault;
      link(by_fault, ev.fault, i);
      link(by_suspect, ev.fault, i);  // rule 3: a suspect that is another bug's fault
    } else if (!ev.message.empty()) {
      why[i] = "message " + entries[i].what + ": " + ev.message;
      link(by_message, entries[i].what + ": " + ev.message, i);
    }
    if (!ev.suspects.empty()) {
      if (why[i].empty()) why[i] = "suspect " + ev.suspects.front();
      link(by_suspect, ev.suspects.front(), i);
    }
    if (why[i].empty()) why[i] = "alone: no fault frame, message or suspect";
  }
  std::map<size_t, std::vector<size_t>> groups;
  for (size_t i = 0; i < n; ++i) groups[uf.find(i)].push_back(i);
  std::vector<Defect> out;
  for (auto& [root, members] : groups) {
    std::sort(members.begin(), members.end(), [&](size_t a, size_t b) {
      const size_t sa = entries[a].program.stmts.size(), sb = entries[b].program.stmts.size();
      return sa != sb ? sa < sb : entries[a].name < entries[b].name;
    });
    Defect d;
    d.name = entries[members.front()].name;
    d.system = system[members.front()];
    d.evidence = why[members.front()];
    for (size_t m : members) d.entries.push_back(entries[m].name);
    out.push_back(std::move(d));
  }
  std::sort(out.begin(), out.end(), [](const Defect& a, const Defect& b) {
    if (a.system != b.system) return a.system < b.system;
    if (a.entries.size() != b.entries.size()) return a.entries.size() > b.entries.size();
    return a.name < b.name;
  });
  return out;
}

}  // namespace af::fuzz
