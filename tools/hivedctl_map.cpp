// SPDX-License-Identifier: GPL-2.0-or-later
// hivedctl map: racks -> nodes -> GPUs as SVG (standalone, or inside an HTML page
// with the VC table). Each GPU says in its <title> (the hover text) which job runs
// on it; data-* attributes carry the same for scripts and tests.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "hivedctl_views.h"
#include "xml_text.h"

namespace hivedctl {

const char* MapColors::kFree = "#e4e4e4";
const char* MapColors::kBad = "#3c3c3c";
const char* MapColors::kBoundIdleFill = "#ffffff";
const char* MapColors::kNoVc = "#8c8c8c";

namespace {

const char* kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1",
                          "#edc948", "#76b7b2", "#ff9da7", "#9c755f", "#17becf"};
constexpr size_t kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);

std::string Hex(int r, int g, int b) {
  char buf[8];
  snprintf(buf, sizeof(buf), "#%02x%02x%02x", r, g, b);
  return buf;
}

// Beyond the palette: hues spaced by the golden angle, mid saturation.
std::string Generated(size_t i) {
  double h = std::fmod(i * 137.508, 360.0) / 60.0, s = 0.55, v = 0.75;
  double c = v * s, x = c * (1 - std::fabs(std::fmod(h, 2.0) - 1)), m = v - c;
  double r = 0, g = 0, b = 0;
  int k = static_cast<int>(h);
  if (k == 0)
    r = c, g = x;
  else if (k == 1)
    r = x, g = c;
  else if (k == 2)
    g = c, b = x;
  else if (k == 3)
    g = x, b = c;
  else if (k == 4)
    r = x, b = c;
  else
    r = c, b = x;
  return Hex(static_cast<int>((r + m) * 255), static_cast<int>((g + m) * 255),
             static_cast<int>((b + m) * 255));
}

// Mix a colour with white: the opportunistic shade of a VC.
std::string Lighter(const std::string& hex) {
  int r = 0, g = 0, b = 0;
  sscanf(hex.c_str(), "#%02x%02x%02x", &r, &g, &b);
  auto mix = [](int c) { return c + (255 - c) * 55 / 100; };
  return Hex(mix(r), mix(g), mix(b));
}

constexpr int kGpu = 14, kGap = 2, kGroupGap = 5, kPad = 6, kLabel = 14;
constexpr int kNodeGap = 8, kRackPad = 8, kRackLabel = 18, kMaxWidth = 1100;

struct NodeView {
  std::string name;
  std::vector<const Node*> cells;  // one per chain
  int Gpus() const {
    int n = 0;
    for (const Node* c : cells) n += static_cast<int>(c->gpus.size());
    return n;
  }
};

// A MIG slice of a node, and the GPU in MIG mode drawn around its slices.
struct Slice {
  const Gpu* gpu;
  const Chain* chain;
  bool bad;
};

// The status does not say which GPU a slice is part of: slices in GRES order
// (the order of gres.conf, a GPU's slices together) fill one GPU frame of 7
// compute slots after another.
std::vector<std::vector<Slice>> MigFrames(const Status& s, const NodeView& n) {
  std::vector<Slice> slices;
  for (const Node* c : n.cells) {
    const Chain* ch = s.FindChain(c->chain);
    if (!ch || !ch->mig_slots) continue;
    for (const auto& g : c->gpus) slices.push_back({&g, ch, g.bad || c->bad});
  }
  std::sort(slices.begin(), slices.end(),
            [](const Slice& a, const Slice& b) { return a.gpu->gpu < b.gpu->gpu; });
  std::vector<std::vector<Slice>> frames;
  int used = 7;
  for (const auto& sl : slices) {
    if (used + sl.chain->mig_slots > 7) {
      frames.emplace_back();
      used = 0;
    }
    frames.back().push_back(sl);
    used += sl.chain->mig_slots;
  }
  return frames;
}

bool IsMig(const Status& s, const Node* c) {
  const Chain* ch = s.FindChain(c->chain);
  return ch && ch->mig_slots;
}

struct RackView {
  std::string label;
  std::vector<NodeView> nodes;
};

