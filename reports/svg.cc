#include "reports/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "reports/report.h"

namespace af::reports::svg {

namespace {

constexpr double kW = 640, kH = 260, kLeft = 60, kRight = 20, kTop = 30, kBottom = 50;

std::string num(double v) {
  char b[64];
  if (std::fabs(v) >= 1000 || v == std::floor(v)) std::snprintf(b, sizeof b, "%.0f", v);
  else if (std::fabs(v) >= 10) std::snprintf(b, sizeof b, "%.1f", v);
  else std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

std::string coord(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

std::string header(const std::string& title) {
  return "<svg width=\"" + num(kW) + "\" height=\"" + num(kH) +
         "\" viewBox=\"0 0 " + num(kW) + " " + num(kH) + "\" role=\"img\" aria-label=\"" + html_escape(title) +
         "\">\n<rect x=\"0\" y=\"0\" width=\"" + num(kW) + "\" height=\"" + num(kH) +
         "\" fill=\"#fff\" stroke=\"#ccc\"/>\n<text x=\"" + num(kW / 2) +
         "\" y=\"18\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\">" + html_escape(title) + "</text>\n";
}

std::string no_data(const std::string& title) {
  return header(title) + "<text x=\"" + num(kW / 2) + "\" y=\"" + num(kH / 2) +
         "\" text-anchor=\"middle\" font-size=\"12\" fill=\"#888\">no data</text>\n</svg>\n";
}

// A "nice" upper bound for an axis.
double nice_max(double v) {
  if (!(v > 0)) return 1;
  const double p = std::pow(10, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (v <= m * p) return m * p;
  return 10 * p;
}

std::string y_axis(double ymax, const std::string& y_label) {
  std::string s;
  const double x0 = kLeft, x1 = kW - kRight, y0 = kH - kBottom, y1 = kTop;
  for (int i = 0; i <= 4; ++i) {
    const double v = ymax * i / 4, y = y0 - (y0 - y1) * i / 4;
    s += "<line x1=\"" + coord(x0) + "\" y1=\"" + coord(y) + "\" x2=\"" + coord(x1) + "\" y2=\"" + coord(y) +
         "\" stroke=\"#eee\"/>\n<text x=\"" + coord(x0 - 4) + "\" y=\"" + coord(y + 4) +
         "\" text-anchor=\"end\" font-size=\"10\">" + num(v) + "</text>\n";
  }
  s += "<line x1=\"" + coord(x0) + "\" y1=\"" + coord(y0) + "\" x2=\"" + coord(x1) + "\" y2=\"" + coord(y0) +
       "\" stroke=\"#333\"/>\n<line x1=\"" + coord(x0) + "\" y1=\"" + coord(y0) + "\" x2=\"" + coord(x0) +
       "\" y2=\"" + coord(y1) + "\" stroke=\"#333\"/>\n";
  s += "<text x=\"14\" y=\"" + coord((y0 + y1) / 2) + "\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 14 " +
       coord((y0 + y1) / 2) + ")\">" + html_escape(y_label) + "</text>\n";
  return s;
}

}  // namespace

std::string line_chart(const std::string& title, const std::vector<std::pair<double, double>>& points,
                       const std::string& x_label, const std::string& y_label) {
  if (points.empty()) return no_data(title);
  double xmin = points.front().first, xmax = xmin, ymax = 0;
  for (const auto& [x, y] : points) {
    xmin = std::min(xmin, x);
    xmax = std::max(xmax, x);
    ymax = std::max(ymax, y);
  }
  ymax = nice_max(ymax);
  if (xmax <= xmin) xmax = xmin + 1;
  const double x0 = kLeft, x1 = kW - kRight, y0 = kH - kBottom, y1 = kTop;
  auto px = [&](double x) { return x0 + (x - xmin) / (xmax - xmin) * (x1 - x0); };
  auto py = [&](double y) { return y0 - y / ymax * (y0 - y1); };
  std::string s = header(title) + y_axis(ymax, y_label);
  for (int i = 0; i <= 4; ++i) {
    const double v = xmin + (xmax - xmin) * i / 4;
    s += "<text x=\"" + coord(px(v)) + "\" y=\"" + coord(y0 + 14) + "\" text-anchor=\"middle\" font-size=\"10\">" +
         num(v) + "</text>\n";
  }
  s += "<text x=\"" + coord((x0 + x1) / 2) + "\" y=\"" + coord(kH - 10) +
       "\" text-anchor=\"middle\" font-size=\"11\">" + html_escape(x_label) + "</text>\n";
  s += "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"";
  for (const auto& [x, y] : points) s += coord(px(x)) + "," + coord(py(y)) + " ";
  s += "\"/>\n";
  if (points.size() == 1)
    s += "<circle cx=\"" + coord(px(points[0].first)) + "\" cy=\"" + coord(py(points[0].second)) +
         "\" r=\"3\" fill=\"#1f77b4\"/>\n";
  return s + "</svg>\n";
}

std::string bar_chart(const std::string& title, const std::vector<std::pair<std::string, double>>& bars,
                      const std::string& y_label) {
  if (bars.empty()) return no_data(title);
  double ymax = 0;
  for (const auto& b : bars) ymax = std::max(ymax, b.second);
  ymax = nice_max(ymax);
  const double x0 = kLeft, x1 = kW - kRight, y0 = kH - kBottom, y1 = kTop;
  const double slot = (x1 - x0) / bars.size(), bw = std::max(1.0, slot * 0.7);
  std::string s = header(title) + y_axis(ymax, y_label);
  for (size_t i = 0; i < bars.size(); ++i) {
    const double h = bars[i].second / ymax * (y0 - y1);
    const double x = x0 + slot * i + (slot - bw) / 2;
    s += "<rect x=\"" + coord(x) + "\" y=\"" + coord(y0 - h) + "\" width=\"" + coord(bw) + "\" height=\"" +
         coord(h) + "\" fill=\"#ff7f0e\"><title>" + html_escape(bars[i].first) + ": " + num(bars[i].second) +
         "</title></rect>\n";
    s += "<text x=\"" + coord(x + bw / 2) + "\" y=\"" + coord(y0 - h - 3) +
         "\" text-anchor=\"middle\" font-size=\"10\">" + num(bars[i].second) + "</text>\n";
    std::string label = bars[i].first;
    const size_t max_chars = static_cast<size_t>(std::max(3.0, slot / 6));
    if (label.size() > max_chars) label = label.substr(0, max_chars - 1) + "~";
    s += "<text x=\"" + coord(x + bw / 2) + "\" y=\"" + coord(y0 + 14) +
         "\" text-anchor=\"middle\" font-size=\"10\">" + html_escape(label) + "</text>\n";
  }
  return s + "</svg>\n";
}

}  // namespace af::reports::svg
