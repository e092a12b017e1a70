#include "fuzz/campaign.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <tuple>
#include <chrono>
#include <cstdio>
#include <deque>
#include <map>
#include <optional>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "fuzz/check.h"
#include "fuzz/files.h"
#include "fuzz/minimize.h"
#include "fuzz/repro.h"
#include "ir/analysis.h"
#include "ir/text.h"
#include "oracles/external.h"
#include "oracles/json_out.h"

namespace af::fuzz {

using nlohmann::json;

namespace {

volatile sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

json spec_json(const RunSpec& s) {
  return {{"strategy", s.strategy}, {"inject", s.inject.empty() ? json(nullptr) : json(s.inject)},
          {"reorder", s.reorder}, {"fusion", s.fusion}, {"target", s.target}};
}

// ---- the worker: checks programs whose indices arrive on stdin -----------

std::string check_one(const CampaignOptions& o, uint64_t k) {
  auto has = [k](const std::vector<uint64_t>& v) { return std::find(v.begin(), v.end(), k) != v.end(); };
  if (has(o.test_crash_on)) std::abort();
  if (has(o.test_hang_on)) for (;;) pause();
  json r = {{"k", k}};
  const double t0 = now_s();
  ir::Program p = generate(o.seed, k, o.gen);
  auto an = ir::analyze(p);
  if (!an) {
    r["valid"] = false;
    r["error"] = ir::kind_name(an.error().kind);
    return r.dump();
  }
  r["valid"] = true;
  oracles::Observables expected = oracles::run_eager(p, *an);
  // Milliseconds per tier (generator + oracle, then each target or external
  // strategy): the status line's programs/s per tier.
  std::map<std::string, double> tier_ms = {{"oracle", (now_s() - t0) * 1e3}};
  auto specs = campaign_specs(o.seed, k, o.strategies, o.injects, o.target);
  json f = json::array();
  int64_t external = 0, compared = 0;
  json unsupported = json::array();
  const std::vector<RunRecord> records = check_program(p, expected, specs);
  // Attribution when both run: a divergence of inductor that aot-eager
  // (AOTAutograd without Inductor) shares is AOTAutograd's/functionalization's;
  // one aot-eager does not share is Inductor's.
  std::optional<bool> aot_diverges;
  for (const RunRecord& rec : records)
    if (rec.spec.strategy == "aot-eager" && rec.unsupported.empty()) aot_diverges = !rec.agree;
  for (const RunRecord& rec : records) {
    tier_ms[tier_of(rec.spec)] += rec.ms;
    if (is_external(rec.spec.strategy) && rec.spec.inject.empty()) {
      ++external;
      if (!rec.unsupported.empty()) unsupported.push_back(rec.spec.strategy + ": " + rec.unsupported);
      else if (rec.error.empty()) ++compared;
    }
    if (rec.agree) continue;
    json m = {{"spec", spec_json(rec.spec)}, {"bucket", bucket_of(rec)}, {"op", rec.op}, {"regions", rec.regions}};
    if (rec.mismatch) m.update(oracles::mismatch_json(*rec.mismatch));  // observable, index, expected, actual[, what]
    if (!rec.error.empty()) m["error"] = rec.error;
    if (rec.spec.strategy == "inductor" && aot_diverges)
      m["attribution"] = *aot_diverges ? "AOTAutograd/functionalization (aot-eager diverges too)"
                                       : "Inductor (aot-eager agrees)";
    f.push_back(m);
  }
  r["runs"] = specs.size();
  r["findings"] = f;
  r["tier_ms"] = tier_ms;
  if (external) {
    r["external_runs"] = external;
    r["compared"] = compared;
    if (!unsupported.empty()) r["unsupported"] = unsupported;
  }
  return r.dump();
}

[[noreturn]] void worker_main(const CampaignOptions& o, int in_fd, int out_fd) {
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_DFL);
  if (o.memory_limit_mb > 0) {
    // External strategies (check.h) run a Python child that inherits this
    // limit: PyTorch 2.x maps ~5 GiB of CUDA libraries at import.
    rlim_t mb = static_cast<rlim_t>(o.memory_limit_mb);
    for (const auto& s : o.strategies)
      if (is_external(s)) mb += 16384;
    rlimit rl{mb << 20, mb << 20};
    setrlimit(RLIMIT_AS, &rl);
  }
  FILE* in = fdopen(in_fd, "r");
  char buf[64];
  std::string out;
  while (fgets(buf, sizeof buf, in)) {
    const uint64_t k = std::strtoull(buf, nullptr, 10);
    out = check_one(o, k) + "\n";
    size_t done = 0;
    while (done < out.size()) {
      ssize_t n = ::write(out_fd, out.data() + done, out.size() - done);
      if (n <= 0) _exit(0);
      done += static_cast<size_t>(n);
    }
  }
  _exit(0);
}

struct Worker {
  pid_t pid = -1;
  int to = -1, from = -1;
  std::deque<uint64_t> queue;  // assigned, not yet answered (front = in progress)
  double last_progress = 0;
  std::string partial;         // bytes of an unfinished line
};

// ---- the parent ---------------------------------------------------------

class Campaign {
 public:
  explicit Campaign(const CampaignOptions& o) : o_(o) {}

