// Builder::emit_source: a source statement re-emitted over arguments the
// shape rule cannot tell from the source's takes its results from the
// source analysis; any difference the rule can see (storage sharing, a
// storage's size, geometry) sends it through ir::infer again. Each case is
// built twice, with the source analysis and without it (always inferred):
// the results and the errors must be the same.
#include <gtest/gtest.h>

#include <functional>

#include "ir/analysis.h"
#include "schedulers/passes.h"

namespace af::schedulers {
namespace {

using ir::Arg;
using ir::OpKind;

// Inputs: x over s0 at 0, z over s1 at 1 (same geometry as a view of s0 at
// 1, which partly overlaps x). Statements: 0 `add_(x, z)` (unbound),
// 1 `a = add(x, z)`, 2 `v = as_strided(z, [2], [1], 13)` (in bounds of
// s1's 16 elements only).
const char* kSource =
    "aliasfuzz 1\n"
    "storage s0 f32[16] = iota(0.0, 1.0)\n"
    "storage s1 f32[16] = iota(0.0, 1.0)\n"
    "input x = as_strided(s0, [4], [1], 0)\n"
    "input z = as_strided(s1, [4], [1], 1)\n"
    "add_(x, z)\n"
    "a = add(x, z)\n"
    "v = as_strided(z, [2], [1], 13)\n"
    "return a, v\n";

struct Built {
  std::vector<ir::TensorMeta> metas;  // of every value defined
  std::string error;
};

// Runs `steps` on a Builder over the source, with or without its analysis.
Built build(const ir::Program& p, const ir::Analysis* an, const std::function<void(Builder&)>& steps) {
  Builder b(p, an);
  steps(b);
  Built r;
  r.error = b.error();
  for (int v = 0; v < b.program().num_values(); ++v) r.metas.push_back(b.meta(v));
  return r;
}

void expect_same(const Built& with, const Built& without) {
  EXPECT_EQ(with.error, without.error);
  ASSERT_EQ(with.metas.size(), without.metas.size());
  for (size_t v = 0; v < with.metas.size(); ++v) {
    EXPECT_EQ(with.metas[v].g, without.metas[v].g) << "value " << v;
    EXPECT_EQ(with.metas[v].storage, without.metas[v].storage) << "value " << v;
    EXPECT_EQ(with.metas[v].storage_numel, without.metas[v].storage_numel) << "value " << v;
    EXPECT_EQ(with.metas[v].impl, without.metas[v].impl) << "value " << v;
  }
}

class EmitSource : public ::testing::Test {
 protected:
  void SetUp() override {
    auto p = ir::parse_and_validate(kSource);
    ASSERT_TRUE(p.ok()) << p.error().to_string();
    p_ = *p;
    auto an = ir::analyze(p_);
    ASSERT_TRUE(an.ok());
    an_ = *an;
  }
  // Both builds of `steps`, checked equal; the one with the analysis returned.
  Built both(const std::function<void(Builder&)>& steps) {
    const Built with = build(p_, &an_, steps), without = build(p_, nullptr, steps);
    expect_same(with, without);
    return with;
  }
  ir::Program p_;
  ir::Analysis an_;
  const int x_ = 0, z_ = 1;
};

TEST_F(EmitSource, SameArgumentsGiveTheSourceResults) {
  const Built b = both([&](Builder& b) {
    b.emit_source(0, {}, {Arg::tensor(x_), Arg::tensor(z_)}, false);
    b.emit_source(1, {b.value(2)}, {Arg::tensor(x_), Arg::tensor(z_)}, false);
    b.emit_source(2, {b.value(3)}, {Arg::tensor(z_), Arg::ints({2}), Arg::ints({1}), Arg::integer(13)}, false);
  });
  EXPECT_EQ(b.error, "");
  for (int v = 0; v < 4; ++v) EXPECT_EQ(b.metas[v].g, an_.values[v].g) << v;
}

TEST_F(EmitSource, AnUnboundInPlaceResultBoundHereIsTheWrittenTensor) {
  const Built b = both([&](Builder& b) {
    b.emit_source(0, {b.value("r", false)}, {Arg::tensor(x_), Arg::tensor(z_)}, false);
  });
  EXPECT_EQ(b.metas.back().impl, b.metas[x_].impl);
  EXPECT_EQ(b.metas.back().storage, b.metas[x_].storage);
}

// w has z's geometry and storage size but x's storage, partly overlapping
// x: the in-place add is refused (PyTorch's partial-overlap check), which
// only inference can see.
TEST_F(EmitSource, AnotherStorageSharingIsInferredAgain) {
  const Built b = both([&](Builder& b) {
    const int w =
        b.emit1(OpKind::AsStrided, "w", {Arg::tensor(x_), Arg::ints({4}), Arg::ints({1}), Arg::integer(1)}, 0, true);
    ASSERT_EQ(b.meta(w).g, an_.values[z_].g);
    ASSERT_EQ(b.meta(w).storage_numel, an_.values[z_].storage_numel);
    b.emit_source(0, {}, {Arg::tensor(x_), Arg::tensor(w)}, false);
  });
  EXPECT_NE(b.error.find("add_"), std::string::npos) << b.error;
}

// u has z's geometry on a storage of 8 elements: as_strided at offset 13
// is out of its bounds.
TEST_F(EmitSource, AnotherStorageSizeIsInferredAgain) {
  const Built b = both([&](Builder& b) {
    const int f = b.emit1(OpKind::Full, "f", {Arg::ints({8}), Arg::number(0.0)}, 0, true);
    const int u =
        b.emit1(OpKind::AsStrided, "u", {Arg::tensor(f), Arg::ints({4}), Arg::ints({1}), Arg::integer(1)}, 0, true);
    ASSERT_EQ(b.meta(u).g, an_.values[z_].g);
    b.emit_source(2, {b.value(3)}, {Arg::tensor(u), Arg::ints({2}), Arg::ints({1}), Arg::integer(13)}, false);
  });
  EXPECT_NE(b.error.find("as_strided"), std::string::npos) << b.error;
}

TEST_F(EmitSource, AnotherGeometryIsInferredAgain) {
  int a = -1;
  const Built b = both([&](Builder& b) {
    const int y = b.emit1(OpKind::AsStrided, "y",
                          {Arg::tensor(x_), Arg::ints({2, 2}), Arg::ints({2, 1}), Arg::integer(0)}, 0, true);
    const int y2 = b.emit1(OpKind::AsStrided, "y2",
                           {Arg::tensor(z_), Arg::ints({2, 2}), Arg::ints({2, 1}), Arg::integer(1)}, 0, true);
    a = b.value(2);
    b.emit_source(1, {a}, {Arg::tensor(y), Arg::tensor(y2)}, false);
  });
  EXPECT_EQ(b.error, "");
  EXPECT_EQ(b.metas[a].g.sizes, (ir::Shape{2, 2}));
}

}  // namespace
}  // namespace af::schedulers
