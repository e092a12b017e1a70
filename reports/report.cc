#include "ir/json_text.h"
#include "reports/report.h"

#include "reports/number_text.h"

#include <algorithm>
#include <filesystem>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "check/bucket.h"
#include "check/campaign_specs.h"
#include "check/check.h"
#include "triage/defects.h"
#include "check/files.h"
#include "triage/ledger.h"
#include "ir/text.h"

namespace af::reports {

using nlohmann::json;

json read_json(const std::string& path, bool required) {
  std::string text;
  if (!fuzz::read_text(path, &text)) {
    if (required) throw std::runtime_error("cannot read " + path);
    return json::object();
  }
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    if (required) throw std::runtime_error(path + " is not a JSON object");
    return json::object();
  }
  return j;
}

namespace {
// Root defects (issue #57): the bugs grouped by the evidence their
// compiler gave (minimize.json's "evidence", triage/defects.h); a bug
// without evidence (aliasfuzz's own schedulers, a cut bug program) is a
// defect of its own. Each bug gets its defect's name ("defect").
json root_defects(json& bugs) {
  std::vector<fuzz::DefectCandidate> cands;
  std::map<std::string, fuzz::Evidence> evidence;
  for (size_t i = 0; i < bugs.size(); ++i) {
    const json& g = bugs[i];
    const auto bug = fuzz::BugSignature::parse(g.value("bug_key", std::string()));
    const std::string strategy = bug ? bug->who : g.value("name", std::string());
    size_t stmts = 0;
    std::string trigger, writes;
    if (g.contains("program") && g["program"].is_string())
      if (auto p = ir::parse(g["program"].get<std::string>())) {
        stmts = p->stmts.size();
        trigger = fuzz::program_trigger(*p);
        writes = fuzz::write_shapes(*p);
      }
    const std::string name = std::to_string(i);
    cands.push_back({name, fuzz::strategy_system(strategy), bug ? bug->what : "", stmts, trigger, "", writes});
    if (g.contains("evidence") && g["evidence"].is_string())
      if (auto ev = fuzz::parse_evidence_text(g["evidence"].get<std::string>())) evidence[name] = *ev;
  }
  json out = json::array();
  for (const auto& d : fuzz::group_defects(cands, evidence)) {
    json members = json::array();
    for (const std::string& n : d.entries) members.push_back(bugs[std::stoul(n)].value("name", std::string()));
    const std::string name = bugs[std::stoul(d.name)].value("name", std::string());
    for (const std::string& n : d.entries) bugs[std::stoul(n)]["defect"] = name;
    out.push_back({{"defect", name}, {"system", d.system}, {"bugs", members}, {"evidence", d.evidence}});
  }
  return out;
}

bool exists(const std::string& path) {
  std::string probe;
  return fuzz::read_text(path, &probe);
}

std::string md_cell(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '|')
      r += "\\|";
    else if (c == '\n')
      r += ' ';
    else
      r += c;
  }
  return r;
}

}  // namespace

std::string html_escape(const std::string& s) {
  std::string r;
  r.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': r += "&amp;"; break;
      case '<': r += "&lt;"; break;
      case '>': r += "&gt;"; break;
      case '"': r += "&quot;"; break;
      case '\'': r += "&#39;"; break;
      default: r += c;
    }
  }
  return r;
}

std::vector<json> read_findings(const std::string& dir) {
  std::vector<json> out;
  std::string text;
  if (!fuzz::read_text(dir + "/findings.jsonl", &text)) return out;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) break;  // a torn last line
    json f = json::parse(text.substr(pos, nl - pos), nullptr, false);
    pos = nl + 1;
    if (!f.is_discarded() && f.is_object()) out.push_back(std::move(f));
  }
  return out;
}

std::string strategy_label(const json& f) {
  const json spec = f.value("spec", json(nullptr));
  if (spec.is_object()) {
    std::string s = spec.value("strategy", std::string());
    if (s.empty()) s = "mutant";
    if (spec.contains("inject") && spec["inject"].is_string() && !spec["inject"].get<std::string>().empty())
      s += "+" + spec["inject"].get<std::string>();
    return s;
  }
  // crash / timeout (no spec): the bucket's name is the label.
  const std::string b = f.value("bucket", std::string("unknown"));
  const auto bucket = fuzz::Bucket::parse(b);
  return bucket ? bucket->who : b;
}