std::vector<RackView> Racks(const Status& s) {
  std::vector<RackView> racks;
  std::map<std::string, size_t> rack_index;
  std::map<std::string, std::pair<size_t, size_t>> node_index;
  for (const auto& n : s.nodes) {
    std::string label;
    for (const auto& a : n.above) label += (label.empty() ? "" : " / ") + a.address;
    if (label.empty()) label = "nodes";
    auto it = node_index.find(n.name);
    if (it != node_index.end()) {
      racks[it->second.first].nodes[it->second.second].cells.push_back(&n);
      continue;
    }
    auto r = rack_index.find(label);
    if (r == rack_index.end()) {
      r = rack_index.emplace(label, racks.size()).first;
      racks.push_back({label, {}});
    }
    RackView& rv = racks[r->second];
    node_index[n.name] = {r->second, rv.nodes.size()};
    rv.nodes.push_back({n.name, {&n}});
  }
  return racks;
}

int NodeWidth(const Status& s, const NodeView& n) {
  int w = kPad * 2, gpus = 0;
  for (size_t f = 0; f < MigFrames(s, n).size(); f++) w += kGpu + (gpus++ ? kGroupGap : 0);
  for (const Node* c : n.cells) {
    if (IsMig(s, c)) continue;
    int prev_group = -1;
    for (const auto& g : c->gpus) {
      int grp = g.groups.empty() ? 0 : g.groups[0].index;
      if (gpus) w += (grp != prev_group) ? kGroupGap : kGap;
      w += kGpu;
      prev_group = grp;
      gpus++;
    }
    prev_group = -1;
  }
  return std::max(w, 60);
}

// A GPU split into fractions: its square cut into a grid of one box per fraction
// (two rows; 8 eighths are 4 x 2), each box coloured as a whole GPU would be, and
// the shares by VC in the hover text and data-shares ("A:3,B:2,free:3").
template <typename Color>
std::string SplitGpu(const std::string& node, const Gpu& g, bool bad, int gx, int gy,
                     std::map<std::string, const Job*>& jobs, const Color& vc_color,
                     bool* any_no_vc, const std::map<std::string, size_t>* vc_index) {
  const int n = static_cast<int>(g.slots.size());
  const int rows = n >= 4 ? 2 : 1, cols = (n + rows - 1) / rows;
  const double w = static_cast<double>(kGpu) / cols, h = static_cast<double>(kGpu) / rows;
  std::map<std::string, int> shares;  // "VC" or "free" or "idle (bound to VC)"
  std::vector<std::string> order;
  std::ostringstream boxes;
  for (int i = 0; i < n; i++) {
    const Slot& sl = g.slots[i];
    const Job* job = sl.job.empty() ? nullptr : (jobs.count(sl.job) ? jobs[sl.job] : nullptr);
    const bool opp = sl.cls == "opportunistic";
    const std::string job_vc = job ? job->vc : sl.vc;
    std::string state, fill, key, stroke = "#ffffff";
    if (!sl.job.empty()) {
      state = opp ? "opportunistic" : "guaranteed";
      fill = vc_color(job_vc, opp);
      *any_no_vc |= !vc_index->count(job_vc);
      key = (job_vc.empty() ? "no VC" : job_vc) + (opp ? " opportunistic" : "");
    } else if (bad) {
      state = key = "bad";
      fill = MapColors::kBad;
    } else if (!sl.vc.empty()) {
      state = "bound";
      fill = MapColors::kBoundIdleFill;
      stroke = vc_color(sl.vc, false);
      key = "idle (" + sl.vc + ")";
    } else {
      state = key = "free";
      fill = MapColors::kFree;
    }
    if (!shares.count(key)) order.push_back(key);
    shares[key]++;
    char xy[64];
    snprintf(xy, sizeof(xy), "x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"",
             gx + (i % cols) * w, gy + (i / cols) * h, w, h);
    boxes << "<rect class=\"slot " << state << "\" " << xy << " fill=\"" << fill << "\" stroke=\""
          << stroke << "\" stroke-width=\"0.4\" data-slot=\"" << i << "\" data-state=\"" << state
          << "\" data-vc=\"" << Xml(sl.vc) << "\" data-job=\"" << Xml(sl.job) << "\"/>";
  }
  std::string share_text, share_data;
  for (const auto& k : order) {
    share_text += (share_text.empty() ? "" : ", ") + std::to_string(shares[k]) + "/" +
                  std::to_string(n) + " " + k;
    share_data += (share_data.empty() ? "" : ",") + k + ":" + std::to_string(shares[k]);
  }
  std::set<std::string> job_names;
  for (const auto& sl : g.slots)
    if (!sl.job.empty()) job_names.insert(sl.job);
  std::string jobs_text;
  for (const auto& j : job_names) jobs_text += (jobs_text.empty() ? "" : ", ") + j;
  std::string title = node + " GPU " + std::to_string(g.gpu) + ": split in " + std::to_string(n) +
                      " fractions: " + share_text;
  if (!jobs_text.empty()) title += "; jobs " + jobs_text;
  if (bad) title += "; bad";
  std::ostringstream o;
  o << "<g class=\"gpu split\" data-node=\"" << Xml(node) << "\" data-gpu=\"" << g.gpu
    << "\" data-state=\"split\" data-fractions=\"" << n << "\" data-used=\"" << g.SlotsUsed()
    << "\" data-shares=\"" << Xml(share_data) << "\"><title>" << Xml(title) << "</title>"
    << boxes.str() << "<rect x=\"" << gx << "\" y=\"" << gy << "\" width=\"" << kGpu
    << "\" height=\"" << kGpu << "\" fill=\"none\" stroke=\"#333333\" stroke-width=\"1\""
    << " pointer-events=\"none\"/></g>";
  return o.str();
}

