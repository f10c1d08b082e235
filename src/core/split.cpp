// SPDX-License-Identifier: GPL-2.0-or-later
// A guaranteed job that asked for a GPU count only (Request::split_max_pods) and whose
// compact shape cannot be bound now: its VC's own smaller jobs hold a GPU or two in
// every cell of that shape, while enough of the VC's GPUs are free in other cells.
// Such a job does not care where its GPUs are, so rather than wait for a whole cell
// to drain it takes the same GPUs as a few smaller pods, one per node, in the fewest
// of its VC's free cells. Only a decision that would have been "wait" changes: the
// compact shape is always tried first, preemption included. An opportunistic
// count-only job does the same on idle GPUs anywhere.
#include <algorithm>
#include <unordered_map>

#include "core/engine.h"

namespace hived {

namespace {

// Pod sizes for `gpus` GPUs over units with `free` GPUs each, fullest first: the
// fullest units first (fewest pods), the last pod in the unit that fits it best.
// Empty when no split into at most max_pods pods of min_pod GPUs or more fits.
std::vector<int> GreedySizes(const std::vector<int>& free, int64_t gpus, int min_pod,
                             int max_pods) {
  std::vector<int> sizes;
  int64_t left = gpus;
  size_t next = 0;  // the fullest unit not taken yet
  while (left > 0 && next < free.size() && static_cast<int>(sizes.size()) < max_pods) {
    // The smallest remaining unit that holds the rest ends the split.
    size_t fit = free.size();
    for (size_t i = next; i < free.size(); i++)
      if (free[i] >= left) fit = i;
    if (fit < free.size()) {
      sizes.push_back(static_cast<int>(left));
      left = 0;
      break;
    }
    // Leave the rest at least min_pod; a unit too small for a pod ends the search.
    const int64_t take = left - free[next] < min_pod ? left - min_pod : free[next];
    if (take < min_pod) break;
    sizes.push_back(static_cast<int>(take));
    left -= take;
    next++;
  }
  if (left > 0) return {};
  return sizes;
}

}  // namespace

// Pod sizes for `gpus` GPUs in the VC's free placement units of `chain`: the fullest
// units first (fewest pods), the last pod in the unit that fits it best; at most one
// unit per node, since the pods go to distinct nodes. Empty when no split of at most
// req.split_max_pods pods fits.
std::vector<int> Engine::SplitSizes(const Request& req, VcId vc, ChainId chain, int64_t gpus,
                                    int min_pod) const {
  const VcChain* vch = VcChainOf(vc, chain);
  if (!vch) return {};
  // Free GPUs per usable unit; of a node's bound units only the freest counts.
  std::vector<int> free;
  std::unordered_map<int32_t, size_t> on_node;  // node -> index in free
  for (size_t f = 1; f < vch->unit_by_free.size(); f++)
    for (VCellId u : vch->unit_by_free[f]) {
      const PCellId p = vcells_[u].bound;
      const int32_t n = p == kNone ? -1 : pcells_[p].node;
      if (n >= 0 && (node_bad_[n] || (!req.allowed.empty() && !req.allowed[n]))) continue;
      if (n >= 0 && !on_node.emplace(n, free.size()).second) {
        // Buckets run from the least free up: this unit is the node's freest so far.
        free[on_node[n]] = static_cast<int>(f);
        continue;
      }
      free.push_back(static_cast<int>(f));
    }
  std::sort(free.begin(), free.end(), std::greater<int>());
  return GreedySizes(free, gpus, min_pod, req.split_max_pods);
}

// The GPUs a request asks in all, or -1 when it may not split: no split asked, a
// pinned cell or a cell it must stay within, or fractions of a GPU.
int64_t Engine::SplitGpus(const Request& req) const {
  if (req.split_max_pods < 2 || !req.pinned_id.empty() || !req.within_type.empty() ||
      !req.pod_within_type.empty())
    return -1;
  int64_t gpus = 0;
  for (const auto& m : req.members) {
    if (m.fractions) return -1;  // a fraction of one GPU has nothing to split
    gpus += int64_t{m.pods} * m.leaves;
  }
  return gpus;
}

// The smallest pod of a split in `chain`, 0 where whole GPUs are not leaf cells (a
// chain with fractional levels or MIG slices). A job smaller than a node splits into
// pods of 2 GPUs or more only: a 1-2 GPU job never splits (its cell drains soon, the
// buddy allocator packs small jobs).
int Engine::SplitMinPod(ChainId chain, int64_t gpus) const {
  const Chain& ch = chains_[chain];
  if (ch.gpu_level != 1 || ch.mig) return 0;
  return gpus < ch.desc[Level(ch.node_level)][Level(1)] ? 2 : 1;
}

Request Engine::SplitRequest(const Request& req, const std::vector<int>& sizes) {
  Request t = req;
  t.split_max_pods = 0;
  t.distinct_nodes = true;
  t.members.clear();
  for (int s : sizes) t.members.push_back({1, s, 0});
  return t;
}

bool Engine::SubmitSplit(const Request& req, const std::vector<ChainId>& chains, Decision* d,
                         JobSnapshot* undo, int* slot) {
  const int64_t gpus = SplitGpus(req);
  if (gpus < 0) return false;
  const VcId vc = vc_index_.at(req.vc);
  if (vcs_[vc].free_leaves < gpus) return false;
  for (ChainId c : chains) {
    const int min_pod = SplitMinPod(c, gpus);
    if (!min_pod) continue;
    const std::vector<int> sizes = SplitSizes(req, vc, c, gpus, min_pod);
    if (sizes.size() < 2) continue;
    const Request t = SplitRequest(req, sizes);
    std::vector<VCellId> vleaves;
    if (!PlaceVirtual(t, vc, c, kNone, false, &vleaves)) continue;
    if (TryCommit(t, vc, c, kNone, false, vleaves, d, undo, slot)) return true;
  }
  return false;
}

// Idle GPUs per node, the fullest nodes first, only as many as a split can use: a
// walk down the chain's best-fit buckets, not over every node.
std::vector<int> Engine::IdleSplitSizes(const Request& req, ChainId chain, int64_t gpus,
                                        int min_pod) const {
  const auto& buckets = chains_[chain].node_by_avail;
  std::vector<int> free;
  int64_t sum = 0;
  const size_t most = static_cast<size_t>(req.split_max_pods);
  for (size_t f = buckets.size(); f-- > static_cast<size_t>(min_pod);) {
    for (PCellId p : buckets[f]) {
      const int32_t n = pcells_[p].node;
      if (node_bad_[n] || (!req.allowed.empty() && !req.allowed[n])) continue;
      free.push_back(static_cast<int>(f));
      sum += static_cast<int64_t>(f);
      if (sum >= gpus || free.size() >= most) break;
    }
    if (sum >= gpus || free.size() >= most) break;
  }
  return GreedySizes(free, gpus, min_pod, req.split_max_pods);
}

// An opportunistic count-only job whose compact shape finds no idle cell takes idle
// GPUs as a few smaller pods, as cons_tres would spread it: otherwise it waits for a
// whole idle node while GPUs beside the VCs' jobs stay idle.
bool Engine::SubmitOpportunisticSplit(const Request& req, const std::vector<ChainId>& chains,
                                      int* slot) {
  const int64_t gpus = SplitGpus(req);
  if (gpus < 0) return false;
  const VcId vc = req.vc.empty() ? VcId(kNone) : vc_index_.at(req.vc);
  for (ChainId c : chains) {
    const int min_pod = SplitMinPod(c, gpus);
    if (!min_pod) continue;
    const std::vector<int> sizes = IdleSplitSizes(req, c, gpus, min_pod);
    if (sizes.size() < 2) continue;
    Request shaped;
    std::string why;
    std::vector<PCellId> pleaves;
    if (!ShapeFor(SplitRequest(req, sizes), c, &shaped, &why) ||
        !PlacePhysical(shaped, c, &pleaves))
      continue;
    OpenOpportunistic(shaped, vc, c, pleaves, slot);
    return true;
  }
  return false;
}

}  // namespace hived
