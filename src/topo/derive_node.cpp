// SPDX-License-Identifier: GPL-2.0-or-later
// Levels inside a node: sockets (from Cores=), NVLink cliques (from Links=) and PCIe
// switches (from hwloc's bridges), kept when they nest and add something.
#include <algorithm>
#include <map>
#include <set>

#include "topo/derive_internal.h"
#include "topo/hostlist.h"

namespace hived {
namespace topo {

void NoteSet::Add(const std::string& text, const std::string& node) {
  auto it = nodes_.find(text);
  if (it == nodes_.end()) {
    order_.push_back(text);
    it = nodes_.emplace(text, std::vector<std::string>()).first;
  }
  if (!node.empty()) it->second.push_back(node);
}

void NoteSet::AppendTo(std::vector<std::string>* out) const {
  for (const auto& t : order_) {
    const auto& n = nodes_.at(t);
    out->push_back(n.empty() ? t : compress_hostlist(n) + ": " + t);
  }
}

std::string NodeLayout::Key() const {
  std::string k = std::to_string(order.size());
  for (size_t i = 0; i < kinds.size(); i++) k += "/" + kinds[i] + std::to_string(sizes[i]);
  return k;
}

namespace {

// A partition of the GPUs (positions in the model's GPU list) into groups.
struct Partition {
  std::string source;      // "socket", "NVLink", "PCIe"
  int rank = 0;            // tie order at equal group size: socket, NVLink, PCIe
  std::vector<int> group;  // group id per position
  int size = 0;            // GPUs per group (0: uneven)
};

void finish(Partition* p) {
  std::map<int, int> count;
  for (int g : p->group) count[g]++;
  p->size = count.begin()->second;
  for (const auto& c : count)
    if (c.second != p->size) p->size = 0;
}

bool nests_in(const Partition& fine, const Partition& coarse) {
  std::map<int, int> parent;
  for (size_t i = 0; i < fine.group.size(); i++) {
    auto ins = parent.emplace(fine.group[i], coarse.group[i]);
    if (ins.first->second != coarse.group[i]) return false;
  }
  return true;
}

bool same(const Partition& a, const Partition& b) { return nests_in(a, b) && nests_in(b, a); }

std::string group_kind(int size) {
  if (size == 2) return "PAIR";
  if (size == 4) return "QUAD";
  return "GROUP" + std::to_string(size);
}

bool socket_partition(const NodeFacts& node, const std::vector<const GpuFact*>& gpus,
                      NoteSet* notes, Partition* out) {
  if (node.sockets < 2 || node.cores_per_socket < 1) return false;
  size_t with_cores = 0;
  for (const GpuFact* g : gpus) with_cores += g->cores.empty() ? 0 : 1;
  if (with_cores == 0) {
    notes->Add("no Cores= for the GPUs: no socket level", node.name);
    return false;
  }
  if (with_cores < gpus.size()) {
    notes->Add("Cores= is given for some GPUs only: no socket level", node.name);
    return false;
  }
  out->source = "socket";
  out->rank = 0;
  for (const GpuFact* g : gpus) {
    std::set<int> sockets;
    for (int c : g->cores) sockets.insert(c / node.cores_per_socket);
    if (sockets.size() != 1) {
      notes->Add("a GPU's Cores= spans several sockets: no socket level", node.name);
      return false;
    }
    out->group.push_back(*sockets.begin());
  }
  return true;
}

// Cliques in index order: a GPU joins the first clique whose every member it links to.
bool nvlink_partition(const NodeFacts& node, const std::vector<const GpuFact*>& gpus,
                      NoteSet* notes, Partition* out) {
  size_t with_links = 0;
  for (const GpuFact* g : gpus) with_links += g->links.empty() ? 0 : 1;
  if (with_links == 0) return false;
  if (with_links < gpus.size()) {
    notes->Add("Links= is given for some GPUs only: no NVLink level", node.name);
    return false;
  }
  auto linked = [&](const GpuFact* a, const GpuFact* b) {
    return b->index < static_cast<int>(a->links.size()) && a->links[b->index] > 0 &&
           a->index < static_cast<int>(b->links.size()) && b->links[a->index] > 0;
  };
  out->source = "NVLink";
  out->rank = 1;
  out->group.assign(gpus.size(), -1);
  std::vector<std::vector<size_t>> cliques;
  for (size_t i = 0; i < gpus.size(); i++) {
    if (out->group[i] >= 0) continue;
    std::vector<size_t> members{i};
    for (size_t j = i + 1; j < gpus.size(); j++) {
      if (out->group[j] >= 0) continue;
      bool all = true;
      for (size_t m : members) all = all && linked(gpus[m], gpus[j]);
      if (all) members.push_back(j);
    }
    for (size_t m : members) out->group[m] = static_cast<int>(cliques.size());
    cliques.push_back(members);
  }
  return true;
}

void pcie_partitions(const std::vector<const GpuFact*>& gpus, std::vector<Partition>* out) {
  size_t depth = SIZE_MAX;
  for (const GpuFact* g : gpus) depth = std::min(depth, g->pcie_path.size());
  for (size_t d = 0; d < depth; d++) {
    Partition p;
    p.source = "PCIe";
    p.rank = 2;
    std::map<std::string, int> ids;
    for (const GpuFact* g : gpus) {
      std::string key;
      for (size_t k = 0; k <= d; k++) key += g->pcie_path[k] + "/";
      p.group.push_back(ids.emplace(key, static_cast<int>(ids.size())).first->second);
    }
    out->push_back(std::move(p));
  }
}

}  // namespace

NodeLayout flat_layout(const std::vector<int>& indices) {
  NodeLayout l;
  l.order = indices;
  return l;
}

NodeLayout layout_gpus(const NodeFacts& node, const std::vector<const GpuFact*>& gpus,
                       NoteSet* notes) {
  std::vector<Partition> cand;
  Partition p;
  if (socket_partition(node, gpus, notes, &p)) cand.push_back(p);
  p = Partition();
  if (nvlink_partition(node, gpus, notes, &p)) cand.push_back(p);
  pcie_partitions(gpus, &cand);
  for (auto& c : cand) finish(&c);
  std::stable_sort(cand.begin(), cand.end(), [](const Partition& a, const Partition& b) {
    return a.size != b.size ? a.size > b.size : a.rank < b.rank;
  });

  int n = static_cast<int>(gpus.size());
  Partition whole;
  whole.group.assign(gpus.size(), 0);
  whole.size = n;
  std::vector<Partition> kept;
  const Partition* last = &whole;
  for (const auto& c : cand) {
    if (c.size == 0) {
      notes->Add(c.source + " groups are uneven: no " + c.source + " level", node.name);
      continue;
    }
    if (c.size == n || c.size == 1) continue;  // the node itself, or single GPUs
    if (c.size == last->size) {
      if (!same(c, *last))
        notes->Add(
            c.source + " groups cut across " + last->source + " groups: no " + c.source + " level",
            node.name);
      continue;
    }
    if (!nests_in(c, *last)) {
      notes->Add(
          c.source + " groups cut across " + last->source + " groups: no " + c.source + " level",
          node.name);
      continue;
    }
    kept.push_back(c);
    last = &kept.back();
  }

  NodeLayout out;
  for (const auto& k : kept) {
    out.kinds.push_back(k.source == "socket" ? "SOCKET" : group_kind(k.size));
    out.sizes.push_back(k.size);
  }
  // Leaves ordered by group at each kept level (groups ranked by their lowest index).
  std::vector<std::vector<int>> rank(kept.size(), std::vector<int>(gpus.size()));
  for (size_t l = 0; l < kept.size(); l++) {
    std::map<int, int> low;  // group -> lowest index
    for (size_t i = 0; i < gpus.size(); i++) {
      auto ins = low.emplace(kept[l].group[i], gpus[i]->index);
      if (gpus[i]->index < ins.first->second) ins.first->second = gpus[i]->index;
    }
    for (size_t i = 0; i < gpus.size(); i++) rank[l][i] = low[kept[l].group[i]];
  }
  std::vector<size_t> pos(gpus.size());
  for (size_t i = 0; i < pos.size(); i++) pos[i] = i;
  std::sort(pos.begin(), pos.end(), [&](size_t a, size_t b) {
    for (size_t l = 0; l < kept.size(); l++)
      if (rank[l][a] != rank[l][b]) return rank[l][a] < rank[l][b];
    return gpus[a]->index < gpus[b]->index;
  });
  for (size_t i : pos) out.order.push_back(gpus[i]->index);
  return out;
}

}  // namespace topo
}  // namespace hived
