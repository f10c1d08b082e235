// SPDX-License-Identifier: GPL-2.0-or-later
// What the cell derivation knows about the cluster: per-node facts (sockets, cores and
// each GPU's model, index, core affinity, NVLink row and PCIe path) and topology.conf
// switches. Filled from configuration text (parse.h), from hwloc (hwloc_facts.h) or,
// in the Slurm plugin, from slurmctld's node and switch tables. No Slurm types here.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace hived {
namespace topo {

// One MIG slice of a GPU (gres.conf: a Name=gpu line with a MIG Type= and MultipleFiles=).
struct MigSliceFact {
  std::string type;     // gres Type as written ("a100_3g.20gb")
  std::string profile;  // "3g.20gb"
  int slots = 0;        // compute slots out of 7
  int index = -1;       // Slurm's GPU GRES index of the slice (its leaf's cellAddress)
  std::string where;    // e.g. "gres.conf:7"
};

struct GpuFact {
  std::string type;  // GPU model as Slurm names it (gres Type=); "" when untyped
  // GPU index on the node (Slurm's gres index, the leaf's cellAddress). Slurm numbers
  // a node's gpu GRES in gres.conf order, one per whole GPU and one per MIG slice; a GPU
  // in MIG mode has the index of its first slice.
  int index = -1;
  std::string file;        // device file, for messages and gres.conf output
  std::vector<int> cores;  // Slurm core ids close to the GPU (gres Cores=); empty: unknown
  // NVLink row (gres Links=): links[j] = connections to GPU j, -1 for itself, 0 none.
  // Empty: unknown.
  std::vector<int> links;
  // PCIe bridges from the host bridge down to the GPU (hwloc); GPUs sharing an entry at
  // the same depth sit behind the same switch. Empty: unknown.
  std::vector<std::string> pcie_path;
  std::string where;  // e.g. "gres.conf:4"
  // MIG slices carved from this GPU; Slurm schedules them, not the GPU. Empty: not in
  // MIG mode. Such a GPU is no cell: each slice is a leaf cell of its profile's chain.
  std::vector<MigSliceFact> mig;
  // gres/shard count on this GPU (gres.conf Name=shard, or slurm.conf Gres=shard:N
  // spread over the node's GPUs); a power of two. 0: not shared.
  int shards = 0;
  std::string shards_where;  // the line the count comes from
};

struct NodeFacts {
  std::string name;
  int sockets = 1;
  int cores_per_socket = 1;
  int threads_per_core = 1;
  // GPUs the node is configured to have (slurm.conf Gres=), per model; key "" = untyped.
  std::map<std::string, int> configured;
  // MIG slices slurm.conf Gres= gives the node, per MIG type (not part of `configured`:
  // a slice is not a GPU).
  std::map<std::string, int> configured_mig;
  int configured_shards = 0;  // slurm.conf Gres=shard:N
  // The GPUs the node has (gres.conf records, slurmd registration or hwloc).
  std::vector<GpuFact> gpus;
  // false: nothing but `configured` is known (no gres.conf lines, AutoDetect): the GPUs
  // are taken to be indices 0..n-1 without core or link data.
  bool gpus_known = true;
  std::string where;  // e.g. "slurm.conf:12"
};

// A topology.conf switch: either a leaf switch over nodes or one over switches.
struct SwitchFact {
  std::string name;
  std::vector<std::string> nodes;
  std::vector<std::string> switches;
  std::string where;  // e.g. "topology.conf:3"
};

struct TopologyFacts {
  std::vector<SwitchFact> switches;
};

}  // namespace topo
}  // namespace hived
