// A kit's kernel pack (lowering/kit_pack.h): entries come back byte for
// byte and verify in a KernelStore; a truncated pack yields the entries
// before the damage and says so; a record whose name is not a store file
// name is damage, never a path; a missing pack is an error, not a crash.
#include "lowering/kit_pack.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "lowering/kernel_cache.h"

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
  ASSERT_TRUE(write_file_atomic(d + "/../evil.so", "x"));  // a file whose name no store uses
  PackStats st;
  std::string why;
  ASSERT_TRUE(write_kernel_pack(d + "/kernels.pack", {d + "/../evil.so"}, &st, &why)) << why;
  EXPECT_EQ(unpack_kernels(d + "/kernels.pack", d + "/out", &why), 0);
  EXPECT_NE(why.find("damaged pack"), std::string::npos) << why;
  EXPECT_TRUE(fs::is_empty(d + "/out"));
  EXPECT_EQ(unpack_kernels(d + "/absent.pack", d + "/out", &why), 0);
  EXPECT_NE(why.find("cannot read"), std::string::npos) << why;
}

}  // namespace
}  // namespace af::lowering
