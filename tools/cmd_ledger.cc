// aliasfuzz ledger check: replays every entry of the findings ledger
// (corpus/findings) under every installed version of its system, prints
// the per-version table, and records it in each entry's `# on` lines
// (triage/ledger.h). Versions not installed here keep their recorded lines.
// Exit 1 when an entry replayed here reproduces on none of its installed
// versions, or an entry breaks a header rule (fuzz::lint_ledger_entry).
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "triage/defects.h"
#include "triage/evidence.h"
#include "check/files.h"
#include "triage/ledger.h"
#include "minimize/minimize.h"
#include "triage/repro.h"
#include "ir/analysis.h"
#include "ir/text.h"
#include "oracles/eager.h"
#include "tools/commands.h"
#include "triage/minimize_finding.h"

namespace af::tools {

namespace {

struct LedgerArgs {
  std::string dir;
  bool dry_run = false;
  std::vector<std::string> only;  // evidence: these entries only
  bool json = false, no_gather = false, verbose = false, index = false;
  std::string issues;  // defects --issues DIR
};

// The ledger a subcommand reads (--dir, else the default), each file that
// does not parse reported; nullopt when it has no entries.
struct Loaded {
  std::string dir;
  std::vector<fuzz::LedgerEntry> entries;
  std::vector<std::string> errors;
};
std::optional<Loaded> load(const LedgerArgs& a) {
  Loaded l;
  l.dir = a.dir.empty() ? fuzz::default_ledger_dir() : a.dir;
  l.entries = fuzz::load_ledger(l.dir, &l.errors);
  for (const auto& e : l.errors) std::cerr << "aliasfuzz ledger: " << e << "\n";
  if (l.entries.empty()) {
    if (l.dir.empty())
      std::cerr << "aliasfuzz ledger: no ledger named: pass --dir DIR, or set AF_LEDGER or AF_ROOT (./aliasfuzz "
                   "sets AF_ROOT to its checkout)\n";
    else
      std::cerr << "aliasfuzz ledger: no entries in '" << l.dir << "'\n";
    return std::nullopt;
  }
  return l;
}

// The strategies to gather an entry's evidence under, best first: the
// newest installed version it reproduces on first.
std::vector<std::string> evidence_strategies(const fuzz::LedgerEntry& e) {
  std::vector<std::string> all = fuzz::ledger_strategies(e), out;
  std::reverse(all.begin(), all.end());
  for (const auto& s : all) {
    const auto it = e.on.find(fuzz::ledger_version(s));
    if (it != e.on.end() && it->second == "reproduces") out.push_back(s);
  }
  for (const auto& s : all)
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  return out;
}

std::optional<fuzz::Evidence> gather(const fuzz::LedgerEntry& e, std::string* why, bool verbose = false) {
  for (const std::string& s : evidence_strategies(e))
    if (auto ev = fuzz::gather_evidence(e, s, why, verbose)) return ev;
  if (why->empty()) *why = "no strategy of it is installed here";
  return std::nullopt;
}

void refresh_index(const std::string& dir);

int evidence(const LedgerArgs& a) {
  const auto loaded = load(a);
  if (!loaded) return 2;
  const auto& [dir, entries, errors] = *loaded;
  int gathered = 0, failed = 0;
  for (const auto& e : entries) {
    if (!a.only.empty() && std::find(a.only.begin(), a.only.end(), e.name) == a.only.end()) continue;
    std::string why;
    const auto ev = gather(e, &why, a.verbose);
    if (!ev) {
      ++failed;
      std::cout << e.name << ": no evidence: " << why << "\n";
      continue;
    }
    ++gathered;
    const std::string line = fuzz::evidence_text(*ev);
    std::cout << e.name << fmt::format(" ({:.1f} s): ", ev->seconds) << line << "\n" << std::flush;
    if (a.verbose && !ev->no_stage.empty()) std::cout << "    no stage: " << ev->no_stage << "\n";
    if (a.verbose)
      for (auto it = ev->frames.rbegin(); it != ev->frames.rend(); ++it) std::cout << "    at " << *it << "\n";
    if (a.dry_run || a.verbose || line == e.evidence) continue;
    std::string text;
    const std::string path = dir + "/" + e.name + ".af";
    if (fuzz::read_text(path, &text)) fuzz::write_atomic(path, fuzz::with_header_line(text, "evidence", line));
  }
  std::cout << gathered << " entries with evidence, " << failed << " without\n";
  if (!a.dry_run && !a.verbose) refresh_index(dir);
  return errors.empty() ? 0 : 2;
}

// Each entry's evidence: its own `# evidence:` line; else the line of the
// ledger's entry of the same program and strategy (a copy of a ledger
// entry, as an older checkout has it); else gathered here (unless
// --no-gather); else none (it stands alone).
std::map<std::string, fuzz::Evidence> evidence_of(const std::vector<fuzz::LedgerEntry>& entries, bool gather_missing) {
  std::map<std::string, const fuzz::LedgerEntry*> known;  // strategy + program -> a ledger entry with evidence
  for (const auto& k : fuzz::default_ledger())
    if (!k.evidence.empty()) known.emplace(k.spec.strategy.name() + "\n" + ir::print(k.program), &k);
  std::map<std::string, fuzz::Evidence> out;
  for (const auto& e : entries) {
    std::string line = e.evidence;
    if (line.empty())
      if (const auto it = known.find(e.spec.strategy.name() + "\n" + ir::print(e.program)); it != known.end())
        line = it->second->evidence;
    if (!line.empty()) {
      if (auto ev = fuzz::parse_evidence_text(line)) {
        out[e.name] = *ev;
        continue;
      }
      std::cerr << "aliasfuzz ledger: " << e.name << ": malformed evidence line (gathering anew)\n";
    }
    if (!gather_missing) continue;
    std::string why;
    if (auto ev = gather(e, &why))
      out[e.name] = *ev;
    else
      std::cerr << "aliasfuzz ledger: " << e.name << ": no evidence: " << why << "\n";
  }
  return out;
}

// DIR/DEFECT.md for each defect, with its smallest face's repro.py (run
// under the strategy of its evidence, else its own).
void write_defect_issues(const std::string& out, const std::string& dir, const std::vector<fuzz::LedgerEntry>& entries,
                         const std::vector<fuzz::Defect>& found,
                         const std::map<std::string, fuzz::Evidence>& evidence) {
  std::map<std::string, std::string> texts;
  for (const auto& e : entries) fuzz::read_text(dir + "/" + e.name + ".af", &texts[e.name]);
  fuzz::make_dirs(out);
  for (const auto& d : found) {
    const fuzz::LedgerEntry& e =
        *std::find_if(entries.begin(), entries.end(), [&](const auto& x) { return x.name == d.name; });
    run::RunSpec spec = e.spec;
    if (const auto it = evidence.find(e.name); it != evidence.end())
      if (auto s = run::RunStrategy::parse(it->second.under)) spec.strategy = std::move(*s);
    std::string repro;
    auto an = ir::analyze(e.program);
    fuzz::CheckOptions plain;
    plain.first_op = false;
    if (an)
      if (const auto rec = fuzz::run_spec(e.program, spec, plain))
        repro = fuzz::repro_script(e.program, spec, *rec, oracles::run_eager(e.program, *an));
    if (repro.empty())
      repro = "# (no repro: " + spec.strategy.name() + " is not installed here)\n" + ir::print(e.program);
    fuzz::write_atomic(out + "/" + d.name + ".md", fuzz::defect_issue(d, entries, evidence, texts, repro));
  }
  std::cerr << "aliasfuzz ledger: " << found.size() << " issues in " << out << "\n";
}

// The folder's DEFECTS.md rewritten from its entries as they are now, when
// it has one (a changed evidence line or status changes the index).
void refresh_index(const std::string& dir) {
  if (!std::filesystem::exists(dir + "/DEFECTS.md")) return;
  std::vector<std::string> errors;
  const auto entries = fuzz::load_ledger(dir, &errors);
  const std::string index = fuzz::defects_index(fuzz::group_defects(entries, evidence_of(entries, false)), entries);
  fuzz::write_atomic(dir + "/DEFECTS.md", index);
}

int defects(const LedgerArgs& a) {
  const auto loaded = load(a);
  if (!loaded) return 2;
  const auto& [dir, entries, errors] = *loaded;
  const auto evidence = evidence_of(entries, !a.no_gather);
  const auto found = fuzz::group_defects(entries, evidence);
  if (!a.issues.empty()) write_defect_issues(a.issues, dir, entries, found, evidence);
  if (a.index) {
    fuzz::write_atomic(dir + "/DEFECTS.md", fuzz::defects_index(found, entries));
    std::cerr << "aliasfuzz ledger: " << found.size() << " defects in " << dir << "/DEFECTS.md\n";
  }
  if (a.json) {
    nlohmann::json j = nlohmann::json::array();
    std::map<std::string, const fuzz::LedgerEntry*> by_name;
    for (const auto& e : entries) by_name[e.name] = &e;
    for (const auto& d : found)
      j.push_back({{"defect", d.name},
                   {"system", d.system},
                   {"entries", d.entries},
                   {"evidence", d.evidence},
                   {"first_bad", fuzz::first_bad_release(by_name.at(d.name)->on)}});
    std::cout << j.dump(1) << "\n";
  } else {
    std::string system;
    for (const auto& d : found) {
      if (d.system != system) std::cout << (system.empty() ? "" : "\n") << "## " << d.system << "\n";
      system = d.system;
      std::cout << d.name << " (" << d.entries.size() << (d.entries.size() == 1 ? " face" : " faces")
                << "): " << d.evidence << "\n";
      for (size_t i = 1; i < d.entries.size(); ++i) std::cout << "    " << d.entries[i] << "\n";
    }
    std::cout << "\n" << entries.size() << " entries, " << found.size() << " defects\n";
    // Per system: the defects' upstream status (known when a face has an
    // upstream report, fixed when every face is fixed, else new) and which
    // kind of evidence decided each.
    std::map<std::string, std::map<std::string, int>> tally;
    for (const auto& d : found) {
      const std::string status = fuzz::defect_status(d, entries);
      auto& t = tally[d.system];
      ++t[status.substr(0, status.find(' '))];
      ++t["by " + d.evidence.substr(0, d.evidence.find(' '))];
      ++t["defects"];
    }
    for (const auto& kv : tally) {
      const std::string& system = kv.first;
      const std::map<std::string, int>& t = kv.second;
      auto n = [&t](const std::string& k) { return t.count(k) ? t.at(k) : 0; };
      // Every kind of evidence that decided one (fault, message, stage,
      // needs, suspects, removed, alone:), as group_defects words it.
      std::string by;
      for (const auto& [k, count] : t)
        if (k.rfind("by ", 0) == 0)
          by += fmt::format("{}{} {}", by.empty() ? "" : ", ", k.substr(3, k.find_last_not_of(':') - 2), count);
      std::cout << fmt::format("{}: {} defects ({} new, {} known, {} fixed); decided by {}\n", system, n("defects"),
                               n("new"), n("known"), n("fixed"), by);
    }
  }
  return errors.empty() ? 0 : 2;
}

int check(const LedgerArgs& a) {
  const auto loaded = load(a);
  if (!loaded) return 2;
  const auto& [dir, entries, errors] = *loaded;
  int changed = 0, replays = 0, skipped = 0;
  std::vector<std::string> nowhere, lint;  // reproduce on no version installed here; break a header rule
  for (const auto& e : entries) {
    auto on = e.on;
    std::string here;
    bool reproduces_here = false;
    for (const auto& s : fuzz::ledger_strategies(e)) {
      const auto r = fuzz::replay_entry(e, s);
      if (!r) continue;
      ++replays;
      on[r->version] = r->status;
      reproduces_here = reproduces_here || r->status == "reproduces";
      here += fmt::format(" {}: {};", r->version, r->status);
    }
    fuzz::LedgerEntry updated = e;
    updated.on = on;
    for (const std::string& problem : fuzz::lint_ledger_entry(updated)) lint.push_back(e.name + ": " + problem);
    if (!here.empty() && !reproduces_here) nowhere.push_back(e.name);
    if (here.empty()) {
      ++skipped;
      std::cout << e.name << ": not installed here (" << e.spec.strategy.name() << ")"
                << (on.empty() ? "" : "; recorded: " + fuzz::on_summary(on)) << "\n";
      continue;
    }
    std::cout << e.name << ":" << here << " => " << fuzz::on_summary(on) << "\n";
    if (on == e.on) continue;
    ++changed;
    if (a.dry_run) continue;
    std::string text;
    const std::string path = dir + "/" + e.name + ".af";
    if (!fuzz::read_text(path, &text)) continue;
    fuzz::write_atomic(path, fuzz::with_on_lines(text, on));
  }
  std::cout << entries.size() << " entries, " << replays << " replays, " << skipped << " not installed here, "
            << changed << (a.dry_run ? " would change" : " headers updated") << "\n";
  if (!a.dry_run && changed > 0) refresh_index(dir);
  for (const std::string& l : lint) std::cout << "header: " << l << "\n";
  if (!nowhere.empty()) {
    std::cout << nowhere.size() << " entries reproduce on no version installed here (replayed cold):";
    for (const std::string& n : nowhere) std::cout << " " << n;
    std::cout << "\n";
  }
  if (!errors.empty()) return 2;
  return nowhere.empty() && lint.empty() ? 0 : 1;
}

}  // namespace

void register_ledger(Command& app, int* status) {
  auto a = std::make_shared<LedgerArgs>();
  auto* c = app.add_subcommand("ledger", "the findings ledger (corpus/findings)");
  c->require_subcommand(1);
  auto* k = c->add_subcommand(
      "check", "replay every entry under every installed version of its system and record the status in its header");
  k->add_option("--dir", a->dir, "the ledger (default: $AF_LEDGER, else this checkout's corpus/findings)");
  k->add_flag("--dry-run", a->dry_run, "print the table, change no file");
  k->callback([a, status] { *status = check(*a); });
  auto* ev = c->add_subcommand(
      "evidence", "gather each entry's evidence from its compiler (frames, suspects) and record it in its header");
  ev->add_option("--dir", a->dir, "the ledger (default: $AF_LEDGER, else this checkout's corpus/findings)");
  ev->add_option("--entry", a->only, "only this entry (file name without .af; repeatable)");
  ev->add_flag("--dry-run", a->dry_run, "print the evidence, change no file");
  ev->add_flag("--verbose", a->verbose, "every suspect and the whole stack, innermost first (changes no file)");
  ev->callback([a, status] { *status = evidence(*a); });
  auto* d = c->add_subcommand("defects", "group entries into root defects by their evidence (triage/defects.h)");
  d->add_option("--dir", a->dir, "a folder of ledger-style .af files (default: the ledger)");
  d->add_flag("--json", a->json, "a JSON list of {defect, system, entries, evidence, first_bad}");
  d->add_flag("--no-gather", a->no_gather, "never run a compiler: an entry without recorded evidence stands alone");
  d->add_flag("--index", a->index, "also write the ledger's DEFECTS.md (one entry per defect, every face listed)");
  d->add_option("--issues", a->issues, "also write DIR/DEFECT.md, one issue per defect with its smallest repro");
  d->callback([a, status] { *status = defects(*a); });
}

}  // namespace af::tools
