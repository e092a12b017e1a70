// A campaign's bookkeeping: what the answers of its workers add up to
// (programs, invalid ones, findings, crashes and hangs, external runs,
// time per tier) and the buckets (one per distinct bug: its count, its
// first program and that program's finding).
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "campaign/answer_line.h"

namespace af::fuzz {

struct BucketTally {  // a bucket's counts in a campaign
  int64_t count = 0;
  uint64_t first_k = 0;
  bool must_agree = false;
  double first_t = 0;      // seconds into the campaign when it first appeared
  nlohmann::json finding;  // its finding on program first_k (with "k" and "t")
};

struct Tier {
  int64_t programs = 0;
  double seconds = 0;  // worker wall time spent in the tier
};

// A finding against a must-agree strategy, or a crash or hang (no spec):
// a bug in aliasfuzz itself.
bool finding_must_agree(const nlohmann::json& finding);
// "STRATEGY+MUTANT" of a finding ("" for a crash or hang).
std::string finding_who(const nlohmann::json& finding);

struct CampaignTally {
  int64_t programs = 0, invalid = 0, findings = 0, crashes = 0, timeouts = 0;
  int64_t external_runs = 0, compared = 0, unsupported = 0;
  std::map<std::string, int64_t> unsupported_reasons;  // "strategy: Type: message" -> runs
  std::map<std::string, Tier> tiers;
  std::map<std::string, BucketTally> buckets;
  int64_t must_agree_buckets = 0;  // of buckets: bugs in aliasfuzz itself
  // Novelty (issue #34): per "who|feature" (who: strategy+mutant; the
  // finding's features, generate/features.h), the smallest program whose
  // finding had it, and how many findings sent in full had it; the
  // findings themselves by "k|who". The campaign minimizes those whose
  // features its bugs do not explain.
  std::map<std::string, uint64_t> feature_first;
  std::map<std::string, int64_t> feature_count;
  std::map<std::string, nlohmann::json> candidates;
  // The feature sample (campaign/campaign_case.h: every program, or every
  // 16th): how many programs it holds, how many had each feature, how
  // many of those diverged under each "who" ("who|feature"; "who|what:KIND"
  // counts the kinds), and how many diverged under each who.
  int64_t sample_programs = 0;
  std::map<std::string, int64_t> sample_features, sample_findings, sample_who;
  double last_new = -1;  // seconds into the campaign when the last new bucket appeared
  nlohmann::json timeline = nlohmann::json::array();

  // Counts one program's answer (its findings go to add_finding, its
  // repeats to add_repeats): a JSON answer or a routine one.
  void count_program(const nlohmann::json& answer);
  void count_program(const RoutineAnswer& answer);
  // Adds finding f (with "k" and "t") of program k, `t` seconds into the
  // campaign. A bucket's program is its smallest: workers finish out of
  // order, and the same seed must give the same bucket folders with any --jobs.
  struct Added {
    bool fresh = false;  // a new bucket
    bool first = false;  // k is now the bucket's first program (write its folder)
  };
  Added add_finding(uint64_t k, const nlohmann::json& f, double t);
  // Adds n findings of a bucket its worker sent in full before, on a
  // smaller program (an answer's "repeats", campaign/campaign_case.h).
  void add_repeats(const std::string& bucket, int64_t n);
  void add_timeline_point(double t);
  // How much a feature raises the chance that who's run diverges (the
  // "Increase" of Liblit et al.'s statistical bug isolation, PLDI 2005):
  // P(diverges | feature), Laplace-smoothed, minus P(diverges). A feature
  // that comes with a bug of its own scores high (exp_out under a compiler
  // that miscompiles it: near 1 - base rate); one that only rides along
  // with a frequent bug scores near 0. Over the sample; a kind of
  // divergence (what:) scores by how often it is seen instead.
  double lead_score(const std::string& who, const std::string& word) const;
  // Records finding f's features (add_finding calls it).
  void add_features(uint64_t k, const nlohmann::json& f);

 private:
  void add_tier_ms(const std::string& tier, double ms);
};

}  // namespace af::fuzz
