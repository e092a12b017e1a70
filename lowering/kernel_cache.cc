#include "lowering/kernel_cache.h"
#include "base/files.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "ir/hash.h"

extern char** environ;

namespace af::lowering {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'A', 'F', 'K', 'C', '0', '0', '0', '1'};

struct Footer {
  uint64_t payload_size, key_size, checksum;
  char magic[8];
};

uint64_t checksum(const char* payload, size_t n, const std::string& key) {
  return ir::fnv1a(key.data(), key.size(), ir::fnv1a(payload, n));
}

bool is_temp(const std::string& name) { return name.find(".tmp.") != std::string::npos; }
bool is_entry(const fs::directory_entry& e) {
  const std::string n = e.path().filename().string();
  return e.is_regular_file() && n.size() > 3 && n.compare(n.size() - 3, 3, ".so") == 0 && !is_temp(n);
}

std::string home_cache_root() {
  if (const char* v = std::getenv("AF_KERNEL_CACHE"); v && *v) return v;
  if (const char* v = std::getenv("XDG_CACHE_HOME"); v && *v) return std::string(v) + "/aliasfuzz/kernels";
  if (const char* v = std::getenv("HOME"); v && *v) return std::string(v) + "/.cache/aliasfuzz/kernels";
  return "/tmp/aliasfuzz-kernels";
}

}  // namespace

std::string kernel_entry_bytes(const std::string& full_key, const std::string& so_bytes) {
  Footer f{so_bytes.size(), full_key.size(), checksum(so_bytes.data(), so_bytes.size(), full_key), {}};
  std::memcpy(f.magic, kMagic, sizeof kMagic);
  std::string out = so_bytes + full_key;
  out.append(reinterpret_cast<const char*>(&f), sizeof f);
  return out;
}

KernelStore::KernelStore(std::string dir, int64_t max_bytes) : dir_(std::move(dir)), max_bytes_(max_bytes) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
}

std::string KernelStore::full_key(const std::string& halide_version, const std::string& target,
                                  const std::string& key) {
  return "halide " + halide_version + "\ncodegen " + std::to_string(kCodegenVersion) + "\ntarget " + target + "\n" +
         key;
}

std::string KernelStore::file_name(const std::string& full_key) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx.so", static_cast<unsigned long long>(ir::fnv1a(full_key)));
  return buf;
}

std::string KernelStore::find(const std::string& full_key, std::string* why) const {
  const std::string path = dir_ + "/" + file_name(full_key);
  std::string bytes;
  if (!base::read_file(path, &bytes)) {
    if (why) *why = "absent";
    return "";
  }
  Footer f;
  if (bytes.size() < sizeof f) {
    if (why) *why = "corrupt: shorter than its footer";
    return "";
  }
  std::memcpy(&f, bytes.data() + bytes.size() - sizeof f, sizeof f);
  if (std::memcmp(f.magic, kMagic, sizeof kMagic) != 0 || f.payload_size + f.key_size + sizeof f != bytes.size()) {
    if (why) *why = "corrupt: no valid footer (truncated?)";
    return "";
  }
  const std::string stored_key = bytes.substr(f.payload_size, f.key_size);
  if (stored_key != full_key) {
    if (why) *why = "another key under the same hash";
    return "";
  }
  if (checksum(bytes.data(), f.payload_size, stored_key) != f.checksum) {
    if (why) *why = "corrupt: checksum mismatch";
    return "";
  }
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // LRU: a hit is a use
  return path;
}

std::string KernelStore::store(const std::string& full_key, const std::string& so_bytes, std::string* why) {
  const std::string path = dir_ + "/" + file_name(full_key);
  if (!base::write_file_atomic(path, kernel_entry_bytes(full_key, so_bytes), why)) return "";
  if (max_bytes_ > 0) evict_to(max_bytes_);
  return path;
}

bool KernelStore::copy_from(const KernelStore& other, const std::string& full_key) {
  const std::string src = other.find(full_key);
  std::string bytes;
  if (src.empty() || !base::read_file(src, &bytes)) return false;
  return base::write_file_atomic(dir_ + "/" + file_name(full_key), bytes);
}

KernelCacheStats KernelStore::stats() const {
  KernelCacheStats s;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    if (is_entry(e)) {
      ++s.entries;
      s.bytes += static_cast<int64_t>(e.file_size(ec));
    } else if (is_temp(e.path().filename().string())) {
      ++s.temp_files;
    }
  }
  return s;
}

int64_t KernelStore::evict_to(int64_t max_bytes) {
  struct F {
    fs::file_time_type t;
    int64_t size;
    fs::path p;
  };
  std::vector<F> files;
  int64_t total = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    if (!is_entry(e)) continue;
    F f{e.last_write_time(ec), static_cast<int64_t>(e.file_size(ec)), e.path()};
    total += f.size;
    files.push_back(std::move(f));
  }
  if (total <= max_bytes) return 0;
  std::sort(files.begin(), files.end(), [](const F& a, const F& b) { return a.t < b.t; });
  int64_t removed = 0;
  // Down to 90% of the cap, so that a full cache does not rescan on every store.
  for (const auto& f : files) {
    if (total <= max_bytes * 9 / 10) break;
    if (fs::remove(f.p, ec)) ++removed;  // a loaded copy stays mapped where it is in use
    total -= f.size;
  }
  return removed;
}

int64_t KernelStore::clear() {
  int64_t n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec))
    if (is_entry(e) || is_temp(e.path().filename().string())) n += fs::remove(e.path(), ec) ? 1 : 0;
  return n;
}

KernelCacheConfig& kernel_cache_config() {
  static KernelCacheConfig c = [] {
    KernelCacheConfig k;
    if (const char* v = std::getenv("AF_KERNEL_CACHE"); v && std::string(v) == "off") k.enabled = false;
    return k;
  }();
  return c;
}

std::string kernel_cache_dir(const std::string& target) {
  const auto& c = kernel_cache_config();
  if (!c.enabled || c.dir == "off") return "";
  return (c.dir.empty() ? home_cache_root() : c.dir) + "/" + target;
}

int64_t parse_size(const std::string& s) {
  if (s.empty()) return -1;
  size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == 0 || i > 15) return -1;
  int64_t v = std::stoll(s.substr(0, i));
  const std::string unit = s.substr(i);
  if (unit.empty() || unit == "B") return v;
  const char u = static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0])));
  if (unit.size() > 1 && !(unit.size() == 2 && (unit[1] == 'B' || unit[1] == 'i')) &&
      !(unit.size() == 3 && unit.substr(1) == "iB"))
    return -1;
  switch (u) {
    case 'K': return v << 10;
    case 'M': return v << 20;
    case 'G': return v << 30;
    case 'T': return v << 40;
    default: return -1;
  }
}

std::string link_shared(const std::vector<std::string>& objects, const std::string& out) {
  // ld directly (not the compiler driver, which costs more than the link).
  // Small files matter (a kit of 500 programs holds thousands): one code
  // segment, no RELRO page, no static symbol table (region_argv stays in
  // the dynamic one): 6 KB instead of 10 KB for a small kernel.
  std::vector<std::string> args = {"ld", "-shared", "-z", "noseparate-code", "-z", "norelro", "-s", "--hash-style=gnu",
                                   "-o", out};
  args.insert(args.end(), objects.begin(), objects.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string log = out + ".log";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  const int rc = posix_spawnp(&pid, "ld", &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return std::string("cannot run ld: ") + std::strerror(rc);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::string msg;
  base::read_file(log, &msg);
  ::unlink(log.c_str());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "ld failed: " + msg;
  return "";
}

}  // namespace af::lowering
