// What a kit's runner reports (lowering/kit_runner.cc): every run as a row
// of results.json, and the summaries a GPU check reads (tools/gpu_check.sh):
//   - counts by status, and failures: a must-agree case that did not agree,
//     a missing kernel, an error (mutants' and under-study strategies' runs
//     may disagree by design);
//   - agreement by strategy;
//   - mutant detection: by mutant, its cases detected unchecked (the
//     observables differ) and checked (the device's checks or the
//     observables), with the first diverging source statement;
//   - timing: each program's warm run time (the second run of its unchecked
//     cases without a mutant, so the driver's first load of a kernel is not
//     counted) against its pipelines x the cheapest warm pipeline run seen,
//     which is as close to one launch + sync as the kit can measure.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lowering/kit.h"
#include "lowering/lowering.h"

namespace af::lowering {

struct KitRun {
  const KitCase& c;
  bool checked = false;
  std::string status;         // agree, disagree, check-failed, missing-kernel, error
  std::string detail;         // the mismatch or the error
  double ms = 0, run_ms = 0;  // the whole run; its pipelines (the first use of each kernel included)
  double warm_run_ms = -1;    // unchecked: the pipelines of a second run (-1 none)
  int regions = 0, pipelines = 0;
  std::optional<CheckFailure> failure;  // checked mode
  std::string source_text;              // the source statement failure->source_stmt names
};

class KitSummary {
 public:
  explicit KitSummary(std::string target) : target_(std::move(target)) {}
  void add(const KitRun& r);
  int failures() const { return failures_; }
  nlohmann::json json(int64_t kernels_unpacked, double unpack_s) const;
  std::vector<std::string> lines() const;

 private:
  struct Detection {
    int cases = 0, unchecked = 0, checked = 0;
    nlohmann::json first;  // the first checked detection's failure
  };
  struct Timing {
    double run_ms = 0;
    int pipelines = 0, regions = 0;
  };
  double launch_ms() const;  // the cheapest pipeline run
  std::string target_;
  nlohmann::json rows_ = nlohmann::json::array();
  std::map<std::string, int> counts_;
  std::map<std::string, std::pair<int, int>> by_strategy_;  // agree, runs
  std::map<std::string, Detection> mutants_;
  std::map<int, Timing> programs_;
  int cases_ = 0, failures_ = 0;
  double total_ms_ = 0;
};

}  // namespace af::lowering