  CampaignSummary run() {
    if (o_.shard_n < 1 || o_.shard_i < 0 || o_.shard_i >= o_.shard_n) throw std::runtime_error("bad --shard i/N");
    if (o_.jobs < 1) throw std::runtime_error("--jobs must be at least 1");
    make_dirs(o_.out + "/findings");
    if (o_.resume) load();
    else if (std::FILE* f = std::fopen((o_.out + "/state.json").c_str(), "r")) {
      std::fclose(f);
      throw std::runtime_error(o_.out + " already holds a campaign: use --resume or another --out");
    }
    save_settings();
    if (o_.log_all) all_out_ = std::make_unique<LineAppender>(o_.out + "/findings-all.jsonl");
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGPIPE, SIG_IGN);
    start_ = now_s() - elapsed_before_;
    for (int i = 0; i < o_.jobs; ++i) workers_.emplace_back(), spawn(workers_.back());
    double last_status = now_s(), last_save = now_s();
    while (!g_stop) {
      const double t = now_s();
      const bool time_up = o_.programs < 0 && t - start_ >= o_.time_s;
      if (!time_up) for (auto& w : workers_) feed(w);
      bool busy = false;
      for (auto& w : workers_) busy = busy || !w.queue.empty();
      if (!busy && (time_up || exhausted())) break;
      poll_workers();
      check_timeouts();
      if (now_s() - last_status >= 1.0) {
        last_status = now_s();
        timeline_.push_back({{"t", last_status - start_}, {"programs", programs_}, {"buckets", buckets_.size()}});
        if (!o_.quiet) status_line(stderr);
      }
      if (now_s() - last_save >= 1.0) {
        last_save = now_s();
        save_state();
      }
    }
    for (auto& w : workers_) stop(w, false);
    for (auto& w : workers_) requeue(w);
    timeline_.push_back({{"t", now_s() - start_}, {"programs", programs_}, {"buckets", buckets_.size()}});
    save_state();
    if (!o_.quiet) status_line(stderr);
    if (!g_stop) minimize_buckets();
    CampaignSummary s;
    s.programs = programs_;
    s.invalid = invalid_;
    s.findings = findings_;
    s.buckets = static_cast<int64_t>(buckets_.size());
    s.crashes = crashes_;
    s.timeouts = timeouts_;
    for (const auto& [name, b] : buckets_) s.must_agree_buckets += b.must_agree;
    s.elapsed_s = now_s() - start_;
    for (const auto& [name, t] : tiers_)
      if (t.seconds > 0) s.programs_per_s_by_tier[name] = t.programs / t.seconds;
    s.external_runs = external_runs_;
    s.compared = compared_;
    s.unsupported = unsupported_;
    s.not_supported = o_.not_supported;
    return s;
  }

 private:
  double last_new_ = -1;             // seconds into the campaign when the last new bucket appeared
  int64_t must_agree_buckets_ = 0;   // of buckets_: bugs in aliasfuzz itself
  struct Bucket {
    int64_t count = 0;
    uint64_t first_k = 0;
    bool must_agree = false;
    double first_t = 0;  // seconds into the campaign when it first appeared
    json finding;        // its finding on program first_k (with "k" and "t")
  };

