// Running AOT-compiled region pipelines (issue #13): what the persistent
// kernel cache loads in aliasfuzz (target host) and what a kit's runner
// loads on a machine with no Halide and no LLVM. Halide-free: only the
// runtime's C header and the header-only Runtime::Buffer.
//
// A kernel is a shared object exporting `region_argv(void** args)`, compiled
// by aot_compile_object (backend.h) with the shared runtime left out
// (Target::NoRuntime). Its arguments, in this order (halide_backend.cc
// passes the same list to compile_to_module):
//   in0..in{n-1}   input storages (halide_buffer_t*), spec.input_storages order
//   i0..i{m-1}     int32 parameters (spec.iparams), then f0.. float (spec.fparams)
//   fold           int32 grid fold (GPU schedules)
//   expected, status_in, region    checked regions only
//   outputs        one buffer per spec.output_nodes, then the status (checked)
// Halide's runtime for the target (one shared object per target string) is
// loaded first with RTLD_GLOBAL, so every kernel binds to that one runtime:
// one OpenCL context / CUDA context per process, as in the JIT.
#pragma once
#include <memory>
#include <string>
#include <unordered_map>

#include "lowering/backend.h"
#include "lowering/kernel_cache.h"

struct halide_device_interface_t;

namespace af::lowering {

struct AotKernel {
  void* handle = nullptr;
  int (*fn)(void**) = nullptr;
  uint64_t last_use = 0;  // in-process LRU
};

// Halide's runtime loaded from `so_path` (once per path per process).
class AotRuntime {
 public:
  static AotRuntime* load(const std::string& so_path, Target t, std::string* why);
  Target target() const { return target_; }
  // The device interface of GPU targets (null on host).
  const halide_device_interface_t* device() const { return device_; }
  // What the runtime last reported through halide_error on this thread ("" none); clears it.
  static std::string take_error();

 private:
  Target target_ = Target::Host;
  const halide_device_interface_t* device_ = nullptr;
};

// dlopens a kernel (after its runtime); false and *why when it cannot.
bool load_kernel(const std::string& so_path, AotKernel* k, std::string* why);

// A region's kernel, or null and *why ("missing kernel ...").
using KernelProvider = std::function<const AotKernel*(const detail::RegionSpec& spec, std::string* why)>;

namespace detail {
std::unique_ptr<Executor> make_aot_executor(const AotRuntime& rt, KernelProvider provider, bool alias_mutant,
                                            int64_t max_numel, LowerStats& stats);

// The in-process front of the persistent cache (one per CompileCache):
// loaded kernels by region key, the disk store, the loaded runtime.
struct AotKernels {
  std::unordered_map<std::string, AotKernel> loaded;
  std::unique_ptr<KernelStore> store;
  AotRuntime* runtime = nullptr;
  int64_t disk_hits = 0, corrupt = 0;
  // CompileCache's in-process bound (0 = none): the least recently used
  // kernel is unloaded (it stays on disk).
  size_t max_entries = 0;
  uint64_t clock = 0;
  int64_t evictions = 0;
};
}  // namespace detail

// The persistent-cache executor for `exec` (host): kernels from
// kernel_cache_dir(), compiled and stored on a miss. Null (and *why) when
// the cache is off or the runtime cannot be built; run_schedule then JITs.
detail::ExecutorFactory persistent_cache_factory(CompileCache& cache, Target exec, std::string* why);

}  // namespace af::lowering
