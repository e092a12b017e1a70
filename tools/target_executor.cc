#include "tools/target_executor.h"

#include <fmt/format.h>

#include "fuzz/check.h"
#include "tools/commands.h"

namespace af::tools {

lowering::CompileCache& compile_cache() {
  static lowering::CompileCache cache;
  return cache;
}

namespace {
fuzz::TargetOutcome execute(const schedulers::Schedule& s, const fuzz::RunSpec& spec) {
  fuzz::TargetOutcome out;
  auto t = lowering::target_from_name(spec.target);
  if (!t) {
    out.error = "unknown target '" + spec.target + "'";
    return out;
  }
  lowering::LowerOptions lo;
  lo.target = *t;
  lo.inject = spec.inject;
  lowering::LowerResult r = lowering::run_schedule(s, lo, nullptr, compile_cache());
  if (!r.ok) {
    out.error = r.error;
    return out;
  }
  if (!r.ptx_findings.empty()) {
    out.error = "ptxas rejected region " + std::to_string(r.ptx_findings[0].region) + ": " + r.ptx_findings[0].message;
    return out;
  }
  out.ok = true;
  out.obs = std::move(r.obs);
  return out;
}
}  // namespace

void register_lowering_target() { fuzz::register_target_executor(&execute, lowering::target_names()); }

std::string target_help() { return fmt::format("{}", fmt::join(fuzz::target_names(), ", ")); }

}  // namespace af::tools
