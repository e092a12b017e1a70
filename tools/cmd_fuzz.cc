// aliasfuzz fuzz: a campaign (see campaign/campaign.h) and its reports.
#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <type_traits>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ir/json_text.h"
#include "campaign/campaign.h"
#include "check/campaign_specs.h"
#include "check/check.h"
#include "compilers/table.h"
#include "reports/report.h"
#include "schedulers/schedulers.h"
#include "tools/commands.h"
#include "tools/target_executor.h"
#include "tools/run_flags.h"
#include "tools/folder_lock.h"

namespace af::tools {

namespace {

struct FuzzArgs {
  fuzz::CampaignOptions o;
  // --strategy, --inject, --target as spelled (and as campaign.json keeps
  // them); typed_settings parses them into `o`.
  std::vector<std::string> strategies, injects;
  std::string target = "interp";
  std::string shard = "0/1";
  std::string seed;  // parsed strictly (CLI11 would wrap "-1" into 2^64-1)
  std::string fail_on = "bugs";
  std::string torch;        // --torch
  bool check_only = false;  // validate the options and exit (aliasfuzz slurm uses it)
  Command* app = nullptr;   // to tell which flags were given (--resume)
};

// --resume continues the campaign in --out with its own settings
// (campaign.json); a flag given again must say the same, else it is an
// error naming both values.
std::string adopt_campaign_settings(FuzzArgs& a) {
  fuzz::CampaignOptions& o = a.o;
  std::ifstream f(o.out + "/campaign.json");
  if (!f) return "";  // nothing saved yet: the flags start it
  nlohmann::json c = nlohmann::json::parse(f, nullptr, false);
  if (!c.is_object()) return o.out + "/campaign.json is unreadable";
  auto given = [&](const char* flag) { return a.app && a.app->count(flag) > 0; };
  std::string err;
  auto take = [&](const char* flag, const char* key, auto& field) {
    using T = std::decay_t<decltype(field)>;
    if (!c.contains(key)) return;
    T saved;
    try {
      saved = c[key].get<T>();
    } catch (const std::exception&) {
      return;
    }
    if (given(flag) && !(saved == field) && err.empty())
      err = std::string(flag) + " " + ir::json_text(nlohmann::json(field)) + " differs from the campaign's " +
            ir::json_text(nlohmann::json(saved)) + " (" + o.out + "/campaign.json)";
    field = saved;
  };
  uint64_t seed = o.seed;
  take("--seed", "seed", seed);
  o.seed = seed;
  take("--strategy", "strategies", a.strategies);
  take("--inject", "injects", a.injects);
  take("--target", "target", a.target);
  take("--checked", "checked", o.checked);
  take("--recall", "recall", o.recall);
  take("--across-processes", "across_processes", o.across_processes);
  take("--size", "gen_size", o.gen.size);
  take("--max-numel", "gen_max_numel", o.gen.max_numel);
  take("--weight", "weights", o.gen_weights);
  take("--format", "format", o.gen_format);
  take("--invalid-rate", "gen_invalid_rate", o.gen.invalid_rate);
  take("--programs", "programs", o.programs);
  take("--log-all", "log_all", o.log_all);
  std::string shard = a.shard;
  take("--shard", "shard", shard);
  if (shard != a.shard) {
    a.shard = shard;
    std::sscanf(a.shard.c_str(), "%d/%d", &o.shard_i, &o.shard_n);
  }
  return err;
}

// The default --case-timeout of campaigns with an external strategy.
constexpr double kExternalCaseTimeout = 120;
// The default --minimize-time of those campaigns (per bucket, within --minimize-total).
constexpr double kExternalMinimizeTime = 120;

// The spelled --strategy, --inject and --target, parsed into the campaign's typed settings.
std::string typed_settings(FuzzArgs& a) {
  std::string why;
  auto strategies = run::parse_strategies(a.strategies, &why);
  if (!strategies) return "--strategy: " + why;
  auto mutants = run::parse_mutants(a.injects, &why);
  if (!mutants) return why;
  const auto target = usable_target(a.target, &why);
  if (!target) return why;
  a.o.strategies = std::move(*strategies);
  a.o.injects = std::move(*mutants);
  a.o.target = *target;
  return "";
}

// --weight and --format into the generator's options, from the flags' own
// values (a resume applies the campaign's saved ones again).
std::string gen_settings(fuzz::CampaignOptions& o) {
  o.gen.op_weights.clear();
  for (const std::string& w : o.gen_weights)
    if (std::string e = fuzz::set_op_weight(w, &o.gen); !e.empty()) return e;
  return fuzz::use_format(o.gen_format, &o.gen);
}

// Every option checked before any work (exit 2 with the valid values).
std::string invalid_options(FuzzArgs& a) {
  fuzz::CampaignOptions& o = a.o;
  if (auto e = typed_settings(a); !e.empty()) return e;
  if (o.recall &&
      std::none_of(o.strategies.begin(), o.strategies.end(), [](const run::RunStrategy& s) { return s.is_external(); }))
    return "--recall calls a compiled function again: it needs an external --strategy (a compiler under study)";
  if (o.across_processes && !o.recall)
    return "--across-processes goes with --recall (it replaces the second call by a second process)";
  if (!(o.time_s > 0)) return "--time must be > 0 seconds";
  if (o.programs < -1) return "--programs must be >= 0";
  if (o.jobs < 1 || o.jobs > 1024) return "--jobs must be in 1..1024";
  if (!(o.case_timeout_s > 0)) return "--case-timeout must be > 0 seconds";
  if (!(o.minimize_s >= 0)) return "--minimize-time must be >= 0";
  if (!(o.minimize_share >= 0 && o.minimize_share <= 0.9)) return "--minimize-budget must be in [0, 0.9]";
  if (o.gen.size < 1 || o.gen.size > 9000) return "--size must be in 1..9000";
  if (o.gen.max_numel < 1 || o.gen.max_numel > 65536) return "--max-numel must be in 1..65536";
  if (!(o.gen.invalid_rate >= 0 && o.gen.invalid_rate <= 1)) return "--invalid-rate must be in [0, 1]";
  if (auto e = gen_settings(o); !e.empty()) return e;
  if (a.fail_on != "bugs" && a.fail_on != "any") return "--fail-on takes bugs or any";
  if (!a.seed.empty()) {
    if (!unsigned_integer(a.seed).empty()) return "--seed takes a non-negative integer of at most 19 digits";
    o.seed = std::strtoull(a.seed.c_str(), nullptr, 10);
  }
  if (std::sscanf(a.shard.c_str(), "%d/%d", &o.shard_i, &o.shard_n) != 2 || o.shard_n < 1 || o.shard_i < 0 ||
      o.shard_i >= o.shard_n)
    return "--shard takes i/N with 0 <= i < N";
  return "";
}

int run(FuzzArgs& a) {
  fuzz::CampaignOptions& o = a.o;
  if (auto e = invalid_options(a); !e.empty()) {
    std::cerr << "aliasfuzz fuzz: " << e << "\n";
    return 2;
  }
  if (auto e = flags::resolve_torch(a.strategies, a.torch); !e.empty()) {
    std::cerr << "aliasfuzz fuzz: " << e << "\n";
    return 2;
  }
  if (auto e = typed_settings(a); !e.empty()) {
    std::cerr << "aliasfuzz fuzz: " << e << "\n";
    return 2;
  }
  if (a.check_only) return 0;
  // A campaign whose every strategy is a compiler that is not installed
  // would only run the oracle: nothing is compared, nothing can be found.
  if (o.injects.empty() && !o.strategies.empty() &&
      std::all_of(o.strategies.begin(), o.strategies.end(), [](const run::RunStrategy& s) {
        return s.is_external() && compilers::external_python(*s.external()).empty();
      })) {
    std::cerr << "aliasfuzz fuzz: nothing to compare: "
              << compilers::external_unavailable(*o.strategies.front().external()) << "\n";
    return 2;
  }
  // A worker's first external case starts its Python and compiles once
  // (torch.compile: ~20-40 s on a loaded machine): under the default 20 s
  // every worker counted as hung and its restart hung again.
  const auto is_external = [](const run::RunStrategy& s) { return s.is_external(); };
  const bool external = std::any_of(o.strategies.begin(), o.strategies.end(), is_external);
  if (external && !(a.app && a.app->count("--case-timeout") > 0)) o.case_timeout_s = kExternalCaseTimeout;
  // Minimizing a finding of a real compiler takes tens of runs of a second
  // or more each: the 5 s default per bucket wrote nothing.
  if (external && !(a.app && a.app->count("--minimize-time") > 0)) o.minimize_s = kExternalMinimizeTime;
  // A finding of a real compiler needs its small program (issue.md), but an
  // uncapped end phase turned a 10-minute campaign into 46 (18 buckets x
  // 120 s): a --time campaign minimizes for at most as long again (buckets
  // the cap cuts are reported as cut); a --programs one has no cap.
  if (external && !(a.app && a.app->count("--minimize-total") > 0))
    o.minimize_total_s = o.programs >= 0 ? 1e9 : std::max(o.time_s, o.minimize_s);
  // Checked mode instruments aliasfuzz's own lowered regions; a real
  // compiler runs in its own Python, so there is nothing to check there.
  if (o.checked && !o.strategies.empty() && o.injects.empty() &&
      std::all_of(o.strategies.begin(), o.strategies.end(), is_external))
    std::cerr << "aliasfuzz fuzz: note: --checked has no effect on external strategies ("
              << fmt::format("{}", fmt::join(run::names_of(o.strategies), ", "))
              << "): they run in their own process; divergences are located by prefix bisection\n";
  if (o.resume && o.out.empty()) {
    std::cerr << "aliasfuzz fuzz: --resume needs the campaign's --out\n";
    return 2;
  }
  if (o.resume) {
    if (auto e = adopt_campaign_settings(a); !e.empty()) {
      std::cerr << "aliasfuzz fuzz: --resume: " << e << "\n";
      return 2;
    }
    if (auto e = typed_settings(a); !e.empty()) {
      std::cerr << "aliasfuzz fuzz: --resume: " << o.out << "/campaign.json: " << e << "\n";
      return 2;
    }
    if (auto e = gen_settings(o); !e.empty()) {
      std::cerr << "aliasfuzz fuzz: --resume: " << o.out << "/campaign.json: " << e << "\n";
      return 2;
    }
    a.seed = std::to_string(o.seed);
    // A campaign saved before torch versions existed names aot-eager and
    // the like bare: its bucket names stay, and it says which torch runs now.
    for (const auto& s : o.strategies)
      if (const auto& e = s.external(); e && e->versioned && e->torch_version.empty())
        std::cerr << "aliasfuzz fuzz: note: the campaign's " << s.name() << " has no torch version; it runs under "
                  << (compilers::newest_torch().empty() ? "no installed torch" : "torch " + compilers::newest_torch())
                  << ", the newest installed\n";
  }
  if (a.seed.empty() && !o.resume) o.seed = static_cast<uint64_t>(std::time(nullptr));
  if (o.out.empty())
    o.out = "runs/fuzz-" + std::to_string(o.seed) + (o.shard_n > 1 ? "-shard" + std::to_string(o.shard_i) : "");
  if (!lock_folder(o.out, false, "fuzz")) return 2;
  o.command_line = command_line();
  o.versions = tool_versions();
  std::cerr << "aliasfuzz fuzz: seed " << o.seed << ", shard " << o.shard_i << "/" << o.shard_n << ", "
            << (o.programs >= 0 ? std::to_string(o.programs) + " programs" : std::to_string(o.time_s) + " s")
            << ", jobs " << o.jobs << ", target " << run::target_name(o.target) << ", out " << o.out << "\n";
  fuzz::CampaignSummary s;
  try {
    s = fuzz::run_campaign(o);
  } catch (const std::exception& e) {
    std::cerr << "aliasfuzz fuzz: " << e.what() << "\n";
    return 2;
  }
  std::string bugs_line;
  try {
    reports::write_reports(o.out);
    const auto summary = reports::summarize(o.out);
    bugs_line = reports::merged_line(summary);
    if (summary.contains("unfinished_buckets"))
      bugs_line += "; " + std::to_string(summary["unfinished_buckets"].size()) +
                   " buckets whose minimization the budget cut, not counted as bugs (report.md lists them)";
  } catch (const std::exception& e) {
    std::cerr << "aliasfuzz fuzz: reports: " << e.what() << "\n";
  }
  std::cout << "seed " << o.seed << ": " << s.programs << " programs in " << s.elapsed_s << " s ("
            << (s.elapsed_s > 0 ? s.programs / s.elapsed_s : 0) << "/s), " << s.invalid << " invalid, " << s.findings
            << " findings in " << s.buckets << " buckets (" << s.must_agree_buckets
            << " against must-agree strategies), " << s.crashes << " crashes, " << s.timeouts << " timeouts\n";
  if (s.minimize_rounds > 0 || s.minimize_queued > 0)
    std::cout << "minimization while running: " << s.minimize_rounds
              << (s.minimize_rounds == 1 ? " round, " : " rounds, ") << static_cast<int>(s.minimize_round_s + 0.5)
              << " s (" << (s.elapsed_s > 0 ? static_cast<int>(100 * s.minimize_round_s / s.elapsed_s + 0.5) : 0)
              << "% of the time); " << s.bugs_seen << " distinct bugs minimized in all; " << s.minimize_queued
              << " findings still queued\n";
  if (s.external_runs > 0)
    std::cout << "external strategies: " << s.compared << " of " << s.external_runs
              << " runs reached a value comparison, " << s.unsupported << " unsupported (not findings)\n";
  else if (s.unsupported > 0)
    std::cout << s.unsupported << " runs unsupported (not findings): a model predicts its real compiler refuses an op, "
              << "or the Halide lowering does not implement one (report.md lists the reasons)\n";
  for (const auto& n : s.not_supported) std::cout << n << " (left out of the generated programs)\n";
  std::string tiers;
  // Slow compilers run under one program per second: 0.24, not 0 (as the status line).
  for (const auto& [name, v] : s.programs_per_s_by_tier)
    tiers += fmt::format(v < 10 ? " {} {:.2f}" : " {} {:.0f}", name, v);
  if (!tiers.empty()) std::cout << "per worker, programs/s in:" << tiers << "\n";
  // Which divergences are expected (strategies under study, mutants) and
  // which are bugs in aliasfuzz (must-agree strategies).
  const fuzz::CampaignRuns runs = fuzz::campaign_runs(o.strategies, o.injects);
  if (!runs.must_agree.empty())
    std::cout << "must agree (a divergence is a bug in aliasfuzz): "
              << fmt::format("{}", fmt::join(runs.must_agree, ", ")) << "\n";
  if (!runs.expected_to_diverge.empty())
    std::cout << "expected to diverge (under study, mutants): "
              << fmt::format("{}", fmt::join(runs.expected_to_diverge, ", ")) << "\n";
  if (!bugs_line.empty()) std::cout << bugs_line << "\n";
  std::cout << "findings: " << o.out << "/findings/ (one line per bucket in " << o.out << "/findings.jsonl)\n";
  std::cout << "report: " << o.out << "/report.html (also report.md, report.json)\n";
  // 1: bugs in aliasfuzz itself (must-agree findings) or crashes; with
  // --fail-on any, any finding (a compiler's own CI).
  if (s.must_agree_buckets > 0 || s.crashes > 0) return 1;
  if (a.fail_on == "any" && s.buckets > 0) return 1;
  return 0;
}

}  // namespace

void register_fuzz(Command& app, int* status) {
  auto a = std::make_shared<FuzzArgs>();
  auto* c = app.add_subcommand("fuzz", "run a differential fuzz campaign");
  a->app = c;
  c->add_option("--time", a->o.time_s, "seconds to run (default 60)");
  c->add_option("--programs", a->o.programs, "check programs [0, N) instead of running for a time");
  c->add_option("--seed", a->seed, "campaign seed, at most 19 digits (default: the clock; printed)");
  c->add_flag("--check-options", a->check_only, "only validate the options (exit 0 or 2)");
  c->add_option("--fail-on", a->fail_on,
                "exit 1 on: bugs (must-agree findings or crashes; default) or any (any finding)");
  c->add_option("--jobs", a->o.jobs, "worker processes");
  flags::strategies(c, a->strategies, "or an external one; default: must-agree and under-study");
  flags::torch(c, a->torch);
  flags::injects(c, a->injects, "run too; with only --inject, just the mutants");
  flags::target(c, a->target, "default interp");
  flags::checked(c, a->o.checked);
  flags::recall(c, a->o.recall);
  c->add_flag("--across-processes", a->o.across_processes,
              "with --recall: compile each program in one process and its recall layout in a new one over the "
              "first's compiler cache folder (the stale-from-cache history check; two Python start-ups a program)");
  c->add_option("--out", a->o.out, "output folder (default runs/fuzz-SEED)");
  c->add_flag("--resume", a->o.resume, "continue an interrupted campaign in --out");
  c->add_option("--shard", a->shard, "take every N-th program starting at i: i/N");
  c->add_option("--case-timeout", a->o.case_timeout_s,
                "seconds before a case counts as a hang (default 20; 120 with an external strategy)");
  c->add_option("--size", a->o.gen.size, "statements per generated program");
  c->add_option("--max-numel", a->o.gen.max_numel,
                "largest storage / tensor of a generated program (default 64; thousands reach the vectorized and "
                "tiled loops of a real compiler's CPU code)");
  c->add_option("--weight", a->o.gen_weights, "op weight multiplier OP=W (repeatable; 0 disables an op)");
  c->add_option("--format", a->o.gen_format, fuzz::kFormatHelp);
  c->add_option("--invalid-rate", a->o.gen.invalid_rate,
                "fraction of programs made ones eager PyTorch rejects (overlap, shape, view, arg errors): an external "
                "strategy that runs one is a finding of the accepts-invalid class (default 0)");
  c->add_flag("--quiet", a->o.quiet, "no status lines");
  c->add_flag("-v,--verbose", a->o.verbose, "also a line per minimization round");
  c->add_flag("--log-all", a->o.log_all,
              "also log every divergence to findings-all.jsonl (findings.jsonl keeps one line per bucket)");
  c->add_option(
      "--minimize-time", a->o.minimize_s,
      "seconds to minimize each new bucket's first finding (default 5; 120 with an external strategy; 0: off)");
  c->add_option(
      "--minimize-novel", a->o.novelty_total_s,
      "seconds for novelty leads after the buckets: findings with a feature (an alias path, a view, an op) no bug "
      "program had, each minimized keeping it (default: a quarter of --time, 30 s with --programs; 0: off)");
  c->add_option("--minimize-budget", a->o.minimize_share,
                "share of a --time campaign's wall time spent minimizing while it runs, in rounds (default 0.2; 0: "
                "only at the end); the rest of --minimize-total and --minimize-novel runs at the end");
  c->add_flag("--minimize-past-known", a->o.minimize_past_known,
              "minimize a finding to its fixed point even after it turned into a known bug (a ledger entry's "
              "signature; by default its minimization ends there, and minimize.json says known_bug)");
  c->add_option(
      "--minimize-total", a->o.minimize_total_s,
      "seconds for all minimization (default: a quarter of --time; with an external strategy as long as --time, "
      "no cap with --programs; each bucket has its --minimize-time; buckets are minimized --jobs at a time)");
  add_kernel_cache_flags(c);
  c->callback([a, status] { *status = run(*a); });
}

}  // namespace af::tools
