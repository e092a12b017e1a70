// aliasfuzz fuzz: a campaign (see fuzz/campaign.h) and its reports.
#include <ctime>
#include <iostream>

#include "fuzz/campaign.h"
#include "fuzz/check.h"
#include "reports/report.h"
#include "tools/commands.h"

namespace af::tools {

namespace {

struct FuzzArgs {
  fuzz::CampaignOptions o;
  std::string shard = "0/1";
  bool seed_given = false;
};

int run(FuzzArgs& a) {
  fuzz::CampaignOptions& o = a.o;
  if (std::sscanf(a.shard.c_str(), "%d/%d", &o.shard_i, &o.shard_n) != 2) {
    std::cerr << "aliasfuzz fuzz: --shard takes i/N\n";
    return 2;
  }
  if (!fuzz::target_available(o.target)) {
    std::cerr << "aliasfuzz fuzz: unknown or unavailable target '" << o.target << "' (valid: interp, host, ptx, cuda)\n";
    return 2;
  }
  if (!a.seed_given && !o.resume) o.seed = static_cast<uint64_t>(std::time(nullptr));
  if (o.out.empty()) o.out = "runs/fuzz-" + std::to_string(o.seed) + (o.shard_n > 1 ? "-shard" + std::to_string(o.shard_i) : "");
  std::cerr << "aliasfuzz fuzz: seed " << o.seed << ", shard " << o.shard_i << "/" << o.shard_n << ", "
            << (o.programs >= 0 ? std::to_string(o.programs) + " programs" : std::to_string(o.time_s) + " s")
            << ", jobs " << o.jobs << ", target " << o.target << ", out " << o.out << "\n";
  fuzz::CampaignSummary s;
  try {
    s = fuzz::run_campaign(o);
  } catch (const std::exception& e) {
    std::cerr << "aliasfuzz fuzz: " << e.what() << "\n";
    return 2;
  }
  try {
    reports::write_reports(o.out);
  } catch (const std::exception& e) {
    std::cerr << "aliasfuzz fuzz: reports: " << e.what() << "\n";
  }
  std::cout << "seed " << o.seed << ": " << s.programs << " programs in " << s.elapsed_s << " s ("
            << (s.elapsed_s > 0 ? s.programs / s.elapsed_s : 0) << "/s), " << s.invalid << " invalid, " << s.findings
            << " findings in " << s.buckets << " buckets (" << s.must_agree_buckets << " against must-agree strategies), "
            << s.crashes << " crashes, " << s.timeouts << " timeouts\n";
  if (s.external_runs > 0)
    std::cout << "external strategies: " << s.compared << " of " << s.external_runs
              << " runs reached a value comparison, " << s.unsupported << " unsupported (not findings)\n";
  for (const auto& n : s.not_supported) std::cout << n << " (left out of the generated programs)\n";
  std::cout << "findings: " << o.out << "/findings/\n";
  return 0;
}

}  // namespace

void register_fuzz(CLI::App& app, int* status) {
  auto a = std::make_shared<FuzzArgs>();
  auto* c = app.add_subcommand("fuzz", "run a differential fuzz campaign");
  c->add_option("--time", a->o.time_s, "seconds to run (default 60)");
  c->add_option("--programs", a->o.programs, "check programs [0, N) instead of running for a time");
  c->add_option("--seed", a->o.seed, "campaign seed (default: the clock; printed)")->each([a](const std::string&) { a->seed_given = true; });
  c->add_option("--jobs", a->o.jobs, "worker processes");
  c->add_option("--strategy", a->o.strategies, "strategies (repeatable; default: must-agree and under-study)");
  c->add_option("--inject", a->o.injects, "bug-zoo mutants to run too (repeatable)");
  c->add_option("--target", a->o.target, "interp, host or cuda");
  c->add_option("--out", a->o.out, "output folder (default runs/fuzz-SEED)");
  c->add_flag("--resume", a->o.resume, "continue an interrupted campaign in --out");
  c->add_option("--shard", a->shard, "take every N-th program starting at i: i/N");
  c->add_option("--case-timeout", a->o.case_timeout_s, "seconds before a case counts as a hang");
  c->add_option("--size", a->o.gen.size, "statements per generated program");
  c->add_flag("--quiet", a->o.quiet, "no status lines");
  c->add_option("--minimize-time", a->o.minimize_s, "seconds to minimize each new bucket's first finding (0: off)");
  c->add_option("--minimize-total", a->o.minimize_total_s, "seconds for all minimization (default: a quarter of --time)");
  c->callback([a, status] { *status = run(*a); });
}

}  // namespace af::tools
