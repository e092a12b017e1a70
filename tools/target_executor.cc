#include "tools/target_executor.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "check/check.h"
#include "tools/commands.h"

namespace af::tools {

lowering::CompileCache& compile_cache() {
  static lowering::CompileCache cache;
  return cache;
}

namespace {

nlohmann::json stats_json(const lowering::LowerStats& s, lowering::Target target) {
  nlohmann::json j = {{"regions", s.regions},           {"pipelines_run", s.pipelines_run},
                      {"cache_hits", s.cache_hits},     {"cache_misses", s.cache_misses},
                      {"compile_ms", s.compile_ms},     {"run_ms", s.run_ms},
                      {"uploads", s.uploads},           {"downloads", s.downloads},
                      {"upload_bytes", s.upload_bytes}, {"download_bytes", s.download_bytes}};
  if (target == lowering::Target::OpenCL)
    j["opencl"] = {
        {"writes", s.cl_writes}, {"reads", s.cl_reads}, {"launches", s.cl_launches}, {"max_grid", s.max_grid}};
  if (target == lowering::Target::Ptx)
    j["ptx"] = {{"compiled", s.ptx_compiled}, {"rejected", s.ptx_rejected}, {"ms", s.ptx_ms}, {"bytes", s.ptx_bytes}};
  return j;
}

// Runs a schedule through the Halide lowering: host|opencl|cuda JIT and
// run it; ptx also assembles every region with ptxas, then runs on the
// host. In checked mode each region also checks every value it produces
// against the oracle's (async asserts); a failure names the first diverging op.
schedulers::ExecuteOutcome execute(const schedulers::Schedule& s, const run::RunConfig& config,
                                   const schedulers::ExpectedByStmt* expected) {
  schedulers::ExecuteOutcome out;
  lowering::LowerOptions lo;
  lo.target = config.target;
  lo.checked = config.checked;
  lo.mutant = config.mutant;
  lowering::Expected by_stmt;
  if (expected) by_stmt.by_stmt = *expected;
  lowering::LowerResult r = lowering::run_schedule(s, lo, expected ? &by_stmt : nullptr, compile_cache());
  out.stats = std::make_shared<const nlohmann::json>(stats_json(r.stats, config.target));
  if (!r.ok) {
    out.failure = schedulers::ExecutionFailure{"lowering", 0, r.error};
    return out;
  }
  if (!r.ptx_findings.empty()) {
    out.failure = schedulers::ExecutionFailure{"ptx", r.ptx_findings[0].region,
                                               "ptxas rejected the region: " + r.ptx_findings[0].message};
    return out;
  }
  out.obs = std::move(r.obs);
  out.first_failure = r.first_failure;
  return out;
}

}  // namespace

void register_lowering_target() { fuzz::register_target_executor(&execute); }

std::string target_help() { return fmt::format("{}", fmt::join(fuzz::target_names(), ", ")); }

std::optional<run::Target> usable_target(const std::string& name, std::string* why) {
  const auto t = run::parse_target(name);
  if (!t) {
    *why = "unknown target '" + name + "' (valid: " + target_help() + ")";
    return std::nullopt;
  }
  if (*t != run::Target::Interp && !lowering::target_available(*t, why)) {
    *why = "target '" + name + "' cannot run here: " + *why;
    return std::nullopt;
  }
  return t;
}

}  // namespace af::tools
