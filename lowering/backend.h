// Internal: the only interface to the Halide code (halide_backend.cc, the one
// file of the project that includes Halide.h).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lowering/lower_types.h"
#include "lowering/spec.h"
#include "schedulers/schedule.h"

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

// The grid fold for tensors of at most max_numel elements: blocks of 32,
// at most 65,535 rows of `fold` blocks (GPU schedules).
int grid_fold(int64_t max_numel);

// One run of a schedule on one target, region by region (run_with in
// lowering.cc drives it): the JIT Session below, or the AOT executor of
// lowering/aot.h (persistent kernel cache, kits).
class Executor {
 public:
  virtual ~Executor() = default;
  // The expected values of every checked statement, concatenated (checked
  // mode; the checks' base parameters index into it).
  virtual void set_expected(std::vector<float> values) = 0;
  // Runs one region; `mem` holds the initial values of storages not yet
  // used. Returns "" or an error message.
  virtual std::string run(int region, const RegionSpec& spec, const oracles::Memory& mem) = 0;
  // Target ptx: compiles the region for CUDA and assembles its PTX.
  virtual std::string ptx(const RegionSpec&, const LowerOptions&, std::string*) { return "ptx: JIT only"; }
  // Brings the observed storages back into mem and reads the status (once,
  // after the last region). "" or an error message.
  virtual std::string finish(oracles::Memory& mem, const std::vector<bool>& observed, Status* status) = 0;
};
using ExecutorFactory =
    std::function<std::unique_ptr<Executor>(Target exec, bool alias_mutant, int64_t max_numel, LowerStats& stats)>;
// run_schedule with the executor `make` builds (no target availability check).
LowerResult run_with(const schedulers::Schedule& schedule, const LowerOptions& options, const Expected* expected,
                     const ExecutorFactory& make);

// AOT compilation (halide_backend.cc): Halide's version; the target string
// of a lowering target (`portable`: a baseline x86-64 host part, for kits
// that run on other machines); one region's pipeline as an object file
// (function "region", arguments in the order of lowering/aot.h); Halide's
// runtime for a target string as an object file. "" or an error.
std::string halide_version();
// Where this process's AOT compiles spent their time (bench/kcache_bench):
// Halide lowering to a module, LLVM code generation to an object, ld.
struct AotTimes {
  double lower_ms = 0, llvm_ms = 0, link_ms = 0;
  int64_t compiles = 0;
};
AotTimes& aot_times();
std::string aot_target_string(Target t, bool portable);
std::string aot_compile_object(const RegionSpec& spec, Target t, const std::string& target_string,
                               const std::string& object_path);
std::string aot_compile_runtime(const std::string& target_string, const std::string& object_path);
// Counts one AOT kernel lookup in the cache's statistics: an in-process
// hit, or a miss answered by the disk store or `compiled` (compile_ms).
void note_lookup(CompileCache& cache, LowerStats& stats, bool hit, bool compiled, double compile_ms);
struct AotKernels;
AotKernels& aot_kernels(CompileCache& cache);

// One run of a schedule: compiles (through the cache) and realizes region
// pipelines against the program's storages, which stay where the target
// computes (on the device for cuda and opencl) from their first use to
// finish(): each is uploaded at most once, and only the observed ones come
// back. In checked mode the expected values go up once and one status
// buffer stays on the device, read once by finish().
class Session : public Executor {
 public:
  // max_numel: the most elements of any storage or tensor of the program
  // (sizes the fold of GPU grids).
  Session(CompileCache& cache, Target target, bool alias_mutant, int64_t max_numel, LowerStats& stats);
  ~Session() override;
  void set_expected(std::vector<float> values) override;
  std::string run(int region, const RegionSpec& spec, const oracles::Memory& mem) override;
  // "" or an error (a Halide failure); *finding is set when ptxas rejects the PTX.
  std::string ptx(const RegionSpec& spec, const LowerOptions& o, std::string* finding) override;
  std::string finish(oracles::Memory& mem, const std::vector<bool>& observed, Status* status) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace af::lowering::detail
