#include "generate/bytes.h"

#include "ir/hash.h"

#include <cstring>

#include "generate/generator.h"
#include "ir/analysis.h"

namespace af::fuzz {

namespace {
constexpr char kHeader[] = "aliasfuzz 1";
}

bool is_text_input(const uint8_t* data, size_t size) {
  const size_t n = sizeof(kHeader) - 1;
  size_t i = 0;
  // Comments and blank lines may precede the header.
  while (i < size && (data[i] == '#' || data[i] == '\n' || data[i] == ' ')) {
    if (data[i] == '#')
      while (i < size && data[i] != '\n') ++i;
    else
      ++i;
  }
  return size - i >= n && std::memcmp(data + i, kHeader, n) == 0;
}

ir::Result<ir::Program> decode_input(const uint8_t* data, size_t size) {
  if (is_text_input(data, size)) return ir::parse_and_validate(std::string(reinterpret_cast<const char*>(data), size));
  return generate_from_bytes(data, size);
}

uint64_t input_seed(const uint8_t* data, size_t size) { return ir::fnv1a(data, size); }

}  // namespace af::fuzz
