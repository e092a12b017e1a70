// A campaign's parent process: hands programs to the worker pool
// (campaign/worker_pool.h), adds up their answers (campaign/campaign_tally.h),
// saves its files every second (campaign/campaign_store.h), prints a status
// line every second and a NEW line per bucket, and minimizes each new
// bucket's first finding and the novelty leads: in rounds while a time
// campaign runs (--minimize-budget), and what is left when it ends.
#include "ir/json_text.h"
#include "campaign/campaign.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "campaign/campaign_case.h"
#include "campaign/campaign_minimize.h"
#include "campaign/campaign_store.h"
#include "campaign/campaign_tally.h"
#include "campaign/case_queue.h"
#include "check/check.h"
#include "check/files.h"
#include "campaign/worker_pool.h"
#include "compilers/capabilities.h"

namespace af::fuzz {

using nlohmann::json;

namespace {

volatile sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

class Campaign {
 public:
  explicit Campaign(const CampaignOptions& o) : o_(o), store_(o) {
    queue_.shard_i = o.shard_i;
    queue_.shard_n = o.shard_n;
    queue_.programs = o.programs;
  }

  CampaignSummary run() {
    if (o_.shard_n < 1 || o_.shard_i < 0 || o_.shard_i >= o_.shard_n) throw std::runtime_error("bad --shard i/N");
    if (o_.jobs < 1) throw std::runtime_error("--jobs must be at least 1");
    make_dirs(o_.out + "/findings");
    if (o_.resume)
      store_.load(tally_, queue_, &elapsed_before_);
    else if (std::FILE* f = std::fopen((o_.out + "/state.json").c_str(), "r")) {
      std::fclose(f);
      throw std::runtime_error(o_.out + " already holds a campaign: use --resume or another --out");
    }
    save_campaign_settings(o_);
    if (o_.log_all) all_out_ = std::make_unique<LineAppender>(o_.out + "/findings-all.jsonl");
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGPIPE, SIG_IGN);
    start_ = now_s() - elapsed_before_;
    minimizer_ = std::make_unique<CampaignMinimizer>(o_, tally_, start_, [] { return g_stop != 0; });
    WorkerPool pool(o_, {[this] { return queue_.next(); }, [this](uint64_t k) { queue_.give_back(k); },
                         [this](uint64_t k, const json& r) { record(k, r); },
                         [this](uint64_t k, const RoutineAnswer& a) { record(k, a); },
                         [this](uint64_t k, const std::string& kind, const std::string& detail, int spec) {
                           died(k, kind, detail, spec);
                         },
                         [] { return g_stop != 0; }});
    pool.start(o_.jobs);
    double last_status = now_s(), last_save = now_s();
    // A status line a second on a terminal; in a log, one every 10 s (a
    // 60 s campaign's output stays a screenful).
    const double status_every = isatty(2) ? 1.0 : 10.0;
    double last_printed = now_s();
    while (!g_stop) {
      const double t = now_s();
      const bool time_up = o_.programs < 0 && t - start_ >= o_.time_s;
      if (!time_up && minimizer_->round_due(t)) {
        // The workers finish what they hold, then wait while the
        // minimizers have the --jobs slots.
        while (pool.busy() && !g_stop) pool.poll();
        minimizer_->round();
        continue;
      }
      if (!time_up) pool.feed();
      if (!pool.busy() && (time_up || queue_.exhausted())) break;
      pool.poll();
      if (now_s() - last_status >= 1.0) {
        last_status = now_s();
        tally_.add_timeline_point(last_status - start_);
        if (!o_.quiet && now_s() - last_printed >= status_every) {
          last_printed = now_s();
          status_line(stderr);
        }
      }
      if (now_s() - last_save >= 1.0) {
        last_save = now_s();
        store_.save_state(tally_, queue_, now_s() - start_);
      }
    }
    pool.finish();
    tally_.add_timeline_point(now_s() - start_);
    store_.save_state(tally_, queue_, now_s() - start_);
    if (!o_.quiet) status_line(stderr);
    if (!g_stop) minimizer_->finish();
    CampaignSummary s;
    s.programs = tally_.programs;
    s.invalid = tally_.invalid;
    s.findings = tally_.findings;
    s.buckets = static_cast<int64_t>(tally_.buckets.size());
    s.crashes = tally_.crashes;
    s.timeouts = tally_.timeouts;
    for (const auto& [name, b] : tally_.buckets) s.must_agree_buckets += b.must_agree;
    s.elapsed_s = now_s() - start_;
    for (const auto& [name, t] : tally_.tiers)
      if (t.seconds > 0) s.programs_per_s_by_tier[name] = t.programs / t.seconds;
    s.external_runs = tally_.external_runs;
    s.compared = tally_.compared;
    s.unsupported = tally_.unsupported;
    s.not_supported = o_.not_supported;
    s.minimize_rounds = minimizer_->rounds();
    s.minimize_round_s = minimizer_->round_seconds();
    s.bugs_seen = minimizer_->bugs();
    s.minimize_queued = minimizer_->queued();
    return s;
  }

