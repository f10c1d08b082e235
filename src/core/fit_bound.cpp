// SPDX-License-Identifier: GPL-2.0-or-later
// See fit_bound.h: why the count is a necessary condition, and what changes it.
#include "core/fit_bound.h"

#include <algorithm>
#include <map>

namespace hived {

FitBound::FitBound(const Engine& e, const Request& req, const std::vector<ChainId>& chains)
    : e_(e) {
  // A request that may borrow idle GPUs (Request::borrow_idle) fits where neither its
  // VC's units nor, while it is guaranteed, the idle ones alone are counted.
  if (!req.pinned_id.empty() || req.borrow_idle) {
    off_ = true;
    return;
  }
  guaranteed_ = req.priority >= 0;
  if (guaranteed_) {
    auto it = e.vc_index_.find(req.vc);
    if (it == e.vc_index_.end()) {
      off_ = true;
      return;
    }
    vc_ = it->second;
    priority_ = Priority(req.priority);
    for (const auto& [prio, n] : e.vcs_[vc_].used_by_priority)
      preempt_ |= prio < priority_ && n > 0;
  }
  for (ChainId c : chains) {
    std::vector<Member> members;
    std::string why;
    // The chain cannot hold it at all.
    if (!e.ShapeMembers(req, c, &members, &why)) continue;
    const std::vector<IdSet<VCellId>>* vbuckets = nullptr;
    if (guaranteed_) {
      for (const auto& vch : e.vcs_[vc_].chains)
        if (vch.chain == c) vbuckets = &vch.unit_by_free;
      if (!vbuckets) continue;
    }
    PerChain pc;
    pc.chain = c;
    std::map<int, int64_t, std::greater<int>> sizes;
    for (const auto& m : members) sizes[m.leaves] += m.pods;
    if (req.split_max_pods >= 2) {
      // A count-only job may start as smaller pods (split.cpp), of one leaf at the
      // least: only its leaves in all count.
      int64_t leaves = 0;
      for (const auto& [size, n] : sizes) leaves += size * n;
      sizes = {{1, leaves}};
    }
    int64_t at_least = 0;
    for (const auto& [size, n] : sizes) pc.pods.emplace_back(size, at_least += n);
    if (vbuckets)
      CountUnits(*vbuckets, &pc);
    else
      CountUnits(e.chains_[c].node_by_avail, &pc);
    chains_.push_back(std::move(pc));
  }
  off_ = chains_.empty();
}

template <class Buckets>
void FitBound::CountUnits(const std::vector<Buckets>& buckets, PerChain* pc) const {
  pc->units_with.assign(buckets.size(), 0);
  for (size_t k = 0; k < buckets.size(); k++) {
    if (!preempt_) {
      pc->units_with[k] = static_cast<int64_t>(buckets[k].size());
      continue;
    }
    // Leaves of lower-priority jobs count as usable: walk each unit once. (preempt_ is
    // set for guaranteed requests only, so the units are virtual.)
    for (auto u : buckets[k]) {
      int n = 0;
      e_.WalkVirtual(VCellId(u.v), [&](VCellId x) {
        const VCell& v = e_.vcells_[x];
        if (v.level == 1) n += v.job < 0 || e_.jobs_[v.job].priority < priority_;
        return Visit::kDescend;
      });
      n = std::min<int>(n, static_cast<int>(buckets.size()) - 1);
      pc->usable[u.v] = n;
      pc->units_with[n]++;
    }
  }
}

VCellId FitBound::VirtualUnit(VCellId vleaf) const {
  VCellId c = vleaf;
  while (c != kNone && !e_.IsUnit(c)) c = e_.vcells_[c].parent;
  return c;
}

PCellId FitBound::NodeUnit(PCellId pleaf) const {
  PCellId c = pleaf;
  const int nl = e_.chains_[e_.pcells_[pleaf].chain].node_level;
  while (c != kNone && e_.pcells_[c].level < nl) c = e_.pcells_[c].parent;
  return c;
}

int FitBound::Usable(const PerChain& pc, int32_t unit) const {
  auto it = pc.usable.find(unit);
  if (it != pc.usable.end()) return it->second;
  return guaranteed_ ? e_.vcells_[VCellId(unit)].vfree : e_.pcells_[PCellId(unit)].avail;
}

void FitBound::Bump(PerChain* pc, int32_t unit) {
  if (unit < 0) return;
  const int before = Usable(*pc, unit);
  const int after = std::min<int>(before + 1, static_cast<int>(pc->units_with.size()) - 1);
  pc->units_with[before]--;
  pc->units_with[after]++;
  pc->usable[unit] = after;
}

void FitBound::Note(int slot) {
  if (off_) return;
  const Job& j = e_.jobs_[slot];
  for (auto& pc : chains_) {
    if (pc.chain != j.chain) continue;
    if (guaranteed_) {
      // Other VCs' and opportunistic jobs hold none of the VC's cells; lower-priority
      // ones are counted usable already.
      if (!j.guaranteed() || j.vc != vc_ || (preempt_ && j.priority < priority_)) return;
      for (VCellId v : j.Vleaves())
        if (!e_.vcells_[e_.vcells_[v].root].pinned) Bump(&pc, VirtualUnit(v).v);
    } else {
      for (const auto& p : j.Pods())
        for (PCellId l : p.leaves)
          if (!e_.pcells_[l].bad) Bump(&pc, NodeUnit(l).v);
    }
  }
}

bool FitBound::MayFit() const {
  if (off_) return true;
  for (const auto& pc : chains_) {
    bool fits = true;
    for (const auto& [size, pods] : pc.pods) {
      int64_t room = 0;
      for (size_t k = static_cast<size_t>(size); k < pc.units_with.size() && room < pods; k++)
        room += pc.units_with[k] * static_cast<int64_t>(k / static_cast<size_t>(size));
      if (room < pods) {
        fits = false;
        break;
      }
    }
    if (fits) return true;
  }
  return false;
}

}  // namespace hived
