#include "ir/error.h"

#include <cstdio>
#include <cstdlib>
#include <iterator>

namespace af::ir {

namespace {
constexpr const char* kNames[] = {"syntax",    "name",  "arg",    "shape", "view",    "overlap",
                                  "undefined", "limit", "resize", "dtype", "version", "retired"};
}

const char* kind_name(ErrorKind k) { return kNames[static_cast<int>(k)]; }

std::string Error::to_string() const {
  return "line " + std::to_string(line) + ": " + kind_name(kind) + ": " + message;
}

void internal_error(const std::string& what) {
  std::fprintf(stderr, "aliasfuzz internal error: %s\n", what.c_str());
  std::abort();
}

}  // namespace af::ir
