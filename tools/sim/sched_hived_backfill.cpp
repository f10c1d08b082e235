// SPDX-License-Identifier: GPL-2.0-or-later
// The hived policy's backfill inside one VC, behind its first waiting job's
// reservation (see sched_hived.h).
#include <algorithm>
#include <queue>

#include "sched_hived.h"

namespace hivedsim {

// Every waiting job of the VC is considered, so the outcome depends on the VC's own
// state, not on how often passes happen. Work is cut where the outcome is known: a
// shape that failed is not retried in the same mode (the VC only fills up during a
// pass), a shape with no way left to start is dropped, one whose long jobs cannot
// start is narrowed to its short ones, and when nothing the VC depends on changed
// since its last pass only newly queued jobs are tried.
void HivedScheduler::Backfill(int v, int head, double now, Runner& r,
                              std::vector<std::pair<int, int>>* requeued) {
  Reservation& res = Reserve(v, head, now);
  const uint64_t version = vc_version_[v], phys = phys_version_;
  const bool full = scan_version_[v] != version || (opportunistic_ && scan_phys_[v] != phys);
  const int from = full ? head : std::max(head, scan_upto_[v]);
  const VcQueue& q = pending_[v];
  struct Cursor {
    int shape;
    bool short_only = false;
    std::vector<int> list;  // short-only: the shape's short jobs, in queue order
    size_t pos = 0;
  };
  std::vector<Cursor> cursors;
  using Item = std::pair<int, int>;  // (job, cursor)
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> order;
  for (int sh : q.Shapes()) {
    auto it = q.Of(sh).jobs.upper_bound(from);
    if (it == q.Of(sh).jobs.end()) continue;
    failed_any_[sh] = failed_avoid_[sh] = opp_dead_[sh] = 0;
    cursors.push_back(Cursor{sh, false, {}, 0});
    order.push({*it, static_cast<int>(cursors.size()) - 1});
  }
  const double short_limit = res.shadow - now;
  while (!order.empty()) {
    auto [k, ci] = order.top();
    order.pop();
    Cursor& c = cursors[ci];
    const int sh = c.shape;
    const TraceJob& kj = t_.jobs[k];
    // The cursor's next job, found before k may leave the queue.
    int next = -1;
    if (c.short_only) {
      if (++c.pos < c.list.size()) next = c.list[c.pos];
    } else {
      auto it = q.Of(sh).jobs.upper_bound(k);
      if (it != q.Of(sh).jobs.end()) next = *it;
    }
    const bool ends_before = kj.duration <= short_limit;
    Mode mode = Mode::kAny;
    bool guaranteed = true;
    if (!ends_before) {
      if (res.spatial)
        mode = Mode::kAvoidReserved;
      else
        guaranteed = kj.gpus <= res.surplus;
    }
    if (failed_any_[sh] || (mode == Mode::kAvoidReserved && failed_avoid_[sh])) guaranteed = false;
    if (opportunistic_ && !opp_dead_[sh] && !pool_.GangFits(kj.pods)) opp_dead_[sh] = 1;
    const bool opp = opportunistic_ && !opp_dead_[sh];
    if (guaranteed || opp) {
      bool started = TryStart(k, guaranteed ? mode : Mode::kOpportunisticOnly, r, requeued);
      if (!started) {
        if (guaranteed && tried_g_[k] == vc_version_[v])
          (mode == Mode::kAny ? failed_any_ : failed_avoid_)[sh] = 1;
        if (opp && tried_o_[k] == phys_version_) opp_dead_[sh] = 1;
      } else if (!ends_before && !res.spatial && !placed_[k].empty() && !running_opp_[k]) {
        res.surplus -= kj.gpus;
      }
    }
    const bool opp_left = opportunistic_ && !opp_dead_[sh];
    if (!opp_left && failed_any_[sh]) continue;  // nothing of this shape can start now
    const bool long_dead = failed_avoid_[sh] || (!res.spatial && kj.gpus > res.surplus);
    if (!opp_left && long_dead && !c.short_only) {
      c.short_only = true;
      c.list.clear();
      c.pos = 0;
      for (const auto& [d, j] : q.Of(sh).by_time) {
        if (d > short_limit) break;
        if (j > k) c.list.push_back(j);
      }
      std::sort(c.list.begin(), c.list.end());
      next = c.list.empty() ? -1 : c.list[0];
    }
    if (next >= 0) order.push({next, ci});
  }
  if (!q.Empty()) scan_upto_[v] = std::max(scan_upto_[v], q.Tail());
  scan_version_[v] = version;
  scan_phys_[v] = phys;
}

}  // namespace hivedsim
