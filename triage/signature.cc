#include "check/bucket.h"
#include "triage/signature.h"

#include <cctype>
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <set>
#include <vector>

#include "generate/features.h"
#include "minimize/minimize.h"
#include "ir/analysis.h"
#include "ir/hash.h"
#include "ir/text.h"
#include "compilers/table.h"
#include "minimize/skeleton.h"
#include "triage/minimize_finding.h"

namespace af::fuzz {

namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

std::string error_type(const std::string& error) {
  // A crash of the compiler's process is its own kind (its stderr tail may
  // name exceptions that are not what happened).
  if (std::string runner = runner_failure_kind(error); !runner.empty()) return runner;
  // The first word ending in "Error" (Python exceptions, Thunder's raises);
  // else a limit, else "error".
  for (size_t i = 0; i < error.size(); ++i) {
    if (i > 0 && ident_char(error[i - 1])) continue;
    size_t j = i;
    while (j < error.size() && ident_char(error[j])) ++j;
    const std::string w = error.substr(i, j - i);
    if (w.size() > 5 && w.compare(w.size() - 5, 5, "Error") == 0) return w;
    if (j > i) i = j - 1;
  }
  if (error.find("limit") != std::string::npos) return "limit";
  return "error";
}

std::string bug_what(const RunRecord& rec) {
  if (!rec.accepted_invalid.empty()) return accepts_invalid_what(rec.accepted_invalid);
  const std::string recall = rec.stale_from_cache ? kStaleFromCachePrefix : rec.recall ? kRecallPrefix : "";
  if (!rec.error.empty()) return recall + error_type(rec.error);
  // Values agree but an input's final geometry differs: a metadata bug.
  return recall + (rec.mismatch && oracles::is_input_geometry(rec.mismatch->observable) ? kInputMeta : "values");
}

namespace {

// The cause without its mode word (below).
std::string forward_cause(const ir::Program& minimized, const std::string& schedule_sensitivity) {
  auto an = ir::analyze(minimized);
  std::string cause;
  if (an)
    for (const auto& r : alias_relations(minimized, *an)) cause += (cause.empty() ? "" : ",") + r;
  if (!cause.empty()) return cause;
  // No alias relation, but a fusion policy that does not show the bug: a
  // defect of scheduling, whichever op (clamp_, index_copy_, ...) the
  // program reached it through.
  if (!schedule_sensitivity.empty()) return schedule_sensitivity;
  // Else the ops are the cause (a wrong kernel for exp_ is not a wrong
  // kernel for tanh_).
  std::set<std::string> ops;
  for (const auto& st : minimized.stmts) ops.insert(std::string("op:") + ir::op_name(st.op));
  for (const auto& op : ops) cause += (cause.empty() ? "" : ",") + op;
  return cause.empty() ? "no-ops" : cause;
}

}  // namespace

std::string bug_cause(const ir::Program& minimized, const std::string& schedule_sensitivity) {
  // A bug program that kept requires_grad or backward needs training (the
  // minimizer drops them otherwise): a wrong gradient is not the forward
  // defect of the same ops or alias relations. Without this word thunderfx's
  // lost gradient through x.add_(w) and a forward write-order bug of add_
  // shared "values|op:add_", and the known one hid the new one.
  const std::string cause = forward_cause(minimized, schedule_sensitivity);
  return ir::is_training(minimized) ? cause + ",mode:training" : cause;
}

std::string BugSignature::key() const { return who + "|" + what + "|" + cause; }

std::optional<BugSignature> BugSignature::parse(const std::string& key) {
  // From the right: neither the cause nor what holds a '|'.
  const size_t c = key.rfind('|');
  if (c == std::string::npos || c == 0) return std::nullopt;
  const size_t w = key.rfind('|', c - 1);
  if (w == std::string::npos) return std::nullopt;
  BugSignature b;
  b.who = key.substr(0, w);
  b.what = key.substr(w + 1, c - w - 1);
  b.cause = key.substr(c + 1);
  return b;
}

std::vector<std::string> BugSignature::cause_words() const {
  std::vector<std::string> out;
  for (size_t i = 0; i <= cause.size();) {
    const size_t j = std::min(cause.find(',', i), cause.size());
    if (j > i) out.push_back(cause.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

std::set<std::string> BugSignature::alias_roots() const {
  std::set<std::string> r;
  for (const std::string& w : cause_words())
    if (w.rfind("alias:", 0) == 0 || w.rfind("meta:", 0) == 0) r.insert(w.substr(0, w.find('/')));
  return r;
}

bool BugSignature::resembles(const BugSignature& o) const {
  if (who != o.who || what != o.what) return false;
  const auto mine = alias_roots(), theirs = o.alias_roots();
  for (const auto& x : mine)
    if (theirs.count(x)) return true;
  return false;
}

RunRecord record_of_what(const run::RunSpec& spec, const std::string& what_word) {
  RunRecord r;
  r.spec = spec;
  std::string what = what_word;
  if (what.rfind(kRecallPrefix, 0) == 0) {
    r.recall = true;
    what.erase(0, std::string(kRecallPrefix).size());
  } else if (what.rfind(kStaleFromCachePrefix, 0) == 0) {
    r.stale_from_cache = true;
    what.erase(0, std::string(kStaleFromCachePrefix).size());
  }
  r.accepted_invalid = accepted_invalid_kind(what);
  if (what == kInputMeta)
    r.mismatch = oracles::Mismatch{"inputs", 0, 0, 0, "an input's final geometry"};
  else if (r.accepted_invalid.empty() && what != "values")
    r.error = what;
  return r;
}

BugSignature bug_signature(const RunRecord& rec, const ir::Program& minimized,
                           const std::string& schedule_sensitivity) {
  const run::RunSpec& s = rec.spec;
  const std::string mutant = s.mutant == run::Mutant::None ? "" : "+" + s.mutant_name();
  BugSignature b;
  // The key leaves the torch version out (one bug on 2.9.1 and 2.15.0 is
  // one bug, and the ledger's key); the name keeps it.
  b.who = compilers::strategy_base(s.strategy_name()) + mutant;
  // A wrong result is one bug whichever observable shows it: values, or
  // an input's final geometry (bug_what's input-meta, which the bucket and
  // the ledger's what: line keep as the face). One defect shows as either
  // by the initial values the minimizer left: functionalize's as_strided_
  // on an input moves its offset, and over full(0.0) that is all a run
  // sees, over iota the data moves too.
  b.what = bug_what(rec);
  if (b.what == kInputMeta) b.what = "values";
  if (b.what == std::string(kRecallPrefix) + kInputMeta) b.what = std::string(kRecallPrefix) + "values";
  b.cause = bug_cause(minimized, schedule_sensitivity);
  // The name says the cause: "write:input~shared/unfold:holes" reads as
  // input~shared-unfold-holes, "op:exp_,op:sum" as exp_-sum.
  std::string cause = b.cause;
  for (const char* word : {"alias:", "meta:", "op:", "agrees-under:", "mode:"})
    for (size_t at; (at = cause.find(word)) != std::string::npos;) cause.erase(at, std::string(word).size());
  if (cause.size() > 60) cause.resize(60);
  char hash[20];
  std::snprintf(hash, sizeof hash, "%08llx", static_cast<unsigned long long>(ir::fnv1a(b.key()) & 0xffffffffULL));
  b.name = s.strategy_name() + mutant + "__" + b.what + "__" + cause + "__" + hash;
  for (char& c : b.name)
    if (!(ident_char(c) || c == '-' || c == '+' || c == '.' || c == '~' || c == '@')) c = '-';
  return b;
}

BugSignature finding_bug(const MinimizedFinding& m) {
  return bug_signature(m.bug_record, m.bug_program, m.schedule_sensitivity);
}

}  // namespace af::fuzz
