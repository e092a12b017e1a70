#include "campaign/answer_line.h"

#include <charconv>
#include <cmath>
#include <cstdint>

namespace af::fuzz {

namespace {

bool writable(const std::string& name) { return !name.empty() && name.find_first_of("\t=\n\r") == std::string::npos; }

// The digits of a non-negative integer filling all of `s`.
std::optional<uint64_t> whole_number(std::string_view s) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;  // past 2^64 - 1
    v = v * 10 + d;
  }
  return v;
}

// A finite double filling all of `s` (from_chars reads what to_chars
// wrote exactly, in any locale).
std::optional<double> real_number(std::string_view s) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

std::optional<std::string> encode_routine(const RoutineAnswer& a) {
  std::string line = "~" + std::to_string(a.k);
  char num[40];
  for (const auto& [name, ms] : a.tier_ms) {
    if (!writable(name) || !std::isfinite(ms)) return std::nullopt;
    const auto end = std::to_chars(num, num + sizeof num, ms).ptr;  // shortest text that reads back exactly
    line.append("\tt:").append(name).append("=").append(num, end);
  }
  for (const auto& [name, n] : a.repeats) {
    if (!writable(name) || n <= 0) return std::nullopt;
    line.append("\tr:").append(name).append("=").append(std::to_string(n));
  }
  return line;
}

std::optional<RoutineAnswer> decode_routine(std::string_view line) {
  if (!is_routine_line(line)) return std::nullopt;
  RoutineAnswer a;
  size_t at = 1;
  bool first = true;
  for (;;) {
    const size_t tab = line.find('\t', at);
    const std::string_view field = line.substr(at, tab == std::string_view::npos ? std::string_view::npos : tab - at);
    if (first) {
      const auto k = whole_number(field);
      if (!k) return std::nullopt;
      a.k = *k;
      first = false;
    } else {
      const size_t eq = field.find('=');
      if (field.size() < 3 || field[1] != ':' || eq == std::string_view::npos || eq < 3) return std::nullopt;
      const std::string name(field.substr(2, eq - 2));
      const std::string_view value = field.substr(eq + 1);
      if (!writable(name)) return std::nullopt;
      if (field[0] == 't') {
        const auto ms = real_number(value);
        if (!ms) return std::nullopt;
        a.tier_ms.emplace_back(name, *ms);
      } else if (field[0] == 'r') {
        const auto n = whole_number(value);
        if (!n || *n == 0 || *n > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
        a.repeats.emplace_back(name, static_cast<int64_t>(*n));
      } else {
        return std::nullopt;
      }
    }
    if (tab == std::string_view::npos) return a;
    at = tab + 1;
  }
}

}  // namespace af::fuzz
