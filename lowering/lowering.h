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
#include "lowering/lower_types.h"
#include "schedulers/schedule.h"

namespace af::lowering {

// A code-generating target by name (nothing for interp or an unknown name).
std::optional<Target> target_from_name(const std::string& s);
// Every code-generating target's name: host, opencl, cuda, ptx.
const std::vector<std::string>& target_names();

// Per-statement expected values for checked mode (lower_types.h Expected).
Expected expected_values(const ir::Program& p, const ir::Analysis& an);

// Why the lowering refuses a valid program (run_schedule's error after
// schedulers::kLoweringUnsupported), or "" when it lowers it: format v1.5's
// i32 values (each comes from a view(x, i32)), as the pipelines hold f32
// buffers only, and its flip.
std::string unsupported_reason(const ir::Program& p);

// Runs the schedule region by region. `expected` is used in checked mode
// (computed here from schedule.program when null).
LowerResult run_schedule(const schedulers::Schedule& schedule, const LowerOptions& options, const Expected* expected,
                         CompileCache& cache);

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
