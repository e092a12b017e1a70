#include "lowering/kit_pack.h"
#include "base/files.h"

#include <lzma.h>

#include <cstring>
#include <filesystem>

#include "lowering/kernel_cache.h"

namespace af::lowering {

namespace fs = std::filesystem;

namespace {

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint64_t get_u64(const std::string& in, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(in[at + i])) << (8 * i);
  return v;
}

// A store entry's file name (KernelStore::file_name): 16 hex digits + ".so".
// Anything else in a pack is damage (and never becomes a path).
bool valid_name(const std::string& n) {
  if (n.size() != 19 || n.compare(16, 3, ".so") != 0) return false;
  for (size_t i = 0; i < 16; ++i)
    if (!std::isxdigit(static_cast<unsigned char>(n[i]))) return false;
  return true;
}

// Runs the coder over `in` (LZMA_RUN) or to the end (LZMA_FINISH),
// appending its output to `out`.
lzma_ret pump(lzma_stream& z, const std::string& in, lzma_action action, std::string& out) {
  z.next_in = reinterpret_cast<const uint8_t*>(in.data());
  z.avail_in = in.size();
  uint8_t buf[1 << 16];
  for (;;) {
    z.next_out = buf;
    z.avail_out = sizeof buf;
    const lzma_ret r = lzma_code(&z, action);
    out.append(reinterpret_cast<char*>(buf), sizeof buf - z.avail_out);
    if (r != LZMA_OK) return r;
    if (z.avail_in == 0 && z.avail_out != 0 && action == LZMA_RUN) return LZMA_OK;
  }
}

}  // namespace

bool xz_compress(const std::string& in, std::string* out, std::string* why) {
  lzma_stream z = LZMA_STREAM_INIT;
  out->clear();
  bool ok = lzma_easy_encoder(&z, 6, LZMA_CHECK_CRC64) == LZMA_OK && pump(z, in, LZMA_RUN, *out) == LZMA_OK &&
            pump(z, "", LZMA_FINISH, *out) == LZMA_STREAM_END;
  lzma_end(&z);
  if (!ok) *why = "xz encoder failed";
  return ok;
}

bool xz_decompress(const std::string& in, std::string* out, std::string* why) {
  lzma_stream z = LZMA_STREAM_INIT;
  out->clear();
  if (lzma_stream_decoder(&z, UINT64_MAX, 0) != LZMA_OK) {
    *why = "xz decoder: cannot start";
    return false;
  }
  const lzma_ret r = pump(z, in, LZMA_FINISH, *out);
  lzma_end(&z);
  if (r != LZMA_STREAM_END) *why = "damaged xz stream (error " + std::to_string(static_cast<int>(r)) + ")";
  return r == LZMA_STREAM_END;
}

bool write_kernel_pack(const std::string& pack_path, const std::vector<std::string>& entry_paths, PackStats* stats,
                       std::string* why) {
  lzma_stream z = LZMA_STREAM_INIT;
  // Preset 9: a 64 MiB window (the runner's decoder needs 65 MiB). With
  // canonical OpenCL C (lowering/kernel_source.h) kernels far apart in the
  // stream share text: a 50-program opencl kit's kernels (58 MB raw) pack
  // to 4.82 MB at preset 6, 4.60 MB at 9 in the same time, 4.35 MB at 9e
  // in 3.6 times the time.
  if (lzma_easy_encoder(&z, 9, LZMA_CHECK_CRC64) != LZMA_OK) {
    *why = "xz encoder: cannot start";
    return false;
  }
  std::string packed;
  *stats = PackStats{};
  bool ok = true;
  for (const auto& path : entry_paths) {
    std::string entry;
    if (!base::read_file(path, &entry)) {
      *why = "cannot read " + path;
      ok = false;
      break;
    }
    std::string record;
    const std::string name = fs::path(path).filename().string();
    put_u64(record, name.size());
    record += name;
    put_u64(record, entry.size());
    if (pump(z, record, LZMA_RUN, packed) != LZMA_OK || pump(z, entry, LZMA_RUN, packed) != LZMA_OK) {
      *why = "xz encoder failed";
      ok = false;
      break;
    }
    ++stats->entries;
    stats->raw_bytes += static_cast<int64_t>(entry.size());
  }
  if (ok && pump(z, "", LZMA_FINISH, packed) != LZMA_STREAM_END) {
    *why = "xz encoder failed to finish";
    ok = false;
  }
  lzma_end(&z);
  if (!ok || !base::write_file_atomic(pack_path, packed, why)) return false;
  stats->packed_bytes = static_cast<int64_t>(packed.size());
  return true;
}

int64_t unpack_kernels(const std::string& pack_path, const std::string& dir, std::string* why) {
  why->clear();
  std::string packed;
  if (!base::read_file(pack_path, &packed)) {
    *why = "cannot read " + pack_path;
    return 0;
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  lzma_stream z = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&z, UINT64_MAX, 0) != LZMA_OK) {
    *why = "xz decoder: cannot start";
    return 0;
  }
  std::string raw;
  const lzma_ret r = pump(z, packed, LZMA_FINISH, raw);
  lzma_end(&z);
  if (r != LZMA_STREAM_END) *why = "damaged pack (xz: error " + std::to_string(static_cast<int>(r)) + ")";
  // Whatever decoded before the damage is whole records and maybe a torn
  // last one; each written entry is still verified when it is looked up.
  int64_t written = 0;
  size_t at = 0;
  while (at + 8 <= raw.size()) {
    const uint64_t name_size = get_u64(raw, at);
    if (name_size > 64 || at + 8 + name_size + 8 > raw.size()) break;
    const std::string name = raw.substr(at + 8, name_size);
    const uint64_t size = get_u64(raw, at + 8 + name_size);
    const size_t body = at + 16 + name_size;
    if (!valid_name(name)) {
      *why = "damaged pack: a record named '" + name + "'";
      break;
    }
    if (size > raw.size() - body) break;
    if (!base::write_file_atomic(dir + "/" + name, raw.substr(body, size), why)) break;
    ++written;
    at = body + size;
  }
  if (why->empty() && at != raw.size()) *why = "damaged pack: a torn record at byte " + std::to_string(at);
  return written;
}

}  // namespace af::lowering
