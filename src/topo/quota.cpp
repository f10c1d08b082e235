// SPDX-License-Identifier: GPL-2.0-or-later
#include "topo/quota.h"

#include <strings.h>

#include <algorithm>
#include <map>

#include "topo/chain_table.h"
#include "topo/conf_lines.h"

namespace hived {
namespace topo {

std::string parse_grptres_gpus(const std::string& grptres, std::vector<GpuTres>* out) {
  std::map<std::string, bool> seen;
  size_t start = 0;
  while (start <= grptres.size()) {
    size_t comma = grptres.find(',', start);
    std::string item =
        grptres.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? grptres.size() + 1 : comma + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string::npos) return "GrpTRES: '" + item + "' is not TRES=count";
    std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    if (strncasecmp(name.c_str(), "gres/gpu", 8) != 0 || (name.size() > 8 && name[8] != ':'))
      continue;
    GpuTres t;
    t.type = name.size() > 8 ? name.substr(9) : "";
    if (name.size() > 8 && t.type.empty()) return "GrpTRES: '" + item + "' has an empty GPU type";
    if (!parse_count(value, 100000000, &t.count))
      return "GrpTRES: " + name + ": '" + value + "' is not a GPU count";
    std::string key = t.type;
    for (char& c : key) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
    if (seen[key]) return "GrpTRES: " + name + " is given twice";
    seen[key] = true;
    out->push_back(t);
  }
  return "";
}

namespace {

// Virtual cells of one chain already promised, per level.
struct ChainDemand {
  std::vector<int64_t> cells;  // [level]
};

std::string path_of(const ChainInfo& ch, int level) {
  std::string p = ch.top;
  for (int l = ch.top_level() - 1; l >= level; l--) p += "." + ch.levels[l].type;
  return p;
}

// Level-`l` cells the demand needs (cells at l and above, counted in level-l cells).
int64_t need_at(const ChainInfo& ch, const ChainDemand& d, int l) {
  int64_t n = 0;
  for (int j = l; j <= ch.top_level(); j++)
    n += d.cells[j] * (ch.levels[j].leaves / ch.levels[l].leaves);
  return n;
}

}  // namespace

std::string quota_to_vc(const ClusterSpec& spec, const std::string& account,
                        const std::string& grptres, VcSpec* out) {
  std::string who = "account '" + account + "'";
  for (const auto& vc : spec.vcs)
    if (vc.name == account) return who + ": already has cells in hived.conf (" + vc.where + ")";
  std::vector<GpuTres> tres;
  std::string err = parse_grptres_gpus(grptres, &tres);
  if (!err.empty()) return who + ": " + err;
  ChainTable t;
  err = build_chain_table(spec, &t);
  if (!err.empty()) return who + ": " + err;

  std::vector<ChainDemand> demand(t.chains.size());
  for (size_t c = 0; c < t.chains.size(); c++) demand[c].cells.assign(t.chains[c].levels.size(), 0);
  for (const auto& vc : spec.vcs)
    for (const auto& v : vc.virtual_cells) {
      int chain, level;
      err = resolve_cell_path(t, v.cell_type, &chain, &level);
      if (!err.empty()) return v.where + ".cellType: " + err;
      demand[chain].cells[level] += v.count;
    }

  std::vector<std::string> models;
  for (const auto& ch : t.chains)
    if (std::find(models.begin(), models.end(), ch.leaf) == models.end()) models.push_back(ch.leaf);
  auto model_of = [&](const std::string& type) -> std::string {
    for (const auto& m : models)
      if (strcasecmp(m.c_str(), type.c_str()) == 0) return m;
    return "";
  };

  // GPUs per model.
  std::vector<std::pair<std::string, long long>> want;
  long long untyped = -1, typed = 0;
  std::string untyped_text;
  for (const auto& x : tres) {
    if (x.type.empty()) {
      untyped = x.count;
      continue;
    }
    std::string m = model_of(x.type);
    std::string list;
    for (const auto& mm : models) list += (list.empty() ? "" : ", ") + mm;
    if (m.empty())
      return who + ": GrpTRES gres/gpu:" + x.type + ": no cells have GPU model '" + x.type +
             "' (models: " + (list.empty() ? "none" : list) + ")";
    want.push_back({m, x.count});
    typed += x.count;
  }
  if (untyped >= 0) {
    if (untyped < typed)
      return who + ": GrpTRES gres/gpu=" + std::to_string(untyped) +
             " is less than its typed limits (" + std::to_string(typed) + ")";
    long long rest = untyped - typed;
    std::vector<std::string> open;
    for (const auto& m : models) {
      bool has = false;
      for (const auto& w : want) has = has || w.first == m;
      if (!has) open.push_back(m);
    }
    if (rest > 0 && open.empty() && want.empty())
      return who + ": GrpTRES gres/gpu=" + std::to_string(untyped) +
             ": the cluster has no GPU cells";
    if (rest > 0 && open.size() > 1) {
      std::string list;
      for (const auto& m : open) list += (list.empty() ? "" : ", ") + m;
      return who + ": GrpTRES gres/gpu=" + std::to_string(untyped) +
             " does not say which GPU model (" + list + "); give gres/gpu:<model>=N for each";
    }
    if (rest > 0 && open.size() == 1) want.push_back({open[0], rest});
  }

  VcSpec vc;
  vc.name = account;
  vc.where = "sacctmgr." + account;
  std::map<std::string, size_t> slot;  // path -> index in vc.virtual_cells
  for (const auto& w : want) {
    long long left = w.second;
    // Every (chain, level) of the model, largest cells first.
    std::vector<std::pair<int, int>> cand;
    int64_t free_leaves = 0, total_leaves = 0;
    for (size_t c = 0; c < t.chains.size(); c++) {
      if (t.chains[c].leaf != w.first) continue;
      for (int l = t.chains[c].top_level(); l >= 1; l--) cand.push_back({static_cast<int>(c), l});
      free_leaves += t.chains[c].levels[1].free - need_at(t.chains[c], demand[c], 1);
      total_leaves += t.chains[c].levels[1].cells;
    }
    std::stable_sort(cand.begin(), cand.end(),
                     [&](const std::pair<int, int>& a, const std::pair<int, int>& b) {
                       return t.chains[a.first].levels[a.second].leaves >
                              t.chains[b.first].levels[b.second].leaves;
                     });
    for (const auto& cl : cand) {
      const ChainInfo& ch = t.chains[cl.first];
      ChainDemand& d = demand[cl.first];
      int64_t size = ch.levels[cl.second].leaves;
      int64_t k = left / size;
      // The engine's safety rule at this level and every level below it.
      for (int l = cl.second; l >= 1 && k > 0; l--) {
        int64_t per = size / ch.levels[l].leaves;
        int64_t room = ch.levels[l].free - need_at(ch, d, l);
        k = std::min(k, room > 0 ? room / per : 0);
      }
      if (k <= 0) continue;
      d.cells[cl.second] += k;
      left -= k * size;
      std::string path = path_of(ch, cl.second);
      auto it = slot.find(path);
      if (it == slot.end()) {
        VirtualCellSpec v;
        v.where = vc.where + ".virtualCells[" + std::to_string(vc.virtual_cells.size()) + "]";
        v.cell_type = path;
        slot[path] = vc.virtual_cells.size();
        vc.virtual_cells.push_back(v);
        it = slot.find(path);
      }
      vc.virtual_cells[it->second].count += static_cast<int>(k);
    }
    if (left > 0)
      return who + ": GrpTRES asks for " + std::to_string(w.second) + " " + w.first +
             " GPUs but only " + std::to_string(std::max<int64_t>(free_leaves, 0)) +
             " of the cluster's " + std::to_string(total_leaves) +
             " are not yet promised to other VCs (over-commit)";
  }
  *out = std::move(vc);
  return "";
}

}  // namespace topo
}  // namespace hived
