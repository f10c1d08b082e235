// SPDX-License-Identifier: GPL-2.0-or-later
// Free GPUs per node, indexed by how many are free, for first-fit placement (the
// quota policy) and quick "could this gang fit at all" tests (the hived policy).
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "sim.h"

namespace hivedsim {

class NodePool {
 public:
  explicit NodePool(int nodes);
  int Nodes() const { return static_cast<int>(mask_.size()); }
  int Free(int node) const { return __builtin_popcount(mask_[node]); }
  uint8_t FreeMask(int node) const { return mask_[node]; }
  const std::vector<uint8_t>& Masks() const { return mask_; }
  void Take(const Placement& p);
  void Give(const Placement& p);

  // Lowest node with at least g free GPUs that is not in `exclude`; -1 if none.
  int FirstFit(int g, const std::vector<int>& exclude) const;
  // cons_tres-like: pods biggest first, each on the lowest node with room (pods on
  // distinct nodes), the node's lowest free GPU indices. False if it does not fit.
  bool FirstFitGang(const std::vector<int>& pods, const std::vector<int>& exclude,
                    Placement* out) const;
  // Necessary and sufficient for FirstFitGang without exclusions: the i-th biggest
  // pod finds at least i nodes with room for it.
  bool GangFits(const std::vector<int>& pods) const;
  // Nodes with at least k free GPUs.
  int NodesWithAtLeast(int k) const;

 private:
  std::vector<uint8_t> mask_;           // bit set = GPU free
  std::vector<std::set<int>> by_free_;  // [k] nodes with exactly k free GPUs
};

// Lowest `g` set bits of `free`.
uint8_t LowestGpus(uint8_t free, int g);

// The same fit test on a bare histogram: hist[k] = nodes with exactly k free GPUs.
bool GangFitsHistogram(const std::vector<int>& pods, const int hist[kGpusPerNode + 1]);

}  // namespace hivedsim
