// A kit's kernels in one file (issue #13): DIR/kernels.pack holds the
// KernelStore entries (lowering/kernel_cache.h, footers and checksums
// included) one after another as records [u64 name size][name][u64 entry
// size][entry], compressed as one xz stream. Solid compression is what makes
// a 500-program kit fit in 48 MiB: a cuda kernel is mostly PTX text and host
// glue that its neighbours share (a 5-program cuda kit's kernels: 7.8 MB as
// files, 1.6 MB gzipped one by one, 0.68 MB as one xz stream).
// The runner unpacks the pack into a private folder and loads from there;
// a truncated or corrupt pack yields the entries before the damage (the
// rest are reported as missing kernels). Halide-free (kit_runner links it).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace af::lowering {

struct PackStats {
  int64_t entries = 0;
  int64_t raw_bytes = 0;     // the entries' bytes
  int64_t packed_bytes = 0;  // the pack file
};

// Packs the store entries at `entry_paths` (in that order; put the runtime
// first) into `pack_path`, written atomically. False and *why on failure.
bool write_kernel_pack(const std::string& pack_path, const std::vector<std::string>& entry_paths, PackStats* stats,
                       std::string* why);

// One buffer as an xz stream and back (kit.json.xz, expected.bin.xz):
// false and *why when the coder fails or the input is not a whole stream.
bool xz_compress(const std::string& in, std::string* out, std::string* why);
bool xz_decompress(const std::string& in, std::string* out, std::string* why);

// Unpacks `pack_path` into folder `dir` (created); returns the entries
// written. A damaged pack stops at the damage: *why says what was wrong
// (and is "" when the whole pack was read).
int64_t unpack_kernels(const std::string& pack_path, const std::string& dir, std::string* why);

}  // namespace af::lowering
