#include "ir/json_text.h"
#include "oracles/external.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>

#include "oracles/torch_function.h"

namespace af::oracles {

namespace {

std::string env(const char* v) {
  const char* e = std::getenv(v);
  return e ? e : "";
}

using Py = ExternalStrategy::Python;

// The built-in external strategies: one row each, nothing else in C++ or
// in external_runner.py names them. `compile` is evaluated by the runner
// (and by repro.py) with `fn` bound to the program's function.
const ExternalStrategy kBuiltins[] = {
    {"torch-functionalize", Py::System, "", "", "from functorch.experimental import functionalize", "functionalize(fn)", false},
    {"thunder", Py::Venv, "", "", "import thunder", "thunder.jit(fn)", true},
    {"thunder-dataflow", Py::Venv, "", "", "import thunder", "thunder.jit(fn, fusion_type=\"dataflow\")", true},
    {"thunder-no-alias-updates", Py::Venv, "", "", "import thunder", "thunder.jit(fn, skip_inplace_alias_updates=True)",
     true},
    {"inductor", Py::Torch, "", "", "import torch", "torch.compile(fn, backend=\"inductor\")", false, "aot-eager",
     "AOTAutograd/functionalization", "Inductor", "", true},
    // AOTAutograd's functionalization without Inductor: tells the two apart.
    {"aot-eager", Py::Torch, "", "", "import torch", "torch.compile(fn, backend=\"aot_eager\")", false, "", "", "", "",
     true},
    // Thunder's torch.compile backend with its defaults (ThunderCompiler()).
    // Nodes Thunder cannot run (its meta function or proxy raises, no
    // implementation) are split off to PyTorch: its split reasons.
    {"thunderfx", Py::Venv, "", "", "from thunder.dynamo import thunderfx", "thunderfx(fn)", true, "", "", "",
     "[r.info for sg in cfn._backend.subgraph_infos for r in sg.split_reasons]"},
    {"torch-func-functionalize", Py::Torch, "", "", "import torch.func", "torch.func.functionalize(fn)", false, "", "",
     "", "", true},
};

const std::regex& identifier() {
  static const std::regex re("[A-Za-z_][A-Za-z0-9_]*");
  return re;
}

// py:MODULE:FUNCTION[@PYTHON] -> the entry, or the reason it is malformed.
std::optional<ExternalStrategy> parse_py_spec(const std::string& s, std::string* why) {
  static const std::regex module("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*");
  const std::string body = s.substr(3);
  const size_t at = body.find('@');
  const std::string target = body.substr(0, at);
  const std::string python = at == std::string::npos ? "" : body.substr(at + 1);
  const size_t colon = target.find(':');
  const std::string mod = target.substr(0, colon);
  const std::string fn = colon == std::string::npos ? "" : target.substr(colon + 1);
  if (colon == std::string::npos || !std::regex_match(mod, module) || !std::regex_match(fn, identifier()))
    *why = "'" + s + "': expected py:MODULE:FUNCTION[@PYTHON] (MODULE a dotted Python module name, FUNCTION a name)";
  else if (at != std::string::npos && (python.empty() || python.find_first_of(" \t\n'\"") != std::string::npos))
    *why = "'" + s + "': PYTHON after '@' must be a path without spaces or quotes";
  if (!why->empty()) return std::nullopt;
  ExternalStrategy e;
  e.name = s;
  e.python = python.empty() ? Py::Venv : Py::Given;
  e.python_path = python;
  e.imports = "import " + mod;
  e.compile = mod + "." + fn + "(fn)";
  return e;
}

}  // namespace

const std::vector<std::string>& external_strategies() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> names;
    for (const auto& e : kBuiltins) names.push_back(e.name);
    return names;
  }();
  return v;
}

