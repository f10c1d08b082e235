// SPDX-License-Identifier: GPL-2.0-or-later
#include "plots.h"

#include <algorithm>
#include <cmath>

#include "report.h"
#include "svg.h"

namespace hivedsim {

namespace {

struct Style {
  std::string color, dash, label;
};

Style StyleOf(const std::string& policy) {
  if (policy == "private") return {"#7f7f7f", "5,3", "private (hived scheduler)"};
  if (policy == "private-quota") return {"#c49c48", "5,3", "private (quota scheduler)"};
  if (policy == "quota") return {"#d62728", "", "quota (Slurm-like)"};
  if (policy == "hived") return {"#1f77b4", "", "hived"};
  if (policy == "hived-noopp") return {"#17becf", "2,2", "hived, no opportunistic"};
  return {"#2ca02c", "", policy};
}

void Legend(Svg& svg, const Study& s, double x, double y) {
  for (const auto& r : s.results) {
    Style st = StyleOf(r.policy);
    svg.Line(x, y - 4, x + 22, y - 4, st.color, 2.5, st.dash);
    svg.Text(x + 27, y, st.label, 11);
    x += 32 + 6.5 * st.label.size();
  }
}

void Frame(Svg& svg, const Axis& ax, const Axis& ay, bool x_labels, bool y_labels,
           const std::string& fmt_pct) {
  for (double t : ay.Ticks()) {
    double y = ay.Map(t);
    svg.Line(ax.p0, y, ax.p1, y, "#e5e5e5", 1);
    if (y_labels) svg.Text(ax.p0 - 4, y + 4, TickLabel(t) + fmt_pct, 9, "end", "#555");
  }
  for (double t : ax.Ticks()) {
    double x = ax.Map(t);
    svg.Line(x, ay.p0, x, ay.p1, "#eeeeee", 1);
    if (x_labels) svg.Text(x, ay.p0 + 12, TickLabel(t), 9, "middle", "#555");
  }
  svg.Line(ax.p0, ay.p0, ax.p1, ay.p0, "#333", 1);
  svg.Line(ax.p0, ay.p0, ax.p0, ay.p1, "#333", 1);
}

std::vector<double> DelaysHours(const Study& s, const SimResult& r, int vc) {
  std::vector<double> d;
  for (int j : s.jobs) {
    const TraceJob& tj = s.trace.jobs[j];
    const JobOutcome& o = r.jobs[j];
    if ((vc < 0 || tj.vc == vc) && o.finished && !o.rejected) d.push_back(JobDelay(tj, o) / 3600.0);
  }
  std::sort(d.begin(), d.end());
  return d;
}

std::string DelayCdf(const Study& s) {
  std::vector<int> panels;
  for (const auto& v : s.metrics[0].vcs) panels.push_back(s.trace.FindVc(v.vc));
  panels.push_back(-1);
  const int cols = 4, rows = static_cast<int>((panels.size() + cols - 1) / cols);
  const double pw = 230, ph = 170, left = 50, top = 60;
  Svg svg(left + cols * pw + 10, top + rows * ph + 30);
  svg.Text(
      left, 22,
      "Queuing delay CDF per VC (x: hours, log scale; y: share of the VC's jobs waiting at most x)",
      13, "start", "#111", 0, true);
  Legend(svg, s, left, 44);
  double max_h = 1;
  for (const auto& r : s.results) {
    auto d = DelaysHours(s, r, -1);
    if (!d.empty()) max_h = std::max(max_h, d.back());
  }
  max_h = std::pow(10, std::ceil(std::log10(max_h)));
  const double min_h = 0.01;
  for (size_t p = 0; p < panels.size(); p++) {
    double x0 = left + (p % cols) * pw, y0 = top + (p / cols) * ph;
    Axis ax{min_h, max_h, true, x0 + 10, x0 + pw - 24};
    Axis ay{0, 1, false, y0 + ph - 30, y0 + 18};
    Frame(svg, ax, ay, true, p % cols == 0, "");
    svg.Text(x0 + 12, y0 + 12, panels[p] < 0 ? "all VCs" : s.trace.vcs[panels[p]], 11, "start",
             "#111", 0, true);
    for (const auto& r : s.results) {
      auto d = DelaysHours(s, r, panels[p]);
      if (d.empty()) continue;
      Style st = StyleOf(r.policy);
      std::vector<std::pair<double, double>> pts;
      const int steps = 120;
      for (int k = 0; k <= steps; k++) {
        double x = min_h * std::pow(max_h / min_h, static_cast<double>(k) / steps);
        double frac =
            static_cast<double>(std::upper_bound(d.begin(), d.end(), x) - d.begin()) / d.size();
        pts.push_back({ax.Map(x), ay.Map(frac)});
      }
      svg.Polyline(pts, st.color, 1.6, st.dash);
    }
  }
  return svg.Str();
}

std::string AnomalyBars(const Study& s) {
  std::vector<const Metrics*> ms;
  for (const auto& m : s.metrics)
    if (BaselineOf(m.policy)) ms.push_back(&m);
  const auto& vcs = s.metrics[0].vcs;
  const double left = 60, top = 60, ph = 190, gap = 60;
  const double group = std::max(40.0, 14.0 * ms.size() + 12),
               width = left + group * (vcs.size() + 1) + 20;
  Svg svg(width, top + 2 * ph + gap + 40);
  svg.Text(left, 22,
           "Sharing anomaly per VC: jobs that waited longer than on the VC's private cluster", 13,
           "start", "#111", 0, true);
  double lx = left;
  for (const auto* m : ms) {
    Style st = StyleOf(m->policy);
    svg.Rect(lx, 34, 12, 10, st.color);
    svg.Text(lx + 16, 43, st.label, 11);
    lx += 30 + 6.5 * st.label.size();
  }
  for (int panel = 0; panel < 2; panel++) {
    double y0 = top + panel * (ph + gap);
    double hi = 0;
    auto value = [&](const VcMetrics& v) {
      return panel == 0 ? (v.jobs ? 100.0 * v.anomaly_jobs / v.jobs : 0) : v.anomaly_minutes / 60.0;
    };
    for (const auto* m : ms) {
      for (const auto& v : m->vcs) hi = std::max(hi, value(v));
      hi = std::max(hi, value(m->overall));
    }
    if (hi <= 0) hi = 1;
    Axis ax{0, static_cast<double>(vcs.size() + 1), false, left, left + group * (vcs.size() + 1)};
    Axis ay{0, hi * 1.1, false, y0 + ph - 40, y0 + 16};
    for (double t : ay.Ticks()) {
      double y = ay.Map(t);
      svg.Line(ax.p0, y, ax.p1, y, "#e5e5e5", 1);
      svg.Text(ax.p0 - 4, y + 4, TickLabel(t) + (panel == 0 ? "%" : ""), 9, "end", "#555");
    }
    svg.Line(ax.p0, ay.p0, ax.p1, ay.p0, "#333", 1);
    svg.Text(left, y0 + 8,
             panel == 0 ? "Anomalous jobs, % of the VC's jobs" : "Total extra wait, hours", 11,
             "start", "#111", 0, true);
    for (size_t g = 0; g <= vcs.size(); g++) {
      double gx = ax.Map(static_cast<double>(g)) + 6;
      for (size_t k = 0; k < ms.size(); k++) {
        const VcMetrics& v = g < vcs.size() ? ms[k]->vcs[g] : ms[k]->overall;
        double val = value(v);
        double y = ay.Map(val);
        svg.Rect(gx + 14 * k, y, 12, ay.p0 - y, StyleOf(ms[k]->policy).color);
      }
      svg.Text(gx + 7 * ms.size(), ay.p0 + 12, g < vcs.size() ? vcs[g].vc : "all", 9, "middle",
               "#333");
    }
  }
  return svg.Str();
}

std::string Utilisation(const Study& s) {
  const Metrics& m0 = s.metrics[0];
  double t0 = m0.window_start, t1 = m0.window_end;
  if (t1 <= t0) t1 = t0 + std::max(1.0, m0.makespan);
  const double left = 60, top = 60, w = 820, h = 300;
  Svg svg(left + w + 20, top + h + 50);
  svg.Text(left, 22,
           "GPU utilisation over time (share of the GPUs each setup has, busy with any job)", 13,
           "start", "#111", 0, true);
  Legend(svg, s, left, 44);
  double days = (t1 - t0) / 86400;
  Axis ax{0, days, false, left, left + w};
  Axis ay{0, 100, false, top + h, top + 10};
  Frame(svg, ax, ay, true, true, "%");
  svg.Text(left + w / 2, top + h + 32, "days from the first submit", 11, "middle", "#333");
  const int bins = 150;
  for (const auto& r : s.results) {
    auto u = UtilisationSeries(r, t0, t1, bins);
    std::vector<std::pair<double, double>> pts;
    for (int b = 0; b < bins; b++)
      pts.push_back({ax.Map((b + 0.5) * days / bins), ay.Map(100 * u[b])});
    Style st = StyleOf(r.policy);
    svg.Polyline(pts, st.color, 1.4, st.dash);
  }
  return svg.Str();
}

}  // namespace

bool WritePlots(const Study& s, const std::string& dir, const std::string& prefix,
                std::string* err) {
  if (s.metrics.empty()) return true;
  return WriteFile(dir + "/" + prefix + "delay-cdf.svg", DelayCdf(s), err) &&
         WriteFile(dir + "/" + prefix + "anomaly.svg", AnomalyBars(s), err) &&
         WriteFile(dir + "/" + prefix + "utilisation.svg", Utilisation(s), err);
}

}  // namespace hivedsim
