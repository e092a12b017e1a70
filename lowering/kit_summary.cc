#include "lowering/kit_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace af::lowering {

void KitSummary::add(const KitRun& r) {
  nlohmann::json row = {{"program", r.c.program},       {"strategy", r.c.strategy},
                        {"fusion", r.c.fusion},         {"mutant", r.c.mutant},
                        {"must_agree", r.c.must_agree}, {"checked", r.checked},
                        {"status", r.status},           {"ms", r.ms},
                        {"run_ms", r.run_ms},           {"warm_run_ms", r.warm_run_ms},
                        {"regions", r.regions},         {"pipelines", r.pipelines}};
  if (!r.detail.empty()) row[r.status == "disagree" ? "mismatch" : "error"] = r.detail;
  if (r.failure)
    row["first_failure"] = {
        {"stmt", r.failure->stmt}, {"op", r.failure->op},         {"source_stmt", r.failure->source_stmt},
        {"source", r.source_text}, {"region", r.failure->region}, {"count", r.failure->count}};
  ++counts_[r.status];
  if (!r.checked) ++cases_;
  total_ms_ += r.ms;
  // A must-agree case that does not agree, a missing kernel, an error.
  if (r.status != "agree" && (r.c.must_agree || r.status == "missing-kernel" || r.status == "error")) ++failures_;
  if (r.c.mutant.empty()) {
    auto& s = by_strategy_[r.c.strategy];
    s.first += r.status == "agree";
    ++s.second;
    if (!r.checked && r.status == "agree" && r.warm_run_ms >= 0) {
      auto& t = programs_[r.c.program];
      t.run_ms += r.warm_run_ms;
      t.pipelines += r.pipelines;
      t.regions += r.regions;
    }
  } else {
    auto& d = mutants_[r.c.mutant];
    const bool detected = r.status == "disagree" || r.status == "check-failed";
    if (!r.checked) {
      ++d.cases;
      d.unchecked += detected;
    } else if (detected) {
      if (!d.checked++) d.first = {{"program", r.c.program}, {"strategy", r.c.strategy}, {"fusion", r.c.fusion}};
      if (d.checked == 1 && r.failure) d.first["first_failure"] = row["first_failure"];
      if (d.checked == 1 && !r.failure) d.first["mismatch"] = r.detail;
    }
  }
  rows_.push_back(std::move(row));
}

double KitSummary::launch_ms() const {
  double best = 0;
  for (const auto& row : rows_) {
    const int p = row["pipelines"];
    const double ms = row["warm_run_ms"];
    if (p > 0 && ms >= 0 && row["status"] == "agree" && (best == 0 || ms / p < best)) best = ms / p;
  }
  return best;
}

std::vector<std::string> KitSummary::lines() const {
  auto count = [this](const char* s) { return counts_.count(s) ? counts_.at(s) : 0; };
  const int runs = static_cast<int>(rows_.size());
  std::vector<std::string> out;
  out.push_back(fmt::format(
      "kit {}: {} cases, {} runs: agree {}, disagree {}, check-failed {}, missing-kernel {}, error {}; failures "
      "(must-agree, missing, error) {}; {:.1f} s ({:.2f} ms/run)",
      target_, cases_, runs, count("agree"), count("disagree"), count("check-failed"), count("missing-kernel"),
      count("error"), failures_, total_ms_ / 1e3, runs ? total_ms_ / runs : 0.0));
  std::string s = "strategies (agree/runs):";
  for (const auto& [name, ar] : by_strategy_) s += fmt::format(" {} {}/{}", name, ar.first, ar.second);
  out.push_back(s);
  if (!mutants_.empty()) {
    int detected = 0;
    std::string each;
    for (const auto& [name, d] : mutants_) {
      detected += d.checked > 0;
      each += fmt::format("; {} {}/{} (unchecked {})", name, d.checked, d.cases, d.unchecked);
      if (!d.first.contains("first_failure")) continue;
      const auto& f = d.first["first_failure"];
      if (f["source_stmt"].get<int>() >= 0)
        each +=
            fmt::format(" first at source stmt {} `{}`", f["source_stmt"].get<int>(), f["source"].get<std::string>());
      else  // a statement the strategy inserted (a scatter, a copy): named in the schedule's program
        each += fmt::format(" first at inserted stmt {} ({})", f["stmt"].get<int>(), f["op"].get<std::string>());
    }
    out.push_back(fmt::format("mutants detected in checked mode: {} of {}{}", detected, mutants_.size(), each));
  }
  std::vector<double> ratios, ms;
  const double launch = launch_ms();
  for (const auto& [p, t] : programs_) {
    ms.push_back(t.run_ms);
    if (t.pipelines > 0 && launch > 0) ratios.push_back(t.run_ms / (t.pipelines * launch));
  }
  auto median = [](std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  out.push_back(fmt::format(
      "timing (warm): {} programs, median {:.3f} ms per program (its unchecked cases without a mutant); cheapest "
      "pipeline run {:.4f} ms (~ one launch + sync); median program time / (pipelines x that) {:.2f}",
      programs_.size(), median(ms), launch, median(ratios)));
  return out;
}

nlohmann::json KitSummary::json(int64_t kernels_unpacked, double unpack_s) const {
  nlohmann::json strategies, mutants, programs = nlohmann::json::array();
  for (const auto& [name, ar] : by_strategy_) strategies[name] = {{"agree", ar.first}, {"runs", ar.second}};
  for (const auto& [name, d] : mutants_)
    mutants[name] = {
        {"cases", d.cases}, {"detected_unchecked", d.unchecked}, {"detected_checked", d.checked}, {"first", d.first}};
  const double launch = launch_ms();
  for (const auto& [p, t] : programs_)
    programs.push_back(
        {{"program", p},
         {"run_ms", t.run_ms},
         {"regions", t.regions},
         {"pipelines", t.pipelines},
         {"vs_pipelines_x_launch", t.pipelines > 0 && launch > 0 ? t.run_ms / (t.pipelines * launch) : 0}});
  return {{"target", target_},
          {"summary", lines()},
          {"counts", counts_},
          {"failures", failures_},
          {"kernels_unpacked", kernels_unpacked},
          {"unpack_s", unpack_s},
          {"strategies", strategies},
          {"mutants", mutants},
          {"timing", {{"cheapest_pipeline_ms", launch}, {"programs", programs}}},
          {"runs", rows_}};
}

}  // namespace af::lowering
