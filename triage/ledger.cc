#include "check/bucket.h"
#include "triage/ledger.h"

#include <algorithm>
#include <regex>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "check/files.h"
#include "run/vocabulary.h"
#include "generate/invalid.h"
#include "minimize/minimize.h"
#include "triage/signature.h"
#include "ir/analysis.h"
#include "ir/text.h"
#include "compilers/runner.h"
#include "compilers/table.h"
#include "triage/minimize_finding.h"

namespace af::fuzz {

std::optional<LedgerEntry> parse_ledger_entry(const std::string& name, const std::string& text, std::string* error) {
  LedgerEntry e;
  e.name = name;
  std::istringstream in(text);
  std::string strategy;
  for (std::string line; std::getline(in, line) && line.rfind("#", 0) == 0;) {
    auto field = [&](const char* key, std::string* out) {
      const std::string k = std::string("# ") + key + ": ";
      if (line.rfind(k, 0) == 0) *out = line.substr(k.size());
    };
    field("aliasfuzz finding", &e.cause);
    field("system", &e.system);
    field("strategy", &strategy);
    field("what", &e.what);
    field("status", &e.status);
    field("evidence", &e.evidence);
    // # on SYSTEM VERSION: STATUS
    if (line.rfind("# on ", 0) == 0) {
      const size_t colon = line.find(": ", 5);
      const std::string version = colon == std::string::npos ? "" : line.substr(5, colon - 5);
      const std::string status = colon == std::string::npos ? "" : line.substr(colon + 2);
      if (version.find(' ') == std::string::npos || version.back() == ' ' || status.empty()) {
        *error =
            name + ": `" + line + "`: expected `# on SYSTEM VERSION: STATUS` (e.g. `# on torch 2.15.0: reproduces`)";
        return std::nullopt;
      }
      e.on[version] = status;
    }
  }
  if (e.cause.empty() || e.system.empty() || strategy.empty() || e.what.empty() || e.status.empty()) {
    *error = name + ": the header needs `aliasfuzz finding`, `system`, `strategy`, `what` and `status` lines";
    return std::nullopt;
  }
  std::string why;
  auto parsed = run::RunStrategy::parse(strategy, &why);
  if (!parsed) {
    *error = name + ": strategy: " + why;
    return std::nullopt;
  }
  e.spec.strategy = std::move(*parsed);
  // A bug of the second call (what: recall-...) replays with --recall.
  // One of the history across processes (what: stale-from-cache-...) with
  // --recall across processes.
  e.spec.across_processes = e.what.rfind(kStaleFromCachePrefix, 0) == 0;
  e.spec.recall = e.what.rfind(kRecallPrefix, 0) == 0 || e.spec.across_processes;
  if (e.spec.recall && !e.spec.is_external()) {
    *error = name + ": what: " + e.what +
             " is a bug of a compiled function's second call (--recall), which only "
             "the compilers under study make";
    return std::nullopt;
  }
  const size_t sp = e.status.find(' ');
  if (sp != std::string::npos) e.reference = e.status.substr(sp + 1), e.status = e.status.substr(0, sp);
  if (e.status != "new" && e.status != "known" && e.status != "fixed") {
    *error = name + ": status is new, known REFERENCE or fixed VERSION, not '" + e.status + "'";
    return std::nullopt;
  }
  if (e.status != "new" && e.reference.empty()) {
    *error = name + ": status " + e.status + " needs a reference (an upstream issue, or the version that fixed it)";
    return std::nullopt;
  }
  // A program eager rejects is an entry too (what: accepts-invalid-KIND, or
  // the runner crash of a compiler that dies on it), of that kind only.
  auto p = ir::parse(text);
  if (p) {
    auto an = ir::analyze(*p);
    if (!an && !(eager_raises(an.error().kind) && e.spec.is_external())) p = an.error();
    if (an && !accepted_invalid_kind(e.what).empty())
      p = ir::Error{ir::ErrorKind::Syntax, 0, "what: " + e.what + " needs a program eager rejects"};
  }
  if (!p) {
    *error = name + ":" + std::to_string(p.error().line) + ": " + p.error().message;
    return std::nullopt;
  }
  e.program = *p;
  e.bug = bug_signature(record_of_what(e.spec, e.what), canonical_names(e.program));
  e.bug.name.clear();
  return e;
}

std::vector<LedgerEntry> load_ledger(const std::string& dir, std::vector<std::string>* errors) {
  std::vector<LedgerEntry> out;
  std::error_code ec;
  for (const auto& f : std::filesystem::directory_iterator(dir, ec)) {
    if (f.path().extension() != ".af") continue;
    std::string text, err;
    if (!read_text(f.path().string(), &text)) continue;
    if (auto e = parse_ledger_entry(f.path().stem().string(), text, &err))
      out.push_back(std::move(*e));
    else if (errors)
      errors->push_back(err);
  }
  std::sort(out.begin(), out.end(), [](const LedgerEntry& a, const LedgerEntry& b) { return a.name < b.name; });
  return out;
}

std::vector<std::string> ledger_strategies(const LedgerEntry& e) {
  const auto& ext = e.spec.strategy.external();
  const std::string& name = e.spec.strategy.name();
  if (!ext || !ext->versioned || !ext->torch_version.empty()) return {name};
  std::vector<std::string> out;
  for (const auto& t : compilers::installed_torches()) out.push_back(name + "@" + t.version);
  return out;
}

std::string ledger_version(const std::string& strategy) {
  const auto ext = compilers::external_strategy(strategy);
  if (ext && ext->versioned && !ext->torch_version.empty()) return "torch " + ext->torch_version;
  // "torch 2.9.1+cu128, thunder 0.2.6" -> "thunder 0.2.6 (torch 2.9.1)": local build tags dropped.
  std::string v = compilers::external_versions(strategy);
  for (size_t plus; (plus = v.find('+')) != std::string::npos;) v.erase(plus, v.find_first_of(", ", plus) - plus);
  if (const size_t comma = v.find(", "); comma != std::string::npos)
    v = v.substr(comma + 2) + " (" + v.substr(0, comma) + ")";
  return v;
}

std::optional<LedgerReplay> replay_entry(const LedgerEntry& e, const std::string& strategy) {
  run::RunSpec spec = e.spec;
  auto parsed = run::RunStrategy::parse(strategy);
  if (!parsed) return std::nullopt;
  spec.strategy = std::move(*parsed);
  const auto r = run_spec(e.program, spec);  // spec.across_processes: the history it needs
  if (!r) return std::nullopt;
  LedgerReplay out{strategy, ledger_version(strategy), ""};
  if (out.version.empty()) return std::nullopt;
  if (r->agree)
    out.status = "agrees";
  else if (const std::string what = bug_what(*r); what == e.what)
    out.status = "reproduces";
  else
    out.status = "differs: " + what;
  return out;
}

namespace {
std::string version_of(const std::string& system_version) {  // "torch 2.15.0" -> "2.15.0"
  const size_t sp = system_version.find(' ');
  return sp == std::string::npos ? system_version : system_version.substr(sp + 1);
}
}  // namespace

std::vector<std::pair<std::string, std::string>> by_version(const std::map<std::string, std::string>& on) {
  std::vector<std::pair<std::string, std::string>> v(on.begin(), on.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    const size_t sa = a.first.find(' '), sb = b.first.find(' ');
    if (a.first.substr(0, sa) != b.first.substr(0, sb)) return a.first < b.first;  // by system, then version
    return compilers::version_less(version_of(a.first), version_of(b.first));
  });
  return v;
}

