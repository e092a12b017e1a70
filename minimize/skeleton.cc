// The skeleton of a program (minimize/skeleton.h).
#include "minimize/skeleton.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string>
#include <vector>

#include "ir/text.h"
#include "minimize/minimize.h"

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

}  // namespace af::fuzz
