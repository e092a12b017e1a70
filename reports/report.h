// Campaign reports and shard merging.
//
// A campaign folder (see campaign/campaign.h) holds campaign.json, state.json,
// findings.jsonl (one line per bucket, with its count), findings-all.jsonl
// (with --log-all: every divergence) and findings/BUCKET/. write_reports turns it into
// report.json (machine-readable summary), report.md (readable summary) and
// report.html (self-contained page with inline SVG plots). merge_campaigns
// combines shard folders of one seed into one folder, as if one unsharded
// campaign had checked the union of their programs.
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace af::reports {

// The summary that report.json holds, computed from the folder's files.
// Throws std::runtime_error when DIR/state.json is missing or unreadable.
nlohmann::json summarize(const std::string& dir);

// Renderings of a summary (and, for the plots, the folder's state.json).
std::string render_markdown(const nlohmann::json& summary);
std::string render_html(const nlohmann::json& summary, const nlohmann::json& state);

// Writes DIR/report.json, DIR/report.md and DIR/report.html atomically.
void write_reports(const std::string& dir);
// One line of a summary's bug counts: bugs, the minimized programs behind
// them, and the share merged as duplicates (issue #40).
std::string merged_line(const nlohmann::json& summary);

// Merges campaign folders (shards of one seed, or earlier merges) into OUT:
// findings.jsonl holds one line per bucket, the sources' lines for it
// (deduplicated on (k, bucket, spec)) with their counts added and the line
// of the smallest program kept; findings-all.jsonl (--log-all) is the
// union of the sources'; each findings/BUCKET/ is copied from the source
// holding its first program; state.json sums the counters; campaign.json
// says shard "merged" and lists the sources. Then writes the reports.
// Throws std::runtime_error on unusable input (no sources, a missing
// state.json, different seeds).
void merge_campaigns(const std::vector<std::string>& sources, const std::string& out);

// One bucket's story (reports/story.cc), from its finding on its first
// program: spec, first_mismatch {observable, index, expected, actual} or
// error, first_diverging_op, program (min.af when minimized, else case.af)
// and program_file, statements_before/after, and `repro`, one command with
// absolute paths that reproduces it from any folder.
nlohmann::json bucket_story(const std::string& dir, const std::string& name, const nlohmann::json& finding);

// Plain-text lines of a story shared by report.md and report.html: the run
// settings, the first mismatch (or error), the program's size before and
// after minimization. At most kStories buckets get their story in the
// pages (report.json has every one).
constexpr int kStories = 40;
std::vector<std::string> story_lines(const nlohmann::json& story);
std::string value_text(const nlohmann::json& v);  // 1.5, nan, null
std::string text_list(const nlohmann::json& a);   // "a, b" ("none" when empty)

// `report --issues`: DIR/issues/BUG.md for every bug of a strategy under
// study whose bucket has a repro.py: a title, the versions, what happens,
// the script itself (PyTorch and the compiler only), and what it printed
// when run just now (at most timeout_s seconds), saying whether it still
// reproduces (repro.py exits 1).
// A bug of a torch.compile-family strategy runs under every installed
// torch too: issue.md gets the version table, and one the newest torch no
// longer reproduces goes to DIR/issues/fixed-upstream/ (fixed_upstream).
struct IssueWritten {
  std::string path;
  bool reproduces = false;
  bool fixed_upstream = false;
};
std::vector<IssueWritten> write_issues(const std::string& dir, int timeout_s = 300);

// Helpers shared by the report and merge code.
// A JSON object file; {} when missing or not an object, unless `required` (then it throws).
nlohmann::json read_json(const std::string& path, bool required);
std::vector<nlohmann::json> read_findings(const std::string& dir);  // findings.jsonl, torn lines dropped
std::string strategy_label(const nlohmann::json& finding);          // "update_aliases", "mutant+M", "crash"
std::string html_escape(const std::string& s);
// What the ledger says of one of report.json's bugs: "**new**" (with what
// it resembles), its entry and status, or "predicts SYSTEM: ENTRY" (a
// model's bug that its real system's entry holds). Markdown emphasis only.
std::string bug_ledger_text(const nlohmann::json& bug);

}  // namespace af::reports
