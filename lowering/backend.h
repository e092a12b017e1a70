// Internal: the only interface to the Halide code (halide_backend.cc, the one
// file of the project that includes Halide.h).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lowering/lowering.h"
#include "lowering/spec.h"

namespace af::lowering::detail {

// The program's status in checked mode: where the first failing region
// (in execution order) failed, and how many elements failed in all.
struct Status {
  int stmt = -1, count = 0, first_index = -1, region = -1;
};

// What reached the OpenCL driver (counted by the wrappers opencl_symbol()
// hands to Halide's runtime): buffer writes and reads (maps count as reads),
// kernel launches, and the most work-groups along one dimension of a launch
// since reset_opencl_max_groups().
struct DriverCounts {
  int64_t writes = 0, reads = 0, launches = 0, max_groups = 0;
};
DriverCounts opencl_counts();
void reset_opencl_max_groups();
void* opencl_symbol(void* lib, const char* name);
// Loads the OpenCL driver so that it can share the process with libHalide
// (once per process); false and *why when there is none.
bool opencl_load(std::string* why);

// One run of a schedule: compiles (through the cache) and realizes region
// pipelines against the program's storages, which stay where the target
// computes (on the device for cuda and opencl) from their first use to
// finish(): each is uploaded at most once, and only the observed ones come
// back. In checked mode the expected values go up once and one status
// buffer stays on the device, read once by finish().
class Session {
 public:
  // max_numel: the most elements of any storage or tensor of the program
  // (sizes the fold of GPU grids).
  Session(CompileCache& cache, Target target, bool alias_mutant, int64_t max_numel, LowerStats& stats);
  ~Session();
  // The expected values of every checked statement, concatenated (checked
  // mode; the checks' base parameters index into it).
  void set_expected(std::vector<float> values);
  // Runs one region; `mem` holds the initial values of storages not yet
  // used. Returns "" or an error message.
  std::string run(int region, const RegionSpec& spec, const oracles::Memory& mem);
  // Compiles the region for CUDA and assembles its PTX; "" or an error
  // (a Halide failure); *finding is set when ptxas rejects the PTX.
  std::string ptx(const RegionSpec& spec, const LowerOptions& o, std::string* finding);
  // Brings the observed storages back into mem and reads the status (once,
  // after the last region). "" or an error message.
  std::string finish(oracles::Memory& mem, const std::vector<bool>& observed, Status* status);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace af::lowering::detail
