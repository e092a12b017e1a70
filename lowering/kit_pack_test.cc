// A kit's kernel pack (lowering/kit_pack.h): entries come back byte for
// byte and verify in a KernelStore; a truncated pack yields the entries
// before the damage and says so; a record whose name is not a store file
// name is damage, never a path; a missing pack is an error, not a crash.
// Canonical OpenCL sources (lowering/kernel_source.h): two kernels that
// differ only by Halide's counters become the same text.
#include "lowering/kit_pack.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "base/files.h"
#include "lowering/kernel_cache.h"
#include "lowering/kernel_source.h"

namespace af::lowering {
namespace {

namespace fs = std::filesystem;

std::string fresh(const std::string& name) {
  const char* t = std::getenv("TEST_TMPDIR");
  const std::string d = std::string(t ? t : "/tmp") + "/kp-" + name + "-" + std::to_string(getpid());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Stores n entries whose payloads look alike (as kernels do) and differ.
std::vector<std::string> make_entries(KernelStore& store, int n, std::vector<std::string>* keys) {
  std::vector<std::string> paths;
  for (int i = 0; i < n; ++i) {
    std::string payload;
    for (int j = 0; j < 2000; ++j) payload += "ld.param.u32 %r" + std::to_string((i * 7 + j) % 97) + ";\n";
    keys->push_back(KernelStore::full_key("v", "t", "region " + std::to_string(i)));
    paths.push_back(store.store(keys->back(), payload));
    EXPECT_FALSE(paths.back().empty());
  }
  return paths;
}

TEST(KitPack, RoundTripVerifiesAndCompresses) {
  const std::string d = fresh("rt");
  KernelStore src(d + "/src");
  std::vector<std::string> keys;
  const auto paths = make_entries(src, 20, &keys);
  PackStats st;
  std::string why;
  ASSERT_TRUE(write_kernel_pack(d + "/kernels.pack", paths, &st, &why)) << why;
  EXPECT_EQ(st.entries, 20);
  EXPECT_LT(st.packed_bytes * 10, st.raw_bytes) << "similar entries must pack at least 10x";
  EXPECT_EQ(unpack_kernels(d + "/kernels.pack", d + "/out", &why), 20);
  EXPECT_EQ(why, "");
  KernelStore out(d + "/out");
  for (const auto& k : keys) EXPECT_FALSE(out.find(k).empty()) << k;
}

TEST(KitPack, TruncatedPackKeepsWhatPrecedesTheDamage) {
  const std::string d = fresh("trunc");
  KernelStore src(d + "/src");
  std::vector<std::string> keys;
  const auto paths = make_entries(src, 40, &keys);
  PackStats st;
  std::string why;
  ASSERT_TRUE(write_kernel_pack(d + "/kernels.pack", paths, &st, &why)) << why;
  fs::resize_file(d + "/kernels.pack", static_cast<uintmax_t>(st.packed_bytes / 2));
  const int64_t n = unpack_kernels(d + "/kernels.pack", d + "/out", &why);
  EXPECT_NE(why, "");
  EXPECT_LT(n, 40);
  KernelStore out(d + "/out");
  int found = 0;
  for (const auto& k : keys) found += !out.find(k).empty();
  EXPECT_EQ(found, n) << "every entry written verifies; none is half written";
}

TEST(KitPack, ABadRecordNameIsDamageNotAPath) {
  const std::string d = fresh("name");
  ASSERT_TRUE(base::write_file_atomic(d + "/../evil.so", "x"));  // a file whose name no store uses
  PackStats st;
  std::string why;
  ASSERT_TRUE(write_kernel_pack(d + "/kernels.pack", {d + "/../evil.so"}, &st, &why)) << why;
  EXPECT_EQ(unpack_kernels(d + "/kernels.pack", d + "/out", &why), 0);
  EXPECT_NE(why.find("damaged pack"), std::string::npos) << why;
  EXPECT_TRUE(fs::is_empty(d + "/out"));
  EXPECT_EQ(unpack_kernels(d + "/absent.pack", d + "/out", &why), 0);
  EXPECT_NE(why.find("cannot read"), std::string::npos) << why;
}

TEST(KitPack, XzRoundTripAndDamage) {
  std::string text, packed, back, why;
  for (int i = 0; i < 3000; ++i) text += "{\"program\": " + std::to_string(i % 17) + ", \"strategy\": \"eager\"}\n";
  ASSERT_TRUE(xz_compress(text, &packed, &why)) << why;
  EXPECT_LT(packed.size() * 10, text.size());
  ASSERT_TRUE(xz_decompress(packed, &back, &why)) << why;
  EXPECT_EQ(back, text);
  EXPECT_FALSE(xz_decompress(packed.substr(0, packed.size() / 2), &back, &why));
  EXPECT_NE(why.find("damaged"), std::string::npos) << why;
  EXPECT_FALSE(xz_decompress("not xz at all", &back, &why));
}

// The shape of Halide 14's OpenCL C: a preamble, then kernels whose locals
// and scalar arguments carry process-wide counters.
std::string cl_source(int a, int t, int b) {
  const std::string A = std::to_string(a), T = std::to_string(t), B = std::to_string(b);
  return "/*OpenCL C x86-64-linux-opencl*/\ninline float nan_f32() { return NAN; }\n"
         "__kernel void _at_least_one_kernel(int x) { }\n"
         "#define __address_space__n3__17 __global\n"
         "__kernel void _kernel_n3__17_s0_v0(\n __address_space__n3__17 float *restrict _n3__17,\n"
         " const int _t" +
         T + ",\n const int _t" + std::to_string(t + 1) +
         ")\n{\n"
         " int _" +
         A + " = _t" + T + " + -31;\n int _" + std::to_string(a + 1) + " = _" + A + " * _t" + std::to_string(t + 1) +
         ";\n _n3__17[_" + std::to_string(a + 1) +
         "] = float_from_bits(0 /* 0 */);\n}\n"
         "__kernel void _kernel_n4__2_s0_v0(const int _t" +
         std::to_string(t + 9) + ")\n{\n int _" + B + " = _t" + std::to_string(t + 9) + " + 1;\n int _" +
         std::to_string(b + 3) + " = _" + B + " - 1;\n}\n";
}

std::string canonical(std::string s) {
  EXPECT_TRUE(canonicalize_opencl_source(s.data(), s.size()));
  return s;
}

TEST(KernelSource, CountersAreRenumberedPerKernel) {
  const std::string x = cl_source(7851, 37416, 7900), y = cl_source(5012, 40550, 6090);
  ASSERT_NE(x, y);
  const std::string cx = canonical(x), cy = canonical(y);
  EXPECT_EQ(cx.size(), x.size()) << "the host code embeds the source with its size";
  EXPECT_EQ(cx, cy);
  // Counters of other lengths: the same text, padded to another length.
  const std::string z = cl_source(120001, 140550, 130090), cz = canonical(z);
  EXPECT_EQ(cz.substr(0, cz.find_last_not_of(' ') + 1), cx.substr(0, cx.find_last_not_of(' ') + 1));
  EXPECT_NE(cx.find(" int _0 = _t0 + -31;\n int _1 = _0 * _t1;\n _n3__17[_1] ="), std::string::npos) << cx;
  // The second kernel starts again from 0; kernel and buffer names stay.
  EXPECT_NE(cx.find("_kernel_n4__2_s0_v0(const int _t0)\n{\n int _0 = _t0 + 1;\n int _1 = _0 - 1;"), std::string::npos)
      << cx;
  EXPECT_NE(cx.find("__kernel void _kernel_n3__17_s0_v0("), std::string::npos);
  EXPECT_EQ(cx.back(), ' ') << "the saved length is trailing spaces";
  EXPECT_EQ(cx.substr(cx.find_last_not_of(' ') - 1, 2), "}\n");
  EXPECT_EQ(canonical(cx), cx) << "canonical text is a fixed point";
}

TEST(KernelSource, UnsafeOrLongerTextIsLeftAlone) {
  // A counter-named identifier outside any kernel could be shared: no rewrite.
  std::string outside = "#define _5 1\n__kernel void k(int _t7) { int _9 = _5 + _t7; }\n";
  const std::string before = outside;
  EXPECT_FALSE(canonicalize_opencl_source(outside.data(), outside.size()));
  EXPECT_EQ(outside, before);
  // Early in a process the counters are small: renumbering could lengthen it.
  // (_100 -> _0 saves 2; _1.._9 keep their names; _0 -> _10 costs 5.)
  std::string small =
      "__kernel void k() { int _100=0; int _1=0; int _2=0; int _3=0; int _4=0; int _5=0;"
      " int _6=0; int _7=0; int _8=0; int _9=0; int _0=_0+_0+_0+_0; }";
  const std::string small_before = small;
  EXPECT_FALSE(canonicalize_opencl_source(small.data(), small.size()));
  EXPECT_EQ(small, small_before);
}

}  // namespace
}  // namespace af::lowering
