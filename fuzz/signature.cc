#include "fuzz/bucket.h"
#include "fuzz/signature.h"

#include <cctype>
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <set>
#include <vector>

#include "fuzz/features.h"
#include "fuzz/minimize.h"
#include "ir/analysis.h"
#include "ir/hash.h"
#include "ir/text.h"
#include "compilers/table.h"

namespace af::fuzz {

namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A statement or input line with its numbers and lists abstracted: names
// (s0, x1, t2: canonical) stay, every numeric literal becomes '#', every
// [...] list becomes [#].
std::string abstract_line(const std::string& line) {
  std::string out;
  for (size_t i = 0; i < line.size();) {
    const char c = line[i];
    if (c == '[') {
      const size_t close = line.find(']', i);
      out += "[#]";
      i = close == std::string::npos ? line.size() : close + 1;
    } else if ((std::isdigit(static_cast<unsigned char>(c)) ||
                ((c == '-' || c == '.') && i + 1 < line.size() &&
                 std::isdigit(static_cast<unsigned char>(line[i + 1])))) &&
               (out.empty() || !ident_char(out.back()))) {
      // A number (with sign, fraction, exponent; also nan/inf spelled as words stay words).
      ++i;
      while (i < line.size() && (ident_char(line[i]) || line[i] == '.' ||
                                 ((line[i] == '-' || line[i] == '+') && (line[i - 1] == 'e' || line[i - 1] == 'E'))))
        ++i;
      out += '#';
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

// The program with its inputs in order of first use (statements, then
// returns, then the unused ones) and its storages in order of first input:
// findings that differ only in which of two aliased inputs the generator
// declared first (`add_(x1); return x0` vs `add_(x0); return x1`) have one
// skeleton. Only the key sees this order; the program runs as found.
ir::Program in_use_order(const ir::Program& p) {
  const int n = static_cast<int>(p.inputs.size());
  std::vector<int> order;
  std::vector<bool> placed(n, false);
  auto place = [&](int v) {
    if (v >= 0 && v < n && !placed[v]) placed[v] = true, order.push_back(v);
  };
  for (const auto& st : p.stmts) ir::for_each_tensor_arg(st, place);
  for (int r : p.returns) place(r);
  for (int v = 0; v < n; ++v) place(v);
  std::vector<int> new_of(n);
  for (int k = 0; k < n; ++k) new_of[order[k]] = k;
  std::vector<int> storage_order, new_storage(p.storages.size(), -1);
  for (int v : order)
    if (int s = p.inputs[v].storage; new_storage[s] < 0)
      new_storage[s] = static_cast<int>(storage_order.size()), storage_order.push_back(s);
  for (size_t s = 0; s < p.storages.size(); ++s)
    if (new_storage[s] < 0)
      new_storage[s] = static_cast<int>(storage_order.size()), storage_order.push_back(static_cast<int>(s));
  ir::Program q = p;
  for (size_t s = 0; s < storage_order.size(); ++s) q.storages[s] = p.storages[storage_order[s]];
  for (int k = 0; k < n; ++k) {
    q.inputs[k] = p.inputs[order[k]];
    q.inputs[k].storage = new_storage[q.inputs[k].storage];
    q.value_names[k] = p.value_names[order[k]];
  }
  auto remap = [&](auto& v) {
    if (v >= 0 && v < n) v = new_of[v];
  };
  for (auto& st : q.stmts) ir::for_each_tensor_arg(st.args, remap);
  for (int& r : q.returns) remap(r);
  return q;
}

// Canonical names, except that the pieces of a multi-output view are
// mJ_R, R their order of first use ("_" unused): which piece of how many
// a bug went through is a size, not structure; whether two statements use
// the same piece or two siblings stays.
ir::Program skeleton_names(const ir::Program& p) {
  ir::Program q = canonical_names(in_use_order(p));
  int t = 0, m = 0;
  for (size_t i = 0; i < q.stmts.size(); ++i) {
    const auto& outs = q.stmts[i].outs;
    if (outs.size() == 1) {
      q.value_names[outs[0]] = "t" + std::to_string(t++);
      continue;
    }
    std::vector<int> rank(q.num_values(), -1);
    int used = 0;
    auto use = [&](int64_t v) {
      if (std::find(outs.begin(), outs.end(), v) != outs.end() && rank[v] < 0) rank[v] = used++;
    };
    for (size_t j = i + 1; j < q.stmts.size(); ++j) ir::for_each_tensor_arg(q.stmts[j], use);
    for (int r : q.returns) use(r);
    for (int o : outs) q.value_names[o] = "m" + std::to_string(m) + "_" + (rank[o] < 0 ? "_" : std::to_string(rank[o]));
    ++m;
  }
  return q;
}

}  // namespace

std::string skeleton(const ir::Program& p) {
  std::istringstream in(ir::print(skeleton_names(p)));
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("aliasfuzz ", 0) == 0 || line.rfind("return", 0) == 0) continue;
    if (line.rfind("storage ", 0) == 0) {  // "storage s0 f32[6] = random(3)" -> "storage s0"
      const size_t sp = line.find(' ', 8);
      out += line.substr(0, sp) + "\n";
      continue;
    }
    // An input over its whole storage is one more as_strided (sizes abstracted).
    const size_t eq = line.find(" = ");
    if (line.rfind("input ", 0) == 0 && eq != std::string::npos && line.find('(', eq) == std::string::npos)
      line = line.substr(0, eq) + " = as_strided(" + line.substr(eq + 3) + ", [#], [#], #)";
    // "m0_1, m0__, m0_0 = chunk(...)" -> "m0_* = chunk(...)": not how many pieces.
    if (eq != std::string::npos && line.size() > 1 && line[0] == 'm' &&
        std::isdigit(static_cast<unsigned char>(line[1])) && line.find(',') < eq)
      line = line.substr(0, line.find('_')) + "_*" + line.substr(eq);
    out += abstract_line(line) + "\n";
  }
  return out;
}

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
