// SPDX-License-Identifier: GPL-2.0-or-later
#include "topo/chain_table.h"

#include <functional>
#include <map>

namespace hived {
namespace topo {

std::string build_chain_table(const ClusterSpec& spec, ChainTable* out) {
  std::map<std::string, const CellTypeSpec*> types;
  for (const auto& t : spec.cell_types) types[t.name] = &t;
  std::map<std::string, int> chain_of_top;
  ChainTable table;
  for (const auto& pc : spec.physical_cells) {
    if (chain_of_top.count(pc.cell_type)) continue;
    auto it = types.find(pc.cell_type);
    if (it == types.end()) return pc.where + ".cellType: unknown cell type '" + pc.cell_type + "'";
    std::vector<const CellTypeSpec*> down;
    for (const CellTypeSpec* t = it->second; t;) {
      if (down.size() > types.size())
        return it->second->where + ".childCellType: cell types form a cycle";
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
    }
    ch.model = ch.levels[ch.gpu_level].type;
    if (!ch.node_level) ch.node_level = levels;
    for (int l = 2; l <= levels; l++) {
      ch.levels[l].leaves = ch.levels[l - 1].leaves * ch.levels[l].children;
      if (ch.levels[l].leaves > (int64_t{1} << 24))
        return down[0]->where + ": a cell of this type would hold over 16M GPUs";
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
  return "";
}

std::string resolve_cell_path(const ChainTable& t, const std::string& path, int* chain,
                              int* level) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  *chain = -1;
  for (size_t c = 0; c < t.chains.size(); c++)
    if (t.chains[c].top == parts[0]) *chain = static_cast<int>(c);
  if (*chain >= 0) {
    const ChainInfo& ch = t.chains[*chain];
    *level = ch.top_level();
    for (size_t k = 1; k < parts.size(); k++) {
      if (*level <= 1 || ch.levels[*level - 1].type != parts[k])
        return "'" + parts[k] + "' is not the child type of '" + ch.levels[*level].type + "'";
      (*level)--;
    }
    return "";
  }
  if (parts.size() > 1) return "'" + parts[0] + "' is not the top cell type of any physical cell";
  for (size_t c = 0; c < t.chains.size(); c++)
    for (int l = 1; l <= t.chains[c].top_level(); l++)
      if (t.chains[c].levels[l].type == parts[0]) {
        if (*chain >= 0 && *chain != static_cast<int>(c))
          return "'" + parts[0] + "' is in several chains; write the path from the chain's top";
        *chain = static_cast<int>(c);
        *level = l;
      }
  if (*chain < 0) return "unknown cell type '" + parts[0] + "'";
  return "";
}

}  // namespace topo
}  // namespace hived
