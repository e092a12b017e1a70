// aliasfuzz compare: the strategy comparison table (Markdown, JSON, SVG).
#include <fmt/format.h>

#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "ir/json_text.h"
#include "studies/compare.h"
#include "check/files.h"
#include "reports/report.h"
#include "reports/svg.h"
#include "check/check.h"
#include "tools/commands.h"
#include "tools/target_executor.h"
#include "tools/run_flags.h"

namespace af::tools {

namespace {

// The row the regions chart shows: reorder fusion, fusion greedy (the
// setting that fuses most).
bool is_fusion_greedy(const fuzz::CompareRow& r) {
  const auto reorder = run::parse_reorder(r.reorder);
  return reorder && reorder->kind == run::ReorderKind::Fusion && run::parse_fusion(r.fusion) == run::Fusion::Greedy;
}

struct CompareArgs {
  fuzz::CompareOptions o;
  std::string out, target = "interp";  // --target as spelled
};

// The summary's cells, shared by compare.md and compare.html.
std::vector<std::string> summary_cells(const fuzz::CompareSummary& s) {
  std::string why;
  for (size_t i = 0; i < s.refusals.size() && i < 2; ++i)
    why += fmt::format("{}{} ({})", i ? "; " : "", s.refusals[i].first, s.refusals[i].second);
  if (s.refusals.size() > 2) why += fmt::format("; {} more reasons", s.refusals.size() - 2);
  return {s.strategy,
          fmt::format("{}/{}", s.correct, s.programs),
          fmt::format("{}", s.refused),
          why,
          fmt::format("{:.2f}", s.regions),
          fmt::format("{:.2f}", s.fusion_breaks),
          fmt::format("{:.2f}", s.nodes_added),
          fmt::format("{:.0f}", s.bytes_moved),
          fmt::format("{:.1f}", s.schedule_us),
          fmt::format("{:.1f}", s.run_us)};
}
const char* kSummaryHeads[] = {"strategy",      "correct",     "refused",     "why refused", "regions",
                               "fusion breaks", "added nodes", "bytes moved", "schedule us", "run us"};

std::string summary_lead(const fuzz::CompareOptions& o, const fuzz::CompareResult& r) {
  return fmt::format(
      "seed {}, {} generated programs of size {}. Correct: agrees with the oracle under every reorder and fusion "
      "policy compared; refused: some setting could not schedule or run it. Costs are means per setting on the {} "
      "programs every strategy supports.",
      o.seed, o.programs, o.gen.size, r.common);
}

std::string markdown(const fuzz::CompareOptions& o, const fuzz::CompareResult& result) {
  const auto& rows = result.rows;
  std::string md = "# Strategy comparison\n\n" + summary_lead(o, result) + "\n\n|";
  for (const char* h : kSummaryHeads) md += std::string(" ") + h + " |";
  md += "\n|";
  for (size_t i = 0; i < std::size(kSummaryHeads); ++i) md += " --- |";
  md += "\n";
  for (const auto& s : result.summary) {
    md += "|";
    for (const std::string& c : summary_cells(s)) md += " " + c + " |";
    md += "\n";
  }
  md += "\n## Every setting (means per program)\n\n";
  md +=
      "| strategy | reorder | fusion | agree | regions | fusion breaks | added nodes | extra storages | bytes moved | "
      "schedule us | run us |\n";
  md += "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& r : rows)
    md += fmt::format("| {} | {} | {} | {}/{}{} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.0f} | {:.1f} | {:.1f} |\n",
                      r.strategy, r.reorder, r.fusion, r.agree, r.programs,
                      r.errors ? fmt::format(" ({} errors)", r.errors) : "", r.regions, r.fusion_breaks, r.nodes_added,
                      r.extra_storages, r.bytes_moved, r.schedule_us, r.run_us);
  return md;
}

// compare.html: the summary table first (id "summary"), then the chart
// and every setting.
std::string html(const fuzz::CompareOptions& o, const fuzz::CompareResult& result, const std::string& svg) {
  using reports::html_escape;
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>aliasfuzz compare</title>\n"
      "<style>body{font-family:sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse;margin:1em 0}"
      "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}</style>\n</head>\n<body>\n"
      "<h1>Strategy comparison</h1>\n<p>" +
      html_escape(summary_lead(o, result)) + "</p>\n<table id=\"summary\">\n<tr>";
  for (const char* c : kSummaryHeads) h += std::string("<th>") + c + "</th>";
  h += "</tr>\n";
  for (const auto& s : result.summary) {
    h += "<tr>";
    for (const std::string& c : summary_cells(s)) h += "<td>" + html_escape(c) + "</td>";
    h += "</tr>\n";
  }
  h += "</table>\n" + svg.substr(std::min(svg.size(), svg.find("<svg"))) + "\n<h2>Every setting</h2>\n<table>\n";
  h += "<tr><th>strategy</th><th>reorder</th><th>fusion</th><th>agree</th><th>errors</th><th>regions</th>"
       "<th>bytes moved</th></tr>\n";
  for (const auto& r : result.rows)
    h += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}/{}</td><td>{}</td><td>{:.2f}</td><td>{:.0f}</td></tr>\n",
        html_escape(r.strategy), html_escape(r.reorder), html_escape(r.fusion), r.agree, r.programs, r.errors,
        r.regions, r.bytes_moved);
  return h + "</table>\n</body>\n</html>\n";
}

