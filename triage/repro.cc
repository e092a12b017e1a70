#include "ir/json_text.h"
#include "check/bucket.h"
#include "triage/repro.h"
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "check/files.h"
#include "oracles/line_process.h"
#include "triage/signature.h"
#include "ir/analysis.h"
#include "ir/relayout.h"
#include "ir/text.h"
#include "compilers/table.h"
#include "oracles/json_out.h"
#include "oracles/torch_bridge.h"
#include "oracles/torch_function.h"
#include "schedulers/schedulers.h"
#include "triage/minimize_finding.h"
#include "triage/repro_py.h"

namespace af::fuzz {

namespace {

std::string py_str(const std::string& s) { return ir::json_text(nlohmann::json(s)); }  // ASCII-safe Python literal

std::string py_float(float v) {
  if (std::isnan(v)) return "float('nan')";
  if (std::isinf(v)) return v < 0 ? "-float('inf')" : "float('inf')";
  return ir::format_float32(v);
}

std::string py_floats(const std::vector<float>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + py_float(v[i]);
  return s + "]";
}

std::string py_ints(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// Observables as a Python literal keyed like the script's _observe():
// {"returns": [{"sizes": [...], "values": [...]}], "storages": {name: [...]},
//  "inputs": [{"sizes": [...], "strides": [...], "offset": n}]}.
std::string py_observables(const ir::Program& p, const oracles::Observables& o) {
  std::string s = "{\"returns\": [";
  for (size_t i = 0; i < o.returns.size(); ++i)
    s += std::string(i ? ",\n                 " : "") + "{\"sizes\": " + py_ints(o.returns[i].sizes) +
         ", \"values\": " + py_floats(o.returns[i].v) + "}";
  s += "],\n    \"storages\": {";
  for (size_t k = 0; k < p.storages.size() && k < o.storages.size(); ++k)
    s += std::string(k ? ",\n                 " : "") + py_str(p.storages[k].name) + ": " + py_floats(o.storages[k]);
  s += "},\n    \"inputs\": [";
  for (size_t k = 0; k < o.inputs.size(); ++k) {
    const auto& g = o.inputs[k];
    s += std::string(k ? ", " : "") + "{\"sizes\": " + py_ints({g.sizes.begin(), g.sizes.end()}) +
         ", \"strides\": " + py_ints({g.strides.begin(), g.strides.end()}) +
         ", \"offset\": " + std::to_string(g.offset) + "}";
  }
  return s + "]}";
}

std::string comment_block(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out += "#   " + line + "\n";
  return out;
}

}  // namespace

std::optional<oracles::Observables> strategy_observables(const ir::Program& p, const RunRecord& rec) {
  const run::RunSpec& s = rec.spec;
  if (!rec.mismatch || !rec.error.empty()) return std::nullopt;
  if (s.is_external() || s.target != run::Target::Interp) return std::nullopt;
  const run::RunConfig config = s.config();
  auto an = ir::analyze(p);
  if (!an) return std::nullopt;
  auto sc = schedulers::make_schedule(p, *an, config);
  if (!sc) return std::nullopt;
  oracles::Observables obs = execute(*sc, config).obs;
  if (obs.storages.size() > p.storages.size()) obs.storages.resize(p.storages.size());
  const auto mm = oracles::compare(p, oracles::run_eager(p, *an), obs);
  if (!mm || mm->observable != rec.mismatch->observable || mm->index != rec.mismatch->index) return std::nullopt;
  const bool same = (std::isnan(mm->actual) && std::isnan(rec.mismatch->actual)) || mm->actual == rec.mismatch->actual;
  if (!same) return std::nullopt;
  return obs;
}

std::string aliasfuzz_binary() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  const std::string path = n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
  return path.size() >= 10 && path.compare(path.size() - 10, 10, "/aliasfuzz") == 0 ? path : "";
}

// The Python a repro.py runs with: the external strategy's (a path that
// says what to install when it is missing), else Debian's for the PyTorch
// eager comparison.
static std::string repro_python(const run::RunSpec& spec) {
  const auto& ext = spec.strategy.external();
  if (!ext) return "/usr/bin/python3";
  const std::string py = compilers::external_python(*ext);
  if (!py.empty()) return py;
  using Py = compilers::ExternalStrategy::Python;
  switch (ext->python) {
    case Py::Venv: return ".venv-thunder/bin/python";
    case Py::Given: return ext->python_path;
    case Py::Torch:
      return ".venvs/torch-" + (ext->torch_version.empty() ? std::string("VERSION") : ext->torch_version) +
             "/bin/python";
    case Py::System: break;
  }
  return "/usr/bin/python3";
}

std::string repro_script(const ir::Program& p, const run::RunSpec& spec, const RunRecord& rec,
                         const oracles::Observables& expected, const oracles::Observables* actual) {
  std::string script = oracles::torch_script(p);
  // Drop the script's own entry point; ours follows.
  const size_t m = script.rfind("\nif __name__ == \"__main__\":");
  if (m != std::string::npos) script.erase(m + 1);
  // The header replaces the script's first comment lines.
  const auto& ext = spec.strategy.external();
  const std::string python = repro_python(spec);
  std::string head =
      "#!" + python + "\n# aliasfuzz repro (written by `aliasfuzz minimize`). Run: " + python + " repro.py\n";
  if (ext)
    head +=
        "# (the divergence is " + ext->compile + " against eager PyTorch of the same Python" +
        (ext->python == compilers::ExternalStrategy::Python::Venv
             ? ";\n#  .venv-thunder is made by `./aliasfuzz setup --thunder`: torch 2.9.1, lightning-thunder 0.2.6)\n"
         : ext->python == compilers::ExternalStrategy::Python::Torch && !ext->torch_version.empty()
             ? ";\n#  torch " + ext->torch_version + ": `pip install torch==" + ext->torch_version +
                   "`, or `./aliasfuzz setup --torch " + ext->torch_version + "`)\n"
             : ")\n");
  head += "# bucket: " + bucket_of(rec) + "\n# spec: " + run::spec_flags(spec) + "\n";
  // A program the oracle rejects (--invalid-rate): eager PyTorch raises on
  // it, and the finding is what the compiler does with it (runs it: the
  // accepts-invalid class; or dies).
  const auto an = ir::analyze(p);
  const std::string eager_rejects = an ? "" : ir::kind_name(an.error().kind);
  if (!an) head += "# eager PyTorch rejects this program (" + an.error().to_string() + ")\n";
  if (rec.mismatch && !rec.mismatch->what.empty())
    head += "# first mismatch: " + rec.mismatch->observable + ": " + rec.mismatch->what + "\n";
  else if (rec.mismatch)
    head += "# first mismatch: " + rec.mismatch->observable + "[" + std::to_string(rec.mismatch->index) +
            "] expected " + py_float(rec.mismatch->expected) + ", got " + py_float(rec.mismatch->actual) + "\n";
  head += "# the program (min.af):\n" + comment_block(ir::print(p));
  if (spec.recall)
    if (auto second = ir::recall_layout(p))
      head += "# called a second time (--recall), with the inputs moved " + ir::recall_direction(p) + ":\n" +
              comment_block(ir::print(*second));
  // (and the script's own leading comment lines: they describe `aliasfuzz torch`).
  while (!script.empty() && script[0] == '#') script.erase(0, script.find('\n') + 1);
  // As the campaign's runner (compilers/external_runner.py, isolate_caches):
  // a fresh Inductor cache folder with its FX-graph and AOTAutograd caches
  // off, so the verdict is this program's alone, not an artifact an earlier
  // run left in the user's cache.
  // And with the runner's PYTHONHASHSEED (oracles::python_hash_seed):
  // repro_caches.py runs the script again under it when the user's differs.
  std::string out = head + "_AF_HASH_SEED = \"" + oracles::python_hash_seed() + "\"  # the campaign runner's\n" +
                    kReproCaches + script;
  out += "import sys\n\n";
  // As the external runner does (AF_TORCH_THREADS, default 1): a compiled
  // kernel may differ by thread count (Inductor's CPU code on torch 2.15.0
  // lost a write with one thread only), and a repro must see what the
  // campaign saw.
  out += "torch.set_num_threads(1)  # as aliasfuzz's runner: some compiled kernels differ by thread count\n";
  const std::string fn = oracles::functional_form(p, oracles::torch_script(p));
  if (!fn.empty())
    out += "\n" + fn;
  else
    out += "\n_setup = _fn = None  # (the program could not be split into setup and function)\n";
  out += "\n\n# ---- the finding, as aliasfuzz computed it\n";
  std::string mm_py = "None";
  if (rec.mismatch) {
    const auto& x = *rec.mismatch;
    mm_py = "{\"observable\": " + py_str(x.observable) + ", \"index\": " + std::to_string(x.index) +
            ", \"expected\": " + py_str(py_float(x.expected)) + ", \"actual\": " + py_str(py_float(x.actual)) +
            ", \"what\": " + py_str(x.what) + "}";
  }
  out += "FINDING = {\"bucket\": " + py_str(bucket_of(rec)) + ", \"strategy\": " + py_str(spec.strategy.name()) +
         ", \"inject\": " + py_str(spec.mutant_name()) + ",\n           \"reorder\": " + py_str(spec.reorder_name()) +
         ", \"fusion\": " + py_str(spec.fusion_name()) + ", \"target\": " + py_str(spec.target_name()) +
         ",\n           \"flags\": " + py_str(run::spec_flags(spec)) + ", \"op\": " + py_str(rec.op) +
         ", \"error\": " + py_str(rec.error) + ",\n           \"mismatch\": " + mm_py +
         ",\n           \"eager_rejects\": " + py_str(eager_rejects) + "}\n";
  out +=
      "# The oracle's expected observables (PyTorch semantics, computed by aliasfuzz; None: the oracle\n"
      "# rejects the program).\n";
  out += "# The declared inputs, by name (their final geometry is observed as \"input NAME\").\n";
  std::string names = "[";
  for (size_t k = 0; k < p.inputs.size(); ++k) names += (k ? ", " : "") + py_str(p.inputs[k].name);
  out += "INPUT_NAMES = " + names + "]\n";
  out += "EXPECTED = " + (eager_rejects.empty() ? py_observables(p, expected) : std::string("None")) + "\n";
  out +=
      "# The program, re-run by `aliasfuzz run` for aliasfuzz's own strategies (binary: $AF_BIN, this\n"
      "# path, or `aliasfuzz` on PATH).\n";
  out += "AF_PROGRAM = " + py_str(ir::print(p)) + "\n";
  out += "AF_BIN = " + py_str(aliasfuzz_binary()) + "\n";
  out += "# What the diverging strategy produced (None: only FINDING's first mismatch is known).\n";
  out += "STRATEGY_OBSERVABLES = " + (actual ? py_observables(p, *actual) : std::string("None")) + "\n";
  out +=
      "# Also run functorch.experimental.functionalize on _fn and print where it differs from eager\n"
      "# (for aliasfuzz's own strategies; set True to see it).\n";
  out += "FUNCTIONALIZE = False\n";
  out +=
      "# The real compiler of an external strategy (aliasfuzz's table, compilers/table.cc): `imports`,\n"
      "# then `compile` with fn = _fn gives the compiled function; compared with eager PyTorch of this Python.\n"
      "# `fn` is this file's _fn, compiled as the campaign's runner compiles it.\n";
  // --recall: the module of the recall layout, whose _setup gives the second call's inputs.
  const std::optional<ir::Program> second = spec.recall ? ir::recall_layout(p) : std::nullopt;
  out += "COMPILER = " +
         (ext ? "{\"imports\": " + py_str(ext->imports) + ", \"compile\": " + py_str(ext->compile) +
                    (second ? ",\n            \"recall_direction\": " + py_str(ir::recall_direction(p)) +
                                  ",\n            \"recall\": " + py_str(oracles::torch_function_module(*second))
                            : std::string()) +
                    (rec.stale_from_cache ? ",\n            \"across_processes\": True" : "") + "}"
              : std::string("None")) +
         "\n";
  out +=
      "# The compiler's process died in the campaign (a crash, not a value or an exception): the\n"
      "# script then runs itself again in a child process and reports how that child ends.\n";
  out += std::string("CRASH = ") + (runner_failure_kind(rec.error).rfind("runner-crash", 0) == 0 ? "True" : "False") +
         "\n";
  out += kReproMain;
  return out;
}

bool write_minimized(const std::string& dir, const MinimizedFinding& m, std::string* error) {
  if (!m.ok) {
    *error = m.error;
    return false;
  }
  try {
    make_dirs(dir);
    std::string head = "# minimized by aliasfuzz: bucket " + m.bucket + "\n# reproduce: aliasfuzz run min.af " +
                       run::spec_flags(m.spec) + "\n";
    if (m.spec.is_external())
      head = "# minimized by aliasfuzz: bucket " + m.bucket + "\n# reproduce: " + repro_python(m.spec) +
             " repro.py   (or: aliasfuzz run min.af " + run::spec_flags(m.spec) + ")\n";
    write_atomic(dir + "/min.af", head + ir::print(m.minimized));
    const auto actual = strategy_observables(m.minimized, m.record);
    write_atomic(dir + "/repro.py",
                 repro_script(m.minimized, m.spec, m.record, m.expected, actual ? &*actual : nullptr));
    const auto& s = m.stats;
    nlohmann::json j = {{"bucket", m.bucket},
                        {"spec", run::spec_json(m.spec)},
                        {"original_spec", run::spec_json(m.original_spec)},
                        {"stmts_before", s.stmts_before},
                        {"stmts_after", s.stmts_after},
                        {"bytes_before", s.bytes_before},
                        {"bytes_after", s.bytes_after},
                        {"tests", s.tests},
                        {"invalid_candidates", s.invalid},
                        {"duplicates", s.duplicates},
                        {"accepted", s.accepted},
                        {"rounds", s.rounds},
                        {"budget_hit", s.budget_hit},
                        {"elapsed_s", s.elapsed_s}};
    if (m.record.mismatch) j["first_mismatch"] = oracles::mismatch_json(*m.record.mismatch);
    if (!m.record.error.empty()) j["error"] = m.record.error;
    if (!m.record.accepted_invalid.empty()) j["accepted_invalid"] = m.record.accepted_invalid;
    if (!m.record.stderr_tail.empty()) j["stderr_tail"] = m.record.stderr_tail;
    // The bug this finding is (triage/signature.h): findings of one bug share it.
    const BugSignature bug = finding_bug(m);
    j["bug"] = bug.name;
    j["bug_key"] = bug.key();
    j["bug_program"] = ir::print(m.bug_program);
    if (!m.schedule_sensitivity.empty()) j["schedule_sensitivity"] = m.schedule_sensitivity;
    // A bug program the budget cut before its fixed point: its key is not
    // yet its bug's (reports count it as unfinished, not as a bug).
    if (m.bug_cut) j["bug_cut"] = true;
    // Ended where it turned into this ledger entry's bug (MinimizeOptions::known_bug).
    if (!m.known_bug.empty()) j["known_bug"] = m.known_bug;
    if (!m.keep.empty()) {
      j["keep_features"] = m.keep;
      j["explained"] = m.explained;
    }
    if (!m.record.op.empty()) j["first_diverging_op"] = m.record.op;
    write_atomic(dir + "/minimize.json", ir::json_text(j, 2) + "\n");
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
  return true;
}

// ---- regression cases

std::string regression_text(const RegressionCase& c) {
  std::string t = "# aliasfuzz regression case (written by `aliasfuzz minimize --add-to-corpus`)\n";
  t += "# bucket: " + c.bucket + "\n";
  t += "# spec: " + run::spec_words(c.spec) + "\n";
  t += std::string("# expect: ") + (c.expect_agree ? "agree" : "disagree") + "\n";
  t += c.expect_agree ? "# (a must-agree strategy: this case replays a fixed bug and must agree with the oracle)\n"
                      : "# (a strategy or mutant under study: this case must keep diverging in this bucket)\n";
  return t + ir::print(c.program);
}

std::optional<RegressionCase> parse_regression(const std::string& text, std::string* error) {
  RegressionCase c;
  bool spec = false, expect = false;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto field = [&](const std::string& key, std::string* v) {
      const std::string k = "# " + key + ":";
      if (line.rfind(k, 0) != 0) return false;
      *v = line.substr(k.size());
      while (!v->empty() && (v->front() == ' ')) v->erase(0, 1);
      while (!v->empty() && (v->back() == ' ' || v->back() == '\r')) v->pop_back();
      return true;
    };
    std::string v;
    if (field("bucket", &v))
      c.bucket = v;
    else if (field("expect", &v)) {
      if (v != "agree" && v != "disagree") {
        *error = "bad '# expect:' (agree or disagree): " + v;
        return std::nullopt;
      }
      c.expect_agree = v == "agree";
      expect = true;
    } else if (field("spec", &v)) {
      std::string why;
      auto parsed = run::spec_from_words(v, &why);
      if (!parsed) {
        *error = "bad '# spec:': " + why;
        return std::nullopt;
      }
      c.spec = std::move(*parsed);
      spec = true;
    }
  }
  if (!spec || !expect) {
    *error = "missing '# spec:' or '# expect:' header";
    return std::nullopt;
  }
  if (!c.expect_agree && c.bucket.empty()) {
    *error = "a 'disagree' case needs '# bucket:'";
    return std::nullopt;
  }
  auto p = ir::parse_and_validate(text);
  if (!p) {
    *error = "invalid program: " + p.error().to_string();
    return std::nullopt;
  }
  c.program = std::move(*p);
  return c;
}

RegressionCase regression_of(const MinimizedFinding& m) {
  RegressionCase c;
  c.spec = m.spec;
  c.bucket = m.bucket;
  c.expect_agree = m.spec.must_agree();
  c.program = m.minimized;
  return c;
}

std::string add_to_corpus(const std::string& root, const MinimizedFinding& m, std::string* error) {
  if (!m.ok) {
    *error = m.error;
    return "";
  }
  char hash[20];
  std::snprintf(hash, sizeof hash, "%08llx",
                static_cast<unsigned long long>(ir::structural_hash(m.minimized) & 0xffffffffULL));
  std::string name = m.bucket;
  if (name.size() > 120) name.resize(120);
  const std::string dir = (root.empty() ? std::string(".") : root) + "/corpus/regressions";
  const std::string path = dir + "/" + name + "_" + hash + ".af";
  try {
    make_dirs(dir);
    write_atomic(path, regression_text(regression_of(m)));
  } catch (const std::exception& e) {
    *error = e.what();
    return "";
  }
  return path;
}

Replay replay(const RegressionCase& c, std::string* detail) {
  auto r = run_spec(c.program, c.spec);
  if (!r) {
    *detail = "no run for spec " + run::spec_flags(c.spec) + " (not available yet)";
    return Replay::Skipped;
  }
  if (c.expect_agree) {
    if (r->agree) return Replay::Pass;
    *detail = "expected agreement, got bucket " + bucket_of(*r);
    return Replay::Fail;
  }
  if (r->agree) {
    *detail = "expected a divergence in bucket " + c.bucket + ", the run agrees";
    return Replay::Fail;
  }
  if (bucket_of(*r) != c.bucket) {
    *detail = "expected bucket " + c.bucket + ", got " + bucket_of(*r);
    return Replay::Fail;
  }
  return Replay::Pass;
}

}  // namespace af::fuzz