 private:
  const CampaignOptions& o_;
  CampaignStore store_;
  CampaignTally tally_;
  CaseQueue queue_;
  std::unique_ptr<LineAppender> all_out_;  // findings-all.jsonl (--log-all)
  double start_ = 0, elapsed_before_ = 0;
  std::unique_ptr<CampaignMinimizer> minimizer_;  // made when the run starts
  int new_lines_ = 0;                             // NEW lines printed for buckets under study
  static constexpr int kNewLines = 12;

  // Program k crashed or hung the worker. A hang while an external
  // compiler computed (spec >= 0) is that compiler's runner-timeout
  // finding; otherwise a finding of aliasfuzz itself, of kind crash or
  // timeout.
  void died(uint64_t k, const std::string& kind, const std::string& detail, int spec) {
    json f = spec >= 0 ? hang_finding(o_, k, spec) : json();
    if (f.is_null()) {
      f = {{"spec", nullptr}, {"bucket", kind}, {"op", ""}, {"error", detail}};
      (kind == "crash" ? tally_.crashes : tally_.timeouts)++;
    }
    record(k, json{{"k", k}, {"valid", true}, {"runs", 0}, {"findings", json::array({f})}});
  }

  void record(uint64_t k, const json& r) {
    tally_.count_program(r);
    const auto findings = r.find("findings");
    if (findings != r.end() && findings->is_array())
      for (const json& f : *findings) {
        json line = f;
        line["k"] = k;
        line["t"] = now_s() - start_;
        if (all_out_) all_out_->append(ir::json_text(line));
        add_finding(k, line);
      }
    if (const auto it = r.find("repeats"); it != r.end() && it->is_object()) {
      for (const auto& [bucket, n] : it->items())
        if (n.is_number_integer()) tally_.add_repeats(bucket, n.get<int64_t>());
      store_.findings_dirty = true;
    }
    queue_.mark_done(k);
  }

  // The same for a routine answer: its tiers and repeats, no finding.
  void record(uint64_t k, const RoutineAnswer& a) {
    tally_.count_program(a);
    for (const auto& [bucket, n] : a.repeats) tally_.add_repeats(bucket, n);
    if (!a.repeats.empty()) store_.findings_dirty = true;
    queue_.mark_done(k);
  }

