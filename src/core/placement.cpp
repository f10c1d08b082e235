// SPDX-License-Identifier: GPL-2.0-or-later
// Topology-aware gang placement, shared by the two views it runs on:
//  - a VC's virtual cells (guaranteed jobs; packed; may count lower-priority leaves
//    of the same VC as free when preemption is allowed),
//  - a chain's physical cells (opportunistic jobs; spread, free healthy leaves only).
// A "unit" is where one pod goes: a node-level cell, or a whole VC cell below a node.
#include <algorithm>
#include <unordered_map>

#include "core/constraints.h"
#include "core/engine.h"

namespace hived {

// Units in best-fit order from buckets indexed by free GPUs: fullest-fitting first
// when packing, emptiest first when spreading; f returns true to stop.
template <class I, class F>
void ForEachInBuckets(const std::vector<IdSet<I>>& b, int min_free, bool pack, F f) {
  int hi = static_cast<int>(b.size()) - 1;
  for (int i = 0; i <= hi - min_free; i++) {
    int k = pack ? min_free + i : hi - i;
    for (I u : b[k])
      if (f(u)) return;
  }
}

struct PodAsk {
  int index;  // position in request order
  int size;
};

// Stable: equal elements keep their order. The lists a decision sorts (a job's pods,
// a cell's children) are mostly short, where std::stable_sort allocated a buffer per
// call; insertion sort is quadratic, so a long list (a flat topology's hundreds of
// nodes under one cell, a gang of many pod sizes) still goes to std::stable_sort.
template <class T, class Less>
void StableSort(T* first, T* last, Less less) {
  if (last - first > 32) {
    std::stable_sort(first, last, less);
    return;
  }
  for (T* i = first; i != last; ++i)
    for (T* j = i; j != first && less(*j, *(j - 1)); --j) std::swap(*j, *(j - 1));
}

// ---------------------------------------------------------------------------
struct VirtualView {
  using Cell = VCellId;
  const Engine& e;
  ChainId chain;
  const VcChain* vch;   // null for a pinned placement
  VCellId pinned_root;  // kNone unless pinned
  bool preempt;
  Priority priority;
  const std::vector<uint8_t>& allowed;
  std::vector<Cell> all_units;
  bool idle_only = false;

