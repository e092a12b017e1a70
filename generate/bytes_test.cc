// The libFuzzer decoder: any bytes give a valid program; text inputs are
// programs; decoding is deterministic.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "generate/bytes.h"
#include "ir/analysis.h"
#include "ir/text.h"

namespace af::fuzz {
namespace {

RC_GTEST_PROP(Bytes, AnyBytesDecodeToAValidProgram, (const std::vector<uint8_t>& bytes)) {
  RC_PRE(!is_text_input(bytes.data(), bytes.size()));
  auto p = decode_input(bytes.data(), bytes.size());
  RC_ASSERT(p.ok());
  auto an = ir::analyze(*p);
  RC_ASSERT(an.ok());
  // Deterministic: the same bytes, the same program.
  auto q = decode_input(bytes.data(), bytes.size());
  RC_ASSERT(ir::print(*p) == ir::print(*q));
}

TEST(Bytes, MutatedBytesStillDecode) {
  std::vector<uint8_t> b(300);
  uint64_t s = 7;
  for (int round = 0; round < 2000; ++round) {
    for (auto& x : b) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      x = static_cast<uint8_t>(s >> 56);
    }
    b.resize(1 + (s >> 20) % 300);
    auto p = decode_input(b.data(), b.size());
    ASSERT_TRUE(p.ok());
    ASSERT_TRUE(ir::analyze(*p).ok()) << ir::print(*p);
  }
}

TEST(Bytes, CorpusFilesAreTextInputs) {
  int n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator("corpus")) {
    if (e.path().extension() != ".af") continue;
    std::ifstream in(e.path());
    std::stringstream s;
    s << in.rdbuf();
    const std::string t = s.str();
    const auto* d = reinterpret_cast<const uint8_t*>(t.data());
    EXPECT_TRUE(is_text_input(d, t.size())) << e.path();
    auto p = decode_input(d, t.size());
    auto q = ir::parse_and_validate(t);
    EXPECT_EQ(p.ok(), q.ok()) << e.path();
    ++n;
  }
  EXPECT_GT(n, 5);
}

}  // namespace
}  // namespace af::fuzz
