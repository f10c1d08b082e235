// SPDX-License-Identifier: GPL-2.0-or-later
// The preemption planner (preemption.h).
#include "core/preemption.h"

#include <algorithm>

#include "core/binding.h"
#include "core/engine.h"

namespace hived {

namespace {

template <typename I, typename T>
std::vector<int> HoldersOf(const IdVector<I, T>& cells, const std::vector<I>& leaves) {
  std::vector<int> out;
  for (I c : leaves) {
    const int j = cells[c].job;
    if (j >= 0 && std::find(out.begin(), out.end(), j) == out.end()) out.push_back(j);
  }
  return out;
}

}  // namespace

int Preemption::Passes(const Request& req, VcId vc, VCellId pinned_root, int64_t need) const {
  const Vc& v = e_->vcs_[vc];
  int64_t preemptible = 0;
  for (const auto& [prio, n] : v.used_by_priority)
    if (prio < Priority(req.priority)) preemptible += n;
  if (pinned_root == kNone && v.free_leaves + preemptible < need) return 0;
  // Preemption can only help if the lower-priority jobs hold GPUs.
  return preemptible == 0 ? 1 : 2;
}

std::vector<int> Preemption::VirtualVictims(const std::vector<VCellId>& vleaves) const {
  return HoldersOf(e_->vcells_, vleaves);
}

std::vector<int> Preemption::PhysicalVictims(const std::vector<PCellId>& pleaves) const {
  return HoldersOf(e_->pcells_, pleaves);
}

void Preemption::DisplaceVirtual(VcId vc, const std::vector<VCellId>& vleaves, Decision* d,
                                 JobSnapshot* undo) {
  const std::vector<int> victims = VirtualVictims(vleaves);
  for (int s : victims) undo->Record(e_->jobs_[s]);
  for (int s : victims) {
    if (!e_->jobs_[s].lazy) {
      d->preempted.push_back(e_->jobs_[s].name);
      e_->ReleaseJob(s);
      continue;
    }
    d->lazy_preempted.push_back(e_->jobs_[s].name);
    Demote(s, vc);
  }
}

// Gives back the virtual cells and keeps running on the physical ones.
void Preemption::Demote(int s, VcId vc) {
  Job& j = e_->jobs_[s];
  e_->CountVleaves(s, -1);
  for (VCellId v : j.Vleaves()) {
    e_->ClearVleafJob(v);
    Binder(e_).UnbindUp(v);
  }
  j.ClearVleaves();
  for (PCellId l : j.Leaves()) {
    e_->ClearLeafJob(l, false);
    e_->SetLeafJob(l, s, true);
  }
  e_->vcs_[vc].used_leaves -= j.leaf_count;
  e_->vcs_[vc].opp_leaves += j.leaf_count;
  e_->vcs_[vc].demoted_leaves += j.leaf_count;
  if (VcChain* vch = e_->VcChainOf(vc, j.chain)) vch->demoted_leaves += j.leaf_count;
  j.priority = kOpportunistic;
  j.demoted = true;
}

void Preemption::DisplacePhysical(const std::vector<PCellId>& pleaves, Decision* d,
                                  JobSnapshot* undo) {
  for (int s : PhysicalVictims(pleaves)) {
    const std::string& name = e_->jobs_[s].name;
    auto lz = std::find(d->lazy_preempted.begin(), d->lazy_preempted.end(), name);
    if (lz != d->lazy_preempted.end()) {
      d->lazy_preempted.erase(lz);  // demoted, then its GPUs were needed after all
    } else {
      undo->Record(e_->jobs_[s]);
    }
    d->preempted.push_back(name);
    e_->ReleaseJob(s);
  }
}

void Preemption::Revert(int slot, const JobSnapshot& undo) {
  if (slot >= 0) e_->ReleaseJob(slot);
  for (const Job& v : undo.records()) {
    const int s = e_->jobs_.Find(v.name);
    if (s >= 0) e_->ReleaseJob(s);
  }
  for (int pass = 0; pass < 2; pass++)
    for (const Job& v : undo.records())
      if (v.guaranteed() == (pass == 0)) e_->Reinstate(v);
}

}  // namespace hived
