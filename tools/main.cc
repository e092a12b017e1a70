// The aliasfuzz program: one binary, many subcommands (tools/cli.cc).
#include <unistd.h>

#include <cstdlib>

#include "tools/commands.h"

namespace {

// Most of an interpreter-tier program's time is small allocations (a
// profile of bench/sched_bench: malloc and free ~50% of instructions), and
// glibc's per-thread cache holds only 7 chunks of each size, so a program's
// burst of frees spills into the slower bins. A bigger cache gives ~1.3x
// programs/s. glibc reads its tunables only at start-up, so the binary
// re-executes itself once with them set (a user's own GLIBC_TUNABLES win).
// A replacement malloc (mimalloc: ~1.5x) would clash with pocl, which the
// OpenCL target loads with RTLD_DEEPBIND and which would then free memory
// with the other allocator.
void tune_malloc(char** argv) {
  if (std::getenv("GLIBC_TUNABLES") || std::getenv("AF_NO_MALLOC_TUNING")) return;
  setenv("GLIBC_TUNABLES", "glibc.malloc.tcache_count=2000", 1);
  execv("/proc/self/exe", argv);
  unsetenv("GLIBC_TUNABLES");  // exec failed: run as is
}

}  // namespace

int main(int argc, char** argv) {
  tune_malloc(argv);
  return af::tools::cli_main(argc, argv);
}
