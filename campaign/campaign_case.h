// What a campaign's worker process does: check one generated program
// under every spec of the campaign and answer with one JSON line, or
// serve program indices read from a pipe until it closes.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>

#include <nlohmann/json_fwd.hpp>

#include "campaign/campaign_options.h"
#include "oracles/line_process.h"

namespace af::fuzz {

// Seconds on a monotonic clock (the campaign's timestamps and timeouts).
using oracles::now_s;

// What a worker has already sent the parent in full: per bucket, the
// smallest program whose finding it sent. A later finding of that bucket
// on a larger program cannot become the bucket's example (the parent
// keeps the smallest program's, and reads a worker's lines in order), so
// the worker sends only its bucket's name ("repeats"): the parent neither
// parses nor copies it. Most findings are repeats: the strategies under
// study and the mutants diverge on most programs.
// The same per feature (generate/features.h) of each strategy: a finding
// with a feature its strategy's findings sent so far did not have (or only
// on a larger program) is sent in full too, with its features, as a
// candidate for novelty-driven minimization (issue #34): a rare bug behind
// a bucket that a frequent one owns. The feature words are few (ops, view
// ops, alias paths), so such sends stay rare.
struct SentBuckets {
  std::unordered_map<std::string, uint64_t> first_k;
  std::unordered_map<std::string, uint64_t> first_k_by_feature;  // "who|feature"
};

// Every how-many-th program (by index) is in the feature sample: the
// answer carries its features and, per strategy or mutant, whether it
// diverged ("sample"), so that the parent knows how often each feature
// comes with a divergence (CampaignTally::lead_score). Every program
// against a real compiler (its run dwarfs the features' cost), every 16th
// against our own strategies and mutants.
int feature_sample_stride(const CampaignOptions& o);

// The answer line of program k. JSON: validity, findings (spec, bucket,
// first mismatch or error), runs, milliseconds per tier, external-run
// counts. With `sent`, a finding of a bucket sent in full before on a
// smaller program is only counted in "repeats" ({bucket: n}). A valid
// program with no finding to send and no external run is answered with a
// routine line instead (campaign/answer_line.h: its tiers and repeats).
std::string check_case(const CampaignOptions& o, uint64_t k, SentBuckets* sent = nullptr);

// The finding of program k whose external spec `spec` (an index in its
// campaign_specs) hung past the case timeout, so that the worker was
// killed: that compiler's `runner-timeout` finding, as check_case would
// have sent it had the compiler's own bound caught the hang. Null when the
// index names no external spec of that program.
nlohmann::json hang_finding(const CampaignOptions& o, uint64_t k, int spec);

// The worker's main loop: an index per line on in_fd, a JSON line each on
// out_fd; under the campaign's memory limit. Never returns.
[[noreturn]] void worker_main(const CampaignOptions& o, int in_fd, int out_fd);

}  // namespace af::fuzz
