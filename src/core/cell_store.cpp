// SPDX-License-Identifier: GPL-2.0-or-later
// Turning a ClusterSpec into cells: types -> chains -> physical forest -> VCs'
// virtual forests -> indexes, then the safety check that every level can serve the
// sum of all VCs' cells.
#include "core/cell_store.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/buddy.h"
#include "core/cell_path.h"

namespace hived {
namespace {

Status Err(const std::string& where, const std::string& what) {
  return Status::Err(Code::kConfig, where + ": " + what);
}

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

struct CellStore::Scratch {
  std::unordered_map<std::string, ChainId> chain_of_top;
  std::vector<PCellId> tops;                        // top-level physical cells
  IdVector<PCellId, uint8_t> holds_pinned;          // [cell] a pinned cell is below it
  int32_t node_leaf_counter = 0;                    // GPUs numbered so far in the current node
  std::vector<std::vector<uint8_t>> node_gpu_seen;  // [node][gpu index]
};

Status CellStore::BuildFrom(const ClusterSpec& spec) {
  Scratch s;
  Status st = BuildTypes(spec);
  if (st.ok()) st = BuildChains(spec, &s);
  if (st.ok()) st = BuildPhysical(spec, &s);
  if (!st.ok()) return st;
  SeedFreeLists(s);
  st = BuildVcs(spec);
  if (!st.ok()) return st;
  BuildIndexes();
  return CheckSafety();
}

Status CellStore::ResolveCellPath(const std::string& path, const std::string& where, ChainId* chain,
                                  int* level) const {
  struct View {
    const IdVector<ChainId, Chain>& c;
    size_t size() const { return c.size(); }
    const std::string& top(size_t k) const { return c[ChainId(k)].top; }
    int levels(size_t k) const { return c[ChainId(k)].levels; }
    const std::string& type(size_t k, int l) const { return c[ChainId(k)].level_type[Level(l)]; }
  };
  int found = -1;
  std::string why = hived::ResolveCellPath(View{chains_}, path, &found, level);
  if (!why.empty()) return Err(where, why);
  *chain = ChainId(found);
  return Status::Ok();
}

// Cell types. A child type that is not a cell type is a GPU model (a leaf).
Status CellStore::BuildTypes(const ClusterSpec& spec) {
  for (const auto& ts : spec.cell_types) {
    if (type_index_.count(ts.name)) return Err(ts.where, "cell type defined twice");
    if (ts.child_count < 1) return Err(ts.where + ".childCellNumber", "must be >= 1");
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
    if (ts.child_type.empty()) return Err(ts.where + ".childCellType", "is missing");
    if (ts.child_type == ts.name) return Err(ts.where + ".childCellType", "names the type itself");
    auto it = type_index_.find(ts.child_type);
    types_[i].child_type = it == type_index_.end() ? -1 : it->second;
    if (ts.child_is_mig_slice && it != type_index_.end())
      return Err(ts.where + ".childIsMigSlice",
                 "the children are MIG slices, leaf cells: childCellType must name the MIG "
                 "profile (e.g. 'a100_3g.20gb'), not the cell type '" +
                     ts.child_type + "'");
  }
  // Reject cycles: a chain longer than the number of types must loop.
  for (size_t i = 0; i < types_.size(); i++) {
    int t = static_cast<int>(i);
    for (size_t steps = 0; t >= 0; steps++) {
      if (steps > types_.size())
        return Err(types_[i].where + ".childCellType", "cell types form a cycle");
      t = types_[t].child_type;
    }
  }
  return Status::Ok();
}

// Chains: one per distinct top-level cell type, in order of first appearance.
Status CellStore::BuildChains(const ClusterSpec& spec, Scratch* s) {
  for (const auto& pc : spec.physical_cells) {
    if (pc.cell_type.empty()) return Err(pc.where + ".cellType", "is missing");
    auto it = type_index_.find(pc.cell_type);
    if (it == type_index_.end())
      return Err(pc.where + ".cellType", "unknown cell type '" + pc.cell_type + "'");
    if (s->chain_of_top.count(pc.cell_type)) continue;
    Chain ch;
    Status st = NewChain(spec, it->second, &ch);
    if (!st.ok()) return st;
    s->chain_of_top[pc.cell_type] = chains_.next_id();
    chains_.push_back(std::move(ch));
  }
  return Status::Ok();
}

// The chain whose top cell type is types_[top_type]: its levels, node and GPU levels,
// cells-per-cell table and empty free lists.
Status CellStore::NewChain(const ClusterSpec& spec, int top_type, Chain* out) const {
  Chain& ch = *out;
  ch.top = types_[top_type].name;
  std::vector<int> down;  // top .. lowest non-leaf type
  for (int t = top_type; t >= 0; t = types_[t].child_type) down.push_back(t);
  ch.levels = static_cast<int>(down.size()) + 1;
  ch.level_type.assign(ch.levels + 1, "");
  ch.level_children.assign(ch.levels + 1, 0);
  ch.level_type[Level(1)] = spec.cell_types[down.back()].child_type;
  for (size_t k = 0; k < down.size(); k++) {
    const int level = ch.levels - static_cast<int>(k);
    const CellType& t = types_[down[k]];
    ch.level_type[Level(level)] = t.name;
    ch.level_children[Level(level)] = t.child_count;
    if (t.node_level && ch.node_level)
      return Err(t.where + ".isNodeLevel", "a second node level in the chain of '" + ch.top + "'");
    if (t.node_level) ch.node_level = level;
  }
  if (!ch.node_level) ch.node_level = ch.levels;  // no node level marked: top cells are nodes
  for (size_t k = 0; k < down.size(); k++) {
    if (!types_[down[k]].gpu_level) continue;
    const int level = ch.levels - static_cast<int>(k);
    const std::string key = types_[down[k]].where + ".isGpuLevel";
    if (ch.gpu_level > 1) return Err(key, "a second GPU level in the chain of '" + ch.top + "'");
    if (level >= ch.node_level)
      return Err(key, "the GPU level must be below the node level (a GPU is part of a node)");
    ch.gpu_level = level;
  }
  ch.leaf_type = ch.level_type[Level(ch.gpu_level)];
  for (int t : down) ch.mig |= types_[t].child_is_mig_slice;
  if (ch.mig && ch.gpu_level > 1)
    return Err(types_[down.back()].where + ".childIsMigSlice",
               "MIG slices are fixed cells, not buddy fractions: the chain of '" + ch.top +
                   "' cannot also have an isGpuLevel type");
  ch.desc.assign(ch.levels + 1, LevelVector<int64_t>(ch.levels + 1, 0));
  for (int hi = 1; hi <= ch.levels; hi++) {
    ch.desc[Level(hi)][Level(hi)] = 1;
    for (int lo = hi - 1; lo >= 1; lo--)
      ch.desc[Level(hi)][Level(lo)] =
          ch.desc[Level(hi)][Level(lo + 1)] * ch.level_children[Level(lo + 1)];
  }
  if (ch.desc[Level(ch.levels)][Level(1)] > (int64_t{1} << 24))
    return Err(types_[top_type].where, "a cell of this type would hold over 16M GPUs");
  // Fractions are handed out as buddy cells: halves, quarters, eighths of one GPU.
  const int64_t fractions = ch.desc[Level(ch.gpu_level)][Level(1)];
  if (fractions & (fractions - 1))
    return Err(types_[type_index_.at(ch.level_type[Level(ch.gpu_level)])].where + ".isGpuLevel",
               "a GPU of type '" + ch.level_type[Level(ch.gpu_level)] + "' splits into " +
                   std::to_string(fractions) +
                   " fractions; the fractions per GPU must be a power of two (2, 4, 8, ...)");
  ch.cells_at_level.resize(ch.levels + 1);
  ch.free_clean.resize(ch.levels + 1);
  ch.free_busy.resize(ch.levels + 1);
  ch.free_bad.resize(ch.levels + 1);
  ch.unbound_demand.assign(ch.levels + 1, 0);
  ch.node_by_avail.resize(ch.desc[Level(ch.node_level)][Level(1)] + 1);
  return Status::Ok();
}

// Physical cells: children of a cell are allocated as one contiguous block.
Status CellStore::BuildPhysical(const ClusterSpec& spec, Scratch* s) {
  for (const auto& pc : spec.physical_cells) {
    const ChainId chain = s->chain_of_top[pc.cell_type];
    const PCellId id = static_cast<PCellId>(pcells_.size());
    pcells_.emplace_back();
    s->holds_pinned.push_back(0);
    s->tops.push_back(id);
    Status st = PhysicalCell(pc, id, chain, chains_[chain].levels, s);
    if (!st.ok()) return st;
  }
  if (pcells_.empty()) return Err("physicalCluster.physicalCells", "is empty");
  // Cells under a pinned cell never enter the buddy system.
  for (PCellId c : pcells_.ids()) {
    PCellId p = pcells_[c].parent;
    if (p != kNone && (pcells_[p].flags & (kPinned | kUnderPinned)))
      pcells_[c].flags |= kUnderPinned;
  }
  return Status::Ok();
}

// Cell `id` (allocated, its parent link set) as `spec` describes it, then its subtree.
Status CellStore::PhysicalCell(const PhysicalCellSpec& spec, PCellId id, ChainId chain, int level,
                               Scratch* s) {
  Chain& ch = chains_[chain];
  PCell& c = pcells_[id];
  c.chain = chain;
  c.level = static_cast<int8_t>(level);
  if (level >= ch.node_level)
    ch.cells_at_level[Level(level)].push_back(id);  // lower levels: never searched
  Status st;
  if (level == ch.node_level) {
    st = NodeCell(spec, id, chain, s);
  } else if (level > ch.node_level && !spec.address.empty()) {
    c.addr = static_cast<int32_t>(addresses_.size());
    addresses_.push_back(spec.address);
  }
  if (st.ok() && !spec.pinned_id.empty()) st = PinCell(spec, id, s);
  if (st.ok() && level <= ch.gpu_level) st = GpuAddress(spec, id, level, s);
  if (!st.ok()) return st;
  if (level == 1) {
    pcells_[id].avail = 1;
    return Status::Ok();
  }
  return PhysicalChildren(spec, id, chain, level, s);
}

// A node-level cell: its node, new or (in another chain) already known.
Status CellStore::NodeCell(const PhysicalCellSpec& spec, PCellId id, ChainId chain, Scratch* s) {
  if (spec.address.empty())
    return Err(spec.where + ".cellAddress", "a node-level cell needs the node name");
  auto it = node_index_.find(spec.address);
  int32_t node;
  if (it == node_index_.end()) {
    node = static_cast<int32_t>(node_names_.size());
    node_index_[spec.address] = node;
    node_names_.push_back(spec.address);
    node_cells_.emplace_back();
    node_bad_.push_back(0);
    s->node_gpu_seen.emplace_back();
  } else {
    node = it->second;
    for (PCellId other : node_cells_[node])
      if (pcells_[other].chain == chain)
        return Err(spec.where + ".cellAddress", "node '" + spec.address + "' appears twice");
  }
  node_cells_[node].push_back(id);
  pcells_[id].node = node;
  s->node_leaf_counter = 0;
  return Status::Ok();
}

Status CellStore::PinCell(const PhysicalCellSpec& spec, PCellId id, Scratch* s) {
  if (pinned_physical_.count(spec.pinned_id))
    return Err(spec.where + ".pinnedCellId", "'" + spec.pinned_id + "' is used twice");
  pinned_physical_[spec.pinned_id] = id;
  pcells_[id].flags |= kPinned;
  for (PCellId a = pcells_[id].parent; a != kNone; a = pcells_[a].parent) {
    if (pcells_[a].flags & kPinned)
      return Err(spec.where + ".pinnedCellId", "a pinned cell inside a pinned cell");
    s->holds_pinned[a] = 1;
  }
  return Status::Ok();
}

// A GPU cell's index (its address, or the next in its node); fractions share it.
Status CellStore::GpuAddress(const PhysicalCellSpec& spec, PCellId id, int level, Scratch* s) {
  PCell& c = pcells_[id];
  if (level < chains_[c.chain].gpu_level) {
    if (!spec.address.empty())
      return Err(spec.where + ".cellAddress",
                 "a fraction of a GPU has no address (fractions are numbered in order)");
    c.addr = pcells_[c.parent].addr;
    return Status::Ok();
  }
  int32_t gpu = s->node_leaf_counter++;
  if (!spec.address.empty() && !ParseGpuIndex(spec.address, &gpu))
    return Err(spec.where + ".cellAddress", "a GPU cell's address must be its index (0..999999)");
  auto& seen = s->node_gpu_seen[c.node];
  if (static_cast<size_t>(gpu) >= seen.size()) seen.resize(gpu + 1, 0);
  if (seen[gpu])
    return Err(
        spec.where + ".cellAddress",
        "GPU index " + std::to_string(gpu) + " used twice on node '" + node_names_[c.node] + "'");
  seen[gpu] = 1;
  c.addr = gpu;
  return Status::Ok();
}

Status CellStore::PhysicalChildren(const PhysicalCellSpec& spec, PCellId id, ChainId chain,
                                   int level, Scratch* s) {
  const Chain& ch = chains_[chain];
  const int n = ch.level_children[Level(level)];
  if (!spec.children.empty() && static_cast<int>(spec.children.size()) != n)
    return Err(spec.where + ".cellChildren",
               "has " + std::to_string(spec.children.size()) + " cells but cell type '" +
                   ch.level_type[Level(level)] + "' has childCellNumber " + std::to_string(n));
  const PCellId first = static_cast<PCellId>(pcells_.size());
  pcells_.resize(pcells_.size() + n);
  s->holds_pinned.resize(pcells_.size(), 0);
  pcells_[id].first_child = first;
  for (int k = 0; k < n; k++) {
    pcells_[first + k].parent = id;
    pcells_[first + k].node = pcells_[id].node;
    PhysicalCellSpec generated;
    const PhysicalCellSpec* cs = &generated;
    if (!spec.children.empty()) {
      cs = &spec.children[k];
      if (!cs->cell_type.empty() && cs->cell_type != ch.level_type[Level(level - 1)])
        return Err(cs->where + ".cellType", "is '" + cs->cell_type +
                                                "' but the parent's child type is '" +
                                                ch.level_type[Level(level - 1)] + "'");
    } else {
      generated.where = spec.where + ".cellChildren[" + std::to_string(k) + "]";
    }
    Status st = PhysicalCell(*cs, first + k, chain, level - 1, s);
    if (!st.ok()) return st;
    pcells_[id].avail += pcells_[first + k].avail;
  }
  return Status::Ok();
}

// The free lists start with the largest cells that hold no pinned cell; node-level
// cells enter the best-fit index.
void CellStore::SeedFreeLists(const Scratch& s) {
  // Every list and bucket spans the ids it may ever hold before the first insert: a
  // move then never allocates, so a WILL_RUN trial's put-back cannot fail midway.
  std::vector<LevelVector<std::pair<int32_t, int32_t>>> span(chains_.size());
  for (size_t k = 0; k < chains_.size(); k++)
    span[k].assign(chains_[ChainId(k)].levels + 1, {INT32_MAX, INT32_MIN});
  for (PCellId c : pcells_.ids()) {
    auto& r = span[pcells_[c].chain.index()][Level(pcells_[c].level)];
    r = {std::min(r.first, c.v), std::max(r.second, c.v + 1)};
  }
  for (size_t k = 0; k < chains_.size(); k++) {
    Chain& ch = chains_[ChainId(k)];
    for (int l = 1; l <= ch.levels; l++) {
      const auto [lo, hi] = span[k][Level(l)];
      ch.free_clean[Level(l)].Span(lo, hi);
      ch.free_busy[Level(l)].Span(lo, hi);
      ch.free_bad[Level(l)].Span(lo, hi);
    }
    const auto [lo, hi] = span[k][Level(ch.node_level)];
    for (auto& bucket : ch.node_by_avail) bucket.Span(lo, hi);
  }
  Buddy buddy(*this);
  for (PCellId t : s.tops)
    WalkPhysical(t, [&](PCellId c) {
      if (pcells_[c].flags & kPinned) return Visit::kPrune;
      if (s.holds_pinned[c]) return Visit::kDescend;
      buddy.FreeInsert(c);
      return Visit::kPrune;
    });
  for (PCellId c : pcells_.ids()) {
    const PCell& p = pcells_[c];
    if (p.level == chains_[p.chain].node_level) chains_[p.chain].node_by_avail[p.avail].insert(c);
  }
}

}  // namespace hived