  int Level(Cell c) const { return e.vcells_[c].level; }
  int NChildren(Cell c) const { return e.chains_[chain].level_children[hived::Level(Level(c))]; }
  int NChildrenAt(int level) const { return e.chains_[chain].level_children[hived::Level(level)]; }
  Cell Child(Cell c, int k) const { return e.vcells_[c].first_child + k; }
  int UnitLevel() const { return e.chains_[chain].node_level; }
  int TopLevel() const { return e.chains_[chain].levels; }
  Cell Parent(Cell c) const { return e.vcells_[c].parent; }
  bool LeafUsable(Cell l) const {
    int j = e.vcells_[l].job;
    if (idle_only) return j < 0 && IdleFree(l) > 0;
    return j < 0 || (preempt && e.jobs_[j].priority < priority);
  }
  // Free GPUs of c that bind to idle physical ones: a bound cell's idle GPUs (the
  // whole physical cell is the VC's); below a bound cell, those of the idlest physical
  // cell its binding can take; else the buddy allocator's choice, idle cells first.
  int IdleFree(Cell c) const {
    const VCell& v = e.vcells_[c];
    if (v.bound != kNone) return std::min(v.vfree, e.pcells_[v.bound].avail);
    if (v.parent == kNone || e.vcells_[v.parent].bound == kNone) return v.vfree;
    const PCell& pp = e.pcells_[e.vcells_[v.parent].bound];
    int best = 0;
    for (int k = 0; k < NChildren(v.parent); k++) {
      const PCell& q = e.pcells_[pp.first_child + k];
      if (q.bound == kNone) best = std::max(best, q.avail);
    }
    return std::min(v.vfree, best);
  }
  std::pair<int, int> Count(Cell c) const {
    if (idle_only) return {IdleFree(c), 0};
    if (!preempt) return {e.vcells_[c].vfree, 0};
    if (e.scratch_stamp_[c] == e.scratch_epoch_) return e.scratch_count_[c];
    std::pair<int, int> r{0, 0};
    if (Level(c) == 1) {
      if (LeafUsable(c)) r = {1, e.vcells_[c].job >= 0 ? 1 : 0};
    } else {
      for (int k = 0; k < NChildren(c); k++) {
        auto x = Count(Child(c, k));
        r.first += x.first;
        r.second += x.second;
      }
    }
    e.scratch_stamp_[c] = e.scratch_epoch_;
    e.scratch_count_[c] = r;
    return r;
  }
  int Guaranteed(Cell) const { return 0; }
  // Buddy preference: of equally free units, the one in the smallest VC cell, so a
  // small job does not break a VC's rack cell while a lone node cell would do.
  int RootLevel(Cell u) const { return e.vcells_[e.vcells_[u].root].level; }
  int32_t UnitNode(Cell u) const {
    PCellId p = e.vcells_[u].bound;
    return p == kNone ? -1 : e.pcells_[p].node;
  }
  bool UnitOk(Cell u) const {
    int32_t n = UnitNode(u);
    if (n < 0) return true;
    return !e.node_bad_[n] && (allowed.empty() || allowed[n]);
  }
  std::vector<Cell> CellsAtLevel(int l) const {
    if (pinned_root == kNone) return vch->cells_at_level[hived::Level(l)];
    std::vector<Cell> out;
    e.WalkVirtual(pinned_root, [&](Cell c) {
      if (Level(c) > l) return Visit::kDescend;
      if (Level(c) == l) out.push_back(c);
      return Visit::kPrune;
    });
    return out;
  }
  void UnitsUnder(Cell g, std::vector<Cell>* out) const {
    e.WalkVirtual(g, [&](Cell c) {
      if (Level(c) > UnitLevel()) return Visit::kDescend;
      out->push_back(c);
      return Visit::kPrune;
    });
  }
  void Prepare() {
    if (preempt) {
      if (e.scratch_stamp_.size() != e.vcells_.size()) {
        e.scratch_stamp_.assign(e.vcells_.size(), 0);
        e.scratch_count_.assign(e.vcells_.size(), {0, 0});
        e.scratch_epoch_ = 0;
      }
      if (++e.scratch_epoch_ == 0) {  // wrapped: old stamps could collide
        std::fill(e.scratch_stamp_.begin(), e.scratch_stamp_.end(), 0);
        e.scratch_epoch_ = 1;
      }
    }
    if (pinned_root != kNone) {
      UnitsUnder(pinned_root, &all_units);
    } else if (preempt || idle_only) {
      for (const auto& b : vch->unit_by_free) all_units.insert(all_units.end(), b.begin(), b.end());
      std::sort(all_units.begin(), all_units.end());
    }
  }
  template <class F>
  void ForEachUnit(int min_free, bool pack, F f) const {
    if (all_units.empty() && pinned_root == kNone && !preempt && !idle_only) {
      ForEachInBuckets(vch->unit_by_free, min_free, pack, f);
      return;
    }
    std::vector<Cell> order;
    for (Cell u : all_units)
      if (Count(u).first >= min_free) order.push_back(u);
    std::stable_sort(order.begin(), order.end(), [&](Cell a, Cell b) {
      auto ca = Count(a), cb = Count(b);
      if (ca.second != cb.second) return ca.second < cb.second;
      return pack ? ca.first < cb.first : ca.first > cb.first;
    });
    for (Cell u : order)
      if (f(u)) return;
  }
};

// ---------------------------------------------------------------------------
struct PhysicalView {
  using Cell = PCellId;
  const Engine& e;
  ChainId chain;
  const std::vector<uint8_t>& allowed;

