// SPDX-License-Identifier: GPL-2.0-or-later
#include "topo/spec_json.h"

#include <cstdio>

namespace hived {
namespace topo {

std::string json_quote(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        o += "\\\"";
        break;
      case '\\':
        o += "\\\\";
        break;
      case '\n':
        o += "\\n";
        break;
      case '\t':
        o += "\\t";
        break;
      case '\r':
        o += "\\r";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          snprintf(buf, sizeof buf, "\\u%04x", c);
          o += buf;
        } else {
          o += static_cast<char>(c);
        }
    }
  }
  return o + "\"";
}

namespace {

void cell(const PhysicalCellSpec& c, const std::string& indent, std::string* o) {
  *o += indent + "{";
  std::string sep;
  if (!c.cell_type.empty()) *o += "\"cellType\": " + json_quote(c.cell_type), sep = ", ";
  if (!c.address.empty()) *o += sep + "\"cellAddress\": " + json_quote(c.address), sep = ", ";
  if (!c.pinned_id.empty()) *o += sep + "\"pinnedCellId\": " + json_quote(c.pinned_id), sep = ", ";
  if (c.children.empty()) {
    *o += "}";
    return;
  }
  // Leaves of one parent fit on one line.
  bool leaves = true;
  for (const auto& k : c.children) leaves = leaves && k.children.empty() && k.pinned_id.empty();
  *o += sep + "\"cellChildren\": [";
  if (leaves) {
    for (size_t i = 0; i < c.children.size(); i++) {
      std::string one;
      cell(c.children[i], "", &one);
      *o += (i ? ", " : "") + one;
    }
    *o += "]}";
    return;
  }
  *o += "\n";
  for (size_t i = 0; i < c.children.size(); i++) {
    cell(c.children[i], indent + "  ", o);
    *o += i + 1 < c.children.size() ? ",\n" : "\n";
  }
  *o += indent + "]}";
}

}  // namespace

std::string spec_to_hived_conf(const ClusterSpec& spec) {
  std::string o = "{\n  \"physicalCluster\": {\n    \"cellTypes\": {";
  for (size_t i = 0; i < spec.cell_types.size(); i++) {
    const auto& t = spec.cell_types[i];
    o += (i ? ",\n" : "\n") + std::string(6, ' ') + json_quote(t.name) +
         ": {\"childCellType\": " + json_quote(t.child_type) +
         ", \"childCellNumber\": " + std::to_string(t.child_count) +
         (t.is_gpu_level ? ", \"isGpuLevel\": true" : "") +
         (t.child_is_mig_slice ? ", \"childIsMigSlice\": true" : "") +
         (t.is_node_level ? ", \"isNodeLevel\": true}" : "}");
  }
  o += spec.cell_types.empty() ? "},\n" : "\n    },\n";
  o += "    \"physicalCells\": [";
  for (size_t i = 0; i < spec.physical_cells.size(); i++) {
    o += i ? ",\n" : "\n";
    cell(spec.physical_cells[i], "      ", &o);
  }
  o += spec.physical_cells.empty() ? "]\n  }" : "\n    ]\n  }";
  if (!spec.vcs.empty()) {
    o += ",\n  \"virtualClusters\": {";
    for (size_t i = 0; i < spec.vcs.size(); i++) {
      const auto& vc = spec.vcs[i];
      o +=
          (i ? ",\n" : "\n") + std::string(4, ' ') + json_quote(vc.name) + ": {\"virtualCells\": [";
      for (size_t k = 0; k < vc.virtual_cells.size(); k++)
        o += (k ? ", " : "") + std::string("{\"cellType\": ") +
             json_quote(vc.virtual_cells[k].cell_type) +
             ", \"cellNumber\": " + std::to_string(vc.virtual_cells[k].count) + "}";
      o += "]";
      if (!vc.pinned_cells.empty()) {
        o += ", \"pinnedCells\": [";
        for (size_t k = 0; k < vc.pinned_cells.size(); k++)
          o += (k ? ", " : "") + std::string("{\"pinnedCellId\": ") +
               json_quote(vc.pinned_cells[k]) + "}";
        o += "]";
      }
      o += "}";
    }
    o += "\n  }";
  }
  return o + "\n}\n";
}

}  // namespace topo
}  // namespace hived
