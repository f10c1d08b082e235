// SPDX-License-Identifier: GPL-2.0-or-later
#include "bench_cluster.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace hived_tools {
namespace {

constexpr int kGpusPerNode = 8;
constexpr int kNodesPerRack = 32;
constexpr int kGpusPerRack = kGpusPerNode * kNodesPerRack;

const char kCellTypes[] =
    "\"cellTypes\":{"
    "\"PAIR\":{\"childCellType\":\"V100\",\"childCellNumber\":2},"
    "\"SOCKET\":{\"childCellType\":\"PAIR\",\"childCellNumber\":2},"
    "\"NODE\":{\"childCellType\":\"SOCKET\",\"childCellNumber\":2,\"isNodeLevel\":true},"
    "\"RACK\":{\"childCellType\":\"NODE\",\"childCellNumber\":32}}";

void AppendCell(std::string *out, const char *type, int n) {
  if (n <= 0) return;
  if (out->back() != '[') out->push_back(',');
  *out += "{\"cellType\":\"";
  *out += type;
  *out += "\",\"cellNumber\":" + std::to_string(n) + "}";
}

}  // namespace

BenchCluster MakeBenchCluster(int requested_gpus, int n_vcs, double vc_share) {
  BenchCluster c;
  c.racks = std::max(1, (requested_gpus + kGpusPerRack - 1) / kGpusPerRack);
  c.nodes = c.racks * kNodesPerRack;
  c.gpus = c.nodes * kGpusPerNode;

  // Whole racks for the first two VCs only when they leave most racks to be split.
  int rack_cells = c.racks >= 8 ? 2 : (c.racks >= 4 ? 1 : 0);
  int budget = static_cast<int>(c.gpus * vc_share) - rack_cells * kGpusPerRack;
  // Unequal VC sizes (weights 1..n) so that quota pressure differs between VCs.
  int weight_sum = n_vcs * (n_vcs + 1) / 2;
  for (int v = 0; v < n_vcs; v++) {
    BenchVc vc;
    vc.name = "vc" + std::to_string(v);
    vc.racks = v < rack_cells ? 1 : 0;
    int share = budget * (n_vcs - v) / weight_sum;
    // 70% of a VC's GPUs as whole nodes, the rest as sockets and pairs.
    vc.nodes = share * 7 / 10 / kGpusPerNode;
    int rest = share - vc.nodes * kGpusPerNode;
    vc.sockets = rest / 2 / 4;
    vc.pairs = (rest - vc.sockets * 4) / 2;
    c.vcs.push_back(vc);
  }

  std::string &j = c.config_json;
  j.reserve(static_cast<size_t>(c.nodes) * 24 + 4096);
  j = "{\"physicalCluster\":{";
  j += kCellTypes;
  j += ",\"physicalCells\":[";
  for (int r = 0; r < c.racks; r++) {
    if (r > 0) j.push_back(',');
    j += "{\"cellType\":\"RACK\",\"cellAddress\":\"rack" + std::to_string(r) +
         "\",\"cellChildren\":[";
    for (int n = 0; n < kNodesPerRack; n++) {
      if (n > 0) j.push_back(',');
      j += "{\"cellAddress\":\"n" + std::to_string(r * kNodesPerRack + n) + "\"}";
    }
    j += "]}";
  }
  j += "]},\"virtualClusters\":{";
  for (size_t v = 0; v < c.vcs.size(); v++) {
    const BenchVc &vc = c.vcs[v];
    if (v > 0) j.push_back(',');
    j += "\"" + vc.name + "\":{\"virtualCells\":[";
    AppendCell(&j, "RACK", vc.racks);
    AppendCell(&j, "RACK.NODE", vc.nodes);
    AppendCell(&j, "RACK.NODE.SOCKET", vc.sockets);
    AppendCell(&j, "RACK.NODE.SOCKET.PAIR", vc.pairs);
    j += "]}";
  }
  j += "}}";
  return c;
}

}  // namespace hived_tools
