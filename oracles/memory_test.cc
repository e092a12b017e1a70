// The arena the executors run against (oracles/memory.h): storages are
// disjoint slices, reuse leaves nothing of an earlier run behind, and the
// generator's grow / roll back / resize keep every other storage intact.
#include "oracles/memory.h"

#include <gtest/gtest.h>

#include "ir/text.h"
#include "oracles/eager.h"

namespace af::oracles {
namespace {

std::vector<float> values(ConstFloats s) { return s.to_vector(); }

TEST(Memory, LayoutGivesDisjointZeroedStorages) {
  Memory m(std::vector<int64_t>{3, 0, 2});
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(values(m[0]), std::vector<float>(3, 0.f));
  EXPECT_TRUE(m[1].empty());
  for (size_t i = 0; i < 3; ++i) m[0][i] = 1.f + i;
  m[2][0] = 9.f;
  EXPECT_EQ(values(m[0]), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(values(m[2]), (std::vector<float>{9, 0}));
}

#ifndef NDEBUG
// Slices share one allocation, so ASan would not catch an index past a
// storage's end: Span checks it wherever NDEBUG is off.
TEST(MemoryDeathTest, IndexPastAStorageAborts) {
  Memory m(std::vector<int64_t>{2, 2});
  EXPECT_DEATH(m[0][2] = 1.f, "out of range");
}
#endif

TEST(Memory, LayoutAgainForgetsTheLastRun) {
  Memory m(std::vector<int64_t>{4});
  for (auto& x : m[0]) x = 7.f;
  m.layout({2, 3});
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(values(m[0]), std::vector<float>(2, 0.f));
  EXPECT_EQ(values(m[1]), std::vector<float>(3, 0.f));
}

TEST(Memory, AppendTruncateResetKeepTheOtherStorages) {
  Memory m;
  EXPECT_EQ(m.size(), 0u);
  EXPECT_EQ(m.append(2), 0);
  EXPECT_EQ(m.append(1), 1);
  EXPECT_EQ(m.append(3), 2);
  m[0][1] = 1.f;
  m[1][0] = 2.f;
  m[2][2] = 3.f;
  m.reset(1, 4);  // grows the middle one: the last moves, its values with it
  EXPECT_EQ(values(m[0]), (std::vector<float>{0, 1}));
  EXPECT_EQ(values(m[1]), std::vector<float>(4, 0.f));
  EXPECT_EQ(values(m[2]), (std::vector<float>{0, 0, 3}));
  m.reset(1, 1);  // and shrinks it
  EXPECT_EQ(m[1].size(), 1u);
  EXPECT_EQ(values(m[2]), (std::vector<float>{0, 0, 3}));
  m.truncate(1);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(values(m[0]), (std::vector<float>{0, 1}));
  EXPECT_EQ(m.append(2), 1);  // a storage appended after a rollback starts at zero
  EXPECT_EQ(values(m[1]), std::vector<float>(2, 0.f));
}

// run_eager reuses one arena per thread: a run after a larger program's
// run must see nothing of it.
TEST(Memory, EagerRunsDoNotSeeEachOther) {
  const char* big = R"(aliasfuzz 1
storage s0 f32[24] = iota(0, 1)
input x = as_strided(s0, [24], [1], 0)
y = mul(x, 3.0)
z = exp(y)
return z
)";
  const char* gaps = R"(aliasfuzz 1
storage s0 f32[8] = full(2.0)
input x = as_strided(s0, [2, 2], [4, 2], 0)
c = clone(x)
d = t(c)
return d
)";
  auto pb = ir::parse(big), pg = ir::parse(gaps);
  ASSERT_TRUE(pb) << pb.error().message;
  ASSERT_TRUE(pg) << pg.error().message;
  const auto first = run_eager(*pg);
  ASSERT_TRUE(first);
  ASSERT_TRUE(run_eager(*pb));
  const auto again = run_eager(*pg);
  ASSERT_TRUE(again);
  EXPECT_FALSE(compare(*pg, *first, *again));
  EXPECT_EQ(first->returns[0].v, (std::vector<float>{2, 2, 2, 2}));
}

}  // namespace
}  // namespace af::oracles
