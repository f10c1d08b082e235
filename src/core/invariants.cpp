// SPDX-License-Identifier: GPL-2.0-or-later
// The invariant checker: recomputes every counter and index from scratch and compares.
// O(cells + jobs); tests run it after every step, slurmctld only under a debug switch.
#include <algorithm>
#include <string>

#include "core/engine.h"

namespace hived {

std::string Engine::CheckInvariants() const {
  if (!index_moves_.empty()) return "best-fit index moves left unapplied";
  auto cell = [&](CellId c) {
    const PCell& p = pcells_[c];
    std::string s = "cell " + std::to_string(c) + " (" + chains_[p.chain].level_type[p.level];
    if (p.node >= 0) s += " on " + node_names_[p.node];
    if (p.level <= chains_[p.chain].gpu_level) s += " gpu " + std::to_string(p.addr);
    if (p.level < chains_[p.chain].gpu_level) s += " fraction " + std::to_string(LeafSlot(c));
    return s + ")";
  };
  // 1. No GPU double-booked; jobs and leaves agree.
  std::vector<int> owner(pcells_.size(), -1);
  for (size_t s = 0; s < jobs_.size(); s++) {
    const Job& j = jobs_[s];
    if (!j.live) continue;
    if (jobs_.Find(j.name) != static_cast<int>(s))
      return "job index out of step for '" + j.name + "'";
    size_t nleaves = 0;
    for (const auto& p : j.Pods())
      for (CellId l : p.leaves) {
        nleaves++;
        if (owner[l] >= 0)
          return "double-booked: " + cell(l) + " held by '" + jobs_[owner[l]].name + "' and '" +
                 j.name + "'";
        owner[l] = static_cast<int>(s);
        if (pcells_[l].job != static_cast<int>(s))
          return cell(l) + " does not record job '" + j.name + "'";
        if (pcells_[l].node != pcells_[p.leaves[0]].node)
          return "job '" + j.name + "' has a pod on two nodes";
      }
    // Fractions: every pod holds whole GPUs or one buddy cell inside one GPU, of the
    // job's grain. So a GPU with a fractional job is never held whole by another, and
    // a whole-GPU job never shares its GPU.
    for (const auto& p : j.Pods()) {
      if (p.leaves.empty()) return "job '" + j.name + "' has an empty pod";
      int grain = GrainOf(pcells_[p.leaves[0]].chain, p.leaves);
      if (grain == 0)
        return "job '" + j.name + "' holds fractions of " + cell(p.leaves[0]) +
               " that are not one cell of a GPU";
      if (grain != j.grain)
        return "job '" + j.name + "' holds cells of level " + std::to_string(grain) +
               " but asked for level " + std::to_string(j.grain) + " on " + cell(p.leaves[0]);
      // MIG: a slice goes only to a job that asked for its profile, so a GPU in MIG
      // mode is never given out as a whole GPU.
      for (CellId l : p.leaves) {
        const Chain& lch = chains_[pcells_[l].chain];
        if (lch.mig && jobs_.Str(j.leaf_type) != lch.leaf_type)
          return "job '" + j.name + "' holds MIG slice " + cell(l) + " of profile '" +
                 lch.leaf_type + "' but asked for '" + jobs_.Str(j.leaf_type) + "'";
      }
    }
    if (j.guaranteed()) {
      if (j.Vleaves().size() != nleaves)
        return "guaranteed job '" + j.name + "' lacks virtual cells";
      size_t i = 0;
      for (const auto& p : j.Pods())
        for (CellId l : p.leaves) {
          CellId v = j.Vleaves()[i++];
          if (vcells_[v].job != static_cast<int>(s))
            return "virtual leaf of '" + j.name + "' does not record it";
          if (vcells_[v].bound != l)
            return "virtual leaf of '" + j.name + "' is not bound to its GPU " + cell(l);
          if (vcells_[v].vc != j.vc) return "job '" + j.name + "' uses another VC's cell";
        }
    } else if (!j.Vleaves().empty()) {
      return "opportunistic job '" + j.name + "' holds virtual cells";
    }
  }
  if (jobs_.IndexSize() != static_cast<size_t>(std::count_if(jobs_.begin(), jobs_.end(),
                                                             [](const Job& j) { return j.live; })))
    return "job index holds finished jobs";
  // 2. Physical counters and bindings.
  for (CellId c = static_cast<CellId>(pcells_.size()) - 1; c >= 0; c--) {
    const PCell& p = pcells_[c];
    int32_t avail = 0, opp = 0, bad = 0;
    if (p.level == 1) {
      if (p.job != owner[c]) return cell(c) + " records a job that does not hold it";
      bad = p.bad;
      avail = (!p.bad && p.job < 0) ? 1 : 0;
      opp = (p.job >= 0 && !jobs_[p.job].guaranteed()) ? 1 : 0;
      if (p.bad != (p.node >= 0 && node_bad_[p.node] ? 1 : 0))
        return cell(c) + " health differs from its node";
    } else {
      for (int k = 0; k < chains_[p.chain].level_children[p.level]; k++) {
        const PCell& ch = pcells_[p.first_child + k];
        if (ch.parent != c) return cell(c) + " child does not point back";
        avail += ch.avail;
        opp += ch.opp;
        bad += ch.bad;
      }
    }
    if (avail != p.avail || opp != p.opp || bad != p.bad)
      return "counters of " + cell(c) + " are out of step";
    if (p.bound != kNone) {
      const VCell& v = vcells_[p.bound];
      if (v.bound != c) return "binding of " + cell(c) + " is not mutual";
    }
    if (p.level == chains_[p.chain].node_level && !chains_[p.chain].node_by_avail[p.avail].count(c))
      return cell(c) + " is missing from the node index";
  }
  // 3. Free lists: a free cell is unbound, has no free/bound ancestor or descendant,
  //    sits in the right list, and no parent has all children free (merged).
  std::vector<uint8_t> covered(pcells_.size(), 0);  // 1: in or under a free cell
  for (size_t ci = 0; ci < chains_.size(); ci++) {
    const Chain& ch = chains_[ci];
    for (int l = 1; l <= ch.levels; l++) {
      for (const auto* set : {&ch.free_clean[l], &ch.free_busy[l], &ch.free_bad[l]})
        for (CellId c : *set) {
          const PCell& p = pcells_[c];
          if (!(p.flags & kFree) || p.level != l)
            return cell(c) + " is listed free but not marked free";
          bool right = set == &ch.free_bad[l]    ? p.bad > 0
                       : set == &ch.free_busy[l] ? (!p.bad && p.opp > 0)
                                                 : (!p.bad && !p.opp);
          if (!right) return cell(c) + " is in the wrong free list";
          for (CellId a = p.parent; a != kNone; a = pcells_[a].parent)
            if ((pcells_[a].flags & kFree) || pcells_[a].bound != kNone)
              return cell(c) + " is free under a free or bound cell";
          if (p.flags & (kPinned | kUnderPinned)) return cell(c) + " is pinned yet free";
        }
    }
  }
  for (CellId c = 0; c < static_cast<CellId>(pcells_.size()); c++) {
    const PCell& p = pcells_[c];
    const Chain& ch = chains_[p.chain];
    bool listed = ch.free_clean[p.level].count(c) || ch.free_busy[p.level].count(c) ||
                  ch.free_bad[p.level].count(c);
    if (((p.flags & kFree) != 0) != listed) return cell(c) + " is marked free but not listed";
  }
  for (CellId c = 0; c < static_cast<CellId>(pcells_.size()); c++) {
    const PCell& p = pcells_[c];
    if (p.flags & kFree) covered[c] = 1;
    if (p.parent != kNone && covered[p.parent]) covered[c] = 1;  // parents precede children
    if (covered[c] && p.bound != kNone) return cell(c) + " is bound inside a free cell";
    if (p.level > 1 && !(p.flags & kFree) && !covered[c]) {
      int n = chains_[p.chain].level_children[p.level];
      bool all_free = n > 0;
      for (int k = 0; k < n; k++) all_free &= (pcells_[p.first_child + k].flags & kFree) != 0;
      if (all_free && !(p.flags & kPinned))
        return cell(c) + " has all children free but was not merged";
    }
  }
  // 4. Virtual cells: counters, bindings mirror the trees, bound iff in use.
  for (CellId v = static_cast<CellId>(vcells_.size()) - 1; v >= 0; v--) {
    const VCell& c = vcells_[v];
    int32_t vfree = 0;
    bool any_bound_child = false;
    if (c.level == 1) {
      vfree = c.job < 0 ? 1 : 0;
      if (c.job >= 0 && (!jobs_[c.job].live || !jobs_[c.job].guaranteed()))
        return "virtual leaf held by a non-guaranteed job";
    } else {
      for (int k = 0; k < chains_[c.chain].level_children[c.level]; k++) {
        vfree += vcells_[c.first_child + k].vfree;
        any_bound_child |= vcells_[c.first_child + k].bound != kNone;
      }
    }
    if (vfree != c.vfree) return "virtual counters of VC '" + vcs_[c.vc].name + "' are out of step";
    bool in_use = c.level == 1 ? c.job >= 0 : any_bound_child;
    if (!c.pinned && (c.bound != kNone) != in_use)
      return "virtual cell of VC '" + vcs_[c.vc].name + "' is " +
             (in_use ? "used but unbound" : "bound but unused");
    if (c.bound != kNone) {
      const PCell& p = pcells_[c.bound];
      if (p.bound != v || p.level != c.level || p.chain != c.chain)
        return "binding of a virtual cell is not mutual";
      if (c.root != v && vcells_[c.parent].bound != p.parent)
        return "binding of a virtual cell breaks its parent's";
    }
  }
  // 5. Unit index and demand counters.
  for (const auto& vc : vcs_)
    for (const auto& vch : vc.chains) {
      size_t units = 0;
      for (size_t f = 0; f < vch.unit_by_free.size(); f++)
        for (CellId u : vch.unit_by_free[f]) {
          units++;
          if (vcells_[u].vfree != static_cast<int32_t>(f) || !IsUnit(u))
            return "unit index of VC '" + vc.name + "' is out of step";
        }
      (void)units;
    }
  for (size_t ci = 0; ci < chains_.size(); ci++) {
    const Chain& ch = chains_[ci];
    std::vector<int64_t> demand(ch.levels + 1, 0);
    for (const auto& vc : vcs_)
      for (const auto& vch : vc.chains)
        if (vch.chain == static_cast<int>(ci))
          for (CellId r : vch.roots)
            if (vcells_[r].bound == kNone) demand[vcells_[r].level]++;
    for (int l = 1; l <= ch.levels; l++) {
      if (demand[l] != ch.unbound_demand[l])
        return "unbound-cell count of chain '" + ch.top + "' is out of step";
      // 6. Safety: the VCs' unbound cells are always obtainable.
      if (Demand(static_cast<int>(ci), l) > Obtainable(static_cast<int>(ci), l, false))
        return "safety broken: chain '" + ch.top + "' level " + std::to_string(l) + " (" +
               ch.level_type[l] + ") has " +
               std::to_string(Obtainable(static_cast<int>(ci), l, false)) +
               " obtainable cells for " + std::to_string(Demand(static_cast<int>(ci), l)) +
               " unbound VC cells";
    }
  }
  // 7. Per-VC usage totals.
  for (size_t v = 0; v < vcs_.size(); v++) {
    int64_t used = 0, opp = 0;
    for (const auto& j : jobs_)
      if (j.live && j.vc == static_cast<int>(v))
        for (const auto& p : j.Pods())
          (j.guaranteed() ? used : opp) += static_cast<int64_t>(p.leaves.size());
    if (used != vcs_[v].used_leaves || opp != vcs_[v].opp_leaves)
      return "usage totals of VC '" + vcs_[v].name + "' are out of step";
    int64_t free_v = 0, held = 0;
    for (const auto& vch : vcs_[v].chains)
      for (CellId r : vch.roots) free_v += vcells_[r].vfree;
    for (const auto& [prio, n] : vcs_[v].used_by_priority) held += n;
    if (free_v != vcs_[v].free_leaves || held != used)
      return "free/held virtual leaf totals of VC '" + vcs_[v].name + "' are out of step";
  }
  return "";
}

}  // namespace hived
