// aliasfuzz merge: combines shard folders of one seed into one campaign folder.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>
#include <nlohmann/json.hpp>

#include "ir/json_text.h"
#include "check/check.h"
#include "check/files.h"
#include "reports/report.h"

namespace af::reports {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct Source {
  std::string dir;
  json campaign, state;
  std::vector<json> findings;
  int shard_i = 0, shard_n = 1;  // "merged" counts as 0/1: its done info is global
  bool shard_known = true;
};

json read_object(const std::string& path, bool required) {
  std::string text;
  if (!fuzz::read_text(path, &text)) {
    if (required) throw std::runtime_error("cannot read " + path);
    return json::object();
  }
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw std::runtime_error(path + " is not a JSON object");
  return j;
}

// Copies a folder's files (recursively), each written atomically.
void copy_tree(const std::string& from, const std::string& to) {
  fuzz::make_dirs(to);
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(from, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const fs::path rel = fs::relative(it->path(), from);
    const std::string target = (fs::path(to) / rel).string();
    if (it->is_directory()) {
      fuzz::make_dirs(target);
    } else if (it->is_regular_file()) {
      const std::string name = it->path().filename().string();
      if (name.size() > 4 && name.compare(name.size() - 4, 4, ".tmp") == 0) continue;  // a torn atomic write
      std::string data;
      if (fuzz::read_text(it->path().string(), &data)) fuzz::write_atomic(target, data);
    }
  }
}

// The global program indices a source has done: (done_below, done_extra) in
// its shard's terms, as a predicate on global k.
struct Done {
  int i, n;
  uint64_t below;            // local indices below this are done
  std::set<uint64_t> extra;  // global indices
  bool has(uint64_t k) const {
    if (static_cast<int>(k % n) != i) return false;
    return (k - i) / n < below || extra.count(k);
  }
  uint64_t first_missing() const { return i + below * static_cast<uint64_t>(n); }
};

// findings-all.jsonl (campaigns run with --log-all): the union of the
// sources' lines, deduplicated on (k, bucket, spec), ordered by k.
void merge_all_findings(const std::vector<Source>& srcs, const std::string& out) {
  std::vector<std::pair<std::tuple<uint64_t, std::string, std::string>, std::string>> rows;
  std::set<std::tuple<uint64_t, std::string, std::string>> seen;
  bool any = false;
  for (const Source& s : srcs) {
    std::string text;
    if (!fuzz::read_text(s.dir + "/findings-all.jsonl", &text)) continue;
    any = true;
    size_t pos = 0;
    for (size_t nl; (nl = text.find('\n', pos)) != std::string::npos; pos = nl + 1) {
      json f = json::parse(text.substr(pos, nl - pos), nullptr, false);
      if (f.is_discarded() || !f.is_object()) continue;
      auto key = std::make_tuple(f.value("k", uint64_t{0}), f.value("bucket", std::string("unknown")),
                                 ir::json_text(f.value("spec", json(nullptr))));
      if (seen.insert(key).second) rows.push_back({key, ir::json_text(f)});
    }
  }
  if (!any) return;
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string lines;
  for (const auto& r : rows) lines += r.second + "\n";
  fuzz::write_atomic(out + "/findings-all.jsonl", lines);
}

}  // namespace

