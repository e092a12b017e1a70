// report.html: one self-contained page (inline CSS and SVG, no scripts, no
// network), with relative links into findings/.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "ir/json_text.h"
#include "reports/report.h"

#include "reports/number_text.h"
#include "reports/svg.h"

namespace af::reports {

using nlohmann::json;

namespace {

double num_of(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return 0;
  return j[key].get<double>();
}

std::string bucket_rows(const json& summary, bool must) {
  std::string rows;
  for (const json& b : summary.value("buckets", json::array())) {
    if (b.value("must_agree", false) != must) continue;
    std::string links;
    const json files = b.value("files", json::object());
    for (auto it = files.begin(); it != files.end(); ++it) {
      const std::string rel = it.value().get<std::string>();
      links += "<a href=\"" + html_escape(rel) + "\">" + html_escape(rel.substr(rel.rfind('/') + 1)) + "</a> ";
    }
    rows += "<tr><td><code>" + html_escape(b.value("name", std::string())) + "</code></td><td>" +
            html_escape(b.value("strategy", std::string())) + "</td><td class=\"n\">" +
            std::to_string(b.value("count", int64_t{0})) + "</td><td class=\"n\">" +
            std::to_string(b.value("first_program", int64_t{0})) + "</td><td>" + links + "</td></tr>\n";
  }
  if (rows.empty()) return "<p>None.</p>\n";
  return "<table>\n<tr><th>bucket</th><th>strategy</th><th>findings</th><th>first program</th><th>files</th></tr>\n" +
         rows + "</table>\n";
}

// Each bucket's story: settings, first mismatch, sizes, the repro command,
// the program.
std::string stories(const json& summary) {
  std::string h;
  int told = 0;
  const json buckets = summary.value("buckets", json::array());
  for (const json& b : buckets) {
    if (told++ == kStories) {
      h += "<p>(" + std::to_string(buckets.size() - kStories) + " more buckets: see report.json)</p>\n";
      break;
    }
    const json story = b.value("story", json::object());
    const bool must = b.value("must_agree", false);
    h += "<h3" + std::string(must ? " class=\"bug\"" : "") + "><code>" + html_escape(b.value("name", std::string())) +
         "</code></h3>\n<p>" + (must ? "<b class=\"bug\">A bug in aliasfuzz itself.</b> " : "") +
         std::to_string(b.value("count", int64_t{0})) + " findings, first on program " +
         std::to_string(b.value("first_program", int64_t{0})) + ".</p>\n<ul>\n";
    for (const auto& l : story_lines(story)) h += "<li>" + html_escape(l) + "</li>\n";
    if (story.contains("repro"))
      h += "<li>reproduce: <code>" + html_escape(value_text(story["repro"])) + "</code></li>\n";
    h += "</ul>\n";
    if (story.contains("program")) h += "<pre>" + html_escape(value_text(story["program"])) + "</pre>\n";
  }
  return h.empty() ? "<p>None.</p>\n" : h;
}

// The bugs first (issue #59): what a person acts on, before the campaign's
// details and its buckets. Each bug: its ledger label, findings, smallest
// program and where its folders are (repro.py there).
std::string bug_table(const json& s) {
  const json bugs = s.value("bugs", json::array());
  std::string h = "<h2 id=\"bugs\">Bugs: " + std::to_string(bugs.size()) + " (" +
                  std::to_string(s.value("defect_count", int64_t{0})) + " root defects)</h2>\n";
  if (bugs.empty()) return h + "<p>None minimized yet.</p>\n";
  h += "<table>\n<tr><th>bug</th><th>root defect</th><th>ledger</th><th>findings</th><th>smallest program</th>"
       "<th>repro</th></tr>\n";
  for (const json& g : bugs) {
    std::string label = bug_ledger_text(g), where;
    for (size_t at; (at = label.find("**")) != std::string::npos;) label.erase(at, 2);  // Markdown emphasis
    for (const auto& f : g.value("folders", json::array()))
      if (f.is_string()) where += "<a href=\"" + html_escape(f.get<std::string>()) + "/repro.py\">" +
                                  html_escape(f.get<std::string>()) + "</a><br>";
    const bool must = g.value("must_agree", false);
    h += std::string("<tr") + (must ? " class=\"bug\"" : "") + "><td>" + html_escape(g.value("name", std::string())) +
         (must ? " <b>(aliasfuzz)</b>" : "") + "</td><td>" + html_escape(g.value("defect", std::string())) +
         "</td><td>" + html_escape(label) + "</td><td class=\"n\">" +
         std::to_string(g.value("count", int64_t{0})) + "</td><td>" +
         (g.contains("program") ? "<details><summary>show</summary><pre>" + html_escape(value_text(g["program"])) +
                                      "</pre></details>"
                                : std::string()) +
         "</td><td>" + where + "</td></tr>\n";
  }
  return h + "</table>\n";
}

}  // namespace

std::string render_html(const json& s, const json& state) {
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>aliasfuzz report</title>\n"
      "<style>\nbody{font-family:sans-serif;margin:2em;max-width:1100px}\n"
      "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}\n"
      "td.n{text-align:right}.bug{color:#b00}pre{background:#f6f6f6;padding:0.5em;overflow-x:auto}.plots "
      "svg{margin:0.5em 0.5em 0 0}\ncode{font-size:90%}\n</style>\n"
      "</head>\n<body>\n<h1>aliasfuzz campaign report</h1>\n";
  h += bug_table(s);
  h += "<h2>The campaign</h2>\n";
  const int64_t must = s.value("must_agree_buckets", int64_t{0});
  h += "<ul>\n<li>seed " + html_escape(ir::json_text(s.value("seed", json(nullptr)))) + ", shard " +
       html_escape(s.value("shard", std::string())) +
       (s.value("target", std::string()).empty() ? "" : ", target " + html_escape(s.value("target", std::string()))) +
       "</li>\n";
  if (s.contains("sources")) {
    h += "<li>merged from:";
    for (const auto& src : s["sources"])
      h += " <code>" + html_escape(src.is_string() ? src.get<std::string>() : ir::json_text(src)) + "</code>";
    h += "</li>\n";
  }
  h += "<li>programs: " + std::to_string(s.value("programs", int64_t{0})) + " in " + fmt(s.value("elapsed_s", 0.0)) +
       " s (" + fmt(s.value("programs_per_s", 0.0)) + " programs/s)</li>\n";
  h += "<li>invalid: " + std::to_string(s.value("invalid", int64_t{0})) + "</li>\n";
  for (const auto& c : s.value("commands", json::array()))
    h += "<li>command: <code>" + html_escape(value_text(c)) + "</code></li>\n";
  const json versions = s.value("versions", json::object());
  if (!versions.empty()) {
    std::string v;
    for (auto it = versions.begin(); it != versions.end(); ++it)
      v += (v.empty() ? "" : "; ") + it.key() + " " + value_text(it.value());
    h += "<li>versions: " + html_escape(v) + "</li>\n";
  }
  h += "<li>must agree (a divergence is a bug in aliasfuzz): " +
       html_escape(text_list(s.value("must_agree", json::array()))) +
       "</li>\n<li>expected to diverge (under study, mutants): " +
       html_escape(text_list(s.value("expected_to_diverge", json::array()))) + "</li>\n";
  const json tiers = s.value("programs_per_s_by_tier", json::object());
  if (!tiers.empty()) {
    std::string t;
    for (auto it = tiers.begin(); it != tiers.end(); ++it)
      t += (t.empty() ? "" : ", ") + it.key() + " " + rate_text(it.value().get<double>());
    h += "<li>programs/s of one worker's time in each tier: " + html_escape(t) + "</li>\n";
  }
  h += "<li>findings: " + std::to_string(s.value("findings", int64_t{0})) + " in " +
       std::to_string(s.value("bucket_count", int64_t{0})) + " buckets, " +
       std::to_string(s.value("bug_count", int64_t{0})) +
       " distinct bugs (buckets whose minimized programs share a signature)</li>\n";
  h += "<li>crashes: " + std::to_string(s.value("crashes", int64_t{0})) +
       ", timeouts: " + std::to_string(s.value("timeouts", int64_t{0})) + "</li>\n";
  h += std::string("<li") + (must ? " class=\"bug\"" : "") +
       "><b>bugs in aliasfuzz itself</b> (must-agree buckets): " + std::to_string(must) + "</li>\n</ul>\n";

  // Plots from the timeline: programs/s between samples, buckets over time.
  std::vector<std::pair<double, double>> rate, buckets;
  const json timeline = state.is_object() ? state.value("timeline", json::array()) : json::array();
  double pt = 0, pp = 0;
  bool first = true;
  for (const json& e : timeline) {
    if (!e.is_object()) continue;
    const double t = num_of(e, "t"), p = num_of(e, "programs");
    buckets.push_back({t, num_of(e, "buckets")});
    // Rates over at least a quarter second: the final sample, taken just
    // after the last per-second one, would otherwise read as a drop to 0.
    if (first ? t >= 0.25 : t - pt >= 0.25) {
      rate.push_back({t, (p - pp) / (t - pt)});
      pt = t;
      pp = p;
      first = false;
    }
  }
  std::vector<std::pair<std::string, double>> per;
  const json ps = s.value("findings_per_strategy", json::object());
  for (auto it = ps.begin(); it != ps.end(); ++it) per.push_back({it.key(), it.value().get<double>()});
  h += "<h2>Progress</h2>\n<div class=\"plots\">\n";
  h += svg::line_chart("programs/s over time", rate, "seconds", "programs/s");
  h += svg::line_chart("buckets over time", buckets, "seconds", "buckets");
  h += "</div>\n<h2>Findings per strategy</h2>\n<div class=\"plots\">\n";
  h += svg::bar_chart("findings per strategy", per, "findings");
  h += "</div>\n";
  if (s.contains("regions_histogram") && s["regions_histogram"].is_object()) {
    std::vector<std::pair<std::string, double>> reg;
    for (auto it = s["regions_histogram"].begin(); it != s["regions_histogram"].end(); ++it)
      if (it.value().is_number()) reg.push_back({it.key(), it.value().get<double>()});
    // Numeric keys in numeric order ("2" before "10").
    std::stable_sort(reg.begin(), reg.end(), [](const auto& a, const auto& b) {
      char *ea, *eb;
      const double x = std::strtod(a.first.c_str(), &ea), y = std::strtod(b.first.c_str(), &eb);
      const bool na = *ea == 0 && !a.first.empty(), nb = *eb == 0 && !b.first.empty();
      if (na && nb) return x < y;
      if (na != nb) return na;
      return a.first < b.first;
    });
    h += "<h2>Regions per schedule</h2>\n<div class=\"plots\">\n" +
         svg::bar_chart("regions histogram", reg, "schedules") + "</div>\n";
  }
  h += "<h2 class=\"bug\">Bugs in aliasfuzz (must-agree strategies, crashes, timeouts)</h2>\n" + bucket_rows(s, true);
  h += "<h2>Findings against strategies under study</h2>\n" + bucket_rows(s, false);
  h += "<h2>Buckets</h2>\n" + stories(s);
  h += "<p>Also: <a href=\"report.json\">report.json</a>, <a href=\"report.md\">report.md</a>, "
       "<a href=\"findings.jsonl\">findings.jsonl</a>.</p>\n</body>\n</html>\n";
  return h;
}

}  // namespace af::reports