json summarize(const std::string& dir) {
  const json campaign = read_json(dir + "/campaign.json", false);
  const json state = read_json(dir + "/state.json", true);
  const std::vector<json> findings = read_findings(dir);

  json r;
  r["seed"] = state.value("seed", campaign.value("seed", json(nullptr)));
  r["shard"] = campaign.value("shard", std::string("0/1"));
  if (campaign.contains("sources")) r["sources"] = campaign["sources"];
  r["target"] = campaign.value("target", std::string());
  const int64_t programs = state.value("programs", int64_t{0});
  const double elapsed = state.value("elapsed_s", 0.0);
  r["programs"] = programs;
  r["elapsed_s"] = elapsed;
  r["programs_per_s"] = elapsed > 0 ? programs / elapsed : 0.0;
  r["invalid"] = state.value("invalid", int64_t{0});
  r["findings"] = state.value("findings", static_cast<int64_t>(findings.size()));
  r["crashes"] = state.value("crashes", int64_t{0});
  r["timeouts"] = state.value("timeouts", int64_t{0});
  // How the campaign ran: its command lines, tools, and which runs must agree.
  r["commands"] = campaign.value("commands", json::array());
  r["versions"] = campaign.value("versions", json::object());
  const auto strategies = run::parse_strategies(campaign.value("strategies", std::vector<std::string>{}));
  const auto mutants = run::parse_mutants(campaign.value("injects", std::vector<std::string>{}));
  const fuzz::CampaignRuns runs =
      strategies && mutants ? fuzz::campaign_runs(*strategies, *mutants) : fuzz::CampaignRuns{};
  r["must_agree"] = runs.must_agree;
  r["expected_to_diverge"] = runs.expected_to_diverge;
  // Programs per second of one worker's time in each tier.
  json tiers = json::object();
  const json st = state.value("tiers", json::object());
  for (auto it = st.begin(); it != st.end(); ++it) {
    const double sec = it.value().value("seconds", 0.0);
    if (sec > 0) tiers[it.key()] = it.value().value("programs", int64_t{0}) / sec;
  }
  r["programs_per_s_by_tier"] = tiers;

  // Per bucket: a strategy label from its first finding; per strategy: counts.
  std::map<std::string, std::string> bucket_strategy;
  std::map<std::string, int64_t> per_strategy;
  std::map<std::string, json> first_finding;  // bucket -> its finding on its smallest program
  for (const json& f : findings) {
    const std::string label = strategy_label(f), name = f.value("bucket", std::string("unknown"));
    per_strategy[label] += f.value("count", int64_t{1});  // one line per bucket (older folders: per finding)
    bucket_strategy.try_emplace(name, label);
    auto [it, fresh] = first_finding.try_emplace(name, f);
    if (!fresh && f.value("k", uint64_t{0}) < it->second.value("k", uint64_t{0})) it->second = f;
  }
  json buckets = json::array();
  int64_t must = 0;
  const json sb = state.value("buckets", json::object());
  for (auto it = sb.begin(); it != sb.end(); ++it) {
    const std::string name = it.key();
    const json& b = it.value();
    json e = {{"name", name},
              {"count", b.value("count", int64_t{0})},
              {"first_program", b.value("first_program", int64_t{0})},
              {"must_agree", b.value("must_agree", false)}};
    auto bs = bucket_strategy.find(name);
    const auto parsed = fuzz::Bucket::parse(name);
    e["strategy"] = bs != bucket_strategy.end() ? bs->second : parsed ? parsed->who : name;
    json files = json::object();
    for (const auto& [key, file] : std::vector<std::pair<std::string, std::string>>{{"case", "case.af"},
                                                                                    {"min", "min.af"},
                                                                                    {"repro", "repro.py"},
                                                                                    {"note", "note.md"},
                                                                                    {"settings", "settings.json"}}) {
      const std::string rel = "findings/" + name + "/" + file;
      if (exists(dir + "/" + rel)) files[key] = rel;
    }
    e["files"] = files;
    e["story"] =
        bucket_story(dir, name, first_finding.count(name) ? first_finding[name] : b.value("finding", json::object()));
    // The bug it is (triage/signature.h, from minimize.json); a class that
    // was not minimized is its own bug.
    const json mj = read_json(dir + "/findings/" + name + "/minimize.json", false);
    e["bug"] = mj.value("bug", name);
    if (mj.contains("bug_key")) e["bug_key"] = mj["bug_key"];
    must += e["must_agree"].get<bool>();
    buckets.push_back(e);
  }
  // Must-agree bugs first, then the biggest buckets, then by name.
  std::sort(buckets.begin(), buckets.end(), [](const json& a, const json& b) {
    if (a["must_agree"] != b["must_agree"]) return a["must_agree"].get<bool>();
    if (a["count"] != b["count"]) return a["count"].get<int64_t>() > b["count"].get<int64_t>();
    return a["name"].get<std::string>() < b["name"].get<std::string>();
  });
  r["buckets"] = buckets;
  r["bucket_count"] = buckets.size();
  // Bugs: buckets whose minimized programs have one signature, in the
  // order of their first bucket (must-agree first, biggest first), then
  // new ones before those the ledger knows.
  std::vector<fuzz::LedgerEntry> entries;
  if (const std::string ld = fuzz::default_ledger_dir(); !ld.empty()) entries = fuzz::load_ledger(ld, nullptr);
  json bugs = json::array();
  std::map<std::string, size_t> bug_index;  // by bug key (name when none)
  auto bug_of = [&](const json& mj, const std::string& fallback) -> json& {
    const std::string name = mj.value("bug", fallback), key = mj.value("bug_key", name);
    auto [it, fresh] = bug_index.try_emplace(key, bugs.size());
    if (fresh) {
      json g = {{"name", name},        {"buckets", json::array()}, {"folders", json::array()}, {"count", 0},
                {"must_agree", false}, {"explained", 0},           {"from_novelty", false}};
      if (mj.contains("bug_program")) g["program"] = mj["bug_program"];
      if (mj.contains("evidence")) g["evidence"] = mj["evidence"];
      if (mj.contains("bug_key")) g["bug_key"] = mj["bug_key"];
      // A bug the ledger (corpus/findings) already holds is labelled with
      // its entry, where the entry still reproduces on the bug's version.
      const auto spec = mj.contains("spec") ? run::spec_from_json(mj["spec"]) : std::nullopt;
      const std::string strategy = spec ? spec->strategy.name() : "";
      std::string refused;
      const auto bug = fuzz::BugSignature::parse(key);  // none in folders older than bug_key
      const fuzz::LedgerEntry* label = bug ? fuzz::ledger_label(entries, *bug, strategy, &refused) : nullptr;
      if (!label && !refused.empty()) g["resembles"].push_back(refused);
      // A bug of our model of a real compiler that the ledger holds for
      // that compiler: the model predicts it (not a new bug).
      const auto predicted = bug && !label ? fuzz::ledger_prediction(entries, *bug, strategy) : std::nullopt;
      if (predicted)
        g["predicts"] = {{"system", predicted->system},
                         {"entry", predicted->entry->name},
                         {"status", predicted->entry->status},
                         {"reference", predicted->entry->reference}};
      if (label) {
        const fuzz::LedgerEntry& le = *label;
        g["ledger"] = {{"entry", le.name}, {"status", le.status}, {"reference", le.reference}, {"cause", le.cause}};
        if (!le.on.empty()) g["ledger"]["versions"] = fuzz::on_summary(le.on);
      } else {
        // Not the same cause, but the same strategy, kind of divergence and
        // alias roots (aliased inputs, a view of an input, ...): a lead for
        // the triager, never a label.
        for (const auto& le : entries)
          if (bug && le.bug != *bug && bug->resembles(le.bug))
            g["resembles"].push_back(le.name + (le.reference.empty() ? "" : " " + le.reference));
      }
      bugs.push_back(g);
    }
    return bugs[it->second];
  };
  // A bucket whose minimization the budget cut (bug_cut): its bug program
  // is no fixed point, its key no evidence of a bug of its own yet (one
  // bug twice, more often than not). Listed apart, with its findings;
  // `aliasfuzz minimize` or --resume with a longer --minimize-time
  // finishes it.
  // So is one never minimized (the budget left it, its minimizer died or
  // minimization is off), but for a must-agree bucket: a bug of aliasfuzz
  // itself, minimized or not.
  json unfinished = json::array();
  int64_t bucket_minimized = 0;  // buckets whose minimization reached its fixed point
  for (const json& e : buckets) {
    const std::string folder = dir + "/findings/" + e["name"].get<std::string>();
    const json mj = read_json(folder + "/minimize.json", false);
    if (mj.value("bug_cut", false)) {
      unfinished.push_back({{"bucket", e["name"]}, {"count", e["count"]}});
      continue;
    }
    // A must-agree bucket is a bug unminimized too; its program counts
    // among the minimized ones only when it was minimized.
    const bool minimized = !mj.empty() || std::filesystem::exists(folder + "/min.af");
    if (!minimized && !e.value("must_agree", false)) {
      unfinished.push_back({{"bucket", e["name"]}, {"count", e["count"]}, {"not_minimized", true}});
      continue;
    }
    bucket_minimized += minimized;
    json& g = bug_of(mj, e["name"]);
    g["buckets"].push_back(e["name"]);
    g["folders"].push_back("findings/" + e["name"].get<std::string>());
    g["count"] = g["count"].get<int64_t>() + e["count"].get<int64_t>();
    g["must_agree"] = g["must_agree"].get<bool>() || e["must_agree"].get<bool>();
  }
  // Novelty leads (novel/, issue #34): one explained by a bug adds to its
  // count of explained leads; one that is not is a bug found behind a
  // bucket another bug owns, with the findings that had its feature.
  int64_t novel_minimized = 0, novel_explained = 0, novel_unfinished = 0;
  std::error_code ec;
  std::vector<std::string> novel;
  for (const auto& f : std::filesystem::directory_iterator(dir + "/novel", ec))
    novel.push_back(f.path().filename().string());
  std::sort(novel.begin(), novel.end());
  std::map<std::string, std::string> bucket_bug;  // bucket name -> its bug's key
  for (const json& e : buckets) {
    const json mj = read_json(dir + "/findings/" + e["name"].get<std::string>() + "/minimize.json", false);
    bucket_bug[e["name"]] = mj.value("bug_key", mj.value("bug", e["name"].get<std::string>()));
  }
  // Bugs of their own first, so that an explained lead finds the bug it is.
  for (const bool explained : {false, true})
    for (const std::string& n : novel) {
      const json mj = read_json(dir + "/novel/" + n + "/minimize.json", false);
      if (!mj.contains("bug") || mj.value("explained", false) != explained) continue;
      ++novel_minimized;
      // A lead whose bug program did not reach its fixed point (the
      // budget ran out) is no evidence of a bug of its own yet: it would
      // be a duplicate more often than not. Counted; a longer
      // --minimize-novel (or --resume with one) finishes it.
      if (!explained && mj.value("bug_cut", false)) {
        ++novel_unfinished;
        continue;
      }
      const json st = read_json(dir + "/novel/" + n + "/settings.json", false);
      if (explained) {
        // Explained by its bug program's bug; when no bucket or lead of its
        // own reported that one, by its finding's bucket's bug (the bug
        // program is then another local minimum of what the bucket holds).
        ++novel_explained;
        std::string key = mj.value("bug_key", std::string());
        if (!bug_index.count(key)) {
          const json f = st.value("finding", json::object());
          const auto b = bucket_bug.find(f.is_object() ? f.value("bucket", std::string()) : std::string());
          if (b == bucket_bug.end() || !bug_index.count(b->second)) continue;
          key = b->second;
        }
        json& g = bugs[bug_index.at(key)];
        g["explained"] = g["explained"].get<int64_t>() + 1;
        continue;
      }
      const size_t before = bugs.size();
      json& g = bug_of(mj, n);
      // Its count: the findings that had the feature (the feature sample's,
      // scaled to every program; campaign/campaign_case.h), an estimate.
      if (bugs.size() > before) g["from_novelty"] = true, g["count_estimated"] = true;
      g["folders"].push_back("novel/" + n);
      g["count"] = std::max(g["count"].get<int64_t>(), st.value("feature_count", int64_t{1}));
      if (const auto spec = mj.contains("spec") ? run::spec_from_json(mj["spec"]) : std::nullopt)
        g["must_agree"] = g["must_agree"].get<bool>() || spec->must_agree();
    }
  r["novelty"] = {{"minimized", novel_minimized},
                  {"explained", novel_explained},
                  {"unfinished", novel_unfinished},
                  {"new_bugs", std::count_if(bugs.begin(), bugs.end(),
                                             [](const json& g) { return g["from_novelty"].get<bool>(); })}};
  // The bug is the unit: aliasfuzz's own first, then new ones, then those
  // the ledger knows; biggest first within each.
  std::stable_sort(bugs.begin(), bugs.end(), [](const json& a, const json& b) {
    auto rank = [](const json& g) {
      return g["must_agree"].get<bool>() ? 0 : g.contains("ledger") || g.contains("predicts") ? 2 : 1;
    };
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    return a["count"].get<int64_t>() > b["count"].get<int64_t>();
  });
  r["defects"] = root_defects(bugs);
  r["defect_count"] = r["defects"].size();
  r["bugs"] = bugs;
  r["bug_count"] = bugs.size();
  if (!unfinished.empty()) r["unfinished_buckets"] = unfinished;
  // Issue #40: how many minimized programs (a bucket's, a lead's) the bugs
  // stand for; the rest were merged into a bug already reported.
  const int64_t minimized_programs = bucket_minimized + novel_minimized - novel_unfinished;
  r["merged"] = {{"minimized_programs", minimized_programs},
                 {"duplicates", std::max<int64_t>(0, minimized_programs - static_cast<int64_t>(bugs.size()))}};
  r["must_agree_buckets"] = must;
  r["findings_per_strategy"] = per_strategy;
  // External strategies: runs that reached a value comparison, runs the
  // compiler refused as unsupported (not findings), the ops left out.
  if (state.contains("external") && state["external"].is_object()) r["external"] = state["external"];
  if (campaign.contains("not_supported") && campaign["not_supported"].is_array() && !campaign["not_supported"].empty())
    r["not_supported"] = campaign["not_supported"];
  if (state.contains("regions_histogram") && state["regions_histogram"].is_object())
    r["regions_histogram"] = state["regions_histogram"];
  // --invalid-rate: the invalid programs were made on purpose.
  if (campaign.value("gen_invalid_rate", 0.0) > 0) r["invalid_rate"] = campaign["gen_invalid_rate"];
  return r;
}