void merge_campaigns(const std::vector<std::string>& sources, const std::string& out) {
  if (sources.empty()) throw std::runtime_error("merge: no source folders");
  std::vector<Source> srcs;
  for (const std::string& d : sources) {
    Source s;
    s.dir = d;
    s.campaign = read_object(d + "/campaign.json", false);
    s.state = read_object(d + "/state.json", true);
    s.findings = read_findings(d);
    const std::string shard = s.campaign.value("shard", std::string("0/1"));
    if (shard != "merged" && (std::sscanf(shard.c_str(), "%d/%d", &s.shard_i, &s.shard_n) != 2 || s.shard_n < 1 ||
                              s.shard_i < 0 || s.shard_i >= s.shard_n)) {
      s.shard_known = false;
      s.shard_i = 0, s.shard_n = 1;
    }
    srcs.push_back(std::move(s));
  }
  const json seed = srcs[0].state.value("seed", srcs[0].campaign.value("seed", json(nullptr)));
  for (const Source& s : srcs) {
    const json other = s.state.value("seed", s.campaign.value("seed", json(nullptr)));
    if (other != seed)
      throw std::runtime_error("merge: " + s.dir + " has seed " + ir::json_text(other) + ", not " +
                               ir::json_text(seed));
  }
  // The same shard given twice (e.g. a copy): keep the one that did more.
  {
    std::map<std::string, size_t> best;
    std::vector<bool> keep(srcs.size(), true);
    for (size_t i = 0; i < srcs.size(); ++i) {
      const std::string shard = srcs[i].campaign.value("shard", std::string("0/1"));
      if (shard == "merged" || !srcs[i].shard_known) continue;
      auto [it, fresh] = best.try_emplace(shard, i);
      if (fresh) continue;
      const size_t j = it->second;
      const bool i_better = srcs[i].state.value("programs", int64_t{0}) > srcs[j].state.value("programs", int64_t{0});
      std::cerr << "aliasfuzz merge: shard " << shard << " given twice (" << srcs[j].dir << ", " << srcs[i].dir
                << "); keeping " << (i_better ? srcs[i].dir : srcs[j].dir) << "\n";
      keep[i_better ? j : i] = false;
      if (i_better) it->second = i;
    }
    std::vector<Source> kept;
    for (size_t i = 0; i < srcs.size(); ++i)
      if (keep[i]) kept.push_back(std::move(srcs[i]));
    srcs = std::move(kept);
  }

  // Findings: each source's lines (one per bucket with its count; older
  // folders: one per finding, count 1), deduplicated on (k, bucket, spec)
  // so that a folder merged twice counts once; per bucket the counts add up
  // and the line of the smallest program stands for it.
  struct Bucket {
    int64_t count = 0;
    uint64_t first_k = 0;
    bool must_agree = true;
    size_t src = 0;
    double first_t = 0;  // earliest time any shard found it
    json line;
  };
  std::map<std::string, Bucket> buckets;
  int64_t crashes = 0, timeouts = 0, findings = 0;
  std::set<std::tuple<uint64_t, std::string, std::string>> seen;
  for (size_t si = 0; si < srcs.size(); ++si)
    for (const json& f : srcs[si].findings) {
      const uint64_t k = f.value("k", uint64_t{0});
      const std::string name = f.value("bucket", std::string("unknown"));
      if (!seen.insert({k, name, ir::json_text(f.value("spec", json(nullptr)))}).second) continue;
      const int64_t count = f.value("count", int64_t{1});
      const double t = f.value("first_t", f.value("t", 0.0));
      findings += count;
      auto [it, fresh] = buckets.try_emplace(name);
      Bucket& b = it->second;
      b.count += count;
      b.first_t = fresh ? t : std::min(b.first_t, t);
      if (fresh || k < b.first_k) {
        b.first_k = k;
        b.src = si;
        b.line = f;
        const json& spec = f["spec"];
        const auto typed = spec.is_object() ? run::spec_from_json(spec) : std::nullopt;
        b.must_agree = spec.is_object() ? typed && typed->must_agree() : true;
      }
    }

  fuzz::make_dirs(out + "/findings");
  std::vector<std::pair<std::pair<uint64_t, std::string>, json>> rows;
  for (auto& [name, b] : buckets) {
    b.line["count"] = b.count;
    b.line["first_t"] = b.first_t;
    rows.push_back({{b.first_k, name}, b.line});
  }
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string lines;
  for (const auto& r : rows) lines += ir::json_text(r.second) + "\n";
  fuzz::write_atomic(out + "/findings.jsonl", lines);
  merge_all_findings(srcs, out);
  for (const auto& [name, b] : buckets) {
    const std::string from = srcs[b.src].dir + "/findings/" + name;
    if (fs::is_directory(from)) copy_tree(from, out + "/findings/" + name);
  }

  // State: counters summed, timeline merged by time.
  int64_t programs = 0, invalid = 0;
  double elapsed = 0;
  for (const Source& s : srcs) {
    programs += s.state.value("programs", int64_t{0});
    invalid += s.state.value("invalid", int64_t{0});
    crashes += s.state.value("crashes", int64_t{0});
    timeouts += s.state.value("timeouts", int64_t{0});
    elapsed = std::max(elapsed, s.state.value("elapsed_s", 0.0));
  }
  // Shards ran side by side: at time t, programs is the sum of each shard's
  // latest sample, buckets the distinct buckets first found by t.
  std::vector<std::vector<std::pair<double, double>>> series;
  double t_end = 0;
  for (const Source& s : srcs) {
    std::vector<std::pair<double, double>> v;
    for (const json& e : s.state.value("timeline", json::array()))
      if (e.is_object()) v.push_back({e.value("t", 0.0), e.value("programs", 0.0)});
    std::sort(v.begin(), v.end());
    if (!v.empty()) t_end = std::max(t_end, v.back().first);
    series.push_back(std::move(v));
  }
  std::vector<double> times;
  for (int t = 1; t < t_end; ++t) times.push_back(t);
  if (t_end > 0) times.push_back(t_end);
  std::vector<double> firsts;
  for (const auto& [name, b] : buckets) firsts.push_back(b.first_t);
  std::sort(firsts.begin(), firsts.end());
  json timeline = json::array();
  for (double t : times) {
    double p = 0;
    for (const auto& v : series) {
      auto it = std::upper_bound(v.begin(), v.end(), std::make_pair(t, static_cast<double>(INFINITY)));
      if (it != v.begin()) p += std::prev(it)->second;
    }
    const size_t nb = std::upper_bound(firsts.begin(), firsts.end(), t) - firsts.begin();
    timeline.push_back({{"t", t}, {"programs", static_cast<int64_t>(std::llround(p))}, {"buckets", nb}});
  }

  // Done programs in global terms (as shard 0/1), when every source's shard is known.
  uint64_t done_below = 0;
  std::set<uint64_t> done_extra;
  bool done_ok = !srcs.empty();
  std::vector<Done> dones;
  for (const Source& s : srcs) {
    if (!s.shard_known) done_ok = false;
    Done d{s.shard_i, s.shard_n, s.state.value("done_below", uint64_t{0}), {}};
    for (uint64_t k : s.state.value("done_extra", std::vector<uint64_t>{})) d.extra.insert(k);
    dones.push_back(std::move(d));
  }
  if (done_ok) {
    auto done = [&](uint64_t k) {
      for (const Done& d : dones)
        if (d.has(k)) return true;
      return false;
    };
    while (done(done_below)) ++done_below;
    for (const Done& d : dones) {
      for (uint64_t j = 0; j < d.below; ++j) {
        const uint64_t k = d.i + j * static_cast<uint64_t>(d.n);
        if (k > done_below) done_extra.insert(k);
      }
      for (uint64_t k : d.extra)
        if (k > done_below) done_extra.insert(k);
    }
  }

  json state_buckets = json::object();
  for (const auto& [name, b] : buckets)
    state_buckets[name] = {{"count", b.count},
                           {"first_program", b.first_k},
                           {"must_agree", b.must_agree},
                           {"first_t", b.first_t},
                           {"finding", b.line}};
  json state = {{"seed", seed},         {"done_below", done_below}, {"done_extra", done_extra}, {"programs", programs},
                {"invalid", invalid},   {"findings", findings},     {"crashes", crashes},       {"timeouts", timeouts},
                {"elapsed_s", elapsed}, {"buckets", state_buckets}, {"timeline", timeline},     {"merged", true}};
  // A regions histogram, when the sources have one: summed.
  json regions = json::object();
  bool any_regions = false;
  for (const Source& s : srcs)
    if (s.state.contains("regions_histogram") && s.state["regions_histogram"].is_object()) {
      any_regions = true;
      for (auto it = s.state["regions_histogram"].begin(); it != s.state["regions_histogram"].end(); ++it)
        if (it.value().is_number())
          regions[it.key()] = regions.value(it.key(), int64_t{0}) + std::llround(it.value().get<double>());
    }
  if (any_regions) state["regions_histogram"] = regions;
  // Time per tier (programs and worker seconds): summed.
  json tiers = json::object();
  for (const Source& s : srcs) {
    const json t = s.state.value("tiers", json::object());
    for (auto it = t.begin(); it != t.end(); ++it) {
      json& m = tiers[it.key()];
      if (!m.is_object()) m = {{"programs", 0}, {"seconds", 0.0}};
      m["programs"] = m.value("programs", int64_t{0}) + it.value().value("programs", int64_t{0});
      m["seconds"] = m.value("seconds", 0.0) + it.value().value("seconds", 0.0);
    }
  }
  if (!tiers.empty()) state["tiers"] = tiers;
  // Runs of external strategies (reached a value comparison, unsupported): summed.
  json external;
  for (const Source& s : srcs) {
    if (!s.state.contains("external") || !s.state["external"].is_object()) continue;
    const json& e = s.state["external"];
    if (external.is_null())
      external = {{"runs", 0},
                  {"compared", 0},
                  {"unsupported", 0},
                  {"unsupported_reasons", json::object()},
                  {"not_supported", e.value("not_supported", json::array())}};
    for (const char* k : {"runs", "compared", "unsupported"})
      external[k] = external[k].get<int64_t>() + e.value(k, int64_t{0});
    const json reasons = e.value("unsupported_reasons", json::object());
    for (auto it = reasons.begin(); it != reasons.end(); ++it)
      if (it.value().is_number())
        external["unsupported_reasons"][it.key()] =
            external["unsupported_reasons"].value(it.key(), int64_t{0}) + it.value().get<int64_t>();
  }
  if (!external.is_null()) state["external"] = external;

  json campaign = srcs[0].campaign;
  campaign["seed"] = seed;
  campaign["shard"] = "merged";
  json list = json::array();
  for (const Source& s : srcs) list.push_back(s.dir);
  campaign["sources"] = list;
  json shards = json::array();
  for (const Source& s : srcs) shards.push_back(s.campaign.value("shard", std::string("0/1")));
  campaign["source_shards"] = shards;
  fuzz::write_atomic(out + "/campaign.json", ir::json_text(campaign, 2) + "\n");
  fuzz::write_atomic(out + "/state.json", ir::json_text(state) + "\n");
  write_reports(out);
}

}  // namespace af::reports
