// SPDX-License-Identifier: GPL-2.0-or-later
// Buddy allocation of physical cells to VCs' preassigned cells: free lists per level,
// split on demand, merge on release, and the counts behind the safety invariant.
#include "core/buddy.h"

namespace hived {

void Buddy::FreeInsert(PCellId c) {
  PCell& p = m_.pcells_[c];
  Chain& ch = m_.chains_[p.chain];
  p.flags |= kFree;
  if (p.bad)
    ch.free_bad[Level(p.level)].insert(c);
  else if (p.opp)
    ch.free_busy[Level(p.level)].insert(c);
  else
    ch.free_clean[Level(p.level)].insert(c);
}

void Buddy::FreeErase(PCellId c) {
  PCell& p = m_.pcells_[c];
  Chain& ch = m_.chains_[p.chain];
  p.flags &= static_cast<uint8_t>(~kFree);
  ch.free_bad[Level(p.level)].erase(c);
  ch.free_busy[Level(p.level)].erase(c);
  ch.free_clean[Level(p.level)].erase(c);
}

// The cell moves to the list it now belongs on: an opportunistic job a WILL_RUN trial
// ends or puts back on a free cell refiles it.
void Buddy::FreeRefile(PCellId c) {
  const PCell& p = m_.pcells_[c];
  Chain& ch = m_.chains_[p.chain];
  const Level l = Level(p.level);
  auto& to = p.bad ? ch.free_bad[l] : p.opp ? ch.free_busy[l] : ch.free_clean[l];
  for (auto* from : {&ch.free_bad[l], &ch.free_busy[l], &ch.free_clean[l]})
    if (from != &to) from->erase(c);
  to.insert(c);
}

PCellId BuddySafety::FreeAncestor(PCellId c) const {
  for (; c != kNone; c = s_.pcells_[c].parent)
    if (s_.pcells_[c].flags & kFree) return c;
  return kNone;
}

int64_t BuddySafety::Demand(ChainId chain, int level) const {
  const Chain& ch = s_.chains_[chain];
  int64_t n = 0;
  for (int j = level; j <= ch.levels; j++)
    n += ch.unbound_demand[Level(j)] * ch.desc[Level(j)][Level(level)];
  return n;
}

int64_t BuddySafety::HealthyDesc(PCellId c, int level) const {
  int64_t n = 0;
  s_.WalkPhysical(c, [&](PCellId x) {
    const PCell& p = s_.pcells_[x];
    if (!p.bad) {
      n += s_.chains_[p.chain].desc[Level(p.level)][Level(level)];
      return Visit::kPrune;
    }
    return p.level == level ? Visit::kPrune : Visit::kDescend;
  });
  return n;
}

int64_t BuddySafety::Obtainable(ChainId chain, int level, bool healthy_only) const {
  const Chain& ch = s_.chains_[chain];
  int64_t n = 0;
  for (int j = level; j <= ch.levels; j++) {
    n += static_cast<int64_t>(ch.free_clean[Level(j)].size() + ch.free_busy[Level(j)].size()) *
         ch.desc[Level(j)][Level(level)];
    if (!healthy_only)
      n += static_cast<int64_t>(ch.free_bad[Level(j)].size()) * ch.desc[Level(j)][Level(level)];
    else
      for (PCellId c : ch.free_bad[Level(j)]) n += HealthyDesc(c, level);
  }
  return n;
}

// Splitting free cell `from` down to level `to` costs one healthy cell at every level
// in (to, from] where `from` has any (a partly bad cell's healthy part is split off
// without costing the levels at which it counts as bad already); only a surplus over
// the VCs' unbound cells may pay for it (counting bad cells too, as the safety
// invariant does: a repair makes them usable).
bool BuddySafety::CanSplitSafely(PCellId from, int to_level) const {
  const ChainId chain = s_.pcells_[from].chain;
  for (int m = to_level + 1; m <= s_.pcells_[from].level; m++) {
    if (Obtainable(chain, m, false) - 1 < Demand(chain, m)) return false;  // the invariant
    if (HealthyDesc(from, m) > 0 && Obtainable(chain, m, true) - 1 < Demand(chain, m)) return false;
  }
  return true;
}

// Recovery binds a VC cell to exactly the cell a job already runs in. Splitting a
// free ancestor for it must leave each level above enough for the VCs' unbound cells,
// counted as the invariant counts them (bad cells too: a repair makes them usable);
// otherwise the job is demoted rather than a guarantee of another VC broken.
bool BuddySafety::CanTakeSafely(PCellId c) const {
  PCellId a = FreeAncestor(c);
  if (a == kNone) return false;
  const ChainId chain = s_.pcells_[c].chain;
  for (int m = s_.pcells_[c].level + 1; m <= s_.pcells_[a].level; m++)
    if (Obtainable(chain, m, false) - 1 < Demand(chain, m)) return false;
  return true;
}

namespace {
bool Allowed(const std::vector<uint8_t>& allowed, int32_t node) {
  return allowed.empty() || node < 0 || allowed[node];
}
}  // namespace

// Above node level: allowed if any node inside is allowed.
bool Buddy::AllowedCell(PCellId c, const std::vector<uint8_t>& allowed) const {
  if (allowed.empty()) return true;
  if (m_.pcells_[c].node >= 0) return Allowed(allowed, m_.pcells_[c].node);
  return !m_.WalkPhysical(c, [&](PCellId x) {
    const int32_t node = m_.pcells_[x].node;
    if (node < 0) return Visit::kDescend;
    return Allowed(allowed, node) ? Visit::kStop : Visit::kPrune;
  });
}

PCellId Buddy::PickHealthy(ChainId chain, int level, const std::vector<uint8_t>& allowed) const {
  const Chain& ch = m_.chains_[chain];
  for (PCellId c : ch.free_clean[Level(level)])
    if (AllowedCell(c, allowed)) return c;
  PCellId best = kNone;
  for (PCellId c : ch.free_busy[Level(level)])
    if (AllowedCell(c, allowed) && (best == kNone || m_.pcells_[c].opp < m_.pcells_[best].opp))
      best = c;
  return best;
}

PCellId Buddy::SplitOnce(PCellId c) {
  FreeErase(c);
  const PCellId first = m_.pcells_[c].first_child;
  for (int k = 0; k < m_.ChildCount(m_.pcells_[c]); k++) FreeInsert(first + k);
  return first;
}

// Split c down to `target`, following the child that a binding would prefer.
PCellId Buddy::SplitTo(PCellId c, int target, const std::vector<uint8_t>& allowed) {
  while (m_.pcells_[c].level > target) {
    const int n = m_.ChildCount(m_.pcells_[c]);
    const PCellId first = SplitOnce(c);
    PCellId next = kNone;
    for (int k = 0; k < n; k++) {
      PCellId k_id = first + k;
      if (!AllowedCell(k_id, allowed)) continue;
      if (next == kNone) next = k_id;
      const PCell& a = m_.pcells_[k_id];
      const PCell& b = m_.pcells_[next];
      if ((a.bad != 0) < (b.bad != 0) || ((a.bad != 0) == (b.bad != 0) && a.opp < b.opp))
        next = k_id;
    }
    c = next == kNone ? first : next;
  }
  FreeErase(c);
  return c;
}

// A gang's later pods: the free healthy cell inside the rack (or other cell) `near`
// that holds its first pod and can be split to `level` safely, smallest and least
// busy first, ties to the lowest id; kNone if none.
PCellId Buddy::NearCell(PCellId near, int level, const std::vector<uint8_t>& allowed) const {
  PCellId best = kNone;
  m_.WalkPhysical(near, [&](PCellId x) {
    const PCell& p = m_.pcells_[x];
    if (p.level < level) return Visit::kPrune;
    if (p.flags & kFree) {
      const PCell* b = best == kNone ? nullptr : &m_.pcells_[best];
      if (!p.bad && AllowedCell(x, allowed) &&
          (!b || p.level < b->level ||
           (p.level == b->level && (p.opp < b->opp || (p.opp == b->opp && x < best)))))
        best = x;
      return Visit::kPrune;
    }
    return p.level > level ? Visit::kDescend : Visit::kPrune;
  });
  if (best != kNone && (m_.pcells_[best].level == level || CanSplitSafely(best, level)))
    return best;
  return kNone;
}

// Take a free cell at `level` for a preassigned cell: a healthy one at that level,
// else split a healthy higher cell that the safety margin can spare, else whatever
// the plain buddy rule gives (the caller refuses to place a job on bad leaves).
PCellId Buddy::Alloc(ChainId chain, int level, const std::vector<uint8_t>& allowed, PCellId near) {
  const Chain& ch = m_.chains_[chain];
  const PCellId in_near = near == kNone ? kNone : NearCell(near, level, allowed);
  if (in_near != kNone && m_.pcells_[in_near].opp == 0) return SplitTo(in_near, level, allowed);
  // An idle cell, at this level or split from a higher one the safety margin can
  // spare, before one that opportunistic jobs run on: binding there would preempt
  // them although a free cell of the VC's shape exists.
  for (int j = level; j <= ch.levels; j++)
    for (PCellId c : ch.free_clean[Level(j)])
      if (AllowedCell(c, allowed)) {
        if (j == level || CanSplitSafely(c, level)) return SplitTo(c, level, allowed);
        break;
      }
  if (in_near != kNone) return SplitTo(in_near, level, allowed);
  PCellId c = PickHealthy(chain, level, allowed);
  if (c != kNone) {
    FreeErase(c);
    return c;
  }
  // Split a higher cell only from the surplus the VCs' higher cells leave; a
  // partly bad cell may be split for its healthy part.
  for (int j = level + 1; j <= ch.levels; j++) {
    PCellId h = PickHealthy(chain, j, allowed);
    if (h == kNone)
      for (PCellId x : ch.free_bad[Level(j)])
        if (AllowedCell(x, allowed) && HealthyDesc(x, level) > 0) {
          h = x;
          break;
        }
    if (h != kNone && CanSplitSafely(h, level)) return SplitTo(h, level, allowed);
  }
  // Nothing healthy to spare: the VC's cell stays unbound (and shows as doomed)
  // rather than taking a cell another VC's guarantee needs.
  return kNone;
}

// Take exactly cell c (recovery): split its free ancestor down to it.
bool Buddy::Take(PCellId c) {
  PCellId a = FreeAncestor(c);
  if (a == kNone) return false;
  while (a != c) {
    SplitOnce(a);
    PCellId next = kNone;
    for (PCellId x = c; x != kNone; x = m_.pcells_[x].parent)
      if (m_.pcells_[x].parent == a) next = x;
    a = next;
  }
  FreeErase(c);
  return true;
}

// Return c to the free lists and merge buddies while a whole parent is free again.
void Buddy::Release(PCellId c) {
  for (;;) {
    FreeInsert(c);
    PCellId p = m_.pcells_[c].parent;
    if (p == kNone || (m_.pcells_[p].flags & kPinned)) return;
    const int n = m_.ChildCount(m_.pcells_[p]);
    const PCellId first = m_.pcells_[p].first_child;
    for (int k = 0; k < n; k++)
      if (!(m_.pcells_[first + k].flags & kFree)) return;
    for (int k = 0; k < n; k++) FreeErase(first + k);
    c = p;
  }
}

}  // namespace hived