std::string first_bad_release(const std::map<std::string, std::string>& on) {
  // Wrong: reproduces, or another divergence; right: agrees; anything else
  // (not installed, not checked) says nothing about the release.
  auto wrong = [](const std::string& st) { return st == "reproduces" || st.rfind("differs", 0) == 0; };
  std::string last_right, first_wrong, right_again;
  for (const auto& [version, status] : by_version(on)) {
    if (first_wrong.empty()) {
      if (wrong(status))
        first_wrong = version;
      else if (status == "agrees")
        last_right = version;
    } else if (right_again.empty() && status == "agrees") {
      right_again = version;
    }
  }
  if (first_wrong.empty()) return "";
  std::string t = last_right.empty() ? "wrong on the oldest installed, " + first_wrong
                                     : "first wrong on " + first_wrong + " (right on " + last_right + ")";
  if (!right_again.empty()) t += "; right again on " + right_again;
  return t;
}

std::string with_on_lines(const std::string& text, const std::map<std::string, std::string>& on) {
  std::istringstream in(text);
  std::string out, line;
  bool header = true, placed = false;
  auto place = [&] {
    for (const auto& [v, st] : by_version(on)) out += "# on " + v + ": " + st + "\n";
    placed = true;
  };
  while (std::getline(in, line)) {
    if (header && line.rfind("#", 0) != 0) {
      header = false;
      if (!placed) place();
    }
    if (header && line.rfind("# on ", 0) == 0) continue;  // replaced
    out += line + "\n";
    if (header && line.rfind("# status: ", 0) == 0) place();
  }
  return out;
}

