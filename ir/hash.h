// The project's one mixer and one byte hash, so that a seed means the same
// everywhere (programs, storage values, reorders, campaign choices).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace af::ir {

// splitmix64 (Steele, Lea and Flood): advances *state and returns the next
// output. Storage `random(SEED)` values are its outputs from state SEED
// (oracles/torch_bridge.cc writes the same in Python for PyTorch).
inline uint64_t splitmix64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// One splitmix64 step from x: a stateless 64-bit mix.
inline uint64_t mix64(uint64_t x) { return splitmix64(&x); }

// FNV-1a over bytes.
inline uint64_t fnv1a(const void* data, size_t size, uint64_t h = 1469598103934665603ULL) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}
inline uint64_t fnv1a(std::string_view s) { return fnv1a(s.data(), s.size()); }

}  // namespace af::ir
