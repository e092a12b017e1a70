// Format v1.5's f64 data (the tenth slice): the oracle's double kernels
// round as IEEE does, the comparison is bit for bit but for NaN payloads,
// and an f64 return crosses the runner's JSON as the same double.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "ir/text.h"
#include "oracles/eager.h"
#include "oracles/json_out.h"
#include "oracles/kernels.h"
#include "oracles/line_process.h"

namespace af::oracles {
namespace {

Dense f64_dense(const std::vector<double>& v) {
  Dense d;
  d.sizes = {static_cast<int64_t>(v.size())};
  d.dtype = ir::Dtype::F64;
  d.v.resize(2 * v.size());
  for (size_t i = 0; i < v.size(); ++i) f64_words(v[i], &d.v[2 * i]);
  return d;
}

double with_payload(uint64_t payload) {
  const uint64_t bits = 0x7ff8000000000000ull | payload;
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

const char* kProgram = R"(aliasfuzz 1
storage s f32[4] = iota(1, 1)
input x = s
d = view(x, f64)
e = add(d, 0.1)
return e
)";

TEST(F64Data, KernelsRoundOnceAndTouchOnlyTheSign) {
  float a[2], b[2], out[2];
  f64_words(0.1, a);
  f64_words(0.2, b);
  f64_binary(ir::Math::Add, a, b, out);
  EXPECT_EQ(f64_value(out), 0.1 + 0.2);  // 0.30000000000000004, not the f32 sum
  f64_binary(ir::Math::Mul, a, b, out);
  EXPECT_EQ(f64_value(out), 0.1 * 0.2);
  const double nan = with_payload(0x1234);
  f64_words(nan, a);
  f64_unary(ir::Math::Neg, a, out);
  uint64_t bits = static_cast<uint64_t>(i64_value(out));
  EXPECT_EQ(bits, 0xfff8000000001234ull) << "neg flips the sign bit only";
  f64_unary(ir::Math::Abs, out, a);
  EXPECT_EQ(static_cast<uint64_t>(i64_value(a)), 0x7ff8000000001234ull) << "abs clears it";
  f64_words(-0.0, a);
  f64_unary(ir::Math::Abs, a, out);
  EXPECT_FALSE(std::signbit(f64_value(out)));
}

TEST(F64Data, CompareIsBitForBitButForNaNPayloads) {
  auto p = ir::parse(kProgram);
  ASSERT_TRUE(p) << p.error().message;
  Observables e, a;
  e.storages = a.storages = {std::vector<float>(4, 0.f)};
  e.returns = {f64_dense({1.0, 0.1 + 0.2})};
  a.returns = {f64_dense({1.0, std::nextafter(0.1 + 0.2, 1.0)})};  // one ulp: no tolerance
  auto m = compare(*p, e, a);
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->f64);
  EXPECT_EQ(m->index, 1);
  EXPECT_EQ(m->expected_f64, 0.1 + 0.2);
  EXPECT_EQ(mismatch_json(*m)["expected"].get<double>(), 0.1 + 0.2);
  a.returns = {f64_dense({-0.0, 0.1 + 0.2})};
  e.returns = {f64_dense({0.0, 0.1 + 0.2})};
  ASSERT_TRUE(compare(*p, e, a)) << "-0.0 and 0.0 differ in bits";
  e.returns = {f64_dense({with_payload(1), 2.0})};
  a.returns = {f64_dense({with_payload(2), 2.0})};
  EXPECT_FALSE(compare(*p, e, a)) << "NaNs agree whatever their payload";
  a.returns = {f64_dense({with_payload(2), 3.0})};
  m = compare(*p, e, a);
  ASSERT_TRUE(m) << "a difference after a NaN is still found";
  EXPECT_EQ(m->index, 1);
}

TEST(F64Data, ReturnsCrossTheRunnersJsonExactly) {
  auto p = ir::parse(kProgram);
  ASSERT_TRUE(p) << p.error().message;
  Observables o;
  o.storages = {std::vector<float>(4, 0.f)};
  o.returns = {f64_dense({0.1, -0.0, std::numeric_limits<double>::infinity(), 1e-310, with_payload(0)})};
  const nlohmann::json j = observables_json(*p, o);
  EXPECT_EQ(j["returns"][0]["dtype"], "f64");
  const Observables back = observables_from_json(*p, nlohmann::json::parse(j.dump()));
  ASSERT_EQ(back.returns.size(), 1u);
  EXPECT_EQ(back.returns[0].dtype, ir::Dtype::F64);
  EXPECT_FALSE(compare(*p, o, back));
  EXPECT_TRUE(std::signbit(f64_value(&back.returns[0].v[2])));
}

}  // namespace
}  // namespace af::oracles