std::string with_header_line(const std::string& text, const std::string& key, const std::string& value) {
  std::istringstream in(text);
  std::string out, line;
  const std::string prefix = "# " + key + ": ";
  bool header = true, placed = false;
  while (std::getline(in, line)) {
    if (header && line.rfind("#", 0) != 0) {
      header = false;
      if (!placed) out += prefix + value + "\n";
      placed = true;
    }
    if (header && line.rfind(prefix, 0) == 0) {
      if (!placed) out += prefix + value + "\n";
      placed = true;
      continue;
    }
    out += line + "\n";
  }
  return out;
}

std::string ledger_label_refused(const LedgerEntry& e, const std::string& strategy) {
  const auto ext = compilers::external_strategy(strategy);
  if (!ext || !ext->versioned || ext->torch_version.empty() || e.on.empty()) return "";
  const std::string v = ledger_version(strategy);
  const auto it = e.on.find(v);
  if (it == e.on.end()) return "not checked on " + v + " (aliasfuzz ledger check)";
  return it->second == "reproduces" ? "" : it->second + " on " + v;
}

std::vector<std::string> label_strategies(const std::string& strategy) {
  std::vector<std::string> out = {strategy};
  if (const auto ext = compilers::external_strategy(strategy); ext && !ext->lower_stage.empty())
    out.push_back(ext->lower_stage);
  return out;
}

std::vector<std::string> modelled_systems(const std::string& strategy) {
  // update_aliases without fixes is Thunder 0.2.6's pass, which every Thunder front end runs.
  const auto s = run::parse_strategy(strategy);
  if (s && s->kind == run::StrategyKind::UpdateAliases && !s->fixes.any())
    return {"thunder", "thunder-dataflow", "thunderfx"};
  return {};
}

std::optional<LedgerPrediction> ledger_prediction(const std::vector<LedgerEntry>& entries, const BugSignature& bug,
                                                  const std::string& strategy) {
  for (const std::string& real : modelled_systems(strategy)) {
    BugSignature k = bug;
    k.who = real;
    for (const auto& e : entries)
      if (e.bug == k && e.status != "fixed") return LedgerPrediction{real, &e};
  }
  return std::nullopt;
}

const LedgerEntry* ledger_label(const std::vector<LedgerEntry>& entries, const BugSignature& bug,
                                const std::string& strategy, std::string* refused) {
  for (const std::string& s : label_strategies(strategy)) {
    // The signature under a lower stage: its strategy in place of the bug's.
    BugSignature k = bug;
    if (s != strategy) k.who = compilers::strategy_base(s);
    for (const auto& e : entries) {
      if (e.bug != k) continue;
      const std::string why = ledger_label_refused(e, s);
      if (why.empty()) return &e;
      if (refused && refused->empty()) *refused = e.name + " (same cause; the ledger says " + why + ")";
    }
  }
  return nullptr;
}

namespace {
// The file-name prefixes that name the system of a strategy.
const std::map<std::string, std::vector<std::string>>& system_prefixes() {
  static const auto* m = new std::map<std::string, std::vector<std::string>>{
      {"aot-eager", {"aot-autograd-", "aot-eager-", "dynamo-"}},
      {"inductor", {"inductor-", "aot-autograd-", "dynamo-"}},
      {"thunder", {"thunder-"}},
      {"thunder-dataflow", {"thunder-dataflow-"}},
      {"thunder-no-alias-updates", {"thunder-no-alias-updates-"}},
      {"thunderfx", {"thunderfx-"}},
      {"torch-func-functionalize", {"torch-func-functionalize-"}},
      {"torch-functionalize", {"functorch-functionalize-"}},
  };
  return *m;
}
}  // namespace

