// aliasfuzz run PROGRAM.af: the oracle's observables and every strategy's
// agreement with them, with the JSON and exit-status contract of DESIGN.md.
//
//   aliasfuzz run PROGRAM.af [--strategy S]... [--inject M] [--reorder P]
//                 [--fusion F] [--target interp|host|cuda|ptx] [--checked] [--json]
//
// With no --strategy it runs every strategy that must agree with the oracle
// (eager, functionalize, update_aliases-ordered, update_aliases-min), each
// with the --inject mutant when one is given. Exit status: 0 valid and every
// run agrees, 1 some run disagrees, 2 invalid program or usage error.
#include <iostream>
#include <nlohmann/json.hpp>

#include "ir/analysis.h"
#include "oracles/eager.h"
#include "schedulers/schedulers.h"
#include "tools/commands.h"
#include "tools/json_out.h"

namespace af::tools {

namespace {

struct RunOptions {
  std::string path;
  std::vector<std::string> strategies;
  std::string inject, reorder = "program", fusion = "none", target = "interp";
  bool checked = false, json = false;
};

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// One run of one strategy on one target.
struct TargetRun {
  bool agree = false;
  int regions = 0;
  nlohmann::json first_mismatch;  // null when agreeing
};

// The target hook. `interp` executes the schedule with the reference
// kernels (schedulers::interpret). host|cuda|ptx hand the same Schedule to
// the Halide lowering once //lowering is linked into this binary; until
// then check_target() rejects them as a usage error ("not built yet").
// The lowering engineer's change is, in this function:
//
//   if (target != "interp") {
//     lowering::LowerOptions lo;
//     lo.target = *lowering::target_from_name(target);
//     lo.checked = checked;
//     lo.inject = s.inject;                       // lower-halide-alias acts there
//     auto res = lowering::run_schedule(s, lo, nullptr, cache);
//     if (!res.ok) -> agree false, first_mismatch {"observable": "lowering", "what": res.error}
//     else compare(p, expected, res.obs), plus res.first_failure in checked mode
//   }
//
// and, in check_target(), accepting "host", "cuda" and "ptx".
TargetRun run_on_target(const std::string& target, const schedulers::Schedule& s, const ir::Program& p,
                        const oracles::Observables& expected) {
  TargetRun r;
  r.regions = s.counters.regions;
  (void)target;  // only "interp" reaches here (see check_target)
  oracles::Observables actual = schedulers::interpret(s);
  auto mm = oracles::compare(p, expected, actual);
  r.agree = !mm;
  r.first_mismatch = mm ? mismatch_json(*mm) : nlohmann::json(nullptr);
  return r;
}

std::optional<std::string> check_target(const std::string& t) {
  if (t == "interp") return std::nullopt;
  if (t == "host" || t == "cuda" || t == "ptx") return "target '" + t + "' not built yet (valid now: interp)";
  return "unknown target '" + t + "' (valid: interp, host, cuda, ptx)";
}

int run(const RunOptions& o) {
  // Usage errors first.
  std::vector<std::string> strategies =
      o.strategies.empty() ? schedulers::must_agree_strategy_names() : o.strategies;
  for (const auto& s : strategies) {
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
      out = {{"valid", false}, {"error", error_json(e)}, {"oracle", nullptr}, {"runs", nlohmann::json::array()}};
      std::cout << out.dump() << "\n";
    } else {
      std::cout << o.path << ":" << e.line << ": " << ir::kind_name(e.kind) << " error: " << e.message << "\n";
    }
    return 2;
  }
  oracles::Observables expected = oracles::run_eager(*prog, *an);
  nlohmann::json runs = nlohmann::json::array();
  bool all_agree = true;
  for (const auto& s : strategies) {
    schedulers::Options so{s, o.inject, o.reorder, o.fusion};
    auto sc = schedulers::make_schedule(*prog, *an, so);
    TargetRun r;
    if (!sc) {
      // The strategy produced an invalid program: a bug, reported as a disagreement.
      r.first_mismatch = {{"observable", "schedule"}, {"index", 0}, {"expected", nullptr}, {"actual", nullptr},
                          {"what", sc.error().message}};
    } else {
      r = run_on_target(o.target, *sc, *prog, expected);
    }
    all_agree = all_agree && r.agree;
    runs.push_back({{"strategy", s}, {"inject", o.inject.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.inject)},
                    {"reorder", o.reorder}, {"fusion", o.fusion}, {"target", o.target}, {"agree", r.agree},
                    {"regions", r.regions}, {"first_mismatch", r.first_mismatch}});
  }
  if (o.json) {
    out = {{"valid", true}, {"error", nullptr}, {"oracle", observables_json(*prog, expected)}, {"runs", runs}};
    std::cout << out.dump() << "\n";
  } else {
    for (const auto& r : runs)
      std::cout << r["strategy"].get<std::string>() << (o.inject.empty() ? "" : " +" + o.inject) << " ["
                << r["reorder"].get<std::string>() << ", " << r["fusion"].get<std::string>() << ", "
                << r["target"].get<std::string>() << ", " << r["regions"].get<int>() << " regions]: "
                << (r["agree"].get<bool>() ? "agrees" : "DISAGREES " + r["first_mismatch"].dump()) << "\n";
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
  c->add_option("--reorder", o->reorder, "reorder policy: program, random:SEED, fusion, asap, alap");
  c->add_option("--fusion", o->fusion, "fusion policy: none, greedy, dataflow");
  c->add_option("--target", o->target, "interp (reference kernels), host, cuda or ptx (Halide)");
  c->add_flag("--checked", o->checked, "device-side checks (async asserts; Halide targets)");
  c->add_flag("--json", o->json, "print one JSON object");
  c->callback([o, status] { *status = run(*o); });
}

}  // namespace af::tools
