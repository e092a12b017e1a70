// libFuzzer target: text bytes -> parse -> print -> parse -> compare.
// Any bytes must give a program or an error with a kind and a line; a
// program must print canonically and read back as itself.
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>

#include "ir/analysis.h"
#include "ir/text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto p = af::ir::parse(text);
  if (!p) {
    if (p.error().line < 1 || p.error().message.empty()) std::abort();
    return 0;
  }
  (void)af::ir::analyze(*p);  // validation must not crash either
  const std::string once = af::ir::print(*p);
  auto q = af::ir::parse(once);
  if (!q) {
    std::fprintf(stderr, "printed program does not parse: %s\n%s", q.error().to_string().c_str(), once.c_str());
    std::abort();
  }
  if (!(*p == *q) || af::ir::print(*q) != once) {
    std::fprintf(stderr, "round trip changed the program:\n%s", once.c_str());
    std::abort();
  }
  return 0;
}
