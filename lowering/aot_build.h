// Building AOT kernels into a KernelStore (lowering/aot_cache.cc): the
// persistent cache on a miss, and `aliasfuzz kit` for every region of a
// kit's schedules. Both need Halide (they link //lowering).
#pragma once
#include <string>

#include "lowering/aot.h"
#include "lowering/kernel_cache.h"
#include "lowering/spec.h"

namespace af::lowering {

// Halide's runtime for target_string as a store entry (built once); its
// path, or "" and *why.
std::string runtime_entry(KernelStore& store, const std::string& target_string, std::string* why);
// The kernel of one region as a verified store entry: found, or compiled,
// linked and stored (*compiled, *compile_ms: Halide CPU ms + link wall ms).
// When a corrupt entry was replaced, *why says what was wrong with it.
// "" and *why on failure.
std::string kernel_entry(KernelStore& store, const detail::RegionSpec& spec, Target t, const std::string& target_string,
                         bool* compiled, double* compile_ms, std::string* why);

}  // namespace af::lowering
