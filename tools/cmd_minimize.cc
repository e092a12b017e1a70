// aliasfuzz minimize CASE.af --strategy S [--inject M] [--reorder P]
//   [--fusion F] [--target T] --out DIR [--time SECONDS] [--add-to-corpus]
// Shrinks a finding while its bucket stays the same; writes DIR/min.af,
// DIR/repro.py and DIR/minimize.json.
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <iostream>
#include <memory>

#include "campaign/campaign_options.h"
#include "generate/invalid.h"
#include "triage/evidence.h"
#include "minimize/minimize.h"
#include "triage/repro.h"
#include "ir/analysis.h"
#include "ir/text.h"
#include "compilers/runner.h"
#include "compilers/table.h"
#include "tools/commands.h"
#include "tools/run_flags.h"
#include "triage/minimize_finding.h"

namespace af::tools {

namespace {

struct MinimizeCmd {
  std::string path, out, torch;
  run::SpelledSpec spec;  // as the flags (or the bucket's settings.json) spell it
  double time_s = 60;
  double case_timeout_s = 0;  // one candidate's run of a real compiler (0: the runner's default, 120 s)
  int64_t max_tests = -1;
  int seeds = 16;
  bool add_to_corpus = false;
};

std::string source_root() {
  for (const char* v : {"AF_ROOT", "BUILD_WORKSPACE_DIRECTORY"})
    if (const char* e = std::getenv(v); e && *e) return e;
  return ".";
}

// `minimize findings/BUCKET`: the case, the spec and the output folder of
// a campaign's bucket, from its settings.json (flags given still win).
std::string from_bucket_folder(MinimizeCmd& o, const Command& c) {
  std::string text;
  if (!std::filesystem::is_directory(o.path)) return "";
  std::string dir = o.path;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (!std::filesystem::exists(dir + "/settings.json") || !read_file(dir + "/settings.json", &text))
    return dir + " is a folder without settings.json (give a .af case)";
  const nlohmann::json st = nlohmann::json::parse(text, nullptr, false);
  if (!st.is_object() || !st.contains("finding") || !st["finding"].is_object() || !st["finding"].contains("spec") ||
      !st["finding"]["spec"].is_object())
    return dir + "/settings.json names no run settings (a crash or timeout bucket cannot be minimized)";
  // The bucket's spec, field by field unless its flag was given (a key the
  // file lacks reads as RunSpec's default, the flag's default too).
  std::string why;
  const auto typed = run::spec_from_json(st["finding"]["spec"], &why);
  if (!typed) return dir + "/settings.json: " + why;
  const run::SpelledSpec file = run::spelled(*typed);
  auto take = [&](const char* flag, auto& field, const auto& from) {
    if (c.count(flag) == 0) field = from;
  };
  take("--strategy", o.spec.strategy, file.strategy);
  take("--inject", o.spec.inject, file.inject);
  take("--reorder", o.spec.reorder, file.reorder);
  take("--fusion", o.spec.fusion, file.fusion);
  take("--target", o.spec.target, file.target);
  take("--checked", o.spec.checked, file.checked);
  take("--recall", o.spec.recall, file.recall);
  // The campaign's case timeout bounds each candidate's run, as in the campaign.
  if (c.count("--case-timeout") == 0 && st.contains("case_timeout_s") && st["case_timeout_s"].is_number())
    o.case_timeout_s = st["case_timeout_s"].get<double>();
  o.path = dir + "/case.af";
  if (o.out.empty()) o.out = dir;
  return "";
}

int minimize_main(MinimizeCmd& o, const Command& c) {
  if (auto e = from_bucket_folder(o, c); !e.empty()) {
    std::cerr << "aliasfuzz minimize: " << e << "\n";
    return 2;
  }
  if (o.out.empty()) {
    std::cerr << "aliasfuzz minimize: --out is required with a .af case\n";
    return 2;
  }
  std::string text;
  if (!read_file(o.path, &text)) return 2;
  auto prog = ir::parse(text);
  if (prog) {
    // A program eager PyTorch rejects is a case too, for an external
    // strategy (the accepts-invalid class, or a compiler that dies on it).
    auto an = ir::analyze(*prog);
    if (!an && !(fuzz::eager_raises(an.error().kind) && compilers::external_strategy(o.spec.strategy)))
      prog = an.error();
  }
  if (!prog) {
    std::cerr << o.path << ":" << prog.error().line << ": " << ir::kind_name(prog.error().kind)
              << " error: " << prog.error().message << "\n";
    return 2;
  }
  if (o.spec.strategy.empty() && o.spec.inject.empty()) {
    std::cerr << "aliasfuzz minimize: give --strategy (and/or --inject)\n";
    return 2;
  }
  std::vector<std::string> one = {o.spec.strategy};
  if (auto e = flags::resolve_torch(one, o.torch); !e.empty()) {
    std::cerr << "aliasfuzz minimize: " << e << "\n";
    return 2;
  }
  o.spec.strategy = one.front();
  std::string why;
  const auto spec = run::parse_spec(o.spec, &why);
  if (!spec) {
    std::cerr << "aliasfuzz minimize: " << why << "\n";
    return 2;
  }
  // A compiler that hangs costs each candidate the bound on one answer,
  // never more (a hang's finding: every candidate may hang).
  if (o.case_timeout_s > 0)
    compilers::set_external_timeout(std::max(1.0, o.case_timeout_s * fuzz::kExternalShareOfCase));
  fuzz::MinimizeOptions mo;
  mo.time_s = o.time_s;
  mo.max_tests = o.max_tests;
  mo.seeds = o.seeds;
  fuzz::MinimizedFinding m = fuzz::minimize_finding(*prog, *spec, mo);
  if (!m.ok) {
    std::cerr << "aliasfuzz minimize: " << m.error << "\n";
    return 2;
  }
  std::string err;
  if (!fuzz::write_minimized(o.out, m, &err)) {
    std::cerr << "aliasfuzz minimize: " << err << "\n";
    return 2;
  }
  fuzz::record_finding_evidence(o.out, m);  // issue #57: where the compiler goes wrong
  const auto& s = m.stats;
  std::cout << "bucket " << m.bucket << "\n"
            << "statements " << s.stmts_before << " -> " << s.stmts_after << ", bytes " << s.bytes_before << " -> "
            << s.bytes_after << ", " << s.tests << " tests (" << s.invalid << " invalid candidates dropped), "
            << s.rounds << " rounds, " << s.elapsed_s << " s" << (s.budget_hit ? " (budget hit)" : "") << "\n"
            << "reproduce: aliasfuzz run " << o.out << "/min.af " << run::spec_flags(m.spec)
            << (m.spec == m.original_spec ? "" : "   (the reorder seed changed while minimizing)") << "\n"
            << "wrote " << o.out << "/min.af, " << o.out << "/repro.py, " << o.out << "/minimize.json\n";
  if (m.bug_cut)
    std::cout << "the budget cut the bug program short of its fixed point: its bug key is not final (a longer "
                 "--time finishes it)\n";
  if (o.add_to_corpus) {
    const std::string path = fuzz::add_to_corpus(source_root(), m, &err);
    if (path.empty()) {
      std::cerr << "aliasfuzz minimize: " << err << "\n";
      return 2;
    }
    std::cout << "added " << path << "\n";
  }
  return 0;
}

}  // namespace

void register_minimize(Command& app, int* status) {
  auto o = std::make_shared<MinimizeCmd>();
  auto* c = app.add_subcommand("minimize", "shrink a finding, keeping its bucket; write min.af and repro.py");
  c->add_option("case", o->path,
                "the .af case, or a campaign's findings/BUCKET folder (its settings.json gives the spec, "
                "the folder is the default --out)")
      ->required();
  flags::strategy(c, o->spec.strategy, "of the finding");
  flags::torch(c, o->torch);
  flags::inject(c, o->spec.inject, "of the finding");
  flags::reorder(c, o->spec.reorder, "of the finding; default program");
  flags::fusion(c, o->spec.fusion, "of the finding; default none");
  flags::target(c, o->spec.target, "of the finding; default interp");
  flags::checked(c, o->spec.checked);
  flags::recall(c, o->spec.recall);
  c->add_option("--out", o->out, "output folder (required with a .af case)");
  c->add_option("--time", o->time_s, "time budget in seconds (default 60; 0: none)");
  c->add_option("--max-tests", o->max_tests, "budget in candidate runs (deterministic; default none)");
  c->add_option("--case-timeout", o->case_timeout_s,
                "seconds one candidate's run of a real compiler may take before it counts as a hang (a campaign "
                "bucket: the campaign's; default 96)");
  c->add_option("--seeds", o->seeds,
                "random:SEED findings: also try seeds 0..N-1 when a candidate loses the divergence (default 16; 0: "
                "keep the seed)");
  c->add_flag("--add-to-corpus", o->add_to_corpus, "also write corpus/regressions/NAME.af");
  c->callback([o, status, c] { *status = minimize_main(*o, *c); });
}

}  // namespace af::tools
