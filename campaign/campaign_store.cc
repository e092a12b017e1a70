#include "ir/json_text.h"
#include "campaign/campaign_store.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "check/check.h"
#include "check/files.h"
#include "ir/text.h"

namespace af::fuzz {

using nlohmann::json;

namespace {

json tiers_json(const CampaignTally& tally) {
  json t = json::object();
  for (const auto& [name, v] : tally.tiers) t[name] = {{"programs", v.programs}, {"seconds", v.seconds}};
  return t;
}

// The findings of a JSON-lines file that belong to programs done before
// the last save (the others run again); a torn last line is dropped.
// With `rewrite`, the file keeps only those.
std::vector<json> done_lines(const CaseQueue& queue, const std::string& path, bool rewrite) {
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
    if (!queue.is_done(k)) continue;
    kept += line + "\n";
    out.push_back(std::move(f));
  }
  if (rewrite) write_atomic(path, kept);
  return out;
}

}  // namespace

void write_bucket_folder(const CampaignOptions& o, const std::string& name, uint64_t k, const json& f) {
  const std::string dir = o.out + "/findings/" + name;
  make_dirs(dir);
  ir::Program p = generate(o.seed, k, o.gen);
  write_atomic(dir + "/case.af", "# aliasfuzz campaign seed " + std::to_string(o.seed) + ", program " +
                                     std::to_string(k) + "\n" + ir::print(p));
  json settings = {
      {"seed", o.seed}, {"program", k}, {"finding", f}, {"gen_size", o.gen.size}, {"case_timeout_s", o.case_timeout_s}};
  write_atomic(dir + "/settings.json", ir::json_text(settings, 2) + "\n");
  const bool must = finding_must_agree(f);
  std::string note = "# " + name + "\n\n";
  note += must ? "**A bug in aliasfuzz itself**: a strategy that must agree with the oracle diverged (or a case "
                 "crashed or hung).\n\n"
               : "A finding against a strategy under study.\n\n";
  note += "First seen on program " + std::to_string(k) + " of seed " + std::to_string(o.seed) + ".\n\n";
  if (const auto spec = run::spec_from_json(f["spec"]); spec && spec->is_external()) {
    note +=
        "Reproduce: `repro.py` (written by the minimizer; its first line names the Python to run it with), or "
        "`./aliasfuzz minimize case.af --strategy " +
        spec->strategy.name() + " --out DIR`.\n";
  } else if (spec) {
    note += "Reproduce: `./aliasfuzz run case.af " + run::spec_flags(*spec) + "`\n";
  }
  if (f.contains("observable") && f.contains("what"))  // a shape, count or input geometry (format v1.3)
    note += "\nFirst mismatch: " + f.value("observable", "") + ": " + f.value("what", "") + "\n";
  else if (f.contains("observable"))
    note += "\nFirst mismatch: " + f.value("observable", "") + "[" + std::to_string(f.value("index", 0)) +
            "] expected " + ir::json_text(f.value("expected", json())) + ", got " +
            ir::json_text(f.value("actual", json())) + "\n";
  if (f.contains("error")) note += "\nError: " + f.value("error", "") + "\n";
  write_atomic(dir + "/note.md", note);
}

void save_campaign_settings(const CampaignOptions& o) {
  json commands = json::array(), versions = json::object();
  if (o.resume) {
    std::string text;
    if (read_text(o.out + "/campaign.json", &text)) {
      const json old = json::parse(text, nullptr, false);
      if (old.is_object() && old.contains("commands") && old["commands"].is_array()) commands = old["commands"];
      if (old.is_object() && old.contains("versions") && old["versions"].is_object()) versions = old["versions"];
    }
  }
  if (!o.command_line.empty()) commands.push_back(o.command_line);
  for (const auto& [tool, v] : o.versions) versions[tool] = v;
  json s = {{"commands", commands},
            {"versions", versions},
            {"seed", o.seed},
            {"shard", std::to_string(o.shard_i) + "/" + std::to_string(o.shard_n)},
            {"programs", o.programs},
            {"time_s", o.time_s},
            {"strategies", run::names_of(o.strategies)},
            {"injects", run::names_of(o.injects)},
            {"target", run::target_name(o.target)},
            {"checked", o.checked},
            {"recall", o.recall},
            {"across_processes", o.across_processes},
            {"gen_size", o.gen.size},
            {"gen_invalid_rate", o.gen.invalid_rate},
            {"gen_max_rank", o.gen.max_rank},
            {"gen_max_numel", o.gen.max_numel},
            {"gen_op_weights", o.gen.op_weights},
            {"weights", o.gen_weights},
            {"format", o.gen_format},
            {"gen_aliased_inputs_same_sizes", o.gen.aliased_inputs_same_sizes},
            {"not_supported", o.not_supported},
            {"log_all", o.log_all}};
  write_atomic(o.out + "/campaign.json", ir::json_text(s, 2) + "\n");
}

