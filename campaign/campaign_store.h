// A campaign's files, each written atomically (check/files.h): campaign.json
// (its settings and every command line that started or resumed it),
// state.json (everything --resume needs, buckets with their findings
// included), findings.jsonl (one line per bucket), findings/BUCKET/
// (case.af, settings.json, note.md), and the resume that reads them back.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "campaign/campaign_options.h"
#include "campaign/campaign_tally.h"
#include "campaign/case_queue.h"

namespace af::fuzz {

// findings/NAME/: the generated program k as case.af, settings.json (seed,
// program, finding) and note.md (how to reproduce it).
void write_bucket_folder(const CampaignOptions& o, const std::string& name, uint64_t k, const nlohmann::json& f);
// campaign.json; its "commands" keep every command line that started or
// resumed the campaign.
void save_campaign_settings(const CampaignOptions& o);

class CampaignStore {
 public:
  explicit CampaignStore(const CampaignOptions& o) : o_(o) {}
  // state.json (and findings.jsonl when a bucket changed since).
  void save_state(const CampaignTally& tally, const CaseQueue& queue, double elapsed_s);
  // findings.jsonl: one line per bucket, by first program.
  void write_findings(const CampaignTally& tally);
  // Resume: reads state.json back (nothing saved yet: starts over).
  void load(CampaignTally& tally, CaseQueue& queue, double* elapsed_before);
  bool findings_dirty = true;  // findings.jsonl is behind the tally's buckets

 private:
  const CampaignOptions& o_;
};

}  // namespace af::fuzz
