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
  if (std::fabs(v) >= 1000 || v == std::floor(v))
    std::snprintf(b, sizeof b, "%.0f", v);
  else if (std::fabs(v) >= 10)
    std::snprintf(b, sizeof b, "%.1f", v);
  else
    std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

std::string coord(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

std::string header(const std::string& title, double height = kH) {
  // xmlns: the same markup is inline in report.html and a standalone file (compare.svg).
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(kW) + "\" height=\"" + num(height) +
         "\" viewBox=\"0 0 " + num(kW) + " " + num(height) + "\" role=\"img\" aria-label=\"" + html_escape(title) +
         "\">\n<rect x=\"0\" y=\"0\" width=\"" + num(kW) + "\" height=\"" + num(height) +
         "\" fill=\"#fff\" stroke=\"#ccc\"/>\n<text x=\"" + num(kW / 2) +
         "\" y=\"18\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\">" + html_escape(title) + "</text>\n";
}

std::string no_data(const std::string& title) {
  return header(title) + "<text x=\"" + num(kW / 2) + "\" y=\"" + num(kH / 2) +
         "\" text-anchor=\"middle\" font-size=\"12\" fill=\"#888\">no data</text>\n</svg>\n";
}

// Axis ticks 0, step, ..., top >= v with a "nice" step (1, 2 or 5 times a
// power of ten); counts get whole-number steps.
struct Ticks {
  double step = 1, top = 1;
};
Ticks ticks(double v, bool counts) {
  if (!(v > 0)) return {1, counts ? 1.0 : 1.0};
  const double raw = v / 4, p = std::pow(10, std::floor(std::log10(raw)));
  double step = 10 * p;
  for (double m : {1.0, 2.0, 5.0})
    if (raw <= m * p) {
      step = m * p;
      break;
    }
  if (counts) step = std::max(1.0, std::round(step));
  return {step, std::ceil(v / step - 1e-9) * step};
}

bool all_whole(const std::vector<double>& v) {
  for (double x : v)
    if (x != std::floor(x)) return false;
  return true;
}

std::string y_axis(const Ticks& t, const std::string& y_label) {
  std::string s;
  const double x0 = kLeft, x1 = kW - kRight, y0 = kH - kBottom, y1 = kTop;
  for (double v = 0; v <= t.top + t.step / 2; v += t.step) {
    const double y = y0 - (y0 - y1) * v / t.top;
    s += "<line x1=\"" + coord(x0) + "\" y1=\"" + coord(y) + "\" x2=\"" + coord(x1) + "\" y2=\"" + coord(y) +
         "\" stroke=\"#eee\"/>\n<text x=\"" + coord(x0 - 4) + "\" y=\"" + coord(y + 4) +
         "\" text-anchor=\"end\" font-size=\"10\">" + num(v) + "</text>\n";
  }
  s += "<line x1=\"" + coord(x0) + "\" y1=\"" + coord(y0) + "\" x2=\"" + coord(x1) + "\" y2=\"" + coord(y0) +
       "\" stroke=\"#333\"/>\n<line x1=\"" + coord(x0) + "\" y1=\"" + coord(y0) + "\" x2=\"" + coord(x0) + "\" y2=\"" +
       coord(y1) + "\" stroke=\"#333\"/>\n";
  s += "<text x=\"14\" y=\"" + coord((y0 + y1) / 2) +
       "\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 14 " + coord((y0 + y1) / 2) + ")\">" +
       html_escape(y_label) + "</text>\n";
  return s;
}

// A legend entry in the top right corner: a swatch and what it shows.
std::string legend(const std::string& color, const std::string& text, bool line) {
  const double x = kW - kRight - 8 - 6.0 * text.size() - 22, y = kTop - 4;
  std::string sw = line ? "<line x1=\"" + coord(x) + "\" y1=\"" + coord(y) + "\" x2=\"" + coord(x + 16) + "\" y2=\"" +
                              coord(y) + "\" stroke=\"" + color + "\" stroke-width=\"2\"/>\n"
                        : "<rect x=\"" + coord(x + 4) + "\" y=\"" + coord(y - 5) +
                              "\" width=\"10\" height=\"10\" fill=\"" + color + "\"/>\n";
  return sw + "<text x=\"" + coord(x + 20) + "\" y=\"" + coord(y + 4) + "\" font-size=\"10\">" + html_escape(text) +
         "</text>\n";
}

}  // namespace

