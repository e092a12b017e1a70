// aliasfuzz ledger check: replays every entry of the findings ledger
// (corpus/findings) under every installed version of its system, prints
// the per-version table, and records it in each entry's `# on` lines
// (fuzz/ledger.h). Versions not installed here keep their recorded lines.
// Exit 1 when an entry replayed here reproduces on none of its installed
// versions, or an entry breaks a header rule (fuzz::lint_ledger_entry).
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <set>

#include "fuzz/files.h"
#include "fuzz/ledger.h"
#include "tools/commands.h"

namespace af::tools {

namespace {

struct LedgerArgs {
  std::string dir;
  bool dry_run = false;
};

int check(const LedgerArgs& a) {
  const std::string dir = a.dir.empty() ? fuzz::default_ledger_dir() : a.dir;
  std::vector<std::string> errors;
  const auto entries = fuzz::load_ledger(dir, &errors);
  for (const auto& e : errors) std::cerr << "aliasfuzz ledger: " << e << "\n";
  if (entries.empty()) {
    std::cerr << "aliasfuzz ledger: no entries in '" << dir << "'\n";
    return 2;
  }
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

void register_ledger(CLI::App& app, int* status) {
  auto a = std::make_shared<LedgerArgs>();
  auto* c = app.add_subcommand("ledger", "the findings ledger (corpus/findings)");
  c->require_subcommand(1);
  auto* k = c->add_subcommand(
      "check", "replay every entry under every installed version of its system and record the status in its header");
  k->add_option("--dir", a->dir, "the ledger (default: $AF_LEDGER, else this checkout's corpus/findings)");
  k->add_flag("--dry-run", a->dry_run, "print the table, change no file");
  k->callback([a, status] { *status = check(*a); });
}

}  // namespace af::tools
