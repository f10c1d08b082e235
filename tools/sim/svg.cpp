// SPDX-License-Identifier: GPL-2.0-or-later
#include "svg.h"

#include "../xml_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace hivedsim {

namespace {
std::string F(double v) {
  char b[32];
  snprintf(b, sizeof b, "%.1f", v);
  return b;
}
}  // namespace

std::string XmlEscape(const std::string& s) { return hivedtools::XmlText(s); }

Svg::Svg(double width, double height) : w_(width), h_(height) {}

void Svg::Line(double x1, double y1, double x2, double y2, const std::string& color, double width,
               const std::string& dash) {
  body_ += "<line x1=\"" + F(x1) + "\" y1=\"" + F(y1) + "\" x2=\"" + F(x2) + "\" y2=\"" + F(y2) +
           "\" stroke=\"" + color + "\" stroke-width=\"" + F(width) + "\"" +
           (dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\"") + "/>\n";
}

void Svg::Polyline(const std::vector<std::pair<double, double>>& pts, const std::string& color,
                   double width, const std::string& dash) {
  if (pts.empty()) return;
  body_ += "<polyline fill=\"none\" stroke=\"" + color + "\" stroke-width=\"" + F(width) + "\"" +
           (dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\"") + " points=\"";
  for (size_t i = 0; i < pts.size(); i++)
    body_ += (i ? " " : "") + F(pts[i].first) + "," + F(pts[i].second);
  body_ += "\"/>\n";
}

void Svg::Rect(double x, double y, double w, double h, const std::string& fill,
               const std::string& stroke) {
  body_ += "<rect x=\"" + F(x) + "\" y=\"" + F(y) + "\" width=\"" + F(std::max(0.0, w)) +
           "\" height=\"" + F(std::max(0.0, h)) + "\" fill=\"" + fill + "\"" +
           (stroke.empty() ? "" : " stroke=\"" + stroke + "\"") + "/>\n";
}

void Svg::Text(double x, double y, const std::string& s, double size, const std::string& anchor,
               const std::string& color, double rotate, bool bold) {
  body_ +=
      "<text x=\"" + F(x) + "\" y=\"" + F(y) + "\" font-size=\"" + F(size) + "\" text-anchor=\"" +
      anchor + "\" fill=\"" + color + "\"" + (bold ? " font-weight=\"bold\"" : "") +
      (rotate != 0 ? " transform=\"rotate(" + F(rotate) + " " + F(x) + " " + F(y) + ")\"" : "") +
      ">" + XmlEscape(s) + "</text>\n";
}

std::string Svg::Str() const {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + F(w_) + "\" height=\"" + F(h_) +
         "\" viewBox=\"0 0 " + F(w_) + " " + F(h_) +
         "\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n" +
         body_ + "</svg>\n";
}

double Axis::Map(double v) const {
  double a = lo, b = hi, x = v;
  if (log) {
    a = std::log10(lo);
    b = std::log10(hi);
    x = std::log10(std::max(v, lo));
  }
  if (b == a) return p0;
  x = std::min(std::max(x, a), b);
  return p0 + (x - a) / (b - a) * (p1 - p0);
}

std::vector<double> Axis::Ticks() const {
  std::vector<double> t;
  if (log) {
    for (double d = std::pow(10, std::floor(std::log10(lo))); d <= hi * 1.0001; d *= 10)
      if (d >= lo * 0.9999) t.push_back(d);
    return t;
  }
  double span = hi - lo;
  if (span <= 0) return {lo};
  double step = std::pow(10, std::floor(std::log10(span / 5)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (span / (step * m) <= 6) {
      step *= m;
      break;
    }
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
    t.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
  return t;
}

std::string TickLabel(double v) {
  char b[32];
  double a = std::abs(v);
  if (a >= 1e6)
    snprintf(b, sizeof b, "%gM", v / 1e6);
  else if (a >= 1e3)
    snprintf(b, sizeof b, "%gk", v / 1e3);
  else
    snprintf(b, sizeof b, "%g", v);
  return b;
}

}  // namespace hivedsim
