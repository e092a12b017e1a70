// repro.py's fixed Python parts, kept as Python files (triage/repro_caches.py,
// triage/repro_main.py) and embedded at build time (triage/BUILD: repro_py_cc).
#pragma once

namespace af::fuzz {

// The cache set-up that runs before torch is imported: a fresh Inductor
// cache folder with its caches off, or AF_RUNNER_CACHE_DIR with them on.
extern const char kReproCaches[];
// The checking code after the finding's data (FINDING, EXPECTED, COMPILER,
// ...): runs eager and the compiler, compares, prints the verdict.
extern const char kReproMain[];

}  // namespace af::fuzz
