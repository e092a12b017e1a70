// Issue #38: `undefined` is real order dependence, per element. The two
// programs of the issue run; the exact test agrees with a brute-force one
// on random geometries; `arg` comes before `undefined`.
#include <gtest/gtest.h>

#include <random>

#include "ir/analysis.h"
#include "ir/geometry.h"
#include "ir/text.h"

namespace af::ir {
namespace {

std::optional<Error> error_of(const std::string& text) {
  auto p = parse(text);
  EXPECT_TRUE(p.ok()) << text;
  if (!p.ok()) return p.error();
  auto an = analyze(*p);
  if (an.ok()) return std::nullopt;
  return an.error();
}

TEST(Undefined, IssueProgramsRun) {
  EXPECT_FALSE(error_of("aliasfuzz 1\nstorage s0 f32[8] = iota(0, 1)\ninput x = as_strided(s0, [2], [1], 0)\n"
                        "input y = as_strided(s0, [2], [4], 0)\nadd_(x, y)\nreturn x\n"));
  EXPECT_FALSE(error_of("aliasfuzz 1\nstorage s0 f32[8] = iota(0, 1)\nstorage ix i64[1] = [2]\n"
                        "input x = as_strided(s0, [3], [3], 0)\ninput src = as_strided(s0, [8], [1], 0)\n"
                        "input i = ix\nscatter_add_(x, 0, i, src)\nreturn x\n"));
}

TEST(Undefined, ReadOfAnotherPositionsWrite) {
  auto e = error_of("aliasfuzz 1\nstorage s0 f32[8] = iota(0, 1)\ninput x = as_strided(s0, [2], [2], 0)\n"
                    "input y = as_strided(s0, [2], [2], 2)\nadd_(x, y)\nreturn x\n");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ErrorKind::Undefined);
  EXPECT_EQ(e->line, 5);
}

TEST(Undefined, ArgBeforeUndefined) {
  auto e = error_of("aliasfuzz 1\nstorage s0 f32[9] = iota(0, 1)\nstorage ix i64[2] = [0, 5]\n"
                    "input x = as_strided(s0, [3], [3], 0)\ninput src = as_strided(s0, [2], [3], 3)\n"
                    "input i = ix\nscatter_(x, 0, i, src)\nreturn x\n");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ErrorKind::Arg);
  // In range, the source reads element 3, which index 1 writes: undefined.
  e = error_of("aliasfuzz 1\nstorage s0 f32[9] = iota(0, 1)\nstorage ix i64[2] = [0, 1]\n"
               "input x = as_strided(s0, [3], [3], 0)\ninput src = as_strided(s0, [2], [3], 3)\n"
               "input i = ix\nscatter_(x, 0, i, src)\nreturn x\n");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ErrorKind::Undefined);
  // Index 2 instead: element 3 is read, never written.
  EXPECT_FALSE(error_of("aliasfuzz 1\nstorage s0 f32[9] = iota(0, 1)\nstorage ix i64[2] = [0, 2]\n"
                        "input x = as_strided(s0, [3], [3], 0)\ninput src = as_strided(s0, [2], [1], 3)\n"
                        "input i = ix\nscatter_(x, 0, i, src)\nreturn x\n"));
}

TEST(Undefined, IndexAddSliceOverlapIsOverlap) {
  // PyTorch 1.13's index_add_ of a 2-d target checks x.select(0, 0)
  // against src.select(0, 0) (dense, partly overlapping): overlap.
  auto e = error_of("aliasfuzz 1\nstorage s0 f32[16] = iota(0, 1)\nstorage ix i64[1] = [1]\n"
                    "input x = as_strided(s0, [2, 3], [5, 1], 0)\ninput src = as_strided(s0, [1, 3], [1, 1], 1)\n"
                    "input i = ix\nindex_add_(x, 0, i, src)\nreturn x\n");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ErrorKind::Overlap);
}

// The exact test against the definition, on random small geometries.
TEST(Undefined, ReadsWrittenElsewhereIsExact) {
  std::mt19937 rng(38);
  int hits = 0;
  for (int t = 0; t < 20000; ++t) {
    const int r = 1 + rng() % 3;
    Shape sizes(r), ws(r), rs(r);
    for (int d = 0; d < r; ++d) {
      sizes[d] = 1 + rng() % 4;
      ws[d] = rng() % 5;
      rs[d] = rng() % 5;
    }
    const Geometry w{sizes, ws, static_cast<int64_t>(rng() % 6)};
    const Geometry rd{sizes, rs, static_cast<int64_t>(rng() % 6)};
    if (has_exact_internal_overlap(w)) continue;
    std::vector<int64_t> wo, ro;
    for_each_offset(w, [&](int64_t o) { wo.push_back(o); });
    for_each_offset(rd, [&](int64_t o) { ro.push_back(o); });
    bool naive = false, naive_copy = false;
    for (size_t p = 0; p < ro.size(); ++p)
      for (size_t q = 0; q < wo.size(); ++q)
        if (p != q && ro[p] == wo[q]) {
          naive = true;
          naive_copy = naive_copy || ro[q] != wo[q];  // a copy of an element onto itself writes nothing new
        }
    EXPECT_EQ(reads_written_elsewhere(w, rd), naive);
    EXPECT_EQ(reads_written_elsewhere(w, rd, true), naive_copy);
    hits += naive;
  }
  EXPECT_GT(hits, 1000);
}

}  // namespace
}  // namespace af::ir
