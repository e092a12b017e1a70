// aliasfuzz run PROGRAM.af: the oracle's observables and every strategy's
// agreement with them, with the JSON and exit-status contract of docs/design.md.
//
//   aliasfuzz run PROGRAM.af [--strategy S]... [--inject M] [--reorder P]
//                 [--fusion F] [--target interp|host|opencl|cuda|ptx] [--checked] [--recall] [--json] [--stats]
//
// With no --strategy it runs every strategy that must agree with the oracle
// (eager, functionalize, update_aliases-ordered, update_aliases-min), each
// with the --inject mutant when one is given. Exit status: 0 valid and every
// run agrees, 1 some run disagrees, 2 invalid program or usage error.
#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>

#include "ir/json_text.h"
#include "check/check.h"
#include "check/files.h"
#include "triage/repro.h"
#include "ir/analysis.h"
#include "ir/relayout.h"
#include "ir/text.h"
#include "oracles/eager.h"
#include "compilers/table.h"
#include "schedulers/schedulers.h"
#include "tools/commands.h"
#include "tools/run_flags.h"
#include "oracles/json_out.h"
#include "tools/target_executor.h"
#include <memory>

namespace af::tools {

namespace {

struct RunOptions {
  std::string path;
  std::vector<std::string> strategies;
  std::string inject, reorder = "program", fusion = "none", target = "interp", torch;
  std::string write_repro;  // --write-repro PATH: the repro.py of the (one) external strategy's run
  bool checked = false, recall = false, json = false, stats = false, dump_passes = false;
  bool across_processes = false;  // --recall across two processes over a shared compiler cache
};

// The "first_mismatch" JSON of a run that did not agree (null when it did).
nlohmann::json first_mismatch_json(const schedulers::RunOutcome& r) {
  if (r.failure)
    return {{"observable", r.failure->observable},
            {"index", r.failure->index},
            {"expected", nullptr},
            {"actual", nullptr},
            {"what", r.failure->what}};
  nlohmann::json j;
  if (r.mismatch)
    j = oracles::mismatch_json(*r.mismatch);
  else if (r.first_failure)
    j = {{"observable", "check"}, {"index", r.first_failure->first_index}, {"expected", nullptr}, {"actual", nullptr}};
  if (r.first_failure) j["first_diverging_op"] = fuzz::check_failure_json(*r.first_failure);
  return j;
}

// Prints what each pass made of the program (--dump-passes), as Halide's
// Lower.cpp logs the IR after each pass.
void dump_passes(const ir::Program& p, const ir::Analysis& an, const run::RunConfig& config) {
  std::vector<schedulers::PassDump> dump;
  auto sc = schedulers::make_schedule(p, an, config, &dump);
  for (const auto& d : dump) std::cout << "# ---- after " << d.pass << "\n" << d.text;
  if (sc)
    std::cout << "# ---- schedule\n" << schedulers::schedule_text(*sc);
  else
    std::cout << "# ---- schedule failed: " << sc.error().message << "\n";
}

// --recall: what the second call showed, after a run's verdict ("" without --recall).
std::string recall_words(const nlohmann::json& run) {
  if (!run.contains("recall")) return "";
  const nlohmann::json& r = run["recall"];
  const std::string layout = r["layout"].get<std::string>();
  if (r["diverged"].get<bool>()) return " (on the second call, inputs moved " + layout + ")";
  if (r.value("stale_from_cache", false))
    return " (the inputs moved " + layout +
           ", compiled in a new process over the compiler cache a first process left compiling the program: "
           "stale-from-cache; a fresh cache folder agrees)";
  if (layout.empty()) return " (no second call: fewer than two inputs of one dtype)";
  if (r["layout_diverges_alone"].get<bool>())
    return " (the second call, inputs moved " + layout +
           ", diverged, and so does a fresh compile of that layout: its own first-call bug, no recall bug; run "
           "the layout (--dump-passes prints it) to see it)";
  return " (both calls; the second with inputs moved " + layout + ")";
}

int run(const RunOptions& o) {
  // Usage errors first: every setting parsed once, here.
  std::vector<std::string> strategies = o.strategies.empty() ? run::must_agree_strategy_names() : o.strategies;
  if (auto e = flags::resolve_torch(strategies, o.torch); !e.empty()) {
    std::cerr << "aliasfuzz run: " << e << "\n";
    return 2;
  }
  std::string why;
  const auto target = usable_target(o.target, &why);
  std::vector<run::RunSpec> specs;
  for (const auto& s : strategies) {
    auto spec = run::parse_spec(
        {s, o.inject, o.reorder, o.fusion, "interp", o.checked, o.recall, o.across_processes && o.recall}, &why);
    if (!spec) {
      std::cerr << "aliasfuzz run: " << why << "\n";
      return 2;
    }
    specs.push_back(std::move(*spec));
  }
  if (!target) {
    std::cerr << "aliasfuzz run: " << why << "\n";
    return 2;
  }
  if (o.across_processes && !o.recall) {
    std::cerr << "aliasfuzz run: --across-processes goes with --recall (it replaces the second call)\n";
    return 2;
  }
  if (!o.write_repro.empty() && (specs.size() != 1 || !specs[0].is_external())) {
    std::cerr << "aliasfuzz run: --write-repro takes exactly one external --strategy\n";
    return 2;
  }
  std::vector<std::optional<run::RunConfig>> configs;  // by strategy; none for an external one
  for (auto& spec : specs) {
    configs.emplace_back();
    if (spec.is_external()) continue;  // run through Python, below
    spec.target = *target;
    configs.back() = spec.config();
  }
  const bool on_halide = *target != run::Target::Interp;
  std::string text;
  if (!read_file(o.path, &text)) return 2;
  nlohmann::json out;
  auto prog = ir::parse(text);
  ir::Result<ir::Analysis> an = prog ? ir::analyze(*prog) : ir::Result<ir::Analysis>(prog.error());
  if (!an) {
    const ir::Error& e = an.error();
    if (o.json) {
      out = {
          {"valid", false}, {"error", oracles::error_json(e)}, {"oracle", nullptr}, {"runs", nlohmann::json::array()}};
      std::cout << ir::json_text(out) << "\n";
    } else {
      std::cout << o.path << ":" << e.line << ": " << ir::kind_name(e.kind) << " error: " << e.message << "\n";
    }
    return 2;
  }
  if (o.dump_passes) {
    for (size_t k = 0; k < strategies.size(); ++k)
      if (configs[k]) dump_passes(*prog, *an, *configs[k]);
    if (o.recall) {  // the program of the second call
      if (auto second = ir::recall_layout(*prog))
        std::cout << "# ---- after recall_layout (" << ir::recall_direction(*prog) << ")\n" << ir::print(*second);
      else
        std::cout << "# ---- recall_layout: nothing to move (fewer than two inputs of one dtype)\n";
    }
    return 0;
  }
  oracles::Observables expected = oracles::run_eager(*prog, *an);
  nlohmann::json runs = nlohmann::json::array();
  nlohmann::json all_stats = nlohmann::json::array();
  bool all_agree = true;
  for (size_t k = 0; k < strategies.size(); ++k) {
    const std::string& s = strategies[k];
    if (!configs[k]) {
      // A real compiler under study (PyTorch functionalize, Thunder), run
      // in its own Python and compared with eager PyTorch of that Python.
      auto recs = fuzz::check_program(*prog, expected, {specs[k]});
      if (recs.empty()) {
        std::cerr << "aliasfuzz run: strategy " << s << " is not available here (see above)\n";
        return 2;
      }
      nlohmann::json first_mismatch;
      if (recs[0].mismatch) first_mismatch = oracles::mismatch_json(*recs[0].mismatch);
      if (!recs[0].error.empty()) first_mismatch = {{"observable", "error"}, {"what", recs[0].error}};
      all_agree = all_agree && recs[0].agree;
      if (!o.write_repro.empty()) {
        // The script a finding of this run would carry: its verdict must be the runner's (issue #56).
        try {
          fuzz::write_atomic(o.write_repro, fuzz::repro_script(*prog, specs[k], recs[0], expected, nullptr));
        } catch (const std::exception& e) {
          std::cerr << "aliasfuzz run: --write-repro: " << e.what() << "\n";
          return 2;
        }
      }
      runs.push_back({{"strategy", s},
                      {"inject", nullptr},
                      {"reorder", "program"},
                      {"fusion", "none"},
                      {"target", "python"},
                      {"agree", recs[0].agree},
                      {"regions", 0},
                      {"first_mismatch", first_mismatch}});
      // The compiler said it cannot run the program: no comparison, no divergence.
      if (!recs[0].unsupported.empty()) runs.back()["unsupported"] = recs[0].unsupported;
      // --recall: the second call, on the recall layout, is the one that diverged.
      if (specs[k].recall)
        runs.back()["recall"] = {{"layout", ir::recall_direction(*prog)},
                                 {"diverged", recs[0].recall},
                                 {"layout_diverges_alone", recs[0].recall_layout_diverges},
                                 {"stale_from_cache", recs[0].stale_from_cache}};
      continue;
    }
    // A strategy that produced an invalid program is a bug, reported as a
    // disagreement; checked mode compares each statement of the scheduled
    // program with the oracle's value of that statement.
    const schedulers::RunOutcome r = fuzz::run_on_target(*prog, *an, expected, *configs[k]);
    // The lowering refusing an op, or a model predicting its real
    // compiler's refusal (update_aliases on out=): not supported, as a
    // campaign counts it (fuzz::unsupported_run).
    const auto refusal = fuzz::unsupported_run(r);
    all_agree = all_agree && (r.agree || refusal);
    if (r.stats) all_stats.push_back(*r.stats);
    nlohmann::json run = run::spec_json(specs[k]);
    run.erase("checked");
    run.update({{"agree", r.agree || refusal},
                {"regions", r.regions},
                {"first_mismatch", r.agree || refusal ? nlohmann::json() : first_mismatch_json(r)}});
    if (refusal) run["unsupported"] = *refusal;
    runs.push_back(std::move(run));
  }
  const lowering::CompileCache& cache = compile_cache();
  const nlohmann::json cache_json = {
      {"hits", cache.hits()}, {"misses", cache.misses()}, {"compile_ms", cache.compile_ms()}};
  if (o.json) {
    out = {{"valid", true}, {"error", nullptr}, {"oracle", oracles::observables_json(*prog, expected)}, {"runs", runs}};
    if (on_halide) {
      out["compile_cache"] = cache_json;
      out["lowering_stats"] = all_stats;
    }
    std::cout << ir::json_text(out) << "\n";
  } else {
    for (const auto& r : runs)
      std::cout << r["strategy"].get<std::string>() << (o.inject.empty() ? "" : " +" + o.inject) << " ["
                << r["reorder"].get<std::string>() << ", " << r["fusion"].get<std::string>() << ", "
                << r["target"].get<std::string>() << ", " << r["regions"].get<int>() << " regions]: "
                << (r.contains("unsupported") ? "not supported (no comparison): " + r["unsupported"].get<std::string>()
                    : r["agree"].get<bool>()  ? "agrees"
                                              : "DISAGREES " + ir::json_text(r["first_mismatch"]))
                << recall_words(r) << "\n";
    if (o.stats && on_halide)
      std::cout << "compile cache: " << ir::json_text(cache_json) << "\nper run: " << ir::json_text(all_stats) << "\n";
  }
  return all_agree ? 0 : 1;
}

}  // namespace

void register_run(Command& app, int* status) {
  auto o = std::make_shared<RunOptions>();
  auto* c = app.add_subcommand("run", "run a program under strategies and compare with the eager oracle");
  c->add_option("program", o->path, "the .af program")->required();
  flags::strategies(c, o->strategies, "or an external one; default: every must-agree strategy");
  flags::torch(c, o->torch);
  flags::inject(c, o->inject, "applied to every strategy");
  flags::reorder(c, o->reorder, "default program");
  flags::fusion(c, o->fusion, "default none");
  flags::target(c, o->target, "default interp");
  flags::checked(c, o->checked);
  flags::recall(c, o->recall);
  c->add_flag("--across-processes", o->across_processes,
              "with --recall: instead of a second call, compile the program in one process and the recall layout "
              "in a second one over the first's compiler cache folder (stale-from-cache)");
  c->add_flag("--json", o->json, "print one JSON object");
  c->add_option("--write-repro", o->write_repro,
                "write the repro.py of the external strategy's run to this path (its exit status is the verdict: "
                "1 diverges, 0 agrees)");
  c->add_flag("--dump-passes", o->dump_passes,
              "print the program after the strategy pass and the mutant pass (.af), the DAG, the order and the "
              "regions, then the schedule (.af with comments); runs nothing");
  c->add_flag("--stats", o->stats,
              "print compile-cache and lowering counters, host<->device transfers (Halide targets)");
  add_kernel_cache_flags(c);
  c->callback([o, status] { *status = run(*o); });
}

}  // namespace af::tools
