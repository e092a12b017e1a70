#include "ir/json_text.h"
#include "campaign/campaign_case.h"

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "campaign/answer_line.h"
#include "check/bucket.h"
#include "check/campaign_specs.h"
#include "check/check.h"
#include "generate/features.h"
#include "triage/ledger.h"
#include "generate/invalid.h"
#include "triage/signature.h"
#include "ir/analysis.h"
#include "compilers/runner.h"
#include "compilers/table.h"
#include "oracles/json_out.h"

namespace af::fuzz {

using nlohmann::json;

int feature_sample_stride(const CampaignOptions& o) {
  const bool slow = o.injects.empty() && std::any_of(o.strategies.begin(), o.strategies.end(),
                                                     [](const run::RunStrategy& s) { return s.is_external(); });
  return slow ? 1 : 16;
}

namespace {

// The ledger's bugs as feature sets (issue #34 item 4). A slow compiler's
// value divergence on a program that has every feature of a known bug's
// minimized program, of the same kind, is presumed to be that bug: its
// bucket says so (op class "ledger-NAME") and no prefix is compiled to find
// the first diverging op. The bucket's first finding is still minimized,
// and a finding with a feature this worker has not seen is still sent as a
// novelty lead, so a new bug behind the known one is not lost.
struct KnownBug {
  LedgerEntry entry;
  std::string base;                // strategy without its version
  std::vector<std::string> words;  // program_features of the entry
};

const std::vector<KnownBug>& known_bugs() {
  static const std::vector<KnownBug>* v = [] {
    auto* out = new std::vector<KnownBug>;
    for (const LedgerEntry& e : default_ledger()) {
      const auto an = ir::analyze(e.program);
      if (!an || !e.spec.is_external() || e.what != "values") continue;
      KnownBug kb{e, compilers::strategy_base(e.spec.strategy.name()), program_features(e.program, &*an)};
      out->push_back(std::move(kb));
    }
    return out;
  }();
  return *v;
}

std::string known_bug_of(const RunRecord& rec, const std::vector<std::string>& words) {
  if (bug_what(rec) != "values") return "";
  // Its own entries, then its lower stage's, as the report labels.
  for (const std::string& s : label_strategies(rec.spec.strategy.name())) {
    const std::string base = compilers::strategy_base(s);
    for (const KnownBug& kb : known_bugs())
      if (kb.base == base && ledger_label_refused(kb.entry, s).empty() &&
          std::includes(words.begin(), words.end(), kb.words.begin(), kb.words.end()))
        return kb.entry.name;
  }
  return "";
}

// A finding as the parent records it: its spec, bucket, first diverging
// op, first mismatch or error, and features.
json finding_json(const RunRecord& rec, std::string bucket, const std::vector<std::string>& words) {
  json m = {
      {"spec", run::spec_json(rec.spec)}, {"bucket", std::move(bucket)}, {"op", rec.op}, {"regions", rec.regions}};
  if (!rec.accepted_invalid.empty()) m["accepted_invalid"] = rec.accepted_invalid;
  if (rec.mismatch) m.update(oracles::mismatch_json(*rec.mismatch));  // observable, index, expected, actual[, what]
  if (!rec.error.empty()) m["error"] = rec.error;
  if (!rec.stderr_tail.empty()) m["stderr_tail"] = rec.stderr_tail;  // what the dying compiler said last
  if (rec.first_failure) m["first_diverging_op"] = check_failure_json(*rec.first_failure);
  m["features"] = words;
  return m;
}

}  // namespace

json hang_finding(const CampaignOptions& o, uint64_t k, int spec) {
  const auto specs =
      campaign_specs(o.seed, k, o.strategies, o.injects, o.target, o.checked, o.recall, o.across_processes);
  if (spec < 0 || static_cast<size_t>(spec) >= specs.size() || !specs[spec].is_external()) return nullptr;
  RunRecord rec;
  rec.spec = specs[spec];
  rec.agree = false;
  // The words runner_failure_kind reads: a runner-timeout, the compiler's.
  char secs[32];
  std::snprintf(secs, sizeof secs, "%g s", o.case_timeout_s);
  rec.error = std::string("external runner timeout: no answer within the case timeout (") + secs +
              "): the campaign killed the case";
  rec.op = "runner-timeout";
  const Generated g = generate_analyzed(o.seed, k, o.gen);
  std::vector<std::string> words = program_features(g.program, g.analysis ? &*g.analysis : nullptr);
  words.push_back("what:" + bug_what(rec));
  std::sort(words.begin(), words.end());
  return finding_json(rec, bucket_of(rec), words);
}

std::string check_case(const CampaignOptions& o, uint64_t k, SentBuckets* sent) {
  auto has = [k](const std::vector<uint64_t>& v) { return std::find(v.begin(), v.end(), k) != v.end(); };
  if (has(o.test_crash_on)) std::abort();
  if (has(o.test_hang_on))
    for (;;) pause();
  json r = {{"k", k}};
  const double t0 = now_s();
  Generated g = generate_analyzed(o.seed, k, o.gen);
  const ir::Program& p = g.program;
  const ir::Result<ir::Analysis>& an = g.analysis;
  r["valid"] = an.ok();
  if (!an) {
    r["error"] = ir::kind_name(an.error().kind);
    // A program eager refuses (--invalid-rate): only external strategies
    // run it, and one that accepts it is a finding (accepts-invalid).
    if (!eager_raises(an.error().kind)) return ir::json_text(r);
  }
  // Milliseconds per tier (generator + oracle, then each target or external
  // strategy): the status line's programs/s per tier.
  const oracles::Observables expected = an ? oracles::run_eager(p, *an) : oracles::Observables();
  std::map<std::string, double> tier_ms = {{"oracle", (now_s() - t0) * 1e3}};
  auto specs = campaign_specs(o.seed, k, o.strategies, o.injects, o.target, o.checked, o.recall, o.across_processes);
  json f = json::array();
  std::map<std::string, int64_t> repeats;
  int64_t external = 0, compared = 0;
  json unsupported = json::array();
  std::optional<std::vector<std::string>> program_words;  // computed once, for the first finding
  CheckOptions check_options;
  check_options.known_bug = [&](const RunRecord& rec) {
    if (!program_words) program_words = program_features(p, an ? &*an : nullptr);
    return known_bug_of(rec, *program_words);
  };
  const std::vector<RunRecord> records =
      an ? check_program(p, *an, expected, specs, check_options) : check_invalid_program(p, an.error(), specs);
  // Attribution when a strategy and its lower stage both run (the external
  // table's lower_stage: inductor and aot-eager): a divergence both show is
  // the lower stage's, one only the strategy shows is its own.
  auto attribution = [&](const RunRecord& rec) -> std::optional<std::string> {
    const auto& e = rec.spec.strategy.external();
    if (!e || e->lower_stage.empty()) return std::nullopt;
    const auto lower = run::RunStrategy::parse(e->lower_stage);
    for (const RunRecord& low : records)
      if (lower && low.spec.strategy == *lower && low.unsupported.empty())
        return !low.agree ? e->lower_label + " (" + e->lower_stage + " diverges too)"
                          : e->own_label + " (" + e->lower_stage + " agrees)";
    return std::nullopt;
  };
  // The feature sample: this program's words and, per strategy or mutant
  // that diverged, the kinds of its divergences.
  const bool sampled = an && k % static_cast<uint64_t>(feature_sample_stride(o)) == 0;
  std::map<std::string, std::set<std::string>> sample_diverged;
  for (const RunRecord& rec : records) {
    tier_ms[run::tier_of(rec.spec)] += rec.ms;
    if (!rec.unsupported.empty()) unsupported.push_back(rec.spec.strategy.name() + ": " + rec.unsupported);
    if (rec.spec.is_external()) {
      ++external;
      if (rec.unsupported.empty() && rec.error.empty()) ++compared;
    }
    if (rec.agree) continue;
    std::string bucket = bucket_of(rec);
    if (!program_words) program_words = program_features(p, an ? &*an : nullptr);
    std::vector<std::string> words = *program_words;
    words.push_back("what:" + bug_what(rec));
    if (sampled) sample_diverged[rec.spec.who()].insert(words.back());
    std::sort(words.begin(), words.end());
    bool novel = false;
    if (sent) {
      const std::string who = rec.spec.who() + "|";
      for (const auto& w : words) {
        auto [it, fresh] = sent->first_k_by_feature.try_emplace(who + w, k);
        if (fresh || k < it->second) it->second = k, novel = true;
      }
      auto [it, fresh] = sent->first_k.try_emplace(bucket, k);
      if (!fresh && it->second <= k && !novel) {
        ++repeats[bucket];
        continue;
      }
      if (fresh || k < it->second) it->second = k;
    }
    json m = finding_json(rec, std::move(bucket), words);
    if (auto a = attribution(rec)) m["attribution"] = *a;
    f.push_back(m);
  }
  if (sampled) {
    if (!program_words) program_words = program_features(p, &*an);
    r["sample"] = {{"features", *program_words}, {"diverged", sample_diverged}};
  }
  // Nothing new for the parent: the line it reads without a JSON parser.
  if (an && f.empty() && external == 0 && unsupported.empty() && !sampled) {
    const RoutineAnswer routine{k, {tier_ms.begin(), tier_ms.end()}, {repeats.begin(), repeats.end()}};
    if (auto line = encode_routine(routine)) return *line;
  }
  r["runs"] = specs.size();
  r["findings"] = f;
  if (!repeats.empty()) r["repeats"] = repeats;
  r["tier_ms"] = tier_ms;
  if (external) {
    r["external_runs"] = external;
    r["compared"] = compared;
  }
  if (!unsupported.empty()) r["unsupported"] = unsupported;
  return ir::json_text(r);
}

void worker_main(const CampaignOptions& o, int in_fd, int out_fd) {
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_DFL);
  if (o.memory_limit_mb > 0) {
    // External strategies (check.h) run a Python child that inherits this
    // limit: PyTorch 2.x maps ~5 GiB of CUDA libraries at import.
    rlim_t mb = static_cast<rlim_t>(o.memory_limit_mb);
    for (const auto& s : o.strategies)
      if (s.is_external()) mb += 16384;
    rlimit rl{mb << 20, mb << 20};
    setrlimit(RLIMIT_AS, &rl);
  }
  // A compiler that hangs is caught by the worker itself, below the case
  // timeout: a runner-timeout finding of that compiler, and the worker goes
  // on (the parent's kill at the case timeout is the last resort).
  compilers::set_external_timeout(o.test_external_timeout_s > 0
                                      ? o.test_external_timeout_s
                                      : std::max(1.0, o.case_timeout_s * kExternalShareOfCase));
  FILE* in = fdopen(in_fd, "r");
  char buf[64];
  std::string out;
  // findings-all.jsonl (--log-all) wants every finding in full.
  SentBuckets sent;
  while (fgets(buf, sizeof buf, in)) {
    const uint64_t k = std::strtoull(buf, nullptr, 10);
    out = check_case(o, k, o.log_all ? nullptr : &sent) + "\n";
    size_t done = 0;
    while (done < out.size()) {
      ssize_t n = ::write(out_fd, out.data() + done, out.size() - done);
      if (n <= 0) _exit(0);
      done += static_cast<size_t>(n);
    }
  }
  _exit(0);
}

}  // namespace af::fuzz
