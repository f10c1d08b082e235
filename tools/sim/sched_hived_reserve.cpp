// SPDX-License-Identifier: GPL-2.0-or-later
// Reservations inside a VC for the hived policy's backfill (see sched_hived.h).
#include <algorithm>
#include <cstdio>

#include "sched_hived.h"

namespace hivedsim {

HivedScheduler::Reservation& HivedScheduler::Reserve(int vc, int head, double now) {
  Reservation& res = res_[vc];
  if (res.job == head && res.shadow > now) return res;
  // Attempts judged under the old reservation may go otherwise under the new one.
  vc_version_[vc]++;
  res = Reservation();
  res.job = head;
  if (!ReserveByNodes(vc, head, now, &res)) ReserveByCount(vc, head, now, &res);
  return res;
}

// The VC's node-level cells as units: the nodes its guaranteed jobs use now (bound
// cells, with their free GPUs) and its unbound node cells (all free). Its running
// jobs end in order until the head's pods fit on distinct units. The bound nodes
// that then have room are reserved; unbound cells beyond what the head needs are
// the surplus that long backfill jobs may bind.
bool HivedScheduler::ReserveByNodes(int vc, int head, double now, Reservation* res) {
  const auto& pods = t_.jobs[head].pods;
  std::unordered_map<int, int> free;
  for (const auto& [n, used] : footprint_[vc]) free[n] = kGpusPerNode - used;
  int unbound = std::max(0, node_cells_[vc] - static_cast<int>(free.size()));
  int hist[kGpusPerNode + 1] = {0};
  for (const auto& [n, f] : free) hist[std::max(0, f)]++;
  hist[kGpusPerNode] += unbound;
  double shadow = now;
  auto it = running_g_[vc].begin();
  bool fits = false;
  while (it != running_g_[vc].end()) {
    double t = it->first;
    for (; it != running_g_[vc].end() && it->first == t; ++it)
      for (const auto& pod : placed_[it->second]) {
        int& f = free[pod.node];
        hist[std::max(0, f)]--;
        f += __builtin_popcount(pod.mask);
        hist[std::max(0, f)]++;
      }
    shadow = t;
    if (GangFitsHistogram(pods, hist)) {
      fits = true;
      break;
    }
  }
  if (!fits) return false;
  int smallest = pods.back();
  std::vector<int> room;
  for (const auto& [n, f] : free) {
    if (f >= smallest) {
      res->reserved.insert(n);
      room.push_back(f);
    } else {
      res->kept.insert(n);
    }
  }
  // Pods the reserved nodes can take (biggest pod to the roomiest node); the rest
  // need unbound cells.
  std::sort(room.begin(), room.end(), std::greater<int>());
  size_t on_reserved = 0;
  for (size_t p = 0, k = 0; p < pods.size() && k < room.size(); p++)
    if (pods[p] <= room[k]) {
      on_reserved++;
      k++;
    }
  res->spatial = true;
  res->shadow = shadow;
  res->surplus = std::max<int64_t>(0, unbound - static_cast<int64_t>(pods.size() - on_reserved));
  res->allowed.assign(engine_of_node_.size(), 1);
  for (int n : res->reserved) res->allowed[engine_of_node_[n]] = 0;
  return true;
}

// Fallback for cells below node level: count GPUs only.
void HivedScheduler::ReserveByCount(int vc, int head, double now, Reservation* res) {
  int64_t free = quota_[vc] - used_[vc], need = t_.jobs[head].gpus;
  double shadow = now;
  auto it = running_g_[vc].begin();
  while (it != running_g_[vc].end() && (free < need || shadow <= now)) {
    double t = it->first;
    for (; it != running_g_[vc].end() && it->first == t; ++it) free += t_.jobs[it->second].gpus;
    shadow = t;
  }
  res->shadow = shadow;
  res->surplus = free - need;
}

void HivedScheduler::Unbound(int vc, int node) {
  Reservation& res = res_[vc];
  if (!res.spatial) return;
  if (res.reserved.erase(node)) res.allowed[engine_of_node_[node]] = 1;
  res.kept.erase(node);
  res.charged.erase(node);
}

// A long backfill job in the VC's cells: the engine decides in a dry run with the
// reserved nodes excluded; the job starts if the cells it takes beyond the kept ones
// (cells bound since the reservation, or bound now) fit in the surplus.
bool HivedScheduler::GuaranteedAvoiding(int job, Reservation& res, Placement* p,
                                        std::vector<int>* victims, std::string* why) {
  if (Decide(job, 0, res.allowed.data(), true, p, victims, why) != HIVED_PLACED) return false;
  std::vector<int> fresh;
  for (const auto& pod : *p)
    if (!res.kept.count(pod.node) && !res.charged.count(pod.node) &&
        std::find(fresh.begin(), fresh.end(), pod.node) == fresh.end())
      fresh.push_back(pod.node);
  if (static_cast<int64_t>(fresh.size()) > res.surplus) return false;
  if (Decide(job, 0, res.allowed.data(), false, p, victims, why) != HIVED_PLACED) return false;
  res.surplus -= static_cast<int64_t>(fresh.size());
  res.charged.insert(fresh.begin(), fresh.end());
  return true;
}

}  // namespace hivedsim