  int Level(Cell c) const { return e.pcells_[c].level; }
  int NChildren(Cell c) const { return e.chains_[chain].level_children[hived::Level(Level(c))]; }
  int NChildrenAt(int level) const { return e.chains_[chain].level_children[hived::Level(level)]; }
  Cell Child(Cell c, int k) const { return e.pcells_[c].first_child + k; }
  int UnitLevel() const { return e.chains_[chain].node_level; }
  int TopLevel() const { return e.chains_[chain].levels; }
  Cell Parent(Cell c) const { return e.pcells_[c].parent; }
  // unowed_only: only free GPUs outside every cell bound to a VC count (see Owed).
  bool unowed_only = false;

  bool LeafUsable(Cell l) const {
    return e.pcells_[l].job < 0 && !e.pcells_[l].bad && !(unowed_only && UnderBound(l));
  }
  // Above the node level the owed GPUs are not subtracted (a rack would walk every
  // node below it): an upper bound, which the units below it then correct.
  std::pair<int, int> Count(Cell c) const {
    const int avail = e.pcells_[c].avail;
    if (!unowed_only || Level(c) > UnitLevel()) return {avail, 0};
    return {avail - Owed(c), 0};
  }
  bool UnderBound(Cell c) const {
    for (Cell a = c; a != kNone; a = Parent(a))
      if (e.pcells_[a].bound != kNone) return true;
    return false;
  }
  // Free GPUs of `c` inside cells bound to a VC: a VC packs its next guaranteed jobs
  // into the cells it has bound before it binds another, so an opportunistic run
  // there is the first it preempts.
  int Owed(Cell c) const { return UnderBound(c) ? e.pcells_[c].avail : OwedBelow(c); }
  // A cell without free GPUs owes none: at ~90% busy most of a node's cells are
  // full, and every unit the unowed pass looks at would otherwise walk them all.
  int OwedBelow(Cell c) const {
    if (Level(c) <= 1 || e.pcells_[c].avail == 0) return 0;
    int n = 0;
    for (int k = 0; k < NChildren(c); k++) {
      const Cell x = Child(c, k);
      n += e.pcells_[x].bound != kNone ? e.pcells_[x].avail : OwedBelow(x);
    }
    return n;
  }
  int RootLevel(Cell) const { return 0; }
  // GPUs of the unit that guaranteed jobs hold: opportunistic work keeps away.
  int Guaranteed(Cell u) const {
    const PCell& p = e.pcells_[u];
    return static_cast<int>(e.chains_[chain].desc[hived::Level(p.level)][hived::Level(1)]) -
           p.avail - p.opp - p.bad;
  }
  int32_t UnitNode(Cell u) const { return e.pcells_[u].node; }
  bool UnitOk(Cell u) const {
    int32_t n = e.pcells_[u].node;
    return !e.node_bad_[n] && (allowed.empty() || allowed[n]);
  }
  const std::vector<Cell>& CellsAtLevel(int l) const {
    return e.chains_[chain].cells_at_level[hived::Level(l)];
  }
  void UnitsUnder(Cell g, std::vector<Cell>* out) const {
    e.WalkPhysical(g, [&](Cell c) {
      if (Level(c) > UnitLevel()) return Visit::kDescend;
      out->push_back(c);
      return Visit::kPrune;
    });
  }
  // The unowed pass looks at a bounded number of units: on a large busy cluster the
  // fullest buckets can hold thousands of nodes whose free GPUs are all owed, and the
  // spread pass after it finds a place anyway.
  static constexpr int kUnownedScan = 1024;
  template <class F>
  void ForEachUnit(int min_free, bool pack, F f) const {
    if (!unowed_only) {
      ForEachInBuckets(e.chains_[chain].node_by_avail, min_free, pack, f);
      return;
    }
    int seen = 0;
    ForEachInBuckets(e.chains_[chain].node_by_avail, min_free, pack,
                     [&](Cell u) { return ++seen > kUnownedScan || f(u); });
  }
};

// ---------------------------------------------------------------------------
template <class V>
class Placer {
 public:
  using Cell = typename V::Cell;
  // From the constraints (constraints.h):
  // pod_level > 0: every pod inside one cell of that level (Slurm's
  // --gres-flags=enforce-binding: a pod on one socket).
  // grain > 1: pods take whole cells of that level only (the chain's GPU level for
  // whole-GPU pods, a fraction's level for fractional ones), so free leaves count
  // only inside a wholly usable cell of that level (fractions.cpp).
  Placer(const V& v, bool pack, const Constraints& k)
      : v_(v), pack_(pack), distinct_(k.distinct_nodes), pod_level_(k.pod_level), grain_(k.grain) {}

