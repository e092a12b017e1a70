// A worker's answer for a routine program, in a line the campaign parent
// reads without a JSON parser. Most programs of a campaign bring nothing
// new: no finding the parent has not seen (only "repeats" of buckets the
// worker sent in full before) and no external runs. Their answer is the
// program's milliseconds per tier and its repeats per bucket; the parent
// read it as JSON, ~40 K instructions a program (nlohmann's parser and its
// maps), ~5% of a worker's work that --jobs N pays on the parent's core
// (bench/README.md, seventh session). Every other answer stays JSON.
//
//   ~K<TAB>t:TIER=MS<TAB>...<TAB>r:BUCKET=N<TAB>...
//
// MS is the shortest text that reads back as the same double
// (std::to_chars, locale-free), N a positive integer. A name holding a
// tab, '=' or a line break cannot be written (encode returns nothing: the
// caller sends JSON).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace af::fuzz {

struct RoutineAnswer {
  uint64_t k = 0;
  std::vector<std::pair<std::string, double>> tier_ms;   // by tier name, as the JSON answer's "tier_ms"
  std::vector<std::pair<std::string, int64_t>> repeats;  // by bucket, as its "repeats"
};

// The line (without its newline), or nothing when a name cannot be written.
std::optional<std::string> encode_routine(const RoutineAnswer& a);
// A line of that form (without its newline), or nothing when it is not one.
std::optional<RoutineAnswer> decode_routine(std::string_view line);
// Whether a line is meant as a routine answer (it may still not decode).
inline bool is_routine_line(std::string_view line) { return !line.empty() && line[0] == '~'; }

}  // namespace af::fuzz
