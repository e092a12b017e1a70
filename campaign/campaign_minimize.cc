// The minimization of a campaign's findings (issue #34): job lists, the
// minimizer children, rounds while a time campaign runs, the end.
#include "campaign/campaign_minimize.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "campaign/campaign_case.h"
#include "check/check.h"
#include "triage/evidence.h"
#include "generate/features.h"
#include "check/files.h"
#include "generate/generator.h"
#include "triage/ledger.h"
#include "minimize/minimize.h"
#include "triage/repro.h"
#include "triage/signature.h"
#include "compilers/runner.h"
#include "ir/analysis.h"
#include "ir/json_text.h"
#include "ir/text.h"
#include "triage/minimize_finding.h"

namespace af::fuzz {

using nlohmann::json;

namespace {

// The ledger entry that labels the bug a candidate is (MinimizeOptions::
// known_bug); "" when none. The ledger alone, not the bugs this campaign
// found: which job finds one first depends on --jobs, and the same seed
// must give the same bugs with any.
// A cause made of ops alone (no alias relation) is too coarse to stop on:
// two defects of add_ share "values|op:add_", and the one the ledger
// knows would end the other's minimization short of its own program.
std::string ledger_bug(const ir::Program& q, const RunRecord& rec) {
  const BugSignature bug = bug_signature(rec, q);
  if (bug.alias_roots().empty()) return "";
  const LedgerEntry* e = ledger_label(default_ledger(), bug, rec.spec.strategy.name());
  return e ? e->name : "";
}

}  // namespace

struct CampaignMinimizer::Impl {
  Impl(const CampaignOptions& o, const CampaignTally& tally, double start, std::function<bool()> stopping)
      : o_(o), tally_(tally), start_(start), stopping_(std::move(stopping)) {}

  const CampaignOptions& o_;
  const CampaignTally& tally_;
  const double start_;  // the campaign's start (now_s() clock)
  std::function<bool()> stopping_;
  // Seconds spent on bucket and novelty jobs, and in rounds while the
  // campaign runs; folders a minimizer was started on (each once per
  // run); bug keys of the bug programs found; findings queued for
  // minimization when last counted.
  double bucket_spent_s_ = 0, novel_spent_s_ = 0, round_spent_s_ = 0, next_queue_check_ = 0;
  int64_t minimize_rounds_ = 0, queued_ = 0;
  std::set<std::string> started_, bugs_;

  static constexpr int64_t kMinimizeTests = 3000;

  static constexpr double kLeastJobS = 0.5;  // at the end: what is left goes to the next job

  // One minimization: a finding's program, its spec, the folder it goes
  // to, and (novelty) the features every candidate must keep one of.
  struct MinimizeJob {
    std::string dir, label;
    run::RunSpec spec;
    uint64_t k = 0;
    std::vector<std::string> keep;
    nlohmann::json settings;  // novelty: its settings.json, with case.af written when it starts
    bool hang = false;        // a compiler's hang (runner-timeout): a case timeout per candidate
  };

