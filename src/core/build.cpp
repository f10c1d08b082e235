// SPDX-License-Identifier: GPL-2.0-or-later
// Turning a ClusterSpec into cells: types -> chains -> physical forest -> VCs, then the
// safety check that every level can serve the sum of all VCs' cells.
#include <algorithm>
#include <cstdlib>
#include <functional>

#include "core/cell_path.h"
#include "core/engine.h"

namespace hived {
namespace {

bool ParseGpuIndex(const std::string& s, int32_t* out) {
  if (s.empty() || s.size() > 6) return false;
  int32_t v = 0;
  for (char ch : s) {
    if (ch < '0' || ch > '9') return false;
    v = v * 10 + (ch - '0');
  }
  *out = v;
  return true;
}

}  // namespace

Status Engine::ResolveCellPath(const std::string& path, const std::string& where, int* chain,
                               int* level) const {
  struct View {
    const std::vector<Chain>& c;
    size_t size() const { return c.size(); }
    const std::string& top(size_t k) const { return c[k].top; }
    int levels(size_t k) const { return c[k].levels; }
    const std::string& type(size_t k, int l) const { return c[k].level_type[l]; }
  };
  std::string why = hived::ResolveCellPath(View{chains_}, path, chain, level);
  if (!why.empty()) return Status::Err(Code::kConfig, where + ": " + why);
  return Status::Ok();
}

Status Engine::Build(const ClusterSpec& spec, std::unique_ptr<Engine>* out) {
  std::unique_ptr<Engine> e(new Engine());
  Status st = e->BuildFrom(spec);
  if (!st.ok()) return st;
  *out = std::move(e);
  return Status::Ok();
}

Status Engine::BuildFrom(const ClusterSpec& spec) {
  auto err = [](const std::string& where, const std::string& what) {
    return Status::Err(Code::kConfig, where + ": " + what);
  };

  // Cell types. A child type that is not a cell type is a GPU model (a leaf).
  for (const auto& ts : spec.cell_types) {
    if (type_index_.count(ts.name)) return err(ts.where, "cell type defined twice");
    if (ts.child_count < 1) return err(ts.where + ".childCellNumber", "must be >= 1");
    type_index_[ts.name] = static_cast<int>(types_.size());
    CellType t;
    t.name = ts.name;
    t.child_count = ts.child_count;
    t.node_level = ts.is_node_level;
    t.gpu_level = ts.is_gpu_level;
    t.child_is_mig_slice = ts.child_is_mig_slice;
    t.where = ts.where;
    types_.push_back(t);
  }
  for (size_t i = 0; i < spec.cell_types.size(); i++) {
    const auto& ts = spec.cell_types[i];
    if (ts.child_type.empty()) return err(ts.where + ".childCellType", "is missing");
    if (ts.child_type == ts.name) return err(ts.where + ".childCellType", "names the type itself");
    auto it = type_index_.find(ts.child_type);
    types_[i].child_type = it == type_index_.end() ? -1 : it->second;
    if (ts.child_is_mig_slice && it != type_index_.end())
      return err(ts.where + ".childIsMigSlice",
                 "the children are MIG slices, leaf cells: childCellType must name the MIG "
                 "profile (e.g. 'a100_3g.20gb'), not the cell type '" +
                     ts.child_type + "'");
  }
  // Reject cycles: a chain longer than the number of types must loop.
  for (size_t i = 0; i < types_.size(); i++) {
    int t = static_cast<int>(i);
    for (size_t steps = 0; t >= 0; steps++) {
      if (steps > types_.size())
        return err(types_[i].where + ".childCellType", "cell types form a cycle");
      t = types_[t].child_type;
    }
  }

  // Chains: one per distinct top-level cell type, in order of first appearance.
  std::unordered_map<std::string, int> chain_of_top;
  for (size_t i = 0; i < spec.physical_cells.size(); i++) {
    const auto& pc = spec.physical_cells[i];
    if (pc.cell_type.empty()) return err(pc.where + ".cellType", "is missing");
    auto it = type_index_.find(pc.cell_type);
    if (it == type_index_.end())
      return err(pc.where + ".cellType", "unknown cell type '" + pc.cell_type + "'");
    if (chain_of_top.count(pc.cell_type)) continue;
    Chain ch;
    ch.top = pc.cell_type;
    std::vector<int> down;  // top .. lowest non-leaf type
    for (int t = it->second; t >= 0; t = types_[t].child_type) down.push_back(t);
    ch.levels = static_cast<int>(down.size()) + 1;
    ch.level_type.assign(ch.levels + 1, "");
    ch.level_children.assign(ch.levels + 1, 0);
    ch.level_type[1] = spec.cell_types[down.back()].child_type;
    ch.leaf_type = ch.level_type[1];
    for (size_t k = 0; k < down.size(); k++) {
      int level = ch.levels - static_cast<int>(k);
      ch.level_type[level] = types_[down[k]].name;
      ch.level_children[level] = types_[down[k]].child_count;
      if (types_[down[k]].node_level) {
        if (ch.node_level)
          return err(types_[down[k]].where + ".isNodeLevel",
                     "a second node level in the chain of '" + ch.top + "'");
        ch.node_level = level;
      }
    }
    if (!ch.node_level) ch.node_level = ch.levels;  // no node level marked: top cells are nodes
    for (size_t k = 0; k < down.size(); k++) {
      if (!types_[down[k]].gpu_level) continue;
      int level = ch.levels - static_cast<int>(k);
      const std::string key = types_[down[k]].where + ".isGpuLevel";
      if (ch.gpu_level > 1) return err(key, "a second GPU level in the chain of '" + ch.top + "'");
      if (level >= ch.node_level)
        return err(key, "the GPU level must be below the node level (a GPU is part of a node)");
      ch.gpu_level = level;
    }
    ch.leaf_type = ch.level_type[ch.gpu_level];
    for (int t : down) ch.mig |= types_[t].child_is_mig_slice;
    if (ch.mig && ch.gpu_level > 1)
      return err(types_[down.back()].where + ".childIsMigSlice",
                 "MIG slices are fixed cells, not buddy fractions: the chain of '" + ch.top +
                     "' cannot also have an isGpuLevel type");
    ch.desc.assign(ch.levels + 1, std::vector<int64_t>(ch.levels + 1, 0));
    for (int hi = 1; hi <= ch.levels; hi++) {
      ch.desc[hi][hi] = 1;
      for (int lo = hi - 1; lo >= 1; lo--)
        ch.desc[hi][lo] = ch.desc[hi][lo + 1] * ch.level_children[lo + 1];
    }
    if (ch.desc[ch.levels][1] > (int64_t{1} << 24))
      return err(types_[it->second].where, "a cell of this type would hold over 16M GPUs");
    // Fractions are handed out as buddy cells: halves, quarters, eighths of one GPU.
    const int64_t fractions = ch.desc[ch.gpu_level][1];
    if (fractions & (fractions - 1))
      return err(types_[type_index_[ch.level_type[ch.gpu_level]]].where + ".isGpuLevel",
                 "a GPU of type '" + ch.level_type[ch.gpu_level] + "' splits into " +
                     std::to_string(fractions) +
                     " fractions; the fractions per GPU must be a power of two (2, 4, 8, ...)");
    ch.cells_at_level.resize(ch.levels + 1);
    ch.free_clean.resize(ch.levels + 1);
    ch.free_busy.resize(ch.levels + 1);
    ch.free_bad.resize(ch.levels + 1);
    ch.unbound_demand.assign(ch.levels + 1, 0);
    ch.node_by_avail.resize(ch.desc[ch.node_level][1] + 1);
    chain_of_top[pc.cell_type] = static_cast<int>(chains_.size());
    chains_.push_back(std::move(ch));
  }

  // Physical cells: children of a cell are allocated as one contiguous block.
  std::vector<uint8_t> holds_pinned;
  std::function<Status(const PhysicalCellSpec&, CellId, int, int)> build;
  int32_t node_leaf_counter = 0;
  std::vector<std::vector<uint8_t>> node_gpu_seen;
  build = [&](const PhysicalCellSpec& s, CellId id, int chain, int level) -> Status {
    Chain& ch = chains_[chain];
    PCell& c = pcells_[id];
    c.chain = static_cast<int16_t>(chain);
    c.level = static_cast<int8_t>(level);
    if (level >= ch.node_level)
      ch.cells_at_level[level].push_back(id);  // lower levels: never searched
    if (level == ch.node_level) {
      if (s.address.empty())
        return err(s.where + ".cellAddress", "a node-level cell needs the node name");
      auto it = node_index_.find(s.address);
      int32_t node;
      if (it == node_index_.end()) {
        node = static_cast<int32_t>(node_names_.size());
        node_index_[s.address] = node;
        node_names_.push_back(s.address);
        node_cells_.emplace_back();
        node_bad_.push_back(0);
        node_gpu_seen.emplace_back();
      } else {
        node = it->second;
        for (CellId other : node_cells_[node])
          if (pcells_[other].chain == chain)
            return err(s.where + ".cellAddress", "node '" + s.address + "' appears twice");
      }
      node_cells_[node].push_back(id);
      c.node = node;
      node_leaf_counter = 0;
    } else if (level > ch.node_level && !s.address.empty()) {
      pcells_[id].addr = static_cast<int32_t>(addresses_.size());
      addresses_.push_back(s.address);
    }
    if (!s.pinned_id.empty()) {
      if (pinned_physical_.count(s.pinned_id))
        return err(s.where + ".pinnedCellId", "'" + s.pinned_id + "' is used twice");
      pinned_physical_[s.pinned_id] = id;
      pcells_[id].flags |= kPinned;
      for (CellId a = pcells_[id].parent; a != kNone; a = pcells_[a].parent) {
        if (pcells_[a].flags & kPinned)
          return err(s.where + ".pinnedCellId", "a pinned cell inside a pinned cell");
        holds_pinned[a] = 1;
      }
    }
    if (level == ch.gpu_level) {
      int32_t node = pcells_[id].node;
      int32_t gpu = node_leaf_counter++;
      if (!s.address.empty() && !ParseGpuIndex(s.address, &gpu))
        return err(s.where + ".cellAddress", "a GPU cell's address must be its index (0..999999)");
      auto& seen = node_gpu_seen[node];
      if (static_cast<size_t>(gpu) >= seen.size()) seen.resize(gpu + 1, 0);
      if (seen[gpu])
        return err(s.where + ".cellAddress", "GPU index " + std::to_string(gpu) +
                                                 " used twice on node '" + node_names_[node] + "'");
      seen[gpu] = 1;
      pcells_[id].addr = gpu;
    } else if (level < ch.gpu_level) {
      if (!s.address.empty())
        return err(s.where + ".cellAddress",
                   "a fraction of a GPU has no address (fractions are numbered in order)");
      pcells_[id].addr = pcells_[pcells_[id].parent].addr;
    }
    if (level == 1) {
      pcells_[id].avail = 1;
      return Status::Ok();
    }
    int n = ch.level_children[level];
    if (!s.children.empty() && static_cast<int>(s.children.size()) != n)
      return err(s.where + ".cellChildren", "has " + std::to_string(s.children.size()) +
                                                " cells but cell type '" + ch.level_type[level] +
                                                "' has childCellNumber " + std::to_string(n));
    CellId first = static_cast<CellId>(pcells_.size());
    pcells_.resize(pcells_.size() + n);
    holds_pinned.resize(pcells_.size(), 0);
    pcells_[id].first_child = first;
    static const PhysicalCellSpec kEmpty;
    for (int k = 0; k < n; k++) {
      pcells_[first + k].parent = id;
      pcells_[first + k].node = pcells_[id].node;
      PhysicalCellSpec generated;
      const PhysicalCellSpec* cs = &kEmpty;
      if (!s.children.empty()) {
        cs = &s.children[k];
        if (!cs->cell_type.empty() && cs->cell_type != ch.level_type[level - 1])
          return err(cs->where + ".cellType", "is '" + cs->cell_type +
                                                  "' but the parent's child type is '" +
                                                  ch.level_type[level - 1] + "'");
      } else {
        generated.where = s.where + ".cellChildren[" + std::to_string(k) + "]";
        cs = &generated;
      }
      Status st = build(*cs, first + k, chain, level - 1);
      if (!st.ok()) return st;
      pcells_[id].avail += pcells_[first + k].avail;
    }
    return Status::Ok();
  };
  std::vector<CellId> tops;
  for (const auto& pc : spec.physical_cells) {
    int chain = chain_of_top[pc.cell_type];
    CellId id = static_cast<CellId>(pcells_.size());
    pcells_.emplace_back();
    holds_pinned.push_back(0);
    tops.push_back(id);
    Status st = build(pc, id, chain, chains_[chain].levels);
    if (!st.ok()) return st;
  }
  if (pcells_.empty()) return err("physicalCluster.physicalCells", "is empty");

  // Cells under a pinned cell never enter the buddy system.
  for (CellId c = 0; c < static_cast<CellId>(pcells_.size()); c++) {
    CellId p = pcells_[c].parent;
    if (p != kNone && (pcells_[p].flags & (kPinned | kUnderPinned)))
      pcells_[c].flags |= kUnderPinned;
  }
  std::function<void(CellId)> seed_free = [&](CellId c) {
    if (pcells_[c].flags & kPinned) return;
    if (!holds_pinned[c]) {
      FreeInsert(c);
      return;
    }
    int n = chains_[pcells_[c].chain].level_children[pcells_[c].level];
    for (int k = 0; k < n; k++) seed_free(pcells_[c].first_child + k);
  };
  for (CellId t : tops) seed_free(t);
  for (CellId c = 0; c < static_cast<CellId>(pcells_.size()); c++) {
    const PCell& p = pcells_[c];
    if (p.level == chains_[p.chain].node_level) chains_[p.chain].node_by_avail[p.avail].insert(c);
  }

  // Virtual clusters.
  std::function<void(CellId, int)> build_virtual = [&](CellId id, int level) {
    VCell& v = vcells_[id];
    VcChain* vch = nullptr;
    for (auto& x : vcs_[v.vc].chains)
      if (x.chain == v.chain) vch = &x;
    if (vch && level >= chains_[v.chain].node_level && !vcells_[vcells_[id].root].pinned)
      vch->cells_at_level[level].push_back(id);
    if (level == 1) {
      vcells_[id].vfree = 1;
      return;
    }
    int n = chains_[v.chain].level_children[level];
    CellId first = static_cast<CellId>(vcells_.size());
    vcells_.resize(vcells_.size() + n);
    vcells_[id].first_child = first;
    for (int k = 0; k < n; k++) {
      VCell& c = vcells_[first + k];
      c.parent = id;
      c.root = vcells_[id].root;
      c.vc = vcells_[id].vc;
      c.chain = vcells_[id].chain;
      c.level = static_cast<int8_t>(level - 1);
      build_virtual(first + k, level - 1);
      vcells_[id].vfree += vcells_[first + k].vfree;
    }
  };
  auto new_root = [&](int vc, int chain, int level, bool pinned) {
    CellId id = static_cast<CellId>(vcells_.size());
    vcells_.emplace_back();
    VCell& v = vcells_[id];
    v.root = id;
    v.vc = vc;
    v.chain = static_cast<int16_t>(chain);
    v.level = static_cast<int8_t>(level);
    v.pinned = pinned ? 1 : 0;
    build_virtual(id, level);
    return id;
  };
  std::unordered_map<std::string, std::string> pinned_owner;
  for (const auto& vs : spec.vcs) {
    if (vs.name.empty()) return err(vs.where, "a VC needs a name");
    if (vc_index_.count(vs.name)) return err(vs.where, "VC defined twice");
    int vc = static_cast<int>(vcs_.size());
    vc_index_[vs.name] = vc;
    vcs_.emplace_back();
    vcs_[vc].name = vs.name;
    for (const auto& cs : vs.virtual_cells) {
      if (cs.count < 0) return err(cs.where + ".cellNumber", "must be >= 0");
      int chain = -1, level = -1;
      Status st = ResolveCellPath(cs.cell_type, cs.where + ".cellType", &chain, &level);
      if (!st.ok()) return st;
      VcChain* vch = nullptr;
      for (auto& x : vcs_[vc].chains)
        if (x.chain == chain) vch = &x;
      if (!vch) {
        vcs_[vc].chains.emplace_back();
        vch = &vcs_[vc].chains.back();
        vch->chain = chain;
        vch->quota.assign(chains_[chain].levels + 1, 0);
        vch->cells_at_level.resize(chains_[chain].levels + 1);
        vch->unit_by_free.resize(chains_[chain].desc[chains_[chain].node_level][1] + 1);
      }
      vch->quota[level] += cs.count;
      chains_[chain].unbound_demand[level] += cs.count;
      if (static_cast<int64_t>(vcells_.size()) + cs.count * 2 * chains_[chain].desc[level][1] >
          (int64_t{1} << 28))
        return err(cs.where + ".cellNumber", "too many virtual cells");
      for (int k = 0; k < cs.count; k++) {
        CellId r = new_root(vc, chain, level, false);
        // vch may move when chains grow; look it up again
        for (auto& x : vcs_[vc].chains)
          if (x.chain == chain) {
            x.roots.push_back(r);
            x.leaves += chains_[chain].desc[level][1];
            vcs_[vc].free_leaves += chains_[chain].desc[level][1];
          }
      }
    }
    for (size_t k = 0; k < vs.pinned_cells.size(); k++) {
      const std::string& id = vs.pinned_cells[k];
      std::string where =
          k < vs.pinned_cells_where.size() ? vs.pinned_cells_where[k] : vs.where + ".pinnedCells";
      auto it = pinned_physical_.find(id);
      if (it == pinned_physical_.end())
        return err(where + ".pinnedCellId", "no physical cell has pinnedCellId '" + id + "'");
      if (pinned_owner.count(id))
        return err(where + ".pinnedCellId",
                   "'" + id + "' is already pinned to VC '" + pinned_owner[id] + "'");
      pinned_owner[id] = vs.name;
      const PCell& p = pcells_[it->second];
      CellId r = new_root(vc, p.chain, p.level, true);
      vcells_[r].bound = it->second;
      pcells_[it->second].bound = r;
      vcs_[vc].pinned.emplace_back(id, r);
    }
  }
  // Placement units: virtual node-level cells, or whole preassigned cells below a node.
  for (auto& vc : vcs_)
    for (auto& vch : vc.chains) {
      int nl = chains_[vch.chain].node_level;
      for (CellId r : vch.roots) {
        if (vcells_[r].level <= nl) {
          vch.unit_by_free[vcells_[r].vfree].insert(r);
        }
      }
      for (CellId u : vch.cells_at_level[nl])
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

  // Safety: every level must serve the sum of all VCs' cells at and above it.
  for (size_t c = 0; c < chains_.size(); c++) {
    const Chain& ch = chains_[c];
    for (int l = ch.levels; l >= 1; l--) {
      int64_t need = Demand(static_cast<int>(c), l),
              have = Obtainable(static_cast<int>(c), l, false);
      if (need <= have) continue;
      std::string who;
      for (const auto& vc : vcs_)
        for (const auto& vch : vc.chains) {
          if (vch.chain != static_cast<int>(c)) continue;
          int64_t n = 0;
          for (int j = l; j <= ch.levels; j++) n += vch.quota[j] * ch.desc[j][l];
          if (n) who += (who.empty() ? "" : ", ") + vc.name + " " + std::to_string(n);
        }
      return err("virtualClusters",
                 "cell type '" + ch.level_type[l] + "' (level " + std::to_string(l) +
                     " of chain '" + ch.top + "') is over-committed: the VCs need " +
                     std::to_string(need) + " (" + who + ") but the free physical cells give " +
                     std::to_string(have));
    }
  }
  return Status::Ok();
}

int32_t Engine::NodeIndex(const std::string& name) const {
  auto it = node_index_.find(name);
  return it == node_index_.end() ? -1 : it->second;
}

bool Engine::HasLeafType(const std::string& t) const {
  for (const auto& ch : chains_)
    if (ch.leaf_type == t) return true;
  return false;
}

std::vector<std::string> Engine::MigProfiles() const {
  std::vector<std::string> out;
  for (const auto& ch : chains_)
    if (ch.mig && std::find(out.begin(), out.end(), ch.leaf_type) == out.end())
      out.push_back(ch.leaf_type);
  std::sort(out.begin(), out.end());
  return out;
}

int32_t Engine::NodeLeafCount(size_t node) const {
  int32_t n = 0;
  for (CellId c : node_cells_[node])
    n += static_cast<int32_t>(
        chains_[pcells_[c].chain].desc[pcells_[c].level][chains_[pcells_[c].chain].gpu_level]);
  return n;
}

const std::string* Engine::NodeParentType(size_t node) const {
  for (CellId c : node_cells_[node]) {
    const Chain& ch = chains_[pcells_[c].chain];
    if (ch.node_level < ch.levels) return &ch.level_type[ch.node_level + 1];
  }
  return nullptr;
}

const std::string* Engine::NodeChildType(size_t node, int32_t leaves) const {
  for (CellId c : node_cells_[node]) {
    const Chain& ch = chains_[pcells_[c].chain];
    for (int l = ch.gpu_level + 1; l < ch.node_level; l++)
      if (ch.desc[l][ch.gpu_level] == leaves) return &ch.level_type[l];
  }
  return nullptr;
}

bool Engine::IsUnit(CellId v) const {
  const VCell& c = vcells_[v];
  int nl = chains_[c.chain].node_level;
  if (c.level == nl) return true;
  return c.root == v && c.level < nl;
}

size_t Engine::MemoryBytes() const {
  size_t b =
      sizeof(*this) + pcells_.capacity() * sizeof(PCell) + vcells_.capacity() * sizeof(VCell);
  const size_t set_node = 40;  // red-black tree node with an int32 key
  for (const auto& ch : chains_) {
    for (const auto& v : ch.cells_at_level) b += v.capacity() * sizeof(CellId);
    for (int l = 0; l <= ch.levels; l++)
      b += (ch.free_clean[l].size() + ch.free_busy[l].size() + ch.free_bad[l].size()) * set_node;
    for (const auto& s : ch.node_by_avail) b += s.size() * set_node;
  }
  for (const auto& vc : vcs_)
    for (const auto& vch : vc.chains) {
      for (const auto& v : vch.cells_at_level) b += v.capacity() * sizeof(CellId);
      for (const auto& s : vch.unit_by_free) b += s.size() * set_node;
      b += vch.roots.capacity() * sizeof(CellId);
    }
  for (const auto& n : node_names_) b += sizeof(n) + n.capacity() + 48;  // + hash entry
  b += node_cells_.size() * (sizeof(std::vector<CellId>) + sizeof(CellId));
  b += jobs_.Bytes();
  return b;
}

}  // namespace hived