std::string line_chart(const std::string& title, const std::vector<std::pair<double, double>>& points,
                       const std::string& x_label, const std::string& y_label) {
  if (points.empty()) return no_data(title);
  double xmin = points.front().first, xmax = xmin, ymax = 0;
  std::vector<double> ys;
  for (const auto& [x, y] : points) {
    xmin = std::min(xmin, x);
    xmax = std::max(xmax, x);
    ymax = std::max(ymax, y);
    ys.push_back(y);
  }
  const Ticks yt = ticks(ymax, all_whole(ys));
  xmin = std::min(xmin, 0.0);
  const Ticks xt = ticks(xmax - xmin, xmax - xmin >= 4);
  const double x0 = kLeft, x1 = kW - kRight, y0 = kH - kBottom, y1 = kTop;
  auto px = [&](double x) { return x0 + (x - xmin) / xt.top * (x1 - x0); };
  auto py = [&](double y) { return y0 - y / yt.top * (y0 - y1); };
  std::string s = header(title) + y_axis(yt, y_label);
  for (double v = 0; v <= xt.top + xt.step / 2; v += xt.step)
    s += "<text x=\"" + coord(px(xmin + v)) + "\" y=\"" + coord(y0 + 14) +
         "\" text-anchor=\"middle\" font-size=\"10\">" + num(xmin + v) + "</text>\n";
  s += "<text x=\"" + coord((x0 + x1) / 2) + "\" y=\"" + coord(kH - 10) +
       "\" text-anchor=\"middle\" font-size=\"11\">" + html_escape(x_label) + "</text>\n";
  s += legend("#1f77b4", y_label, true);
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
  size_t longest = 0;
  std::vector<double> ys;
  for (const auto& b : bars) {
    ymax = std::max(ymax, b.second);
    longest = std::max(longest, b.first.size());
    ys.push_back(b.second);
  }
  const Ticks yt = ticks(ymax, all_whole(ys));
  // Full labels, written downwards under each bar: the chart grows to hold the longest.
  const double height = kH + std::max(0.0, longest * 6.0 - (kBottom - 14));
  const double x0 = kLeft, x1 = kW - kRight, y0 = kH - kBottom, y1 = kTop;
  const double slot = (x1 - x0) / bars.size(), bw = std::max(1.0, slot * 0.7);
  std::string s = header(title, height) + y_axis(yt, y_label) + legend("#ff7f0e", y_label, false);
  for (size_t i = 0; i < bars.size(); ++i) {
    const double h = bars[i].second / yt.top * (y0 - y1);
    const double x = x0 + slot * i + (slot - bw) / 2;
    s += "<rect x=\"" + coord(x) + "\" y=\"" + coord(y0 - h) + "\" width=\"" + coord(bw) + "\" height=\"" + coord(h) +
         "\" fill=\"#ff7f0e\"><title>" + html_escape(bars[i].first) + ": " + num(bars[i].second) + "</title></rect>\n";
    s += "<text x=\"" + coord(x + bw / 2) + "\" y=\"" + coord(y0 - h - 3) +
         "\" text-anchor=\"middle\" font-size=\"10\">" + num(bars[i].second) + "</text>\n";
    const double lx = x + bw / 2 - 3, ly = y0 + 6;
    s += "<text x=\"" + coord(lx) + "\" y=\"" + coord(ly) +
         "\" text-anchor=\"start\" font-size=\"10\" transform=\"rotate(90 " + coord(lx) + " " + coord(ly) + ")\">" +
         html_escape(bars[i].first) + "</text>\n";
  }
  return s + "</svg>\n";
}

}  // namespace af::reports::svg
