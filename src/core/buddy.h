// SPDX-License-Identifier: GPL-2.0-or-later
// The buddy allocator over a cell store's physical forest: free lists per chain and
// level (Chain::free_clean/free_busy/free_bad, the kFree flag), split on demand, merge
// on release, and the safety invariant (every level can still serve the VCs' unbound
// preassigned cells, Chain::unbound_demand). Views made on the spot: they hold a
// reference to the store for one call, never inside it (the engine is copied).
#pragma once

#include <cstdint>
#include <vector>

#include "core/cell_store.h"

namespace hived {

// The read-only side: free ancestors, counts and the safety answers.
class BuddySafety {
 public:
  explicit BuddySafety(const CellStore& s) : s_(s) {}
  // The free cell at or above c, kNone if none.
  PCellId FreeAncestor(PCellId c) const;
  // Level-`level` cells the VCs' unbound preassigned cells at or above it need.
  int64_t Demand(ChainId chain, int level) const;
  // Healthy level-`level` cells inside c (a cell with a bad leaf is not healthy).
  int64_t HealthyDesc(PCellId c, int level) const;
  // Level-`level` cells the free lists can give (healthy_only: without bad leaves).
  int64_t Obtainable(ChainId chain, int level, bool healthy_only) const;
  // Splitting free cell `from` down to `to_level` keeps the safety invariant.
  bool CanSplitSafely(PCellId from, int to_level) const;
  // Take(c) keeps the safety invariant.
  bool CanTakeSafely(PCellId c) const;

 protected:
  const CellStore& s_;
};

class Buddy : public BuddySafety {
 public:
  explicit Buddy(CellStore& s) : BuddySafety(s), m_(s) {}
  void FreeInsert(PCellId c);
  void FreeErase(PCellId c);
  // A free cell's health or opportunistic use changed: move it to its list.
  void FreeRefile(PCellId c);
  // A free cell at `level` of `chain` for a preassigned cell, with a node in `allowed`
  // (empty: any), inside `near` if it can; kNone if none can be spared.
  PCellId Alloc(ChainId chain, int level, const std::vector<uint8_t>& allowed,
                PCellId near = kNone);
  // Takes exactly cell c out of the free lists (splitting its free ancestor).
  bool Take(PCellId c);
  // Returns c to the free lists, merging buddies while a whole parent is free.
  void Release(PCellId c);

 private:
  bool AllowedCell(PCellId c, const std::vector<uint8_t>& allowed) const;
  PCellId PickHealthy(ChainId chain, int level, const std::vector<uint8_t>& allowed) const;
  PCellId SplitTo(PCellId c, int target, const std::vector<uint8_t>& allowed);
  PCellId SplitOnce(PCellId c);  // frees c's children instead of c; returns the first
  PCellId NearCell(PCellId near, int level, const std::vector<uint8_t>& allowed) const;
  CellStore& m_;
};

}  // namespace hived
