// Internal: the only interface to the Halide code (halide_backend.cc, the one
// file of the project that includes Halide.h).
#pragma once
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "lowering/lowering.h"
#include "lowering/spec.h"

namespace af::lowering::detail {

struct RegionStatus {
  int region = -1;
  std::array<int, 3> status{};  // min failing stmt (INT_MAX if none), count, first flat index
};

// One run of a schedule against memory: compiles (through the cache) and
// realizes region pipelines, keeps the status buffers until finish().
class Session {
 public:
  Session(CompileCache& cache, Target target, bool alias_mutant);
  ~Session();
  // Runs one region against mem (storages by id, committed on return).
  // Returns "" or an error message.
  std::string run(int region, const RegionSpec& spec, oracles::Memory& mem, const std::vector<float>* expected,
                  LowerStats& stats);
  // Compiles the region for CUDA and assembles its PTX; "" or an error
  // (a Halide failure); *finding is set when ptxas rejects the PTX.
  std::string ptx(const RegionSpec& spec, const LowerOptions& o, LowerStats& stats, std::string* finding);
  // Reads every status buffer (once, after the last region).
  std::vector<RegionStatus> finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace af::lowering::detail
