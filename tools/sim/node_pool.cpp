// SPDX-License-Identifier: GPL-2.0-or-later
#include "node_pool.h"

#include <algorithm>

namespace hivedsim {

NodePool::NodePool(int nodes) : mask_(nodes, 0xff), by_free_(kGpusPerNode + 1) {
  for (int n = 0; n < nodes; n++) by_free_[kGpusPerNode].insert(n);
}

void NodePool::Take(const Placement& p) {
  for (const auto& pod : p) {
    by_free_[Free(pod.node)].erase(pod.node);
    mask_[pod.node] &= static_cast<uint8_t>(~pod.mask);
    by_free_[Free(pod.node)].insert(pod.node);
  }
}

void NodePool::Give(const Placement& p) {
  for (const auto& pod : p) {
    by_free_[Free(pod.node)].erase(pod.node);
    mask_[pod.node] |= pod.mask;
    by_free_[Free(pod.node)].insert(pod.node);
  }
}

int NodePool::FirstFit(int g, const std::vector<int>& exclude) const {
  int best = -1;
  for (int k = g; k <= kGpusPerNode; k++) {
    for (int n : by_free_[k]) {
      if (best >= 0 && n >= best) break;
      if (std::find(exclude.begin(), exclude.end(), n) != exclude.end()) continue;
      best = n;
      break;
    }
  }
  return best;
}

bool NodePool::FirstFitGang(const std::vector<int>& pods, const std::vector<int>& exclude,
                            Placement* out) const {
  std::vector<int> ex = exclude;
  out->clear();
  for (int g : pods) {  // pods are biggest first
    int n = FirstFit(g, ex);
    if (n < 0) return false;
    out->push_back({n, LowestGpus(mask_[n], g)});
    ex.push_back(n);
  }
  return true;
}

int NodePool::NodesWithAtLeast(int k) const {
  int c = 0;
  for (int x = std::max(k, 0); x <= kGpusPerNode; x++) c += static_cast<int>(by_free_[x].size());
  return c;
}

bool NodePool::GangFits(const std::vector<int>& pods) const {
  int hist[kGpusPerNode + 1];
  for (int k = 0; k <= kGpusPerNode; k++) hist[k] = static_cast<int>(by_free_[k].size());
  return GangFitsHistogram(pods, hist);
}

bool GangFitsHistogram(const std::vector<int>& pods, const int hist[kGpusPerNode + 1]) {
  // pods biggest first: the i-th pod needs i+1 nodes with room for it.
  int ge[kGpusPerNode + 2] = {0};
  for (int k = kGpusPerNode; k >= 0; k--) ge[k] = ge[k + 1] + hist[k];
  for (size_t i = 0; i < pods.size(); i++)
    if (ge[pods[i]] < static_cast<int>(i) + 1) return false;
  return true;
}

uint8_t LowestGpus(uint8_t free, int g) {
  uint8_t m = 0;
  for (int i = 0; i < kGpusPerNode && g > 0; i++)
    if (free & (1u << i)) {
      m |= static_cast<uint8_t>(1u << i);
      g--;
    }
  return m;
}

}  // namespace hivedsim
