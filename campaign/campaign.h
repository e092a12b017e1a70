// A fuzz campaign: worker processes check generated programs; the parent
// buckets findings, keeps a resumable state, prints a status line every
// second and writes the reports. A crash, hang or out-of-memory in one case
// becomes a finding of kind crash or timeout and the campaign goes on.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "campaign/campaign_options.h"

namespace af::fuzz {

struct CampaignSummary {
  int64_t programs = 0, invalid = 0, findings = 0, buckets = 0, crashes = 0, timeouts = 0;
  int64_t must_agree_buckets = 0;  // bugs in aliasfuzz itself
  double elapsed_s = 0;
  // Runs of external strategies: how many reached a value comparison and
  // how many the compiler refused as unsupported (not findings).
  int64_t external_runs = 0, compared = 0, unsupported = 0;
  std::vector<std::string> not_supported;  // CampaignOptions::not_supported as used
  // Per tier (generator + oracle, each target, each external strategy):
  // programs per second of one worker's time spent in it.
  std::map<std::string, double> programs_per_s_by_tier;
  // Minimization while it ran (CampaignOptions::minimize_share): rounds and
  // their seconds; distinct bugs its minimizers found (explained leads
  // left out); findings still queued for a minimizer at the end.
  int64_t minimize_rounds = 0, bugs_seen = 0, minimize_queued = 0;
  double minimize_round_s = 0;
};

// Runs (or resumes) a campaign; returns its summary. Throws std::runtime_error on unusable options.
CampaignSummary run_campaign(const CampaignOptions& o);

}  // namespace af::fuzz
