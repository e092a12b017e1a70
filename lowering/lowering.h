// Lowering a Schedule through Halide (docs/design.md, "Lowering through Halide").
//
// Every region of a Schedule becomes one Halide pipeline:
//   - each storage is a flat Halide buffer of f32; a view is the affine map
//     offset + sum(i_k * stride_k) with sizes, strides and offset bound as
//     scalar Param<int>s (number constants as Param<float>s), so one compiled
//     pipeline serves every region of the same structure;
//   - view ops emit no code; out-of-place ops are Funcs over logical indices;
//   - an in-place op inside a region is a new version of its storage (a pure
//     copy of the previous version plus a scatter update over the view's
//     domain with an RDom); later reads in the region read the newest version;
//   - storages written by a region are realized into separate buffers and
//     committed after the region (never one buffer bound as input and output,
//     except under the `lower-halide-alias` mutant, which does exactly that);
//     fresh tensors that later regions or the returns need are handed on.
//
// Targets: host (JIT on the CPU), opencl (the GPU schedules on Halide's
// OpenCL target; pocl runs them on a machine without a GPU), cuda (JIT on an
// NVIDIA GPU; a clear error when there is none), ptx (every region is also
// compiled for CUDA with compile_to_module, its PTX assembled by `ptxas
// -arch=sm_90`; a rejected PTX is reported in LowerResult::ptx_findings;
// execution runs on host). opencl and cuda share one GPU schedule: every
// stage's loops fused, 32 threads a block, blocks folded into a 2-D grid so
// no grid dimension exceeds 65,535 blocks.
//
// Device residency (opencl, cuda): a storage is uploaded at its first use by
// a region and stays on the device; each region realizes the storages it
// writes into fresh device buffers that replace the previous versions; only
// the observed storages (declared ones, the returns') come back, once, after
// the last region. LowerStats counts the copies; on opencl the driver calls
// are counted too, so a copy Halide's runtime made on its own would show.
//
// Checked mode (async asserts, as torch._assert_async without its
// poisoning): each region also compares every value it produces (out-of-place
// results, the written view of in-place ops) with the expected value (the
// eager oracle's, all statements in one buffer uploaded once) and checks
// finiteness; violations reduce on the device (atomics on the GPU, never
// require()) into per-check counts and first indices, which the region then
// merges, still on the device, into the program's one status buffer: the
// first region in execution order that failed, its minimum failing statement
// (index in schedule.program) and first failing flat (logical, row-major)
// index, and the count over all regions. Nothing synchronizes until the
// single read after the last region; every region runs after a failure.
//
// Nothing here includes Halide.h; the compile cache is opaque.
//
// Use (what `aliasfuzz run --target host|opencl|cuda|ptx [--checked] [--stats]` needs):
//   lowering::CompileCache cache;                    // one per process/thread, reused across programs
//   lowering::LowerOptions o;
//   o.target = *lowering::target_from_name("host");
//   o.checked = checked;
//   o.mutant = mutant;                               // the run's --inject (schedule.mutant also counts)
//   lowering::LowerResult r = lowering::run_schedule(schedule, o, nullptr, cache);
//   if (!r.ok) -> error (r.error: invalid program, Halide error, "target cuda: no CUDA ...", "target opencl: ...")
//   else compare(program, oracle_observables, r.obs) as for the interpreter tier;
//        r.first_failure (checked mode) names the first diverging op for "first_mismatch";
//        r.ptx_findings (target ptx) are findings (ptxas rejected a region's PTX);
//        r.stats for --stats.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/analysis.h"
#include "ir/program.h"
#include "oracles/eager.h"
#include "schedulers/execution.h"
#include "run/vocabulary.h"
#include "schedulers/schedule.h"

namespace af::lowering {

// The targets are those of the run settings (run/vocabulary.h);
// every one but interp is a Halide target.
using Target = run::Target;
using run::Mutant;
using run::target_name;
// A code-generating target by name (nothing for interp or an unknown name).
std::optional<Target> target_from_name(const std::string& s);
// Every code-generating target's name: host, opencl, cuda, ptx.
const std::vector<std::string>& target_names();

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
Expected expected_values(const ir::Program& p, const ir::Analysis& an);

using CheckFailure = schedulers::CheckFailure;

struct PtxFinding {
  int region = -1;
  std::string message;  // ptxas (or Halide CUDA codegen) output
};

struct LowerStats {
  int regions = 0;            // regions of the schedule
  int pipelines_run = 0;      // regions that ran a pipeline (regions of only views run nothing)
  int cache_hits = 0, cache_misses = 0;
  double compile_ms = 0;      // JIT compile time spent in this run (CPU ms of the compiling thread)
  double run_ms = 0;          // realize time
  int ptx_compiled = 0;       // regions compiled to PTX (ptx target; one per distinct structure)
  int ptx_rejected = 0;
  double ptx_ms = 0;          // Halide CUDA codegen + ptxas
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
  bool ok = false;                    // ran to the end (observables valid)
  std::string error;                  // why not (invalid program, Halide error, no GPU...)
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
  double compile_ms() const;                    // total JIT compile time (CPU ms)
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

// Runs the schedule region by region. `expected` is used in checked mode
// (computed here from schedule.program when null).
LowerResult run_schedule(const schedulers::Schedule& schedule, const LowerOptions& options,
                         const Expected* expected, CompileCache& cache);


// True when a CUDA device is usable (libcuda loads and reports a device).
bool cuda_available(std::string* why = nullptr);
// True when an OpenCL platform is usable (on a machine without a GPU: pocl,
// installed by tools/setup.sh). Loads the driver the way it must be loaded
// next to libHalide; run_schedule calls it before the first OpenCL use.
bool opencl_available(std::string* why = nullptr);
// Whether target t can run here (host and ptx always; cuda and opencl as above).
bool target_available(Target t, std::string* why = nullptr);

// Schedules for tests and benchmarks while real strategies are elsewhere:
// program order, regions of `per_region` consecutive statements (1 = one
// region per statement, like `eager`; 0 = the whole program as one region).
schedulers::Schedule program_order_schedule(const ir::Program& p, int per_region);

}  // namespace af::lowering
