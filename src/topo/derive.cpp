// SPDX-License-Identifier: GPL-2.0-or-later
// The derivation: node facts -> node cells (derive_node.cpp gives the levels inside a
// node), topology.conf switches -> cells above nodes, and the merge with hived.conf.
#include "topo/derive.h"
#include "topo/conf_lines.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <functional>
#include <map>
#include <set>

#include "topo/chain_table.h"
#include "topo/derive_internal.h"
#include "topo/hostlist.h"
#include "topo/mig.h"

namespace hived {
namespace topo {

std::string leaf_model(const std::string& gres_type) {
  return gres_type.empty() ? "gpu" : gres_type;
}

namespace {

// A derived cell type. Names are given on creation, so children are named first.
struct DType {
  std::string model;
  std::string kind;   // NODE, SOCKET, PAIR, QUAD, GROUPn, RACK, SPINE, SWITCHn
  std::string tag;    // node shape tag when the model has several node shapes
  std::string child;  // child type name (derived or hived.conf) or the GPU model
  int count = 0;
  bool node_level = false;
  bool gpu_level = false;
  bool mig = false;  // children are MIG slices (childIsMigSlice)
  int64_t leaves = 0;
  std::string name;
  bool reused = false;  // `name` is a hived.conf type of the same structure
};

// A cell being assembled: a node's cell of one model, or a switch cell.
struct Item {
  std::string type;  // cell type name
  int64_t leaves = 0;
  int height = 0;  // 0 node, 1 rack, ...
  int first_node = 0;
  std::string label;  // node or switch name, for messages
  PhysicalCellSpec spec;
};

std::string upper_name(const std::string& model) {
  std::string s;
  for (char c : model) {
    unsigned char u = static_cast<unsigned char>(c);
    s += isalnum(u) || c == '_' || c == '-' ? static_cast<char>(toupper(u)) : '-';
  }
  return s;
}

std::string letter_suffix(int k) {  // 1 -> "b", 2 -> "c", ... then numbers
  return k < 25 ? std::string(1, static_cast<char>('a' + k)) : std::to_string(k + 1);
}

class Deriver {
 public:
  Deriver(const std::vector<NodeFacts>& nodes, const TopologyFacts& topo, const ClusterSpec& expl,
          DeriveReport* report)
      : nodes_(nodes), topo_(topo), expl_(expl), report_(report) {}

  Status Run(ClusterSpec* out);

 private:
  struct NodeModel {  // one node's GPUs of one model, to be derived
    int node = 0;
    std::string model;
    int expected = 0;
    std::vector<const GpuFact*> use;  // GPUs that form the cell (ascending index)
    std::vector<int> indices;         // leaf indices (with fills when GPUs are missing)
    bool complete = true;
    std::string explicit_type;  // hived.conf node type to use
    NodeLayout layout;
  };

  Status CheckExplicit();
  void CollectNodeModels();
  void Layouts();
  void NodeItems();
  void Switches();
  const DType* Find(const std::string& name) const {
    auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : &types_[it->second];
  }
  std::string MakeType(DType t);
  PhysicalCellSpec Spell(const std::string& node, const std::vector<int>& order,
                         const std::vector<int>& counts) const;
  std::string Tag(const std::string& model, int expected, const std::string& key);
  void Mismatch(const std::string& node, const std::string& model, int expected, int found,
                const std::string& what);
  void ReportMig(const NodeFacts& n, const GpuFact& g);
  bool ModelShards(const NodeFacts& n, const std::string& model,
                   const std::vector<const GpuFact*>& gpus);
  void FractionTypes(const std::string& model);

  const std::vector<NodeFacts>& nodes_;
  const TopologyFacts& topo_;
  const ClusterSpec& expl_;
  DeriveReport* report_;
  NoteSet notes_;

