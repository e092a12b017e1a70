// The persistent kernel cache (issue #13): AOT-compiled region pipelines
// kept on disk as small shared objects, shared by every worker and campaign
// of a machine (and, packed into a kit's kernels.pack, shipped to GPU machines).
//
// Layout: DIR/<16 hex digits>.so, the hash of the full key (Halide version,
// Halide target string, the region's structural key). Each file is the
// shared object followed by a footer (the full key, sizes, an FNV-1a
// checksum of object + key, a magic) that the dynamic loader ignores, so a
// hit is: read, verify, touch (LRU), dlopen the file itself. An entry that
// fails verification (truncated, corrupt, another key under the same hash)
// is a miss; the recompiled entry replaces it.
//
// Concurrency: an entry is written to a temp file unique to the writer
// (pid, thread, counter) in DIR and renamed over the final name, so readers
// see the old file, the complete new one, or none; two writers of one key
// both produce valid files and the last rename wins. No fsync: after a crash
// the checksum turns a torn file into a miss.
//
// Size cap: after each store, when the files exceed max_bytes the least
// recently used (oldest mtime; a hit touches its file) are removed.
//
// Halide-free: the kit runner links this without Halide or LLVM.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace af::lowering {

struct KernelCacheStats {
  int64_t entries = 0, bytes = 0;
  int64_t temp_files = 0;  // writers' temp files (a crashed writer's leftovers)
};

class KernelStore {
 public:
  // max_bytes <= 0: no cap.
  explicit KernelStore(std::string dir, int64_t max_bytes = 0);
  const std::string& dir() const { return dir_; }

  // Which code lowering/halide_backend.cc emits for a region spec: bumped
  // whenever it emits other code for the same spec, so that kernels stored
  // by an older binary are never loaded for it (2: IndexScatter reads
  // clamped to the domain on GPU targets; 3: exp of +inf and NaN; 4: exp of
  // NaN and of x > 89 on the CPU is NaN and inf, not Halide 14's 0).
  static constexpr int kCodegenVersion = 4;
  // The full key of a region's kernel (Halide version, codegen version,
  // target, region key) and its file name (hash + ".so").
  static std::string full_key(const std::string& halide_version, const std::string& target, const std::string& key);
  static std::string file_name(const std::string& full_key);

  // A verified entry: its path (to dlopen) and "" , or "" and why not in
  // *why ("absent", "corrupt: ...").
  std::string find(const std::string& full_key, std::string* why = nullptr) const;
  // Stores the shared object `so_bytes` under full_key (atomically); then
  // applies the size cap. Returns the entry's path, "" on failure (*why).
  std::string store(const std::string& full_key, const std::string& so_bytes, std::string* why = nullptr);
  // Copies a verified entry from another store (kits take kernels from the
  // user's cache). False when it has none.
  bool copy_from(const KernelStore& other, const std::string& full_key);

  KernelCacheStats stats() const;
  // Removes entries (oldest first) until the files total at most max_bytes.
  int64_t evict_to(int64_t max_bytes);
  int64_t clear();  // removes every entry and temp file; returns how many

 private:
  std::string dir_;
  int64_t max_bytes_;
};

// The entry format, for tests: payload + footer.
std::string kernel_entry_bytes(const std::string& full_key, const std::string& so_bytes);

// Where the cache lives and how big it may grow, for this process. Set by
// the commands' --kernel-cache/--kernel-cache-max flags; the default dir is
// $AF_KERNEL_CACHE, else $XDG_CACHE_HOME/aliasfuzz/kernels, else
// ~/.cache/aliasfuzz/kernels, with one sub-folder per lowering target.
// "off" (flag or variable) disables the persistent cache (JIT as before).
struct KernelCacheConfig {
  std::string dir;  // "" = the default above
  int64_t max_bytes = int64_t{2} << 30;
  bool enabled = true;
};
KernelCacheConfig& kernel_cache_config();
// The folder for target `target` ("host", ...): "" when disabled.
std::string kernel_cache_dir(const std::string& target);
// "2G", "500M", "64k", "12345" -> bytes; -1 when malformed.
int64_t parse_size(const std::string& s);

// Links object files into a shared object with the system linker (ld);
// "" or the linker's complaint.
std::string link_shared(const std::vector<std::string>& objects, const std::string& out);

}  // namespace af::lowering
