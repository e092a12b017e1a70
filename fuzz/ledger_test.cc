// The findings ledger (corpus/findings): every entry parses, and replays
// as its status says when its compiler is installed: `new` and `known`
// entries still diverge the same way, `fixed` ones agree. A new Thunder or
// PyTorch shows here at once which bugs it fixed.
#include "fuzz/ledger.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "fuzz/minimize.h"
#include "fuzz/signature.h"

namespace af::fuzz {
namespace {

std::string ledger_dir() {
  for (const char* v : {"TEST_SRCDIR", "AF_ROOT"})
    if (const char* e = std::getenv(v)) {
      const std::string d = std::string(e) + (std::string(v) == "TEST_SRCDIR" ? "/aliasfuzz" : "") + "/corpus/findings";
      if (std::filesystem::is_directory(d)) return d;
    }
  return "";
}

TEST(Ledger, EveryEntryParses) {
  const std::string dir = ledger_dir();
  ASSERT_FALSE(dir.empty()) << "corpus/findings not found";
  std::vector<std::string> errors;
  const auto entries = load_ledger(dir, &errors);
  EXPECT_TRUE(errors.empty()) << errors.front();
  EXPECT_GE(entries.size(), 3u);  // an empty ledger is a broken checkout, not a pass
}

TEST(Ledger, HeaderErrorsAreNamed) {
  std::string err;
  EXPECT_FALSE(parse_ledger_entry("x", "aliasfuzz 1\nstorage s0 f32[1] = full(0.0)\ninput x0 = s0\nreturn x0\n", &err));
  EXPECT_NE(err.find("header"), std::string::npos) << err;
  const std::string head = "# aliasfuzz finding: c\n# system: s\n# strategy: thunder\n# what: values\n";
  const std::string prog = "aliasfuzz 1\nstorage s0 f32[1] = full(0.0)\ninput x0 = s0\nreturn x0\n";
  EXPECT_FALSE(parse_ledger_entry("x", head + "# status: known\n" + prog, &err));
  EXPECT_NE(err.find("reference"), std::string::npos) << err;
  EXPECT_FALSE(parse_ledger_entry("x", head + "# status: maybe\n" + prog, &err));
  auto e = parse_ledger_entry("x", head + "# status: known https://example.org/1\n" + prog, &err);
  ASSERT_TRUE(e) << err;
  EXPECT_EQ(e->status, "known");
  EXPECT_EQ(e->reference, "https://example.org/1");
}

TEST(Ledger, EntriesReplayAsTheirStatusSays) {
  const std::string dir = ledger_dir();
  ASSERT_FALSE(dir.empty());
  int replayed = 0;
  std::string unavailable;
  for (const LedgerEntry& e : load_ledger(dir, nullptr)) {
    auto r = run_spec(e.program, e.spec);
    if (!r) {  // its compiler is not installed here
      unavailable += " " + e.name + " (" + e.spec.strategy + ")";
      continue;
    }
    ++replayed;
    if (e.status == "fixed") {
      EXPECT_TRUE(r->agree) << e.name << ": marked fixed in " << e.reference << " but diverges again";
      continue;
    }
    EXPECT_FALSE(r->agree) << e.name << ": marked " << e.status << " but " << e.system
                           << " no longer diverges: fixed? update its status";
    if (r->agree) continue;
    const std::string what = bug_what(*r);
    EXPECT_EQ(what, e.what) << e.name << ": diverges another way now: " << r->error;
  }
  if (replayed == 0) GTEST_SKIP() << "skipped: no compiler of the ledger is installed here:" << unavailable;
}

}  // namespace
}  // namespace af::fuzz
