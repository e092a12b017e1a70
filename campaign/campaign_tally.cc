#include "ir/json_text.h"
#include <nlohmann/json.hpp>
#include "campaign/campaign_tally.h"

#include "check/check.h"

namespace af::fuzz {

using nlohmann::json;

bool finding_must_agree(const json& f) {
  if (!f["spec"].is_object()) return true;  // a crash or hang of a case
  const auto spec = run::spec_from_json(f["spec"]);
  return spec && spec->must_agree();
}

void CampaignTally::count_program(const json& r) {
  ++programs;
  if (!r.value("valid", true)) ++invalid;
  external_runs += r.value("external_runs", int64_t{0});
  // find(), not value(): value() copies an object or array (one answer per program).
  if (const auto tier_ms = r.find("tier_ms"); tier_ms != r.end() && tier_ms->is_object())
    for (auto it = tier_ms->begin(); it != tier_ms->end(); ++it)
      if (it.value().is_number()) add_tier_ms(it.key(), it.value().get<double>());
  compared += r.value("compared", int64_t{0});
  if (const auto sample = r.find("sample"); sample != r.end() && sample->is_object()) {
    ++sample_programs;
    const json& words = (*sample)["features"];
    const json& diverged = (*sample)["diverged"];
    for (const json& w : words)
      if (w.is_string()) ++sample_features[w.get<std::string>()];
    for (auto it = diverged.begin(); diverged.is_object() && it != diverged.end(); ++it) {
      ++sample_who[it.key()];
      for (const json& w : words)
        if (w.is_string()) ++sample_findings[it.key() + "|" + w.get<std::string>()];
      for (const json& w : it.value())
        if (w.is_string()) ++sample_findings[it.key() + "|" + w.get<std::string>()];
    }
  }
  const auto unsupported_runs = r.find("unsupported");
  if (unsupported_runs == r.end() || !unsupported_runs->is_array()) return;
  for (const json& u : *unsupported_runs) {
    ++unsupported;
    const std::string why = u.is_string() ? u.get<std::string>().substr(0, 200) : ir::json_text(u);
    if (unsupported_reasons.count(why) || unsupported_reasons.size() < 50) ++unsupported_reasons[why];
  }
}

void CampaignTally::count_program(const RoutineAnswer& answer) {
  ++programs;  // valid, no external run (campaign/answer_line.h)
  for (const auto& [tier, ms] : answer.tier_ms) add_tier_ms(tier, ms);
}

void CampaignTally::add_tier_ms(const std::string& tier, double ms) {
  Tier& t = tiers[tier];
  ++t.programs;
  t.seconds += ms / 1e3;
}

std::string finding_who(const json& f) {
  const auto spec = f["spec"].is_object() ? run::spec_from_json(f["spec"]) : std::nullopt;
  return spec ? spec->who() : "";
}

double CampaignTally::lead_score(const std::string& who, const std::string& word) const {
  auto count = [](const std::map<std::string, int64_t>& m, const std::string& key) {
    const auto it = m.find(key);
    return it == m.end() ? 0.0 : static_cast<double>(it->second);
  };
  const double diverged = count(sample_who, who);
  if (word.rfind("what:", 0) == 0)  // rarer kinds first: the frequent one is the known bug's
    return 1.0 - count(sample_findings, who + "|" + word) / (diverged + 1.0);
  const double base = sample_programs > 0 ? diverged / static_cast<double>(sample_programs) : 0.0;
  return (count(sample_findings, who + "|" + word) + 1.0) / (count(sample_features, word) + 2.0) - base;
}

void CampaignTally::add_features(uint64_t k, const json& f) {
  const auto words = f.find("features");
  if (words == f.end() || !words->is_array()) return;
  const std::string who = finding_who(f);
  const std::string id = std::to_string(k) + "|" + who;
  bool first = false;
  for (const json& w : *words) {
    if (!w.is_string()) continue;
    const std::string key = who + "|" + w.get<std::string>();
    ++feature_count[key];
    auto [it, fresh] = feature_first.try_emplace(key, k);
    if (fresh || k < it->second) it->second = k, first = true;
  }
  if (first) candidates[id] = f;
}

CampaignTally::Added CampaignTally::add_finding(uint64_t k, const json& f, double t) {
  ++findings;
  add_features(k, f);
  auto [it, fresh] = buckets.try_emplace(f.value("bucket", "unknown"));
  BucketTally& b = it->second;
  ++b.count;
  Added added;
  added.fresh = fresh;
  if (fresh) {
    last_new = t;
    b.first_t = f.value("t", last_new);
    if (finding_must_agree(f)) ++must_agree_buckets;
  }
  if (fresh || k < b.first_k) {
    b.first_k = k;
    b.finding = f;
    b.must_agree = finding_must_agree(f);
    added.first = true;
  }
  return added;
}

void CampaignTally::add_repeats(const std::string& bucket, int64_t n) {
  findings += n;
  buckets[bucket].count += n;
}

void CampaignTally::add_timeline_point(double t) {
  timeline.push_back({{"t", t}, {"programs", programs}, {"buckets", buckets.size()}});
}

}  // namespace af::fuzz
