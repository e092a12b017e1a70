// The recall layout pass, before and after as .af text.
#include "ir/relayout.h"

#include <gtest/gtest.h>

#include "ir/analysis.h"
#include "ir/text.h"

namespace af::ir {
namespace {

std::string after(const std::string& before) {
  auto p = parse_and_validate(before);
  EXPECT_TRUE(p) << p.error().to_string();
  auto q = recall_layout(*p);
  if (!q) return "(unchanged)";
  EXPECT_TRUE(analyze(*q)) << print(*q);  // the same statements are valid on the new layout's geometry
  return print(*q);
}

TEST(RecallLayout, AliasedInputsMoveApart) {
  EXPECT_EQ(after("aliasfuzz 1\nstorage s0 f32[8] = random(3)\n"
                  "input x = as_strided(s0, [2, 2], [2, 1], 0)\ninput y = as_strided(s0, [4], [1], 4)\n"
                  "input z = s0\nadd_(x, 1.0)\nreturn y, z\n"),
            "aliasfuzz 1\nstorage s0 f32[8] = random(3)\nstorage s0_2 f32[8] = random(3)\n"
            "storage s0_3 f32[8] = random(3)\n"
            "input x = as_strided(s0, [2, 2], [2, 1], 0)\ninput y = as_strided(s0_2, [4], [1], 4)\n"
            "input z = s0_3\nadd_(x, 1.0)\nreturn y, z\n");
}

TEST(RecallLayout, SeparateInputsMoveTogetherIntoTheLargestStorage) {
  EXPECT_EQ(after("aliasfuzz 1\nstorage s0 f32[4] = iota(0.0, 1.0)\nstorage s1 f32[6] = random(2)\n"
                  "storage m i64[2] = [0, 1]\n"
                  "input x = s0\ninput y = as_strided(s1, [2, 3], [3, 1], 0)\ninput i = m\n"
                  "add_(x, 1.0)\nreturn y\n"),
            "aliasfuzz 1\nstorage s1 f32[6] = random(2)\nstorage m i64[2] = [0, 1]\n"
            "input x = as_strided(s1, [4], [1], 0)\ninput y = as_strided(s1, [2, 3], [3, 1], 0)\ninput i = m\n"
            "add_(x, 1.0)\nreturn y\n");
}

TEST(RecallLayout, NothingToMove) {
  EXPECT_EQ(after("aliasfuzz 1\nstorage s0 f32[4] = random(1)\ninput x = s0\nadd_(x, 1.0)\nreturn x\n"), "(unchanged)");
  EXPECT_EQ(after("aliasfuzz 1\nstorage s0 f32[4] = random(1)\nstorage m i64[2] = [0, 1]\n"
                  "input x = s0\ninput i = m\nreturn x\n"),
            "(unchanged)");
}

TEST(RecallLayout, DirectionIsThatOfTheMove) {
  auto shared =
      parse_and_validate("aliasfuzz 1\nstorage s0 f32[4] = random(1)\ninput x = s0\ninput y = s0\nreturn x\n");
  auto apart = recall_layout(*shared);
  ASSERT_TRUE(apart);
  EXPECT_EQ(recall_direction(*shared), "apart");
  EXPECT_EQ(recall_direction(*apart), "together");
  // Back together: the same sharing as before (one storage, both whole).
  auto back = recall_layout(*apart);
  ASSERT_TRUE(back);
  EXPECT_EQ(print(*back), print(*shared));
}

}  // namespace
}  // namespace af::ir
