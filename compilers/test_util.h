// What a test of the systems under test needs of this machine: Thunder's
// venv (AF_THUNDER_PYTHON, ./aliasfuzz setup --thunder) or Debian's torch
// under /usr/bin/python3. A test without it says "skipped: ..." and is
// counted as skipped, never as passed.
#pragma once
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "compilers/table.h"

namespace af::compilers {

inline bool have_thunder() {
  const char* e = std::getenv("AF_THUNDER_PYTHON");
  return e && *e && !find_thunder_python().empty();
}

// torch with functorch (torch.func's functionalize) under /usr/bin/python3.
inline bool have_debian_torch() {
  static const bool have = std::system("/usr/bin/python3 -c 'import functorch' >/dev/null 2>&1") == 0;
  return have;
}

}  // namespace af::compilers

// Skips the test, saying why on stdout too (the suite's summary counts it).
#define AF_SKIP_UNLESS(have, why)           \
  do {                                      \
    if (!(have)) {                          \
      std::printf("skipped: %s\n", why);    \
      GTEST_SKIP() << "skipped: " << (why); \
    }                                       \
  } while (0)
#define REQUIRE_THUNDER() \
  AF_SKIP_UNLESS(::af::compilers::have_thunder(), "thunder not installed (./aliasfuzz setup --thunder)")
#define REQUIRE_DEBIAN_TORCH() \
  AF_SKIP_UNLESS(::af::compilers::have_debian_torch(), "/usr/bin/python3 has no torch/functorch")
