// Shared helpers of the lowering tests (no Halide here).
#pragma once
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ir/analysis.h"
#include "ir/text.h"

namespace af::lowering::testing {

struct Case {
  std::string path;
  ir::Program program;
};

// Every valid program under the corpus directories of the runfiles.
inline std::vector<Case> corpus_cases() {
  std::vector<Case> out;
  std::vector<std::string> paths;
  for (const char* root : {"corpus"}) {
    if (!std::filesystem::exists(root)) continue;
    for (const auto& e : std::filesystem::recursive_directory_iterator(
             root, std::filesystem::directory_options::follow_directory_symlink))
      if (e.path().extension() == ".af") paths.push_back(e.path().string());
  }
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    auto prog = ir::parse_and_validate(ss.str());
    if (prog) out.push_back({p, *prog});
  }
  return out;
}

}  // namespace af::lowering::testing
