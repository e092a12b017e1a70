// Minimization of a campaign's findings (issue #34): each new bucket's
// first finding, then the novelty leads (findings with a feature no bug
// program has, each minimized keeping it), every job in a child process
// --jobs at a time. A time campaign runs rounds of it while it checks
// (--minimize-budget: a share of its wall time), so bugs show in the
// status line and survive an interrupt; what the rounds leave runs at the
// end, within what remains of --minimize-total and --minimize-novel.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>

#include "campaign/campaign_options.h"
#include "campaign/campaign_tally.h"

namespace af::fuzz {

class CampaignMinimizer {
 public:
  // `start`: the campaign's start on now_s()'s clock; `stopping`: true
  // once the campaign is interrupted.
  CampaignMinimizer(const CampaignOptions& o, const CampaignTally& tally, double start, std::function<bool()> stopping);
  ~CampaignMinimizer();
  // Whether a round is due at `now` (time campaigns with a share only;
  // counts what waits while it is at it).
  bool round_due(double now);
  // One round, within the minimization time due; the workers must be idle.
  void round();
  // After the campaign: what the rounds left, then how many still wait.
  void finish();

  int64_t rounds() const;
  double round_seconds() const;
  int64_t bugs() const;    // distinct bug keys found (explained leads and cut ones left out)
  int64_t queued() const;  // findings waiting for a minimizer, as last counted

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace af::fuzz
