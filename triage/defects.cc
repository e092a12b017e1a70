#include "triage/defects.h"

#include <algorithm>
#include <numeric>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>

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

std::string strategy_system(const std::string& strategy) {
  const auto ext = compilers::external_strategy(strategy);
  return ext && !ext->system.empty() ? ext->system : strategy;
}

std::vector<Defect> group_defects(const std::vector<LedgerEntry>& entries,
                                  const std::map<std::string, Evidence>& evidence) {
  std::vector<DefectCandidate> bugs;
  for (const auto& e : entries)
    bugs.push_back({e.name, strategy_system(e.spec.strategy.name()), e.what, e.program.stmts.size(),
                    program_trigger(e.program), fixed_in(e.on), write_shapes(e.program)});
  return group_defects(bugs, evidence);
}

std::string fixed_in(const std::map<std::string, std::string>& on) {
  std::string agrees;
  bool fails = false;
  for (const auto& [version, status] : on) {
    if (status == "agrees")
      agrees += (agrees.empty() ? "" : ", ") + version;
    else
      fails = true;
  }
  return fails ? agrees : "";
}

std::string program_trigger(const ir::Program& p) {
  for (size_t si = 0; si < p.stmts.size(); ++si)
    if (ir::foreach_end(p, si) > si) return "foreach call";
  return "";
}

