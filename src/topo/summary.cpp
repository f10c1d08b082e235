// SPDX-License-Identifier: GPL-2.0-or-later
#include "topo/summary.h"

#include <algorithm>
#include <cstdio>

#include "topo/chain_table.h"
#include "topo/hostlist.h"

namespace hived {
namespace topo {
namespace {

std::string pad_right(const std::string& s, size_t w) {
  return s.size() >= w ? s : s + std::string(w - s.size(), ' ');
}
std::string pad_left(const std::string& s, size_t w) {
  return s.size() >= w ? s : std::string(w - s.size(), ' ') + s;
}

std::string plural(int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// GPUs in one cell of a level: a count, or "1/8" below the GPU level.
std::string gpus_per_cell(const ChainInfo& ch, int level) {
  if (level >= ch.gpu_level) return std::to_string(ch.levels[level].leaves / ch.leaves_per_gpu());
  return "1/" + std::to_string(ch.leaves_per_gpu() / ch.levels[level].leaves);
}

void list(const char* title, const std::vector<std::string>& items, std::string* o) {
  if (items.empty()) return;
  *o += std::string(title) + ":\n";
  for (const auto& i : items) *o += "  " + i + "\n";
}

}  // namespace

std::string hierarchy_summary(const ClusterSpec& spec, const DeriveReport* report) {
  std::string o;
  ChainTable t;
  Status err = build_chain_table(spec, &t);
  if (!err.ok()) return "cell hierarchy: invalid: " + err.msg + "\n";
  int64_t gpus = 0, slices = 0;
  std::vector<std::string> nodes;
  for (const auto& ch : t.chains) {
    (ch.mig ? slices : gpus) += ch.levels[ch.gpu_level].cells;
    for (const auto& n : ch.nodes)
      if (std::find(nodes.begin(), nodes.end(), n) == nodes.end()) nodes.push_back(n);
  }
  o += "cell hierarchy: " + plural(static_cast<int64_t>(t.chains.size()), "chain", "chains") +
       ", " + plural(static_cast<int64_t>(nodes.size()), "node", "nodes") + ", " +
       plural(gpus, "GPU", "GPUs") +
       (slices ? ", " + plural(slices, "MIG slice", "MIG slices") : std::string()) + "\n";
  for (const auto& ch : t.chains) {
    o += "chain " + ch.top + ": " + std::to_string(ch.levels[ch.gpu_level].cells) + " " + ch.model +
         (ch.mig ? " MIG slices on " : " GPUs on ") +
         (ch.nodes.empty() ? std::string("unnamed nodes") : compress_hostlist(ch.nodes)) + "\n";
    size_t w = 4;
    for (int l = 1; l <= ch.top_level(); l++) w = std::max(w, ch.levels[l].type.size());
    size_t cw = 5;  // "cells", or the widest count
    for (int l = 1; l <= ch.top_level(); l++)
      cw = std::max(cw, std::to_string(ch.levels[l].cells).size());
    o += "  level  " + pad_right("cell type", w) + "  " + pad_left("cells", cw) + "  " +
         pad_right("children", w + 4) + "  GPUs/cell\n";
    for (int l = ch.top_level(); l >= 1; l--) {
      const ChainLevelInfo& L = ch.levels[l];
      std::string kids = l > 1 ? std::to_string(L.children) + " x " + ch.levels[l - 1].type : "";
      o += "  " + pad_left(std::to_string(l), 5) + "  " + pad_right(L.type, w) + "  " +
           pad_left(std::to_string(L.cells), cw) + "  " + pad_right(kids, w + 4) + "  " +
           pad_left(gpus_per_cell(ch, l), 9);
      if (l == ch.node_level) o += "  node level";
      if (l == ch.top_level() && l != ch.node_level) {
        std::vector<std::string> addr;
        for (const auto& a : ch.top_addresses)
          if (!a.empty()) addr.push_back(a);
        if (!addr.empty()) o += "  " + compress_hostlist(addr);
      }
      o += "\n";
    }
  }
  if (!spec.vcs.empty()) {
    o += "virtual clusters:\n";
    for (const auto& vc : spec.vcs) {
      std::string cells;
      double total = 0;
      std::string leaf;
      bool mixed = false, slice = false;
      for (const auto& v : vc.virtual_cells) {
        int chain = -1, level = 0;
        Status e = resolve_cell_path(t, v.cell_type, &chain, &level);
        cells += (cells.empty() ? "" : " + ") + std::to_string(v.count) + " x " + v.cell_type;
        if (!e.ok()) {
          cells += " (" + e.msg + ")";
          continue;
        }
        const ChainInfo& ch = t.chains[chain];
        cells += " (" +
                 (level >= ch.gpu_level
                      ? std::to_string(v.count * ch.levels[level].leaves / ch.leaves_per_gpu())
                      : std::to_string(v.count) + " x " + gpus_per_cell(ch, level)) +
                 ")";
        total += static_cast<double>(v.count) * ch.levels[level].leaves / ch.leaves_per_gpu();
        if (!leaf.empty() && leaf != ch.model) mixed = true;
        leaf = ch.model;
        slice = ch.mig;
      }
      if (!vc.pinned_cells.empty())
        cells += (cells.empty() ? "" : " + ") + plural(static_cast<int64_t>(vc.pinned_cells.size()),
                                                       "pinned cell", "pinned cells");
      char num[32];
      snprintf(num, sizeof num, "%g", total);
      o +=
          "  " + vc.name + ": " + (cells.empty() ? "no cells" : cells) + " = " + num + " " +
          (mixed || leaf.empty() ? std::string("GPUs") : leaf + (slice ? " MIG slices" : " GPUs")) +
          (vc.where.compare(0, 9, "sacctmgr.") == 0 ? " [from sacctmgr GrpTRES]" : "") + "\n";
    }
  }
  if (report) {
    o += "derived nodes: " +
         (report->derived_nodes.empty() ? "none" : compress_hostlist(report->derived_nodes)) +
         "; nodes from hived.conf: " +
         (report->explicit_nodes.empty() ? "none" : compress_hostlist(report->explicit_nodes)) +
         "\n";
    if (!report->derived_types.empty()) {
      std::string s;
      for (const auto& x : report->derived_types) s += (s.empty() ? "" : ", ") + x;
      o += "derived cell types: " + s + "\n";
    }
    if (!report->reused_types.empty()) {
      std::string s;
      for (const auto& x : report->reused_types) s += (s.empty() ? "" : ", ") + x;
      o += "hived.conf cell types used for derived nodes: " + s + "\n";
    }
    if (!report->mig_gpus.empty()) {
      o += mig_slices_line(*report) + "\n";
      for (const auto& m : report->mig_gpus) o += "  " + m + "\n";
    }
    list("shards", report->fractions, &o);
    list("problems", report->problems, &o);
    std::vector<std::string> mm;
    for (const auto& m : report->mismatches) mm.push_back(m.message);
    list("nodes whose GRES disagrees with their cells", mm, &o);
    list("notes", report->notes, &o);
  }
  return o;
}

std::string mig_slices_line(const DeriveReport& report) {
  if (report.mig_gpus.empty()) return "";
  return "MIG slices: " + plural(report.mig_slices, "slice", "slices") + " on " +
         plural(static_cast<int64_t>(report.mig_gpus.size()), "GPU", "GPUs") +
         " (no GPU cell for such a GPU: each slice is a leaf cell of its profile's chain)";
}

}  // namespace topo
}  // namespace hived