std::optional<ExternalStrategy> external_strategy(const std::string& s) {
  std::string why;
  if (s.rfind("py:", 0) == 0) return parse_py_spec(s, &why);
  // NAME@VERSION: a versioned built-in under one torch.
  const size_t at = s.find('@');
  const std::string name = s.substr(0, at), v = at == std::string::npos ? "" : s.substr(at + 1);
  if (at != std::string::npos && !is_torch_version(v)) return std::nullopt;
  for (auto e : kBuiltins) {
    if (e.name != name || (!v.empty() && !e.versioned)) continue;
    e.name = s;
    e.torch_version = v;
    if (!v.empty() && !e.lower_stage.empty()) e.lower_stage += "@" + v;  // inductor@V's front stages are aot-eager@V
    return e;
  }
  return std::nullopt;
}

bool is_torch_version(const std::string& v) {
  static const std::regex version("[0-9]+(\\.[0-9]+)*[A-Za-z0-9.+_]*");
  return std::regex_match(v, version);
}

std::string strategy_base(const std::string& s) {
  const auto e = external_strategy(s);
  return e && e->versioned && !e->torch_version.empty() ? s.substr(0, s.find('@')) : s;
}

bool version_less(const std::string& a, const std::string& b) {
  auto parts = [](const std::string& v) {
    std::vector<long> out;
    for (size_t i = 0; i < v.size() && v[i] != '+';) {
      if (!std::isdigit(static_cast<unsigned char>(v[i]))) break;
      out.push_back(std::strtol(v.c_str() + i, nullptr, 10));
      while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) ++i;
      if (i < v.size() && v[i] == '.') ++i;
    }
    return out;
  };
  const auto pa = parts(a), pb = parts(b);
  return pa != pb ? pa < pb : a < b;
}

namespace {
std::vector<InstalledTorch> scan_installed_torches() {
  std::vector<std::string> dirs;
  if (auto e = env("AF_TORCH_VENVS"); !e.empty()) dirs.push_back(e);  // holds .venvs/torch-VERSION
  for (const auto& d : root_candidates()) dirs.push_back(d);
  std::map<std::string, std::string> found;  // version -> Python, the first place wins
  auto add = [&](const std::string& v, const std::string& py) {
    if (!v.empty() && !found.count(v) && access(py.c_str(), X_OK) == 0) found[v] = py;
  };
  std::error_code ec;
  for (const auto& d : dirs) {
    for (const auto& f : std::filesystem::directory_iterator(d + "/.venvs", ec)) {
      const std::string n = f.path().filename().string(), prefix = "torch-";
      if (n.rfind(prefix, 0) == 0) add(n.substr(prefix.size()), f.path().string() + "/bin/python");
    }
  }
  // .venv-thunder's torch, as its installed requirements pin it.
  if (const std::string py = find_thunder_python(); !py.empty()) {
    const auto venv = std::filesystem::path(py).parent_path().parent_path();
    std::ifstream req(venv / ".requirements");
    for (std::string line; std::getline(req, line);)
      if (line.rfind("torch==", 0) == 0) add(line.substr(7), py);
  }
  std::vector<InstalledTorch> out;
  for (const auto& [v, py] : found) out.push_back({v, py});
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return version_less(a.version, b.version); });
  return out;
}
}  // namespace

std::vector<InstalledTorch> installed_torches() {
  // external_python() asks on every run (and every bisection prefix): the
  // folders are scanned once per setting of the variables that steer the
  // scan (a test stands a stub up by setting AF_TORCH_VENVS).
  static std::mutex mu;
  static std::map<std::string, std::vector<InstalledTorch>> by_env;
  const std::string key = env("AF_TORCH_VENVS") + '\n' + env("AF_THUNDER_PYTHON");
  std::lock_guard<std::mutex> lock(mu);
  auto it = by_env.find(key);
  if (it == by_env.end()) it = by_env.emplace(key, scan_installed_torches()).first;
  return it->second;
}

std::string newest_torch() {
  const auto all = installed_torches();
  return all.empty() ? "" : all.back().version;
}

static std::string torch_python(const std::string& version) {
  for (const auto& t : installed_torches())
    if (t.version == version) return t.python;
  return "";
}

