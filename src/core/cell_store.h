// SPDX-License-Identifier: GPL-2.0-or-later
// The cell store: cell types and chains, the physical cell forest, every VC's virtual
// cell forest, and the node <-> cell maps, built from a ClusterSpec (cell_store.cpp).
// It knows no jobs. The buddy allocator (buddy.h) works on it; the engine holds one.
// Every walk over a subtree goes through Walk, so the child layout (a contiguous block
// from first_child) is known here only.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "core/model.h"
#include "core/spec.h"

namespace hived {

// What a tree walk does after visiting a cell.
enum class Visit {
  kDescend,  // visit its children (first child first)
  kPrune,    // skip its subtree
  kStop,     // end the walk
};

struct CellStore {
  // Builds every table from `spec` into an empty store; the first problem found is
  // the error, naming the key it came from.
  Status BuildFrom(const ClusterSpec& spec);

  // Pre-order walk of the subtree at `root` (root first, children in order). Returns
  // false if `visit` stopped it.
  template <class F>
  bool WalkPhysical(PCellId root, F&& visit) const {
    return Walk(pcells_, root, visit);
  }
  template <class F>
  bool WalkVirtual(VCellId root, F&& visit) const {
    return Walk(vcells_, root, visit);
  }
  // The leaves (level 1) under physical cell c, in order.
  void LeavesUnder(PCellId c, std::vector<PCellId>* out) const;

  int ChildCount(const PCell& p) const { return chains_[p.chain].level_children[Level(p.level)]; }
  int ChildCount(const VCell& v) const { return chains_[v.chain].level_children[Level(v.level)]; }
  // A virtualCells cellType ("TOP.A.B", or one type name) -> chain and level.
  Status ResolveCellPath(const std::string& path, const std::string& where, ChainId* chain,
                         int* level) const;
  // A placement unit: a virtual node-level cell, or a whole preassigned cell below one.
  // Inline: every virtual ancestor of every leaf a WILL_RUN trial ends and puts back
  // asks it (a call was ~5% of a first question's instructions).
  bool IsUnit(VCellId v) const {
    const VCell& c = vcells_[v];
    const int nl = chains_[c.chain].node_level;
    return c.level == nl || (c.root == v && c.level < nl);
  }
  // The VC's share of `chain`; null: the VC has no cells there.
  const VcChain* VcChainOf(VcId vc, ChainId chain) const;
  VcChain* VcChainOf(VcId vc, ChainId chain) {
    return const_cast<VcChain*>(static_cast<const CellStore*>(this)->VcChainOf(vc, chain));
  }

  std::vector<CellType> types_;
  std::unordered_map<std::string, int> type_index_;
  IdVector<ChainId, Chain> chains_;
  IdVector<PCellId, PCell> pcells_;
  IdVector<VCellId, VCell> vcells_;
  std::vector<std::string> addresses_;
  std::vector<std::string> node_names_;
  std::unordered_map<std::string, int32_t> node_index_;
  std::vector<std::vector<PCellId>> node_cells_;  // node -> node-level cells
  std::vector<uint8_t> node_bad_;
  IdVector<VcId, Vc> vcs_;
  std::unordered_map<std::string, VcId> vc_index_;
  std::unordered_map<std::string, PCellId> pinned_physical_;  // pinnedCellId -> cell

 private:
  struct Scratch;  // build state (cell_store.cpp)
  Status BuildTypes(const ClusterSpec& spec);
  Status BuildChains(const ClusterSpec& spec, Scratch* s);
  Status NewChain(const ClusterSpec& spec, int top_type, Chain* ch) const;
  Status BuildPhysical(const ClusterSpec& spec, Scratch* s);
  Status PhysicalCell(const PhysicalCellSpec& spec, PCellId id, ChainId chain, int level,
                      Scratch* s);
  Status NodeCell(const PhysicalCellSpec& spec, PCellId id, ChainId chain, Scratch* s);
  Status PinCell(const PhysicalCellSpec& spec, PCellId id, Scratch* s);
  Status GpuAddress(const PhysicalCellSpec& spec, PCellId id, int level, Scratch* s);
  Status PhysicalChildren(const PhysicalCellSpec& spec, PCellId id, ChainId chain, int level,
                          Scratch* s);
  void SeedFreeLists(const Scratch& s);
  Status BuildVcs(const ClusterSpec& spec);
  Status VcCells(const VcSpec& vs, VcId vc);
  Status PinnedVcCells(const VcSpec& vs, VcId vc,
                       std::unordered_map<std::string, std::string>* owner);
  VCellId NewVirtualRoot(VcId vc, ChainId chain, int level, bool pinned);
  void GrowVirtual(VCellId id, int level);
  void BuildIndexes();
  Status CheckSafety() const;

  template <class I, class T, class F>
  bool Walk(const IdVector<I, T>& cells, I root, F& visit) const {
    std::vector<I> stack{root};
    while (!stack.empty()) {
      const I c = stack.back();
      stack.pop_back();
      const Visit next = visit(c);
      if (next == Visit::kStop) return false;
      if (next == Visit::kPrune) continue;
      for (int k = ChildCount(cells[c]) - 1; k >= 0; k--) stack.push_back(cells[c].first_child + k);
    }
    return true;
  }
};

}  // namespace hived
