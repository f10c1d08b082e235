// SPDX-License-Identifier: GPL-2.0-or-later
// The binder: virtual cells to physical ones and back. A virtual cell is bound only
// while some virtual leaf below it runs a guaranteed job (pinned cells stay bound);
// binding walks down from the nearest bound ancestor, and a preassigned cell with no
// binding takes a buddy cell (buddy.cpp). Which job holds a cell is not its concern.
#pragma once

#include <cstdint>
#include <vector>

#include "core/model.h"

namespace hived {

class Engine;

// A short-lived view of one engine (never stored: the engine is copied).
class Binder {
 public:
  explicit Binder(Engine* e) : e_(e) {}

  // Binds vleaf and its unbound ancestors; the physical leaf, or kNone (nothing
  // changed). Children that are healthy, allowed, without opportunistic work and
  // emptiest are preferred; near: the cell the buddy allocator should stay inside.
  PCellId BindDown(VCellId vleaf, const std::vector<uint8_t>& allowed, PCellId near = kNone);
  // The rack a gang's bindings should land in (kNone: no preference).
  PCellId GangRack(ChainId chain, const std::vector<VCellId>& vleaves,
                   const std::vector<uint8_t>& allowed) const;
  // Binds vleaf to exactly pleaf (recovery, reinstating); false, with nothing
  // changed, when the trees or the buddy allocator's safety do not allow it.
  bool BindExact(VCellId vleaf, PCellId pleaf);
  // Unbinds vleaf and every ancestor left with no bound child (not pinned cells).
  void UnbindUp(VCellId vleaf);
  // A virtual leaf of `vc` that could be bound to pleaf (kNone: none).
  VCellId FindVleafFor(VcId vc, ChainId chain, PCellId pleaf, VCellId pinned_root,
                       int min_level) const;

 private:
  Engine* e_;
};

}  // namespace hived
