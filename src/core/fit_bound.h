// SPDX-License-Identifier: GPL-2.0-or-later
// A necessary condition for a placement, kept up to date as running jobs end
// tentatively, without ending them (will_run.cpp).
//
// Every placement path (packed or spread, gang or single pod, inside one cell or a
// pod inside a socket) puts each pod inside one unit (a node-level cell, or a VC cell
// below a node) whose usable leaves hold it. So a unit of c usable leaves takes at
// most floor(c / s) pods of s leaves or more, and a request whose pods of size >= s
// outnumber the sum of that over all units cannot be placed, for any s. The usable
// leaves of a unit are, for a guaranteed job, its VC cell's leaves that no guaranteed
// job holds or that jobs of lower priority hold (preemption); for an opportunistic
// job, the node's idle healthy GPUs. Only a guaranteed job of the same VC and chain
// (of the asked priority or higher) or any job in the chain (opportunistic asks)
// changes them when it ends, so the condition is counted per unit from the ended
// jobs' leaves, and WillRun ends jobs for real only when it holds. A count-only job
// (Request::split_max_pods) may run as pods of any size, so for it only the total of
// usable leaves counts.
#pragma once

#include <unordered_map>
#include <utility>
#include <vector>

#include "core/engine.h"

namespace hived {

class FitBound {
 public:
  // Off (MayFit always true) for requests it does not model: pinned cells, borrowing.
  FitBound(const Engine& e, const Request& req, const std::vector<ChainId>& chains);
  // The job in `slot` (live) will end: its leaves become usable.
  void Note(int slot);
  // False only when no chain can hold the request.
  bool MayFit() const;

 private:
  struct PerChain {
    ChainId chain = ChainId(0);
    std::vector<std::pair<int, int64_t>> pods;  // (size, pods of at least that size), desc
    std::vector<int64_t> units_with;            // [usable leaves] units
    std::unordered_map<int32_t, int> usable;    // units (virtual or node) changed or walked
  };
  // A unit is a virtual unit (guaranteed) or a physical node-level cell: its integer.
  int Usable(const PerChain& pc, int32_t unit) const;
  void Bump(PerChain* pc, int32_t unit);
  template <class Buckets>
  void CountUnits(const std::vector<Buckets>& buckets, PerChain* pc) const;
  VCellId VirtualUnit(VCellId vleaf) const;
  PCellId NodeUnit(PCellId pleaf) const;

  const Engine& e_;
  bool off_ = false;
  bool guaranteed_ = false;
  VcId vc_ = kNone;
  Priority priority_;
  bool preempt_ = false;  // lower-priority jobs of the VC hold leaves: units are walked
  std::vector<PerChain> chains_;
};

}  // namespace hived
