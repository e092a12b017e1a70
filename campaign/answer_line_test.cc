#include "campaign/answer_line.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace af::fuzz {
namespace {

TEST(AnswerLine, RoundTripsExactly) {
  RoutineAnswer a;
  a.k = 18446744073709551615ull;
  a.tier_ms = {{"interp", 0.1 + 0.2}, {"oracle", 1e-300}, {"host", 123456.78901234567}, {"zero", 0.0}};
  a.repeats = {{"update_aliases__reordered__fused__return__may-alias", 3}, {"none__a:b", 1}};
  const auto line = encode_routine(a);
  ASSERT_TRUE(line);
  EXPECT_TRUE(is_routine_line(*line));
  const auto b = decode_routine(*line);
  ASSERT_TRUE(b) << *line;
  EXPECT_EQ(b->k, a.k);
  EXPECT_EQ(b->tier_ms, a.tier_ms);  // bit for bit: to_chars then from_chars
  EXPECT_EQ(b->repeats, a.repeats);
}

TEST(AnswerLine, NoTiersNoRepeats) {
  const auto line = encode_routine(RoutineAnswer{7, {}, {}});
  ASSERT_TRUE(line);
  EXPECT_EQ(*line, "~7");
  const auto b = decode_routine(*line);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->k, 7u);
  EXPECT_TRUE(b->tier_ms.empty() && b->repeats.empty());
}

TEST(AnswerLine, WhatCannotBeWrittenIsRefused) {
  for (const char* bad : {"a\tb", "a=b", "a\nb", "a\rb", ""}) {
    EXPECT_FALSE(encode_routine(RoutineAnswer{1, {{bad, 1.0}}, {}})) << bad;
    EXPECT_FALSE(encode_routine(RoutineAnswer{1, {}, {{bad, 1}}})) << bad;
  }
  EXPECT_FALSE(encode_routine(RoutineAnswer{1, {{"t", std::numeric_limits<double>::quiet_NaN()}}, {}}));
  EXPECT_FALSE(encode_routine(RoutineAnswer{1, {{"t", INFINITY}}, {}}));
  EXPECT_FALSE(encode_routine(RoutineAnswer{1, {}, {{"b", 0}}}));
  EXPECT_FALSE(encode_routine(RoutineAnswer{1, {}, {{"b", -2}}}));
}

TEST(AnswerLine, MalformedLinesDoNotDecode) {
  for (const char* bad : {"",
                          "~",
                          "~x",
                          "~-1",
                          "~1\t",
                          "~1\tt:a",
                          "~1\tt:=1",
                          "~1\tt:a=",
                          "~1\tt:a=1x",
                          "~1\tt:a=nan",
                          "~1\tt:a=inf",
                          "~1\tt:a=1e999",
                          "~1\tr:b=0",
                          "~1\tr:b=-1",
                          "~1\tr:b=1.5",
                          "~1\tq:b=1",
                          "~1\tr:b=99999999999999999999",
                          "~123456789012345678901",
                          "~18446744073709551616",
                          "{\"k\": 1}",
                          "~1\t\tt:a=1",
                          "~1 t:a=1",
                          "~1\tta=1"}) {
    EXPECT_FALSE(decode_routine(bad)) << "'" << bad << "'";
  }
}

TEST(AnswerLine, JsonIsNotARoutineLine) {
  EXPECT_FALSE(is_routine_line("{\"k\":1,\"valid\":true}"));
  EXPECT_FALSE(is_routine_line(""));
}

}  // namespace
}  // namespace af::fuzz
