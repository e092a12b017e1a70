// aliasfuzz run PROGRAM.af: the oracle's observables and every strategy's
// agreement with them, with the JSON and exit-status contract of DESIGN.md.
#include <iostream>
#include <nlohmann/json.hpp>

#include "ir/analysis.h"
#include "oracles/eager.h"
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

int run(const RunOptions& o) {
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
  for (const auto& s : o.strategies)
    if (s != "eager") {
      std::cerr << "aliasfuzz run: unknown strategy '" << s << "' (valid: eager)\n";
      return 2;
    }
  if (o.target != "interp") {
    std::cerr << "aliasfuzz run: unknown target '" << o.target << "' (valid: interp)\n";
    return 2;
  }
  oracles::Observables expected = oracles::run_eager(*prog, *an);
  nlohmann::json runs = nlohmann::json::array();
  bool all_agree = true;
  std::vector<std::string> strategies = o.strategies.empty() ? std::vector<std::string>{"eager"} : o.strategies;
  for (const auto& s : strategies) {
    // eager: program order, one region per op, executed by the reference kernels.
    oracles::Observables actual = oracles::run_eager(*prog, *an);
    auto mm = oracles::compare(*prog, expected, actual);
    all_agree = all_agree && !mm;
    runs.push_back({{"strategy", s}, {"inject", nullptr}, {"reorder", o.reorder}, {"fusion", o.fusion},
                    {"target", o.target}, {"agree", !mm}, {"regions", prog->stmts.size()},
                    {"first_mismatch", mm ? mismatch_json(*mm) : nlohmann::json(nullptr)}});
  }
  if (o.json) {
    out = {{"valid", true}, {"error", nullptr}, {"oracle", observables_json(*prog, expected)}, {"runs", runs}};
    std::cout << out.dump() << "\n";
  } else {
    for (const auto& r : runs)
      std::cout << r["strategy"].get<std::string>() << " [" << r["reorder"].get<std::string>() << ", "
                << r["fusion"].get<std::string>() << ", " << r["target"].get<std::string>() << "]: "
                << (r["agree"].get<bool>() ? "agrees" : "DISAGREES " + r["first_mismatch"].dump()) << "\n";
  }
  return all_agree ? 0 : 1;
}

}  // namespace

void register_run(CLI::App& app, int* status) {
  auto o = std::make_shared<RunOptions>();
  auto* c = app.add_subcommand("run", "run a program under strategies and compare with the eager oracle");
  c->add_option("program", o->path, "the .af program")->required();
  c->add_option("--strategy", o->strategies, "strategy (repeatable); default: every must-agree strategy");
  c->add_option("--inject", o->inject, "a bug-zoo mutant");
  c->add_option("--reorder", o->reorder, "reorder policy: program, random:SEED, fusion, asap, alap");
  c->add_option("--fusion", o->fusion, "fusion policy: none, greedy, dataflow");
  c->add_option("--target", o->target, "interp, host, cuda or ptx");
  c->add_flag("--checked", o->checked, "device-side checks (async asserts)");
  c->add_flag("--json", o->json, "print one JSON object");
  c->callback([o, status] { *status = run(*o); });
}

}  // namespace af::tools
