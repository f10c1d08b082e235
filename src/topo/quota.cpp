// SPDX-License-Identifier: GPL-2.0-or-later
#include "topo/quota.h"

#include <strings.h>

#include <algorithm>
#include <functional>
#include <map>

#include "topo/chain_table.h"
#include "topo/conf_lines.h"
#include "topo/mig.h"

namespace hived {
namespace topo {

Status parse_grptres_gpus(const std::string& grptres, std::vector<GpuTres>* out) {
  std::map<std::string, bool> seen;
  size_t start = 0;
  while (start <= grptres.size()) {
    size_t comma = grptres.find(',', start);
    std::string item =
        grptres.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? grptres.size() + 1 : comma + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string::npos) return config_error("GrpTRES: '" + item + "' is not TRES=count");
    std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    bool shard =
        strncasecmp(name.c_str(), "gres/shard", 10) == 0 && (name.size() == 10 || name[10] == ':');
    bool gpu =
        strncasecmp(name.c_str(), "gres/gpu", 8) == 0 && (name.size() == 8 || name[8] == ':');
    if (!shard && !gpu) continue;
    size_t base = shard ? 10 : 8;
    GpuTres t;
    t.shards = shard;
    t.type = name.size() > base ? name.substr(base + 1) : "";
    if (name.size() > base && t.type.empty())
      return config_error("GrpTRES: '" + item + "' has an empty GPU type");
    if (!parse_count(value, 100000000, &t.count))
      return config_error("GrpTRES: " + name + ": '" + value + "' is not a " +
                          (shard ? "shard" : "GPU") + " count");
    std::string key = (shard ? "/shard:" : "") + t.type;
    for (char& c : key) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
    if (seen[key]) return config_error("GrpTRES: " + name + " is given twice");
    seen[key] = true;
    out->push_back(t);
  }
  return Status::Ok();
}

namespace {

// What a limit asks of one model: GPUs, or shards (leaf cells of its fractional levels).
struct Want {
  std::string model;
  long long count = 0;
  bool shards = false;
};

// gres/shard:<model>=N for that model, gres/shard=N (minus the typed limits) for the one
// model with shards and no typed limit.
Status shard_wants(const std::vector<GpuTres>& tres, const std::vector<std::string>& sharded,
                   const std::function<std::string(const std::string&)>& model_of,
                   std::vector<Want>* want) {
  std::string list;
  for (const auto& m : sharded) list += (list.empty() ? "" : ", ") + m;
  long long total = -1, typed = 0;
  std::vector<std::string> named;
  for (const auto& x : tres) {
    if (!x.shards) continue;
    if (x.type.empty()) {
      total = x.count;
      continue;
    }
    std::string m = model_of(x.type);
    if (m.empty() || std::find(sharded.begin(), sharded.end(), m) == sharded.end())
      return config_error("GrpTRES gres/shard:" + x.type + ": GPU model '" + x.type +
                          "' has no shards (fractional cells); models with shards: " +
                          (list.empty() ? "none" : list));
    if (x.count > 0) want->push_back({m, x.count, true});
    typed += x.count;
    named.push_back(m);
  }
  if (total < 0) return Status::Ok();
  std::string what = "GrpTRES gres/shard=" + std::to_string(total);
  if (total < typed)
    return config_error(what + " is less than its typed limits (" + std::to_string(typed) + ")");
  std::vector<std::string> open;
  for (const auto& m : sharded)
    if (std::find(named.begin(), named.end(), m) == named.end()) open.push_back(m);
  if (total - typed == 0) return Status::Ok();
  if (open.empty())
    return config_error(what + ": " +
                        (sharded.empty() ? std::string("no GPU model has shards (fractional cells)")
                                         : "no model with shards is left for it"));
  if (open.size() > 1) {
    std::string o;
    for (const auto& m : open) o += (o.empty() ? "" : ", ") + m;
    return config_error(what + ": several GPU models have shards (" + o +
                        "): give gres/shard:<model>=N for each");
  }
  want->push_back({open[0], total - typed, true});
  return Status::Ok();
}

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

Status quota_to_vc(const ClusterSpec& spec, const std::string& account, const std::string& grptres,
                   VcSpec* out, std::vector<std::string>* warnings) {
  static_cast<void>(warnings);  // no limit warns today; kept for callers and new TRES
  std::string who = "account '" + account + "'";
  for (const auto& vc : spec.vcs)
    if (vc.name == account)
      return config_error(who + ": already has cells in hived.conf (" + vc.where + ")");
  std::vector<GpuTres> tres;
  Status err = parse_grptres_gpus(grptres, &tres);
  if (!err.ok()) return config_error(who + ": " + err.msg);
  ChainTable t;
  err = build_chain_table(spec, &t);
  if (!err.ok()) return config_error(who + ": " + err.msg);

  std::vector<ChainDemand> demand(t.chains.size());
  for (size_t c = 0; c < t.chains.size(); c++) demand[c].cells.assign(t.chains[c].levels.size(), 0);
  for (const auto& vc : spec.vcs)
    for (const auto& v : vc.virtual_cells) {
      int chain, level;
      err = resolve_cell_path(t, v.cell_type, &chain, &level);
      if (!err.ok()) return config_error(v.where + ".cellType: " + err.msg);
      demand[chain].cells[level] += v.count;
    }

  std::vector<std::string> models, sharded, profiles;
  for (const auto& ch : t.chains) {
    // A MIG profile is not a GPU model: only gres/gpu:<profile> asks for its slices.
    if (ch.mig) {
      if (std::find(profiles.begin(), profiles.end(), ch.model) == profiles.end())
        profiles.push_back(ch.model);
      continue;
    }
    if (std::find(models.begin(), models.end(), ch.model) == models.end())
      models.push_back(ch.model);
    if (ch.gpu_level > 1 && std::find(sharded.begin(), sharded.end(), ch.model) == sharded.end())
      sharded.push_back(ch.model);
  }
  auto model_of = [&](const std::string& type) -> std::string {
    for (const auto& m : models)
      if (strcasecmp(m.c_str(), type.c_str()) == 0) return m;
    return "";
  };

  // GPUs per model (shards: one entry, the model with fractional levels).
  std::vector<Want> want;
  long long untyped = -1, typed = 0, mig = 0;
  std::string untyped_text;
  for (const auto& x : tres) {
    if (x.shards) continue;  // below
    if (!x.type.empty() && is_mig_type(x.type)) {
      // Slices of that profile; Slurm counts each slice as one gres/gpu too.
      std::string p;
      for (const auto& q : profiles)
        if (strcasecmp(q.c_str(), x.type.c_str()) == 0) p = q;
      std::string list;
      for (const auto& q : profiles) list += (list.empty() ? "" : ", ") + q;
      if (p.empty())
        return config_error(who + ": GrpTRES gres/gpu:" + x.type +
                            ": no cells are MIG slices of profile '" + x.type +
                            "' (profiles: " + (list.empty() ? "none" : list) + ")");
      if (x.count > 0) want.push_back({p, x.count, false});
      mig += x.count;
      continue;
    }
    if (x.type.empty()) {
      untyped = x.count;
      continue;
    }
    std::string m = model_of(x.type);
    std::string list;
    for (const auto& mm : models) list += (list.empty() ? "" : ", ") + mm;
    if (m.empty())
      return config_error(who + ": GrpTRES gres/gpu:" + x.type + ": no cells have GPU model '" +
                          x.type + "' (models: " + (list.empty() ? "none" : list) + ")");
    want.push_back({m, x.count, false});
    typed += x.count;
  }
  if (untyped >= 0) {
    if (untyped < typed + mig)
      return config_error(who + ": GrpTRES gres/gpu=" + std::to_string(untyped) +
                          " is less than its typed limits (" + std::to_string(typed + mig) + ")");
    long long rest = untyped - typed - mig;
    std::vector<std::string> open;
    for (const auto& m : models) {
      bool has = false;
      for (const auto& w : want) has = has || (w.model == m && !w.shards);
      if (!has) open.push_back(m);
    }
    if (rest > 0 && open.empty() && want.empty())
      return config_error(who + ": GrpTRES gres/gpu=" + std::to_string(untyped) +
                          ": the cluster has no GPU cells");
    if (rest > 0 && open.size() > 1) {
      std::string list;
      for (const auto& m : open) list += (list.empty() ? "" : ", ") + m;
      return config_error(who + ": GrpTRES gres/gpu=" + std::to_string(untyped) +
                          " does not say which GPU model (" + list +
                          "); give gres/gpu:<model>=N for each");
    }
    if (rest > 0 && open.size() == 1) want.push_back({open[0], rest, false});
  }

  err = shard_wants(tres, sharded, model_of, &want);
  if (!err.ok()) return config_error(who + ": " + err.msg);

  VcSpec vc;
  vc.name = account;
  vc.where = "sacctmgr." + account;
  std::map<std::string, size_t> slot;  // path -> index in vc.virtual_cells
  for (const auto& w : want) {
    // In leaf cells: a shard is one, a GPU is as many as the chain splits it into.
    int64_t per_gpu = 1;
    for (const auto& ch : t.chains)
      if (ch.model == w.model) per_gpu = ch.leaves_per_gpu();
    long long left = w.shards ? w.count : w.count * per_gpu;
    // Every (chain, level) of the model, largest cells first: whole GPUs and above for a
    // GPU limit, fractions for a shard limit.
    std::vector<std::pair<int, int>> cand;
    int64_t free_leaves = 0, total_leaves = 0;
    for (size_t c = 0; c < t.chains.size(); c++) {
      const ChainInfo& ch = t.chains[c];
      if (ch.model != w.model) continue;
      int hi = w.shards ? ch.gpu_level - 1 : ch.top_level(), lo = w.shards ? 1 : ch.gpu_level;
      for (int l = hi; l >= lo; l--) cand.push_back({static_cast<int>(c), l});
      free_leaves += ch.levels[1].free - need_at(ch, demand[c], 1);
      total_leaves += ch.levels[1].cells;
    }
    // Of two cells of one size, the one on fewer nodes: a job of that size then fits
    // inside it at the best affinity (one 8-GPU node, not a rack of two 4-GPU nodes).
    auto nodes_of = [&](const std::pair<int, int>& cl) -> int64_t {
      const ChainInfo& ch = t.chains[cl.first];
      if (cl.second <= ch.node_level) return 1;
      return ch.levels[cl.second].leaves / ch.levels[ch.node_level].leaves;
    };
    std::stable_sort(cand.begin(), cand.end(),
                     [&](const std::pair<int, int>& a, const std::pair<int, int>& b) {
                       int64_t la = t.chains[a.first].levels[a.second].leaves;
                       int64_t lb = t.chains[b.first].levels[b.second].leaves;
                       if (la != lb) return la > lb;
                       return nodes_of(a) < nodes_of(b);
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
    if (left > 0) {
      int64_t unit = w.shards ? 1 : per_gpu;
      return config_error(who + ": GrpTRES asks for " + std::to_string(w.count) + " " + w.model +
                          (w.shards ? " shards" : " GPUs") + " but only " +
                          std::to_string(std::max<int64_t>(free_leaves, 0) / unit) +
                          " of the cluster's " + std::to_string(total_leaves / unit) +
                          " are not yet promised to other VCs (over-commit)");
    }
  }
  *out = std::move(vc);
  return Status::Ok();
}

}  // namespace topo
}  // namespace hived
