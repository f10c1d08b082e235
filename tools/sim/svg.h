// SPDX-License-Identifier: GPL-2.0-or-later
// A very small SVG writer (lines, polylines, rectangles, text) and plot axes with
// linear or log scales and readable ticks.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace hivedsim {

class Svg {
 public:
  Svg(double width, double height);
  void Line(double x1, double y1, double x2, double y2, const std::string& color, double width = 1,
            const std::string& dash = "");
  void Polyline(const std::vector<std::pair<double, double>>& pts, const std::string& color,
                double width = 1.5, const std::string& dash = "");
  void Rect(double x, double y, double w, double h, const std::string& fill,
            const std::string& stroke = "");
  void Text(double x, double y, const std::string& s, double size = 11,
            const std::string& anchor = "start", const std::string& color = "#222",
            double rotate = 0, bool bold = false);
  std::string Str() const;

 private:
  double w_, h_;
  std::string body_;
};

std::string XmlEscape(const std::string& s);

// Maps data [lo, hi] to pixels [p0, p1] (p1 < p0 for a y axis).
struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  double p0 = 0, p1 = 1;
  double Map(double v) const;
  std::vector<double> Ticks() const;  // round values inside [lo, hi]
};

std::string TickLabel(double v);  // 0.01, 0.5, 3, 40, 1k, 25k ...

}  // namespace hivedsim
