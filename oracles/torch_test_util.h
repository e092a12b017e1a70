// Shared by the PyTorch agreement tests: one runner per test binary, and
// the comparison of the oracle with PyTorch on one program.
#pragma once
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ir/analysis.h"
#include "ir/text.h"
#include "oracles/eager.h"
#include "oracles/torch_bridge.h"

namespace af::oracles {

inline TorchRunner& test_runner() {
  static TorchRunner* r = new TorchRunner();
  return *r;
}

// A Python whose torch has torch.library.custom_op (>= 2.4; format v1.4's
// custom ops): the newest .venvs/torch-VERSION under $AF_TORCH_VENVS, else
// $AF_THUNDER_PYTHON (torch 2.9.1); "" when neither is there.
inline std::string torch2_python() {
  if (const char* root = std::getenv("AF_TORCH_VENVS"); root && *root) {
    std::error_code ec;
    const std::filesystem::path dir = std::filesystem::path(root) / ".venvs";
    std::vector<std::string> found;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
      if (e.path().filename().string().rfind("torch-", 0) == 0 && std::filesystem::exists(e.path() / "bin" / "python"))
        found.push_back((e.path() / "bin" / "python").string());
    std::sort(found.begin(), found.end());  // one is enough: any of them is >= 2.4
    if (!found.empty()) return found.back();
  }
  if (const char* t = std::getenv("AF_THUNDER_PYTHON"); t && *t && std::filesystem::exists(t)) return t;
  return "";
}

// The runner of torch2_python() (null when there is none).
inline TorchRunner* torch2_runner() {
  static TorchRunner* r = [] {
    const std::string py = torch2_python();
    if (py.empty()) return static_cast<TorchRunner*>(nullptr);
    TorchOptions o;
    o.python = py;
    return new TorchRunner(o);
  }();
  return r;
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::vector<std::string> af_files(const std::string& dir) {
  std::vector<std::string> r;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.path().extension() == ".af") r.push_back(e.path().string());
  std::sort(r.begin(), r.end());
  return r;
}

inline std::string describe(const TorchResult& t) {
  if (t.ok) return "PyTorch ran it";
  return "PyTorch: " + t.kind + " (line " + std::to_string(t.line) + "): " + t.message;
}

// Empty when the oracle and PyTorch agree on program p; else what differs.
inline std::string disagreement(const ir::Program& p, const TorchResult& t) {
  auto an = ir::analyze(p);
  if (!an) {
    const ir::Error& e = an.error();
    const std::string ok = std::string("oracle: ") + e.to_string();
    switch (e.kind) {
      case ir::ErrorKind::Undefined:
        // Known gap: analyze() reports `undefined` before checking the
        // number of result names; PyTorch runs the op, then Python's
        // unpacking fails (kind name). Counted, not failed.
        if (!t.ok && t.kind == "name") return "";
        // The oracle stops at the undefined statement, PyTorch runs it and
        // may fail at a later one the oracle never reached.
        if (!t.ok && e.line > 0 && t.line > e.line) return "";
        return t.ok ? "" : ok + "; " + describe(t) + " (expected it to run)";
      case ir::ErrorKind::Dtype:
      case ir::ErrorKind::Version:
        // An i64/bool tensor where the format takes f32 data (or the other
        // way round), or a statement PyTorch 1.13 runs and 2.x refuses:
        // outside the format, like resize; PyTorch may run it.
      case ir::ErrorKind::Retired:
        // A name used after a metadata op re-shaped its tensor (format
        // v1.3): PyTorch reads it with the new geometry, which the format
        // does not follow.
      case ir::ErrorKind::Resize:
        // out= resizing is outside the format: PyTorch resizes the out
        // tensor (or raises when its storage cannot grow) and goes on with
        // shapes the oracle does not follow; anything from that line on is
        // PyTorch's business.
        if (t.ok || t.line == 0 || t.line >= e.line) return "";
        return ok + "; " + describe(t) + " (before the resize)";
      case ir::ErrorKind::Limit:
      case ir::ErrorKind::Syntax:
        return "";  // not PyTorch's business
      // name (a wrong number of result names): Python's unpacking error.
      default:
        if (t.ok) return ok + "; but PyTorch ran it";
        if (t.kind != ir::kind_name(e.kind)) return ok + "; " + describe(t);
        if (t.line != 0 && t.line != e.line) return ok + "; " + describe(t) + " (line differs)";
        return "";
    }
  }
  Observables o = run_eager(p, *an);
  if (!t.ok) return "oracle ran it; " + describe(t);
  if (auto m = compare(p, o, t.obs)) {
    std::ostringstream s;
    s << "values differ: " << m->observable << "[" << m->index << "] oracle " << m->expected << " torch " << m->actual
      << " " << m->what;
    return s.str();
  }
  return "";
}

}  // namespace af::oracles