  void add_finding(uint64_t k, const json& f) {
    const std::string name = f.value("bucket", "unknown");
    const CampaignTally::Added added = tally_.add_finding(k, f, now_s() - start_);
    store_.findings_dirty = true;
    const bool must = added.fresh && finding_must_agree(f);
    // Like AFL++/libFuzzer: a line when a bucket appears; bugs in aliasfuzz
    // itself (must-agree, crashes, hangs) always, in red on a terminal;
    // buckets of the systems under study up to a screenful, the rest in
    // the status line's count (-v: every one).
    if (added.fresh && !o_.quiet && !must && !o_.verbose && ++new_lines_ > kNewLines) {
      if (new_lines_ == kNewLines + 1)
        std::fprintf(stderr,
                     "[%6.1fs] (further new buckets of the systems under study: the status line counts them, "
                     "report.md lists them; -v prints each)\n",
                     tally_.last_new);
    } else if (added.fresh && !o_.quiet) {
      const bool tty = isatty(2);
      std::fprintf(stderr, "[%6.1fs] %sNEW %s%s (program %llu)%s\n", tally_.last_new, must && tty ? "\033[1;31m" : "",
                   must ? "BUG IN ALIASFUZZ " : "", name.c_str(), static_cast<unsigned long long>(k),
                   must && tty ? "\033[0m" : "");
    }
    if (added.first) write_bucket_folder(o_, name, k, f);  // minimization happens after the run, on this program
  }

  void status_line(FILE* out) {
    const double el = now_s() - start_;
    std::string ext;
    if (tally_.external_runs == 0 && tally_.unsupported > 0)
      ext = "  unsupported " + std::to_string(tally_.unsupported);
    if (tally_.external_runs > 0)
      ext = "  compared " + std::to_string(tally_.compared) + "/" + std::to_string(tally_.external_runs) +
            "  unsupported " + std::to_string(tally_.unsupported);
    std::string last =
        tally_.last_new < 0 ? "never" : std::to_string(static_cast<long long>(el - tally_.last_new)) + "s ago";
    long rss_pages = 0, pages = 0;
    if (FILE* sm = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(sm, "%ld %ld", &pages, &rss_pages) != 2) rss_pages = 0;
      std::fclose(sm);
    }
    // Programs per second of one worker's time in each tier: where the time goes.
    std::string tiers;
    for (const auto& [name, t] : tally_.tiers)
      if (t.seconds > 0) {
        const double rate = t.programs / t.seconds;
        char b[32];
        std::snprintf(b, sizeof b, rate < 10 ? "%.2f" : "%.0f", rate);  // slow compilers: 0.24, not 0
        tiers += " " + name + " " + b;
      }
    // Minimization while running: its share of the time so far, the bugs
    // it found, what waits (as last counted).
    if (minimizer_->rounds() > 0)
      ext += "  minimizing " +
             std::to_string(static_cast<int>(100 * minimizer_->round_seconds() / std::max(el, 1.0) + 0.5)) +
             "%  bugs " + std::to_string(minimizer_->bugs()) + "  queued " + std::to_string(minimizer_->queued());
    std::fprintf(out,
                 "[%6.1fs] programs %lld  %.0f/s  invalid %lld  findings %lld  buckets %zu (aliasfuzz bugs %lld, "
                 "crashes %lld, hangs %lld)  last new bucket %s  rss %ld MB  per worker, programs/s in:%s%s\n",
                 el, static_cast<long long>(tally_.programs), el > 0 ? tally_.programs / el : 0.0,
                 static_cast<long long>(tally_.invalid), static_cast<long long>(tally_.findings), tally_.buckets.size(),
                 static_cast<long long>(tally_.must_agree_buckets), static_cast<long long>(tally_.crashes),
                 static_cast<long long>(tally_.timeouts), last.c_str(),
                 rss_pages * (sysconf(_SC_PAGESIZE) / 1024) / 1024, tiers.c_str(), ext.c_str());
    std::fflush(out);
  }
};

}  // namespace