std::string with_torch_version(const std::string& strategy, const std::string& version) {
  const auto e = external_strategy(strategy);
  if (!e || !e->versioned || !e->torch_version.empty()) return strategy;
  const std::string v = version.empty() ? newest_torch() : version;
  return v.empty() ? strategy : strategy + "@" + v;
}

std::string py_spec_error(const std::string& s) {
  std::string why;
  if (s.rfind("py:", 0) == 0) parse_py_spec(s, &why);
  return why;
}

bool is_external_strategy(const std::string& s) { return external_strategy(s).has_value(); }

bool is_thunder_strategy(const std::string& s) {
  const auto e = external_strategy(s);
  return e && e->thunder;
}

std::string find_thunder_python() {
  if (auto e = env("AF_THUNDER_PYTHON"); !e.empty()) return access(e.c_str(), X_OK) == 0 ? e : "";
  for (const auto& d : root_candidates()) {
    const std::string py = d + "/.venv-thunder/bin/python";
    if (access(py.c_str(), X_OK) == 0) return py;
  }
  return "";
}

std::string external_python(const std::string& strategy) {
  const auto e = external_strategy(strategy);
  if (!e) return "";
  switch (e->python) {
    case Py::Venv: return find_thunder_python();
    case Py::Given: return access(e->python_path.c_str(), X_OK) == 0 ? e->python_path : "";
    case Py::Torch: return torch_python(e->torch_version.empty() ? newest_torch() : e->torch_version);
    case Py::System: {
      std::string py = env("AF_TORCH_PYTHON");
      if (py.empty()) py = "/usr/bin/python3";
      return access(py.c_str(), X_OK) == 0 ? py : "";
    }
  }
  return "";
}

std::string external_unavailable(const std::string& strategy) {
  const auto e = external_strategy(strategy);
  if (!e) return "'" + strategy + "' is not an external strategy";
  switch (e->python) {
    case Py::Venv: return "the .venv-thunder Python is not installed (./aliasfuzz setup --thunder)";
    case Py::Given: return "no Python at '" + e->python_path + "'";
    case Py::Torch:
      return e->torch_version.empty()
                 ? "no torch is installed for " + strategy + " (./aliasfuzz setup --torch, or --thunder)"
                 : "torch " + e->torch_version + " is not installed (./aliasfuzz setup --torch " + e->torch_version + ")";
    case Py::System: return "no /usr/bin/python3 with PyTorch";
  }
  return "";
}

std::string find_external_runner() { return find_source_file("oracles/external_runner.py", "AF_EXTERNAL_RUNNER"); }

// ---------------------------------------------------------------- runner

ExternalRunner::ExternalRunner(ExternalOptions o) : o_(std::move(o)) {
  if (o_.runner.empty()) o_.runner = find_external_runner();
}

ExternalRunner::~ExternalRunner() { stop(); }

void ExternalRunner::abandon() { proc_.abandon(); }

void ExternalRunner::stop() { proc_.stop(2); }

bool ExternalRunner::start(std::string* error) {
  if (proc_.running()) return true;
  if (access(o_.python.c_str(), X_OK) != 0) {
    *error = "no Python at '" + o_.python + "'";
    return false;
  }
  if (!is_file(o_.runner)) {
    *error = "cannot find oracles/external_runner.py (set AF_EXTERNAL_RUNNER)";
    return false;
  }
  // A campaign worker limits its address space (RLIMIT_AS); PyTorch maps
  // gigabytes of CUDA libraries at import without using them. The Python
  // process is not the case under test: the limit is lifted where allowed.
  LineProcess::Options po;
  po.keep_stderr = !env("AF_EXTERNAL_STDERR").empty();
  po.capture_stderr = true;  // what a crashing compiler said last goes into its finding
  po.lift_memory_limit = true;
  po.die_with_parent = true;
  nlohmann::json hello;
  if (!start_runner(proc_, o_.python, o_.runner, po, o_.startup_s, "the external runner", &hello, error)) return false;
  torch_version_ = hello.contains("torch") && hello["torch"].is_string() ? hello["torch"].get<std::string>() : "";
  thunder_version_ = hello.contains("thunder") && hello["thunder"].is_string() ? hello["thunder"].get<std::string>() : "";
  return true;
}

