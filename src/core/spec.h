// SPDX-License-Identifier: GPL-2.0-or-later
// The validated-by-syntax description of a cluster that the engine is built from.
// Produced by src/config (hived.conf JSON), by src/topo (derived from Slurm), or by
// tests and benchmarks directly. Every element carries `where`, the key path it came
// from, so that semantic errors found by the engine name the offending key.
#pragma once

#include <string>
#include <vector>

namespace hived {

struct CellTypeSpec {
  std::string where;       // e.g. "physicalCluster.cellTypes.DGX2-V100-NODE"
  std::string name;        // the cell type's name
  std::string child_type;  // a name in cell_types, or a leaf (GPU model) name
  int child_count = 0;     // > 0
  bool is_node_level = false;
  // One physical GPU (one device index): the levels below it are fractions of it.
  bool is_gpu_level = false;
  // Its children are NVIDIA MIG slices of one profile (child_type names the profile as
  // Slurm's gres Type does, "a100_3g.20gb"): fixed leaf cells that only a request
  // naming that type gets; never part of a whole GPU.
  bool child_is_mig_slice = false;
};

struct PhysicalCellSpec {
  std::string where;      // e.g. "physicalCluster.physicalCells[0].cellChildren[3]"
  std::string cell_type;  // set on top-level cells; empty on children (derived from parent)
  std::string address;    // node name at node level; GPU index at leaf level; optional above
  std::string pinned_id;  // non-empty: this cell is pinned (pinnedCellId)
  std::vector<PhysicalCellSpec> children;  // empty: children are generated in order
};

struct VirtualCellSpec {
  std::string where;      // e.g. "virtualClusters.VC1.virtualCells[0]"
  std::string cell_type;  // a path "CHAIN-TOP.LEVEL.LEVEL" or just a cell type name
  int count = 0;          // cellNumber, >= 0
};

struct VcSpec {
  std::string where;  // e.g. "virtualClusters.VC1"
  std::string name;
  std::vector<VirtualCellSpec> virtual_cells;
  std::vector<std::string> pinned_cells;        // pinnedCellId values
  std::vector<std::string> pinned_cells_where;  // key path of each pinned cell entry
};

struct ClusterSpec {
  std::vector<CellTypeSpec> cell_types;
  std::vector<PhysicalCellSpec> physical_cells;
  std::vector<VcSpec> vcs;
};

}  // namespace hived
