// aliasfuzz run PROGRAM.af: the oracle's observables and every strategy's
// agreement with them, with the JSON and exit-status contract of DESIGN.md.
//
//   aliasfuzz run PROGRAM.af [--strategy S]... [--inject M] [--reorder P]
//                 [--fusion F] [--target interp|host|opencl|cuda|ptx] [--checked] [--json] [--stats]
//
// With no --strategy it runs every strategy that must agree with the oracle
// (eager, functionalize, update_aliases-ordered, update_aliases-min), each
// with the --inject mutant when one is given. Exit status: 0 valid and every
// run agrees, 1 some run disagrees, 2 invalid program or usage error.
#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>

#include "fuzz/check.h"
#include "ir/analysis.h"
#include "oracles/eager.h"
#include "oracles/external.h"
#include "schedulers/schedulers.h"
#include "tools/commands.h"
#include "oracles/json_out.h"
#include "tools/target_executor.h"
#include <memory>

namespace af::tools {

namespace {

struct RunOptions {
  std::string path;
  std::vector<std::string> strategies;
  std::string inject, reorder = "program", fusion = "none", target = "interp";
  bool checked = false, json = false, stats = false;
};

std::string join(const std::vector<std::string>& v) { return fmt::format("{}", fmt::join(v, ", ")); }

// One run of one strategy on one target.
struct TargetRun {
  bool agree = false;
  int regions = 0;
  nlohmann::json first_mismatch;  // null when agreeing
  std::optional<lowering::CheckFailure> first_failure;  // checked mode
  nlohmann::json stats;           // lowering counters (Halide targets)
};

// Runs a schedule on a target: `interp` executes it with the reference
// kernels (schedulers::interpret); host|opencl|cuda|ptx hand it to the
// Halide lowering (ptx also assembles every region with ptxas, then runs on
// the host). In checked mode each region also checks every value it produces
// against the oracle's (async asserts), and a failure names the first
// diverging op.
TargetRun run_on_target(const RunOptions& o, const schedulers::Schedule& s, const ir::Program& p,
                        const oracles::Observables& expected, const lowering::Expected* expected_by_stmt) {
  TargetRun r;
  r.regions = s.counters.regions;
  oracles::Observables actual;
  if (o.target == "interp") {
    actual = schedulers::interpret(s);
  } else {
    lowering::LowerOptions lo;
    lo.target = *lowering::target_from_name(o.target);
    lo.checked = o.checked;
    lo.inject = s.inject;
    lowering::LowerResult res = lowering::run_schedule(s, lo, expected_by_stmt, compile_cache());
    r.stats = {{"regions", res.stats.regions}, {"pipelines_run", res.stats.pipelines_run},
               {"cache_hits", res.stats.cache_hits}, {"cache_misses", res.stats.cache_misses},
               {"compile_ms", res.stats.compile_ms}, {"run_ms", res.stats.run_ms},
               {"uploads", res.stats.uploads}, {"downloads", res.stats.downloads},
               {"upload_bytes", res.stats.upload_bytes}, {"download_bytes", res.stats.download_bytes}};
    if (lo.target == lowering::Target::OpenCL)
      r.stats["opencl"] = {{"writes", res.stats.cl_writes}, {"reads", res.stats.cl_reads},
                           {"launches", res.stats.cl_launches}, {"max_grid", res.stats.max_grid}};
    if (o.target == "ptx")
      r.stats["ptx"] = {{"compiled", res.stats.ptx_compiled}, {"rejected", res.stats.ptx_rejected},
                        {"ms", res.stats.ptx_ms}, {"bytes", res.stats.ptx_bytes}};
    if (!res.ok) {
      r.first_mismatch = {{"observable", "lowering"}, {"index", 0}, {"expected", nullptr}, {"actual", nullptr},
                          {"what", res.error}};
      return r;
    }
    if (!res.ptx_findings.empty()) {
      r.first_mismatch = {{"observable", "ptx"}, {"index", res.ptx_findings[0].region}, {"expected", nullptr},
                          {"actual", nullptr}, {"what", "ptxas rejected the region: " + res.ptx_findings[0].message}};
      return r;
    }
    actual = std::move(res.obs);
    if (res.first_failure) r.first_failure = *res.first_failure;
  }
  auto mm = oracles::compare(p, expected, actual);
  r.agree = !mm && !r.first_failure;
  if (mm) r.first_mismatch = oracles::mismatch_json(*mm);
  else if (r.first_failure) r.first_mismatch = {{"observable", "check"}, {"index", r.first_failure->first_index},
                                                {"expected", nullptr}, {"actual", nullptr}};
  if (r.first_failure && r.first_mismatch.is_object()) {
    const auto& f = *r.first_failure;
    r.first_mismatch["first_diverging_op"] = {{"stmt", f.stmt}, {"op", f.op}, {"line", f.line},
                                              {"region", f.region}, {"count", f.count}, {"first_index", f.first_index}};
  }
  return r;
}

std::optional<std::string> check_target(const std::string& t) {
  if (t == "interp") return std::nullopt;
  auto lt = lowering::target_from_name(t);
  if (!lt) return "unknown target '" + t + "' (valid: " + target_help() + ")";
  std::string why;
  if (!lowering::target_available(*lt, &why)) return "target '" + t + "' cannot run here: " + why;
  return std::nullopt;
}

int run(const RunOptions& o) {
  // Usage errors first.
  std::vector<std::string> strategies =
      o.strategies.empty() ? schedulers::must_agree_strategy_names() : o.strategies;
  for (const auto& s : strategies) {
    if (auto why = oracles::py_spec_error(s); !why.empty()) {
      std::cerr << "aliasfuzz run: --strategy " << why << "\n";
      return 2;
    }
    if (fuzz::is_external(s) && o.inject.empty()) continue;  // run through Python, below
    schedulers::Options so{s, o.inject, o.reorder, o.fusion};
    if (auto e = schedulers::check_options(so)) {
      std::cerr << "aliasfuzz run: " << *e << "\n";
      return 2;
    }
  }
  if (auto e = check_target(o.target)) {
    std::cerr << "aliasfuzz run: " << *e << "\n";
    return 2;
  }
  std::string text;
  if (!read_file(o.path, &text)) return 2;
  nlohmann::json out;
  auto prog = ir::parse(text);
  ir::Result<ir::Analysis> an = prog ? ir::analyze(*prog) : ir::Result<ir::Analysis>(prog.error());
  if (!an) {
    const ir::Error& e = an.error();
    if (o.json) {
      out = {{"valid", false}, {"error", oracles::error_json(e)}, {"oracle", nullptr}, {"runs", nlohmann::json::array()}};
      std::cout << out.dump() << "\n";
    } else {
      std::cout << o.path << ":" << e.line << ": " << ir::kind_name(e.kind) << " error: " << e.message << "\n";
    }
    return 2;
  }
  oracles::Observables expected = oracles::run_eager(*prog, *an);
  nlohmann::json runs = nlohmann::json::array();
  nlohmann::json all_stats = nlohmann::json::array();
  bool all_agree = true;
  for (const auto& s : strategies) {
    TargetRun r;
    if (fuzz::is_external(s) && o.inject.empty()) {
      // A real compiler under study (PyTorch functionalize, Thunder), run
      // in its own Python and compared with eager PyTorch of that Python.
      auto recs = fuzz::check_program(*prog, expected, {fuzz::RunSpec{s, "", "program", "none", "interp"}});
      if (recs.empty()) {
        std::cerr << "aliasfuzz run: strategy " << s << " is not available here (see above)\n";
        return 2;
      }
      r.agree = recs[0].agree;
      if (recs[0].mismatch) r.first_mismatch = oracles::mismatch_json(*recs[0].mismatch);
      if (!recs[0].error.empty()) r.first_mismatch = {{"observable", "error"}, {"what", recs[0].error}};
      all_agree = all_agree && r.agree;
      runs.push_back({{"strategy", s}, {"inject", nullptr}, {"reorder", "program"}, {"fusion", "none"},
                      {"target", "python"}, {"agree", r.agree}, {"regions", 0}, {"first_mismatch", r.first_mismatch}});
      // The compiler said it cannot run the program: no comparison, no divergence.
      if (!recs[0].unsupported.empty()) runs.back()["unsupported"] = recs[0].unsupported;
      continue;
    }
    schedulers::Options so{s, o.inject, o.reorder, o.fusion};
    auto sc = schedulers::make_schedule(*prog, *an, so);
    if (!sc) {
      // The strategy produced an invalid program: a bug, reported as a disagreement.
      r.first_mismatch = {{"observable", "schedule"}, {"index", 0}, {"expected", nullptr}, {"actual", nullptr},
                          {"what", sc.error().message}};
    } else {
      // Checked mode compares each statement of the scheduled program with
      // the oracle's value of that statement (the scheduled program run in
      // its own program order).
      std::unique_ptr<lowering::Expected> by_stmt;
      if (o.checked && o.target != "interp") {
        auto an_s = sc->analysis ? ir::Result<ir::Analysis>(*sc->analysis) : ir::analyze(sc->program);
        if (an_s) by_stmt = std::make_unique<lowering::Expected>(lowering::expected_values(sc->program, *an_s));
      }
      r = run_on_target(o, *sc, *prog, expected, by_stmt.get());
    }
    all_agree = all_agree && r.agree;
    if (!r.stats.is_null()) all_stats.push_back(r.stats);
    runs.push_back({{"strategy", s}, {"inject", o.inject.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.inject)},
                    {"reorder", o.reorder}, {"fusion", o.fusion}, {"target", o.target}, {"agree", r.agree},
                    {"regions", r.regions}, {"first_mismatch", r.first_mismatch}});
  }
  const lowering::CompileCache& cache = compile_cache();
  const nlohmann::json cache_json = {{"hits", cache.hits()}, {"misses", cache.misses()}, {"compile_ms", cache.compile_ms()}};
  if (o.json) {
    out = {{"valid", true}, {"error", nullptr}, {"oracle", oracles::observables_json(*prog, expected)}, {"runs", runs}};
    if (o.target != "interp") {
      out["compile_cache"] = cache_json;
      out["lowering_stats"] = all_stats;
    }
    std::cout << out.dump() << "\n";
  } else {
    for (const auto& r : runs)
      std::cout << r["strategy"].get<std::string>() << (o.inject.empty() ? "" : " +" + o.inject) << " ["
                << r["reorder"].get<std::string>() << ", " << r["fusion"].get<std::string>() << ", "
                << r["target"].get<std::string>() << ", " << r["regions"].get<int>() << " regions]: "
                << (r.contains("unsupported") ? "not supported (no comparison): " + r["unsupported"].get<std::string>()
                    : r["agree"].get<bool>() ? "agrees"
                                             : "DISAGREES " + r["first_mismatch"].dump())
                << "\n";
    if (o.stats && o.target != "interp")
      std::cout << "compile cache: " << cache_json.dump() << "\nper run: " << all_stats.dump() << "\n";
  }
  return all_agree ? 0 : 1;
}

}  // namespace

void register_run(CLI::App& app, int* status) {
  auto o = std::make_shared<RunOptions>();
  auto* c = app.add_subcommand("run", "run a program under strategies and compare with the eager oracle");
  c->add_option("program", o->path, "the .af program")->required();
  c->add_option("--strategy", o->strategies,
                "strategy (repeatable): " + join(schedulers::strategy_names()) + "; default: every must-agree strategy");
  c->add_option("--inject", o->inject, "a bug-zoo mutant: " + join(schedulers::mutant_names()));
  c->add_option("--reorder", o->reorder, "reorder policy: " + join(schedulers::reorder_policy_names()));
  c->add_option("--fusion", o->fusion, "fusion policy: " + join(schedulers::fusion_policy_names()));
  c->add_option("--target", o->target, "where schedules run (interp: the reference kernels; the others: Halide): " + target_help());
  c->add_flag("--checked", o->checked, "device-side checks (async asserts; Halide targets)");
  c->add_flag("--json", o->json, "print one JSON object");
  c->add_flag("--stats", o->stats,
              "print compile-cache and lowering counters, host<->device transfers (Halide targets)");
  add_kernel_cache_flags(c);
  c->callback([o, status] { *status = run(*o); });
}

}  // namespace af::tools
