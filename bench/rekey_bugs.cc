// The distinct bugs of campaign folders by this checkout's bug signature
// (triage/signature.h), for a before/after table across a change of the
// signature (issue #34): every minimized program a folder holds (buckets'
// findings/*/minimize.json and novelty leads' novel/*/minimize.json) gets
// today's key from its bug program and the kind of divergence its own key
// recorded, then is labelled by today's ledger. An older folder's keys
// split one defect more finely (skeletons), so its own bug count is not
// comparable with a newer one's.
//   rekey_bugs FOLDER...   (AF_ROOT or AF_LEDGER: the ledger)
// Prints per folder: bugs, new, known, then one line per bug (its key,
// minimized programs, ledger entry or "new", first folder).
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "base/files.h"
#include "triage/ledger.h"
#include "triage/signature.h"
#include "ir/text.h"
#include "run/spec.h"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Today's signature of one minimized program; nullopt when the folder
// holds no finished bug program (an explained lead, one cut short).
std::optional<af::fuzz::BugSignature> rekey(const json& mj, const json& settings) {
  if (mj.value("explained", false) || mj.value("bug_cut", false)) return std::nullopt;
  const std::string key = mj.value("bug_key", std::string()), text = mj.value("bug_program", std::string());
  if (key.empty() || text.empty()) return std::nullopt;
  auto p = af::ir::parse(text);
  if (!p) return std::nullopt;
  // who|what|...: what is the second field in every version of the key.
  const size_t a = key.find('|'), b = a == std::string::npos ? a : key.find('|', a + 1);
  if (b == std::string::npos) return std::nullopt;
  const json spec = mj.contains("spec") ? mj["spec"] : settings.value("finding", json::object()).value("spec", json());
  const auto s = af::run::spec_from_json(spec);
  if (!s) return std::nullopt;
  return af::fuzz::bug_signature(af::fuzz::record_of_what(*s, key.substr(a + 1, b - a - 1)), *p,
                                 mj.value("schedule_sensitivity", std::string()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: rekey_bugs FOLDER...\n");
    return 2;
  }
  for (int i = 1; i < argc; ++i)
    if (!fs::is_directory(fs::path(argv[i]) / "findings")) {  // not a campaign: no "0 bugs" for a typo
      std::fprintf(stderr, "rekey_bugs: %s is not a campaign folder (no findings/)\n", argv[i]);
      return 2;
    }
  const std::string ledger_dir = af::fuzz::default_ledger_dir();
  const auto ledger =
      ledger_dir.empty() ? std::vector<af::fuzz::LedgerEntry>{} : af::fuzz::load_ledger(ledger_dir, nullptr);
  for (int i = 1; i < argc; ++i) {
    struct Bug {
      std::string label, first;  // ledger entry ("" new), first folder
      int programs = 0;
    };
    std::map<std::string, Bug> bugs;
    for (const char* sub : {"findings", "novel"}) {
      std::error_code ec;
      for (const auto& d : fs::directory_iterator(fs::path(argv[i]) / sub, ec)) {
        std::string text, st;
        if (!af::base::read_file((d.path() / "minimize.json").string(), &text)) continue;
        af::base::read_file((d.path() / "settings.json").string(), &st);
        const json mj = json::parse(text, nullptr, false), settings = json::parse(st, nullptr, false);
        if (mj.is_discarded()) continue;
        const auto sig = rekey(mj, settings.is_discarded() ? json::object() : settings);
        if (!sig) continue;
        const json spec = mj.value("spec", json::object());
        const af::fuzz::LedgerEntry* e =
            af::fuzz::ledger_label(ledger, *sig, spec.value("strategy", std::string(sig->who)));
        Bug& b = bugs[sig->key()];
        if (e) b.label = e->name;
        if (b.first.empty()) b.first = std::string(sub) + "/" + d.path().filename().string();
        ++b.programs;
      }
    }
    int known = 0;
    for (const auto& [k, b] : bugs) known += !b.label.empty();
    std::printf("%s: %zu bugs, %zu new, %d known\n", argv[i], bugs.size(), bugs.size() - known, known);
    for (const auto& [k, b] : bugs)
      std::printf("  %-70s %3d  %s  (%s)\n", k.c_str(), b.programs, b.label.empty() ? "new" : b.label.c_str(),
                  b.first.c_str());
  }
  return 0;
}