// "B bugs from M minimized programs (D merged as duplicates, P%); R root defects".
std::string merged_line(const json& s) {
  const json mg = s.value("merged", json::object());
  const int64_t m = mg.value("minimized_programs", int64_t{0}), d = mg.value("duplicates", int64_t{0});
  return std::to_string(s.value("bug_count", int64_t{0})) + " bugs from " + std::to_string(m) +
         " minimized programs (buckets' and novelty leads'): " + std::to_string(d) + " merged as duplicates (" +
         std::to_string(m > 0 ? (100 * d + m / 2) / m : 0) + "%); " +
         std::to_string(s.value("defect_count", int64_t{0})) + " root defects";
}

// The bugs, the unit a reader triages (new ones first, then those the
// ledger knows), each with its count, minimized program and folders.
std::string bug_ledger_text(const json& g) {
  if (g.contains("ledger"))
    return value_text(g["ledger"]["entry"]) + " (" + value_text(g["ledger"]["status"]) +
           (g["ledger"]["reference"] == "" ? "" : " " + value_text(g["ledger"]["reference"])) +
           (g["ledger"].contains("versions") ? "; " + value_text(g["ledger"]["versions"]) : "") + ")";
  if (g.contains("predicts"))
    return "predicts " + value_text(g["predicts"]["system"]) + ": " + value_text(g["predicts"]["entry"]) + " (" +
           value_text(g["predicts"]["status"]) +
           (g["predicts"]["reference"] == "" ? "" : " " + value_text(g["predicts"]["reference"])) + ")";
  std::string known = "**new**";
  if (g.contains("resembles")) {
    known += " (resembles";
    for (const auto& e : g["resembles"]) known += " " + value_text(e);
    known += ")";
  }
  return known;
}

