// Programs made invalid on purpose (generate/invalid.h, GenOptions::invalid_rate):
// each is rejected with a kind eager PyTorch raises on, at its last
// statement; the rate draws about that fraction; every other program is
// the valid one rate 0 gives; the same seed gives the same programs.
#include "generate/invalid.h"

#include <gtest/gtest.h>

#include <map>

#include "generate/generator.h"
#include "ir/analysis.h"
#include "ir/text.h"

namespace af::fuzz {
namespace {

TEST(Invalid, EveryProgramIsRejectedAtItsLastStatementWithAnEagerKind) {
  GenOptions o;
  o.invalid_rate = 1;
  std::map<std::string, int> kinds;
  int made = 0;
  for (uint64_t k = 0; k < 300; ++k) {
    const ir::Program p = generate(41, k, o);
    auto an = ir::analyze(p);
    if (an) continue;  // no variant failed the right way: the valid program stays
    ++made;
    kinds[ir::kind_name(an.error().kind)]++;
    EXPECT_TRUE(eager_raises(an.error().kind)) << an.error().to_string() << "\n" << ir::print(p);
    ASSERT_FALSE(p.stmts.empty());
    EXPECT_EQ(an.error().line, p.stmts.back().line) << "cut after the failing statement\n" << ir::print(p);
    EXPECT_TRUE(p.has_return && !p.returns.empty());
    // The text is the program: it parses back to one rejected alike.
    auto q = ir::parse(ir::print(p));
    ASSERT_TRUE(q.ok());
    auto an2 = ir::analyze(*q);
    ASSERT_FALSE(an2.ok());
    EXPECT_EQ(an2.error().kind, an.error().kind);
  }
  EXPECT_GE(made, 285) << "nearly every program has a variant eager rejects";
  for (const char* kind : {"overlap", "shape", "view"}) EXPECT_GE(kinds[kind], 10) << kind;
  EXPECT_LT(kinds["arg"], made / 10) << "dims out of range are kept only as a last resort";
}

TEST(Invalid, TheRateDrawsProgramsAndLeavesTheOthersAlone) {
  GenOptions none, some;
  some.invalid_rate = 0.25;
  int invalid = 0;
  const int n = 800;
  for (uint64_t k = 0; k < n; ++k) {
    const ir::Program a = generate(7, k, none), b = generate(7, k, some);
    if (ir::analyze(b)) {
      EXPECT_EQ(ir::print(a), ir::print(b)) << "program " << k;
    } else {
      ++invalid;
      EXPECT_EQ(ir::print(b), ir::print(generate(7, k, some))) << "same seed, same program";
    }
  }
  EXPECT_GT(invalid, n / 4 - 60);
  EXPECT_LT(invalid, n / 4 + 60);
}

TEST(Invalid, VariantChangesOneStatement) {
  const ir::Program p = generate(3, 0, GenOptions());
  int changed = 0;
  for (uint64_t h = 0; h < 40; ++h) {
    const size_t si = h % p.stmts.size();
    const ir::Program v = variant(p, si, h);
    ASSERT_EQ(v.stmts.size(), p.stmts.size());
    int differ = 0;
    for (size_t i = 0; i < p.stmts.size(); ++i) differ += !(v.stmts[i] == p.stmts[i]);
    differ += !(v.storages == p.storages);
    EXPECT_LE(differ, 1);
    changed += differ;
  }
  EXPECT_GT(changed, 20);
}

}  // namespace
}  // namespace af::fuzz