  // Fills leaves[pod index]; false if the gang does not fit.
  bool Place(std::vector<PodAsk> pods, int within_level, std::vector<std::vector<Cell>>* leaves) {
    StableSort(pods.data(), pods.data() + pods.size(),
               [](const PodAsk& a, const PodAsk& b) { return a.size > b.size; });
    int total = 0;
    for (const auto& p : pods) total += p.size;
    leaves->assign(pods.size(), {});
    const int ul = v_.UnitLevel();
    if (within_level > 0 && within_level <= ul)
      return PlaceInOneCell(pods, total, within_level, leaves);
    if (pods.size() == 1 && within_level == 0) return PlaceOnePod(pods[0], leaves);
    if (PlaceInGroups(pods, total, within_level, leaves)) return true;
    if (within_level > ul) return false;
    return PlaceAcross(pods, leaves);
  }

 private:
  // Spread: the emptiest unit without guaranteed work, else the one with the
  // least; scanning from the emptiest, the first without any is the best.
  // Pack: the best-fitting free count, then the smallest VC cell (a few
  // candidates of that count are enough to find one).
  bool PlaceOnePod(const PodAsk& pod, std::vector<std::vector<Cell>>* leaves) {
    Cell best = kNone;
    int best_g = 0, best_free = 0, best_root = 0, seen = 0;
    v_.ForEachUnit(pod.size, pack_, [&](Cell u) {
      if (!v_.UnitOk(u) || !Fits(u, pod.size)) return false;
      if (pack_) {
        int f = Eff(u), r = v_.RootLevel(u);
        if (best != kNone && f > best_free) return true;
        if (best == kNone || r < best_root) {
          best = u;
          best_free = f;
          best_root = r;
        }
        return ++seen >= 64;
      }
      int g = v_.Guaranteed(u);
      if (best == kNone || g < best_g) {
        best = u;
        best_g = g;
      }
      return best_g == 0;
    });
    if (best == kNone) return false;
    Pick(pod_level_ ? BestCellAt(best, pod_level_, pod.size) : best, pod.size,
         &(*leaves)[pod.index]);
    return true;
  }

  // The gang inside one cell above the unit level: of `within_level` if asked, else
  // the lowest level that holds it, best-fitting cells first.
  bool PlaceInGroups(const std::vector<PodAsk>& pods, int total, int within_level,
                     std::vector<std::vector<Cell>>* leaves) {
    const int ul = v_.UnitLevel();
    int top = v_.TopLevel();
    int lo = within_level > ul ? within_level : ul + 1;
    int hi = within_level > ul ? within_level : top;
    for (int l = lo; l <= hi; l++) {
      std::vector<Cell> groups;
      for (Cell g : v_.CellsAtLevel(l))
        if (v_.Count(g).first >= total) groups.push_back(g);
      std::stable_sort(groups.begin(), groups.end(), [&](Cell a, Cell b) {
        auto ca = v_.Count(a), cb = v_.Count(b);
        if (ca.second != cb.second) return ca.second < cb.second;
        return pack_ ? ca.first < cb.first : ca.first > cb.first;
      });
      for (Cell g : groups) {
        std::vector<Cell> units;
        v_.UnitsUnder(g, &units);
        if (Assign(pods, units, leaves)) return true;
      }
    }
    return false;
  }

