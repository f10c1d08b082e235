// SPDX-License-Identifier: GPL-2.0-or-later
#include "sched_quota.h"

#include <algorithm>
#include <cstring>
#include <queue>

namespace hivedsim {

QuotaScheduler::QuotaScheduler(const Trace& t, int nodes, std::vector<int64_t> caps,
                               QuotaOptions opt)
    : t_(t), opt_(opt), pool_(nodes), cap_(std::move(caps)), used_(cap_.size(), 0) {
  group_of_job_.assign(t.jobs.size(), -1);
  placed_.resize(t.jobs.size());
  end_of_.assign(t.jobs.size(), 0);
}

size_t QuotaScheduler::Pending() const {
  size_t n = 0;
  for (const auto& g : groups_) n += g.jobs.size();
  return n;
}

void QuotaScheduler::Submit(int job) {
  const TraceJob& j = t_.jobs[job];
  if (j.gpus > cap_[j.vc]) {
    rejects_.push_back({job, "needs " + std::to_string(j.gpus) + " GPUs, over its VC's cap of " +
                                 std::to_string(cap_[j.vc])});
    return;
  }
  if (static_cast<int>(j.pods.size()) > pool_.Nodes()) {
    rejects_.push_back({job, "needs more nodes than the cluster has"});
    return;
  }
  auto key = std::make_pair(j.vc, j.pods);
  auto it = group_of_shape_.find(key);
  int gid;
  if (it == group_of_shape_.end()) {
    gid = static_cast<int>(groups_.size());
    groups_.push_back({j.vc, j.pods, {}});
    group_of_shape_[key] = gid;
  } else {
    gid = it->second;
  }
  group_of_job_[job] = gid;
  groups_[gid].jobs.insert(job);
}

void QuotaScheduler::Finish(int job) {
  const TraceJob& j = t_.jobs[job];
  pool_.Give(placed_[job]);
  placed_[job].clear();
  used_[j.vc] -= j.gpus;
  running_by_end_.erase({end_of_[job], job});
}

void QuotaScheduler::StartJob(int job, const Placement& p, Runner& r) {
  const TraceJob& j = t_.jobs[job];
  Group& g = groups_[group_of_job_[job]];
  g.jobs.erase(job);
  pool_.Take(p);
  placed_[job] = p;
  used_[j.vc] += j.gpus;
  end_of_[job] = r.Now() + j.duration;
  running_by_end_.insert({end_of_[job], job});
  if (res_.job == job) res_ = Reservation();
  r.Start(job, p, false);
}

bool QuotaScheduler::ShortEnough(int job, double now) const {
  return now + t_.jobs[job].duration <= res_.shadow;
}

// A backfilled job of the reserved job's own VC that runs past the reservation must
// leave room under the cap for it.
bool QuotaScheduler::CapAllows(int job, double now) const {
  const TraceJob& j = t_.jobs[job];
  if (res_.job < 0 || t_.jobs[res_.job].vc != j.vc || ShortEnough(job, now)) return true;
  return used_[j.vc] + j.gpus + t_.jobs[res_.job].gpus <= cap_[j.vc];
}

// Earliest time the job fits, assuming running jobs end exactly when they are due
// (the simulator knows run times; Slurm would use time limits), and where.
void QuotaScheduler::Reserve(int job, double now) {
  const TraceJob& j = t_.jobs[job];
  std::vector<uint8_t> mask = pool_.Masks();
  int hist[kGpusPerNode + 1] = {0};
  for (uint8_t m : mask) hist[__builtin_popcount(m)]++;
  res_ = Reservation();
  res_.job = job;
  res_.shadow = now;
  auto it = running_by_end_.begin();
  while (!GangFitsHistogram(j.pods, hist) && it != running_by_end_.end()) {
    double t = it->first;
    for (; it != running_by_end_.end() && it->first == t; ++it)
      for (const auto& pod : placed_[it->second]) {
        hist[__builtin_popcount(mask[pod.node])]--;
        mask[pod.node] |= pod.mask;
        hist[__builtin_popcount(mask[pod.node])]++;
      }
    res_.shadow = t;
  }
  // First fit on the projected state (pods on distinct nodes, lowest index first).
  std::vector<int> used_nodes;
  for (int g : j.pods) {
    for (size_t n = 0; n < mask.size(); n++) {
      if (__builtin_popcount(mask[n]) < g) continue;
      if (std::find(used_nodes.begin(), used_nodes.end(), static_cast<int>(n)) != used_nodes.end())
        continue;
      used_nodes.push_back(static_cast<int>(n));
      break;
    }
  }
  res_.nodes = used_nodes;
  std::sort(res_.nodes.begin(), res_.nodes.end());
}

void QuotaScheduler::Schedule(Runner& r) {
  const double now = r.Now();
  for (const auto& [job, why] : rejects_) r.Reject(job, why);
  rejects_.clear();
  using Head = std::pair<int, int>;  // (job, group)
  std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heads;
  for (size_t g = 0; g < groups_.size(); g++)
    if (!groups_[g].jobs.empty()) heads.push({*groups_[g].jobs.begin(), static_cast<int>(g)});
  bool started_ahead = false, blocked = false;
  Placement p;
  while (!heads.empty()) {
    auto [job, gid] = heads.top();
    heads.pop();
    Group& g = groups_[gid];
    if (g.jobs.empty() || *g.jobs.begin() != job) continue;
    const TraceJob& j = t_.jobs[job];
    if (used_[j.vc] + j.gpus > cap_[j.vc]) continue;  // held by its VC's cap, like the whole group
    if (!blocked) {
      if (pool_.FirstFitGang(j.pods, {}, &p)) {
        StartJob(job, p, r);
        started_ahead = true;
        if (!g.jobs.empty()) heads.push({*g.jobs.begin(), gid});
        continue;
      }
      blocked = true;
      if (!opt_.backfill) break;
      if (res_.job != job || started_ahead) Reserve(job, now);
      continue;
    }
    // Backfill behind the reservation.
    bool anywhere = pool_.GangFits(j.pods);
    if (!anywhere) continue;
    if (CapAllows(job, now) &&
        (ShortEnough(job, now) ? pool_.FirstFitGang(j.pods, {}, &p)
                               : pool_.FirstFitGang(j.pods, res_.nodes, &p))) {
      StartJob(job, p, r);
      if (!g.jobs.empty()) heads.push({*g.jobs.begin(), gid});
      continue;
    }
    // Only jobs that end before the reservation may use its nodes: look a little
    // further down this group for one (Slurm's backfill also bounds its look-ahead).
    std::vector<int> cand;
    int too_long = 0;
    for (int k : g.jobs) {
      if (k == job) continue;
      if (ShortEnough(k, now))
        cand.push_back(k);
      else if (++too_long >= opt_.backfill_scan)
        break;
    }
    for (int k : cand) {
      if (used_[j.vc] + j.gpus > cap_[j.vc]) break;
      if (!pool_.FirstFitGang(j.pods, {}, &p)) break;
      StartJob(k, p, r);
    }
  }
}

}  // namespace hivedsim
