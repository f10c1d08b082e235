// SPDX-License-Identifier: GPL-2.0-or-later
// Cells from the cluster itself: per-node GPU facts and topology.conf switches become
// cell types and physical cells. The rules, in order of precedence (doc/topology.md):
//  - hived.conf's physicalCells win: a node they name is never derived;
//  - a hived.conf node-level cell type with the node's GPU model and count is used for
//    that node instead of a derived one (so cellTypes alone can shape derived nodes);
//  - otherwise inside a node: GPU (leaf) < PCIe switch / NVLink clique groups < socket
//    < node, keeping only levels that nest, are even and have more than one child;
//  - above nodes: topology.conf switches whose children all have one cell type.
#pragma once

#include <string>
#include <vector>

#include "core/error.h"
#include "core/spec.h"
#include "topo/facts.h"

namespace hived {
namespace topo {

// A node whose GPUs disagree with the cell that stands for it.
struct GresMismatch {
  std::string node;
  std::string model;
  int expected = 0;  // GPUs of that model in the node's cell
  int found = 0;     // GPUs of that model the node has
  std::string message;
  // A GPU is missing: the caller marks the node bad (hived_set_node_health).
  bool missing() const { return found < expected; }
};

struct DeriveReport {
  std::vector<std::string> problems;  // one sentence each: what was not derived and why
  std::vector<std::string> notes;     // levels dropped, data missing, ...
  std::vector<GresMismatch> mismatches;
  std::vector<std::string> derived_nodes;   // nodes whose cells were derived
  std::vector<std::string> explicit_nodes;  // nodes hived.conf's physicalCells name
  std::vector<std::string> derived_types;   // cell types the derivation added
  std::vector<std::string> reused_types;    // hived.conf cell types used for derived nodes
  // MIG: one line per GPU in MIG mode ("mig1 GPU 2 (/dev/nvidia2): 3g.20gb + ..."); the
  // GPU is one leaf cell, its slices are not cells (yet).
  std::vector<std::string> mig_gpus;
  int mig_slices = 0;
  // Shards: one line per GPU model with fractional levels ("a100: 8 shards per GPU ...").
  std::vector<std::string> fractions;
};

// *out = explicit_spec plus derived types and cells for every node with GPUs that
// explicit_spec's physicalCells do not name; explicit_spec's VCs are kept. A kConfig
// error is a hard one (two nodes of one name, hived.conf cell types that form no chain).
Status derive_cluster(const std::vector<NodeFacts>& nodes, const TopologyFacts& topology,
                      const ClusterSpec& explicit_spec, ClusterSpec* out, DeriveReport* report);

// The GPU model name a leaf gets: the gres Type, or "gpu" when untyped.
std::string leaf_model(const std::string& gres_type);

}  // namespace topo
}  // namespace hived
