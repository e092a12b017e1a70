// Shared helpers of the lowering tests (no Halide here).
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ir/analysis.h"
#include "ir/text.h"
#include "lowering/lowering.h"

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

// corpus_cases() but the programs the lowering refuses
// (unsupported_reason: the ops it does not implement), which are
// counted and printed, never silently dropped; host_test checks their
// refusal.
inline std::vector<Case> lowerable_corpus_cases() {
  std::vector<Case> out;
  size_t refused = 0;
  for (auto& c : corpus_cases()) {
    if (unsupported_reason(c.program).empty())
      out.push_back(std::move(c));
    else
      ++refused;
  }
  std::printf(
      "corpus: %zu programs the lowering runs, %zu it refuses as unsupported left out (host_test checks "
      "the refusal)\n",
      out.size(), refused);
  return out;
}

// The suite's default budget samples its slowest loops (issue #59: the
// whole suite within 30 minutes on a 2-core machine); AF_TEST_FULL=1
// (`./aliasfuzz test --full`) runs them whole. A sampled loop says so.
inline bool full_budget() {
  const char* e = std::getenv("AF_TEST_FULL");
  return e && *e && std::string(e) != "0";
}

// Every `stride`-th case from `first` + AF_TEST_SAMPLE_OFFSET (default 0:
// the same sample every run), all of them with the full budget. Two tests
// that check the same thing on the same cases take different `first`s.
inline std::vector<Case> sampled(const std::vector<Case>& all, size_t stride, const char* what, size_t first = 0) {
  if (full_budget() || stride <= 1) return all;
  const char* fixed = std::getenv("AF_TEST_SAMPLE_OFFSET");
  const size_t asked = fixed && *fixed ? static_cast<size_t>(std::atoll(fixed)) : 0;
  const size_t offset = (first + asked) % stride;
  std::vector<Case> out;
  for (size_t i = offset; i < all.size(); i += stride) out.push_back(all[i]);
  std::printf(
      "%s: every %zuth of %zu cases from offset %zu (AF_TEST_SAMPLE_OFFSET=%zu repeats it; AF_TEST_FULL=1 "
      "runs all)\n",
      what, stride, all.size(), offset, asked);
  return out;
}

// The full count, or the default budget's.
inline int budget(int full, int sampled_count) { return full_budget() ? full : std::min(full, sampled_count); }

// The oracle's per-statement values of a valid program.
inline Expected expected_of(const ir::Program& p) { return expected_values(p, *ir::analyze(p)); }

// The statements that have a (non-empty) expected value: what checked mode checks.
inline std::vector<int> checked_stmts(const Expected& e) {
  std::vector<int> out;
  for (size_t i = 0; i < e.by_stmt.size(); ++i)
    if (e.by_stmt[i] && !e.by_stmt[i]->v.empty()) out.push_back(static_cast<int>(i));
  return out;
}

// Shapes the generator rarely makes: empty dims, 0-d tensors, broadcasting
// of size-1 dims, rank 5, expanded fill_, cat with an empty part, matmul
// with k = 0, reductions over an empty dim.
inline std::vector<ir::Program> edge_cases() {
  static const char* const cases[] = {
      "storage s0 f32[6] = iota(1, 1)\ninput x = as_strided(s0, [0, 3], [3, 1], 0)\ny = sum(x, 0, 0)\nreturn y\n",
      "storage s0 f32[6] = iota(1, 1)\ninput x = as_strided(s0, [2, 0], [3, 1], 0)\n"
      "input z = as_strided(s0, [0, 2], [2, 1], 0)\ny = matmul(x, z)\nreturn y\n",
      "storage s0 f32[6] = iota(1, 1)\ninput x = as_strided(s0, [2, 3], [3, 1], 0)\n"
      "e = slice(x, 0, 2, 2, 1)\ny = cat([x, e, x], 0)\nreturn y\n",
      "storage s0 f32[6] = iota(1, 1)\ninput x = as_strided(s0, [2, 3], [3, 1], 0)\n"
      "a = select(x, 0, 1)\nb = select(a, 0, 2)\nc = add(x, b)\nmul_(b, 3.0)\nd = sum(b, 0, 0)\nreturn c, d, b\n",
      "storage s0 f32[6] = iota(1, 1)\ninput x = as_strided(s0, [2, 1, 3], [3, 3, 1], 0)\n"
      "input y = as_strided(s0, [1, 4, 1], [0, 1, 0], 1)\nc = mul(x, y)\nreturn c\n",
      "storage s0 f32[4] = iota(1, 1)\ninput x = as_strided(s0, [3, 4], [0, 1], 0)\nfill_(x, 2.5)\nreturn x\n",
      "storage s0 f32[32] = random(5)\ninput x = as_strided(s0, [2, 2, 2, 2, 2], [16, 8, 4, 2, 1], 0)\n"
      "y = permute(x, [4, 3, 2, 1, 0])\nexp_(y)\nz = softmax(y, 2)\nw = amax(z, -1, 1)\nreturn w, x\n",
      "storage s0 f32[9] = random(6)\ninput x = as_strided(s0, [3, 3], [3, 1], 0)\nd = diagonal(x, 0, 0, 1)\n"
      "neg_(d)\nt0 = t(x)\nr = reshape(t0, [9])\nsetitem_(x, 1, 0, 2, 7.0)\nreturn r, x\n",
      // *_scatter results keep a dense base's strides (PyTorch's preserve
      // format): as_strided_scatter's slot is then column-major positions.
      "storage s0 f32[6] = iota(0, 1)\nstorage s1 f32[2] = [10.0, 20.0]\n"
      "input x = as_strided(s0, [2, 3], [3, 1], 0)\ninput y = s1\nt0 = t(x)\n"
      "r = as_strided_scatter(t0, y, [2], [1], 0)\nq = slice_scatter(r, r, 0, 0, 3, 1)\nadd_(q, 1.0)\n"
      "u = select(q, 1, 0)\nreturn r, q, u\n",
  };
  std::vector<ir::Program> out;
  for (const char* body : cases) {
    auto p = ir::parse_and_validate(std::string("aliasfuzz 1\n") + body);
    if (p) out.push_back(*p);
  }
  return out;
}

}  // namespace af::lowering::testing