// state.json holds everything a resume needs, buckets with their findings
// included, in one atomic write; findings.jsonl is rewritten from it.
void CampaignStore::save_state(const CampaignTally& tally, const CaseQueue& queue, double elapsed_s) {
  json buckets = json::object();
  for (const auto& [name, b] : tally.buckets)
    buckets[name] = {{"count", b.count},
                     {"first_program", b.first_k},
                     {"must_agree", b.must_agree},
                     {"first_t", b.first_t},
                     {"finding", b.finding}};
  json s = {{"seed", o_.seed},
            {"done_below", queue.done_below_j},
            {"done_extra", queue.done},
            {"programs", tally.programs},
            {"invalid", tally.invalid},
            {"findings", tally.findings},
            {"crashes", tally.crashes},
            {"timeouts", tally.timeouts},
            {"elapsed_s", elapsed_s},
            {"buckets", buckets},
            {"timeline", tally.timeline},
            {"tiers", tiers_json(tally)}};
  // Novelty candidates (issue #34), only those still the first of a feature.
  json candidates = json::object();
  for (const auto& [key, k] : tally.feature_first) {
    const std::string id = std::to_string(k) + "|" + key.substr(0, key.find('|'));
    if (const auto it = tally.candidates.find(id); it != tally.candidates.end()) candidates[id] = it->second;
  }
  s["features"] = {{"first", tally.feature_first},
                   {"count", tally.feature_count},
                   {"candidates", candidates},
                   {"sample",
                    {{"programs", tally.sample_programs},
                     {"features", tally.sample_features},
                     {"findings", tally.sample_findings},
                     {"who", tally.sample_who}}}};
  if (tally.external_runs > 0 || tally.unsupported > 0)
    s["external"] = {{"runs", tally.external_runs},
                     {"compared", tally.compared},
                     {"unsupported", tally.unsupported},
                     {"unsupported_reasons", tally.unsupported_reasons},
                     {"not_supported", o_.not_supported}};
  write_atomic(o_.out + "/state.json", ir::json_text(s) + "\n");
  if (findings_dirty) write_findings(tally);
}

// findings.jsonl: one line per bucket (its finding on its first program,
// with the bucket's count and first_t), by first program. Every
// divergence goes to findings-all.jsonl only with --log-all: logging each
// one grew the folder ~20 MB per minute per core.
void CampaignStore::write_findings(const CampaignTally& tally) {
  std::vector<std::pair<std::pair<uint64_t, std::string>, json>> rows;
  for (const auto& [name, b] : tally.buckets) {
    json line = b.finding;
    line["count"] = b.count;
    line["first_t"] = b.first_t;
    rows.push_back({{b.first_k, name}, std::move(line)});
  }
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string text;
  for (const auto& r : rows) text += ir::json_text(r.second) + "\n";
  write_atomic(o_.out + "/findings.jsonl", text);
  findings_dirty = false;
}

