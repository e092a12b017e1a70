#include "triage/evidence.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <nlohmann/json.hpp>

#include "compilers/runner.h"
#include "compilers/table.h"
#include "check/files.h"
#include "minimize/minimize.h"
#include "ir/json_text.h"
#include "minimize/minimize_edits.h"
#include "triage/signature.h"
#include "ir/relayout.h"
#include "triage/minimize_finding.h"

namespace af::fuzz {

namespace {

// The op machinery every program passes through, whatever the defect:
// PyTorch's reference and primitive ops, meta and fake tensors, FX and
// its tracer, the entry points of torch.compile and torch.func; Thunder's
// prims, clang and torch-op layers, its interpreter and trace machinery.
// A frame there says which op raised, not which part of the compiler was
// wrong, so the fault frame is the innermost frame outside them.
constexpr const char* kGeneric[] = {
    "torch/_refs/",
    "torch/_prims/",
    "torch/_prims_common/",
    "torch/_decomp/",
    "torch/_meta_registrations.py",
    "torch/_ops.py",
    "torch/_subclasses/fake_",
    "torch/_subclasses/meta_utils.py",
    "torch/fx/",
    "torch/utils/",
    "torch/_tensor.py",
    "torch/functional.py",
    "torch/overrides.py",
    "torch/_library/",
    "torch/_logging/",
    "torch/_guards.py",
    "torch/_compile.py",
    "torch/_utils_internal.py",
    "torch/_strobelight/",
    "torch/autograd/",
    "torch/_jit_internal.py",
    "torch/_dynamo/eval_frame.py",
    "torch/_dynamo/convert_frame.py",
    "torch/_dynamo/utils.py",
    "torch/_dynamo/exc.py",
    "torch/_dynamo/output_graph.py",
    "torch/_dynamo/repro/",
    "torch/_dynamo/backends/",
    "torch/__init__.py",
    "torch/_functorch/apis.py",
    "torch/_functorch/vmap.py",
    "torch/_functorch/eager_transforms.py",
    "torch/_functorch/pyfunctorch.py",
    "torch/_functorch/aot_autograd.py",
    "torch/_inductor/compile_fx.py",
    "torch/_higher_order_ops/",
    "functorch/_src/vmap.py",
    "functorch/_src/eager_transforms.py",
    "functorch/experimental/",
    "thunder/core/prims.py",
    "thunder/clang/",
    "thunder/torch/",
    "thunder/core/symbol.py",
    "thunder/core/interpreter.py",
    "thunder/core/jit_ext.py",
    "thunder/core/proxies.py",
    "thunder/core/baseutils.py",
    "thunder/core/utils.py",
    "thunder/core/langctxs.py",
    "thunder/core/trace.py",
    "thunder/core/compile_data.py",
    "thunder/__init__.py",
    "thunder/common.py",
    "thunder/executors/torchex.py",
    "thunder/executors/pythonex.py",
    "thunder/core/codeutils.py",
    "thunder/extend/",
    "thunder/dynamo/compiler.py",
    "thunder/core/dtypes.py",
    "thunder/core/devices.py",
    "thunder/core/pytree.py",
    "thunder/core/options.py",
    // Drivers that run every op of every program: the dispatch modes of
    // functionalization and of AOTAutograd's analysis, the module call,
    // AOTAutograd's tracing and runtime entry points. An error below them
    // with nothing of the compiler between is PyTorch's C++ check of one
    // op, which the message names.
    "torch/_subclasses/functional_tensor.py:FunctionalTensorMode.__torch_dispatch__",
    "torch/_functorch/_aot_autograd/runtime_wrappers.py:_AnalyzeCustomOpInputOutputMode",
    "torch/_functorch/_aot_autograd/graph_capture_wrappers.py:create_functional_call",
    "torch/_functorch/_aot_autograd/"
    "collect_metadata_analysis.py:run_functionalized_fw_and_collect_metadata.<locals>.inner",
    "torch/_functorch/_aot_autograd/codegen.py:codegen(runtime_wrapper_orchestration)",
    "torch/_functorch/_aot_autograd/runtime_wrappers.py:_create_runtime_wrapper.<locals>.runtime_wrapper",
    // AOTAutograd's stage-1 capture calling the traced graph (torch 2.15.0):
    // an error raised there is the graph's op failing on what the capture
    // gave it (a view of a mutated input's new strides), as the message says.
    "torch/_functorch/_aot_autograd/graph_compile.py:aot_stage1_graph_capture.<locals>.orig_flat_fn",
    "torch/nn/",
    "torch/_utils.py",
    "torch/_inductor/__init__.py",
    // Inductor's compiled graph: every tensor an Inductor program returns
    // is made by its call, whatever the defect (its "made by" would join
    // every Inductor bug of wrong values into one).
    "torch/_inductor/output_code.py:CompiledFxGraph.__call__",
};

// Dynamo's tracing of the program's own bytecode, which differs with every
// program whatever the defect: never a suspect (a Dynamo error still has
// its fault frame there).
constexpr const char* kTracing[] = {
    "torch/_dynamo/variables/",
    "torch/_dynamo/symbolic_convert.py",
    "torch/_dynamo/bytecode_",
    "torch/_dynamo/codegen.py",
    "torch/_dynamo/guards.py",
    "torch/_dynamo/source.py",
    "torch/_dynamo/side_effects.py",
    "torch/_dynamo/trace_rules.py",
    "torch/_dynamo/resume_execution.py",
    "torch/_dynamo/polyfills/",
    "torch/_dynamo/funcname_cache.py",
    "torch/_dynamo/pgo.py",
    "torch/_dynamo/graph_",
    "torch/distributed/",
    "torch/_dynamo/__init__.py",
    "torch/cuda/",
    "thunder/executors/torch_compile.py:cuda_device_checker",
};

// A strategy that runs another system inside (thunderfx: Dynamo, and
// Inductor's AOTAutograd for the regions it hands back) meets that
// system's defects: an error whose innermost compiler frame is there
// belongs to it.
struct Embedded {
  const char* system;
  const char* prefix;
  const char* embedded;
};
constexpr Embedded kEmbedded[] = {
    {"thunder", "torch/_dynamo/", "torch.compile"},
    {"thunder", "torch/_functorch/_aot_autograd/", "torch.compile"},
    {"thunder", "torch/_functorch/aot_autograd.py", "torch.compile"},
    {"thunder", "torch/_inductor/", "torch.compile"},
};

template <size_t N>
bool under(const std::string& frame, const char* const (&prefixes)[N]) {
  for (const char* g : prefixes)
    if (frame.rfind(g, 0) == 0) return true;
  return false;
}
bool generic(const std::string& frame) { return under(frame, kGeneric); }

// Faulthandler's paths as the runner's: relative to site-packages, none
// for the program, the runner or Python's own library.
std::string frame_path(const std::string& path) {
  if (path.find("aliasfuzz-runner-") != std::string::npos || path.find("aliasfuzz_program") != std::string::npos ||
      path.find("external_runner.py") != std::string::npos || path.rfind("<", 0) == 0)
    return "";
  for (const char* marker : {"site-packages/", "dist-packages/"})
    if (const size_t i = path.rfind(marker); i != std::string::npos) return path.substr(i + std::string(marker).size());
  if (path.find("/lib/python3") != std::string::npos) return "";
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string clean(std::string s) {  // one field of the line: no separators inside
  for (char& c : s)
    if (c == ';' || c == '\n' || c == '\r') c = ',';
  return s;
}

std::vector<std::string> split(const std::string& s, const std::string& sep) {
  std::vector<std::string> out;
  size_t at = 0;
  while (true) {
    const size_t next = s.find(sep, at);
    out.push_back(s.substr(at, next - at));
    if (next == std::string::npos) return out;
    at = next + sep.size();
  }
}

// The programs one edit away from p: each statement removed (with what
// uses it), each return removed (of several), the inputs in the other
// alias layout.
std::vector<ir::Program> neighbours(const ir::Program& p, bool relayout) {
  std::vector<ir::Program> out;
  for (size_t i = 0; i < p.stmts.size(); ++i) out.push_back(minimizing::drop_stmts(p, i, i + 1));
  if (p.returns.size() > 1)
    for (size_t i = 0; i < p.returns.size(); ++i) {
      std::vector<bool> drop(p.returns.size(), false);
      drop[i] = true;
      out.push_back(minimizing::remove(p, {}, {}, {}, drop));
    }
  if (relayout)
    if (auto q = ir::recall_layout(p)) out.push_back(std::move(*q));
  return out;
}

}  // namespace

std::string fault_frame(const std::vector<std::string>& frames) {
  for (auto it = frames.rbegin(); it != frames.rend(); ++it)
    if (!generic(*it)) return *it;
  return "";
}

std::string embedded_system(const std::string& system, const std::vector<std::string>& frames) {
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
    const bool thunders = it->rfind("thunder/", 0) == 0;
    for (const Embedded& e : kEmbedded)
      if (system == e.system && it->rfind(e.prefix, 0) == 0) return e.embedded;
    if (thunders) return "";  // the innermost compiler frame is the strategy's own
  }
  return "";
}

std::string message_template(const std::string& message) {
  static const std::regex number("-?[0-9]+(\\.[0-9]+)?(e-?[0-9]+)?");
  static const std::regex address("0x[0-9a-fA-F]+");
  std::string s = std::regex_replace(message, address, "ADDR");
  s = std::regex_replace(s, number, "N");
  s = clean(s);
  for (char& c : s)
    if (c == '"') c = '\'';
  return s.size() > 160 ? s.substr(0, 160) : s;
}

std::vector<std::string> crash_frames(const std::string& stderr_tail) {
  // faulthandler: `  File "PATH", line N in FUNCTION`, most recent call first.
  static const std::regex line("File \"([^\"]+)\", line [0-9]+ in ([A-Za-z_<>][A-Za-z0-9_<>.]*)");
  std::vector<std::string> out;
  std::istringstream in(stderr_tail);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (!std::regex_search(l, m, line)) continue;
    if (const std::string path = frame_path(m[1]); !path.empty()) out.push_back(path + ":" + m[2].str());
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<std::string> rank_suspects(const std::vector<std::string>& failing,
                                       const std::vector<std::vector<std::string>>& passing, size_t n) {
  std::map<std::string, int> passed;  // function -> passing runs that executed it
  for (const auto& cov : passing)
    for (const std::string& f : cov) ++passed[f];
  struct Scored {
    double ochiai;
    int density;  // functions of its file with the same score: where a fault's code lives, many run
    std::string f;
  };
  std::vector<Scored> s;
  std::map<std::pair<std::string, double>, int> per_file;
  for (const std::string& f : failing) {
    if (generic(f) || under(f, kTracing)) continue;
    const auto it = passed.find(f);
    const int ep = it == passed.end() ? 0 : it->second;
    s.push_back({1.0 / std::sqrt(1.0 + ep), 0, f});  // one failing run: ef = 1
    ++per_file[{f.substr(0, f.find(':')), s.back().ochiai}];
  }
  for (Scored& x : s) x.density = per_file[{x.f.substr(0, x.f.find(':')), x.ochiai}];
  std::sort(s.begin(), s.end(), [](const Scored& a, const Scored& b) {
    if (a.ochiai != b.ochiai) return a.ochiai > b.ochiai;
    if (a.density != b.density) return a.density > b.density;
    return a.f < b.f;
  });
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size() && i < n; ++i) out.push_back(s[i].f);
  return out;
}

std::optional<Evidence> gather_evidence(const BugCase& e, const std::string& strategy, std::string* why,
                                        bool all_suspects) {
  const auto t0 = std::chrono::steady_clock::now();
  run::RunSpec spec = e.spec;
  auto parsed = run::RunStrategy::parse(strategy);
  if (!parsed || !parsed->external()) {
    *why = "'" + strategy + "' is not a compiler the evidence can trace";
    return std::nullopt;
  }
  spec.strategy = std::move(*parsed);
  CheckOptions options;
  options.first_op = false;
  compilers::set_external_evidence(true);
  struct Off {
    ~Off() { compilers::set_external_evidence(false); }
  } off;
  const auto bug = run_spec(e.program, spec, options);
  if (!bug) {
    *why = strategy + " is not installed here";
    return std::nullopt;
  }
  if (bug->agree || bug_what(*bug) != e.what) {
    *why = strategy + (bug->agree ? " agrees" : " diverges otherwise (" + bug_what(*bug) + ")");
    return std::nullopt;
  }
  Evidence ev;
  ev.under = strategy;
  std::vector<std::string> frames = bug->frames;
  if (frames.empty() && !bug->stderr_tail.empty()) frames = crash_frames(bug->stderr_tail);
  ev.fault = fault_frame(frames);
  ev.frames = frames;
  if (const auto ext = compilers::external_strategy(strategy)) ev.system = embedded_system(ext->system, frames);
  if (!bug->error.empty() && bug->error.rfind("external runner", 0) != 0) {
    const size_t colon = bug->error.find(": ");
    ev.message = message_template(colon == std::string::npos ? bug->error : bug->error.substr(colon + 2));
  }
  if (bug->mismatch) {
    const std::string& o = bug->mismatch->observable;
    const std::string kind = oracles::is_input_geometry(o) ? "input"
                             : o.rfind("return", 0) == 0   ? "return"
                             : o.rfind("grad", 0) == 0     ? "grad"
                                                           : "storage";
    ev.wrong = kind == "input" ? "input geometry" : kind + (bug->mismatch->what.empty() ? " values" : " shape");
    // "return N": who made that tensor.
    if (kind == "return" && !bug->recall) {
      const size_t i = std::strtoul(o.c_str() + 6, nullptr, 10);
      if (i < bug->producers.size() && !bug->producers[i].empty() && !generic(bug->producers[i]))
        ev.made_by = bug->producers[i];
    }
  }
  // Wrong values under torch.compile: the stage that makes them. The
  // bisector's own run of the program; a recall bug's second call is not
  // what it runs, and an error has its fault frame.
  const auto& ext = spec.strategy.external();
  if (bug->mismatch && !spec.recall && ext && ext->torch_compile()) {
    if (const auto stage = compilers::torch_compile_stage(e.program, *ext, &ev.no_stage)) {
      ev.stage = *stage;
      if (stage->empty()) ev.no_stage = "every backend right in the bisector's process";
    }
  }
  // Passing neighbours: right under the same strategy (a value check; a
  // neighbour eager refuses or the compiler refuses as unsupported says nothing).
  std::vector<std::vector<std::string>> passing;
  CheckOptions plain;
  plain.first_op = false;
  run::RunSpec nspec = spec;
  nspec.recall = spec.recall && !spec.across_processes;
  nspec.across_processes = false;
  for (const ir::Program& q : neighbours(e.program, !spec.recall)) {
    if (!ir::analyze(q)) continue;
    ++ev.neighbours;
    const auto r = run_spec(q, nspec, plain);
    if (r && r->agree && r->unsupported.empty() && !r->coverage.empty()) passing.push_back(r->coverage);
  }
  ev.passing = static_cast<int>(passing.size());
  // Thunder: the first of its options that removes the divergence; the
  // pass it turns off is where to look (a change that only turns the bug
  // into another error removes nothing).
  if (ext)
    for (const compilers::ThunderOption& o : compilers::thunder_options(*ext)) {
      const auto variant = run::RunStrategy::parse(strategy + "+" + o.name);
      if (!variant) continue;
      run::RunSpec ospec = spec;
      ospec.strategy = *variant;
      const auto r = run_spec(e.program, ospec, plain);
      if (r && r->agree && r->unsupported.empty()) {
        ev.removed_by = o.keyword;
        break;
      }
    }
  // The bug program's coverage once more, after its neighbours: what the
  // first compile of a process does once (lazy imports, registrations) is
  // then no longer in it.
  const auto again = run_spec(e.program, spec, options);
  const auto& failing = again && !again->agree ? again->coverage : bug->coverage;
  ev.suspects = rank_suspects(failing, passing, all_suspects ? failing.size() : kMaxSuspects);
  ev.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return ev;
}

// A bug of one of aliasfuzz's own strategies under a bug-zoo mutant: the
// change of its settings that removes it is the mutant (one code change by
// construction), when the bug program agrees without it.
std::optional<Evidence> mutant_evidence(const MinimizedFinding& m) {
  if (m.spec.mutant == run::Mutant::None) return std::nullopt;
  run::RunSpec plain = m.spec;
  plain.mutant = run::Mutant::None;
  const auto r = run_spec(m.bug_program, plain);
  if (!r || !r->agree) return std::nullopt;
  Evidence ev;
  ev.under = m.spec.strategy_name();
  ev.removed_by = "--inject none";
  return ev;
}

bool record_finding_evidence(const std::string& dir, const MinimizedFinding& m) {
  if (!m.ok || m.bug_cut || m.bug_record.agree) return false;
  std::string why;
  const auto ev = !m.spec.is_external()
                      ? mutant_evidence(m)
                      : gather_evidence(BugCase{m.bug_program, m.spec, bug_what(m.bug_record)},
                                        m.spec.strategy.name(), &why);
  std::string text;
  if (!ev || !read_text(dir + "/minimize.json", &text)) return false;
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return false;
  j["evidence"] = evidence_text(*ev);
  j["evidence_s"] = ev->seconds;
  write_atomic(dir + "/minimize.json", ir::json_text(j, 2) + "\n");
  return true;
}

std::string evidence_text(const Evidence& ev) {
  std::string s = "under " + ev.under;
  if (!ev.system.empty()) s += "; in " + ev.system;
  if (!ev.fault.empty()) s += "; fault " + ev.fault;
  if (!ev.message.empty()) s += "; message " + clean(ev.message);
  if (!ev.wrong.empty()) s += "; wrong " + ev.wrong;
  if (!ev.made_by.empty()) s += "; made by " + ev.made_by;
  if (!ev.stage.empty()) s += "; stage " + clean(ev.stage);
  if (!ev.removed_by.empty()) s += "; removed by " + ev.removed_by;
  if (!ev.suspects.empty()) {
    s += "; suspects ";
    for (size_t i = 0; i < ev.suspects.size(); ++i) s += (i ? ", " : "") + ev.suspects[i];
  }
  s += fmt::format("; passing {} of {}", ev.passing, ev.neighbours);
  return s;
}

std::optional<Evidence> parse_evidence_text(const std::string& text) {
  Evidence ev;
  for (const std::string& field : split(text, "; ")) {
    const size_t sp = field.find(' ');
    if (sp == std::string::npos) return std::nullopt;
    const std::string key = field.substr(0, sp), value = field.substr(sp + 1);
    if (key == "under") {
      ev.under = value;
    } else if (key == "in") {
      ev.system = value;
    } else if (key == "fault") {
      if (!generic(value)) ev.fault = value;  // as `made by`: a line recorded before the frame counted as generic
    } else if (key == "message") {
      ev.message = value;
    } else if (key == "wrong") {
      ev.wrong = value;
    } else if (key == "removed") {
      if (value.rfind("by ", 0) != 0) return std::nullopt;
      ev.removed_by = value.substr(3);
    } else if (key == "made") {
      if (value.rfind("by ", 0) != 0) return std::nullopt;
      // A line recorded before its frame counted as generic (kGeneric) says nothing.
      if (!generic(value.substr(3))) ev.made_by = value.substr(3);
    } else if (key == "stage") {
      ev.stage = value;
    } else if (key == "suspects") {
      ev.suspects = split(value, ", ");
    } else if (key == "passing") {
      if (std::sscanf(value.c_str(), "%d of %d", &ev.passing, &ev.neighbours) != 2) return std::nullopt;
    } else {
      return std::nullopt;
    }
  }
  if (ev.under.empty()) return std::nullopt;
  return ev;
}

}  // namespace af::fuzz
