// SPDX-License-Identifier: GPL-2.0-or-later
// Status views (cluster, VC, job) and the snapshot of jobs, as JSON text.
#include <algorithm>

#include "core/engine.h"
#include "core/json_writer.h"

namespace hived {

// Doomed cells: unbound VC cells that the healthy free cells can no longer serve.
// Deficits are charged top level first, then to VCs without waiting jobs before VCs
// with some (a healthy free cell serves whoever asks first, so it is the waiting
// VC's to have), each group in configuration order, so the same state always dooms
// the same cells.
void Engine::DoomedPerVc(Doomed* doomed) const {
  doomed->assign(vcs_.size(), {});
  for (VcId v : vcs_.ids()) {
    (*doomed)[v].resize(vcs_[v].chains.size());
    for (size_t k = 0; k < vcs_[v].chains.size(); k++)
      (*doomed)[v][k].assign(chains_[vcs_[v].chains[k].chain].levels + 1, 0);
  }
  IdVector<VcId, uint8_t> waits(vcs_.size(), 0);
  for (const auto& [job, mark] : waiting_) waits[mark.vc] = 1;
  std::vector<VcId> order;
  for (int pass = 0; pass < 2; pass++)
    for (VcId v : vcs_.ids())
      if (waits[v] == pass) order.push_back(v);
  for (ChainId c : chains_.ids()) {
    const Chain& ch = chains_[c];
    std::vector<int64_t> doomed_at(ch.levels + 1, 0);
    for (int l = ch.levels; l >= 1; l--) {
      int64_t covered = 0;
      for (int j = l + 1; j <= ch.levels; j++)
        covered += doomed_at[j] * ch.desc[Level(j)][Level(l)];
      int64_t remaining = Demand(c, l) - Obtainable(c, l, true) - covered;
      for (size_t i = 0; i < order.size() && remaining > 0; i++)
        for (size_t k = 0; k < vcs_[order[i]].chains.size() && remaining > 0; k++) {
          const VcId v = order[i];
          const VcChain& vch = vcs_[v].chains[k];
          if (vch.chain != c) continue;
          int64_t unbound = 0;
          for (VCellId r : vch.roots)
            if (vcells_[r].level == l && vcells_[r].bound == kNone) unbound++;
          int64_t take = std::min(unbound, remaining);
          (*doomed)[v][k][l] += take;
          doomed_at[l] += take;
          remaining -= take;
        }
    }
  }
}

std::string Engine::VcJson(VcId v, const Doomed& doomed) const {
  const Vc& vc = vcs_[v];
  JsonOut j;
  j.Open('{').Key("vc").Val(vc.name).Key("cells").Open('[');
  for (size_t k = 0; k < vc.chains.size(); k++) {
    const VcChain& vch = vc.chains[k];
    const Chain& ch = chains_[vch.chain];
    for (int l = ch.levels; l >= 1; l--) {
      if (!vch.quota[Level(l)]) continue;
      int64_t bound = 0;
      for (VCellId r : vch.roots)
        if (vcells_[r].level == l && vcells_[r].bound != kNone) bound++;
      j.Open('{')
          .Key("chain")
          .Val(ch.top)
          .Key("cellType")
          .Val(ch.level_type[Level(l)])
          .Key("level")
          .Val(l);
      j.Key("total")
          .Val(vch.quota[Level(l)])
          .Key("bound")
          .Val(bound)
          .Key("doomed")
          .Val(doomed[v][k][l])
          .Close('}');
    }
  }
  j.Close(']');
  if (!vc.pinned.empty()) {
    j.Key("pinnedCells").Open('[');
    for (const auto& [id, r] : vc.pinned) {
      const VCell& root = vcells_[r];
      j.Open('{')
          .Key("pinnedCellId")
          .Val(id)
          .Key("cellType")
          .Val(chains_[root.chain].level_type[Level(root.level)]);
      j.Key("usedLeaves")
          .Val(static_cast<int64_t>(chains_[root.chain].desc[Level(root.level)][Level(1)] -
                                    root.vfree))
          .Close('}');
    }
    j.Close(']');
  }
  j.Key("usedLeaves").Val(vc.used_leaves).Key("opportunisticLeaves").Val(vc.opp_leaves);
  j.Key("demotedLeaves").Val(vc.demoted_leaves);
  std::vector<const Job*> mine;
  for (const auto& job : jobs_)
    if (job.live && job.vc == v) mine.push_back(&job);
  std::sort(mine.begin(), mine.end(), [](const Job* a, const Job* b) { return a->seq < b->seq; });
  j.Key("jobs").Open('[');
  for (const Job* job : mine) j.Val(job->name);
  j.Close(']').Close('}');
  return j.str();
}

std::string Engine::InspectCluster() const {
  Doomed doomed;
  DoomedPerVc(&doomed);
  JsonOut j;
  j.Open('{').Key("chains").Open('[');
  int64_t total = 0;
  for (const auto& ch : chains_) {
    j.Open('{')
        .Key("chain")
        .Val(ch.top)
        .Key("leafCellType")
        .Val(ch.leaf_type)
        .Key("levels")
        .Open('[');
    const int64_t tops = static_cast<int64_t>(ch.cells_at_level[Level(ch.levels)].size());
    std::vector<int64_t> bad_at(ch.levels + 1, 0);
    for (const PCell& p : pcells_)
      if (&chains_[p.chain] == &ch && p.bad) bad_at[p.level]++;
    for (int l = 1; l <= ch.levels; l++) {
      int64_t bad = bad_at[l];
      int64_t free_n =
          static_cast<int64_t>(ch.free_clean[Level(l)].size() + ch.free_busy[Level(l)].size() +
                               ch.free_bad[Level(l)].size());
      j.Open('{').Key("level").Val(l).Key("cellType").Val(ch.level_type[Level(l)]);
      j.Key("cells")
          .Val(tops * ch.desc[Level(ch.levels)][Level(l)])
          .Key("free")
          .Val(free_n)
          .Key("bad")
          .Val(bad)
          .Close('}');
    }
    total += tops * ch.desc[Level(ch.levels)][Level(1)];
    j.Close(']').Close('}');
  }
  j.Close(']');
  int64_t used = 0, opp = 0, njobs = 0;
  for (const auto& job : jobs_) {
    if (!job.live) continue;
    njobs++;
    for (const auto& p : job.Pods())
      (job.guaranteed() ? used : opp) += static_cast<int64_t>(p.leaves.size());
  }
  j.Key("totalLeaves").Val(total).Key("usedLeaves").Val(used).Key("opportunisticLeaves").Val(opp);
  j.Key("badNodes").Open('[');
  for (size_t n = 0; n < node_names_.size(); n++)
    if (node_bad_[n]) j.Val(node_names_[n]);
  j.Close(']').Key("jobs").Val(njobs).Key("vcs").Open('[');
  for (VcId v : vcs_.ids()) j.Raw(VcJson(v, doomed));
  j.Close(']').Close('}');
  return j.str();
}

std::string Engine::InspectTopology() const {
  JsonOut j;
  j.Open('{').Key("nodes").Open('[');
  for (size_t n = 0; n < node_names_.size(); n++)
    for (PCellId nc : node_cells_[n]) {
      const Chain& ch = chains_[pcells_[nc].chain];
      j.Open('{')
          .Key("node")
          .Val(node_names_[n])
          .Key("chain")
          .Val(ch.top)
          .Key("bad")
          .Bool(node_bad_[n] != 0);
      std::vector<PCellId> above;
      for (PCellId a = pcells_[nc].parent; a != kNone; a = pcells_[a].parent) above.push_back(a);
      j.Key("above").Open('[');
      for (size_t k = above.size(); k-- > 0;) {
        const PCell& a = pcells_[above[k]];
        j.Open('{').Key("cellType").Val(ch.level_type[Level(a.level)]);
        j.Key("address").Val(a.addr >= 0 ? addresses_[a.addr]
                                         : ch.level_type[Level(a.level)] + "#" +
                                               std::to_string(above[k].v));
        j.Close('}');
      }
      j.Close(']').Key("gpus").Open('[');
      std::vector<PCellId> leaves;
      LeavesUnder(nc, &leaves);
      for (PCellId l : leaves) {
        const PCell& p = pcells_[l];
        j.Open('{').Key("gpu").Val(p.addr).Key("groups").Open('[');
        std::vector<PCellId> path;
        // Groups are the levels between the node and the GPU; fractions go by slot.
        for (PCellId a = p.parent; a != nc && a != kNone; a = pcells_[a].parent)
          if (pcells_[a].level > ch.gpu_level) path.push_back(a);
        for (size_t k = path.size(); k-- > 0;) {
          const PCell& a = pcells_[path[k]];
          j.Open('{')
              .Key("cellType")
              .Val(ch.level_type[Level(a.level)])
              .Key("index")
              .Val(path[k] - pcells_[a.parent].first_child)
              .Close('}');
        }
        j.Close(']');
        if (ch.gpu_level > 1) j.Key("fraction").Val(LeafSlot(l));
        std::string vc;
        for (PCellId a = l; a != kNone; a = pcells_[a].parent)
          if (pcells_[a].bound != kNone) {
            vc = vcs_[vcells_[pcells_[a].bound].vc].name;
            break;
          }
        std::string job, cls;
        if (p.job >= 0) {
          job = jobs_[p.job].name;
          cls = jobs_[p.job].guaranteed() ? "guaranteed" : "opportunistic";
        }
        j.Key("vc")
            .Val(vc)
            .Key("job")
            .Val(job)
            .Key("class")
            .Val(cls)
            .Key("bad")
            .Bool(p.bad != 0)
            .Close('}');
      }
      j.Close(']').Close('}');
    }
  j.Close(']').Close('}');
  return j.str();
}

Status Engine::InspectVc(const std::string& vc, std::string* json) const {
  auto it = vc_index_.find(vc);
  if (it == vc_index_.end()) return Status::Err(Code::kNoEnt, "vc: unknown VC '" + vc + "'");
  Doomed doomed;
  DoomedPerVc(&doomed);
  *json = VcJson(it->second, doomed);
  return Status::Ok();
}

namespace {
// "fractions" only for a pod holding part of a GPU: slots of its one GPU.
void PlacedPodJson(JsonOut& j, const std::string& node, const PlacedPod& p) {
  j.Open('{').Key("node").Val(node).Key("leaves").Open('[');
  for (int32_t g : p.gpus) j.Val(g);
  j.Close(']');
  if (!p.fractions.empty()) {
    j.Key("fractions").Open('[');
    for (int32_t f : p.fractions) j.Val(f);
    j.Close(']');
  }
  j.Close('}');
}
}  // namespace

Status Engine::InspectJob(const std::string& name, std::string* json) const {
  const int slot = jobs_.Find(name);
  if (slot < 0) return Status::Err(Code::kNoEnt, "job: unknown job '" + name + "'");
  const Job& job = jobs_[slot];
  JsonOut j;
  j.Open('{').Key("job").Val(job.name).Key("vc").Val(job.vc.valid() ? vcs_[job.vc].name : "");
  j.Key("priority")
      .Val(job.priority.v)
      .Key("class")
      .Val(job.guaranteed() ? "guaranteed" : "opportunistic");
  j.Key("lazyPreempted").Bool(job.demoted);
  // Who took its guarantee: a job (lazy preemption), the config (a reload, recovery), or
  // nobody: it started outside its VC's cells (Request::borrow_idle).
  if (job.demoted)
    j.Key("demotedBy")
        .Val(job.demoted_by_config ? "config"
             : job.borrowed        ? "borrow"
                                   : "preemption");
  if (!job.vc.valid() && job.vc_name != 0) j.Key("askedVc").Val(jobs_.Str(job.vc_name));
  j.Key("placement").Open('[');
  for (const auto& p : job.Pods())
    PlacedPodJson(j, node_names_[pcells_[p.leaves[0]].node], PodPlacement(p));
  j.Close(']').Close('}');
  *json = j.str();
  return Status::Ok();
}

std::string Engine::SnapshotState() const {
  JsonOut j;
  j.Open('{').Key("badNodes").Open('[');
  for (size_t n = 0; n < node_names_.size(); n++)
    if (node_bad_[n]) j.Val(node_names_[n]);
  j.Close(']').Key("jobs").Open('[');
  for (const RunningJob& rj : RunningJobs()) {
    j.Open('{')
        .Key("job")
        .Val(rj.req.job)
        .Key("vc")
        .Val(rj.req.vc)
        .Key("priority")
        .Val(rj.req.priority);
    j.Key("lazyPreemptionEnable").Bool(rj.req.lazy).Key("demoted").Bool(rj.demoted);
    if (rj.demoted_by_config) j.Key("demotedByConfig").Bool(true);
    if (rj.borrowed) j.Key("borrowed").Bool(true);
    j.Key("pinnedCellId").Val(rj.req.pinned_id).Key("leafCellType").Val(rj.req.leaf_type);
    j.Key("seq").Val(static_cast<uint64_t>(rj.seq)).Key("placement").Open('[');
    for (const auto& p : rj.pods) PlacedPodJson(j, node_names_[p.node], p);
    j.Close(']').Key("vleaves").Open('[');
    for (VCellId v : rj.vleaves) j.Val(v.v);
    j.Close(']').Close('}');
  }
  j.Close(']').Key("waiting").Open('[');
  for (const auto& w : WaitingJobs())
    j.Open('{')
        .Key("job")
        .Val(w.job)
        .Key("vc")
        .Val(w.vc)
        .Key("priority")
        .Val(w.priority)
        .Close('}');
  j.Close(']').Close('}');
  return j.str();
}

}  // namespace hived
