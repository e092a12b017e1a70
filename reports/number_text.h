// Numbers as the Markdown and HTML reports print them (one definition for
// both, so the two reports never disagree on a figure).
#pragma once
#include <cstdio>
#include <string>

namespace af::reports {

inline std::string fmt(double v, const char* f = "%.1f") {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// A programs/s figure: two decimals below 10 (a slow compiler's 0.24, not
// 0), whole numbers above, as the campaign's status line prints it.
inline std::string rate_text(double per_s) { return fmt(per_s, per_s < 10 ? "%.2f" : "%.0f"); }

}  // namespace af::reports