  // Across the whole view: gather candidates in preference order, then assign.
  // A prefix usually suffices: stop once enough units could each take the biggest pod.
  bool PlaceAcross(const std::vector<PodAsk>& pods, std::vector<std::vector<Cell>>* leaves) {
    std::vector<Cell> units;
    int smallest = pods.back().size, biggest = pods.front().size;
    size_t fit_biggest = 0;
    bool partial = false;
    v_.ForEachUnit(smallest, pack_, [&](Cell u) {
      if (!v_.UnitOk(u)) return false;
      units.push_back(u);
      if (Eff(u) >= biggest) fit_biggest++;
      partial = fit_biggest >= 2 * pods.size() + 2;
      return partial;
    });
    if (Assign(pods, units, leaves)) return true;
    if (!partial) return false;
    units.clear();
    v_.ForEachUnit(smallest, pack_, [&](Cell u) {
      if (v_.UnitOk(u)) units.push_back(u);
      return false;
    });
    return Assign(pods, units, leaves);
  }

  // Leaves this placement already took, counted on every ancestor in a small
  // open-addressing table, so the effective free count of a cell is one probe.
  int TakenUnder(Cell c) const {
    if (taken_keys_.empty()) return 0;
    size_t mask = taken_keys_.size() - 1;
    for (size_t i = Hash(c) & mask;; i = (i + 1) & mask) {
      if (taken_keys_[i] == c) return taken_vals_[i];
      if (taken_keys_[i] == kNone) return 0;
    }
  }
  void Take(Cell leaf) {
    if (taken_keys_.empty() || 2 * (taken_n_ + 8) > taken_keys_.size()) Grow();
    size_t mask = taken_keys_.size() - 1;
    for (Cell x = leaf; x != kNone; x = v_.Parent(x)) {
      size_t i = Hash(x) & mask;
      while (taken_keys_[i] != kNone && taken_keys_[i] != x) i = (i + 1) & mask;
      if (taken_keys_[i] == kNone) {
        taken_keys_[i] = x;
        taken_n_++;
      }
      taken_vals_[i]++;
    }
  }
  static size_t Hash(Cell c) { return c.index() * 0x9E3779B1u >> 7; }
  void Grow() {
    std::vector<Cell> keys = std::move(taken_keys_);
    std::vector<int> vals = std::move(taken_vals_);
    size_t cap = keys.empty() ? 64 : keys.size() * 4;
    taken_keys_.assign(cap, kNone);
    taken_vals_.assign(cap, 0);
    for (size_t k = 0; k < keys.size(); k++) {
      if (keys[k] == kNone) continue;
      size_t i = Hash(keys[k]) & (cap - 1);
      while (taken_keys_[i] != kNone) i = (i + 1) & (cap - 1);
      taken_keys_[i] = keys[k];
      taken_vals_[i] = vals[k];
    }
  }
  int Eff(Cell c) const {
    int raw = v_.Count(c).first - TakenUnder(c);
    int level = v_.Level(c);
    if (grain_ <= 1 || level < grain_) return raw;
    if (level == grain_) return raw == Size(c) ? raw : 0;
    if (raw == Size(c) || raw == 0) return raw;
    int n = 0;
    for (int k = 0; k < v_.NChildren(c); k++) n += Eff(v_.Child(c, k));
    // Never more than the cell's own count: the idle view caps a bound cell by its
    // physical cell's idle GPUs, which its unbound children do not see, so their sum
    // can exceed it and Pick would then come back with fewer leaves than promised.
    return std::min(raw, n);
  }
  int Size(Cell c) const {
    int n = 1;
    for (int l = v_.Level(c); l > 1; l--) n *= v_.NChildrenAt(l);
    return n;
  }
  bool Usable(Cell leaf) const { return v_.LeafUsable(leaf) && TakenUnder(leaf) == 0; }