  std::map<std::string, const CellTypeSpec*> expl_types_;
  std::set<std::string> expl_nodes_;
  std::set<std::string> taken_;  // every type and model name in use
  std::vector<DType> types_;
  std::map<std::string, size_t> by_key_, by_name_;
  std::vector<NodeModel> nms_;
  std::vector<std::string> models_;                             // in order of first appearance
  std::map<std::string, std::vector<std::string>> shape_keys_;  // model -> keys in order
  std::map<std::string, std::vector<Item>> items_;              // model -> node cells
  std::vector<Item> tops_;
  std::deque<GpuFact> synthesized_;  // GPUs of nodes known only from slurm.conf
  // Shards per GPU of each model (one count per model: it shapes the model's cell type),
  // the node that set it, and the nodes with fractional levels.
  std::map<std::string, std::pair<int, std::string>> shards_;
  std::map<std::string, std::vector<std::string>> shard_nodes_;
  std::set<std::string> fractions_done_;
};

// Leaf model and GPUs of an explicit node-level type; -1 leaves if it is not a chain.
std::pair<std::string, int64_t> explicit_shape(
    const std::map<std::string, const CellTypeSpec*>& types, const std::string& name,
    std::vector<int>* counts) {
  int64_t leaves = 1;
  std::string t = name;
  for (size_t steps = 0; steps <= types.size(); steps++) {
    auto it = types.find(t);
    if (it == types.end() || it->second->is_gpu_level) return {t, leaves};
    if (it->second->child_count < 1) break;
    leaves *= it->second->child_count;
    if (leaves > (1 << 24)) break;
    if (counts) counts->push_back(it->second->child_count);
    t = it->second->child_type;
  }
  return {"", -1};
}

Status Deriver::CheckExplicit() {
  for (const auto& t : expl_.cell_types) {
    expl_types_[t.name] = &t;
    taken_.insert(t.name);
  }
  ChainTable ct;
  if (!expl_.physical_cells.empty()) {
    Status st = build_chain_table(expl_, &ct);
    if (!st.ok()) return config_error("hived.conf: " + st.msg);
  }
  for (const auto& ch : ct.chains) taken_.insert(ch.leaf), taken_.insert(ch.model);
  std::map<std::string, size_t> facts;
  for (size_t i = 0; i < nodes_.size(); i++) facts[nodes_[i].name] = i;
  // Node -> model -> GPUs in its hived.conf cells.
  std::map<std::string, std::map<std::string, int64_t>> cells;
  std::vector<std::string> order;
  for (const auto& nc : ct.node_cells) {
    if (!cells.count(nc.node)) order.push_back(nc.node);
    const ChainInfo& ch = ct.chains[nc.chain];
    cells[nc.node][ch.model] += nc.leaves / ch.leaves_per_gpu();
  }
  std::vector<std::string> unknown;
  for (const auto& node : order) {
    expl_nodes_.insert(node);
    report_->explicit_nodes.push_back(node);
    auto f = facts.find(node);
    if (f == facts.end()) {
      if (!nodes_.empty()) unknown.push_back(node);
      continue;
    }
    const NodeFacts& n = nodes_[f->second];
    std::map<std::string, int> have;
    if (n.gpus_known) {
      for (const auto& g : n.gpus) have[leaf_model(g.type)]++;
    } else {
      for (const auto& c : n.configured) have[leaf_model(c.first)] += c.second;
    }
    // Untyped GPUs count for the model when the node's cells have one model.
    if (have.count("gpu") && cells[node].size() == 1 && !cells[node].count("gpu")) {
      have[cells[node].begin()->first] += have["gpu"];
      have.erase("gpu");
    }
    for (const auto& c : cells[node]) {
      int found = have.count(c.first) ? have[c.first] : 0;
      if (found != c.second)
        Mismatch(node, c.first, static_cast<int>(c.second), found, "its hived.conf cells have");
    }
  }
  if (!unknown.empty())
    report_->notes.push_back("hived.conf physicalCells name nodes Slurm does not know: " +
                             compress_hostlist(unknown));
  return Status::Ok();
}

void Deriver::Mismatch(const std::string& node, const std::string& model, int expected, int found,
                       const std::string& what) {
  GresMismatch m;
  m.node = node;
  m.model = model;
  m.expected = expected;
  m.found = found;
  m.message = "node " + node + " has " + std::to_string(found) + " " + model + " GPUs but " + what +
              " " + std::to_string(expected) +
              (m.missing() ? " (a GPU is missing: the node is a bad cell until it is back)"
                           : " (the extra GPUs get no cells)");
  report_->mismatches.push_back(m);
}

void Deriver::ReportMig(const NodeFacts& n, const GpuFact& g) {
  std::string line = n.name + " GPU " + std::to_string(g.index) +
                     (g.file.empty() ? "" : " (" + g.file + ")") + ": ";
  int used = 0;
  for (size_t k = 0; k < g.mig.size(); k++) {
    line += (k ? " + " : "") + g.mig[k].profile;
    used += g.mig[k].slots;
  }
  line += " = " + std::to_string(used) + " of " + std::to_string(kMigSlots) + " compute slots";
  report_->mig_gpus.push_back(line);
  report_->mig_slices += static_cast<int>(g.mig.size());
}

// A fraction of a GPU by its denominator: HALF, QUARTER, EIGHTH, 16TH, 32ND, ...
std::string fraction_name(int d) {
  if (d == 2) return "HALF";
  if (d == 4) return "QUARTER";
  if (d == 8) return "EIGHTH";
  return std::to_string(d) + (d % 10 == 2 && d % 100 != 12 ? "ND" : "TH");
}

bool Deriver::ModelShards(const NodeFacts& n, const std::string& model,
                          const std::vector<const GpuFact*>& gpus) {
  // One shard per GPU shares nothing: the GPU stays whole.
  auto count = [](const GpuFact* g) { return g->shards > 1 ? g->shards : 0; };
  int mine = gpus.empty() ? 0 : count(gpus[0]);
  for (const GpuFact* g : gpus)
    if (count(g) != mine) {
      report_->problems.push_back(
          "node " + n.name + ": its " + model + " GPUs have different shard counts (" +
          std::to_string(count(gpus[0])) + " on GPU " + std::to_string(gpus[0]->index) + ", " +
          std::to_string(count(g)) + " on GPU " + std::to_string(g->index) +
          "): one count per GPU model shapes its cells; no cells for them");
      return false;
    }
  auto ins = shards_.emplace(model, std::make_pair(mine, n.name));
  if (ins.first->second.first != mine) {
    report_->problems.push_back("node " + n.name + ": its " + model + " GPUs have " +
                                std::to_string(mine) + " shards each but those of node " +
                                ins.first->second.second + " have " +
                                std::to_string(ins.first->second.first) +
                                ": one count per GPU model shapes its cells; no cells for them");
    return false;
  }
  if (mine > 1) shard_nodes_[model].push_back(n.name);
  return true;
}

// The GPU model as a cell type (isGpuLevel) over halves, quarters, ... down to one shard.
void Deriver::FractionTypes(const std::string& model) {
  if (!fractions_done_.insert(model).second) return;
  auto s = shards_.find(model);
  if (s == shards_.end() || s->second.first < 2) return;
  if (expl_types_.count(model)) return;  // hived.conf gives the model's levels
  int per_gpu = s->second.first;
  std::string child = upper_name(model) + "-" + fraction_name(per_gpu);
  std::string levels = child + " (leaf)";
  taken_.insert(child);
  for (int d = per_gpu / 2; d >= 2; d /= 2) {
    DType t;
    t.model = model;
    t.kind = fraction_name(d);
    t.child = child;
    t.count = 2;
    child = MakeType(t);
    levels = child + " > " + levels;
  }
  DType gpu;
  gpu.model = model;
  gpu.kind = "GPU";
  gpu.child = child;
  gpu.count = 2;
  gpu.gpu_level = true;
  gpu.name = model;
  by_name_[model] = types_.size();
  report_->derived_types.push_back(model);
  types_.push_back(gpu);
  report_->fractions.push_back(model + ": " + std::to_string(per_gpu) + " shards per GPU on " +
                               compress_hostlist(shard_nodes_[model]) + ": " + model + " > " +
                               levels);
}

void Deriver::CollectNodeModels() {
  for (size_t i = 0; i < nodes_.size(); i++) {
    const NodeFacts& n = nodes_[i];
    if (expl_nodes_.count(n.name)) continue;
    std::map<std::string, std::vector<const GpuFact*>> actual;
    std::vector<std::string> actual_order;
    std::map<std::string, int> configured;
    for (const auto& c : n.configured)
      if (!c.first.empty()) configured[c.first] += c.second;
    for (const auto& c : n.configured_mig) configured[c.first] += c.second;
    int untyped = n.configured.count("") ? n.configured.at("") : 0;
    std::vector<const GpuFact*> gpus;
    if (n.gpus_known) {
      for (const auto& g : n.gpus) gpus.push_back(&g);
    } else {
      // Indices 0..n-1, models in slurm.conf order; nothing else is known.
      for (const auto& c : n.configured)
        for (int k = 0; k < c.second; k++) {
          GpuFact g;
          g.type = c.first;
          g.index = static_cast<int>(gpus.size());
          synthesized_.push_back(g);
          gpus.push_back(&synthesized_.back());
        }
    }
    // Facts from slurmctld's tables come in any order; a repeated index is a broken
    // record that must not take the whole cluster down with it.
    std::stable_sort(gpus.begin(), gpus.end(),
                     [](const GpuFact* a, const GpuFact* b) { return a->index < b->index; });
    bool broken = false;
    for (size_t k = 0; k < gpus.size(); k++)
      if (gpus[k]->index < 0 || (k && gpus[k]->index == gpus[k - 1]->index)) broken = true;
    if (broken) {
      report_->problems.push_back("node " + n.name +
                                  ": its GPU records repeat an index or lack one: no cells for it");
      continue;
    }
    for (const GpuFact* g : gpus) {
      if (!g->mig.empty()) {
        // No cell for the GPU: each slice is a leaf of its profile's chain.
        ReportMig(n, *g);
        for (const auto& s : g->mig) {
          GpuFact f;
          f.type = s.type;
          f.index = s.index;
          f.file = g->file;
          f.cores = g->cores;
          f.where = s.where;
          synthesized_.push_back(f);
          if (!actual.count(s.type)) actual_order.push_back(s.type);
          actual[s.type].push_back(&synthesized_.back());
        }
        continue;
      }
      std::string m = g->type;
      if (m.empty() && configured.size() == 1) m = configured.begin()->first;
      m = leaf_model(m);
      if (!actual.count(m)) actual_order.push_back(m);
      actual[m].push_back(g);
    }
    std::map<std::string, int> expected;
    if (n.configured.empty()) {
      for (const auto& a : actual) expected[a.first] = static_cast<int>(a.second.size());
    } else {
      int rest = untyped;
      for (const auto& c : configured) {
        expected[leaf_model(c.first)] = c.second;
        rest -= c.second;
      }
      std::vector<std::string> others;
      for (const auto& m : actual_order)
        if (!expected.count(m)) others.push_back(m);
      if (rest > 0 && others.size() == 1) {
        expected[others[0]] = rest;
      } else if (rest > 0 && others.empty()) {
        expected["gpu"] += rest;
        if (!actual.count("gpu")) actual_order.push_back("gpu");
      } else if (rest > 0) {
        int found = 0;
        for (const auto& m : others) {
          expected[m] = static_cast<int>(actual[m].size());
          found += expected[m];
        }
        if (found != rest) Mismatch(n.name, "gpu", rest, found, "slurm.conf Gres= configures");
      } else if (!others.empty()) {
        for (const auto& m : others)
          notes_.Add("gres.conf lists " + m +
                         " GPUs that slurm.conf Gres= does not give the node: no cells for them",
                     n.name);
      }
      for (const auto& c : expected)
        if (!actual.count(c.first) &&
            std::find(actual_order.begin(), actual_order.end(), c.first) == actual_order.end())
          actual_order.push_back(c.first);
    }
    std::set<int> used;
    for (const GpuFact* g : gpus) used.insert(g->index);
    for (const auto& m : actual_order) {
      auto e = expected.find(m);
      if (e == expected.end() || e->second <= 0) continue;
      if (m.find('.') != std::string::npos && !is_mig_type(m)) {
        report_->problems.push_back(
            "GPU type '" + m + "' of node " + n.name +
            " contains '.', which a hived.conf cell type path cannot name: no cells for it");
        continue;
      }
      NodeModel nm;
      nm.node = static_cast<int>(i);
      nm.model = m;
      nm.expected = e->second;
      auto& a = actual[m];
      if (!ModelShards(n, m, a)) continue;
      int found = static_cast<int>(a.size());
      if (found != nm.expected)
        Mismatch(n.name, m, nm.expected, found,
                 n.configured.empty() ? "its cell type has" : "slurm.conf Gres= configures");
      for (int k = 0; k < std::min(found, nm.expected); k++) {
        nm.use.push_back(a[k]);
        nm.indices.push_back(a[k]->index);
      }
      nm.complete = found >= nm.expected;
      for (int next = 0; static_cast<int>(nm.indices.size()) < nm.expected; next++)
        if (!used.count(next)) {
          used.insert(next);
          nm.indices.push_back(next);
        }
      if (std::find(models_.begin(), models_.end(), m) == models_.end()) models_.push_back(m);
      taken_.insert(m);
      // A hived.conf node-level type of this model and size shapes the node.
      for (const auto& t : expl_.cell_types) {
        if (!t.is_node_level) continue;
        auto shape = explicit_shape(expl_types_, t.name, nullptr);
        if (shape.first != m || shape.second != nm.expected) continue;
        if (nm.explicit_type.empty()) {
          nm.explicit_type = t.name;
        } else {
          notes_.Add("hived.conf node types " + nm.explicit_type + " and " + t.name +
                         " both fit; using " + nm.explicit_type,
                     n.name);
          break;
        }
      }
      nms_.push_back(std::move(nm));
    }
  }
}

void Deriver::Layouts() {
  std::map<std::string, std::map<std::string, int>> votes;  // model/size -> key -> nodes
  std::map<std::string, NodeLayout> by_key;
  for (auto& nm : nms_) {
    if (!nm.complete) continue;
    nm.layout = layout_gpus(nodes_[nm.node], nm.use, &notes_);
    std::string k = nm.layout.Key();
    votes[nm.model + "/" + std::to_string(nm.expected)][k]++;
    by_key.emplace(k, nm.layout);
  }
  // A node missing GPUs takes the shape most of its complete peers have.
  for (auto& nm : nms_) {
    if (nm.complete) continue;
    auto v = votes.find(nm.model + "/" + std::to_string(nm.expected));
    std::vector<int> sorted = nm.indices;
    std::sort(sorted.begin(), sorted.end());
    if (v == votes.end()) {
      nm.layout = flat_layout(sorted);
      continue;
    }
    std::string best;
    int most = 0;
    for (const auto& k : v->second)
      if (k.second > most) best = k.first, most = k.second;
    nm.layout = by_key[best];
    std::vector<int> peer = nm.layout.order;
    std::sort(peer.begin(), peer.end());
    if (peer != sorted) nm.layout.order = sorted;
  }
  for (auto& nm : nms_) {
    if (!nm.explicit_type.empty()) continue;
    auto& keys = shape_keys_[nm.model];
    std::string k = nm.layout.Key();
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  }
}

std::string Deriver::Tag(const std::string& model, int expected, const std::string& key) {
  const auto& keys = shape_keys_[model];
  if (keys.size() < 2) return "";
  // "8G", then "8Gb", "8Gc" for other shapes of the same size, in order of appearance.
  int same = 0;
  for (const auto& k : keys) {
    if (k == key) break;
    if (k.substr(0, k.find('/')) == std::to_string(expected)) same++;
  }
  return std::to_string(expected) + "G" + (same ? letter_suffix(same) : "");
}

std::string Deriver::MakeType(DType t) {
  std::string key = t.model + "|" + t.kind + "|" + t.tag + "|" + t.child + "|" +
                    std::to_string(t.count) + "|" + (t.node_level ? "n" : "");
  auto it = by_key_.find(key);
  if (it != by_key_.end()) return types_[it->second].name;
  std::string base = upper_name(t.model) + "-" + t.kind + (t.tag.empty() ? "" : "-" + t.tag);
  std::vector<std::string> tries{base, base + "-" + std::to_string(t.leaves) + "G"};
  for (int k = 1; k < 1000; k++) tries.push_back(tries[1] + letter_suffix(k));
  for (const auto& name : tries) {
    auto e = expl_types_.find(name);
    if (e != expl_types_.end() && e->second->child_type == t.child &&
        e->second->child_count == t.count && e->second->is_node_level == t.node_level) {
      t.name = name;
      t.reused = true;
      break;
    }
    if (!taken_.count(name)) {
      t.name = name;
      break;
    }
  }
  taken_.insert(t.name);
  by_key_[key] = types_.size();
  by_name_[t.name] = types_.size();
  if (t.reused) {
    if (std::find(report_->reused_types.begin(), report_->reused_types.end(), t.name) ==
        report_->reused_types.end())
      report_->reused_types.push_back(t.name);
  } else {
    report_->derived_types.push_back(t.name);
  }
  types_.push_back(t);
  return t.name;
}

PhysicalCellSpec Deriver::Spell(const std::string& node, const std::vector<int>& order,
                                const std::vector<int>& counts) const {
  PhysicalCellSpec s;
  s.address = node;
  bool natural = true;
  for (size_t i = 0; i < order.size(); i++) natural = natural && order[i] == static_cast<int>(i);
  if (natural) return s;  // the engine numbers generated leaves 0..n-1 in order
  std::function<void(PhysicalCellSpec*, size_t, size_t, size_t)> fill =
      [&](PhysicalCellSpec* c, size_t level, size_t first, size_t n) {
        if (level == counts.size()) return;
        size_t per = n / counts[level];
        for (int k = 0; k < counts[level]; k++) {
          PhysicalCellSpec child;
          if (level + 1 == counts.size()) child.address = std::to_string(order[first + k]);
          fill(&child, level + 1, first + k * per, per);
          c->children.push_back(std::move(child));
        }
      };
  fill(&s, 0, 0, order.size());
  return s;
}

void Deriver::NodeItems() {
  for (auto& nm : nms_) {
    const NodeFacts& n = nodes_[nm.node];
    Item it;
    it.leaves = nm.expected;
    it.first_node = nm.node;
    it.label = n.name;
    std::vector<int> counts;
    if (!nm.explicit_type.empty()) {
      auto sh = shards_.find(nm.model);
      if (sh != shards_.end() && sh->second.first > 1 && !expl_types_.count(nm.model))
        notes_.Add("hived.conf node type " + nm.explicit_type + " has whole " + nm.model +
                       " GPUs as leaves: their shards get no fractional cells",
                   n.name);
      explicit_shape(expl_types_, nm.explicit_type, &counts);
      it.type = nm.explicit_type;
      if (std::find(report_->reused_types.begin(), report_->reused_types.end(), it.type) ==
          report_->reused_types.end())
        report_->reused_types.push_back(it.type);
      if (nm.layout.order.empty()) {
        std::vector<int> sorted = nm.indices;
        std::sort(sorted.begin(), sorted.end());
        nm.layout.order = sorted;
      }
    } else {
      const NodeLayout& l = nm.layout;
      FractionTypes(nm.model);
      std::string tag = Tag(nm.model, nm.expected, l.Key());
      std::string child = nm.model;
      for (size_t k = l.kinds.size(); k-- > 0;) {
        DType t;
        t.model = nm.model;
        t.kind = l.kinds[k];
        t.tag = tag;
        t.child = child;
        t.count = k + 1 == l.kinds.size() ? l.sizes[k] : l.sizes[k] / l.sizes[k + 1];
        t.leaves = l.sizes[k];
        child = MakeType(t);
      }
      DType node;
      node.model = nm.model;
      node.kind = "NODE";
      node.tag = tag;
      node.child = child;
      node.count = l.sizes.empty() ? nm.expected : nm.expected / l.sizes[0];
      node.node_level = true;
      node.mig = is_mig_type(nm.model);
      node.leaves = nm.expected;
      it.type = MakeType(node);
      counts.push_back(node.count);
      for (size_t k = 0; k < l.kinds.size(); k++)
        counts.push_back(k + 1 == l.kinds.size() ? l.sizes[k] : l.sizes[k] / l.sizes[k + 1]);
    }
    if (std::find(report_->derived_nodes.begin(), report_->derived_nodes.end(), n.name) ==
        report_->derived_nodes.end())
      report_->derived_nodes.push_back(n.name);
    it.spec = Spell(n.name, nm.layout.order, counts);
    items_[nm.model].push_back(std::move(it));
  }
}

void Deriver::Switches() {
  std::map<std::string, size_t> sw;
  std::set<std::string> has_parent;
  for (size_t i = 0; i < topo_.switches.size(); i++) {
    sw[topo_.switches[i].name] = i;
    for (const auto& c : topo_.switches[i].switches) has_parent.insert(c);
  }
  for (const auto& model : models_) {
    std::map<std::string, size_t> pool;  // node -> index into items_[model], until placed
    std::vector<Item>& items = items_[model];
    std::vector<bool> placed(items.size(), false);
    for (size_t i = 0; i < items.size(); i++) pool[items[i].label] = i;
    std::vector<Item> tops;
    // Returns 0 (nothing of this model below), 1 (*cell is the switch's cell) or 2 (not a
    // cell: *orphans are its children, which become top-level cells).
    std::function<int(size_t, size_t, Item*, std::vector<Item>*)> build =
        [&](size_t si, size_t depth, Item* cell, std::vector<Item>* orphans) -> int {
      const SwitchFact& s = topo_.switches[si];
      std::vector<Item> kids;
      std::vector<std::string> broken_kids;
      for (const auto& node : s.nodes) {
        auto p = pool.find(node);
        if (p == pool.end()) continue;
        if (placed[p->second]) {
          notes_.Add("is below more than one switch; it stays below the first", node);
          continue;
        }
        placed[p->second] = true;
        kids.push_back(items[p->second]);
      }
      for (const auto& c : s.switches) {
        auto ci = sw.find(c);
        if (ci == sw.end()) continue;
        if (depth > topo_.switches.size()) {
          report_->problems.push_back(s.where + ": switch '" + s.name +
                                      "' is below itself: no cells above nodes");
          return 0;
        }
        Item sub;
        int r = build(ci->second, depth + 1, &sub, orphans);
        if (r == 1) kids.push_back(std::move(sub));
        if (r == 2) broken_kids.push_back(c);
      }
      if (!broken_kids.empty()) {
        notes_.Add("switch '" + s.name + "' is not a cell of " + model + " GPUs: switch '" +
                   broken_kids[0] + "' below it is not");
        for (auto& k : kids) orphans->push_back(std::move(k));
        return 2;
      }
      if (kids.empty()) return 0;
      if (kids.size() == 1) {  // a switch over one cell adds no level
        *cell = std::move(kids[0]);
        return 1;
      }
      std::map<std::string, std::vector<std::string>> by_type;
      std::vector<std::string> type_order;
      for (const auto& k : kids) {
        if (!by_type.count(k.type)) type_order.push_back(k.type);
        by_type[k.type].push_back(k.label);
      }
      if (type_order.size() > 1) {
        std::string list;
        for (const auto& t : type_order)
          list += (list.empty() ? "" : "; ") + t + ": " + compress_hostlist(by_type[t]);
        report_->problems.push_back(s.where + ": switch '" + s.name + "' is not a cell: its " +
                                    model + " children have different cell types (" + list +
                                    "); they stay top-level cells");
        for (auto& k : kids) orphans->push_back(std::move(k));
        return 2;
      }
      const DType* child = Find(kids[0].type);
      DType t;
      t.model = model;
      int h = kids[0].height + 1;
      t.kind = h == 1 ? "RACK" : h == 2 ? "SPINE" : "SWITCH" + std::to_string(h);
      t.tag = child ? child->tag : "";
      t.child = kids[0].type;
      t.count = static_cast<int>(kids.size());
      t.leaves = kids[0].leaves * t.count;
      cell->type = MakeType(t);
      cell->leaves = t.leaves;
      cell->height = h;
      cell->label = s.name;
      cell->first_node = kids[0].first_node;
      cell->spec = PhysicalCellSpec();
      cell->spec.address = s.name;
      for (auto& k : kids) {
        cell->first_node = std::min(cell->first_node, k.first_node);
        cell->spec.children.push_back(std::move(k.spec));
      }
      return 1;
    };
    for (size_t i = 0; i < topo_.switches.size(); i++) {
      if (has_parent.count(topo_.switches[i].name)) continue;
      Item cell;
      std::vector<Item> orphans;
      int r = build(i, 0, &cell, &orphans);
      if (r == 1) tops.push_back(std::move(cell));
      for (auto& o : orphans) tops.push_back(std::move(o));
    }
    for (size_t i = 0; i < items.size(); i++)
      if (!placed[i]) tops.push_back(items[i]);
    std::stable_sort(tops.begin(), tops.end(),
                     [](const Item& a, const Item& b) { return a.first_node < b.first_node; });
    for (auto& t : tops) tops_.push_back(std::move(t));
  }
}

void set_where(PhysicalCellSpec* s, const std::string& where) {
  s->where = where;
  for (size_t k = 0; k < s->children.size(); k++)
    set_where(&s->children[k], where + ".cellChildren[" + std::to_string(k) + "]");
}

Status Deriver::Run(ClusterSpec* out) {
  std::set<std::string> names;
  for (const auto& n : nodes_)
    if (!names.insert(n.name).second)
      return config_error("node '" + n.name + "' is described twice");
  Status st = CheckExplicit();
  if (!st.ok()) return st;
  CollectNodeModels();
  Layouts();
  NodeItems();
  Switches();
  ClusterSpec spec = expl_;
  for (const auto& t : types_) {
    if (t.reused) continue;
    CellTypeSpec c;
    c.where = "derived.cellTypes." + t.name;
    c.name = t.name;
    c.child_type = t.child;
    c.child_count = t.count;
    c.is_node_level = t.node_level;
    c.is_gpu_level = t.gpu_level;
    c.child_is_mig_slice = t.mig;
    spec.cell_types.push_back(c);
  }
  for (auto& t : tops_) {
    t.spec.cell_type = t.type;
    set_where(&t.spec, "derived.physicalCells[" + std::to_string(spec.physical_cells.size()) + "]");
    spec.physical_cells.push_back(std::move(t.spec));
  }
  notes_.AppendTo(&report_->notes);
  *out = std::move(spec);
  return Status::Ok();
}

}  // namespace

Status derive_cluster(const std::vector<NodeFacts>& nodes, const TopologyFacts& topology,
                      const ClusterSpec& explicit_spec, ClusterSpec* out, DeriveReport* report) {
  DeriveReport r;
  Deriver d(nodes, topology, explicit_spec, &r);
  Status st = d.Run(out);
  if (!st.ok()) return st;
  *report = std::move(r);
  return Status::Ok();
}

}  // namespace topo
}  // namespace hived
