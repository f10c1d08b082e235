// SPDX-License-Identifier: GPL-2.0-or-later
// The simulated cluster's shape (8-GPU nodes of 2 sockets of 2 PCIe pairs, racks of
// N nodes), each VC's quota as HiveD cells, and the hived.conf that says both.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace.h"

namespace hivedsim {

struct ClusterShape {
  int nodes = 0;
  int rack_nodes = 0;  // 0: no rack level
  int64_t Gpus() const { return int64_t{nodes} * kGpusPerNode; }
};

// A VC's cells, counted per level.
struct VcCells {
  int racks = 0, nodes = 0, sockets = 0, pairs = 0, gpus = 0;
  int64_t Gpus(int rack_nodes) const;
  std::string Describe(int rack_nodes) const;  // e.g. "2 racks + 3 nodes + 1 socket"
  bool operator==(const VcCells& o) const {
    return racks == o.racks && nodes == o.nodes && sockets == o.sockets && pairs == o.pairs &&
           gpus == o.gpus;
  }
};

// Whole nodes for every 8 GPUs, then a socket, a pair and a GPU for what is left.
VcCells CellsForGpus(int64_t gpus);

std::string NodeName(int node, int nodes);
std::string JsonString(const std::string& s);

// hived.conf JSON: the physical cluster and one entry per VC (cells[i] for vcs[i];
// VCs with no cells are left out).
std::string MakeHivedConf(const ClusterShape& shape, const std::vector<std::string>& vcs,
                          const std::vector<VcCells>& cells);

// The smallest cluster of this rack size that holds exactly these cells.
ClusterShape PrivateShape(const VcCells& cells, int rack_nodes);

}  // namespace hivedsim