  // Lowest common ancestor first: the smallest child that holds all k, else the
  // fullest children in turn.
  void Pick(Cell c, int k, std::vector<Cell>* out) {
    if (v_.Level(c) == 1) {
      out->push_back(c);
      Take(c);
      return;
    }
    int n = v_.NChildren(c);
    Cell best = kNone;
    int best_eff = 0, best_cost = 0;
    for (int i = 0; i < n; i++) {
      Cell ch = v_.Child(c, i);
      int eff = v_.Level(ch) == 1 ? (Usable(ch) ? 1 : 0) : Eff(ch);
      if (eff < k) continue;
      int cost = v_.Count(ch).second;
      if (best == kNone || cost < best_cost || (cost == best_cost && eff < best_eff)) {
        best = ch;
        best_eff = eff;
        best_cost = cost;
      }
    }
    if (best != kNone) {
      Pick(best, k, out);
      return;
    }
    // The fullest children first, in child order among equals. A cell has few
    // children (32 nodes in a rack at most in the configs seen): on the stack then.
    using Kid = std::pair<int, Cell>;
    Kid small[64];
    std::vector<Kid> big;
    Kid* kids = small;
    if (n > 64) {
      big.resize(static_cast<size_t>(n));
      kids = big.data();
    }
    int nk = 0;
    for (int i = 0; i < n; i++) {
      Cell ch = v_.Child(c, i);
      int eff = v_.Level(ch) == 1 ? (Usable(ch) ? 1 : 0) : Eff(ch);
      if (eff > 0) kids[nk++] = Kid(-eff, ch);
    }
    StableSort(kids, kids + nk, [](const Kid& a, const Kid& b) { return a.first < b.first; });
    for (int i = 0; i < nk && k > 0; i++) {
      int take = std::min(k, -kids[i].first);
      Pick(kids[i].second, take, out);
      k -= take;
    }
  }

  bool PlaceInOneCell(const std::vector<PodAsk>& pods, int total, int within_level,
                      std::vector<std::vector<Cell>>* leaves) {
    if (distinct_ && pods.size() > 1) return false;
    bool ok = false;
    v_.ForEachUnit(total, pack_, [&](Cell u) {
      if (!v_.UnitOk(u)) return false;
      Cell cell = BestCellAt(u, within_level, total);
      if (cell == kNone) return false;
      if (pod_level_) return ok = AssignBound(pods, {cell}, leaves);
      for (const auto& p : pods) Pick(cell, p.size, &(*leaves)[p.index]);
      ok = true;
      return true;
    });
    return ok;
  }

  Cell BestCellAt(Cell c, int level, int need) const {
    if (Eff(c) < need) return kNone;
    if (v_.Level(c) <= level) return c;
    Cell best = kNone;
    for (int i = 0; i < v_.NChildren(c); i++) {
      Cell x = BestCellAt(v_.Child(c, i), level, need);
      if (x != kNone && (best == kNone || Eff(x) < Eff(best))) best = x;
    }
    return best;
  }

  bool Fits(Cell u, int size) const {
    return pod_level_ ? BestCellAt(u, pod_level_, size) != kNone : Eff(u) >= size;
  }

