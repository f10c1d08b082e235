// SPDX-License-Identifier: GPL-2.0-or-later
// The parts of a GPU in gres.conf: MIG slice lines gathered under their GPU, and
// shard counts per GPU.
#include <algorithm>
#include <map>

#include "topo/gres_fractions.h"
#include "topo/conf_lines.h"

namespace hived {
namespace topo {

Status add_mig_slice(const GresGpuRecord& r, int index, NodeFacts* n,
                     std::map<std::string, size_t>* by_file) {
  const std::string& dev = r.files[0];
  auto f = by_file->find(dev);
  if (f == by_file->end()) {
    GpuFact g;
    g.type = r.mig.model;
    g.file = dev;
    g.cores = r.cores;
    g.where = r.where;
    g.index = index;
    f = by_file->emplace(dev, n->gpus.size()).first;
    n->gpus.push_back(std::move(g));
  }
  GpuFact& g = n->gpus[f->second];
  if (g.mig.empty() && g.where != r.where)
    return config_error(r.where + ": MultipleFiles: " + dev + " of node '" + n->name +
                        "' is a whole GPU at " + g.where + ": it cannot also hold MIG slices");
  if (g.type != r.mig.model)
    return config_error(r.where + ": Type: " + r.type + " is a slice of " + dev + " of node '" +
                        n->name + "', whose slices at " + g.where + " are of GPU model '" + g.type +
                        "'");
  g.mig.push_back({r.type, r.mig.profile, r.mig.slots, index, r.where});
  int used = 0;
  for (const auto& s : g.mig) used += s.slots;
  if (used > kMigSlots)
    return config_error(r.where + ": Type: the MIG slices of " + dev + " of node '" + n->name +
                        "' take " + std::to_string(used) + " compute slots, but a GPU has " +
                        std::to_string(kMigSlots));
  return Status::Ok();
}

void count_mig_parents(NodeFacts* n, std::vector<std::string>* notes) {
  std::map<std::string, int> slices;
  bool any = false;
  for (const auto& g : n->gpus) {
    if (g.mig.empty()) continue;
    any = true;
    for (const auto& s : g.mig) slices[s.type]++;
  }
  if (!any) return;
  if (!n->configured_mig.empty() && slices != n->configured_mig)
    notes->push_back("node " + n->name +
                     ": slurm.conf Gres= and gres.conf disagree on its MIG slices; the cells "
                     "follow gres.conf");
}

namespace {

bool power_of_two(int v) { return v > 0 && (v & (v - 1)) == 0; }

// Slurm's spread of a node's shard count over its GPUs: each GPU in index order gets
// what is left divided by the GPUs left, so the later GPUs take any remainder.
Status spread_shards(int count, const std::string& where, const std::string& what, NodeFacts* n) {
  std::vector<GpuFact*> gpus;
  for (auto& g : n->gpus) {
    if (!g.mig.empty())
      return config_error(where + ": " + what + ": node '" + n->name + "' has GPUs in MIG mode (" +
                          g.file + "): shards and MIG slices on one node are not supported");
    gpus.push_back(&g);
  }
  if (gpus.empty()) return Status::Ok();
  int left = count;
  for (size_t k = 0; k < gpus.size(); k++) {
    int mine = left / static_cast<int>(gpus.size() - k);
    left -= mine;
    if (!power_of_two(mine))
      return config_error(
          where + ": " + what + ": " + std::to_string(count) + " shards over the " +
          std::to_string(gpus.size()) + " GPUs of node '" + n->name + "' give " +
          std::to_string(mine) + " to GPU " + std::to_string(gpus[k]->index) +
          " (Slurm spreads them evenly), which is not a power of two: a GPU splits into "
          "halves, quarters, eighths, ...");
    gpus[k]->shards = mine;
    gpus[k]->shards_where = where;
  }
  return Status::Ok();
}

}  // namespace

Status assign_shards(const std::vector<GresShardRecord>& shards, NodeFacts* n) {
  bool any = false;
  for (const auto& s : shards) {
    if (!s.nodes.empty() && std::find(s.nodes.begin(), s.nodes.end(), n->name) == s.nodes.end())
      continue;
    any = true;
    if (s.file.empty()) {
      Status err = spread_shards(s.count, s.where, "Count", n);
      if (!err.ok()) return err;
      continue;
    }
    GpuFact* g = nullptr;
    for (auto& x : n->gpus)
      if (x.file == s.file) g = &x;
    if (!g)
      return config_error(s.where + ": File: " + s.file + " is not a GPU of node '" + n->name +
                          "' (shards belong to a GPU gres.conf lists)");
    if (!g->mig.empty())
      return config_error(s.where + ": File: " + s.file + " of node '" + n->name +
                          "' is in MIG mode: shards and MIG slices on one GPU are not supported");
    if (s.count != 0 && !power_of_two(s.count))
      return config_error(
          s.where + ": Count: " + std::to_string(s.count) + " shards on " + s.file + " of node '" +
          n->name + "' is not a power of two: a GPU splits into halves, quarters, eighths, ...");
    g->shards = s.count;
    g->shards_where = s.where;
  }
  if (!any && n->configured_shards > 0 && n->gpus_known)
    return spread_shards(n->configured_shards, n->where, "Gres", n);
  return Status::Ok();
}

}  // namespace topo
}  // namespace hived