namespace {

// The generator's op weights of a campaign over external strategies: a
// resumed campaign keeps those of campaign.json (program k must stay the
// same program); a new one leaves out what the strategies cannot run.
void resolve_capabilities(CampaignOptions& o) {
  if (o.resume) {
    std::string text;
    if (!read_text(o.out + "/campaign.json", &text)) return;
    json c = json::parse(text, nullptr, false);
    if (c.is_discarded() || !c.contains("gen_op_weights") || !c["gen_op_weights"].is_object()) return;
    o.gen.op_weights = c["gen_op_weights"].get<std::map<std::string, double>>();
    o.gen.aliased_inputs_same_sizes = c.value("gen_aliased_inputs_same_sizes", false);
    o.not_supported = c.value("not_supported", std::vector<std::string>{});
    return;
  }
  if (!o.capability_weights || o.strategies.empty() || !o.injects.empty()) return;
  for (const auto& strategy : o.strategies)
    if (!strategy.is_external()) return;
  for (const auto& strategy : o.strategies) {
    const std::string& s = strategy.name();
    const double t0 = now_s();
    // Each probe program has the case timeout, the probe a total bound: a
    // compiler that hangs or dies costs a bounded start, never a stall.
    compilers::ProbeLimits limits;
    limits.program_s = o.case_timeout_s;
    limits.total_s = std::clamp(20 * o.case_timeout_s, 60.0, 900.0);
    const bool tty = isatty(2);
    double last_progress = 0;
    limits.progress = [&](int done, int most) {
      if (o.quiet || now_s() - last_progress < (tty ? 0.5 : 10)) return;
      last_progress = now_s();
      std::fprintf(stderr, "%saliasfuzz fuzz: probing what %s supports: %d of at most %d programs, %.0f s%s",
                   tty ? "\r" : "", s.c_str(), done, most, now_s() - t0, tty ? "" : "\n");
    };
    const compilers::Capabilities c = compilers::probe_capabilities(s, false, limits);
    if (tty && last_progress > 0 && !o.quiet) std::fprintf(stderr, "\n");
    if (!c.available) {  // not installed (the strategy is skipped, check.h), or the probe could not start
      if (!o.quiet) std::fprintf(stderr, "aliasfuzz fuzz: no capability probe of %s: %s\n", s.c_str(), c.error.c_str());
      continue;
    }
    if (!c.inconclusive_why.empty()) {
      if (!o.quiet)
        std::fprintf(stderr,
                     "aliasfuzz fuzz: capability probe of %s inconclusive (%s, %.0f s): every op stays in the "
                     "programs, nothing cached\n",
                     s.c_str(), c.inconclusive_why.substr(0, 300).c_str(), now_s() - t0);
      if (!c.versions.empty()) o.versions[s] = c.versions;
      continue;
    }
    if (!c.versions.empty()) o.versions[s] = c.versions;
    for (const auto& [op, why] : c.unsupported) o.gen.op_weights[op] = 0.0;
    const std::string note = compilers::capabilities_summary(c);
    if (!note.empty()) o.not_supported.push_back(note);
    // A form it crashes on (a known bug, found by the probe): generated around, reported.
    if (c.failing_forms.count("aliased-inputs-of-different-sizes")) {
      o.gen.aliased_inputs_same_sizes = true;
      o.not_supported.push_back(compilers::failing_forms_summary(c) + ": aliased inputs get the same sizes");
    }
    if (!o.quiet)
      std::fprintf(stderr, "aliasfuzz fuzz: %s: %s (%s)\n", s.c_str(),
                   note.empty() ? "every op supported" : (note + ", left out of the generated programs").c_str(),
                   c.from_cache ? ("capabilities from " + c.cache_path).c_str()
                                : ("probed with " + std::to_string(c.probes) + " programs in " +
                                   std::to_string(static_cast<int>(now_s() - t0 + 0.5)) + " s" +
                                   (c.cache_path.empty() ? "" : ", cached in " + c.cache_path))
                                      .c_str());
  }
}

}  // namespace

CampaignSummary run_campaign(const CampaignOptions& o) {
  g_stop = 0;
  CampaignOptions oc = o;
  resolve_capabilities(oc);
  Campaign c(oc);
  return c.run();
}

}  // namespace af::fuzz