std::string write_shapes(const ir::Program& p) {
  const auto an = ir::analyze(p);
  if (!an) return "";
  std::set<std::string> shapes;
  for (const ir::Stmt& st : p.stmts) {
    const ir::OpInfo& info = ir::op_info(st.op);
    if (info.cls != ir::OpClass::InPlace || info.family == ir::Family::Meta || st.args.empty() ||
        st.args[0].kind != ir::Arg::Tensor)
      continue;
    const ir::TensorMeta& target = an->values[st.args[0].i];
    if (target.storage < 0 || target.storage >= an->num_declared) continue;  // an intermediate's storage
    const ir::Geometry g = ir::memory_geometry(target, ir::written_geometry(st, *an));
    if (g.numel() == 0) {
      shapes.insert("empty");
      continue;
    }
    if (ir::has_exact_internal_overlap(g)) shapes.insert("overlapping");
    std::set<int64_t> held;  // the storage's elements that inputs hold
    for (size_t k = 0; k < p.inputs.size(); ++k)
      if (an->values[k].storage == target.storage)
        for (int64_t o : ir::all_offsets(ir::memory_geometry(an->values[k]))) held.insert(o);
    for (int64_t o : ir::all_offsets(g))
      if (!held.count(o)) {
        shapes.insert("outside the inputs");
        break;
      }
  }
  std::string out;
  for (const std::string& s : shapes) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string stage_pass(const std::string& stage) {
  const size_t colon = stage.find(": ");
  if (colon == std::string::npos) return "";  // a backend alone: too wide
  // "#N" counts the subsystem's applications in this program's compile.
  return std::regex_replace(stage, std::regex(" #[0-9]+"), "");
}

std::vector<Defect> group_defects(const std::vector<DefectCandidate>& entries,
                                  const std::map<std::string, Evidence>& evidence) {
  const size_t n = entries.size();
  UnionFind uf(n);
  std::vector<std::string> system(n), why(n);
  // What each rule keys on, per system: the first entry seen with that key.
  std::map<std::string, size_t> by_fault, by_message, by_stage, by_trigger, by_suspects, by_removal;
  for (size_t i = 0; i < n; ++i) system[i] = entries[i].system;
  auto link = [&](std::map<std::string, size_t>& seen, const std::string& k, size_t i) {
    const auto [it, fresh] = seen.emplace(system[i] + "\n" + entries[i].fixed_in + "\n" + k, i);
    if (!fresh) uf.join(i, it->second);
  };
  // A function and the closures defined in it are one place to fix:
  // "f.<locals>.g" keys as "f".
  auto place = [](const std::string& frame) {
    const size_t at = frame.find(".<locals>.");
    return at == std::string::npos ? frame : frame.substr(0, at);
  };
  for (size_t i = 0; i < n; ++i) {
    const auto it = evidence.find(entries[i].name);
    if (it == evidence.end()) {
      why[i] = "alone: no evidence";
      continue;
    }
    const Evidence& ev = it->second;
    if (!ev.system.empty()) system[i] = ev.system;  // met inside the strategy (thunderfx's Dynamo)
    if (!ev.fault.empty()) {
      why[i] = "fault " + place(ev.fault);
      link(by_fault, place(ev.fault), i);
    } else if (!ev.made_by.empty()) {
      // A wrong return made where another bug's error is raised: one place.
      why[i] = "fault " + place(ev.made_by) + " (made the wrong " + ev.wrong + ")";
      link(by_fault, place(ev.made_by), i);
    } else if (!ev.message.empty()) {
      why[i] = "message " + entries[i].what + ": " + ev.message;
      link(by_message, entries[i].what + ": " + ev.message, i);
    } else if (const std::string pass = stage_pass(ev.stage); !pass.empty()) {
      // Wrong values made by one pass (or lowering) of torch.compile's
      // backend, as compiler_bisector names it: one place to fix.
      why[i] = "stage " + pass + (ev.wrong.empty() ? "" : " (wrong " + ev.wrong + ")");
      link(by_stage, entries[i].what + ": " + pass, i);
    } else if (!entries[i].trigger.empty()) {
      // Wrong values the minimizer could not get without one construct,
      // first wrong in one backend: that construct's one handling there.
      const std::string backend = ev.stage.substr(0, ev.stage.find(':'));
      why[i] = "needs a " + entries[i].trigger + (backend.empty() ? "" : ", first wrong in " + backend) +
               (ev.wrong.empty() ? "" : " (wrong " + ev.wrong + ")");
      link(by_trigger, entries[i].what + ": " + entries[i].trigger + " @ " + backend, i);
    } else if (!ev.suspects.empty()) {
      // Wrong values: the same ranked suspects, all of them, and the same
      // wrong observable. A top suspect alone is too weak: it is often
      // the precondition every program of a mechanism runs (AOTAutograd's
      // synthetic bases), not the fault.
      std::string list;
      for (const std::string& f : ev.suspects) list += f + ", ";
      why[i] = "suspects " + list.substr(0, list.size() - 2) + (ev.wrong.empty() ? "" : " (wrong " + ev.wrong + ")");
      if (!entries[i].writes.empty()) why[i] += " (writes: " + entries[i].writes + ")";
      link(by_suspects, entries[i].what + ": " + ev.wrong + ": " + list + "; writes " + entries[i].writes, i);
    } else if (!ev.removed_by.empty()) {
      // Nothing but the one setting that removes it (a bug-zoo mutant of
      // our own strategies): that setting is the fix.
      why[i] = "removed by " + ev.removed_by;
      link(by_removal, ev.removed_by, i);
    } else {
      why[i] = "alone: no fault frame, message or suspect";
    }
  }
  std::map<size_t, std::vector<size_t>> groups;
  for (size_t i = 0; i < n; ++i) groups[uf.find(i)].push_back(i);
  std::vector<Defect> out;
  for (auto& [root, members] : groups) {
    std::sort(members.begin(), members.end(), [&](size_t a, size_t b) {
      const size_t sa = entries[a].size, sb = entries[b].size;
      return sa != sb ? sa < sb : entries[a].name < entries[b].name;
    });
    Defect d;
    d.name = entries[members.front()].name;
    d.system = system[members.front()];
    d.evidence = why[members.front()];
    if (const std::string& f = entries[members.front()].fixed_in; !f.empty()) d.evidence += "; agrees on " + f;
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

std::string defect_issue(const Defect& d, const std::vector<LedgerEntry>& entries,
                         const std::map<std::string, Evidence>& evidence,
                         const std::map<std::string, std::string>& texts, const std::string& repro) {
  std::map<std::string, const LedgerEntry*> by_name;
  for (const auto& e : entries) by_name[e.name] = &e;
  const LedgerEntry& first = *by_name.at(d.name);
  std::string t = "# [" + d.system + "] " + first.cause + "\n\n";
  t += "One root defect seen through " + std::to_string(d.entries.size()) +
       (d.entries.size() == 1 ? " program" : " programs (faces)") + "; grouped by: " + d.evidence + ".\n\n";
  if (const auto it = evidence.find(d.name); it != evidence.end()) {
    const Evidence& ev = it->second;
    t += "## Where to look\n\n";
    if (!ev.fault.empty()) t += "- fails in `" + ev.fault + "`\n";
    if (!ev.message.empty()) t += "- error: `" + ev.message + "`\n";
    if (!ev.wrong.empty()) t += "- wrong: " + ev.wrong + "\n";
    if (!ev.stage.empty())
      t += "- first wrong in torch.compile's `" + ev.stage +
           "` (`torch._inductor.compiler_bisector` over the program)\n";
    if (const compilers::ThunderOption* o = compilers::thunder_option_by_keyword(ev.removed_by))
      t += "- right with `" + ev.removed_by + "` added to the compile call: what it turns off, " + o->turns_off +
           ", goes wrong\n";
    else if (!ev.removed_by.empty())  // a bug-zoo mutant: `--inject none`
      t += "- right with `" + ev.removed_by + "`: the mutant's change is the defect\n";
    if (const std::string r = first_bad_release(first.on); !r.empty()) t += "- releases: " + r + "\n";
    if (!ev.suspects.empty()) {
      t += "- suspects (Ochiai over " + std::to_string(ev.passing) + " passing programs one edit away):";
      for (const std::string& f : ev.suspects) t += " `" + f + "`";
      t += "\n";
    }
    t += "- gathered under " + ev.under + "\n\n";
  }
  t += "## Versions\n\n| version | " + d.name + " |\n| --- | --- |\n";
  for (const auto& [v, st] : by_version(first.on)) t += "| " + v + " | " + st + " |\n";
  t += "\n## Upstream\n\n";
  std::set<std::string> seen;
  for (const std::string& n : d.entries) {
    const auto it = texts.find(n);
    if (it == texts.end()) continue;
    std::istringstream in(it->second);
    for (std::string line; std::getline(in, line) && line.rfind("#", 0) == 0;)
      for (const char* k : {"# status: ", "# related: ", "# upstream-search: "})
        if (line.rfind(k, 0) == 0 && seen.insert(line).second) t += "- " + line.substr(2) + "\n";
  }
  t += "\n## Smallest repro (" + d.name + ")\n\n```python\n" + repro +
       (repro.empty() || repro.back() == '\n' ? "" : "\n") + "```\n";
  if (d.entries.size() > 1) {
    t += "\n## Other faces\n\n";
    for (size_t i = 1; i < d.entries.size(); ++i) {
      const LedgerEntry* e = by_name.at(d.entries[i]);
      t += "- `" + e->name + "` (" + e->what + "): " + e->cause + "\n";
    }
  }
  return t;
}

std::string defect_status(const Defect& d, const std::vector<LedgerEntry>& entries) {
  std::map<std::string, const LedgerEntry*> by_name;
  for (const auto& e : entries) by_name[e.name] = &e;
  bool fixed = true;
  std::string fixed_in;
  for (const std::string& n : d.entries) {
    const LedgerEntry& e = *by_name.at(n);
    if (e.status == "known") return "known " + e.reference;
    fixed = fixed && e.status == "fixed";
    if (fixed && fixed_in.empty()) fixed_in = e.reference;
  }
  return fixed ? "fixed " + fixed_in : "new";
}

std::string defects_index(const std::vector<Defect>& defects, const std::vector<LedgerEntry>& entries) {
  std::map<std::string, const LedgerEntry*> by_name;
  for (const auto& e : entries) by_name[e.name] = &e;
  std::map<std::string, std::map<std::string, int>> tally;  // system -> new/known/fixed -> defects
  for (const Defect& d : defects) {
    const std::string st = defect_status(d, entries);
    ++tally[d.system][st.substr(0, st.find(' '))];
  }
  std::string t =
      "# The ledger's root defects\n\n"
      "Written by `aliasfuzz ledger defects --index` from the entries' recorded evidence (the rule: "
      "docs/design.md, \"Campaigns, findings, minimization\"); the suite checks that it is current. "
      "Each entry below is one root defect, what one upstream fix removes; its faces are the `.af` files "
      "of this folder, each a program that replays it.\n\n" +
      std::to_string(entries.size()) + " entries, " + std::to_string(defects.size()) + " defects.\n";
  std::string system;
  for (const Defect& d : defects) {
    if (d.system != system) {
      system = d.system;
      const auto& n = tally[system];
      auto count = [&n](const char* k) { return n.count(k) ? n.at(k) : 0; };
      t += fmt::format("\n## {} ({} new, {} known, {} fixed)\n", system, count("new"), count("known"), count("fixed"));
    }
    const LedgerEntry& first = *by_name.at(d.name);
    t += "\n### " + d.name + "\n\n" + first.cause + "\n\n";
    t += "- status: " + defect_status(d, entries) + "\n";
    t += "- evidence: " + d.evidence + "\n";
    if (const std::string r = first_bad_release(first.on); !r.empty()) t += "- releases: " + r + "\n";
    t += "- faces (" + std::to_string(d.entries.size()) + "):";
    for (const std::string& n : d.entries) t += " `" + n + "`";
    t += "\n";
  }
  return t;
}

}  // namespace af::fuzz
