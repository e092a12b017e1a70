// Canonical OpenCL C in AOT kernels (issue #13: kit size). Halide names a
// kernel's locals and scalar arguments from process-wide counters (`_7851`,
// `_t37416`), so one region structure compiled in two processes, or two
// structures that share a kernel, embed sources that differ in every line:
// a kit's solid xz stream finds no repeats across kernels, and pocl's
// kernel cache (keyed by source) misses. Those names are private to each
// kernel (arguments are passed by position; the host names only kernels),
// so each kernel's `_N` and `_tN` names are renumbered from 0 in order of
// appearance. The text gets shorter; it is padded with trailing spaces to
// its length, since the host code embeds the source with its size.
// Halide-free (kit_pack_test tests it without Halide).
#pragma once
#include <cstddef>

namespace af::lowering {

// Rewrites `text[0, n)` in place; false (text untouched) when it is not a
// source this rule is known to be safe for: such a name outside a kernel.
bool canonicalize_opencl_source(char* text, size_t n);

}  // namespace af::lowering