struct Legend {
  std::string fill, stroke, text;
  double stroke_width = 1;
};

}  // namespace

std::string MapColors::Vc(size_t index) {
  return index < kPaletteSize ? kPalette[index] : Generated(index);
}

std::string MapColors::VcOpportunistic(size_t index) { return Lighter(Vc(index)); }

std::string Xml(const std::string& text) { return hivedtools::XmlText(text); }

std::string MapSvg(const Status& s, int64_t now) {
  std::map<std::string, size_t> vc_index;
  for (size_t i = 0; i < s.vcs.size(); i++) vc_index[s.vcs[i].name] = i;
  std::map<std::string, const Job*> jobs;
  for (const auto& j : s.jobs) jobs[j.job] = &j;
  auto vc_color = [&](const std::string& vc, bool opp) -> std::string {
    auto it = vc_index.find(vc);
    if (it == vc_index.end()) return MapColors::kNoVc;
    return opp ? MapColors::VcOpportunistic(it->second) : MapColors::Vc(it->second);
  };

  bool any_no_vc = false, any_split = false, any_mig = false;
  // One GPU (or MIG slice) box: coloured by its job's VC and class, or by its state.
  std::ostringstream nodes;
  int gy = 0;
  std::string node_name;
  auto DrawGpu = [&](const Gpu& g, bool bad, double x, double w, const std::string& label,
                     const std::string& extra) {
    const Job* job = g.job.empty() ? nullptr : (jobs.count(g.job) ? jobs[g.job] : nullptr);
    const bool opp = g.cls == "opportunistic";
    std::string job_vc = job ? job->vc : g.vc;
    std::string state, fill, stroke = "#9a9a9a";
    double sw = 0.5;
    if (!g.job.empty()) {
      state = opp ? "opportunistic" : "guaranteed";
      fill = vc_color(job_vc, opp);
      any_no_vc |= !vc_index.count(job_vc);
    } else if (bad) {
      state = "bad";
      fill = MapColors::kBad;
    } else if (!g.vc.empty()) {
      state = "bound";
      fill = MapColors::kBoundIdleFill;
      stroke = vc_color(g.vc, false);
      sw = 2;
    } else {
      state = "free";
      fill = MapColors::kFree;
    }
    std::string title = label + ": ";
    if (!g.job.empty())
      title += "job " + g.job + " (" + (job_vc.empty() ? "no VC" : job_vc) + ", " + state +
               (!job || !job->lazy_preempted ? ""
                : job->borrowed              ? ", borrowed idle GPUs"
                                             : ", lazy-preempted") +
               ")";
    else
      title += "idle";
    title += g.vc.empty() ? "; cell not bound to a VC" : "; cell bound to " + g.vc;
    if (bad) title += "; bad";
    nodes << "<rect class=\"gpu " << state << "\" x=\"" << x << "\" y=\"" << gy << "\" width=\""
          << w << "\" height=\"" << kGpu << "\" fill=\"" << fill << "\" stroke=\"" << stroke
          << "\" stroke-width=\"" << sw << "\" data-node=\"" << Xml(node_name) << "\" data-gpu=\""
          << g.gpu << "\"" << extra << " data-state=\"" << state << "\" data-vc=\"" << Xml(g.vc)
          << "\" data-job=\"" << Xml(g.job) << "\"><title>" << Xml(title) << "</title></rect>";
    if (bad && !g.job.empty())  // a job still running on a bad node: mark the GPU
      nodes << "<path d=\"M" << x << " " << gy << "l" << w << " " << kGpu << "\" stroke=\""
            << MapColors::kBad << "\" stroke-width=\"2\" pointer-events=\"none\"/>";
  };
  std::vector<RackView> racks = Racks(s);
  std::ostringstream body;
  int y = 28, width = 400;
  for (const auto& rack : racks) {
    // Lay nodes out in rows no wider than kMaxWidth.
    int x = kRackPad, row_y = y + kRackLabel, row_h = 0, rack_w = 0;
    nodes.str("");
    for (const auto& n : rack.nodes) {
      int w = NodeWidth(s, n), h = kLabel + kGpu + kPad * 2;
      if (x > kRackPad && x + w > kMaxWidth) {
        x = kRackPad;
        row_y += row_h + kNodeGap;
        row_h = 0;
      }
      bool node_bad = false;
      for (const Node* c : n.cells) node_bad |= c->bad;
      nodes << "<g class=\"node\" data-node=\"" << Xml(n.name) << "\">";
      nodes << "<rect x=\"" << x << "\" y=\"" << row_y << "\" width=\"" << w << "\" height=\"" << h
            << "\" rx=\"3\" fill=\"#fafafa\" stroke=\"" << (node_bad ? MapColors::kBad : "#9a9a9a")
            << "\" stroke-width=\"" << (node_bad ? 2 : 1) << "\"/>";
      nodes << "<text x=\"" << x + kPad << "\" y=\"" << row_y + kLabel - 2 << "\" font-size=\"11\">"
            << Xml(n.name) << (node_bad ? " (bad)" : "") << "</text>";
      int gx = x + kPad, count = 0;
      gy = row_y + kLabel + kPad - 2;
      node_name = n.name;
      for (const Node* c : n.cells) {
        if (IsMig(s, c)) continue;  // drawn inside their GPU, below
        int prev_group = -1;
        for (const auto& g : c->gpus) {
          int grp = g.groups.empty() ? 0 : g.groups[0].index;
          if (count) gx += (grp != prev_group) ? kGroupGap : kGap;
          prev_group = grp;
          count++;
          const bool bad = g.bad || c->bad;
          if (g.Split()) {
            nodes << SplitGpu(n.name, g, bad, gx, gy, jobs, vc_color, &any_no_vc, &vc_index);
            any_split = true;
            gx += kGpu;
            continue;
          }
          DrawGpu(g, bad, gx, kGpu, n.name + " GPU " + std::to_string(g.gpu), "");
          gx += kGpu;
        }
      }
      // A GPU in MIG mode: a frame, its slices side by side, as wide as their slots.
      for (const auto& frame : MigFrames(s, n)) {
        if (count++) gx += kGroupGap;
        std::string list;
        for (const auto& sl : frame)
          list +=
              (list.empty() ? "" : ", ") + std::to_string(sl.gpu->gpu) + " " + sl.chain->leaf_type;
        nodes << "<rect class=\"mig-gpu\" x=\"" << gx << "\" y=\"" << gy << "\" width=\"" << kGpu
              << "\" height=\"" << kGpu << "\" fill=\"" << MapColors::kFree
              << "\" stroke=\"#333333\" stroke-width=\"1\" data-node=\"" << Xml(n.name)
              << "\"><title>" << Xml(n.name + " GPU in MIG mode: slices " + list)
              << "</title></rect>";
        double sx = gx;
        for (const auto& sl : frame) {
          double sw = kGpu * sl.chain->mig_slots / 7.0;
          std::string slots = std::to_string(sl.chain->mig_slots);
          DrawGpu(*sl.gpu, sl.bad, sx, sw,
                  n.name + " MIG slice " + std::to_string(sl.gpu->gpu) + " (" +
                      sl.chain->leaf_type + ", " + slots + " of 7 compute slots)",
                  " data-slice=\"" + sl.chain->leaf_type + "\"");
          sx += sw;
        }
        any_mig = true;
        gx += kGpu;
      }
      nodes << "</g>\n";
      x += w + kNodeGap;
      row_h = std::max(row_h, h);
      rack_w = std::max(rack_w, x);
    }
    int rack_h = row_y + row_h + kRackPad - y;
    body << "<g class=\"rack\" data-rack=\"" << Xml(rack.label) << "\">";
    body << "<rect x=\"0\" y=\"" << y << "\" width=\"" << rack_w + kRackPad - kNodeGap
         << "\" height=\"" << rack_h << "\" rx=\"5\" fill=\"#f3f5f8\" stroke=\"#c5ccd6\"/>";
    body << "<text x=\"" << kRackPad << "\" y=\"" << y + 14
         << "\" font-size=\"12\" font-weight=\"bold\">" << Xml(rack.label) << "</text>\n";
    body << nodes.str() << "</g>\n";
    width = std::max(width, rack_w + kRackPad);
    y += rack_h + 10;
  }

  // Legend: states, then each VC's two shades and its doomed cells.
  std::vector<Legend> legend = {
      {MapColors::kFree, "#9a9a9a", "free", 0.5},
      {MapColors::kBoundIdleFill, "#555555", "idle, bound to a VC (border: VC colour)", 2},
      {MapColors::kBad, "#9a9a9a", "bad", 0.5},
  };
  for (size_t i = 0; i < s.vcs.size(); i++) {
    const Vc& vc = s.vcs[i];
    legend.push_back({MapColors::Vc(i), "#9a9a9a", vc.name + " guaranteed", 0.5});
    std::string doomed;
    for (const auto& c : vc.cells)
      if (c.doomed)
        doomed += (doomed.empty() ? "" : ", ") + std::to_string(c.doomed) + " " + c.cell_type;
    legend.push_back(
        {MapColors::VcOpportunistic(i), "#9a9a9a",
         vc.name + " opportunistic" + (doomed.empty() ? "" : "  \u2014 doomed: " + doomed), 0.5});
  }
  if (any_no_vc) legend.push_back({MapColors::kNoVc, "#9a9a9a", "no VC (opportunistic)", 0.5});
  if (any_split)
    legend.push_back({"url(#hived-split)", "#333333",
                      "split GPU: one box per fraction, coloured as above (hover: shares)", 1});
  if (any_mig)
    legend.push_back({MapColors::kFree, "#333333",
                      "GPU in MIG mode: its slices side by side, as wide as their compute slots",
                      1});
  std::ostringstream leg;
  int ly = y + 6;
  leg << "<g class=\"legend\">";
  for (const auto& l : legend) {
    bool doomed = l.text.find("doomed") != std::string::npos;
    leg << "<rect class=\"swatch\" x=\"0\" y=\"" << ly << "\" width=\"" << kGpu << "\" height=\""
        << kGpu << "\" fill=\"" << l.fill << "\" stroke=\"" << l.stroke << "\" stroke-width=\""
        << l.stroke_width << "\"/><text x=\"" << kGpu + 6 << "\" y=\"" << ly + 11
        << "\" font-size=\"11\"" << (doomed ? " fill=\"#b00020\"" : "") << ">" << Xml(l.text)
        << "</text>";
    ly += kGpu + 4;
  }
  leg << "</g>\n";

  std::ostringstream o;
  const std::string title = "HiveD cells as of " + AsOf(s, now);
  width = std::max(width, static_cast<int>(title.size()) * 9);  // bold 14px text
  int height = ly + 6;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"sans-serif\">\n";
  if (any_split)  // the legend's swatch for split GPUs: a GPU in four fractions
    o << "<defs><pattern id=\"hived-split\" width=\"7\" height=\"7\" "
         "patternUnits=\"userSpaceOnUse\"><rect width=\"7\" height=\"7\" fill=\""
      << MapColors::kFree << "\" stroke=\"#333333\" stroke-width=\"0.5\"/></pattern></defs>\n";
  o << "<rect x=\"0\" y=\"0\" width=\"" << width << "\" height=\"" << height
    << "\" fill=\"#ffffff\"/>\n";
  o << "<text x=\"0\" y=\"16\" font-size=\"14\" font-weight=\"bold\">" << Xml(title) << "</text>\n";
  o << body.str() << leg.str() << "</svg>\n";
  return o.str();
}

