// The story of one bucket for the reports: what diverged and where, the
// program (minimized when the minimizer ran), its size before and after,
// and one command that reproduces it from any folder.
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "ir/json_text.h"
#include "check/check.h"
#include "check/files.h"
#include "triage/repro.h"
#include "ir/text.h"
#include "reports/report.h"

namespace af::reports {

using nlohmann::json;

namespace {

// The aliasfuzz command a reader can paste anywhere: the repository's
// wrapper when known (AF_ROOT, set by it), else this binary.
std::string aliasfuzz_command() {
  if (const char* root = std::getenv("AF_ROOT"); root && *root) return std::string(root) + "/aliasfuzz";
  const std::string self = fuzz::aliasfuzz_binary();
  return self.empty() ? "aliasfuzz" : self;
}

// Statements of a program file (-1 when it does not parse).
int statements(const std::string& text) {
  auto p = ir::parse(text);
  return p.ok() ? static_cast<int>(p->stmts.size()) : -1;
}

// The program text without the comment lines a tool put on top.
std::string body(const std::string& text) {
  size_t pos = 0;
  while (pos < text.size() && text[pos] == '#') {
    const size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) return "";
    pos = nl + 1;
  }
  return text.substr(pos);
}

}  // namespace

json bucket_story(const std::string& dir, const std::string& name, const json& finding) {
  std::error_code ec;
  const std::string folder = std::filesystem::absolute(dir + "/findings/" + name, ec).string();
  json s = json::object();
  s["spec"] = finding.value("spec", json(nullptr));
  std::string case_text, min_text, min_json;
  const bool has_case = fuzz::read_text(folder + "/case.af", &case_text);
  const bool has_min = fuzz::read_text(folder + "/min.af", &min_text);
  // What diverged: on the minimized program when there is one (its
  // minimize.json), else on the campaign's program.
  json what = finding;
  if (has_min && fuzz::read_text(folder + "/minimize.json", &min_json)) {
    const json m = json::parse(min_json, nullptr, false);
    if (m.is_object()) {
      what = m.value("first_mismatch", json::object());
      if (m.contains("error")) what["error"] = m["error"];
      if (m.contains("stderr_tail")) what["stderr_tail"] = m["stderr_tail"];
      if (m.contains("accepted_invalid")) what["accepted_invalid"] = m["accepted_invalid"];
      what["op"] = m.value("first_diverging_op", json(""));
      if (m.contains("spec")) s["spec"] = m["spec"];  // the minimizer may change a random:SEED
    }
  }
  if (what.contains("observable") && !what.contains("error")) {
    s["first_mismatch"] = {{"observable", what["observable"]},
                           {"index", what.value("index", json(nullptr))},
                           {"expected", what.value("expected", json(nullptr))},
                           {"actual", what.value("actual", json(nullptr))}};
    if (what.contains("what")) s["first_mismatch"]["what"] = what["what"];  // a shape, count or input geometry
  }
  if (what.contains("error")) s["error"] = what["error"];
  if (what.contains("stderr_tail")) s["stderr_tail"] = what["stderr_tail"];  // a crashed compiler's last words
  if (what.contains("accepted_invalid")) s["accepted_invalid"] = what["accepted_invalid"];  // ran what eager rejects
  if (what.value("op", json("")) != json("")) s["first_diverging_op"] = what["op"];
  if (finding.contains("attribution")) s["attribution"] = finding["attribution"];
  if (has_case) s["statements_before"] = statements(case_text);
  if (has_min) s["statements_after"] = statements(min_text);
  if (has_min || has_case) {
    s["program_file"] = has_min ? "min.af" : "case.af";
    s["program"] = body(has_min ? min_text : case_text);
  }
  const json spec = s["spec"];
  if (const auto typed = spec.is_object() ? run::spec_from_json(spec) : std::nullopt) {
    const run::RunSpec& r = *typed;
    const std::string file = folder + "/" + (has_min ? "min.af" : "case.af");
    if (r.is_external()) {
      // `aliasfuzz run` does not run real compilers: repro.py does (its first line names its Python).
      std::string script;
      std::string python = "/usr/bin/python3";
      if (fuzz::read_text(folder + "/repro.py", &script) && script.rfind("#!", 0) == 0)
        python = script.substr(2, script.find('\n') - 2);
      s["repro"] = has_min && !script.empty() ? python + " " + folder + "/repro.py"
                                              : aliasfuzz_command() + " minimize " + folder;
    } else {
      s["repro"] = aliasfuzz_command() + " run " + file + " " + run::spec_flags(r);
    }
  }
  return s;
}

