// `aliasfuzz report DIR --issues`: one issue.md per bug, ready to file
// upstream. Its script is the bug's repro.py (PyTorch and the compiler
// only, no aliasfuzz import), run once while the issue is written so the
// issue says whether it still reproduces and shows what it printed.
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <nlohmann/json.hpp>

#include "check/bucket.h"
#include "check/check.h"
#include "check/files.h"
#include "compilers/table.h"
#include "reports/report.h"

namespace af::reports {

using nlohmann::json;

namespace {

// The last line of every issue this command writes: what marks a file of
// DIR/issues as its own (to replace or remove), never a user's.
constexpr const char* kOwnerMark =
    "<!-- written by `aliasfuzz report --issues`: replaced or removed when the buckets change -->";

struct Ran {
  int status = -1;  // exit status; -1: could not run
  std::string output;
};

// Runs `python script` with a time limit, capturing stdout and stderr.
Ran run_script(const std::string& python, const std::string& script, int timeout_s) {
  Ran r;
  const std::string cmd = "timeout " + std::to_string(timeout_s) + " '" + python + "' '" + script + "' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0 && r.output.size() < (size_t{1} << 20)) r.output.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// repro.py run under one installed torch (a versioned strategy's bug).
struct VersionRan {
  std::string version;
  int status;
};

// "Reproduces on torch 2.9.1 and 2.15.0", or which versions do not; every
// installed torch, oldest first.
std::string version_table(const std::vector<VersionRan>& runs) {
  std::string yes, t = "| torch | repro.py |\n|---|---|\n";
  for (const auto& r : runs) {
    t += "| " + r.version + " | " +
         (r.status == 1   ? "reproduces (exit 1)"
          : r.status == 0 ? "does not reproduce (exit 0)"
                          : "could not run (exit " + std::to_string(r.status) + ")") +
         " |\n";
    if (r.status == 1) yes += (yes.empty() ? "" : ", ") + r.version;
  }
  return (yes.empty() ? std::string("Reproduces on no installed torch.") : "Reproduces on torch " + yes + ".") +
         "\n\n" + t;
}

std::string issue_text(const json& summary, const json& bug, const json& bucket, const std::string& script,
                       const std::string& python, const Ran& ran, const std::vector<VersionRan>& versions_ran) {
  const json story = bucket.value("story", json::object());
  const json spec = story.value("spec", json::object());
  const std::string strategy = spec.is_object() ? spec.value("strategy", std::string()) : std::string();
  std::string t = "# " + (strategy.empty() ? std::string("aliasfuzz") : strategy) + ": ";
  const std::string error = story.contains("error") ? value_text(story["error"]) : "";
  const std::string runner = fuzz::runner_failure_kind(error);
  if (story.contains("accepted_invalid"))
    t += "runs a program PyTorch eager rejects (" + value_text(story["accepted_invalid"]) + " error)";
  else if (runner.rfind("runner-crash", 0) == 0)
    t += "the Python process dies (" + (runner == "runner-crash" ? std::string("how: unknown") : runner.substr(13)) +
         ") on a program PyTorch eager runs";
  else if (runner == "runner-timeout")
    t += "hangs on a program PyTorch eager runs (" + error.substr(0, 80) + ")";
  else if (story.contains("error"))
    t += "raises on a program PyTorch eager runs (" + error.substr(0, 80) + ")";
  else
    t += "result differs from PyTorch eager (" + value_text(bug["name"]) + ")";
  t += "\n\n## Versions\n\n";
  const json versions = summary.value("versions", json::object());
  for (auto it = versions.begin(); it != versions.end(); ++it)
    t += "- " + it.key() + ": " + value_text(it.value()) + "\n";
  t += "- Python: `" + python + "`\n";
  if (!versions_ran.empty()) t += "\n" + version_table(versions_ran);
  t += "\n## What happens\n\n";
  for (const auto& l : story_lines(story)) t += "- " + l + "\n";
  t += "- findings of it in the campaign: " + std::to_string(bug.value("count", int64_t{0})) + " (buckets: ";
  std::string names;
  for (const auto& b : bug["buckets"]) names += (names.empty() ? "" : ", ") + b.get<std::string>();
  t += names + ")\n";
  if (story.contains("stderr_tail"))
    t += "\nThe last lines the dying process wrote on stderr (in the campaign):\n\n```\n" +
         value_text(story["stderr_tail"]) + "\n```\n";
  t += "\n## Reproduce\n\nSave as `repro.py` and run `" + python +
       " repro.py` (exit 1 while the bug reproduces):\n\n```python\n" + script +
       (script.empty() || script.back() == '\n' ? "" : "\n") + "```\n";
  t += "\n## Output (run while this issue was written)\n\n";
  if (ran.status == 1)
    t += "**Reproduces** (exit 1).\n\n";
  else if (ran.status == 0)
    t += "**Does not reproduce any more** (exit 0): fixed, or the environment differs.\n\n";
  else
    t += "**Could not run** (exit " + std::to_string(ran.status) + ").\n\n";
  t += "```\n" + ran.output + (ran.output.empty() || ran.output.back() == '\n' ? "" : "\n") + "```\n";
  t += "\nThe aliasfuzz program it was minimized from:\n\n```\n" + value_text(story.value("program", json(""))) +
       "```\n";
  return t + kOwnerMark + "\n";
}

// Whether DIR/issues/FILE is one this command wrote: its mark, or (issues
// written before the mark existed) the section only issue_text writes.
bool owned_issue(const std::filesystem::path& f) {
  std::string text;
  if (f.extension() != ".md" || !fuzz::read_text(f.string(), &text)) return false;
  return text.find(kOwnerMark) != std::string::npos ||
         (text.rfind("# ", 0) == 0 &&
          text.find("\n## Output (run while this issue was written)\n") != std::string::npos);
}

// The issues folder mirrors the current bugs: an issue of a bug that is no
// longer one (a bucket renamed by a new minimization, a bug without a
// repro any more) goes; files this command did not write stay.
void remove_stale_issues(const std::string& issues_dir, const std::set<std::string>& current /* file names */) {
  std::error_code ec;
  for (const auto& f : std::filesystem::directory_iterator(issues_dir, ec)) {
    if (!f.is_regular_file(ec) || current.count(f.path().filename().string()) || !owned_issue(f.path())) continue;
    std::filesystem::remove(f.path(), ec);
  }
}

}  // namespace

std::vector<IssueWritten> write_issues(const std::string& dir, int timeout_s) {
  const json summary = summarize(dir);
  std::vector<IssueWritten> out;
  std::set<std::string> current, current_fixed;
  for (const json& bug : summary.value("bugs", json::array())) {
    if (bug.value("must_agree", false)) continue;  // aliasfuzz's own bugs are not filed upstream
    // The bug's first folder with a repro.py (its buckets biggest first, then novelty leads).
    for (const auto& rel : bug.value("folders", json::array())) {
      const std::string folder = dir + "/" + rel.get<std::string>();
      const std::string name = rel.get<std::string>().substr(rel.get<std::string>().find('/') + 1);
      std::string script;
      if (!fuzz::read_text(folder + "/repro.py", &script)) continue;
      json bucket = json::object();  // none for a novelty lead
      for (const json& b : summary["buckets"])
        if (b["name"] == name) bucket = b;
      // A torch.compile-family bug runs under every installed torch (its
      // own version's Python first, whatever repro.py's first line says):
      // one the newest no longer shows is fixed upstream, and listed apart.
      const json mj = read_json(folder + "/minimize.json", false);
      const auto spec = mj.contains("spec") ? run::spec_from_json(mj["spec"]) : std::nullopt;
      const std::string strategy = spec ? spec->strategy.name() : "";
      const auto ext = compilers::external_strategy(strategy);
      std::string python = script.rfind("#!", 0) == 0 ? script.substr(2, script.find('\n') - 2) : "/usr/bin/python3";
      if (ext && ext->versioned && !compilers::external_python(strategy).empty())
        python = compilers::external_python(strategy);
      const Ran ran = run_script(python, folder + "/repro.py", timeout_s);
      std::vector<VersionRan> versions_ran;
      if (ext && ext->versioned)
        for (const auto& t : compilers::installed_torches())
          versions_ran.push_back({t.version, t.python == python
                                                 ? ran.status
                                                 : run_script(t.python, folder + "/repro.py", timeout_s).status});
      const bool fixed =
          !versions_ran.empty() && versions_ran.back().status == 0 &&
          std::any_of(versions_ran.begin(), versions_ran.end(), [](const auto& v) { return v.status == 1; });
      const std::string sub = fixed ? "/issues/fixed-upstream" : "/issues";
      const std::string path = dir + sub + "/" + bug["name"].get<std::string>() + ".md";
      fuzz::make_dirs(dir + sub);
      fuzz::write_atomic(path, issue_text(summary, bug, bucket, script, python, ran, versions_ran));
      out.push_back({path, ran.status == 1, fixed});
      (fixed ? current_fixed : current).insert(bug["name"].get<std::string>() + ".md");
      break;
    }
  }
  remove_stale_issues(dir + "/issues", current);
  remove_stale_issues(dir + "/issues/fixed-upstream", current_fixed);
  return out;
}

}  // namespace af::reports
