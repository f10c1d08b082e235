// SPDX-License-Identifier: GPL-2.0-or-later
// Keeping the per-cell counters and the best-fit indexes in step with leaf changes.
// Each change walks one leaf-to-root path, so it costs O(levels).
#include <utility>

#include "core/engine.h"

namespace hived {

void Engine::NodeUpdate(PCellId pnode, int32_t before, int32_t after) {
  if (before == after) return;
  auto& buckets = chains_[pcells_[pnode].chain].node_by_avail;
  buckets[before].erase(pnode);
  buckets[after].insert(pnode);
}

void Engine::UnitUpdate(VCellId vunit, int32_t before, int32_t after) {
  if (before == after || vcells_[vcells_[vunit].root].pinned) return;
  for (auto& vch : vcs_[vcells_[vunit].vc].chains)
    if (vch.chain == vcells_[vunit].chain) {
      vch.unit_by_free[before].erase(vunit);
      vch.unit_by_free[after].insert(vunit);
      return;
    }
}

void Engine::NoteIndex(int32_t cell, int32_t before, bool is_virtual) {
  for (const auto& m : index_moves_)
    if (m.cell == cell && m.is_virtual == is_virtual) return;
  index_moves_.push_back({cell, before, is_virtual});
}

void Engine::FlushIndexes() {
  for (const auto& m : index_moves_) {
    if (m.is_virtual)
      UnitUpdate(VCellId(m.cell), m.before, vcells_[VCellId(m.cell)].vfree);
    else
      NodeUpdate(PCellId(m.cell), m.before, pcells_[PCellId(m.cell)].avail);
  }
  index_moves_.clear();
}

void Engine::SetLeafJob(PCellId pleaf, int job, bool opportunistic) {
  pcells_[pleaf].job = job;
  const int nl = chains_[pcells_[pleaf].chain].node_level;
  const int da = pcells_[pleaf].bad ? 0 : 1, dopp = opportunistic ? 1 : 0;
  for (PCellId c = pleaf; c != kNone; c = pcells_[c].parent) {
    PCell& p = pcells_[c];
    int32_t before = p.avail;
    p.avail -= da;
    p.opp += dopp;
    if (p.level == nl) NoteIndex(c, before);
    if ((p.flags & kFree) && dopp && p.opp == 1) FreeRefile(c);
  }
}

void Engine::ClearLeafJob(PCellId pleaf, bool opportunistic) {
  pcells_[pleaf].job = -1;
  const int nl = chains_[pcells_[pleaf].chain].node_level;
  const int da = pcells_[pleaf].bad ? 0 : 1, dopp = opportunistic ? 1 : 0;
  for (PCellId c = pleaf; c != kNone; c = pcells_[c].parent) {
    PCell& p = pcells_[c];
    int32_t before = p.avail;
    p.avail += da;
    p.opp -= dopp;
    if (p.level == nl) NoteIndex(c, before);
    if ((p.flags & kFree) && dopp && p.opp == 0) FreeRefile(c);
  }
}

void Engine::SetVleafJob(VCellId vleaf, int job) {
  vcells_[vleaf].job = job;
  Vc& vc = vcs_[vcells_[vleaf].vc];
  if (!vcells_[vcells_[vleaf].root].pinned) vc.free_leaves--;
  for (VCellId c = vleaf; c != kNone; c = vcells_[c].parent) {
    int32_t before = vcells_[c].vfree--;
    if (IsUnit(c)) NoteIndex(c, before);
  }
}

void Engine::ClearVleafJob(VCellId vleaf) {
  Vc& vc = vcs_[vcells_[vleaf].vc];
  if (!vcells_[vcells_[vleaf].root].pinned) vc.free_leaves++;
  vcells_[vleaf].job = -1;
  for (VCellId c = vleaf; c != kNone; c = vcells_[c].parent) {
    int32_t before = vcells_[c].vfree++;
    if (IsUnit(c)) NoteIndex(c, before);
  }
}

// Once per job, not per leaf: a WILL_RUN trial ends and puts back hundreds of jobs,
// and a map lookup per leaf was a visible part of its cost. A count of 0 stays in the
// map (its readers skip or add it): a VC's priorities are few, and erasing would free
// and reallocate the entry each time a trial ends the last job of a priority.
void Engine::CountVleaves(int slot, int64_t sign) {
  const Job& j = jobs_[slot];
  const auto n = static_cast<int64_t>(j.Vleaves().size());
  if (n != 0) vcs_[j.vc].used_by_priority[j.priority] += sign * n;
}

int64_t Engine::VcFreeLeaves(const std::string& vc) const {
  auto it = vc_index_.find(vc);
  return it == vc_index_.end() ? -1 : vcs_[it->second].free_leaves;
}

int64_t Engine::JobQuotaLeaves(const std::string& job, const std::string** vc) const {
  *vc = nullptr;
  const int slot = jobs_.Find(job);
  if (slot < 0) return 0;
  const Job& j = jobs_[slot];
  if (!j.live || !j.guaranteed() || !j.vc.valid() || j.pinned_id != 0) return 0;
  *vc = &vcs_[j.vc].name;
  return static_cast<int64_t>(j.Vleaves().size());
}

}  // namespace hived