  const CampaignOptions& o_;
  std::vector<Worker> workers_;
  std::unique_ptr<LineAppender> all_out_;  // findings-all.jsonl (--log-all)
  bool findings_dirty_ = true;             // findings.jsonl is behind buckets_
  uint64_t next_j_ = 0;                 // next local index to hand out
  std::deque<uint64_t> retry_;          // global indices to hand out again
  std::set<uint64_t> done_;             // completed global indices >= done_below_
  uint64_t done_below_j_ = 0;           // every local index below this is done
  int64_t programs_ = 0, invalid_ = 0, findings_ = 0, crashes_ = 0, timeouts_ = 0;
  int64_t external_runs_ = 0, compared_ = 0, unsupported_ = 0;
  std::map<std::string, int64_t> unsupported_reasons_;  // "strategy: Type: message" -> runs
  struct Tier {
    int64_t programs = 0;
    double seconds = 0;  // worker wall time spent in the tier
  };
  std::map<std::string, Tier> tiers_;
  std::map<std::string, Bucket> buckets_;
  json timeline_ = json::array();
  double start_ = 0, elapsed_before_ = 0;

  uint64_t global(uint64_t j) const { return o_.shard_i + j * o_.shard_n; }
  uint64_t local(uint64_t k) const { return (k - o_.shard_i) / o_.shard_n; }
  bool exhausted() const {
    return retry_.empty() && o_.programs >= 0 && global(next_j_) >= static_cast<uint64_t>(o_.programs);
  }