  // Like Assign, but each pod must lie inside one cell of pod_level_, so free
  // counts per unit are not enough: pods are picked one by one and the cells
  // they take count for the next.
  bool AssignBound(const std::vector<PodAsk>& pods, const std::vector<Cell>& units,
                   std::vector<std::vector<Cell>>* leaves, bool one_blind = false) {
    auto keys = taken_keys_;
    auto vals = taken_vals_;
    size_t n = taken_n_;
    std::vector<int32_t> nodes_used;
    std::vector<Cell> units_used;
    for (const auto& p : pods) {
      Cell best = kNone;
      Cell best_unit = kNone;
      for (Cell u : units) {
        if (!v_.UnitOk(u)) continue;
        int32_t node = v_.UnitNode(u);
        if (distinct_ && node >= 0 &&
            std::find(nodes_used.begin(), nodes_used.end(), node) != nodes_used.end())
          continue;
        // An unbound unit has no node yet: not twice, and not a second blind one.
        if (distinct_ && node < 0 && std::any_of(units_used.begin(), units_used.end(), [&](Cell x) {
              return x == u || (one_blind && Blind(u) && Blind(x));
            }))
          continue;
        Cell c = BestCellAt(u, pod_level_, p.size);
        if (c == kNone) continue;
        bool better;
        if (best == kNone) {
          better = true;
        } else if (pack_) {
          better = Eff(c) < Eff(best);
        } else {
          int gi = v_.Guaranteed(u), gb = v_.Guaranteed(best_unit);
          better = gi < gb || (gi == gb && Eff(u) > Eff(best_unit));
        }
        if (better) {
          best = c;
          best_unit = u;
        }
      }
      if (best == kNone) {
        taken_keys_ = std::move(keys);
        taken_vals_ = std::move(vals);
        taken_n_ = n;
        for (auto& l : *leaves) l.clear();
        return false;
      }
      if (v_.UnitNode(best_unit) >= 0) nodes_used.push_back(v_.UnitNode(best_unit));
      units_used.push_back(best_unit);
      Pick(best, p.size, &(*leaves)[p.index]);
    }
    return true;
  }

  // A VC cell below the node size that is not bound yet: its node is the binder's
  // choice, and a full cluster's buddy rule may put two such cells on one node.
  bool Blind(Cell u) const { return v_.UnitNode(u) < 0 && v_.Level(u) < v_.UnitLevel(); }

  // Distinct nodes: a gang takes at most one blind unit while other units fit it, so
  // two socket cells that must share a node are not given to two pods; only when
  // nothing else fits does it rely on the binder finding them different nodes.
  bool Assign(const std::vector<PodAsk>& pods, const std::vector<Cell>& units,
              std::vector<std::vector<Cell>>* leaves) {
    if (!distinct_ ||
        std::count_if(units.begin(), units.end(), [&](Cell u) { return Blind(u); }) < 2)
      return AssignOnce(pods, units, leaves, /*one_blind=*/false);
    if (AssignOnce(pods, units, leaves, /*one_blind=*/true)) return true;
    return AssignOnce(pods, units, leaves, /*one_blind=*/false);
  }

  // Greedy: biggest pod first, each to the best-fitting unit among `units`.
  bool AssignOnce(const std::vector<PodAsk>& pods, const std::vector<Cell>& units,
                  std::vector<std::vector<Cell>>* leaves, bool one_blind) {
    if (pod_level_) return AssignBound(pods, units, leaves, one_blind);
    std::vector<int> rem(units.size());
    std::vector<uint8_t> used(units.size(), 0);
    std::vector<int32_t> nodes_used;
    for (size_t i = 0; i < units.size(); i++) rem[i] = v_.UnitOk(units[i]) ? Eff(units[i]) : 0;
    std::vector<int> choice(pods.size(), -1);
    bool blind_used = false;
    for (size_t p = 0; p < pods.size(); p++) {
      int best = -1;
      for (size_t i = 0; i < units.size(); i++) {
        if (rem[i] < pods[p].size) continue;
        if (distinct_) {
          if (used[i] || (one_blind && blind_used && Blind(units[i]))) continue;
          int32_t n = v_.UnitNode(units[i]);
          if (n >= 0 && std::find(nodes_used.begin(), nodes_used.end(), n) != nodes_used.end())
            continue;
        }
        if (best < 0) {
          best = static_cast<int>(i);
        } else if (pack_) {
          if (rem[i] < rem[best]) best = static_cast<int>(i);
        } else {
          int gi = v_.Guaranteed(units[i]), gb = v_.Guaranteed(units[best]);
          if (gi < gb || (gi == gb && rem[i] > rem[best])) best = static_cast<int>(i);
        }
      }
      if (best < 0) return false;
      rem[best] -= pods[p].size;
      used[best] = 1;
      blind_used |= Blind(units[best]);
      if (v_.UnitNode(units[best]) >= 0) nodes_used.push_back(v_.UnitNode(units[best]));
      choice[p] = best;
    }
    for (size_t p = 0; p < pods.size(); p++)
      Pick(units[choice[p]], pods[p].size, &(*leaves)[pods[p].index]);
    return true;
  }

