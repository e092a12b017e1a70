// The Halide lowering as the code-generating target of check/check.h:
// register it once in main(); campaigns (their forked workers inherit it),
// the minimizer, `run` and `compare` then accept --target
// host|opencl|cuda|ptx (lowering::target_names()).
#pragma once
#include "lowering/lowering.h"

namespace af::tools {

void register_lowering_target();
// The process's compile cache (hit rate and compile time are reported).
lowering::CompileCache& compile_cache();

}  // namespace af::tools