  // Runs the jobs in order, up to --jobs at a time, in child processes
  // (a crash or hang of the minimizer costs that job only), each job with
  // its own deadline, all within `total` seconds. A child serves job after
  // job, so that a real compiler's Python starts once per child, not once
  // per job (1-5 s of imports each); one past its deadline is killed and
  // the next job gets a fresh child. Returns how many ran; *left gets how
  // many the budget left out: a job starts only with `least` seconds or
  // more (a round leaves one it cannot give its whole --minimize-time for
  // a later round: a cut minimization's bug program is not its bug's).
  // (Every job runs, whatever the others found:
  // skipping one that an earlier job made moot would depend on which jobs
  // finished first, and the same seed must give the same leads with any
  // --jobs.)
  // *killed gets the labels of jobs stopped at their deadline, *died those
  // whose child died (a crash of aliasfuzz's own minimizer: a bug to report).
  int run_minimizers(const std::vector<MinimizeJob>& jobs, double total, double least, int* left,
                     std::vector<std::string>* killed, std::vector<std::string>* died) {
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
        // Each candidate's run of a real compiler has the case's bound, as in the workers.
        compilers::set_external_timeout(std::max(1.0, o_.case_timeout_s * kExternalShareOfCase));
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
          if (!o_.minimize_past_known) mo.known_bug = ledger_bug;
          MinimizedFinding m = minimize_finding(generate(o_.seed, job.k, o_.gen), job.spec, mo, job.keep);
          std::string err;
          // Then the bug program's evidence (issue #57): after minimize.json
          // is written, so a deadline met meanwhile loses only the evidence.
          if (m.ok && write_minimized(job.dir, m, &err)) record_finding_evidence(job.dir, m);
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
            if (ok) note_bug(c.job->dir);
            if (!ok) died->push_back(c.job->dir);
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
      if (stopping_() || budget_left < least) {
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
      // A hang costs a case timeout per candidate: a few candidates' worth,
      // not a real compiler's minute each.
      const double budget = std::min({o_.minimize_s, budget_left, job.hang ? 3 * o_.case_timeout_s : 1e300});
      const std::string line = std::to_string(i) + " " + std::to_string(budget) + "\n";
      if (::write(c->to, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
        stop(*c, true);
        ++*left;
        continue;
      }
      c->job = &job;
      started_.insert(job.dir);
      // Slack past the budget for the minimizer's last checks (it keeps
      // about three runs of the program out of its budget; a run of a real
      // compiler on a loaded machine can take a minute).
      c->deadline = now_s() + budget +
                    (job.hang                 ? o_.case_timeout_s + 10
                     : job.spec.is_external() ? std::max(120.0, budget)
                                              : 10);
    }
    reap(0);
    for (Child& c : children) stop(c, false);  // closing its pipe ends it
    return done;
  }

  double bucket_total_s() const {
    return o_.minimize_total_s >= 0 ? o_.minimize_total_s : o_.programs >= 0 ? 30.0 : std::max(10.0, o_.time_s / 4);
  }
  double novel_total_s() const {
    return o_.novelty_total_s > 0 ? o_.novelty_total_s : o_.programs >= 0 ? 30.0 : std::max(10.0, o_.time_s / 4);
  }

  // Minimization while the campaign runs (issue #34): after every second
  // of checking, share / (1 - share) seconds of minimizing fall due; a
  // round runs when at least one job's worth (--minimize-time, at most
  // 30 s) is due and findings wait, so that bugs show while the campaign
  // runs and an interrupted one keeps them. Time campaigns only: with
  // --programs every job runs after the programs, the same with any --jobs.
  bool round_due(double t) {
    if (o_.programs >= 0 || o_.minimize_share <= 0 || o_.minimize_s <= 0) return false;
    const double least = std::min(o_.minimize_s, 30.0), el = t - start_;
    if (round_credit_s(el) < least || o_.time_s - el < least || t < next_queue_check_) return false;
    queued_ = count_queued();
    if (queued_ == 0) next_queue_check_ = t + 5;  // new findings first
    return queued_ > 0;
  }
  double round_credit_s(double elapsed) const {
    const double share = std::min(o_.minimize_share, 0.9);
    return (elapsed - round_spent_s_) * share / (1 - share) - round_spent_s_;
  }

  void round() {
    const double t0 = now_s(), el = t0 - start_;
    const double budget = std::min(round_credit_s(el), o_.time_s - el);
    const size_t bugs_before = bugs_.size();
    const double least = std::min(o_.minimize_s, 30.0);
    minimize_buckets(budget, least, false);
    if (now_s() - t0 < budget - 1) minimize_novel(budget - (now_s() - t0), least, false);
    round_spent_s_ += now_s() - t0;
    ++minimize_rounds_;
    queued_ = count_queued();
    if (o_.verbose && !o_.quiet)
      std::fprintf(stderr, "[%6.1fs] minimize round %lld: %.1f s, %zu new bugs, %lld findings queued\n",
                   now_s() - start_, static_cast<long long>(minimize_rounds_), now_s() - t0, bugs_.size() - bugs_before,
                   static_cast<long long>(queued_));
  }

  // Findings waiting for a minimizer: buckets without one, and leads.
  int64_t count_queued() { return static_cast<int64_t>(bucket_jobs().size() + novel_jobs(nullptr, nullptr).size()); }

  // Adds the bug a finished job found to bugs_ (not an explained lead's,
  // nor one cut short by its budget).
  void note_bug(const std::string& dir) {
    std::string text;
    if (!read_text(dir + "/minimize.json", &text)) return;
    const json mj = json::parse(text, nullptr, false);
    if (mj.is_discarded() || mj.value("explained", false) || mj.value("bug_cut", false)) return;
    if (const std::string key = mj.value("bug_key", std::string()); !key.empty()) bugs_.insert(key);
  }

  // The first finding of each bucket that has no min.af yet, in priority
  // order (must-agree, mutants, the rest; by first program).
  std::vector<MinimizeJob> bucket_jobs() {
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
      if (started_.count(dir)) continue;  // handed out already: no need to read its files again
      std::string probe, settings;
      if (read_text(dir + "/min.af", &probe) || !read_text(dir + "/settings.json", &settings)) continue;
      json st = json::parse(settings, nullptr, false);
      if (st.is_discarded()) continue;
      const auto spec = run::spec_from_json(st["finding"]["spec"]);
      if (!spec) continue;  // settings of another version of aliasfuzz
      jobs.push_back({dir,
                      name,
                      *spec,
                      st.value("program", uint64_t{0}),
                      {},
                      nullptr,
                      runner_failure_kind(st["finding"].value("error", std::string())) == "runner-timeout"});
    }
    return jobs;
  }

