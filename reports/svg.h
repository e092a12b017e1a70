// Tiny inline-SVG chart helpers for report.html (no scripts, no network).
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace af::reports::svg {

// A line chart of (x, y) points; empty data gives a chart saying "no data".
std::string line_chart(const std::string& title, const std::vector<std::pair<double, double>>& points,
                       const std::string& x_label, const std::string& y_label);
// A bar chart of (label, value) bars in the given order.
std::string bar_chart(const std::string& title, const std::vector<std::pair<std::string, double>>& bars,
                      const std::string& y_label);

}  // namespace af::reports::svg
