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

#define REQUIRE_THUNDER()                                                             \
  do {                                                                                \
    if (!::af::compilers::have_thunder()) {                                           \
      std::printf("skipped: thunder not installed (./aliasfuzz setup --thunder)\n");  \
      GTEST_SKIP() << "skipped: thunder not installed (./aliasfuzz setup --thunder)"; \
    }                                                                                 \
  } while (0)

#define REQUIRE_DEBIAN_TORCH()                                            \
  do {                                                                    \
    if (!::af::compilers::have_debian_torch()) {                          \
      std::printf("skipped: /usr/bin/python3 has no torch/functorch\n");  \
      GTEST_SKIP() << "skipped: /usr/bin/python3 has no torch/functorch"; \
    }                                                                     \
  } while (0)
