// The Halide lowering as the code-generating target of check/check.h:
// register it once in main(); campaigns (their forked workers inherit it),
// the minimizer, `run` and `compare` then accept --target
// host|opencl|cuda|ptx (lowering::target_names()).
#pragma once
#include <optional>
#include <string>

#include "lowering/lowering.h"
#include "run/vocabulary.h"

namespace af::tools {

void register_lowering_target();
// A command's --target NAME when known and usable on this machine (the
// interpreter, or a lowering target whose device is here); else nullopt
// and *why says which. One check for every command that takes --target.
std::optional<run::Target> usable_target(const std::string& name, std::string* why);
// The process's compile cache (hit rate and compile time are reported).
lowering::CompileCache& compile_cache();

}  // namespace af::tools