std::vector<std::string> lint_ledger_entry(const LedgerEntry& e) {
  std::vector<std::string> out;
  // status: exactly `new`, `known URL` or `fixed VERSION`.
  static const std::regex url("https?://[^ ]+"), version("[0-9][0-9A-Za-z.+]*");
  if (e.status == "new" && !e.reference.empty())
    out.push_back("status: `new` stands alone (`new " + e.reference +
                  "`): an upstream report makes it `known URL`, a "
                  "related one goes on a `# related:` line");
  if (e.status == "known" && !std::regex_match(e.reference, url))
    out.push_back("status: `known URL`, not `known " + e.reference + "`");
  if (e.status == "fixed" && !std::regex_match(e.reference, version))
    out.push_back("status: `fixed VERSION`, not `fixed " + e.reference + "`");
  // The `on` lines: it reproduces somewhere, and the newest version's
  // verdict is the status's (`fixed` exactly when the newest agrees).
  if (!e.on.empty()) {
    const std::string newest = by_version(e.on).back().first;
    bool anywhere = false;
    for (const auto& [v, st] : e.on) anywhere = anywhere || st == "reproduces";
    if (!anywhere)
      out.push_back("reproduces on no version replayed (" + on_summary(e.on) +
                    "): move it to corpus/findings/unconfirmed/ with the reason");
    const bool newest_agrees = e.on.at(newest) == "agrees";
    if (anywhere && newest_agrees && e.status != "fixed")
      out.push_back("the newest version replayed (" + newest + ") no longer shows it: status `fixed " +
                    newest.substr(newest.rfind(' ') + 1) + "`, not `" + e.status + "`");
    if (e.status == "fixed" && !newest_agrees)
      out.push_back("status fixed, but " + newest + " says `" + e.on.at(newest) + "`");
  }
  // system: names exactly the torch versions it reproduces on (of those replayed).
  const std::string sys_versions = e.system.substr(0, e.system.find('('));
  static const std::regex dotted("[0-9]+(\\.[0-9]+)+");
  if (sys_versions.rfind("torch ", 0) == 0)
    for (const auto& [v, st] : e.on) {
      if (v.rfind("torch ", 0) != 0) continue;
      const std::string ver = v.substr(6);
      bool named = false;
      for (std::sregex_iterator it(sys_versions.begin(), sys_versions.end(), dotted), end; it != end; ++it)
        named = named || ver == it->str() ||
                (ver.rfind(it->str(), 0) == 0 && !std::isdigit(static_cast<unsigned char>(ver[it->str().size()])));
      if (named != (st == "reproduces"))
        out.push_back("system: `" + e.system + "` " + (named ? "names" : "leaves out") + " " + v + ", where it " + st);
    }
  // The file name's prefix names the strategy's system.
  std::string base = e.spec.strategy.name();
  base = base.substr(0, base.find('@'));
  if (const auto it = system_prefixes().find(base); it != system_prefixes().end()) {
    bool ok = false;
    for (const std::string& prefix : it->second) ok = ok || e.name.rfind(prefix, 0) == 0;
    if (!ok) out.push_back("the file name does not start with " + it->second.front() + " (strategy " + base + ")");
  }
  return out;
}

std::string on_summary(const std::map<std::string, std::string>& on) {
  std::string out, last;
  for (const auto& [v, st] : by_version(on)) {
    // A version that agrees after one that showed the bug fixed it; before
    // any, it merely agrees (a regression: "agrees on torch 2.9.1;
    // reproduces on torch 2.15.0").
    const std::string word = st == "agrees"       ? (last.empty() ? "agrees on " : "fixed in <= ")
                             : st == "reproduces" ? "reproduces on "
                                                  : st + " on ";
    if (st == last) {
      if (st != "agrees" || out.rfind("agrees on ", 0) == 0)
        out += ", " + version_of(v);  // a fix is named by its first version
      continue;
    }
    out += (out.empty() ? "" : "; ") + word + v;
    last = st;
  }
  return out;
}

const std::vector<LedgerEntry>& default_ledger() {
  static const std::vector<LedgerEntry> entries = [] {
    const std::string dir = default_ledger_dir();
    return dir.empty() ? std::vector<LedgerEntry>{} : load_ledger(dir, nullptr);
  }();
  return entries;
}

std::string default_ledger_dir() {
  if (const char* dir = std::getenv("AF_LEDGER"); dir && *dir) return dir;
  const char* root = std::getenv("AF_ROOT");
  return root && *root ? std::string(root) + "/corpus/findings" : "";
}

}  // namespace af::fuzz
