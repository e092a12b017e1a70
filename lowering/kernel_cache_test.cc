// The persistent kernel cache (issue #13): entries survive the process,
// two processes filling one cache lose nothing and load nothing half
// written, corrupt or truncated entries are recompiled, the LRU cap holds.
// Every test uses its own folder under TEST_TMPDIR (never ~/.cache).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "generate/generator.h"
#include "lowering/kernel_cache.h"
#include "base/files.h"
#include "lowering/lowering.h"
#include "oracles/eager.h"

namespace af::lowering {
namespace {

namespace fs = std::filesystem;

std::string fresh_dir(const std::string& name) {
  const char* t = std::getenv("TEST_TMPDIR");
  const std::string d = std::string(t ? t : "/tmp") + "/kc-" + name + "-" + std::to_string(getpid());
  fs::remove_all(d);
  kernel_cache_config().dir = d;
  kernel_cache_config().enabled = true;
  return d + "/host";
}

// Runs `n` generated programs (eager and whole-program regions) and
// returns how many disagreed with the oracle or failed.
int run_programs(uint64_t seed, int n, CompileCache& cache, bool checked = false) {
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    ir::Program p = fuzz::generate(seed, i, fuzz::halide_options());
    auto expected = oracles::run_eager(p);
    if (!expected.ok()) continue;
    for (int k : {1, 0}) {
      LowerOptions o;
      o.checked = checked;
      LowerResult r = run_schedule(program_order_schedule(p, k), o, nullptr, cache);
      if (!r.ok || oracles::compare(p, *expected, r.obs) || r.first_failure) {
        ++bad;
        ADD_FAILURE() << "program " << i << " per_region " << k << ": " << r.error;
      }
    }
  }
  return bad;
}

TEST(KernelCache, SecondProcessOnlyLoads) {
  const std::string dir = fresh_dir("reuse");
  {
    CompileCache cold;
    EXPECT_EQ(run_programs(7, 12, cold), 0);
    EXPECT_GT(cold.compile_ms_each().size(), 0u);
    EXPECT_EQ(cold.disk_hits(), 0);
  }
  CompileCache warm;  // a new process as far as the cache is concerned
  EXPECT_EQ(run_programs(7, 12, warm), 0);
  EXPECT_EQ(warm.compile_ms_each().size(), 0u) << "every kernel should come from " << dir;
  EXPECT_EQ(warm.disk_hits(), warm.misses());
  EXPECT_EQ(KernelStore(dir).stats().temp_files, 0);
}

TEST(KernelCache, CheckedModeAgrees) {
  fresh_dir("checked");
  CompileCache cache;
  EXPECT_EQ(run_programs(8, 8, cache, true), 0);
}

TEST(KernelCache, CorruptAndTruncatedEntriesAreRecompiled) {
  const std::string dir = fresh_dir("corrupt");
  {
    CompileCache c;
    ASSERT_EQ(run_programs(9, 4, c), 0);
  }
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".so" && e.file_size() > 0) entries.push_back(e.path());
  ASSERT_GE(entries.size(), 4u);  // the runtime and kernels
  // Damaged copies replace the entries (new files: this process still has
  // the old ones mapped, and the cache itself never changes a file in place).
  int damaged = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    std::string bytes;
    ASSERT_TRUE(base::read_file(entries[i].string(), &bytes));
    if (i % 2 == 0) {
      bytes.resize(bytes.size() / 2);  // truncated, as a torn write would leave it
    } else {
      bytes[bytes.size() / 3] ^= 0x5a;  // one flipped byte inside the object
    }
    const std::string tmp = entries[i].string() + ".damaged";
    std::ofstream(tmp, std::ios::binary) << bytes;
    fs::rename(tmp, entries[i]);
    ++damaged;
  }
  CompileCache c;
  EXPECT_EQ(run_programs(9, 4, c), 0);
  // Every damaged kernel was detected (none loaded) and recompiled; the
  // runtime is rebuilt silently.
  EXPECT_EQ(c.disk_hits(), 0);
  EXPECT_GE(c.disk_corrupt() + 1, damaged);
  CompileCache again;
  EXPECT_EQ(run_programs(9, 4, again), 0);
  EXPECT_EQ(again.compile_ms_each().size(), 0u);
}

TEST(KernelCache, TwoProcessesFillOneCache) {
  const std::string dir = fresh_dir("concurrent");
  // Both processes compile the same programs at once (same keys, same files).
  pid_t kids[2];
  for (auto& k : kids) {
    k = fork();
    ASSERT_GE(k, 0);
    if (k == 0) {
      CompileCache c;
      const int bad = run_programs(10, 10, c);
      _exit(bad == 0 ? 0 : 1);
    }
  }
  for (pid_t k : kids) {
    int st = 0;
    ASSERT_EQ(waitpid(k, &st, 0), k);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "a worker disagreed with the oracle";
  }
  KernelStore store(dir);
  EXPECT_EQ(store.stats().temp_files, 0);
  CompileCache c;  // nothing lost: every kernel is there and valid
  EXPECT_EQ(run_programs(10, 10, c), 0);
  EXPECT_EQ(c.compile_ms_each().size(), 0u);
  EXPECT_EQ(c.disk_corrupt(), 0);
}

TEST(KernelStore, FooterAndLru) {
  const std::string dir = fresh_dir("store") + "-raw";
  KernelStore s(dir, 0);
  const std::string k1 = KernelStore::full_key("v", "t", "a"), k2 = KernelStore::full_key("v", "t", "b");
  ASSERT_FALSE(s.store(k1, std::string(1000, 'x')).empty());
  std::string why;
  EXPECT_FALSE(s.find(k1).empty());
  EXPECT_TRUE(s.find(k2, &why).empty());
  EXPECT_EQ(why, "absent");
  // A different key under k1's file name is not k1.
  fs::rename(dir + "/" + KernelStore::file_name(k1), dir + "/" + KernelStore::file_name(k2));
  EXPECT_TRUE(s.find(k2, &why).empty());
  EXPECT_EQ(why, "another key under the same hash");
  // The cap removes the least recently used.
  KernelStore capped(dir, 2500);
  capped.clear();
  capped.store(k1, std::string(1000, 'x'));
  sleep(1);  // mtime granularity on some filesystems
  capped.store(k2, std::string(1000, 'y'));
  sleep(1);
  EXPECT_FALSE(capped.find(k1).empty());  // a hit: k1 is now the most recent
  capped.store(KernelStore::full_key("v", "t", "c"), std::string(1000, 'z'));
  EXPECT_FALSE(capped.find(k1).empty());
  EXPECT_TRUE(capped.find(k2).empty());
  EXPECT_EQ(parse_size("2G"), int64_t{2} << 30);
  EXPECT_EQ(parse_size("500M"), int64_t{500} << 20);
  EXPECT_EQ(parse_size("12"), 12);
  EXPECT_EQ(parse_size("2X"), -1);
}

}  // namespace
}  // namespace af::lowering
