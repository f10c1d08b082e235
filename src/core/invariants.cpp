// SPDX-License-Identifier: GPL-2.0-or-later
// The invariant checker: recomputes every counter and index from scratch and compares.
// O(cells + jobs); tests run it after every step, slurmctld only under a debug switch.
// One function per invariant; each returns "" or which one broke and where.
#include <algorithm>
#include <map>
#include <string>

#include "core/engine.h"

namespace hived {

class InvariantCheck {
 public:
  explicit InvariantCheck(const Engine& e) : e(e), owner(e.pcells_.size(), -1) {}
  std::string Run();

 private:
  std::string Cell(PCellId c) const;
  std::string NoDoubleBooking();
  std::string JobLeaves(size_t s);
  std::string JobPods(const Job& j) const;
  std::string JobVirtualLeaves(size_t s) const;
  std::string PhysicalCounters() const;
  std::string FreeListsListed() const;
  std::string FreeListsMerged() const;
  std::string VirtualCells() const;
  std::string NodeIndex() const;
  std::string UnitIndex() const;
  std::string VcCellsObtainable() const;
  std::string VcTotals() const;

  const Engine& e;
  IdVector<PCellId, int> owner;  // [physical leaf] the job slot holding it, -1
};

std::string InvariantCheck::Cell(PCellId c) const {
  const PCell& p = e.pcells_[c];
  std::string s =
      "cell " + std::to_string(c.v) + " (" + e.chains_[p.chain].level_type[Level(p.level)];
  if (p.node >= 0) s += " on " + e.node_names_[p.node];
  if (p.level <= e.chains_[p.chain].gpu_level) s += " gpu " + std::to_string(p.addr);
  if (p.level < e.chains_[p.chain].gpu_level) s += " fraction " + std::to_string(e.LeafSlot(c));
  return s + ")";
}

std::string InvariantCheck::Run() {
  std::string why = NoDoubleBooking();  // fills `owner`, which the checks after it read
  using Check = std::string (InvariantCheck::*)() const;
  for (Check check : {&InvariantCheck::PhysicalCounters, &InvariantCheck::NodeIndex,
                      &InvariantCheck::FreeListsListed, &InvariantCheck::FreeListsMerged,
                      &InvariantCheck::VirtualCells, &InvariantCheck::UnitIndex,
                      &InvariantCheck::VcCellsObtainable, &InvariantCheck::VcTotals})
    if (why.empty()) why = (this->*check)();
  return why;
}

// 1. No GPU double-booked; jobs and leaves agree.
std::string InvariantCheck::NoDoubleBooking() {
  for (size_t s = 0; s < e.jobs_.size(); s++) {
    const Job& j = e.jobs_[s];
    if (!j.live) continue;
    if (e.jobs_.Find(j.name) != static_cast<int>(s))
      return "job index out of step for '" + j.name + "'";
    std::string why = JobLeaves(s);
    if (why.empty()) why = JobPods(j);
    if (why.empty()) why = JobVirtualLeaves(s);
    if (!why.empty()) return why;
  }
  if (e.jobs_.IndexSize() !=
      static_cast<size_t>(
          std::count_if(e.jobs_.begin(), e.jobs_.end(), [](const Job& j) { return j.live; })))
    return "job index holds finished jobs";
  return "";
}

std::string InvariantCheck::JobLeaves(size_t s) {
  const Job& j = e.jobs_[s];
  for (const auto& p : j.Pods())
    for (PCellId l : p.leaves) {
      if (owner[l] >= 0)
        return "double-booked: " + Cell(l) + " held by '" + e.jobs_[owner[l]].name + "' and '" +
               j.name + "'";
      owner[l] = static_cast<int>(s);
      if (e.pcells_[l].job != static_cast<int>(s))
        return Cell(l) + " does not record job '" + j.name + "'";
      if (e.pcells_[l].node != e.pcells_[p.leaves[0]].node)
        return "job '" + j.name + "' has a pod on two nodes";
    }
  return "";
}

std::string InvariantCheck::JobPods(const Job& j) const {
  // Fractions: every pod holds whole GPUs or one buddy cell inside one GPU, of the
  // job's grain. So a GPU with a fractional job is never held whole by another, and
  // a whole-GPU job never shares its GPU.
  for (const auto& p : j.Pods()) {
    if (p.leaves.empty()) return "job '" + j.name + "' has an empty pod";
    int grain = e.GrainOf(e.pcells_[p.leaves[0]].chain, p.leaves);
    if (grain == 0)
      return "job '" + j.name + "' holds fractions of " + Cell(p.leaves[0]) +
             " that are not one cell of a GPU";
    if (grain != j.grain)
      return "job '" + j.name + "' holds cells of level " + std::to_string(grain) +
             " but asked for level " + std::to_string(j.grain) + " on " + Cell(p.leaves[0]);
    // MIG: a slice goes only to a job that asked for its profile, so a GPU in MIG
    // mode is never given out as a whole GPU.
    for (PCellId l : p.leaves) {
      const Chain& lch = e.chains_[e.pcells_[l].chain];
      if (lch.mig && e.jobs_.Str(j.leaf_type) != lch.leaf_type)
        return "job '" + j.name + "' holds MIG slice " + Cell(l) + " of profile '" + lch.leaf_type +
               "' but asked for '" + e.jobs_.Str(j.leaf_type) + "'";
    }
  }
  return "";
}

std::string InvariantCheck::JobVirtualLeaves(size_t s) const {
  const Job& j = e.jobs_[s];
  if (!j.guaranteed())
    return j.Vleaves().empty() ? "" : "opportunistic job '" + j.name + "' holds virtual cells";
  size_t nleaves = 0;
  for (const auto& p : j.Pods()) nleaves += p.leaves.size();
  if (j.Vleaves().size() != nleaves) return "guaranteed job '" + j.name + "' lacks virtual cells";
  size_t i = 0;
  for (const auto& p : j.Pods())
    for (PCellId l : p.leaves) {
      VCellId v = j.Vleaves()[i++];
      if (e.vcells_[v].job != static_cast<int>(s))
        return "virtual leaf of '" + j.name + "' does not record it";
      if (e.vcells_[v].bound != l)
        return "virtual leaf of '" + j.name + "' is not bound to its GPU " + Cell(l);
      if (e.vcells_[v].vc != j.vc) return "job '" + j.name + "' uses another VC's cell";
    }
  return "";
}

std::string InvariantCheck::PhysicalCounters() const {
  // 2. Physical counters and bindings.
  for (auto i = static_cast<int32_t>(e.pcells_.size()) - 1; i >= 0; i--) {
    const PCellId c(i);
    const PCell& p = e.pcells_[c];
    int32_t avail = 0, opp = 0, bad = 0;
    if (p.level == 1) {
      if (p.job != owner[c]) return Cell(c) + " records a job that does not hold it";
      bad = p.bad;
      avail = (!p.bad && p.job < 0) ? 1 : 0;
      opp = (p.job >= 0 && !e.jobs_[p.job].guaranteed()) ? 1 : 0;
      if (p.bad != (p.node >= 0 && e.node_bad_[p.node] ? 1 : 0))
        return Cell(c) + " health differs from its node";
    } else {
      for (int k = 0; k < e.chains_[p.chain].level_children[Level(p.level)]; k++) {
        const PCell& ch = e.pcells_[p.first_child + k];
        if (ch.parent != c) return Cell(c) + " child does not point back";
        avail += ch.avail;
        opp += ch.opp;
        bad += ch.bad;
      }
    }
    if (avail != p.avail || opp != p.opp || bad != p.bad)
      return "counters of " + Cell(c) + " are out of step";
    if (p.bound != kNone) {
      const VCell& v = e.vcells_[p.bound];
      if (v.bound != c) return "binding of " + Cell(c) + " is not mutual";
    }
    if (p.level == e.chains_[p.chain].node_level &&
        !e.chains_[p.chain].node_by_avail[p.avail].count(c))
      return Cell(c) + " is missing from the node index";
  }
  return "";
}

std::string InvariantCheck::FreeListsListed() const {
  // 3. Free lists: a free cell is unbound, has no free/bound ancestor or descendant,
  //    sits in the right list, and no parent has all children free (merged).
  for (ChainId ci : e.chains_.ids()) {
    const Chain& ch = e.chains_[ci];
    for (int l = 1; l <= ch.levels; l++) {
      for (const auto* set :
           {&ch.free_clean[Level(l)], &ch.free_busy[Level(l)], &ch.free_bad[Level(l)]})
        for (PCellId c : *set) {
          const PCell& p = e.pcells_[c];
          if (!(p.flags & kFree) || p.level != l)
            return Cell(c) + " is listed free but not marked free";
          bool right = set == &ch.free_bad[Level(l)]    ? p.bad > 0
                       : set == &ch.free_busy[Level(l)] ? (!p.bad && p.opp > 0)
                                                        : (!p.bad && !p.opp);
          if (!right) return Cell(c) + " is in the wrong free list";
          for (PCellId a = p.parent; a != kNone; a = e.pcells_[a].parent)
            if ((e.pcells_[a].flags & kFree) || e.pcells_[a].bound != kNone)
              return Cell(c) + " is free under a free or bound cell";
          if (p.flags & (kPinned | kUnderPinned)) return Cell(c) + " is pinned yet free";
        }
    }
  }
  for (PCellId c : e.pcells_.ids()) {
    const PCell& p = e.pcells_[c];
    const Chain& ch = e.chains_[p.chain];
    bool listed = ch.free_clean[Level(p.level)].count(c) || ch.free_busy[Level(p.level)].count(c) ||
                  ch.free_bad[Level(p.level)].count(c);
    if (((p.flags & kFree) != 0) != listed) return Cell(c) + " is marked free but not listed";
  }
  return "";
}

// 3b. ... and no cell is bound inside a free one, and buddies are merged.
std::string InvariantCheck::FreeListsMerged() const {
  IdVector<PCellId, uint8_t> covered(e.pcells_.size(), 0);  // 1: in or under a free cell
  for (PCellId c : e.pcells_.ids()) {
    const PCell& p = e.pcells_[c];
    if (p.flags & kFree) covered[c] = 1;
    if (p.parent != kNone && covered[p.parent]) covered[c] = 1;  // parents precede children
    if (covered[c] && p.bound != kNone) return Cell(c) + " is bound inside a free cell";
    if (p.level > 1 && !(p.flags & kFree) && !covered[c]) {
      int n = e.chains_[p.chain].level_children[Level(p.level)];
      bool all_free = n > 0;
      for (int k = 0; k < n; k++) all_free &= (e.pcells_[p.first_child + k].flags & kFree) != 0;
      if (all_free && !(p.flags & kPinned))
        return Cell(c) + " has all children free but was not merged";
    }
  }
  return "";
}

std::string InvariantCheck::VirtualCells() const {
  // 4. Virtual cells: counters, bindings mirror the trees, bound iff in use.
  for (auto i = static_cast<int32_t>(e.vcells_.size()) - 1; i >= 0; i--) {
    const VCellId v(i);
    const VCell& c = e.vcells_[v];
    int32_t vfree = 0;
    bool any_bound_child = false;
    if (c.level == 1) {
      vfree = c.job < 0 ? 1 : 0;
      if (c.job >= 0 && (!e.jobs_[c.job].live || !e.jobs_[c.job].guaranteed()))
        return "virtual leaf held by a non-guaranteed job";
    } else {
      for (int k = 0; k < e.chains_[c.chain].level_children[Level(c.level)]; k++) {
        vfree += e.vcells_[c.first_child + k].vfree;
        any_bound_child |= e.vcells_[c.first_child + k].bound != kNone;
      }
    }
    if (vfree != c.vfree)
      return "virtual counters of VC '" + e.vcs_[c.vc].name + "' are out of step";
    bool in_use = c.level == 1 ? c.job >= 0 : any_bound_child;
    if (!c.pinned && (c.bound != kNone) != in_use)
      return "virtual cell of VC '" + e.vcs_[c.vc].name + "' is " +
             (in_use ? "used but unbound" : "bound but unused");
    if (c.bound != kNone) {
      const PCell& p = e.pcells_[c.bound];
      if (p.bound != v || p.level != c.level || p.chain != c.chain)
        return "binding of a virtual cell is not mutual";
      if (c.root != v && e.vcells_[c.parent].bound != p.parent)
        return "binding of a virtual cell breaks its parent's";
    }
  }
  return "";
}

std::string InvariantCheck::NodeIndex() const {
  // 2b. No node in a bucket it has left (PhysicalCounters finds it in its own): a move
  //     from a wrong `before` would leave it in two.
  for (const auto& ch : e.chains_)
    for (size_t f = 0; f < ch.node_by_avail.size(); f++)
      for (PCellId c : ch.node_by_avail[f])
        if (e.pcells_[c].avail != static_cast<int32_t>(f) || e.pcells_[c].level != ch.node_level)
          return Cell(c) + " is in the wrong bucket of the node index";
  return "";
}

std::string InvariantCheck::UnitIndex() const {
  // 5. The unit index.
  for (const auto& vc : e.vcs_)
    for (const auto& vch : vc.chains) {
      size_t units = 0;
      for (size_t f = 0; f < vch.unit_by_free.size(); f++)
        for (VCellId u : vch.unit_by_free[f]) {
          units++;
          if (e.vcells_[u].vfree != static_cast<int32_t>(f) || !e.IsUnit(u))
            return "unit index of VC '" + vc.name + "' is out of step";
        }
      (void)units;
    }
  return "";
}

// 5b. Demand counters, and 6. safety: the VCs' unbound cells are always obtainable.
std::string InvariantCheck::VcCellsObtainable() const {
  for (ChainId ci : e.chains_.ids()) {
    const Chain& ch = e.chains_[ci];
    std::vector<int64_t> demand(ch.levels + 1, 0);
    for (const auto& vc : e.vcs_)
      for (const auto& vch : vc.chains)
        if (vch.chain == ci)
          for (VCellId r : vch.roots)
            if (e.vcells_[r].bound == kNone) demand[e.vcells_[r].level]++;
    for (int l = 1; l <= ch.levels; l++) {
      if (demand[l] != ch.unbound_demand[Level(l)])
        return "unbound-cell count of chain '" + ch.top + "' is out of step";
      if (e.Demand(ci, l) > e.Obtainable(ci, l, false))
        return "safety broken: chain '" + ch.top + "' level " + std::to_string(l) + " (" +
               ch.level_type[Level(l)] + ") has " + std::to_string(e.Obtainable(ci, l, false)) +
               " obtainable cells for " + std::to_string(e.Demand(ci, l)) + " unbound VC cells";
    }
  }
  return "";
}

std::string InvariantCheck::VcTotals() const {
  // 7. Per-VC usage totals.
  for (VcId v : e.vcs_.ids()) {
    int64_t used = 0, opp = 0, demoted = 0;
    for (const auto& j : e.jobs_)
      if (j.live && j.vc == v) {
        if (j.borrowed && (!j.demoted || j.guaranteed()))
          return "job '" + j.name + "' is borrowed but not running as opportunistic";
        for (const auto& p : j.Pods()) {
          (j.guaranteed() ? used : opp) += static_cast<int64_t>(p.leaves.size());
          if (j.demoted) demoted += static_cast<int64_t>(p.leaves.size());
        }
      }
    if (used != e.vcs_[v].used_leaves || opp != e.vcs_[v].opp_leaves ||
        demoted != e.vcs_[v].demoted_leaves)
      return "usage totals of VC '" + e.vcs_[v].name + "' are out of step";
    for (const auto& vch : e.vcs_[v].chains) {
      int64_t in_chain = 0;
      for (const auto& j : e.jobs_)
        if (j.live && j.vc == v && j.demoted && j.chain == vch.chain) in_chain += j.leaf_count;
      if (in_chain != vch.demoted_leaves)
        return "demoted totals of VC '" + e.vcs_[v].name + "' in chain '" +
               e.chains_[vch.chain].top + "' are out of step";
    }
    int64_t free_v = 0, held = 0;
    for (const auto& vch : e.vcs_[v].chains)
      for (VCellId r : vch.roots) free_v += e.vcells_[r].vfree;
    // Per priority too: the counts change once per job, apart from the leaves.
    std::map<Priority, int64_t> by_prio;
    for (const auto& j : e.jobs_)
      if (j.live && j.vc == v && !j.Vleaves().empty())
        by_prio[j.priority] += static_cast<int64_t>(j.Vleaves().size());
    for (const auto& [prio, n] : e.vcs_[v].used_by_priority) {
      held += n;
      auto it = by_prio.find(prio);
      if (n != (it == by_prio.end() ? 0 : it->second))
        return "virtual leaves held at priority " + std::to_string(prio.v) + " in VC '" +
               e.vcs_[v].name + "' are out of step";
    }
    if (free_v != e.vcs_[v].free_leaves || held != used)
      return "free/held virtual leaf totals of VC '" + e.vcs_[v].name + "' are out of step";
  }
  return "";
}

std::string Engine::CheckInvariants() const {
  if (!index_moves_.empty()) return "best-fit index moves left unapplied";
  return InvariantCheck(*this).Run();
}

}  // namespace hived