  void spawn(Worker& w) {
    int a[2], b[2];
    if (pipe(a) != 0 || pipe(b) != 0) throw std::runtime_error("pipe failed");
    std::fflush(nullptr);
    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      ::close(a[1]);
      ::close(b[0]);
      for (auto& other : workers_)
        if (other.to >= 0) ::close(other.to), ::close(other.from);
      worker_main(o_, a[0], b[1]);
    }
    ::close(a[0]);
    ::close(b[1]);
    w.pid = pid;
    w.to = a[1];
    w.from = b[0];
    w.partial.clear();
    w.last_progress = now_s();
    fcntl(w.from, F_SETFL, O_NONBLOCK);
  }

  void stop(Worker& w, bool kill_it) {
    if (w.pid < 0) return;
    if (kill_it) ::kill(w.pid, SIGKILL);
    ::close(w.to);
    if (!kill_it) {
      // Let it finish the case in hand, then read what it wrote.
      fcntl(w.from, F_SETFL, 0);
      char buf[65536];
      ssize_t n;
      while ((n = ::read(w.from, buf, sizeof buf)) > 0) {
        w.partial.append(buf, static_cast<size_t>(n));
        drain_lines(w);
      }
    }
    ::close(w.from);
    waitpid(w.pid, nullptr, 0);
    w.pid = -1;
    w.to = w.from = -1;
  }

  void requeue(Worker& w) {
    for (uint64_t k : w.queue) retry_.push_back(k);
    w.queue.clear();
  }

  void feed(Worker& w) {
    // Keep a few cases queued so that a worker never waits for the parent.
    std::string msg;
    while (w.queue.size() < 4) {
      uint64_t k;
      if (!retry_.empty()) {
        k = retry_.front();
        retry_.pop_front();
      } else {
        if (o_.programs >= 0 && global(next_j_) >= static_cast<uint64_t>(o_.programs)) break;
        k = global(next_j_++);
        if (done_.count(k)) continue;  // done before a resume
      }
      if (w.queue.empty()) w.last_progress = now_s();
      w.queue.push_back(k);
      msg += std::to_string(k) + "\n";
    }
    if (!msg.empty() && ::write(w.to, msg.data(), msg.size()) < 0) {
      // The worker is gone; poll_workers will notice and restart it.
    }
  }

  void poll_workers() {
    std::vector<pollfd> fds;
    for (auto& w : workers_) fds.push_back({w.from, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), 50) <= 0) return;
    for (size_t i = 0; i < workers_.size(); ++i) {
      Worker& w = workers_[i];
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[65536];
      ssize_t n = ::read(w.from, buf, sizeof buf);
      if (n > 0) {
        w.partial.append(buf, static_cast<size_t>(n));
        drain_lines(w);
      } else if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        died(w, "crash");
      }
    }
  }

  void check_timeouts() {
    for (auto& w : workers_)
      if (!w.queue.empty() && now_s() - w.last_progress > o_.case_timeout_s) {
        ::kill(w.pid, SIGKILL);
        died(w, "timeout");
      }
  }

  // The case in hand crashed or hung: record it, hand the rest out again.
  void died(Worker& w, const std::string& kind) {
    int st = 0;
    ::close(w.to);
    ::close(w.from);
    waitpid(w.pid, &st, 0);
    w.pid = -1;
    if (!w.queue.empty()) {
      const uint64_t k = w.queue.front();
      w.queue.pop_front();
      std::string detail = kind;
      if (kind == "crash" && WIFSIGNALED(st)) detail += " (signal " + std::to_string(WTERMSIG(st)) + ")";
      json f = {{"spec", nullptr}, {"bucket", kind}, {"op", ""}, {"error", detail}};
      (kind == "crash" ? crashes_ : timeouts_)++;
      record(k, json{{"k", k}, {"valid", true}, {"runs", 0}, {"findings", json::array({f})}});
    }
    requeue(w);
    if (!g_stop) spawn(w);
  }

  void drain_lines(Worker& w) {
    size_t nl;
    while ((nl = w.partial.find('\n')) != std::string::npos) {
      std::string line = w.partial.substr(0, nl);
      w.partial.erase(0, nl + 1);
      json r = json::parse(line, nullptr, false);
      if (r.is_discarded() || w.queue.empty()) continue;
      const uint64_t k = w.queue.front();
      w.queue.pop_front();
      w.last_progress = now_s();
      record(k, r);
    }
  }

  void record(uint64_t k, const json& r) {
    ++programs_;
    if (!r.value("valid", true)) ++invalid_;
    external_runs_ += r.value("external_runs", int64_t{0});
    const json tier_ms = r.value("tier_ms", json::object());
    for (auto it = tier_ms.begin(); it != tier_ms.end(); ++it) {
      Tier& t = tiers_[it.key()];
      ++t.programs;
      t.seconds += it.value().get<double>() / 1e3;
    }
    compared_ += r.value("compared", int64_t{0});
    for (const json& u : r.value("unsupported", json::array())) {
      ++unsupported_;
      const std::string why = u.is_string() ? u.get<std::string>().substr(0, 200) : u.dump();
      if (unsupported_reasons_.count(why) || unsupported_reasons_.size() < 50) ++unsupported_reasons_[why];
    }
    for (const json& f : r.value("findings", json::array())) {
      json line = f;
      line["k"] = k;
      line["t"] = now_s() - start_;
      if (all_out_) all_out_->append(line.dump());
      add_finding(k, line);
    }
    done_.insert(k);
    while (done_.count(global(done_below_j_))) done_.erase(global(done_below_j_++));
  }

  void add_finding(uint64_t k, const json& f) {
    ++findings_;
    const std::string name = f.value("bucket", "unknown");
    auto [it, fresh] = buckets_.try_emplace(name);
    Bucket& b = it->second;
    ++b.count;
    // A bucket's program is its smallest: workers finish out of order, and
    // the same seed must give the same bucket folders with any --jobs.
    findings_dirty_ = true;
    if (fresh) {
      last_new_ = now_s() - start_;
      b.first_t = f.value("t", last_new_);
      if (f["spec"].is_object() ? is_must_agree(f["spec"].value("strategy", "")) : true) ++must_agree_buckets_;
      if (!o_.quiet) {
        // Like AFL++/libFuzzer: a line when a bucket appears; bugs in
        // aliasfuzz itself (must-agree, crashes, hangs) in red on a terminal.
        const bool must = f["spec"].is_object() ? is_must_agree(f["spec"].value("strategy", "")) : true;
        const bool tty = isatty(2);
        std::fprintf(stderr, "[%6.1fs] %sNEW %s%s (program %llu)%s\n", last_new_, must && tty ? "\033[1;31m" : "",
                     must ? "BUG IN ALIASFUZZ " : "", name.c_str(), static_cast<unsigned long long>(k),
                     must && tty ? "\033[0m" : "");
      }
    }
    if (fresh || k < b.first_k) {
      b.first_k = k;
      b.finding = f;
      b.must_agree = f["spec"].is_object() ? is_must_agree(f["spec"].value("strategy", "")) : true;
      write_bucket(name, k, f);  // minimization happens after the run, on this program
    }
  }

  void write_bucket(const std::string& name, uint64_t k, const json& f) {
    const std::string dir = o_.out + "/findings/" + name;
    make_dirs(dir);
    ir::Program p = generate(o_.seed, k, o_.gen);
    write_atomic(dir + "/case.af", "# aliasfuzz campaign seed " + std::to_string(o_.seed) + ", program " +
                                       std::to_string(k) + "\n" + ir::print(p));
    json settings = {{"seed", o_.seed}, {"program", k}, {"finding", f}, {"gen_size", o_.gen.size}};
    write_atomic(dir + "/settings.json", settings.dump(2) + "\n");
    const bool must = f["spec"].is_object() ? is_must_agree(f["spec"].value("strategy", "")) : true;
    std::string note = "# " + name + "\n\n";
    note += must ? "**A bug in aliasfuzz itself**: a strategy that must agree with the oracle diverged (or a case crashed or hung).\n\n"
                 : "A finding against a strategy under study.\n\n";
    note += "First seen on program " + std::to_string(k) + " of seed " + std::to_string(o_.seed) + ".\n\n";
    if (f["spec"].is_object() && is_external(f["spec"].value("strategy", ""))) {
      note += "Reproduce: `repro.py` (written by the minimizer; its first line names the Python to run it with), or `./aliasfuzz minimize case.af --strategy " +
              f["spec"].value("strategy", "") + " --out DIR`.\n";
    } else if (f["spec"].is_object()) {
      const json& s = f["spec"];
      note += "Reproduce: `./aliasfuzz run case.af --strategy " + s.value("strategy", "") +
              (s["inject"].is_string() ? " --inject " + s["inject"].get<std::string>() : "") + " --reorder " +
              s.value("reorder", "") + " --fusion " + s.value("fusion", "") + " --target " + s.value("target", "") + "`\n";
    }
    if (f.contains("observable"))
      note += "\nFirst mismatch: " + f.value("observable", "") + "[" + std::to_string(f.value("index", 0)) +
              "] expected " + f.value("expected", json()).dump() + ", got " + f.value("actual", json()).dump() + "\n";
    if (f.contains("error")) note += "\nError: " + f.value("error", "") + "\n";
    write_atomic(dir + "/note.md", note);
  }

  static constexpr int64_t kMinimizeTests = 3000;

  // Minimizes the first finding of each bucket that has no min.af yet, in
  // priority order, each in a child process (a crash or hang of the
  // minimizer costs that bucket only).
  void minimize_buckets() {
    if (o_.minimize_s <= 0) return;
    const double total = o_.minimize_total_s >= 0 ? o_.minimize_total_s
                         : o_.programs >= 0 ? 30.0 : std::max(10.0, o_.time_s / 4);
    std::vector<std::pair<std::tuple<int, uint64_t, std::string>, std::string>> order;
    for (const auto& [name, b] : buckets_) {
      if (name == "crash" || name == "timeout") continue;
      const int rank = b.must_agree ? 0 : (name.find('+') != std::string::npos ? 1 : 2);
      order.push_back({{rank, b.first_k, name}, name});
    }
    std::sort(order.begin(), order.end());
    const double t0 = now_s();
    int done = 0, skipped = 0;
    for (const auto& [key, name] : order) {
      const std::string dir = o_.out + "/findings/" + name;
      std::string probe;
      if (read_text(dir + "/min.af", &probe)) continue;
      const double left = total - (now_s() - t0);
      if (g_stop || left < 0.5) { ++skipped; continue; }
      std::string settings;
      if (!read_text(dir + "/settings.json", &settings)) continue;
      json st = json::parse(settings, nullptr, false);
      if (st.is_discarded() || !st["finding"]["spec"].is_object()) continue;
      const json& sp = st["finding"]["spec"];
      RunSpec spec{sp.value("strategy", ""), sp["inject"].is_string() ? sp["inject"].get<std::string>() : "",
                   sp.value("reorder", "program"), sp.value("fusion", "none"), sp.value("target", "interp")};
      const ir::Program p = generate(o_.seed, st.value("program", uint64_t{0}), o_.gen);
      std::fflush(nullptr);
      pid_t pid = fork();
      if (pid == 0) {
        signal(SIGINT, SIG_IGN);
        MinimizeOptions mo;
        mo.time_s = std::min(o_.minimize_s, left);
        // A budget in candidate runs too: the same bucket minimizes to the
        // same program (and bug) whatever the machine's speed, unless the
        // time runs out first (slow external compilers).
        mo.max_tests = kMinimizeTests;
        MinimizedFinding m = minimize_finding(p, spec, mo);
        std::string err;
        _exit(m.ok && write_minimized(dir, m, &err) ? 0 : 1);
      }
      // Slack past the budget for the minimizer's last checks (a run of a
      // real compiler can take tens of seconds).
      const double deadline = now_s() + std::min(o_.minimize_s, left) + (is_external(spec.strategy) ? 120 : 10);
      int status = 0;
      while (waitpid(pid, &status, WNOHANG) == 0) {
        if (now_s() > deadline) {
          ::kill(pid, SIGKILL);
          waitpid(pid, &status, 0);
          break;
        }
        usleep(2000);
      }
      ++done;
    }
    if (!o_.quiet && (done || skipped))
      std::fprintf(stderr, "minimized %d buckets in %.1f s%s\n", done, now_s() - t0,
                   skipped ? (", " + std::to_string(skipped) + " left for `aliasfuzz minimize` (budget)").c_str() : "");
  }

  void status_line(FILE* out) {
    const double el = now_s() - start_;
    std::string ext;
    if (external_runs_ > 0)
      ext = "  compared " + std::to_string(compared_) + "/" + std::to_string(external_runs_) + "  unsupported " +
            std::to_string(unsupported_);
    std::string last = last_new_ < 0 ? "never" : std::to_string(static_cast<long long>(el - last_new_)) + "s ago";
    long rss_pages = 0, pages = 0;
    if (FILE* sm = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(sm, "%ld %ld", &pages, &rss_pages) != 2) rss_pages = 0;
      std::fclose(sm);
    }
    // Programs per second of one worker's time in each tier: where the time goes.
    std::string tiers;
    for (const auto& [name, t] : tiers_)
      if (t.seconds > 0) {
        const double rate = t.programs / t.seconds;
        char b[32];
        std::snprintf(b, sizeof b, rate < 10 ? "%.2f" : "%.0f", rate);  // slow compilers: 0.24, not 0
        tiers += " " + name + " " + b;
      }
    std::fprintf(out,
                 "[%6.1fs] programs %lld  %.0f/s  invalid %lld  findings %lld  buckets %zu (aliasfuzz bugs %lld, "
                 "crashes %lld, hangs %lld)  last new bucket %s  rss %ld MB  per worker, programs/s in:%s%s\n",
                 el, static_cast<long long>(programs_), el > 0 ? programs_ / el : 0.0, static_cast<long long>(invalid_),
                 static_cast<long long>(findings_), buckets_.size(), static_cast<long long>(must_agree_buckets_),
                 static_cast<long long>(crashes_), static_cast<long long>(timeouts_), last.c_str(),
                 rss_pages * (sysconf(_SC_PAGESIZE) / 1024) / 1024, tiers.c_str(), ext.c_str());
    std::fflush(out);
  }

  // campaign.json; its "commands" keep every command line that started or
  // resumed the campaign.
  void save_settings() {
    json commands = json::array(), versions = json::object();
    if (o_.resume) {
      std::string text;
      if (read_text(o_.out + "/campaign.json", &text)) {
        const json old = json::parse(text, nullptr, false);
        if (old.is_object() && old.contains("commands") && old["commands"].is_array()) commands = old["commands"];
        if (old.is_object() && old.contains("versions") && old["versions"].is_object()) versions = old["versions"];
      }
    }
    if (!o_.command_line.empty()) commands.push_back(o_.command_line);
    for (const auto& [tool, v] : o_.versions) versions[tool] = v;
    json s = {{"commands", commands}, {"versions", versions},{"seed", o_.seed}, {"shard", std::to_string(o_.shard_i) + "/" + std::to_string(o_.shard_n)},
              {"programs", o_.programs}, {"time_s", o_.time_s}, {"strategies", o_.strategies},
              {"injects", o_.injects}, {"target", o_.target}, {"gen_size", o_.gen.size},
              {"gen_max_rank", o_.gen.max_rank}, {"gen_max_numel", o_.gen.max_numel},
              {"gen_op_weights", o_.gen.op_weights}, {"not_supported", o_.not_supported},
              {"log_all", o_.log_all}};
    write_atomic(o_.out + "/campaign.json", s.dump(2) + "\n");
  }

  // state.json holds everything a resume needs, buckets with their findings
  // included, in one atomic write; findings.jsonl is rewritten from it.
  void save_state() {
    json buckets = json::object();
    for (const auto& [name, b] : buckets_)
      buckets[name] = {{"count", b.count}, {"first_program", b.first_k}, {"must_agree", b.must_agree},
                       {"first_t", b.first_t}, {"finding", b.finding}};
    json s = {{"seed", o_.seed}, {"done_below", done_below_j_}, {"done_extra", done_}, {"programs", programs_},
              {"invalid", invalid_}, {"findings", findings_}, {"crashes", crashes_}, {"timeouts", timeouts_},
              {"elapsed_s", now_s() - start_}, {"buckets", buckets}, {"timeline", timeline_}, {"tiers", tiers_json()}};
    if (external_runs_ > 0)
      s["external"] = {{"runs", external_runs_}, {"compared", compared_}, {"unsupported", unsupported_},
                       {"unsupported_reasons", unsupported_reasons_}, {"not_supported", o_.not_supported}};
    write_atomic(o_.out + "/state.json", s.dump() + "\n");
    if (findings_dirty_) write_findings();
  }

  json tiers_json() const {
    json t = json::object();
    for (const auto& [name, v] : tiers_) t[name] = {{"programs", v.programs}, {"seconds", v.seconds}};
    return t;
  }

  // findings.jsonl: one line per bucket (its finding on its first program,
  // with the bucket's count and first_t), by first program. Every
  // divergence goes to findings-all.jsonl only with --log-all: logging each
  // one grew the folder ~20 MB per minute per core.
  void write_findings() {
    std::vector<std::pair<std::pair<uint64_t, std::string>, json>> rows;
    for (const auto& [name, b] : buckets_) {
      json line = b.finding;
      line["count"] = b.count;
      line["first_t"] = b.first_t;
      rows.push_back({{b.first_k, name}, std::move(line)});
    }
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string text;
    for (const auto& r : rows) text += r.second.dump() + "\n";
    write_atomic(o_.out + "/findings.jsonl", text);
    findings_dirty_ = false;
  }

  // Resume: the state says which programs are done; findings of programs
  // that are not (they ran after the last save) are dropped, because those
  // programs run again.
  void load() {
    std::string text;
    if (!read_text(o_.out + "/state.json", &text)) return;  // nothing saved yet: start over
    json s = json::parse(text, nullptr, false);
    if (s.is_discarded()) throw std::runtime_error(o_.out + "/state.json is unreadable");
    if (s.value("seed", o_.seed) != o_.seed) throw std::runtime_error("--resume with a different --seed");
    done_below_j_ = next_j_ = s.value("done_below", uint64_t{0});
    for (uint64_t k : s.value("done_extra", std::vector<uint64_t>{})) done_.insert(k);
    programs_ = s.value("programs", int64_t{0});
    invalid_ = s.value("invalid", int64_t{0});
    crashes_ = s.value("crashes", int64_t{0});
    timeouts_ = s.value("timeouts", int64_t{0});
    if (s.contains("external") && s["external"].is_object()) {
      const json& e = s["external"];
      external_runs_ = e.value("runs", int64_t{0});
      compared_ = e.value("compared", int64_t{0});
      unsupported_ = e.value("unsupported", int64_t{0});
      unsupported_reasons_ = e.value("unsupported_reasons", std::map<std::string, int64_t>{});
    }
    elapsed_before_ = s.value("elapsed_s", 0.0);
    const json tiers = s.value("tiers", json::object());
    for (auto it = tiers.begin(); it != tiers.end(); ++it)
      tiers_[it.key()] = {it.value().value("programs", int64_t{0}), it.value().value("seconds", 0.0)};
    timeline_ = s.value("timeline", json::array());
    const json sb = s.value("buckets", json::object());
    bool with_findings = sb.is_object();
    for (auto it = sb.begin(); with_findings && it != sb.end(); ++it)
      with_findings = it.value().is_object() && it.value().contains("finding");
    if (with_findings) {
      findings_ = s.value("findings", int64_t{0});
      for (auto it = sb.begin(); it != sb.end(); ++it) {
        Bucket& b = buckets_[it.key()];
        b.count = it.value().value("count", int64_t{0});
        b.first_k = it.value().value("first_program", uint64_t{0});
        b.must_agree = it.value().value("must_agree", true);
        b.first_t = it.value().value("first_t", 0.0);
        b.finding = it.value()["finding"];
      }
    } else {
      // A folder from before state.json held the findings: every
      // divergence is in findings.jsonl.
      for (const json& f : done_lines(o_.out + "/findings.jsonl", false)) {
        ++findings_;
        const uint64_t k = f.value("k", uint64_t{0});
        auto [it, fresh] = buckets_.try_emplace(f.value("bucket", "unknown"));
        Bucket& b = it->second;
        ++b.count;
        if (fresh || k < b.first_k) {
          b.first_k = k;
          b.finding = f;
          b.first_t = f.value("t", 0.0);
          b.must_agree = f["spec"].is_object() ? is_must_agree(f["spec"].value("strategy", "")) : true;
        }
      }
    }
    if (o_.log_all) done_lines(o_.out + "/findings-all.jsonl", true);
    for (const auto& nb : buckets_) must_agree_buckets_ += nb.second.must_agree;
    // Bucket folders must show each bucket's smallest kept program.
    for (const auto& [name, b] : buckets_) {
      const std::string dir = o_.out + "/findings/" + name;
      std::string text;
      json st = read_text(dir + "/settings.json", &text) ? json::parse(text, nullptr, false) : json();
      if (st.is_object() && st.value("program", uint64_t{~0ULL}) == b.first_k) continue;
      std::remove((dir + "/min.af").c_str());
      std::remove((dir + "/repro.py").c_str());
      write_bucket(name, b.first_k, b.finding);
    }
  }

  // The findings of a JSON-lines file that belong to programs done before
  // the last save (the others run again); a torn last line is dropped.
  // With `rewrite`, the file keeps only those.
  std::vector<json> done_lines(const std::string& path, bool rewrite) {
    std::string lines, kept;
    std::vector<json> out;
    read_text(path, &lines);
    size_t pos = 0;
    while (pos < lines.size()) {
      const size_t nl = lines.find('\n', pos);
      if (nl == std::string::npos) break;
      std::string line = lines.substr(pos, nl - pos);
      pos = nl + 1;
      json f = json::parse(line, nullptr, false);
      if (f.is_discarded() || !f.is_object()) continue;
      const uint64_t k = f.value("k", uint64_t{0});
      if (!(local(k) < done_below_j_ || done_.count(k))) continue;
      kept += line + "\n";
      out.push_back(std::move(f));
    }
    if (rewrite) write_atomic(path, kept);
    return out;
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
    o.not_supported = c.value("not_supported", std::vector<std::string>{});
    return;
  }
  if (!o.capability_weights || o.strategies.empty() || !o.injects.empty()) return;
  for (const auto& s : o.strategies)
    if (!is_external(s)) return;
  for (const auto& s : o.strategies) {
    const double t0 = now_s();
    const oracles::Capabilities c = oracles::probe_capabilities(s);
    if (!c.available) {  // not installed (the strategy is skipped, check.h), or the probe could not start
      if (!o.quiet) std::fprintf(stderr, "aliasfuzz fuzz: no capability probe of %s: %s\n", s.c_str(), c.error.c_str());
      continue;
    }
    if (!c.versions.empty()) o.versions[s] = c.versions;
    for (const auto& [op, why] : c.unsupported) o.gen.op_weights[op] = 0.0;
    const std::string note = oracles::capabilities_summary(c);
    if (!note.empty()) o.not_supported.push_back(note);
    if (!o.quiet)
      std::fprintf(stderr, "aliasfuzz fuzz: %s: %s (%s)\n", s.c_str(),
                   note.empty() ? "every op supported" : (note + ", left out of the generated programs").c_str(),
                   c.from_cache ? ("capabilities from " + c.cache_path).c_str()
                                : ("probed with " + std::to_string(c.probes) + " programs in " +
                                   std::to_string(static_cast<int>(now_s() - t0 + 0.5)) + " s" +
                                   (c.cache_path.empty() ? "" : ", cached in " + c.cache_path)).c_str());
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