ExternalResult ExternalRunner::run(const ir::Program& p, const std::string& strategy, bool invalid) {
  using S = ExternalResult::Status;
  ExternalResult r;
  const auto entry = external_strategy(strategy);
  if (!entry) {
    r.status = S::Unavailable;
    r.message = "'" + strategy + "' is not an external strategy";
    return r;
  }
  std::string err;
  if (!start(&err)) {
    r.status = S::Unavailable;
    r.message = err;
    return r;
  }
  const std::string code = torch_function_module(p);
  if (code.empty()) {
    r.status = S::Failed;
    r.error_type = "internal";
    r.message = "the program could not be split into _setup and _fn";
    return r;
  }
  nlohmann::json req = {{"id", next_id_++}, {"strategy", strategy}, {"imports", entry->imports},
                        {"compile", entry->compile}, {"fallbacks", entry->fallbacks}, {"code", code}};
  if (invalid) req["invalid"] = true;
  LineReply reply = proc_.request(req, o_.timeout_s);
  if (!reply.ok) {  // hung or dead: the next program starts a new process
    r.status = S::Failed;
    r.error_type = reply.failure;
    r.message = reply.message;
    r.death = reply.death;
    r.stderr_tail = reply.stderr_tail;
    if (reply.failure != "internal") ++restarts_;
    return r;
  }
  const nlohmann::json& j = reply.answer;
  try {
    r.exec_s = j.value("exec_s", 0.0);
    if (j.contains("fallbacks") && j["fallbacks"].is_array())
      for (const auto& f : j["fallbacks"]) r.fallbacks.push_back(f.is_string() ? f.get<std::string>() : ir::json_text(f));
    if (j.contains("unavailable")) {
      r.status = S::Unavailable;
      r.message = "cannot import the compiler of " + strategy + ": " + j["unavailable"].get<std::string>();
    } else if (j.contains("internal")) {
      r.status = S::Failed;
      r.error_type = "internal";
      r.message = j["internal"].get<std::string>();
    } else if (j.contains("eager_error")) {
      r.status = S::EagerError;
      r.error_type = j["eager_error"].value("type", "");
      r.message = j["eager_error"].value("message", "");
      r.strategy_accepted = j.contains("actual");
      if (j.contains("error")) {
        r.strategy_error_type = j["error"].value("type", "");
        r.strategy_message = j["error"].value("message", "");
      }
    } else {
      r.eager = observables_from_json(p, j.at("eager"));
      if (j.contains("error")) {
        r.status = S::StrategyError;
        r.error_type = j["error"].value("type", "");
        r.message = j["error"].value("message", "");
      } else {
        r.actual = observables_from_json(p, j.at("actual"));
        r.status = S::Ok;
      }
    }
  } catch (const std::exception& ex) {
    r.status = S::Failed;
    r.error_type = "internal";
    r.message = std::string("bad answer from the external runner: ") + ex.what();
  }
  return r;
}

// ---------------------------------------------------------------- per process

namespace {
struct Registry {
  pid_t owner = -1;
  std::map<std::string, std::unique_ptr<ExternalRunner>> by_python;
  ExternalRunner* get(const std::string& python) {
    if (owner != getpid()) {  // a forked child: the runners belong to the parent
      for (auto& [k, r] : by_python) r->abandon();
      by_python.clear();
      owner = getpid();
    }
    auto& r = by_python[python];
    if (!r) {
      ExternalOptions o;
      o.python = python;
      r = std::make_unique<ExternalRunner>(o);
    }
    return r.get();
  }
};
Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: children die with PDEATHSIG or EOF
  return *r;
}
}  // namespace

