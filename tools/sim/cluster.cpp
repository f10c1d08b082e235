// SPDX-License-Identifier: GPL-2.0-or-later
#include "cluster.h"

#include <cstdio>

namespace hivedsim {

int64_t VcCells::Gpus(int rack_nodes) const {
  return (int64_t{racks} * rack_nodes + nodes) * kGpusPerNode + int64_t{sockets} * 4 +
         int64_t{pairs} * 2 + gpus;
}

std::string VcCells::Describe(int rack_nodes) const {
  std::string s;
  auto add = [&](int n, const char* one, const char* many) {
    if (!n) return;
    if (!s.empty()) s += " + ";
    s += std::to_string(n) + " " + (n == 1 ? one : many);
  };
  add(racks, "rack", "racks");
  add(nodes, "node", "nodes");
  add(sockets, "socket", "sockets");
  add(pairs, "pair", "pairs");
  add(gpus, "GPU", "GPUs");
  (void)rack_nodes;
  return s.empty() ? "none" : s;
}

VcCells CellsForGpus(int64_t gpus) {
  VcCells c;
  c.nodes = static_cast<int>(gpus / kGpusPerNode);
  int r = static_cast<int>(gpus % kGpusPerNode);
  c.sockets = r / 4;
  c.pairs = (r % 4) / 2;
  c.gpus = r % 2;
  return c;
}

std::string NodeName(int node, int nodes) {
  int width = 1;
  for (int n = nodes - 1; n >= 10; n /= 10) width++;
  char buf[32];
  snprintf(buf, sizeof buf, "n%0*d", width < 3 ? 3 : width, node);
  return buf;
}

std::string JsonString(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o.push_back('\\');
      o.push_back(static_cast<char>(c));
    } else if (c < 0x20) {
      char b[8];
      snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o.push_back(static_cast<char>(c));
    }
  }
  return o + "\"";
}

std::string MakeHivedConf(const ClusterShape& shape, const std::vector<std::string>& vcs,
                          const std::vector<VcCells>& cells) {
  const bool racks = shape.rack_nodes > 0;
  std::string o = "{\n  \"physicalCluster\": {\n    \"cellTypes\": {\n";
  o += "      \"PAIR\": {\"childCellType\": \"GPU\", \"childCellNumber\": 2},\n";
  o += "      \"SOCKET\": {\"childCellType\": \"PAIR\", \"childCellNumber\": 2},\n";
  o += "      \"NODE\": {\"childCellType\": \"SOCKET\", \"childCellNumber\": 2, \"isNodeLevel\": "
       "true}";
  if (racks)
    o += ",\n      \"RACK\": {\"childCellType\": \"NODE\", \"childCellNumber\": " +
         std::to_string(shape.rack_nodes) + "}";
  o += "\n    },\n    \"physicalCells\": [";
  if (racks) {
    int nracks = shape.nodes / shape.rack_nodes;
    for (int r = 0; r < nracks; r++) {
      o += r ? ",\n" : "\n";
      char name[32];
      snprintf(name, sizeof name, "rack%03d", r);
      o += "      {\"cellType\": \"RACK\", \"cellAddress\": \"" + std::string(name) +
           "\", \"cellChildren\": [";
      for (int k = 0; k < shape.rack_nodes; k++) {
        o += k ? ", " : "";
        o += "{\"cellAddress\": \"" + NodeName(r * shape.rack_nodes + k, shape.nodes) + "\"}";
      }
      o += "]}";
    }
  } else {
    for (int n = 0; n < shape.nodes; n++) {
      o += n ? ",\n" : "\n";
      o += "      {\"cellType\": \"NODE\", \"cellAddress\": \"" + NodeName(n, shape.nodes) + "\"}";
    }
  }
  o += "\n    ]\n  },\n  \"virtualClusters\": {";
  const std::string top = racks ? "RACK." : "";
  bool first = true;
  for (size_t v = 0; v < vcs.size() && v < cells.size(); v++) {
    const VcCells& c = cells[v];
    if (c.Gpus(shape.rack_nodes) == 0) continue;
    o += first ? "\n" : ",\n";
    first = false;
    o += "    " + JsonString(vcs[v]) + ": {\"virtualCells\": [";
    bool f2 = true;
    auto add = [&](int n, const std::string& path) {
      if (!n) return;
      o += f2 ? "\n" : ",\n";
      f2 = false;
      o += "      {\"cellType\": \"" + path + "\", \"cellNumber\": " + std::to_string(n) + "}";
    };
    if (racks) add(c.racks, "RACK");
    add(c.nodes, top + "NODE");
    add(c.sockets, top + "NODE.SOCKET");
    add(c.pairs, top + "NODE.SOCKET.PAIR");
    add(c.gpus, top + "NODE.SOCKET.PAIR.GPU");
    o += "\n    ]}";
  }
  o += "\n  }\n}\n";
  return o;
}

ClusterShape PrivateShape(const VcCells& cells, int rack_nodes) {
  ClusterShape s;
  s.rack_nodes = rack_nodes;
  int64_t small = int64_t{cells.sockets} * 4 + int64_t{cells.pairs} * 2 + cells.gpus;
  int64_t nodes =
      int64_t{cells.racks} * rack_nodes + cells.nodes + (small + kGpusPerNode - 1) / kGpusPerNode;
  if (rack_nodes > 0) nodes = (nodes + rack_nodes - 1) / rack_nodes * rack_nodes;
  s.nodes = static_cast<int>(nodes);
  return s;
}

}  // namespace hivedsim
