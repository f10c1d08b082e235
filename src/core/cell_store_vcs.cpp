// SPDX-License-Identifier: GPL-2.0-or-later
// The cell store's second half: every VC's virtual cell forest (preassigned and pinned
// cells), the placement indexes over it, and the safety check of the whole config.
#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "core/buddy.h"
#include "core/cell_store.h"

namespace hived {
namespace {

Status Err(const std::string& where, const std::string& what) {
  return Status::Err(Code::kConfig, where + ": " + what);
}

}  // namespace

const VcChain* CellStore::VcChainOf(VcId vc, ChainId chain) const {
  for (const auto& x : vcs_[vc].chains)
    if (x.chain == chain) return &x;
  return nullptr;
}

Status CellStore::BuildVcs(const ClusterSpec& spec) {
  std::unordered_map<std::string, std::string> pinned_owner;
  for (const auto& vs : spec.vcs) {
    if (vs.name.empty()) return Err(vs.where, "a VC needs a name");
    if (vc_index_.count(vs.name)) return Err(vs.where, "VC defined twice");
    const VcId vc = vcs_.next_id();
    vc_index_[vs.name] = vc;
    vcs_.emplace_back();
    vcs_[vc].name = vs.name;
    Status st = VcCells(vs, vc);
    if (st.ok()) st = PinnedVcCells(vs, vc, &pinned_owner);
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

// The VC's preassigned cells (virtualCells), each a new virtual tree.
Status CellStore::VcCells(const VcSpec& vs, VcId vc) {
  for (const auto& cs : vs.virtual_cells) {
    if (cs.count < 0) return Err(cs.where + ".cellNumber", "must be >= 0");
    ChainId chain = kNone;
    int level = -1;
    Status st = ResolveCellPath(cs.cell_type, cs.where + ".cellType", &chain, &level);
    if (!st.ok()) return st;
    const Chain& ch = chains_[chain];
    VcChain* vch = VcChainOf(vc, chain);
    if (!vch) {
      vch = &vcs_[vc].chains.emplace_back();
      vch->chain = chain;
      vch->quota.assign(ch.levels + 1, 0);
      vch->cells_at_level.resize(ch.levels + 1);
      vch->unit_by_free.resize(ch.desc[Level(ch.node_level)][Level(1)] + 1);
    }
    vch->quota[Level(level)] += cs.count;
    chains_[chain].unbound_demand[Level(level)] += cs.count;
    if (static_cast<int64_t>(vcells_.size()) + cs.count * 2 * ch.desc[Level(level)][Level(1)] >
        (int64_t{1} << 28))
      return Err(cs.where + ".cellNumber", "too many virtual cells");
    for (int k = 0; k < cs.count; k++) {
      VCellId r = NewVirtualRoot(vc, chain, level, false);
      VcChain* x = VcChainOf(vc, chain);
      x->roots.push_back(r);
      x->leaves += ch.desc[Level(level)][Level(1)];
      vcs_[vc].free_leaves += ch.desc[Level(level)][Level(1)];
    }
  }
  return Status::Ok();
}

// The VC's pinned cells: virtual trees bound to their physical cells for good.
Status CellStore::PinnedVcCells(const VcSpec& vs, VcId vc,
                                std::unordered_map<std::string, std::string>* owner) {
  for (size_t k = 0; k < vs.pinned_cells.size(); k++) {
    const std::string& id = vs.pinned_cells[k];
    const std::string where =
        k < vs.pinned_cells_where.size() ? vs.pinned_cells_where[k] : vs.where + ".pinnedCells";
    auto it = pinned_physical_.find(id);
    if (it == pinned_physical_.end())
      return Err(where + ".pinnedCellId", "no physical cell has pinnedCellId '" + id + "'");
    if (owner->count(id))
      return Err(where + ".pinnedCellId",
                 "'" + id + "' is already pinned to VC '" + (*owner)[id] + "'");
    (*owner)[id] = vs.name;
    const PCell& p = pcells_[it->second];
    VCellId r = NewVirtualRoot(vc, p.chain, p.level, true);
    vcells_[r].bound = it->second;
    pcells_[it->second].bound = r;
    vcs_[vc].pinned.emplace_back(id, r);
  }
  return Status::Ok();
}

VCellId CellStore::NewVirtualRoot(VcId vc, ChainId chain, int level, bool pinned) {
  const VCellId id = static_cast<VCellId>(vcells_.size());
  VCell& v = vcells_.emplace_back();
  v.root = id;
  v.vc = vc;
  v.chain = chain;
  v.level = static_cast<int8_t>(level);
  v.pinned = pinned ? 1 : 0;
  GrowVirtual(id, level);
  return id;
}

// The subtree below virtual cell `id` (children as one contiguous block, like the
// physical forest's).
void CellStore::GrowVirtual(VCellId id, int level) {
  const VCell& v = vcells_[id];
  VcChain* vch = VcChainOf(v.vc, v.chain);
  if (vch && level >= chains_[v.chain].node_level && !vcells_[v.root].pinned)
    vch->cells_at_level[Level(level)].push_back(id);
  if (level == 1) {
    vcells_[id].vfree = 1;
    return;
  }
  const int n = chains_[v.chain].level_children[Level(level)];
  const VCellId first = static_cast<VCellId>(vcells_.size());
  vcells_.resize(vcells_.size() + n);
  vcells_[id].first_child = first;
  for (int k = 0; k < n; k++) {
    VCell& c = vcells_[first + k];
    c.parent = id;
    c.root = vcells_[id].root;
    c.vc = vcells_[id].vc;
    c.chain = vcells_[id].chain;
    c.level = static_cast<int8_t>(level - 1);
    GrowVirtual(first + k, level - 1);
    vcells_[id].vfree += vcells_[first + k].vfree;
  }
}

// Placement units: virtual node-level cells, or whole preassigned cells below a node.
void CellStore::BuildIndexes() {
  for (auto& vc : vcs_)
    for (auto& vch : vc.chains) {
      const int nl = chains_[vch.chain].node_level;
      // Spanned before the first insert, as the physical buckets (SeedFreeLists).
      int32_t lo = INT32_MAX, hi = INT32_MIN;
      for (VCellId r : vch.roots) lo = std::min(lo, r.v), hi = std::max(hi, r.v + 1);
      for (VCellId u : vch.cells_at_level[Level(nl)])
        lo = std::min(lo, u.v), hi = std::max(hi, u.v + 1);
      for (auto& bucket : vch.unit_by_free) bucket.Span(lo, hi);
      for (VCellId r : vch.roots)
        if (vcells_[r].level <= nl) vch.unit_by_free[vcells_[r].vfree].insert(r);
      for (VCellId u : vch.cells_at_level[Level(nl)])
        if (vcells_[u].level == nl && vcells_[vcells_[u].root].level > nl)
          vch.unit_by_free[vcells_[u].vfree].insert(u);
    }
  // Trees grew by doubling; at 100k GPUs the slack would be tens of MB.
  pcells_.shrink_to_fit();
  vcells_.shrink_to_fit();
  for (auto& ch : chains_)
    for (auto& v : ch.cells_at_level) v.shrink_to_fit();
  for (auto& vc : vcs_)
    for (auto& vch : vc.chains)
      for (auto& v : vch.cells_at_level) v.shrink_to_fit();
}

// Safety: every level must serve the sum of all VCs' cells at and above it.
Status CellStore::CheckSafety() const {
  const BuddySafety buddy(*this);
  for (ChainId c : chains_.ids()) {
    const Chain& ch = chains_[c];
    for (int l = ch.levels; l >= 1; l--) {
      const int64_t need = buddy.Demand(c, l), have = buddy.Obtainable(c, l, false);
      if (need <= have) continue;
      std::string who;
      for (const auto& vc : vcs_)
        for (const auto& vch : vc.chains) {
          if (vch.chain != c) continue;
          int64_t n = 0;
          for (int j = l; j <= ch.levels; j++)
            n += vch.quota[Level(j)] * ch.desc[Level(j)][Level(l)];
          if (n) who += (who.empty() ? "" : ", ") + vc.name + " " + std::to_string(n);
        }
      return Err("virtualClusters",
                 "cell type '" + ch.level_type[Level(l)] + "' (level " + std::to_string(l) +
                     " of chain '" + ch.top + "') is over-committed: the VCs need " +
                     std::to_string(need) + " (" + who + ") but the free physical cells give " +
                     std::to_string(have));
    }
  }
  return Status::Ok();
}

void CellStore::LeavesUnder(PCellId c, std::vector<PCellId>* out) const {
  WalkPhysical(c, [&](PCellId x) {
    if (pcells_[x].level == 1) out->push_back(x);
    return Visit::kDescend;
  });
}

}  // namespace hived
