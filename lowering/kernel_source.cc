#include "lowering/kernel_source.h"

#include <cstring>
#include <string>
#include <unordered_map>

namespace af::lowering {

namespace {

bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// "_123" -> "", "_t45" -> "t": the counter-named families; else null.
const char* family(const std::string& tok) {
  if (tok.size() < 2 || tok[0] != '_') return nullptr;
  const size_t digits = tok[1] == 't' ? 2 : 1;
  if (tok.size() <= digits) return nullptr;
  for (size_t i = digits; i < tok.size(); ++i)
    if (tok[i] < '0' || tok[i] > '9') return nullptr;
  return digits == 2 ? "t" : "";
}

}  // namespace

bool canonicalize_opencl_source(char* text, size_t n) {
  std::string out;
  out.reserve(n);
  // Per kernel: old name -> new name; a bijection within each family, so no
  // renamed name can capture another.
  std::unordered_map<std::string, std::string> names;
  int next[2] = {0, 0};
  bool in_kernel = false;
  size_t i = 0;
  while (i < n) {
    if (!ident_char(text[i]) || (i > 0 && ident_char(text[i - 1]))) {
      out.push_back(text[i++]);
      continue;
    }
    size_t j = i;
    while (j < n && ident_char(text[j])) ++j;
    const std::string tok(text + i, j - i);
    i = j;
    if (tok == "__kernel") {
      in_kernel = true;
      names.clear();
      next[0] = next[1] = 0;
    } else if (const char* fam = family(tok)) {
      if (!in_kernel) return false;
      auto [it, fresh] = names.try_emplace(tok);
      if (fresh) it->second = "_" + std::string(fam) + std::to_string(next[*fam == 't']++);
      out += it->second;
      continue;
    }
    out += tok;
  }
  // Renumbered names are shorter once Halide's counters pass a kernel's
  // name count (every compile but a process's first few); when the text
  // would grow, it stays as it was.
  if (out.size() > n) return false;
  out.append(n - out.size(), ' ');
  std::memcpy(text, out.data(), n);
  return true;
}

}  // namespace af::lowering
