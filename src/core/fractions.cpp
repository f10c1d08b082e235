// SPDX-License-Identifier: GPL-2.0-or-later
// Cell levels below the GPU (isGpuLevel): a request's members in leaf cells of one
// chain, and the GPU index and fraction slots of the leaves a pod holds.
//
// A chain without fractional levels has its GPU at level 1 and every helper here is
// the identity. With them, a whole-GPU pod takes whole GPU cells and a fractional pod
// takes one buddy cell at the lowest level holding its fractions: both are "grains",
// so that a GPU holding a fraction is never given out whole and vice versa.
#include <algorithm>

#include "core/engine.h"

namespace hived {

bool Engine::ShapeFor(const Request& req, ChainId chain, Request* out, std::string* why) const {
  *out = req;
  return req.grain > 0 || ShapeInPlace(chain, &out->members, &out->grain, why);
}

bool Engine::ShapeMembers(const Request& req, ChainId chain, std::vector<Member>* members,
                          std::string* why) const {
  *members = req.members;
  int grain = req.grain;
  return grain > 0 || ShapeInPlace(chain, members, &grain, why);
}

bool Engine::ShapeInPlace(ChainId chain, std::vector<Member>* members, int* grain_out,
                          std::string* why) const {
  const Chain& ch = chains_[chain];
  const int64_t per_gpu = ch.desc[Level(ch.gpu_level)][Level(1)];
  int grain = ch.gpu_level;
  for (auto& m : *members) {
    if (m.fractions > 0) {
      if (ch.gpu_level == 1) {
        *why = "GPUs of type '" + ch.leaf_type + "' have no fractional cell levels";
        return false;
      }
      if (m.fractions > per_gpu) {
        *why = "a pod asks for " + std::to_string(m.fractions) + " fractions but a GPU of type '" +
               ch.leaf_type + "' has " + std::to_string(per_gpu);
        return false;
      }
      // Rounded up to the buddy level that holds them: 3 eighths take a half.
      int level = 1;
      while (ch.desc[Level(level)][Level(1)] < m.fractions) level++;
      grain = level;
      m.leaves = static_cast<int>(ch.desc[Level(level)][Level(1)]);
      m.fractions = 0;
    } else {
      int64_t leaves = int64_t{m.leaves} * per_gpu;
      if (leaves > (int64_t{1} << 24)) {
        *why = "a pod asks for more than 16M GPU fractions";
        return false;
      }
      m.leaves = static_cast<int>(leaves);
    }
  }
  *grain_out = grain;
  return true;
}

std::string Engine::FractionalNeedText(const Request& req, VcId vc,
                                       const std::vector<ChainId>& chains) const {
  int fractions = 0;
  for (const auto& m : req.members) fractions = std::max(fractions, m.fractions);
  if (fractions == 0) return "";
  std::string cell, owned;
  for (ChainId c : chains) {
    const Chain& ch = chains_[c];
    if (ch.gpu_level == 1 || fractions > ch.desc[Level(ch.gpu_level)][Level(1)]) continue;
    if (cell.empty()) {
      int level = 1;
      while (ch.desc[Level(level)][Level(1)] < fractions) level++;
      cell = "'" + ch.level_type[Level(level)] + "'";
    }
    for (const VcChain& vch : vcs_[vc].chains) {
      if (vch.chain != c) continue;
      for (int l = ch.levels; l >= 1; l--)
        if (vch.quota[Level(l)])
          owned += (owned.empty() ? "" : ", ") + std::to_string(vch.quota[Level(l)]) + " '" +
                   ch.level_type[Level(l)] + "'";
    }
  }
  if (cell.empty()) return "";
  return ": one " + cell + " cell per pod" + (owned.empty() ? "" : "; its cells: " + owned);
}

int32_t Engine::LeafSlot(PCellId leaf) const {
  const Chain& ch = chains_[pcells_[leaf].chain];
  int64_t slot = 0;
  for (PCellId c = leaf; pcells_[c].level < ch.gpu_level; c = pcells_[c].parent) {
    PCellId p = pcells_[c].parent;
    slot += (c - pcells_[p].first_child) * ch.desc[Level(pcells_[c].level)][Level(1)];
  }
  return static_cast<int32_t>(slot);
}

PCellId Engine::LeafAt(PCellId gpu_cell, int32_t slot) const {
  const Chain& ch = chains_[pcells_[gpu_cell].chain];
  if (slot < 0 || slot >= ch.desc[Level(pcells_[gpu_cell].level)][Level(1)]) return kNone;
  PCellId c = gpu_cell;
  while (pcells_[c].level > 1) {
    int64_t below = ch.desc[Level(pcells_[c].level - 1)][Level(1)];
    c = pcells_[c].first_child + slot / below;
    slot = static_cast<int32_t>(slot % below);
  }
  return c;
}

PlacedPod Engine::PodPlacement(const PodRef& p) const {
  PlacedPod pp;
  pp.node = p.leaves.empty() ? -1 : pcells_[p.leaves[0]].node;
  for (PCellId l : p.leaves) pp.gpus.push_back(pcells_[l].addr);
  std::sort(pp.gpus.begin(), pp.gpus.end());
  pp.gpus.erase(std::unique(pp.gpus.begin(), pp.gpus.end()), pp.gpus.end());
  if (p.leaves.empty()) return pp;
  const Chain& ch = chains_[pcells_[p.leaves[0]].chain];
  if (static_cast<int64_t>(p.leaves.size()) <
      static_cast<int64_t>(pp.gpus.size()) * ch.desc[Level(ch.gpu_level)][Level(1)]) {
    for (PCellId l : p.leaves) pp.fractions.push_back(LeafSlot(l));
    std::sort(pp.fractions.begin(), pp.fractions.end());
  }
  return pp;
}

// The level of the smallest cell holding a pod's leaves when they are all the leaves
// of that cell (a buddy cell): the GPU level for whole GPUs; 0 when they are not.
int Engine::GrainOf(ChainId chain, PCellSpan pod_leaves) const {
  const Chain& ch = chains_[chain];
  if (ch.gpu_level == 1 || pod_leaves.empty()) return 1;
  const int64_t n = static_cast<int64_t>(pod_leaves.size());
  if (n % ch.desc[Level(ch.gpu_level)][Level(1)] == 0) {
    // Whole GPUs: every leaf of each GPU the pod touches.
    std::vector<PCellId> gpus;
    for (PCellId l : pod_leaves) {
      PCellId g = l;
      while (pcells_[g].level < ch.gpu_level) g = pcells_[g].parent;
      gpus.push_back(g);
    }
    std::sort(gpus.begin(), gpus.end());
    gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
    if (static_cast<int64_t>(gpus.size()) * ch.desc[Level(ch.gpu_level)][Level(1)] == n)
      return ch.gpu_level;
  }
  PCellId a = pod_leaves[0];
  while (pcells_[a].level < ch.gpu_level && ch.desc[Level(pcells_[a].level)][Level(1)] < n)
    a = pcells_[a].parent;
  if (ch.desc[Level(pcells_[a].level)][Level(1)] != n) return 0;
  for (PCellId l : pod_leaves) {
    PCellId x = l;
    while (pcells_[x].level < pcells_[a].level) x = pcells_[x].parent;
    if (x != a) return 0;
  }
  return pcells_[a].level;
}

PlacedPod Engine::RunningPod(const PodRef& p, VCellSpan vleaves, size_t at,
                             std::vector<VCellId>* out) const {
  PlacedPod pp;
  pp.node = pcells_[p.leaves[0]].node;
  const size_t n = p.leaves.size();
  const bool has_v = at + n <= vleaves.size();
  const Chain& ch = chains_[pcells_[p.leaves[0]].chain];
  if (ch.gpu_level == 1) {
    for (size_t i = 0; i < n; i++) {
      pp.gpus.push_back(pcells_[p.leaves[i]].addr);
      if (has_v) out->push_back(vleaves[at + i]);
    }
    return pp;
  }
  // AddRunning lists each GPU's leaves in slot order (all of them, or the fractions
  // given): the GPUs in order of first use, and the virtual leaves permuted to match.
  std::vector<int32_t> rank(n);
  for (size_t i = 0; i < n; i++) {
    int32_t g = pcells_[p.leaves[i]].addr;
    auto it = std::find(pp.gpus.begin(), pp.gpus.end(), g);
    rank[i] = static_cast<int32_t>(it - pp.gpus.begin());
    if (it == pp.gpus.end()) pp.gpus.push_back(g);
  }
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; i++) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (rank[a] != rank[b]) return rank[a] < rank[b];
    return LeafSlot(p.leaves[a]) < LeafSlot(p.leaves[b]);
  });
  const bool partial = static_cast<int64_t>(n) < static_cast<int64_t>(pp.gpus.size()) *
                                                     ch.desc[Level(ch.gpu_level)][Level(1)];
  for (size_t i : order) {
    if (partial) pp.fractions.push_back(LeafSlot(p.leaves[i]));
    if (has_v) out->push_back(vleaves[at + i]);
  }
  return pp;
}

}  // namespace hived
