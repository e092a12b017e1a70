// run_schedule: the executor a run gets. Target host with the persistent
// kernel cache on (the default; lowering/kernel_cache.h) runs AOT kernels
// from the cache; otherwise (cache off, opencl, cuda, ptx) the JIT Session.
// GPU targets stay on the JIT in this process: buffers that Halide's JIT
// runtime put on a device cannot be handed to kernels bound to another
// runtime; kits (lowering/kit.h) run GPU targets AOT.
#include "lowering/aot.h"
#include "lowering/backend.h"
#include "lowering/lowering.h"
#include "schedulers/execution.h"

namespace af::lowering {

bool target_available(Target t, std::string* why) {
  switch (t) {
    case Target::Interp:
      if (why) *why = "interp is the reference interpreter, not a Halide target";
      return false;
    case Target::Cuda: return cuda_available(why);
    case Target::OpenCL: return opencl_available(why);
    case Target::Host:
    case Target::Ptx: return true;
  }
  return false;
}

LowerResult run_schedule(const schedulers::Schedule& schedule, const LowerOptions& options, const Expected* expected,
                         CompileCache& cache) {
  // Format v1.5's i32 values (each comes from a view(x, i32)): the
  // pipelines hold f32 buffers only; counted as unsupported, not a finding.
  for (const ir::Stmt& st : schedule.program.stmts)
    if (st.op == ir::OpKind::ViewDtype) {
      LowerResult res;
      res.error = std::string(schedulers::kLoweringUnsupported) +
                  "view(x, dtype) (format v1.5): the pipelines hold f32 buffers only, line " + std::to_string(st.line);
      return res;
    }
  if (std::string why; !target_available(options.target, &why)) {
    LowerResult res;
    res.error = std::string("target ") + target_name(options.target) + ": " + why;
    return res;
  }
  if (options.target == Target::Host) {
    std::string why;
    if (auto aot = persistent_cache_factory(cache, Target::Host, &why))
      return detail::run_with(schedule, options, expected, aot);
  }
  return detail::run_with(schedule, options, expected,
                          [&cache](Target exec, bool alias_mutant, int64_t max_numel, LowerStats& stats) {
                            return std::make_unique<detail::Session>(cache, exec, alias_mutant, max_numel, stats);
                          });
}

}  // namespace af::lowering