int run(CompareArgs& a) {
  std::string why;
  const auto target = usable_target(a.target, &why);
  if (!target) {
    std::cerr << "aliasfuzz compare: " << why << "\n";
    return 2;
  }
  a.o.target = *target;
  if (a.out.empty()) a.out = "runs/compare-" + std::to_string(a.o.seed);
  // A folder we cannot write is a usage error before the work, not an abort after it.
  if (auto e = fuzz::check_writable_dir(a.out); !e.empty()) {
    std::cerr << "aliasfuzz compare: cannot write to " << a.out << ": " << e << "\n";
    return 2;
  }
  std::cerr << "aliasfuzz compare: seed " << a.o.seed << ", " << a.o.programs << " programs\n";
  const auto result = fuzz::compare_strategies(a.o);
  const auto& rows = result.rows;
  nlohmann::json j = nlohmann::json::array();
  std::map<std::string, std::pair<double, int>>
      regions;  // strategy -> mean regions under fusion reorder, greedy fusion
  for (const auto& r : rows) {
    j.push_back({{"strategy", r.strategy},
                 {"reorder", r.reorder},
                 {"fusion", r.fusion},
                 {"programs", r.programs},
                 {"agree", r.agree},
                 {"errors", r.errors},
                 {"regions", r.regions},
                 {"fusion_breaks", r.fusion_breaks},
                 {"nodes_added", r.nodes_added},
                 {"extra_storages", r.extra_storages},
                 {"bytes_moved", r.bytes_moved},
                 {"schedule_us", r.schedule_us},
                 {"run_us", r.run_us}});
    if (is_fusion_greedy(r)) regions[r.strategy] = {r.regions, 1};
  }
  const std::string md = markdown(a.o, result);
  std::cout << md;
  std::vector<std::pair<std::string, double>> bars;
  for (const auto& r : rows)
    if (is_fusion_greedy(r)) bars.push_back({r.strategy, r.regions});
  try {
    fuzz::write_atomic(a.out + "/compare.md", md);
    nlohmann::json summary = nlohmann::json::array();
    for (const auto& s : result.summary)
      summary.push_back({{"strategy", s.strategy},
                         {"programs", s.programs},
                         {"correct", s.correct},
                         {"refused", s.refused},
                         {"refusals", s.refusals},
                         {"regions", s.regions},
                         {"fusion_breaks", s.fusion_breaks},
                         {"nodes_added", s.nodes_added},
                         {"bytes_moved", s.bytes_moved},
                         {"schedule_us", s.schedule_us},
                         {"run_us", s.run_us}});
    fuzz::write_atomic(a.out + "/compare.json", ir::json_text(nlohmann::json{{"seed", a.o.seed},
                                                                             {"programs", a.o.programs},
                                                                             {"common_programs", result.common},
                                                                             {"summary", summary},
                                                                             {"rows", j}},
                                                              2) +
                                                    "\n");
    const std::string svg =
        reports::svg::bar_chart("Mean regions per program (reorder fusion, fusion greedy)", bars, "regions");
    fuzz::write_atomic(a.out + "/compare.svg", svg);
    fuzz::write_atomic(a.out + "/compare.html", html(a.o, result, svg));
  } catch (const std::exception& e) {
    std::cerr << "aliasfuzz compare: cannot write " << a.out << ": " << e.what() << "\n";
    return 2;
  }
  std::cerr << "aliasfuzz compare: wrote " << a.out << "/compare.{md,json,svg,html}\n";
  return 0;
}

}  // namespace

void register_compare(Command& app, int* status) {
  auto a = std::make_shared<CompareArgs>();
  auto* c = app.add_subcommand("compare", "compare strategies and policies on the same generated programs");
  c->add_option("--programs", a->o.programs, "generated programs (default 200)");
  c->add_option("--seed", a->o.seed, "generator seed (default 1)")->check(unsigned_integer);
  flags::strategies(c, a->o.strategies, "default: all of this package");
  flags::target(c, a->target, "default interp");
  c->add_option("--size", a->o.gen.size, "statements per program");
  c->add_option("--out", a->out, "output folder (default runs/compare-SEED)");
  c->callback([a, status] { *status = run(*a); });
}

}  // namespace af::tools
