// A bucket's name and its struct, both ways: reports read the parts back
// with Bucket::parse instead of splitting names.
#include "check/bucket.h"

#include <gtest/gtest.h>

namespace af::fuzz {
namespace {

TEST(Bucket, NamesRoundTrip) {
  RunRecord r;
  r.spec = run::spec_of({"", "ua-writes-only", "random:3", "greedy"});
  r.agree = false;
  r.mismatch = oracles::Mismatch{"return 0", 0, 1.0f, 0.0f, ""};
  r.op = "add_";
  const Bucket b = Bucket::of(r);
  EXPECT_EQ(b.to_string(), "update_aliases-ordered+ua-writes-only__reordered__fused__return__inplace");
  EXPECT_EQ(bucket_of(r), b.to_string());
  const auto back = Bucket::parse(b.to_string());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->who, "update_aliases-ordered+ua-writes-only");
  EXPECT_EQ(back->what, "return");
  EXPECT_EQ(back->op, "inplace");
}

TEST(Bucket, RunnerFailuresAndPySpecsParse) {
  RunRecord r;
  r.spec = run::spec_of({"py:toy.mod:f@/usr//bin/python3"});
  r.agree = false;
  r.error = "external runner crash: the Python process died (SIGSEGV)";
  const Bucket b = Bucket::of(r);
  EXPECT_EQ(b.what, "runner-crash-SIGSEGV");
  EXPECT_EQ(b.op, "");
  const auto back = Bucket::parse(b.to_string());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->who, b.who);  // "py_toy.mod_f@_usr__bin_python3": its "__" stays in who
  EXPECT_EQ(back->to_string(), b.to_string());
  EXPECT_FALSE(Bucket::parse("crash"));
  EXPECT_FALSE(Bucket::parse("timeout"));
}

}  // namespace
}  // namespace af::fuzz
