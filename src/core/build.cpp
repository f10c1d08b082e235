// SPDX-License-Identifier: GPL-2.0-or-later
// Building an engine (its cells: cell_store.cpp) and what it tells about its nodes,
// chains and memory.
#include <algorithm>

#include "core/engine.h"

namespace hived {

Status Engine::Build(const ClusterSpec& spec, std::unique_ptr<Engine>* out) {
  std::unique_ptr<Engine> e(new Engine());
  Status st = e->BuildFrom(spec);
  if (!st.ok()) return st;
  *out = std::move(e);
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
  for (PCellId c : node_cells_[node])
    n += static_cast<int32_t>(
        chains_[pcells_[c].chain]
            .desc[Level(pcells_[c].level)][Level(chains_[pcells_[c].chain].gpu_level)]);
  return n;
}

namespace {
// GPUs in one node cell of the chain (whole GPUs, also where leaves are fractions).
int32_t NodeCellGpus(const Chain& ch) {
  return static_cast<int32_t>(ch.desc[Level(ch.node_level)][Level(ch.gpu_level)]);
}
}  // namespace

int32_t Engine::NodeCellLeafCount(size_t node, const std::string* leaf_type) const {
  int32_t best = 0;
  for (PCellId c : node_cells_[node]) {
    const Chain& ch = chains_[pcells_[c].chain];
    if (!ch.mig && (!leaf_type || ch.leaf_type == *leaf_type))
      best = std::max(best, NodeCellGpus(ch));
  }
  return best;
}

bool Engine::IsNodeCellSize(size_t node, int32_t leaves, const std::string* leaf_type) const {
  for (PCellId c : node_cells_[node]) {
    const Chain& ch = chains_[pcells_[c].chain];
    if (!ch.mig && (!leaf_type || ch.leaf_type == *leaf_type) && NodeCellGpus(ch) == leaves)
      return true;
  }
  return false;
}

std::vector<uint8_t> Engine::WholeNodeChains(const std::string* vc,
                                             const std::string* leaf_type) const {
  std::vector<uint8_t> ok(chains_.size(), 0);
  auto consider = [&](ChainId c) {
    const Chain& ch = chains_[c];
    if (!ch.mig && (!leaf_type || ch.leaf_type == *leaf_type)) ok[c.index()] = 1;
  };
  if (!vc) {
    for (size_t c = 0; c < chains_.size(); c++) consider(ChainId(c));
  } else if (auto it = vc_index_.find(*vc); it != vc_index_.end()) {
    for (const auto& vch : vcs_[it->second].chains)
      if (vch.leaves > 0) consider(vch.chain);
  }
  return ok;
}

int32_t Engine::LargestNodeLeafCount(const std::string* vc, const std::string* leaf_type,
                                     const uint8_t* nodes) const {
  return NextNodeLeafCount(vc, leaf_type, nodes, INT32_MAX, nullptr);
}

int32_t Engine::NextNodeLeafCount(const std::string* vc, const std::string* leaf_type,
                                  const uint8_t* nodes, int32_t below, uint8_t* sized) const {
  const std::vector<uint8_t> chain_ok = WholeNodeChains(vc, leaf_type);
  // Over the chains first: where no chain has a node this small (every node of one
  // size, the usual cluster), no node is looked at.
  int32_t best = 0;
  for (size_t c = 0; c < chains_.size(); c++)
    if (chain_ok[c] && NodeCellGpus(chains_[ChainId(c)]) < below)
      best = std::max(best, NodeCellGpus(chains_[ChainId(c)]));
  if (!best || (!nodes && !sized && below == INT32_MAX)) return best;
  // A node whose pod of this model is `below` GPUs or more was a larger size's.
  auto smaller = [&](size_t n) {
    return (!nodes || nodes[n]) && (below == INT32_MAX || NodeCellLeafCount(n, leaf_type) < below);
  };
  best = 0;
  for (size_t n = 0; n < node_cells_.size(); n++) {
    if (!smaller(n)) continue;
    for (PCellId c : node_cells_[n])
      if (chain_ok[pcells_[c].chain.index()])
        best = std::max(best, NodeCellGpus(chains_[pcells_[c].chain]));
  }
  if (best && sized)
    for (size_t n = 0; n < node_cells_.size(); n++)
      sized[n] = smaller(n) && IsNodeCellSize(n, best, leaf_type);
  return best;
}

int64_t Engine::ChainLeavesPerGpu(size_t i) const {
  const Chain& ch = chains_[ChainId(i)];
  return ch.desc[Level(ch.gpu_level)][Level(1)];
}

const std::string* Engine::NodeParentType(size_t node) const {
  for (PCellId c : node_cells_[node]) {
    const Chain& ch = chains_[pcells_[c].chain];
    if (ch.node_level < ch.levels) return &ch.level_type[Level(ch.node_level + 1)];
  }
  return nullptr;
}

const std::string* Engine::NodeChildType(size_t node, int32_t leaves) const {
  for (PCellId c : node_cells_[node]) {
    const Chain& ch = chains_[pcells_[c].chain];
    for (int l = ch.gpu_level + 1; l < ch.node_level; l++)
      if (ch.desc[Level(l)][Level(ch.gpu_level)] == leaves) return &ch.level_type[Level(l)];
  }
  return nullptr;
}

size_t Engine::MemoryBytes() const {
  size_t b =
      sizeof(*this) + pcells_.capacity() * sizeof(PCell) + vcells_.capacity() * sizeof(VCell);
  b += MemoBytes();
  for (const auto& ch : chains_) {
    for (const auto& v : ch.cells_at_level) b += v.capacity() * sizeof(PCellId);
    for (int l = 0; l <= ch.levels; l++)
      b += ch.free_clean[Level(l)].Bytes() + ch.free_busy[Level(l)].Bytes() +
           ch.free_bad[Level(l)].Bytes();
    for (const auto& s : ch.node_by_avail) b += s.Bytes();
  }
  for (const auto& vc : vcs_)
    for (const auto& vch : vc.chains) {
      for (const auto& v : vch.cells_at_level) b += v.capacity() * sizeof(PCellId);
      for (const auto& s : vch.unit_by_free) b += s.Bytes();
      b += vch.roots.capacity() * sizeof(PCellId);
    }
  for (const auto& n : node_names_) b += sizeof(n) + n.capacity() + 48;  // + hash entry
  b += node_cells_.size() * (sizeof(std::vector<PCellId>) + sizeof(PCellId));
  b += jobs_.Bytes();
  return b;
}

}  // namespace hived
