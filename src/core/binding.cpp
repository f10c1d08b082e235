// SPDX-License-Identifier: GPL-2.0-or-later
// The binder (binding.h). Lazy virtual->physical binding. A virtual cell is bound only while some
// virtual leaf below it runs a guaranteed job (pinned cells stay bound). Binding walks down from
// the nearest bound ancestor; a preassigned cell with no binding takes a buddy cell.
#include <algorithm>

#include "core/binding.h"

#include "core/engine.h"

namespace hived {

// The path from vleaf up to its lowest bound ancestor is walked again for each cell
// bound on the way down (levels are few): no list of it, so no allocation per leaf.
PCellId Binder::BindDown(VCellId vleaf, const std::vector<uint8_t>& allowed, PCellId near) {
  VCellId top = vleaf;  // the highest unbound cell on the path
  VCellId v = vleaf;
  while (v != kNone && e_->vcells_[v].bound == kNone) {
    top = v;
    v = e_->vcells_[v].parent;
  }
  PCellId p;
  VCellId from;  // bound to p; the path goes on below it
  if (v == kNone) {
    p = e_->BuddyAlloc(e_->vcells_[top].chain, e_->vcells_[top].level, allowed, near);
    if (p == kNone) return kNone;
    e_->vcells_[top].bound = p;
    e_->pcells_[p].bound = top;
    e_->chains_[e_->vcells_[top].chain].unbound_demand[Level(e_->vcells_[top].level)]--;
    from = top;
  } else {
    p = e_->vcells_[v].bound;
    from = v;
  }
  const Chain& ch = e_->chains_[e_->pcells_[p].chain];
  while (from != vleaf) {
    VCellId vc = vleaf;
    while (e_->vcells_[vc].parent != from) vc = e_->vcells_[vc].parent;
    int n = ch.level_children[Level(e_->pcells_[p].level)];
    PCellId best = kNone;
    for (int k = 0; k < n; k++) {
      PCellId c = e_->pcells_[p].first_child + k;
      const PCell& a = e_->pcells_[c];
      if (a.bound != kNone) continue;
      if (best == kNone) {
        best = c;
        continue;
      }
      const PCell& b = e_->pcells_[best];
      bool a_ok = !a.bad && (allowed.empty() || a.node < 0 || allowed[a.node]);
      bool b_ok = !b.bad && (allowed.empty() || b.node < 0 || allowed[b.node]);
      if (a_ok != b_ok) {
        if (a_ok) best = c;
        continue;
      }
      if (a.opp < b.opp || (a.opp == b.opp && a.avail > b.avail)) best = c;
    }
    if (best == kNone) return kNone;  // unreachable while bindings mirror the trees
    e_->vcells_[vc].bound = best;
    e_->pcells_[best].bound = vc;
    p = best;
    from = vc;
  }
  return p;
}

// The rack (cell just above the node) a gang's bindings should land in: the rack of
// a cell of the job already bound, else, when two or more of its VC cells of node size
// or more are still unbound, the rack whose idle free node cells (no opportunistic job)
// hold them all, tightest fit (topology/tree's best fit), so the gang does not straddle
// racks while one rack has room for it. kNone: no preference, and then the first pod
// binds where the buddy allocator puts any cell and the others follow it. A rack that
// has room only counting free cells opportunistic jobs run on is no preference: on the
// ITP trace (hived-sim, doc/results.md) preferring one cost ~2,400 more preemptions and
// 0.1 h of mean queuing delay for 1.3 points of gangs in one rack; unless too few idle
// free node cells are left anywhere, and then such a rack is the preference.
PCellId Binder::GangRack(ChainId chain, const std::vector<VCellId>& vleaves,
                         const std::vector<uint8_t>& allowed) const {
  const Chain& ch = e_->chains_[chain];
  const int rack = ch.node_level + 1;
  if (rack > ch.levels) return kNone;
  std::vector<VCellId> roots;
  for (VCellId v : vleaves) {
    VCellId u = v;
    while (e_->vcells_[u].bound == kNone && e_->vcells_[u].parent != kNone)
      u = e_->vcells_[u].parent;
    if (e_->vcells_[u].bound != kNone) {
      PCellId p = e_->vcells_[u].bound;
      while (p != kNone && e_->pcells_[p].level < rack) p = e_->pcells_[p].parent;
      if (p != kNone && e_->pcells_[p].level == rack) return p;
      continue;
    }
    if (e_->vcells_[u].level >= ch.node_level &&
        std::find(roots.begin(), roots.end(), u) == roots.end())
      roots.push_back(u);
  }
  if (roots.size() < 2) return kNone;
  int64_t need = 0;
  for (VCellId u : roots) need += ch.desc[Level(e_->vcells_[u].level)][Level(ch.node_level)];
  // Free node cells per rack: idle ones, and all (opportunistic runs included). One
  // tally per free cell, folded by rack after a sort: a map per rack allocated a node
  // per rack per gang decision (10% of a decision's instructions at 10k GPUs).
  struct Tally {
    PCellId rack;
    int64_t idle, all;
  };
  std::vector<Tally> tallies;
  size_t listed = 0;
  for (int j = ch.node_level; j <= rack; j++)
    listed += ch.free_clean[Level(j)].size() + ch.free_busy[Level(j)].size();
  tallies.reserve(listed);
  int64_t idle = 0;
  for (int j = ch.node_level; j <= rack; j++)
    for (const auto* list : {&ch.free_clean[Level(j)], &ch.free_busy[Level(j)]})
      for (PCellId c : *list) {
        PCellId r = c;
        while (e_->pcells_[r].level < rack) r = e_->pcells_[r].parent;
        int64_t n = 0;
        if (allowed.empty()) {
          n = ch.desc[Level(j)][Level(ch.node_level)];
        } else {
          e_->WalkPhysical(c, [&](PCellId x) {
            if (e_->pcells_[x].level > ch.node_level) return Visit::kDescend;
            n += allowed[e_->pcells_[x].node] != 0;
            return Visit::kPrune;
          });
        }
        const bool clean = e_->pcells_[c].opp == 0;
        tallies.push_back({r, clean ? n : 0, n});
        if (clean) idle += n;
      }
  std::sort(tallies.begin(), tallies.end(),
            [](const Tally& a, const Tally& b) { return a.rack < b.rack; });
  // Too few idle cells anywhere: the gang preempts whichever cells it binds, so a rack
  // with room counting opportunistic runs costs no extra preemption (churn run, issue 18).
  const bool any = idle < need;
  // The tightest rack that holds them all; of equal ones the first in cell order.
  PCellId best = kNone;
  int64_t best_n = 0;
  for (size_t i = 0; i < tallies.size();) {
    const PCellId r = tallies[i].rack;
    int64_t n = 0;
    for (; i < tallies.size() && tallies[i].rack == r; i++)
      n += any ? tallies[i].all : tallies[i].idle;
    if (n >= need && (best == kNone || n < best_n)) {
      best = r;
      best_n = n;
    }
  }
  return best;
}

bool Binder::BindExact(VCellId vleaf, PCellId pleaf) {
  VCellId v = vleaf;
  PCellId p = pleaf;
  // Undoing walks the same path again from the leaf up to the cell that failed: no list
  // of the cells bound so far, so no allocation per leaf a WILL_RUN trial puts back.
  auto undo = [&]() {
    for (VCellId dv = vleaf; dv != v; dv = e_->vcells_[dv].parent) {
      e_->pcells_[e_->vcells_[dv].bound].bound = kNone;
      e_->vcells_[dv].bound = kNone;
    }
    return false;
  };
  for (;;) {
    if (e_->vcells_[v].bound == p) break;
    if (e_->vcells_[v].bound != kNone || e_->pcells_[p].bound != kNone ||
        e_->vcells_[v].level != e_->pcells_[p].level ||
        e_->vcells_[v].chain != e_->pcells_[p].chain)
      return undo();
    if (e_->vcells_[v].root == v) {
      if (e_->vcells_[v].pinned || !e_->CanTakeSafely(p) || !e_->BuddyTake(p)) return undo();
      e_->chains_[e_->vcells_[v].chain].unbound_demand[Level(e_->vcells_[v].level)]--;
      e_->vcells_[v].bound = p;
      e_->pcells_[p].bound = v;
      break;
    }
    e_->vcells_[v].bound = p;
    e_->pcells_[p].bound = v;
    v = e_->vcells_[v].parent;
    p = e_->pcells_[p].parent;
    if (p == kNone) return undo();
  }
  return true;
}

void Binder::UnbindUp(VCellId vleaf) {
  VCellId v = vleaf;
  while (v != kNone) {
    VCell& c = e_->vcells_[v];
    if (c.bound == kNone || c.pinned) return;
    if (c.level == 1) {
      if (c.job >= 0) return;
    } else {
      int n = e_->chains_[c.chain].level_children[Level(c.level)];
      for (int k = 0; k < n; k++)
        if (e_->vcells_[c.first_child + k].bound != kNone) return;
    }
    PCellId p = c.bound;
    c.bound = kNone;
    e_->pcells_[p].bound = kNone;
    if (c.root == v) {
      e_->chains_[c.chain].unbound_demand[Level(c.level)]++;
      e_->BuddyRelease(p);
      return;
    }
    v = c.parent;
  }
}

// A virtual leaf of `vc` that can be bound to pleaf: below the VC's cell already bound
// to an ancestor of pleaf, else below an unbound preassigned cell (the lowest level at
// or above min_level) whose physical counterpart is still free.
VCellId Binder::FindVleafFor(VcId vc, ChainId chain, PCellId pleaf, VCellId pinned_root,
                             int min_level) const {
  std::vector<PCellId> ppath;  // pleaf .. ancestor
  PCellId a = pleaf;
  for (; a != kNone; a = e_->pcells_[a].parent) {
    if (e_->pcells_[a].bound != kNone) break;
    ppath.push_back(a);
  }
  VCellId v;
  if (a != kNone) {
    const VCell& owner = e_->vcells_[e_->pcells_[a].bound];
    if (owner.vc != vc) return kNone;
    bool owner_pinned = e_->vcells_[owner.root].pinned;
    if (pinned_root != kNone ? owner.root != pinned_root : owner_pinned) return kNone;
    v = e_->pcells_[a].bound;
  } else {
    if (pinned_root != kNone) return kNone;
    v = kNone;
    for (const auto& vch : e_->vcs_[vc].chains) {
      if (vch.chain != chain) continue;
      for (VCellId r : vch.roots) {
        const VCell& rc = e_->vcells_[r];
        if (rc.bound != kNone || rc.level < min_level) continue;
        if (v != kNone && e_->vcells_[v].level <= rc.level) continue;
        PCellId anc = pleaf;
        while (e_->pcells_[anc].level < rc.level) anc = e_->pcells_[anc].parent;
        if (e_->FreeAncestor(anc) == kNone) continue;
        v = r;
      }
    }
    if (v == kNone) return kNone;
    ppath.clear();
    for (PCellId x = pleaf; e_->pcells_[x].level < e_->vcells_[v].level; x = e_->pcells_[x].parent)
      ppath.push_back(x);
  }
  // Descend: reuse the virtual child bound to the path's physical cell, else an unbound one.
  const Chain& ch = e_->chains_[chain];
  for (size_t i = ppath.size(); i-- > 0;) {
    PCellId pc = ppath[i];
    if (e_->pcells_[pc].bound != kNone) {
      v = e_->pcells_[pc].bound;
      continue;
    }
    int n = ch.level_children[Level(e_->vcells_[v].level)];
    VCellId pick = kNone;
    for (int k = 0; k < n; k++) {
      VCellId c = e_->vcells_[v].first_child + k;
      if (e_->vcells_[c].bound == kNone) {
        pick = c;
        break;
      }
    }
    if (pick == kNone) return kNone;
    v = pick;
  }
  return e_->vcells_[v].level == 1 ? v : kNone;
}

}  // namespace hived