// The root defects before the bugs (issue #57): each with its bugs (its
// faces) and what grouped them.
std::string defects_markdown(const json& s) {
  const json defects = s.value("defects", json::array());
  if (defects.empty()) return "";
  std::string m = "Root defects (" + std::to_string(defects.size()) +
                  "): bugs grouped by where their compiler goes wrong (`aliasfuzz ledger defects` for the ledger).\n\n"
                  "| root defect | system | bugs | evidence |\n|---|---|---:|---|\n";
  for (const json& d : defects)
    m += "| " + md_cell(d.value("defect", std::string())) + " | " + md_cell(d.value("system", std::string())) + " | " +
         std::to_string(d.value("bugs", json::array()).size()) + " | " + md_cell(d.value("evidence", std::string())) +
         " |\n";
  return m + "\n";
}

std::string bugs_markdown(const json& s) {
  std::string m = "## Bugs (one per cause; aliasfuzz's own first, then new, then known)\n\n";
  const json nv = s.value("novelty", json::object());
  m += "Novelty leads (findings with a feature no bug program had, minimized keeping it): " +
       std::to_string(nv.value("minimized", int64_t{0})) + " minimized, " +
       std::to_string(nv.value("explained", int64_t{0})) + " explained by a bug below, " +
       std::to_string(nv.value("new_bugs", int64_t{0})) + " bugs found only through them" +
       (nv.value("unfinished", int64_t{0}) > 0
            ? ", " + std::to_string(nv.value("unfinished", int64_t{0})) + " unfinished (budget: --minimize-novel)"
            : std::string()) +
       ".\n\n" + merged_line(s) + "\n\n";
  m += defects_markdown(s);
  m += "| bug | root defect | ledger | findings | explained leads | where |\n|---|---|---|---:|---:|---|\n";
  for (const json& g : s.value("bugs", json::array())) {
    std::string where;
    for (const auto& f : g.value("folders", json::array())) where += (where.empty() ? "" : ", ") + f.get<std::string>();
    const std::string known = bug_ledger_text(g);
    m += "| " + md_cell(g.value("name", std::string())) + (g.value("must_agree", false) ? " **(aliasfuzz)**" : "") +
         " | " + md_cell(g.value("defect", std::string())) + " | " + md_cell(known) + " | " +
         (g.value("count_estimated", false) ? "≈ " : "") + std::to_string(g.value("count", int64_t{0})) + " | " +
         std::to_string(g.value("explained", int64_t{0})) + " | " + md_cell(where) + " |\n";
  }
  for (const json& g : s.value("bugs", json::array()))
    if (g.contains("program"))
      m += "\n### " + g.value("name", std::string()) + "\n\n```\n" + value_text(g["program"]) + "```\n";
  if (s.contains("unfinished_buckets")) {
    m += "\n### Buckets not minimized to a fixed point (not counted as bugs yet)\n\n"
         "`aliasfuzz minimize findings/BUCKET/case.af`, or `--resume` with a longer `--minimize-time`, "
         "finishes them.\n\n| bucket | findings | minimization |\n|---|---:|---|\n";
    for (const json& u : s["unfinished_buckets"])
      m += "| " + md_cell(value_text(u["bucket"])) + " | " + std::to_string(u.value("count", int64_t{0})) + " | " +
           (u.value("not_minimized", false) ? "not run" : "cut by the budget") + " |\n";
  }
  return m + "\n";
}

