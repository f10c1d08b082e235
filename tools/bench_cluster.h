// SPDX-License-Identifier: GPL-2.0-or-later
// The generated cluster of hived-bench: 8-GPU nodes (2 sockets x 2 PCIe pairs x 2 GPUs)
// in racks of 32 nodes, and VCs owning ~85% of it as node/socket/pair cells plus a
// couple of whole racks. Produced as hived.conf JSON text so that the bench drives
// the engine exactly as a user's config would.
#pragma once

#include <string>
#include <vector>

namespace hived_tools {

struct BenchVc {
  std::string name;
  int racks = 0, nodes = 0, sockets = 0, pairs = 0;
  int Gpus() const { return racks * 256 + nodes * 8 + sockets * 4 + pairs * 2; }
};

struct BenchCluster {
  int gpus = 0;  // actual: whole racks, so at least the requested number
  int nodes = 0;
  int racks = 0;
  std::vector<BenchVc> vcs;
  std::string config_json;
};

// Racks are whole (every RACK cell has 32 nodes), so the cluster is rounded up.
BenchCluster MakeBenchCluster(int requested_gpus, int n_vcs, double vc_share);

}  // namespace hived_tools
