// What one lowering run takes and gives (lowering/lowering.h runs it):
// options, statistics, the result and the opaque compile cache. Its own
// header so that the Halide side (backend.h) needs nothing of the driver's.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "oracles/eager.h"
#include "run/vocabulary.h"
#include "schedulers/execution.h"

namespace af::lowering {

// The targets are those of the run settings (run/vocabulary.h);
// every one but interp is a Halide target.
using Target = run::Target;
using run::Mutant;
using run::target_name;

struct LowerOptions {
  Target target = Target::Host;
  bool checked = false;
  // Mutants the lowering itself honors (also when named by schedule.mutant):
  // lower-halide-alias (a written storage's buffer bound as input and
  // output) and fusion-stale-copy (inside a region of more than one
  // statement, reads of a storage see it as it was before the region's first
  // in-place write to it, exactly as the interpreter tier does). Other
  // mutants live in the schedule itself and need nothing here.
  Mutant mutant = Mutant::None;
  std::string ptxas = "/usr/local/cuda/bin/ptxas";
  std::string ptx_arch = "sm_90";
  std::string ptx_dump_dir;  // when set, the PTX of every region compiled for ptx is written there
  // On a GPU-schedule target (opencl, cuda): also put every region through
  // the `ptx` target's check (the same GPU schedule compiled for CUDA and
  // assembled by ptxas, once per region structure), so the regions one
  // device runs are checked for the other's code generator too.
  bool ptx_check = false;
};

// Per-statement expected values for checked mode: for statement k of the
// program, the logical (row-major) values it produces, as the eager oracle
// computes them running the program in program order (an in-place op: the
// written view after the write). Empty for statements that produce nothing
// (views, update_aliases).
struct Expected {
  std::vector<std::optional<oracles::Dense>> by_stmt;
};

using CheckFailure = schedulers::CheckFailure;

struct PtxFinding {
  int region = -1;
  std::string message;  // ptxas (or Halide CUDA codegen) output
};

struct LowerStats {
  int regions = 0;        // regions of the schedule
  int pipelines_run = 0;  // regions that ran a pipeline (regions of only views run nothing)
  int cache_hits = 0, cache_misses = 0;
  double compile_ms = 0;  // JIT compile time spent in this run (CPU ms of the compiling thread)
  double run_ms = 0;      // realize time
  int ptx_compiled = 0;   // regions compiled to PTX (ptx target; one per distinct structure)
  int ptx_rejected = 0;
  double ptx_ms = 0;  // Halide CUDA codegen + ptxas
  int64_t ptx_bytes = 0;
  // Host<->device copies made by this run (cuda, opencl; 0 on host): each
  // storage a region reads is uploaded once, the expected values and the
  // status once (checked mode); the observed storages and the status come
  // back once. None depends on the number of regions.
  int uploads = 0, downloads = 0;
  int64_t upload_bytes = 0, download_bytes = 0;
  // opencl: what reached the OpenCL driver, counted there (so a copy that
  // Halide's runtime made on its own would show): buffer writes, reads,
  // kernel launches, and the most work-groups along one grid dimension.
  int cl_writes = 0, cl_reads = 0, cl_launches = 0;
  int64_t max_grid = 0;
};

struct LowerResult {
  bool ok = false;    // ran to the end (observables valid)
  std::string error;  // why not (invalid program, Halide error, no GPU...)
  oracles::Observables obs;
  std::optional<CheckFailure> first_failure;  // checked mode only
  std::vector<PtxFinding> ptx_findings;       // ptx target only
  LowerStats stats;
};

// Compiled pipelines keyed by the canonical structure of a region (op kinds,
// ranks, dims, which argument reads which storage version, which storages are
// outputs, checked or not): regions that differ only in sizes, strides,
// offsets and number constants share one JIT-compiled pipeline. Not
// thread-safe: one cache per thread. At most max_entries compiled pipelines
// are kept (least recently used evicted; each holds JIT code, about 0.5 MB);
// 0 = unbounded.
// Target host with the persistent kernel cache on (lowering/kernel_cache.h,
// the default): a miss loads the AOT kernel from disk or compiles and stores
// it; hits/misses count in-process lookups, compile_ms_each the compiles.
class CompileCache {
 public:
  explicit CompileCache(size_t max_entries = 2048);
  ~CompileCache();
  CompileCache(const CompileCache&) = delete;
  CompileCache& operator=(const CompileCache&) = delete;

  int64_t hits() const;
  int64_t misses() const;
  double compile_ms() const;                           // total JIT compile time (CPU ms)
  const std::vector<double>& compile_ms_each() const;  // one entry per compile
  size_t size() const;
  int64_t evictions() const;
  // Persistent kernel cache (target host, lowering/kernel_cache.h): misses
  // that the disk store answered (no compile), and corrupt or truncated
  // entries found there and recompiled.
  int64_t disk_hits() const;
  int64_t disk_corrupt() const;
  void clear();

  struct Impl;
  Impl* impl() { return impl_.get(); }

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace af::lowering
