// Replays the regression corpus: every corpus/regressions/*.af is a valid
// program and, for its recorded spec, still shows its recorded verdict
// (agreement for must-agree strategies, the recorded bucket otherwise).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "check/files.h"
#include "triage/repro.h"

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

struct Replayed {
  int pass = 0, fail = 0;
  std::string skipped;  // cases whose strategy is not installed here, with why
};

Replayed replay_all() {
  namespace fs = std::filesystem;
  const std::string dir = regressions_dir();
  std::vector<std::string> files;
  if (!dir.empty())
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".af") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  // A missing or empty folder is a broken checkout, not a pass.
  EXPECT_FALSE(files.empty()) << "no regression cases found (corpus/regressions)";
  Replayed r;
  for (const auto& f : files) {
    std::string text, err, detail;
    EXPECT_TRUE(read_text(f, &text)) << f;
    auto c = parse_regression(text, &err);
    if (!c) {
      ADD_FAILURE() << f << ": " << err;
      ++r.fail;
      continue;
    }
    switch (replay(*c, &detail)) {
      case Replay::Pass: ++r.pass; break;
      case Replay::Skipped: r.skipped += "\n  " + f + ": " + detail; break;
      case Replay::Fail:
        ADD_FAILURE() << f << ": " << detail;
        ++r.fail;
        break;
    }
  }
  return r;
}

TEST(Regressions, EveryCaseKeepsItsVerdict) {
  const Replayed r = replay_all();
  std::printf("regression cases: %d pass, %d fail\n", r.pass, r.fail);
  EXPECT_GT(r.pass, 0);
}

// The cases of strategies that are not installed here are reported as
// skipped (not as passes).
TEST(Regressions, CasesOfUninstalledStrategies) {
  const Replayed r = replay_all();
  if (!r.skipped.empty()) GTEST_SKIP() << "skipped: strategy not installed:" << r.skipped;
}

}  // namespace
}  // namespace af::fuzz