std::string value_text(const json& v) { return v.is_string() ? v.get<std::string>() : ir::json_text(v); }

std::string text_list(const json& a) {
  std::string t;
  for (const auto& x : a) t += (t.empty() ? "" : ", ") + value_text(x);
  return t.empty() ? std::string("none") : t;
}

std::vector<std::string> story_lines(const json& s) {
  std::vector<std::string> out;
  const json spec = s.value("spec", json(nullptr));
  if (spec.is_object()) {
    std::string l = "strategy " + spec.value("strategy", std::string());
    if (spec["inject"].is_string() && !spec["inject"].get<std::string>().empty())
      l += ", mutant " + spec["inject"].get<std::string>();
    l += ", reorder " + spec.value("reorder", std::string()) + ", fusion " + spec.value("fusion", std::string()) +
         ", target " + spec.value("target", std::string());
    out.push_back(l);
  }
  if (s.contains("first_mismatch")) {
    const json& m = s["first_mismatch"];
    const std::string what = m.value("what", std::string());
    const std::string observable = value_text(m.value("observable", json("")));
    const size_t cut = what.find(", expected ");
    if (oracles::is_input_geometry(observable) && observable != "inputs" && cut != std::string::npos) {
      // Format v1.3: what the caller holds after the call differs.
      out.push_back("first mismatch: the caller's " + observable + " after the call has " + what.substr(0, cut) +
                    "; after eager PyTorch it has " + what.substr(cut + 11) +
                    (s.contains("first_diverging_op")
                         ? " (first diverging op: " + value_text(s["first_diverging_op"]) + ")"
                         : ""));
    } else {
      out.push_back("first mismatch: " + observable +
                    (what.empty() ? "[" + value_text(m.value("index", json(0))) + "]: expected " +
                                        value_text(m.value("expected", json(nullptr))) + ", got " +
                                        value_text(m.value("actual", json(nullptr)))
                                  : ": " + what) +
                    (s.contains("first_diverging_op")
                         ? " (first diverging op: " + value_text(s["first_diverging_op"]) + ")"
                         : ""));
    }
  }
  if (s.contains("error")) out.push_back("error: " + value_text(s["error"]));
  if (s.contains("accepted_invalid"))
    out.push_back("accepts a program PyTorch eager rejects (" + value_text(s["accepted_invalid"]) + " error)" +
                  (s.contains("first_diverging_op") ? ", at " + value_text(s["first_diverging_op"]) : std::string()));
  if (s.contains("stderr_tail")) {
    const std::string tail = value_text(s["stderr_tail"]);
    out.push_back("last stderr line of the dead process: " + tail.substr(tail.rfind('\n') + 1));
  }
  if (s.contains("attribution")) out.push_back("attribution: " + value_text(s["attribution"]));
  if (s.contains("program_file")) {
    std::string l = "program: " + value_text(s["program_file"]);
    if (s.contains("statements_before") && s.contains("statements_after"))
      l += ", " + value_text(s["statements_before"]) + " statements minimized to " + value_text(s["statements_after"]);
    else if (s.contains("statements_before"))
      l += ", " + value_text(s["statements_before"]) + " statements (not minimized)";
    out.push_back(l);
  }
  return out;
}

}  // namespace af::reports
