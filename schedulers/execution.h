// What executing a schedule on a target gives, whichever executor ran it:
// the interpreter tier (schedulers::interpret) or the Halide lowering
// (registered with fuzz::register_target_executor by the binary that links
// it). `run`, campaigns, `compare`, the minimizer and the libFuzzer target
// all read this one result.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "oracles/eager.h"
#include "schedulers/schedule.h"  // CheckFailure

namespace af::schedulers {

// Why a run has no observables to compare: observable "lowering" (the
// target could not build or run it) or "ptx" (ptxas rejected region `index`).
// A "lowering" failure whose `what` starts with kLoweringUnsupported is the
// lowering refusing an op it does not implement (format v1.2's indexed
// writes): campaigns count it as unsupported, not as a finding.
inline constexpr const char* kLoweringUnsupported = "unsupported by the Halide lowering: ";
struct ExecutionFailure {
  std::string observable;
  int64_t index = 0;
  std::string what;
};

struct ExecuteOutcome {
  oracles::Observables obs;  // valid when !failure
  std::optional<ExecutionFailure> failure;
  std::optional<CheckFailure> first_failure;  // checked mode only
  std::shared_ptr<const nlohmann::json> stats;  // the target's counters (null on interp)
};

}  // namespace af::schedulers
