#include "fuzz/ledger.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "fuzz/files.h"
#include "fuzz/invalid.h"
#include "fuzz/minimize.h"
#include "fuzz/signature.h"
#include "ir/analysis.h"
#include "ir/text.h"

namespace af::fuzz {

std::optional<LedgerEntry> parse_ledger_entry(const std::string& name, const std::string& text, std::string* error) {
  LedgerEntry e;
  e.name = name;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line) && line.rfind("#", 0) == 0;) {
    auto field = [&](const char* key, std::string* out) {
      const std::string k = std::string("# ") + key + ": ";
      if (line.rfind(k, 0) == 0) *out = line.substr(k.size());
    };
    field("aliasfuzz finding", &e.cause);
    field("system", &e.system);
    field("strategy", &e.spec.strategy);
    field("what", &e.what);
    field("status", &e.status);
  }
  if (e.cause.empty() || e.system.empty() || e.spec.strategy.empty() || e.what.empty() || e.status.empty()) {
    *error = name + ": the header needs `aliasfuzz finding`, `system`, `strategy`, `what` and `status` lines";
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
    if (!an && !(eager_raises(an.error().kind) && is_external(e.spec.strategy))) p = an.error();
    if (an && !accepted_invalid_kind(e.what).empty()) p = ir::Error{ir::ErrorKind::Syntax, 0, "what: " + e.what + " needs a program eager rejects"};
  }
  if (!p) {
    *error = name + ":" + std::to_string(p.error().line) + ": " + p.error().message;
    return std::nullopt;
  }
  e.program = *p;
  RunRecord r;
  r.spec = e.spec;
  r.accepted_invalid = accepted_invalid_kind(e.what);
  if (e.what == kInputMeta) r.mismatch = oracles::Mismatch{"inputs", 0, 0, 0, "an input's final geometry"};
  else if (r.accepted_invalid.empty() && e.what != "values") r.error = e.what;
  e.key = bug_signature(r, canonical_names(e.program)).key;
  return e;
}

std::vector<LedgerEntry> load_ledger(const std::string& dir, std::vector<std::string>* errors) {
  std::vector<LedgerEntry> out;
  std::error_code ec;
  for (const auto& f : std::filesystem::directory_iterator(dir, ec)) {
    if (f.path().extension() != ".af") continue;
    std::string text, err;
    if (!read_text(f.path().string(), &text)) continue;
    if (auto e = parse_ledger_entry(f.path().stem().string(), text, &err)) out.push_back(std::move(*e));
    else if (errors) errors->push_back(err);
  }
  std::sort(out.begin(), out.end(), [](const LedgerEntry& a, const LedgerEntry& b) { return a.name < b.name; });
  return out;
}

std::string default_ledger_dir() {
  if (const char* dir = std::getenv("AF_LEDGER"); dir && *dir) return dir;
  const char* root = std::getenv("AF_ROOT");
  return root && *root ? std::string(root) + "/corpus/findings" : "";
}

}  // namespace af::fuzz
