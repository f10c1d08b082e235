// SPDX-License-Identifier: GPL-2.0-or-later
#include "topo/chain_table.h"

#include <functional>
#include <map>

#include "core/cell_path.h"
#include "topo/conf_lines.h"

namespace hived {
namespace topo {

Status build_chain_table(const ClusterSpec& spec, ChainTable* out) {
  std::map<std::string, const CellTypeSpec*> types;
  for (const auto& t : spec.cell_types) types[t.name] = &t;
  std::map<std::string, int> chain_of_top;
  ChainTable table;
  for (const auto& pc : spec.physical_cells) {
    if (chain_of_top.count(pc.cell_type)) continue;
    auto it = types.find(pc.cell_type);
    if (it == types.end())
      return config_error(pc.where + ".cellType: unknown cell type '" + pc.cell_type + "'");
    std::vector<const CellTypeSpec*> down;
    for (const CellTypeSpec* t = it->second; t;) {
      if (down.size() > types.size())
        return config_error(it->second->where + ".childCellType: cell types form a cycle");
      down.push_back(t);
      auto c = types.find(t->child_type);
      t = c == types.end() ? nullptr : c->second;
    }
    ChainInfo ch;
    ch.top = pc.cell_type;
    int levels = static_cast<int>(down.size()) + 1;
    ch.levels.resize(levels + 1);
    ch.leaf = down.back()->child_type;
    ch.levels[1].type = ch.leaf;
    for (size_t k = 0; k < down.size(); k++) {
      int level = levels - static_cast<int>(k);
      ch.levels[level].type = down[k]->name;
      ch.levels[level].children = down[k]->child_count;
      if (down[k]->is_node_level && !ch.node_level) ch.node_level = level;
      if (down[k]->is_gpu_level && ch.gpu_level == 1) ch.gpu_level = level;
      ch.mig = ch.mig || down[k]->child_is_mig_slice;
    }
    ch.model = ch.levels[ch.gpu_level].type;
    if (!ch.node_level) ch.node_level = levels;
    for (int l = 2; l <= levels; l++) {
      ch.levels[l].leaves = ch.levels[l - 1].leaves * ch.levels[l].children;
      if (ch.levels[l].leaves > (int64_t{1} << 24))
        return config_error(down[0]->where + ": a cell of this type would hold over 16M GPUs");
    }
    chain_of_top[pc.cell_type] = static_cast<int>(table.chains.size());
    table.chains.push_back(std::move(ch));
  }

  // Per cell: free cells at each level below it, and whether it holds a pinned cell.
  std::function<bool(const PhysicalCellSpec&, int, int, std::vector<int64_t>*)> walk;
  walk = [&](const PhysicalCellSpec& s, int chain, int level, std::vector<int64_t>* free) -> bool {
    ChainInfo& ch = table.chains[chain];
    ch.levels[level].cells++;
    if (level == ch.node_level && !s.address.empty()) {
      ch.nodes.push_back(s.address);
      table.node_cells.push_back({s.address, chain, ch.levels[level].leaves});
    }
    bool pinned = !s.pinned_id.empty();
    if (s.children.empty() || level == 1) {
      for (int l = level - 1; l >= 1; l--)
        ch.levels[l].cells += ch.levels[level].leaves / ch.levels[l].leaves;
      if (!pinned)
        for (int l = level; l >= 1; l--)
          (*free)[l] += ch.levels[level].leaves / ch.levels[l].leaves;
      return pinned;
    }
    std::vector<int64_t> below(level + 1, 0);
    bool holds = false;
    for (const auto& c : s.children) holds = walk(c, chain, level - 1, &below) || holds;
    if (pinned) return true;
    for (int l = 1; l < level; l++) (*free)[l] += below[l];
    if (!holds) (*free)[level] += 1;
    return holds;
  };
  for (size_t i = 0; i < spec.physical_cells.size(); i++) {
    const auto& pc = spec.physical_cells[i];
    int chain = chain_of_top[pc.cell_type];
    ChainInfo& ch = table.chains[chain];
    ch.top_addresses.push_back(pc.address);
    std::vector<int64_t> free(ch.levels.size(), 0);
    walk(pc, chain, ch.top_level(), &free);
    for (size_t l = 1; l < free.size(); l++) table.chains[chain].levels[l].free += free[l];
  }
  *out = std::move(table);
  return Status::Ok();
}

Status resolve_cell_path(const ChainTable& t, const std::string& path, int* chain, int* level) {
  struct View {
    const std::vector<ChainInfo>& c;
    size_t size() const { return c.size(); }
    const std::string& top(size_t k) const { return c[k].top; }
    int levels(size_t k) const { return c[k].top_level(); }
    const std::string& type(size_t k, int l) const { return c[k].levels[l].type; }
  };
  std::string err = ResolveCellPath(View{t.chains}, path, chain, level);
  return err.empty() ? Status::Ok() : config_error(err);
}

}  // namespace topo
}  // namespace hived
