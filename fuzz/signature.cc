#include "fuzz/signature.h"

#include <cctype>
#include <cstdio>
#include <sstream>
#include <vector>

#include "ir/hash.h"
#include "ir/text.h"

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
    } else if ((std::isdigit(static_cast<unsigned char>(c)) || ((c == '-' || c == '.') && i + 1 < line.size() &&
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

}  // namespace

std::string skeleton(const ir::Program& p) {
  std::istringstream in(ir::print(p));
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

BugSignature bug_signature(const RunRecord& rec, const ir::Program& minimized) {
  const RunSpec& s = rec.spec;
  std::string who = s.strategy.empty() ? strategy_for_mutant(s.inject) : s.strategy;
  if (!s.inject.empty()) who += "+" + s.inject;
  const std::string what = rec.error.empty() ? "values" : error_type(rec.error);
  const std::string sk = skeleton(minimized);
  BugSignature b;
  b.key = who + "|" + what + "|" + sk;
  // The ops of the minimized program, in order, for the name.
  std::vector<std::string> ops;
  for (const auto& st : minimized.stmts) {
    const std::string op = ir::op_name(st.op);
    if (ops.size() < 4 && (ops.empty() || ops.back() != op)) ops.push_back(op);
  }
  std::string opnames;
  for (const auto& op : ops) opnames += (opnames.empty() ? "" : "-") + op;
  char hash[20];
  std::snprintf(hash, sizeof hash, "%08llx", static_cast<unsigned long long>(ir::fnv1a(b.key) & 0xffffffffULL));
  b.name = who + "__" + what + "__" + (opnames.empty() ? "no-ops" : opnames) + "__" + hash;
  for (char& c : b.name)
    if (!(ident_char(c) || c == '-' || c == '+' || c == '.')) c = '_';
  return b;
}

}  // namespace af::fuzz
