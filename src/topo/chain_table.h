// SPDX-License-Identifier: GPL-2.0-or-later
// The chains of a ClusterSpec as the engine will see them (levels, cells per level,
// cells a VC may still be promised), computed without building an engine: the quota
// conversion and the printed hierarchy need them before the engine exists.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/spec.h"

namespace hived {
namespace topo {

struct ChainLevelInfo {
  std::string type;    // cell type; at level 1 the GPU model or its smallest fraction
  int children = 0;    // children per cell (0 at level 1)
  int64_t leaves = 1;  // leaf cells per cell (GPUs when the chain has no fractions)
  int64_t cells = 0;   // physical cells at this level
  int64_t free = 0;    // of those, cells not pinned and not holding a pinned cell
};

struct ChainInfo {
  std::string top;
  std::string leaf;
  // The GPU level: the isGpuLevel type, or the leaf when the chain has no fractions.
  // `model` is its type, the name GrpTRES gres/gpu:<model> and messages use.
  int gpu_level = 1;
  std::string model;
  bool mig = false;  // leaves are MIG slices of the profile `model` (childIsMigSlice)
  int node_level = 0;
  std::vector<ChainLevelInfo> levels;  // [level], level 1 = GPU; [0] unused
  std::vector<std::string> nodes;      // node names in order
  std::vector<std::string> top_addresses;
  int top_level() const { return static_cast<int>(levels.size()) - 1; }
  int64_t leaves_per_gpu() const { return levels[gpu_level].leaves; }
};

struct NodeCellInfo {
  std::string node;
  int chain = 0;
  int64_t leaves = 0;
};

struct ChainTable {
  std::vector<ChainInfo> chains;
  std::vector<NodeCellInfo> node_cells;
};

// A kConfig error gives the first reason the spec cannot form chains (the engine
// gives the same).
Status build_chain_table(const ClusterSpec& spec, ChainTable* out);

// A virtualCells cellType ("TOP.A.B" or one type name) -> chain index and level.
Status resolve_cell_path(const ChainTable& t, const std::string& path, int* chain, int* level);

}  // namespace topo
}  // namespace hived