// Resume: the state says which programs are done; findings of programs
// that are not (they ran after the last save) are dropped, because those
// programs run again.
void CampaignStore::load(CampaignTally& tally, CaseQueue& queue, double* elapsed_before) {
  std::string text;
  if (!read_text(o_.out + "/state.json", &text)) return;  // nothing saved yet: start over
  json s = json::parse(text, nullptr, false);
  if (s.is_discarded()) throw std::runtime_error(o_.out + "/state.json is unreadable");
  if (s.value("seed", o_.seed) != o_.seed) throw std::runtime_error("--resume with a different --seed");
  queue.done_below_j = queue.next_j = s.value("done_below", uint64_t{0});
  for (uint64_t k : s.value("done_extra", std::vector<uint64_t>{})) queue.done.insert(k);
  tally.programs = s.value("programs", int64_t{0});
  tally.invalid = s.value("invalid", int64_t{0});
  tally.crashes = s.value("crashes", int64_t{0});
  tally.timeouts = s.value("timeouts", int64_t{0});
  if (s.contains("external") && s["external"].is_object()) {
    const json& e = s["external"];
    tally.external_runs = e.value("runs", int64_t{0});
    tally.compared = e.value("compared", int64_t{0});
    tally.unsupported = e.value("unsupported", int64_t{0});
    tally.unsupported_reasons = e.value("unsupported_reasons", std::map<std::string, int64_t>{});
  }
  *elapsed_before = s.value("elapsed_s", 0.0);
  const json tiers = s.value("tiers", json::object());
  for (auto it = tiers.begin(); it != tiers.end(); ++it)
    tally.tiers[it.key()] = {it.value().value("programs", int64_t{0}), it.value().value("seconds", 0.0)};
  tally.timeline = s.value("timeline", json::array());
  if (const json fe = s.value("features", json::object()); fe.is_object()) {
    tally.feature_first = fe.value("first", std::map<std::string, uint64_t>{});
    tally.feature_count = fe.value("count", std::map<std::string, int64_t>{});
    tally.candidates = fe.value("candidates", std::map<std::string, json>{});
    const json sample = fe.value("sample", json::object());
    if (sample.is_object()) {
      tally.sample_programs = sample.value("programs", int64_t{0});
      tally.sample_features = sample.value("features", std::map<std::string, int64_t>{});
      tally.sample_findings = sample.value("findings", std::map<std::string, int64_t>{});
      tally.sample_who = sample.value("who", std::map<std::string, int64_t>{});
    }
  }
  const json sb = s.value("buckets", json::object());
  bool with_findings = sb.is_object();
  for (auto it = sb.begin(); with_findings && it != sb.end(); ++it)
    with_findings = it.value().is_object() && it.value().contains("finding");
  if (with_findings) {
    tally.findings = s.value("findings", int64_t{0});
    for (auto it = sb.begin(); it != sb.end(); ++it) {
      BucketTally& b = tally.buckets[it.key()];
      b.count = it.value().value("count", int64_t{0});
      b.first_k = it.value().value("first_program", uint64_t{0});
      b.must_agree = it.value().value("must_agree", true);
      b.first_t = it.value().value("first_t", 0.0);
      b.finding = it.value()["finding"];
    }
  } else {
    // A folder from before state.json held the findings: every
    // divergence is in findings.jsonl.
    for (const json& f : done_lines(queue, o_.out + "/findings.jsonl", false)) {
      ++tally.findings;
      const uint64_t k = f.value("k", uint64_t{0});
      auto [it, fresh] = tally.buckets.try_emplace(f.value("bucket", "unknown"));
      BucketTally& b = it->second;
      ++b.count;
      if (fresh || k < b.first_k) {
        b.first_k = k;
        b.finding = f;
        b.first_t = f.value("t", 0.0);
        b.must_agree = finding_must_agree(f);
      }
    }
  }
  if (o_.log_all) done_lines(queue, o_.out + "/findings-all.jsonl", true);
  for (const auto& nb : tally.buckets) tally.must_agree_buckets += nb.second.must_agree;
  // Bucket folders must show each bucket's smallest kept program.
  for (const auto& [name, b] : tally.buckets) {
    const std::string dir = o_.out + "/findings/" + name;
    std::string text;
    json st = read_text(dir + "/settings.json", &text) ? json::parse(text, nullptr, false) : json();
    if (st.is_object() && st.value("program", uint64_t{~0ULL}) == b.first_k) continue;
    std::remove((dir + "/min.af").c_str());
    std::remove((dir + "/repro.py").c_str());
    write_bucket_folder(o_, name, b.first_k, b.finding);
  }
}

}  // namespace af::fuzz
