// A kit's runner (lowering/kit.h): kit_runner DIR [--out RESULTS_DIR]
// [--no-checked]. Links no Halide and no LLVM: the kernels bind to the
// kit's own Halide runtime (which loads the GPU driver). Every case runs
// unchecked, then checked (the oracle's per-statement values compared on the
// device); results.json gets one row per run and stdout one summary line.
// Exit 0 when every must-agree run agreed and nothing was missing, 1 otherwise, 2 when the kit cannot be read.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "ir/text.h"
#include "lowering/aot.h"
#include "lowering/kit.h"

using namespace af;
using namespace af::lowering;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: kit_runner KIT_DIR [--out DIR] [--no-checked]\n");
    return 2;
  }
  const std::string dir = argv[1];
  std::string out = dir;
  bool checked_too = true;
  for (int i = 2; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else if (!std::strcmp(argv[i], "--no-checked")) checked_too = false;
  }
  Kit kit;
  std::vector<float> floats;
  if (std::string e = read_kit(dir, &kit, &floats); !e.empty()) {
    std::fprintf(stderr, "kit_runner: %s\n", e.c_str());
    return 2;
  }
  const auto target = target_from_name(kit.target);
  KernelStore store(dir + "/kernels");
  std::string why;
  const std::string rt_path = store.find(KernelStore::full_key(kit.halide_version, kit.target_string, "runtime"), &why);
  AotRuntime* rt = target && !rt_path.empty() ? AotRuntime::load(rt_path, *target, &why) : nullptr;
  if (!rt) {
    std::fprintf(stderr, "kit_runner: no usable Halide runtime for target %s: %s\n", kit.target.c_str(), why.c_str());
    return 2;
  }
  std::map<std::string, AotKernel> loaded;
  KernelProvider provider = [&](const detail::RegionSpec& spec, std::string* err) -> const AotKernel* {
    if (auto it = loaded.find(spec.key); it != loaded.end()) return &it->second;
    std::string w;
    const std::string p = store.find(KernelStore::full_key(kit.halide_version, kit.target_string, spec.key), &w);
    AotKernel k;
    if (p.empty()) {
      *err = "missing kernel (" + w + ")";
      return nullptr;
    }
    if (!load_kernel(p, &k, err)) return nullptr;
    return &loaded.emplace(spec.key, k).first->second;
  };
  detail::ExecutorFactory make = [&](Target, bool alias_mutant, int64_t max_numel, LowerStats& stats) {
    return detail::make_aot_executor(*rt, provider, alias_mutant, max_numel, stats);
  };
  nlohmann::json rows = nlohmann::json::array();
  std::map<std::string, int> counts;
  double total_ms = 0;
  int failures = 0;
  const auto t_all = std::chrono::steady_clock::now();
  for (const auto& c : kit.cases) {
    auto original = ir::parse(c.original);
    auto scheduled = ir::parse(c.scheduled);
    for (bool checked : {false, true}) {
      if (checked && !checked_too) continue;
      nlohmann::json row = {{"program", c.program}, {"strategy", c.strategy}, {"fusion", c.fusion},
                            {"must_agree", c.must_agree}, {"checked", checked}};
      std::string status;
      if (!original || !scheduled) {
        status = "error";
        row["error"] = "program does not parse";
      } else {
        schedulers::Schedule s;
        s.strategy = c.strategy;
        s.fusion = c.fusion;
        s.program = *scheduled;
        s.regions = c.regions;
        LowerOptions o;
        o.target = *target;
        o.checked = checked;
        const auto t0 = std::chrono::steady_clock::now();
        LowerResult r = detail::run_with(s, o, nullptr, make);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        total_ms += ms;
        row["ms"] = ms;
        row["regions"] = r.stats.regions;
        row["pipelines"] = r.stats.pipelines_run;
        row["run_ms"] = r.stats.run_ms;
        if (!r.ok) {
          status = r.error.find("missing kernel") != std::string::npos ? "missing-kernel" : "error";
          row["error"] = r.error;
        } else if (auto mm = oracles::compare(*original, kit_expected(c, floats), r.obs)) {
          status = "disagree";
          row["mismatch"] = mm->observable + "[" + std::to_string(mm->index) + "] " + mm->what;
        } else if (r.first_failure) {
          status = "check-failed";
          row["first_failure"] = {{"stmt", r.first_failure->stmt}, {"op", r.first_failure->op},
                                  {"count", r.first_failure->count}};
        } else {
          status = "agree";
        }
      }
      row["status"] = status;
      ++counts[status];
      // What fails the kit: a must-agree strategy that does not agree, a
      // missing kernel, an error (other strategies may disagree by design).
      if (status != "agree" && (c.must_agree || status == "missing-kernel" || status == "error")) ++failures;
      rows.push_back(std::move(row));
    }
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_all).count();
  const int runs = static_cast<int>(rows.size());
  char line[512];
  std::snprintf(line, sizeof line,
                "kit %s: %zu cases, %d runs: agree %d, disagree %d, check-failed %d, missing-kernel %d, error %d; "
                "failures (must-agree, missing, error) %d; %.1f s (%.2f ms/run)",
                kit.target.c_str(), kit.cases.size(), runs, counts["agree"], counts["disagree"],
                counts["check-failed"], counts["missing-kernel"], counts["error"], failures, wall,
                runs ? total_ms / runs : 0.0);
  const nlohmann::json results = {{"target", kit.target}, {"summary", line}, {"counts", counts}, {"runs", rows}};
  std::ofstream(out + "/results.json") << results.dump(1) << "\n";
  std::printf("%s\n", line);
  return failures == 0 ? 0 : 1;
}
