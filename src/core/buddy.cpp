// SPDX-License-Identifier: GPL-2.0-or-later
// Buddy allocation of physical cells to VCs' preassigned cells: free lists per level,
// split on demand, merge on release, and the counts behind the safety invariant.
#include "core/engine.h"

namespace hived {

void Engine::FreeInsert(CellId c) {
  PCell& p = pcells_[c];
  Chain& ch = chains_[p.chain];
  p.flags |= kFree;
  if (p.bad)
    ch.free_bad[p.level].insert(c);
  else if (p.opp)
    ch.free_busy[p.level].insert(c);
  else
    ch.free_clean[p.level].insert(c);
}

void Engine::FreeErase(CellId c) {
  PCell& p = pcells_[c];
  Chain& ch = chains_[p.chain];
  p.flags &= static_cast<uint8_t>(~kFree);
  ch.free_bad[p.level].erase(c);
  ch.free_busy[p.level].erase(c);
  ch.free_clean[p.level].erase(c);
}

// Called when a free cell's health or opportunistic use changed.
void Engine::FreeRefile(CellId c) {
  FreeErase(c);
  FreeInsert(c);
}

CellId Engine::FreeAncestor(CellId c) const {
  for (; c != kNone; c = pcells_[c].parent)
    if (pcells_[c].flags & kFree) return c;
  return kNone;
}

int64_t Engine::Demand(int chain, int level) const {
  const Chain& ch = chains_[chain];
  int64_t n = 0;
  for (int j = level; j <= ch.levels; j++) n += ch.unbound_demand[j] * ch.desc[j][level];
  return n;
}

// Healthy level-`level` cells inside c (a cell with a bad leaf is not healthy).
int64_t Engine::HealthyDesc(CellId c, int level) const {
  const PCell& p = pcells_[c];
  const Chain& ch = chains_[p.chain];
  if (!p.bad) return ch.desc[p.level][level];
  if (p.level == level) return 0;
  int64_t n = 0;
  for (int k = 0; k < ch.level_children[p.level]; k++) n += HealthyDesc(p.first_child + k, level);
  return n;
}

int64_t Engine::Obtainable(int chain, int level, bool healthy_only) const {
  const Chain& ch = chains_[chain];
  int64_t n = 0;
  for (int j = level; j <= ch.levels; j++) {
    n += static_cast<int64_t>(ch.free_clean[j].size() + ch.free_busy[j].size()) * ch.desc[j][level];
    if (!healthy_only)
      n += static_cast<int64_t>(ch.free_bad[j].size()) * ch.desc[j][level];
    else
      for (CellId c : ch.free_bad[j]) n += HealthyDesc(c, level);
  }
  return n;
}

// Splitting free cell `from` down to level `to` costs one healthy cell at every level
// in (to, from] where `from` has any (a partly bad cell's healthy part is split off
// without costing the levels at which it counts as bad already); only a surplus over
// the VCs' unbound cells may pay for it (counting bad cells too, as the safety
// invariant does: a repair makes them usable).
bool Engine::CanSplitSafely(CellId from, int to_level) const {
  const int chain = pcells_[from].chain;
  for (int m = to_level + 1; m <= pcells_[from].level; m++) {
    if (Obtainable(chain, m, false) - 1 < Demand(chain, m)) return false;  // the invariant
    if (HealthyDesc(from, m) > 0 && Obtainable(chain, m, true) - 1 < Demand(chain, m)) return false;
  }
  return true;
}

// Recovery binds a VC cell to exactly the cell a job already runs in. Splitting a
// free ancestor for it must leave each level above enough for the VCs' unbound cells,
// counted as the invariant counts them (bad cells too: a repair makes them usable);
// otherwise the job is demoted rather than a guarantee of another VC broken.
bool Engine::CanTakeSafely(CellId c) const {
  CellId a = FreeAncestor(c);
  if (a == kNone) return false;
  const int chain = pcells_[c].chain;
  for (int m = pcells_[c].level + 1; m <= pcells_[a].level; m++)
    if (Obtainable(chain, m, false) - 1 < Demand(chain, m)) return false;
  return true;
}

namespace {
bool Allowed(const std::vector<uint8_t>& allowed, int32_t node) {
  return allowed.empty() || node < 0 || allowed[node];
}
}  // namespace

// Take a free cell at `level` for a preassigned cell: a healthy one at that level,
// else split a healthy higher cell that the safety margin can spare, else whatever
// the plain buddy rule gives (the caller refuses to place a job on bad leaves).
CellId Engine::BuddyAlloc(int chain, int level, const std::vector<uint8_t>& allowed, CellId near) {
  Chain& ch = chains_[chain];
  auto allowed_cell = [&](CellId c) {
    if (allowed.empty()) return true;
    const PCell& p = pcells_[c];
    if (p.node >= 0) return Allowed(allowed, p.node);
    // Above node level: allowed if any node inside is allowed.
    std::vector<CellId> stack{c};
    while (!stack.empty()) {
      CellId x = stack.back();
      stack.pop_back();
      const PCell& px = pcells_[x];
      if (px.node >= 0) {
        if (Allowed(allowed, px.node)) return true;
        continue;
      }
      for (int k = 0; k < ch.level_children[px.level]; k++) stack.push_back(px.first_child + k);
    }
    return false;
  };
  auto pick_healthy = [&](int l) -> CellId {
    for (CellId c : ch.free_clean[l])
      if (allowed_cell(c)) return c;
    CellId best = kNone;
    for (CellId c : ch.free_busy[l])
      if (allowed_cell(c) && (best == kNone || pcells_[c].opp < pcells_[best].opp)) best = c;
    return best;
  };
  auto split_to = [&](CellId c, int target) -> CellId {
    // Split c down to `target`, following the child that a binding would prefer.
    while (pcells_[c].level > target) {
      FreeErase(c);
      int n = ch.level_children[pcells_[c].level];
      CellId first = pcells_[c].first_child, next = kNone;
      for (int k = 0; k < n; k++) FreeInsert(first + k);
      for (int k = 0; k < n; k++) {
        CellId k_id = first + k;
        if (!allowed_cell(k_id)) continue;
        if (next == kNone) next = k_id;
        const PCell& a = pcells_[k_id];
        const PCell& b = pcells_[next];
        if ((a.bad != 0) < (b.bad != 0) || ((a.bad != 0) == (b.bad != 0) && a.opp < b.opp))
          next = k_id;
      }
      if (next == kNone) next = first;
      c = next;
    }
    FreeErase(c);
    return c;
  };
  // A gang's later pods: a free cell inside the rack (or other cell) `near` that
  // holds its first pod, if the safety margin allows, keeps the gang together.
  CellId in_near = kNone;
  if (near != kNone) {
    CellId best = kNone;
    std::vector<CellId> stack{near};
    while (!stack.empty()) {
      CellId x = stack.back();
      stack.pop_back();
      const PCell& p = pcells_[x];
      if (p.level < level) continue;
      if (p.flags & kFree) {
        // Ties go to the lowest id (the stack visits children last to first).
        if (!p.bad && allowed_cell(x) &&
            (best == kNone || p.level < pcells_[best].level ||
             (p.level == pcells_[best].level &&
              (p.opp < pcells_[best].opp || (p.opp == pcells_[best].opp && x < best)))))
          best = x;
        continue;
      }
      if (p.level > level)
        for (int k = 0; k < ch.level_children[p.level]; k++) stack.push_back(p.first_child + k);
    }
    if (best != kNone && (pcells_[best].level == level || CanSplitSafely(best, level)))
      in_near = best;
  }
  if (in_near != kNone && pcells_[in_near].opp == 0) return split_to(in_near, level);
  // An idle cell, at this level or split from a higher one the safety margin can
  // spare, before one that opportunistic jobs run on: binding there would preempt
  // them although a free cell of the VC's shape exists.
  for (int j = level; j <= ch.levels; j++)
    for (CellId c : ch.free_clean[j])
      if (allowed_cell(c)) {
        if (j == level || CanSplitSafely(c, level)) return split_to(c, level);
        break;
      }
  if (in_near != kNone) return split_to(in_near, level);
  CellId c = pick_healthy(level);
  if (c != kNone) {
    FreeErase(c);
    return c;
  }
  // Split a higher cell only from the surplus the VCs' higher cells leave; a
  // partly bad cell may be split for its healthy part.
  for (int j = level + 1; j <= ch.levels; j++) {
    CellId h = pick_healthy(j);
    if (h == kNone)
      for (CellId x : ch.free_bad[j])
        if (allowed_cell(x) && HealthyDesc(x, level) > 0) {
          h = x;
          break;
        }
    if (h != kNone && CanSplitSafely(h, level)) return split_to(h, level);
  }
  // Nothing healthy to spare: the VC's cell stays unbound (and shows as doomed)
  // rather than taking a cell another VC's guarantee needs.
  return kNone;
}

// Take exactly cell c (recovery): split its free ancestor down to it.
bool Engine::BuddyTake(CellId c) {
  CellId a = FreeAncestor(c);
  if (a == kNone) return false;
  const Chain& ch = chains_[pcells_[c].chain];
  while (a != c) {
    FreeErase(a);
    int n = ch.level_children[pcells_[a].level];
    CellId first = pcells_[a].first_child, next = kNone;
    for (int k = 0; k < n; k++) FreeInsert(first + k);
    for (CellId x = c; x != kNone; x = pcells_[x].parent)
      if (pcells_[x].parent == a) next = x;
    a = next;
  }
  FreeErase(c);
  return true;
}

// Return c to the free lists and merge buddies while a whole parent is free again.
void Engine::BuddyRelease(CellId c) {
  for (;;) {
    FreeInsert(c);
    CellId p = pcells_[c].parent;
    if (p == kNone || (pcells_[p].flags & kPinned)) return;
    const Chain& ch = chains_[pcells_[c].chain];
    int n = ch.level_children[pcells_[p].level];
    for (int k = 0; k < n; k++)
      if (!(pcells_[pcells_[p].first_child + k].flags & kFree)) return;
    for (int k = 0; k < n; k++) FreeErase(pcells_[p].first_child + k);
    c = p;
  }
}

}  // namespace hived