ExternalResult run_external(const ir::Program& p, const std::string& strategy, bool invalid) {
  ExternalResult r;
  const std::string py = external_python(strategy);
  if (py.empty()) {
    r.status = ExternalResult::Status::Unavailable;
    r.message = external_unavailable(strategy);
    return r;
  }
  return registry().get(py)->run(p, strategy, invalid);
}

std::string external_versions(const std::string& strategy) {
  const std::string py = external_python(strategy);
  if (py.empty()) return "";
  ExternalRunner* r = registry().get(py);
  std::string s = r->torch_version().empty() ? "" : "torch " + r->torch_version();
  if (is_thunder_strategy(strategy) && !r->thunder_version().empty()) s += ", thunder " + r->thunder_version();
  return s;
}

// ---------------------------------------------------------------- errors

namespace {

// How an exception of an external strategy is classified: the first row
// whose type (exact, "" for any) and message (ECMAScript regex searched in
// the first line of the message, "" for any) match decides. No match:
// internal. Rows were taken from what lightning-thunder 0.2.6 raises on
// generated programs (and functorch's functionalize on torch 1.13).
struct ErrorPattern {
  bool unsupported;
  const char* type;
  const char* message;
  const char* rule;
};
const ErrorPattern kErrorPatterns[] = {
    // PyTorch's memory-overlap check raised inside the compiled function:
    // eager accepted the program, so the compiler made the overlap. Its
    // message starts with "unsupported operation", hence this row first.
    {false, "", "unsupported operation: (more than one element of the written-to|some elements of the input)",
     "overlap error in compiled code"},
    // "Trying to call function torch.as_strided, but it is not yet supported",
    // "only preserve_format is currently supported", ...
    {true, "NotImplementedError", "", "NotImplementedError"},
    // The same, re-raised by Thunder's interpreter.
    {true, "", "NotImplementedError", "NotImplementedError (wrapped)"},
    // torch.add(a, b, out=c) and the other out= calls (format v1.1): Thunder's
    // torch symbols take no `out` (div's raises NotImplementedError, above).
    {true, "TypeError", "got an unexpected keyword argument 'out'", "no out= keyword"},
    // "Unknown attribute sigmoid_", "Unknown attribute fill_"
    {true, "AttributeError", "Unknown attribute", "unknown attribute"},
    {true, "", "Unknown attribute", "unknown attribute (wrapped)"},
    // "aten.alias is not registered. Register its `custom_op` ..."
    {true, "", "is not registered|is not recognized|not yet recognized", "unknown op"},
    // Functionalization refuses, on purpose and loudly, an in-place write
    // through as_strided of another view (pytorch#104505, PR #122502):
    // "During torch.compile, encountered a mutation on a view chain of
    // length 2, where view 1 was an as_strided() call ... is banned in compile".
    {true, "RuntimeError", "mutation on a view chain of length [0-9]+, where view [0-9]+ was an as_strided\\(\\) call",
     "as_strided view-chain mutation banned"},
    // (not Python's "unsupported operand type(s)": an internal TypeError)
    {true, "", "not (yet )?supported|currently supported|is unsupported|[Uu]nsupported (op|operator|operation|argument|dtype|memory format)\\b",
     "not supported"},
};

}  // namespace

ErrorClass classify_external_error(const std::string& error_type, const std::string& message) {
  static const std::vector<std::regex> res = [] {
    std::vector<std::regex> v;
    for (const auto& p : kErrorPatterns) v.emplace_back(p.message, std::regex::ECMAScript);
    return v;
  }();
  const std::string first = message.substr(0, message.find('\n'));
  for (size_t i = 0; i < std::size(kErrorPatterns); ++i) {
    const ErrorPattern& p = kErrorPatterns[i];
    if (*p.type && error_type != p.type) continue;
    if (*p.message && !std::regex_search(first, res[i])) continue;
    return ErrorClass{p.unsupported, p.rule};
  }
  return ErrorClass{false, "internal"};
}

}  // namespace af::oracles