std::string MapHtml(const Status& s, int64_t now) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    << "<title>HiveD cell map</title>\n<style>\n"
    << "body{font-family:sans-serif;margin:16px;color:#222}\n"
    << "table{border-collapse:collapse;margin-top:12px}\n"
    << "th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}\n"
    << "th:first-child,td:first-child{text-align:left}\n"
    << "td.doomed{color:#b00020;font-weight:bold}\n"
    << "span.sw{display:inline-block;width:12px;height:12px;border:1px solid #999;margin-right:4px;"
       "vertical-align:middle}\n"
    << "</style>\n</head>\n<body>\n";
  o << "<h1 style=\"font-size:18px\">HiveD cell map</h1>\n";
  // The page is read long after it is written (cron, a web server): its age is
  // computed by the browser when viewed, from the status file's time.
  o << "<p id=\"age\" data-written=\"" << s.written << "\">Status written "
    << Xml(s.written ? TimeText(s.written) : "at an unknown time")
    << "<span id=\"ago\"></span></p>\n"
    << "<script>(function(){var p=document.getElementById('age'),w=+p.dataset.written;"
       "if(!w)return;function u(){var a=Math.max(0,Math.round(Date.now()/1000-w));"
       "document.getElementById('ago').textContent=' ('+a+' s ago)';}u();setInterval(u,1000);})();"
       "</script>\n";
  o << "<p>Racks, nodes and GPUs as select/hived holds them; hover a GPU for its job. "
    << s.jobs.size() << " jobs hold cells, " << s.pending.size() << " wait.</p>\n";
  o << MapSvg(s, 0);  // no age baked into the title
  o << "<table "
       "id=\"vcs\">\n<tr><th>VC</th><th>colour</th><th>quota</th><th>bound</th><th>doomed</th>"
       "<th>guaranteed GPUs</th><th>opportunistic GPUs</th><th>waiting</th></tr>\n";
  for (size_t i = 0; i < s.vcs.size(); i++) {
    const Vc& vc = s.vcs[i];
    std::string quota, bound, doomed;
    int64_t doomed_n = 0;
    for (const auto& c : vc.cells) {
      quota += (quota.empty() ? "" : ", ") + std::to_string(c.total) + " " + c.cell_type;
      bound += (bound.empty() ? "" : ", ") + std::to_string(c.bound) + " " + c.cell_type;
      doomed += (doomed.empty() ? "" : ", ") + std::to_string(c.doomed) + " " + c.cell_type;
      doomed_n += c.doomed;
    }
    o << "<tr data-vc=\"" << Xml(vc.name) << "\"><td>" << Xml(vc.name)
      << "</td><td><span class=\"sw\" style=\"background:" << MapColors::Vc(i)
      << "\"></span><span class=\"sw\" style=\"background:" << MapColors::VcOpportunistic(i)
      << "\"></span></td><td>" << Xml(quota) << "</td><td>" << Xml(bound) << "</td><td"
      << (doomed_n ? " class=\"doomed\"" : "") << ">" << Xml(doomed) << "</td><td>" << vc.used_gpus
      << "</td><td>" << vc.opp_gpus << "</td><td>" << s.WaitingGuaranteed(vc.name)
      << "</td></tr>\n";
  }
  o << "</table>\n<p style=\"font-size:12px;color:#555\">Doomed: quota cells of a VC that no "
       "healthy free "
       "physical cell can serve now (bad hardware); the VC's guaranteed jobs needing them "
       "wait.</p>\n";
  o << "</body>\n</html>\n";
  return o.str();
}

}  // namespace hivedctl
