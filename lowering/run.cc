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

std::string unsupported_reason(const ir::Program& p) {
  using K = ir::OpKind;
  for (const ir::Stmt& st : p.stmts) {
    const char* why = st.op == K::ViewDtype          ? "the pipelines hold f32 buffers only"
                      : st.op == K::Flip             ? "no pipeline reads positions in reverse yet"
                      : st.op == K::Bmm || st.op == K::MatmulNd ? "the matmul pipeline is 2-D only"
                      : ir::is_indexed_copy(st.op) ? "the indexed pipelines write their target in place only"
                                                     : nullptr;
    if (why)
      return std::string(st.op == K::ViewDtype ? "view(x, dtype)" : ir::op_name(st.op)) + " (format v1.5): " + why +
             ", line " + std::to_string(st.line);
  }
  return "";
}

LowerResult run_schedule(const schedulers::Schedule& schedule, const LowerOptions& options, const Expected* expected,
                         CompileCache& cache) {
  if (std::string why = unsupported_reason(schedule.program); !why.empty()) {
    LowerResult res;
    res.error = std::string(schedulers::kLoweringUnsupported) + why;
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