std::string render_markdown(const json& s) {
  std::string m = "# aliasfuzz campaign report\n\n";
  m += "- seed: " + ir::json_text(s.value("seed", json(nullptr))) + ", shard " + s.value("shard", std::string()) +
       (s.value("target", std::string()).empty() ? "" : ", target " + s.value("target", std::string())) + "\n";
  if (s.contains("sources")) {
    m += "- merged from:";
    for (const auto& src : s["sources"])
      m += " `" + (src.is_string() ? src.get<std::string>() : ir::json_text(src)) + "`";
    m += "\n";
  }
  m += "- programs: " + std::to_string(s.value("programs", int64_t{0})) + " in " + fmt(s.value("elapsed_s", 0.0)) +
       " s (" + fmt(s.value("programs_per_s", 0.0)) + " programs/s)\n";
  m += "- invalid: " + std::to_string(s.value("invalid", int64_t{0}));
  if (s.contains("invalid_rate"))
    m += " (--invalid-rate " + value_text(s["invalid_rate"]) +
         ": programs eager PyTorch rejects, run by the external strategies; one that runs such a program is an "
         "accepts-invalid finding)";
  m += "\n";
  for (const auto& c : s.value("commands", json::array())) m += "- command: `" + value_text(c) + "`\n";
  const json versions = s.value("versions", json::object());
  if (!versions.empty()) {
    m += "- versions:";
    for (auto it = versions.begin(); it != versions.end(); ++it)
      m += " " + it.key() + " " + value_text(it.value()) + ";";
    m.back() = '\n';
  }
  m += "- must agree (a divergence is a bug in aliasfuzz): " + text_list(s.value("must_agree", json::array())) + "\n";
  m += "- expected to diverge (under study, mutants): " + text_list(s.value("expected_to_diverge", json::array())) +
       "\n";
  const json tiers = s.value("programs_per_s_by_tier", json::object());
  if (!tiers.empty()) {
    m += "- programs/s of one worker's time in each tier:";
    for (auto it = tiers.begin(); it != tiers.end(); ++it)
      m += " " + it.key() + " " + rate_text(it.value().get<double>()) + ",";
    m.back() = '\n';
  }
  m += "- findings: " + std::to_string(s.value("findings", int64_t{0})) + " in " +
       std::to_string(s.value("bucket_count", int64_t{0})) + " buckets, " +
       std::to_string(s.value("bug_count", int64_t{0})) + " distinct bugs (one per cause, triage/signature.h), " +
       std::to_string(s.value("defect_count", int64_t{0})) + " root defects (triage/defects.h)\n";
  m += "- crashes: " + std::to_string(s.value("crashes", int64_t{0})) +
       ", timeouts: " + std::to_string(s.value("timeouts", int64_t{0})) + "\n";
  if (s.contains("external")) {
    const json& e = s["external"];
    const int64_t runs = e.value("runs", int64_t{0}), cmp = e.value("compared", int64_t{0});
    if (runs > 0)
      m += "- external strategies: " + std::to_string(cmp) + " of " + std::to_string(runs) +
           " runs reached a value comparison (" + fmt(runs ? 100.0 * cmp / runs : 0.0) + "%), " +
           std::to_string(e.value("unsupported", int64_t{0})) + " unsupported (not findings)\n";
    else
      m += "- unsupported runs (not findings; a model predicts its real compiler refuses an op, or the Halide "
           "lowering does not implement one): " +
           std::to_string(e.value("unsupported", int64_t{0})) + "\n";
    // The most frequent reasons, so that a refusal is seen for what it is.
    std::vector<std::pair<int64_t, std::string>> reasons;
    const json rs = e.value("unsupported_reasons", json::object());
    for (auto it = rs.begin(); it != rs.end(); ++it)
      if (it.value().is_number_integer()) reasons.push_back({-it.value().get<int64_t>(), it.key()});
    std::sort(reasons.begin(), reasons.end());
    for (size_t i = 0; i < reasons.size() && i < 5; ++i)
      m += "  - " + std::to_string(-reasons[i].first) + " runs: `" + reasons[i].second + "`\n";
  }
  for (const auto& n : s.value("not_supported", json::array()))
    if (n.is_string()) m += "- " + n.get<std::string>() + " (left out of the generated programs)\n";
  m += "- **bugs in aliasfuzz itself** (must-agree buckets): " +
       std::to_string(s.value("must_agree_buckets", int64_t{0})) + "\n\n";

  auto table = [&](bool must) {
    std::string t = "| bucket | strategy | findings | first program | files |\n|---|---|---:|---:|---|\n";
    int rows = 0;
    for (const json& b : s.value("buckets", json::array())) {
      if (b.value("must_agree", false) != must) continue;
      ++rows;
      std::string links;
      const json files = b.value("files", json::object());
      for (auto it = files.begin(); it != files.end(); ++it) {
        const std::string rel = it.value().get<std::string>();
        links += (links.empty() ? "" : " ") + std::string("[") + rel.substr(rel.rfind('/') + 1) + "](" + rel + ")";
      }
      t += "| " + md_cell(b.value("name", std::string())) + " | " + md_cell(b.value("strategy", std::string())) +
           " | " + std::to_string(b.value("count", int64_t{0})) + " | " +
           std::to_string(b.value("first_program", int64_t{0})) + " | " + links + " |\n";
    }
    return rows ? t + "\n" : std::string("None.\n\n");
  };
  m += bugs_markdown(s);
  m += "## Buckets of bugs in aliasfuzz (must-agree strategies, crashes, timeouts)\n\n" + table(true);
  m += "## Buckets of findings against strategies under study\n\n" + table(false);
  m += "\n## Buckets\n\n";
  int told = 0;
  for (const json& b : s.value("buckets", json::array())) {
    if (told++ == kStories) {
      m += "(" + std::to_string(s.value("buckets", json::array()).size() - kStories) +
           " more buckets: see report.json)\n\n";
      break;
    }
    const json story = b.value("story", json::object());
    m += "### " + b.value("name", std::string()) + "\n\n";
    m += std::string(b.value("must_agree", false) ? "**A bug in aliasfuzz itself.** " : "") +
         std::to_string(b.value("count", int64_t{0})) + " findings, first on program " +
         std::to_string(b.value("first_program", int64_t{0})) + ".\n\n";
    for (const auto& l : story_lines(story)) m += "- " + l + "\n";
    if (story.contains("repro")) m += "- reproduce: `" + value_text(story["repro"]) + "`\n";
    if (story.contains("program")) m += "\n```\n" + value_text(story["program"]) + "```\n";
    m += "\n";
  }
  m += "## Findings per strategy\n\n";
  const json per = s.value("findings_per_strategy", json::object());
  if (per.empty())
    m += "None.\n";
  else {
    m += "| strategy | findings |\n|---|---:|\n";
    for (auto it = per.begin(); it != per.end(); ++it)
      m += "| " + md_cell(it.key()) + " | " + ir::json_text(it.value()) + " |\n";
  }
  if (s.contains("regions_histogram")) {
    m += "\n## Regions per schedule\n\n| regions | count |\n|---:|---:|\n";
    for (auto it = s["regions_histogram"].begin(); it != s["regions_histogram"].end(); ++it)
      m += "| " + md_cell(it.key()) + " | " + ir::json_text(it.value()) + " |\n";
  }
  m += "\nSee also [report.html](report.html) and [report.json](report.json).\n";
  return m;
}

void write_reports(const std::string& dir) {
  const json summary = summarize(dir);
  std::string text;
  fuzz::read_text(dir + "/state.json", &text);
  const json state = json::parse(text, nullptr, false);
  fuzz::write_atomic(dir + "/report.json", ir::json_text(summary, 2) + "\n");
  fuzz::write_atomic(dir + "/report.md", render_markdown(summary));
  fuzz::write_atomic(dir + "/report.html", render_html(summary, state.is_discarded() ? json::object() : state));
}

}  // namespace af::reports