  const V& v_;
  bool pack_;
  bool distinct_;
  int pod_level_;
  int grain_;
  std::vector<Cell> taken_keys_;
  std::vector<int> taken_vals_;
  size_t taken_n_ = 0;
};

namespace {
std::vector<PodAsk> Pods(const Request& req) {
  std::vector<PodAsk> pods;
  for (const auto& m : req.members)
    for (int k = 0; k < m.pods; k++) pods.push_back({static_cast<int>(pods.size()), m.leaves});
  return pods;
}
// Every pod's leaves in request order; false (and nothing) unless each pod got exactly
// the leaves it asked for, so a miscount in a view refuses the placement instead of
// handing the commit a short list.
template <class Cell>
bool Flatten(const std::vector<PodAsk>& pods, const std::vector<std::vector<Cell>>& per_pod,
             std::vector<Cell>* out) {
  out->clear();
  for (const auto& p : pods)
    if (per_pod[p.index].size() != static_cast<size_t>(p.size)) return false;
  for (const auto& p : per_pod) out->insert(out->end(), p.begin(), p.end());
  return true;
}
}  // namespace

bool Engine::PlaceVirtual(const Request& in, VcId vc, ChainId chain, VCellId pinned_root,
                          bool preempt, std::vector<VCellId>* vleaves, bool idle_only) const {
  virtual_searches_++;
  const VcChain* vch = VcChainOf(vc, chain);
  if (!vch && pinned_root == kNone) return false;
  Constraints k;
  if (!Compile(in, chain, vch, pinned_root, &k)) return false;
  VirtualView view{*this,       chain, vch, pinned_root, preempt, Priority(k.shaped.priority),
                   k.allowed(), {}};
  view.idle_only = idle_only && !preempt;
  view.Prepare();
  Placer<VirtualView> placer(view, /*pack=*/true, k);
  const std::vector<PodAsk> pods = Pods(k.shaped);
  std::vector<std::vector<VCellId>> per_pod;
  // Under the rack rule the binding decides the rack, and PhysicalOk checks the result.
  return placer.Place(pods, k.virtual_within(), &per_pod) && Flatten(pods, per_pod, vleaves);
}

// First on GPUs no VC has bound, packed, so that the idle node cells a VC would bind
// next stay whole; only then spread over every idle GPU, away from guaranteed work.
bool Engine::PlacePhysical(const Request& in, ChainId chain, std::vector<PCellId>* pleaves) const {
  Constraints k;
  if (!Compile(in, chain, nullptr, kNone, &k)) return false;
  const std::vector<PodAsk> pods = Pods(k.shaped);
  for (const bool unowed : {true, false}) {
    PhysicalView view{*this, chain, k.allowed()};
    view.unowed_only = unowed;
    Placer<PhysicalView> placer(view, /*pack=*/unowed, k);
    std::vector<std::vector<PCellId>> per_pod;
    if (placer.Place(pods, k.within_level, &per_pod) && Flatten(pods, per_pod, pleaves))
      return true;
  }
  return false;
}

}  // namespace hived