  // `say`: a line of what it did (a round prints one line of its own).
  // `least`: run_minimizers'.
  void minimize_buckets(double total, double least, bool say = true) {
    if (o_.minimize_s <= 0) return;
    const std::vector<MinimizeJob> jobs = bucket_jobs();
    if (jobs.empty()) return;
    const double t0 = now_s();
    int skipped = 0;
    std::vector<std::string> killed, died;  // buckets whose minimizer ran past its deadline, or died
    const int done = run_minimizers(jobs, total, least, &skipped, &killed, &died);
    bucket_spent_s_ += now_s() - t0;
    if (say && !o_.quiet && (done || skipped))
      std::fprintf(stderr, "minimized %d buckets in %.1f s%s\n", done, now_s() - t0,
                   skipped ? (", " + std::to_string(skipped) + " left for `aliasfuzz minimize` (budget)").c_str() : "");
    if (!o_.quiet)
      for (const auto& b : killed)
        std::fprintf(stderr, "not minimized (stopped at its deadline): %s; run `aliasfuzz minimize %s/findings/%s`\n",
                     b.c_str(), o_.out.c_str(), b.c_str());
    say_died(died);
  }

  // A minimizer that died is a bug of aliasfuzz itself: never silent.
  void say_died(const std::vector<std::string>& died) const {
    for (const auto& dir : died)
      std::fprintf(stderr,
                   "aliasfuzz bug: the minimizer died on %s/case.af; reproduce with `aliasfuzz minimize %s/case.af "
                   "--strategy ...` and report it\n",
                   dir.c_str(), dir.c_str());
  }

  // Novelty (issue #34): a bucket's first finding is one program, and the
  // bug it minimizes to may hide others behind the same bucket. Every
  // feature (generate/features.h) that some finding of a strategy had, and
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
    // Stopped at a known bug: what it covers is the entry's minimized
    // program, not the larger one it stopped at (whose riders would hide
    // the leads they are).
    if (const std::string known = mj.value("known_bug", std::string()); !known.empty())
      for (const LedgerEntry& e : default_ledger())
        if (e.name == known) bp = e.program;
    auto an = ir::analyze(*bp);
    for (auto& w : program_features(*bp, an ? &*an : nullptr)) covered->insert(std::move(w));
    if (const auto bug = BugSignature::parse(mj.value("bug_key", std::string()))) covered->insert("what:" + bug->what);
    return true;
  }

