// aliasfuzz compare: the strategy comparison table (Markdown, JSON, SVG).
#include <fmt/format.h>

#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "ir/json_text.h"
#include "fuzz/compare.h"
#include "fuzz/files.h"
#include "reports/svg.h"
#include "fuzz/check.h"
#include "tools/commands.h"
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

std::string markdown(const fuzz::CompareOptions& o, const std::vector<fuzz::CompareRow>& rows) {
  std::string md =
      fmt::format("# Strategy comparison\n\nseed {}, {} generated programs of size {}; means per program.\n\n", o.seed,
                  o.programs, o.gen.size);
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

int run(CompareArgs& a) {
  const auto target = run::parse_target(a.target);
  if (!target || !fuzz::target_available(*target)) {
    std::cerr << "aliasfuzz compare: unknown target '" << a.target << "' (valid: " << target_help() << ")\n";
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
  auto rows = fuzz::compare_strategies(a.o);
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
  const std::string md = markdown(a.o, rows);
  std::cout << md;
  std::vector<std::pair<std::string, double>> bars;
  for (const auto& r : rows)
    if (is_fusion_greedy(r)) bars.push_back({r.strategy, r.regions});
  try {
    fuzz::write_atomic(a.out + "/compare.md", md);
    fuzz::write_atomic(
        a.out + "/compare.json",
        ir::json_text(nlohmann::json{{"seed", a.o.seed}, {"programs", a.o.programs}, {"rows", j}}, 2) + "\n");
    fuzz::write_atomic(
        a.out + "/compare.svg",
        reports::svg::bar_chart("Mean regions per program (reorder fusion, fusion greedy)", bars, "regions"));
  } catch (const std::exception& e) {
    std::cerr << "aliasfuzz compare: cannot write " << a.out << ": " << e.what() << "\n";
    return 2;
  }
  std::cerr << "aliasfuzz compare: wrote " << a.out << "/compare.{md,json,svg}\n";
  return 0;
}

}  // namespace

void register_compare(CLI::App& app, int* status) {
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
