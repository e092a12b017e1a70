#include "compilers/table.h"

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

#include "oracles/line_process.h"

namespace af::compilers {

using oracles::find_source_file;
using oracles::root_candidates;

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
    {"torch-functionalize", "functorch.functionalize", Py::System, "", "",
     "from functorch.experimental import functionalize", "functionalize(fn)", false, "", "", "", "", false, true},
    {"thunder", "thunder", Py::Venv, "", "", "import thunder", "thunder.jit(fn)", true},
    {"thunder-dataflow", "thunder", Py::Venv, "", "", "import thunder", "thunder.jit(fn, fusion_type=\"dataflow\")",
     true},
    {"thunder-no-alias-updates", "thunder", Py::Venv, "", "", "import thunder",
     "thunder.jit(fn, skip_inplace_alias_updates=True)", true},
    {"inductor", "torch.compile", Py::Torch, "", "", "import torch", "torch.compile(fn, backend=\"inductor\")", false,
     "aot-eager", "AOTAutograd/functionalization", "Inductor", "", true},
    // AOTAutograd's functionalization without Inductor: tells the two apart.
    {"aot-eager", "torch.compile", Py::Torch, "", "", "import torch", "torch.compile(fn, backend=\"aot_eager\")", false,
     "", "", "", "", true},
    // Thunder's torch.compile backend with its defaults (ThunderCompiler()).
    // Nodes Thunder cannot run (its meta function or proxy raises, no
    // implementation) are split off to PyTorch: its split reasons.
    {"thunderfx", "thunder", Py::Venv, "", "", "from thunder.dynamo import thunderfx", "thunderfx(fn)", true, "", "",
     "", "[r.info for sg in cfn._backend.subgraph_infos for r in sg.split_reasons]"},
    {"torch-func-functionalize", "torch.func.functionalize", Py::Torch, "", "", "import torch.func",
     "torch.func.functionalize(fn)", false, "", "", "", "", true, true},
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
  e.system = "py:" + target;
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

namespace {
// What thunder.jit (0.2.6) can turn off on the CPU, each a pass a
// divergence can live in: the alias updates of in-place ops on aliased
// inputs (thunder/__init__.py: insert_alias_updates), the executors beyond
// torch and python (their fusion and claims), the copy_ check of in-place
// ops, and thunderfx's split of the FX graph at autograd.
const ThunderOption kThunderOptions[] = {
    {"no-alias-updates", "skip_inplace_alias_updates=True", "the alias-update pass (insert_alias_updates)"},
    {"no-executors", "executors=[]", "every executor but torch and python (sdpa, torchcompile_xentropy; fusion)"},
    {"no-copy-check", "disable_inplace_copy_check=True", "the in-place copy_ check"},
    {"no-split-autograd", "thunderfx_disable_split_autograd=True", "thunderfx's split of the graph at autograd"},
};

bool is_thunderfx(const ExternalStrategy& e) { return e.compile.rfind("thunderfx(", 0) == 0; }
}  // namespace

std::vector<std::string> thunder_option_names() {
  std::vector<std::string> out;
  for (const ThunderOption& o : kThunderOptions) out.push_back(o.name);
  return out;
}

const ThunderOption* thunder_option_by_keyword(const std::string& keyword) {
  for (const ThunderOption& o : kThunderOptions)
    if (keyword == o.keyword) return &o;
  return nullptr;
}

std::vector<ThunderOption> thunder_options(const ExternalStrategy& e) {
  std::vector<ThunderOption> out;
  if (!e.thunder || e.compile.empty() || e.compile.back() != ')') return out;
  for (const ThunderOption& o : kThunderOptions) {
    const std::string key = std::string(o.keyword).substr(0, std::string(o.keyword).find('='));
    const bool fx_only = key.rfind("thunderfx_", 0) == 0;
    if (e.compile.find(key) == std::string::npos && (!fx_only || is_thunderfx(e))) out.push_back(o);
  }
  return out;
}

std::optional<ExternalStrategy> external_strategy(const std::string& s) {
  std::string why;
  if (s.rfind("py:", 0) == 0) return parse_py_spec(s, &why);
  // NAME+OPTION: a Thunder strategy with one of its passes off.
  if (const size_t plus = s.find('+'); plus != std::string::npos) {
    auto e = external_strategy(s.substr(0, plus));
    if (!e) return std::nullopt;
    for (const ThunderOption& o : thunder_options(*e))
      if (s.substr(plus + 1) == o.name) {
        e->name = s;
        e->compile.insert(e->compile.size() - 1, std::string(", ") + o.keyword);
        return e;
      }
    return std::nullopt;
  }
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

std::string system_label(const std::string& strategy, const std::string& versions) {
  if (!is_thunder_strategy(strategy)) return versions.empty() ? strategy : strategy + " (" + versions + ")";
  const size_t at = versions.find("thunder ");
  return (at == std::string::npos ? "thunder" : versions.substr(at)) +
         (strategy == "thunder" ? "" : " (" + strategy + ")");
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
  return e ? external_python(*e) : "";
}

std::string external_python(const ExternalStrategy& e) {
  switch (e.python) {
    case Py::Venv: return find_thunder_python();
    case Py::Given: return access(e.python_path.c_str(), X_OK) == 0 ? e.python_path : "";
    case Py::Torch: return torch_python(e.torch_version.empty() ? newest_torch() : e.torch_version);
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
  return e ? external_unavailable(*e) : "'" + strategy + "' is not an external strategy";
}

std::string external_unavailable(const ExternalStrategy& e) {
  switch (e.python) {
    case Py::Venv: return "the .venv-thunder Python is not installed (./aliasfuzz setup --thunder)";
    case Py::Given: return "no Python at '" + e.python_path + "'";
    case Py::Torch:
      return e.torch_version.empty()
                 ? "no torch is installed for " + e.name + " (./aliasfuzz setup --torch, or --thunder)"
                 : "torch " + e.torch_version + " is not installed (./aliasfuzz setup --torch " + e.torch_version + ")";
    case Py::System: return "no /usr/bin/python3 with PyTorch";
  }
  return "";
}

std::string find_external_runner() { return find_source_file("compilers/external_runner.py", "AF_EXTERNAL_RUNNER"); }

}  // namespace af::compilers