  // The leads no bug program covers yet, most promising first; *leads
  // gets how many leads there are, *already how many a resumed campaign
  // had minimized (both may be null).
  std::vector<MinimizeJob> novel_jobs(size_t* lead_count, int* already_done) {
    std::vector<MinimizeJob> jobs;
    if (o_.minimize_s <= 0 || o_.novelty_total_s == 0) return jobs;
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
      const auto counted = tally_.feature_count.find(key);
      const int64_t count =
          std::max(counted == tally_.feature_count.end() ? int64_t{0} : counted->second,
                   sampled == tally_.sample_findings.end() ? int64_t{0} : sampled->second * feature_sample_stride(o_));
      leads.push_back({-std::round(tally_.lead_score(who, word) * 1e6) / 1e6, count, key});
    }
    std::sort(leads.begin(), leads.end());
    int already = 0;
    for (const auto& [rank, count, key] : leads) {
      const auto [who, word] = who_word(key);
      const uint64_t k = tally_.feature_first.at(key);
      const json& f = tally_.candidates.at(std::to_string(k) + "|" + who);
      // A hang is no lead: each candidate costs a case timeout, and what
      // else its program holds says nothing of why the compiler hung.
      if (runner_failure_kind(f.value("error", std::string())) == "runner-timeout") continue;
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
      if (!spec || started_.count(dir)) continue;
      jobs.push_back({dir, slug, *spec, k, {word}, settings});
    }
    if (lead_count) *lead_count = leads.size();
    if (already_done) *already_done = already;
    return jobs;
  }

  void minimize_novel(double total, double least, bool say = true) {
    size_t lead_count = 0;
    int already = 0;
    const std::vector<MinimizeJob> jobs = novel_jobs(&lead_count, &already);
    if (jobs.empty()) return;
    const double t0 = now_s();
    int skipped = 0;
    std::vector<std::string> killed, died;
    const int done = run_minimizers(jobs, total, least, &skipped, &killed, &died);
    novel_spent_s_ += now_s() - t0;
    say_died(died);
    if (say && !o_.quiet)
      std::fprintf(stderr, "novelty: %zu leads (features no bug program had), minimized %d in %.1f s%s\n", lead_count,
                   done + already, now_s() - t0,
                   skipped ? (", " + std::to_string(skipped) + " left (budget: --minimize-novel)").c_str() : "");
  }

  void finish() {
    // What the rounds left, within what remains of each total. Said first:
    // with an external strategy this may take minutes with nothing else
    // printed (a 10-minute inductor campaign: up to 10 more).
    const double left = std::max(0.0, bucket_total_s() - bucket_spent_s_) + std::max(0.0, novel_total_s() - novel_spent_s_);
    if (const int64_t q = stopping_() || o_.quiet ? 0 : count_queued(); q > 0 && left >= kLeastJobS)
      std::fprintf(stderr, "minimizing the %lld findings still queued, for at most %.0f s more\n",
                   static_cast<long long>(q), left);
    if (!stopping_()) minimize_buckets(bucket_total_s() - bucket_spent_s_, kLeastJobS);
    if (!stopping_()) minimize_novel(novel_total_s() - novel_spent_s_, kLeastJobS);
    queued_ = count_queued();
    if (!o_.quiet && queued_ > 0)
      std::fprintf(stderr,
                   "%lld findings still queued for minimization (budget: --minimize-budget, --minimize-total, "
                   "--minimize-novel; `--resume` with a larger one minimizes them)\n",
                   static_cast<long long>(queued_));
  }
};

CampaignMinimizer::CampaignMinimizer(const CampaignOptions& o, const CampaignTally& tally, double start,
                                     std::function<bool()> stopping)
    : impl_(std::make_unique<Impl>(o, tally, start, std::move(stopping))) {}
CampaignMinimizer::~CampaignMinimizer() = default;
bool CampaignMinimizer::round_due(double now) { return impl_->round_due(now); }
void CampaignMinimizer::round() { impl_->round(); }
void CampaignMinimizer::finish() { impl_->finish(); }
int64_t CampaignMinimizer::rounds() const { return impl_->minimize_rounds_; }
double CampaignMinimizer::round_seconds() const { return impl_->round_spent_s_; }
int64_t CampaignMinimizer::bugs() const { return static_cast<int64_t>(impl_->bugs_.size()); }
int64_t CampaignMinimizer::queued() const { return impl_->queued_; }

}  // namespace af::fuzz
