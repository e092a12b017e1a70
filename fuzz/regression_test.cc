// Replays the regression corpus: every corpus/regressions/*.af is a valid
// program and, for its recorded spec, still shows its recorded verdict
// (agreement for must-agree strategies, the recorded bucket otherwise).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "fuzz/files.h"
#include "fuzz/repro.h"

namespace af::fuzz {
namespace {

std::string regressions_dir() {
  namespace fs = std::filesystem;
  std::vector<std::string> cands;
  if (const char* s = std::getenv("TEST_SRCDIR")) cands.push_back(std::string(s) + "/aliasfuzz/corpus/regressions");
  if (const char* s = std::getenv("AF_ROOT")) cands.push_back(std::string(s) + "/corpus/regressions");
  cands.push_back("corpus/regressions");
  for (const auto& c : cands)
    if (fs::is_directory(c)) return c;
  return "";
}

TEST(Regressions, EveryCaseKeepsItsVerdict) {
  namespace fs = std::filesystem;
  const std::string dir = regressions_dir();
  std::vector<std::string> files;
  if (!dir.empty())
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".af") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  int pass = 0, skipped = 0;
  for (const auto& f : files) {
    std::string text, err, detail;
    ASSERT_TRUE(read_text(f, &text)) << f;
    auto c = parse_regression(text, &err);
    ASSERT_TRUE(c.has_value()) << f << ": " << err;
    switch (replay(*c, &detail)) {
      case Replay::Pass: ++pass; break;
      case Replay::Skipped: ++skipped; std::printf("skipped %s: %s\n", f.c_str(), detail.c_str()); break;
      case Replay::Fail: ADD_FAILURE() << f << ": " << detail; break;
    }
  }
  std::printf("%zu regression cases: %d pass, %d skipped\n", files.size(), pass, skipped);
}

}  // namespace
}  // namespace af::fuzz
