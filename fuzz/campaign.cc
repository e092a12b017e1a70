// A campaign's parent process: hands programs to the worker pool
// (fuzz/worker_pool.h), adds up their answers (fuzz/campaign_tally.h),
// saves its files every second (fuzz/campaign_store.h), prints a status
// line every second and a NEW line per bucket, and minimizes each new
// bucket's first finding when the run ends.
#include "ir/json_text.h"
#include "fuzz/campaign.h"
#include "fuzz/signature.h"

#include <signal.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <set>
#include <tuple>

#include "fuzz/campaign_case.h"
#include "fuzz/campaign_store.h"
#include "fuzz/campaign_tally.h"
#include "fuzz/case_queue.h"
#include "fuzz/check.h"
#include "fuzz/features.h"
#include "fuzz/files.h"
#include "fuzz/minimize.h"
#include "fuzz/repro.h"
#include "fuzz/worker_pool.h"
#include "ir/analysis.h"
#include "ir/text.h"
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
    WorkerPool pool(o_,
                    {[this] { return queue_.next(); }, [this](uint64_t k) { queue_.give_back(k); },
                     [this](uint64_t k, const json& r) { record(k, r); },
                     [this](uint64_t k, const RoutineAnswer& a) { record(k, a); },
                     [this](uint64_t k, const std::string& kind, const std::string& detail) { died(k, kind, detail); },
                     [] { return g_stop != 0; }});
    pool.start(o_.jobs);
    double last_status = now_s(), last_save = now_s();
    while (!g_stop) {
      const double t = now_s();
      const bool time_up = o_.programs < 0 && t - start_ >= o_.time_s;
      if (!time_up) pool.feed();
      if (!pool.busy() && (time_up || queue_.exhausted())) break;
      pool.poll();
      if (now_s() - last_status >= 1.0) {
        last_status = now_s();
        tally_.add_timeline_point(last_status - start_);
        if (!o_.quiet) status_line(stderr);
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
    if (!g_stop) minimize_buckets();
    if (!g_stop) minimize_novel();
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
    return s;
  }

 private:
  const CampaignOptions& o_;
  CampaignStore store_;
  CampaignTally tally_;
  CaseQueue queue_;
  std::unique_ptr<LineAppender> all_out_;  // findings-all.jsonl (--log-all)
  double start_ = 0, elapsed_before_ = 0;

  // Program k crashed or hung the worker: a finding of kind crash or timeout.
  void died(uint64_t k, const std::string& kind, const std::string& detail) {
    json f = {{"spec", nullptr}, {"bucket", kind}, {"op", ""}, {"error", detail}};
    (kind == "crash" ? tally_.crashes : tally_.timeouts)++;
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
    if (added.fresh && !o_.quiet) {
      // Like AFL++/libFuzzer: a line when a bucket appears; bugs in
      // aliasfuzz itself (must-agree, crashes, hangs) in red on a terminal.
      const bool must = finding_must_agree(f);
      const bool tty = isatty(2);
      std::fprintf(stderr, "[%6.1fs] %sNEW %s%s (program %llu)%s\n", tally_.last_new, must && tty ? "\033[1;31m" : "",
                   must ? "BUG IN ALIASFUZZ " : "", name.c_str(), static_cast<unsigned long long>(k),
                   must && tty ? "\033[0m" : "");
    }
    if (added.first) write_bucket_folder(o_, name, k, f);  // minimization happens after the run, on this program
  }

  static constexpr int64_t kMinimizeTests = 3000;

  // One minimization: a finding's program, its spec, the folder it goes
  // to, and (novelty) the features every candidate must keep one of.
  struct MinimizeJob {
    std::string dir, label;
    run::RunSpec spec;
    uint64_t k = 0;
    std::vector<std::string> keep;
    nlohmann::json settings;  // novelty: its settings.json, with case.af written when it starts
  };

  // Runs the jobs in order, up to --jobs at a time, in child processes
  // (a crash or hang of the minimizer costs that job only), each job with
  // its own deadline, all within `total` seconds. A child serves job after
  // job, so that a real compiler's Python starts once per child, not once
  // per job (1-5 s of imports each); one past its deadline is killed and
  // the next job gets a fresh child. Returns how many ran; *left gets how
  // many the budget left out. (Every job runs, whatever the others found:
  // skipping one that an earlier job made moot would depend on which jobs
  // finished first, and the same seed must give the same leads with any
  // --jobs.)
  int run_minimizers(const std::vector<MinimizeJob>& jobs, double total, int* left, std::vector<std::string>* killed) {
    const double t0 = now_s();
    int done = 0;
    struct Child {
      pid_t pid = -1;
      int to = -1, from = -1;            // job numbers down, "done" lines up
      const MinimizeJob* job = nullptr;  // the one it runs, null when idle
      double deadline = 0;
    };
    std::vector<Child> children(static_cast<size_t>(std::max(1, o_.jobs)));
    auto stop = [](Child& c, bool kill_it) {
      if (c.pid <= 0) return;
      if (kill_it) ::kill(c.pid, SIGKILL);
      ::close(c.to);
      ::close(c.from);
      int status = 0;
      waitpid(c.pid, &status, 0);
      c = Child();
    };
    auto start = [&](Child& c) {
      int down[2], up[2];
      if (pipe(down) != 0) return false;
      if (pipe(up) != 0) {
        ::close(down[0]);
        ::close(down[1]);
        return false;
      }
      std::fflush(nullptr);
      const pid_t pid = fork();
      if (pid < 0) {
        for (int fd : {down[0], down[1], up[0], up[1]}) ::close(fd);
        return false;
      }
      if (pid == 0) {
        signal(SIGINT, SIG_IGN);
        ::close(down[1]);
        ::close(up[0]);
        for (const Child& other : children)
          if (other.pid > 0) {
            ::close(other.to);
            ::close(other.from);
          }
        FILE* in = fdopen(down[0], "r");
        size_t i = 0;
        double budget = 0;
        while (in && std::fscanf(in, "%zu %lf", &i, &budget) == 2 && i < jobs.size()) {
          const MinimizeJob& job = jobs[i];
          MinimizeOptions mo;
          mo.time_s = budget;
          // A budget in candidate runs too: the same bucket minimizes to the
          // same program (and bug) whatever the machine's speed, unless the
          // time runs out first (slow external compilers).
          mo.max_tests = kMinimizeTests;
          MinimizedFinding m = minimize_finding(generate(o_.seed, job.k, o_.gen), job.spec, mo, job.keep);
          std::string err;
          if (m.ok) write_minimized(job.dir, m, &err);
          if (::write(up[1], "d\n", 2) != 2) break;
        }
        _exit(0);
      }
      ::close(down[0]);
      ::close(up[1]);
      c.pid = pid;
      c.to = down[1];
      c.from = up[0];
      return true;
    };
    // Waits until at most `busy` children run a job: a finished job's child
    // becomes idle, one past its deadline is killed.
    auto reap = [&](size_t busy) {
      for (;;) {
        size_t running = 0;
        for (Child& c : children) {
          if (!c.job) continue;
          pollfd pfd{c.from, POLLIN, 0};
          if (poll(&pfd, 1, 0) > 0) {
            char buf[8];
            const bool ok = ::read(c.from, buf, 2) == 2;
            c.job = nullptr;
            ++done;
            if (!ok) stop(c, true);  // it died: a fresh one next time
          } else if (now_s() > c.deadline) {
            killed->push_back(c.job->label);
            stop(c, true);
            ++done;
          } else {
            ++running;
          }
        }
        if (running <= busy) return;
        usleep(2000);
      }
    };
    for (size_t i = 0; i < jobs.size(); ++i) {
      const MinimizeJob& job = jobs[i];
      reap(children.size() - 1);
      const double budget_left = total - (now_s() - t0);
      if (g_stop || budget_left < 0.5) {
        ++*left;
        continue;
      }
      if (!job.settings.is_null()) {
        make_dirs(job.dir);
        write_atomic(job.dir + "/case.af", "# aliasfuzz campaign seed " + std::to_string(o_.seed) + ", program " +
                                               std::to_string(job.k) + "\n" +
                                               ir::print(generate(o_.seed, job.k, o_.gen)));
        write_atomic(job.dir + "/settings.json", ir::json_text(job.settings, 2) + "\n");
      }
      Child* c = nullptr;
      for (Child& x : children)
        if (!x.job && (!c || (c->pid <= 0 && x.pid > 0))) c = &x;  // an idle child, a started one first
      if (c->pid <= 0 && !start(*c)) {
        ++*left;
        continue;
      }
      const double budget = std::min(o_.minimize_s, budget_left);
      const std::string line = std::to_string(i) + " " + std::to_string(budget) + "\n";
      if (::write(c->to, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
        stop(*c, true);
        ++*left;
        continue;
      }
      c->job = &job;
      // Slack past the budget for the minimizer's last checks (it keeps
      // about three runs of the program out of its budget; a run of a real
      // compiler on a loaded machine can take a minute).
      c->deadline = now_s() + budget + (job.spec.is_external() ? std::max(120.0, budget) : 10);
    }
    reap(0);
    for (Child& c : children) stop(c, false);  // closing its pipe ends it
    return done;
  }

  // The first finding of each bucket that has no min.af yet, in priority
  // order (must-agree, mutants, the rest; by first program).
  void minimize_buckets() {
    if (o_.minimize_s <= 0) return;
    const double total = o_.minimize_total_s >= 0 ? o_.minimize_total_s
                         : o_.programs >= 0       ? 30.0
                                                  : std::max(10.0, o_.time_s / 4);
    std::vector<std::pair<std::tuple<int, uint64_t, std::string>, std::string>> order;
    for (const auto& [name, b] : tally_.buckets) {
      if (name == "crash" || name == "timeout") continue;
      const int rank = b.must_agree ? 0 : (name.find('+') != std::string::npos ? 1 : 2);
      order.push_back({{rank, b.first_k, name}, name});
    }
    std::sort(order.begin(), order.end());
    std::vector<MinimizeJob> jobs;
    for (const auto& [key, name] : order) {
      const std::string dir = o_.out + "/findings/" + name;
      std::string probe, settings;
      if (read_text(dir + "/min.af", &probe) || !read_text(dir + "/settings.json", &settings)) continue;
      json st = json::parse(settings, nullptr, false);
      if (st.is_discarded()) continue;
      const auto spec = run::spec_from_json(st["finding"]["spec"]);
      if (!spec) continue;  // settings of another version of aliasfuzz
      jobs.push_back({dir, name, *spec, st.value("program", uint64_t{0}), {}, nullptr});
    }
    const double t0 = now_s();
    int skipped = 0;
    std::vector<std::string> killed;  // buckets whose minimizer ran past its deadline
    const int done = run_minimizers(jobs, total, &skipped, &killed);
    if (!o_.quiet && (done || skipped))
      std::fprintf(stderr, "minimized %d buckets in %.1f s%s\n", done, now_s() - t0,
                   skipped ? (", " + std::to_string(skipped) + " left for `aliasfuzz minimize` (budget)").c_str() : "");
    if (!o_.quiet)
      for (const auto& b : killed)
        std::fprintf(stderr, "not minimized (stopped at its deadline): %s; run `aliasfuzz minimize %s/findings/%s`\n",
                     b.c_str(), o_.out.c_str(), b.c_str());
  }

  // Novelty (issue #34): a bucket's first finding is one program, and the
  // bug it minimizes to may hide others behind the same bucket. Every
  // feature (fuzz/features.h) that some finding of a strategy had, and
  // that none of the bug programs found so far for it has, is a lead: its
  // first finding is minimized while keeping that feature (novel/), and
  // either gives a bug of its own or is explained by one already met.
  // Leads run in order of promise: how much the feature raises the chance
  // of a divergence (CampaignTally::lead_score, over the feature sample),
  // so that a feature with a bug of its own comes before the many that
  // only ride along with a frequent bug. Deterministic: the leads come
  // from the programs checked, not from the order workers answered in.
  // Adds the features of the bug program a minimize.json in `dir` holds
  // (and its kind of divergence) to `covered`. False when there is none.
  static bool cover_bug_program(const std::string& dir, std::set<std::string>* covered) {
    std::string text;
    if (!read_text(dir + "/minimize.json", &text)) return false;
    const json mj = json::parse(text, nullptr, false);
    if (mj.is_discarded() || !mj.contains("bug_program")) return false;
    auto bp = ir::parse(mj.value("bug_program", std::string()));
    if (!bp) return false;
    auto an = ir::analyze(*bp);
    for (auto& w : program_features(*bp, an ? &*an : nullptr)) covered->insert(std::move(w));
    if (const auto bug = BugSignature::parse(mj.value("bug_key", std::string()))) covered->insert("what:" + bug->what);
    return true;
  }

  void minimize_novel() {
    if (o_.minimize_s <= 0 || o_.novelty_total_s == 0) return;
    const double total = o_.novelty_total_s > 0 ? o_.novelty_total_s
                         : o_.programs >= 0     ? 30.0
                                                : std::max(10.0, o_.time_s / 4);
    std::map<std::string, std::set<std::string>> covered;  // who -> features of its bug programs
    for (const auto& [name, b] : tally_.buckets)
      cover_bug_program(o_.out + "/findings/" + name, &covered[finding_who(b.finding)]);
    auto who_word = [](const std::string& key) {
      return std::make_pair(key.substr(0, key.find('|')), key.substr(key.find('|') + 1));
    };
    std::vector<std::tuple<double, int64_t, std::string>> leads;  // (-score, count, who|feature)
    for (const auto& [key, k] : tally_.feature_first) {
      const auto [who, word] = who_word(key);
      if (covered[who].count(word) || !tally_.candidates.count(std::to_string(k) + "|" + who)) continue;
      // (Rounded: the same order on every machine.)
      // Its findings: those with the feature in the sample, scaled to every
      // program (at least those sent in full).
      const auto sampled = tally_.sample_findings.find(key);
      const int64_t count =
          std::max(tally_.feature_count[key],
                   sampled == tally_.sample_findings.end() ? int64_t{0} : sampled->second * feature_sample_stride(o_));
      leads.push_back({-std::round(tally_.lead_score(who, word) * 1e6) / 1e6, count, key});
    }
    std::sort(leads.begin(), leads.end());
    std::vector<MinimizeJob> jobs;
    int already = 0;
    for (const auto& [rank, count, key] : leads) {
      const auto [who, word] = who_word(key);
      const uint64_t k = tally_.feature_first.at(key);
      const json& f = tally_.candidates.at(std::to_string(k) + "|" + who);
      std::string slug = who + "__" + word;
      for (char& c : slug)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '+' || c == '.')) c = '-';
      const std::string dir = o_.out + "/novel/" + slug;
      if (cover_bug_program(dir, &covered[who])) {
        ++already;
        continue;
      }  // a resumed campaign's
      json settings = {{"seed", o_.seed},         {"program", k},   {"finding", f},
                       {"gen_size", o_.gen.size}, {"keep", {word}}, {"feature_count", count}};
      const auto spec = run::spec_from_json(f["spec"]);
      if (!spec) continue;
      jobs.push_back({dir, slug, *spec, k, {word}, settings});
    }
    if (jobs.empty()) return;
    const double t0 = now_s();
    int skipped = 0;
    std::vector<std::string> killed;
    const int done = run_minimizers(jobs, total, &skipped, &killed);
    if (!o_.quiet)
      std::fprintf(stderr, "novelty: %zu leads (features no bug program had), minimized %d in %.1f s%s\n", leads.size(),
                   done + already, now_s() - t0,
                   skipped ? (", " + std::to_string(skipped) + " left (budget: --minimize-novel)").c_str() : "");
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
    const compilers::Capabilities c = compilers::probe_capabilities(s);
    if (!c.available) {  // not installed (the strategy is skipped, check.h), or the probe could not start
      if (!o.quiet) std::fprintf(stderr, "aliasfuzz fuzz: no capability probe of %s: %s\n", s.c_str(), c.error.c_str());
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
