// SPDX-License-Identifier: GPL-2.0-or-later
// Job decisions: validate, place guaranteed jobs in their VC's cells (preempting lower
// priority and opportunistic jobs if needed), place opportunistic jobs on idle cells,
// release, recover running jobs, and node health.
#include <algorithm>
#include <map>

#include "core/engine.h"

namespace hived {

namespace {

std::string GpuList(const std::vector<int32_t>& gpus) {
  std::string s;
  for (int32_t g : gpus) s += (s.empty() ? "" : ",") + std::to_string(g);
  return s;
}

}  // namespace

// Leaf cells a request needs, the fewest over the chains it may use.
int64_t Engine::ShapedNeed(const Request& req, const std::vector<int>& chains) const {
  int64_t best = -1;
  for (int c : chains) {
    Request shaped;
    std::string why;
    if (!ShapeFor(req, c, &shaped, &why)) continue;
    int64_t n = 0;
    for (const auto& m : shaped.members) n += int64_t{m.pods} * m.leaves;
    if (best < 0 || n < best) best = n;
  }
  return best < 0 ? 0 : best;
}

// What the chains' leaf cells are, for messages: GPUs, or the smallest fraction's type.
std::string Engine::LeafWord(const std::vector<int>& chains) const {
  for (int c : chains) {
    if (chains_[c].gpu_level > 1) return "'" + chains_[c].level_type[1] + "' fractions";
    if (chains_[c].mig) return "'" + chains_[c].leaf_type + "' MIG slices";
  }
  return "GPUs";
}

Status Engine::Validate(const Request& req, std::vector<int>* chains, Decision* d) const {
  auto inval = [](const std::string& m) { return Status::Err(Code::kInval, m); };
  if (req.job.empty()) return inval("job: must be a non-empty name");
  if (jobs_.Find(req.job) >= 0)
    return Status::Err(Code::kExist, "job: '" + req.job + "' already exists");
  if (req.priority < -1 || req.priority > 1000)
    return inval("priority: must be -1 (opportunistic) or 0..1000, got " +
                 std::to_string(req.priority));
  if (req.members.empty()) return inval("members: at least one member is needed");
  int64_t total = 0, pods = 0;
  const int fractions = req.members[0].fractions;
  for (size_t i = 0; i < req.members.size(); i++) {
    const auto& m = req.members[i];
    std::string w = "members[" + std::to_string(i) + "]";
    if (m.pods < 1 || m.pods > 100000) return inval(w + ".podNumber: must be 1..100000");
    if (m.fractions < 0 || m.fractions > 100000)
      return inval(w + ".fractionNumber: must be 1..100000 (or absent for whole GPUs)");
    if (m.fractions > 0 && m.leaves != 0)
      return inval(w + ": give leafCellNumber (whole GPUs) or fractionNumber (fractions of one " +
                   "GPU), not both");
    if (m.fractions == 0 && (m.leaves < 1 || m.leaves > 100000))
      return inval(w + ".leafCellNumber: must be 1..100000");
    // One grain per job: its pods are all whole GPUs or all the same fraction.
    if (m.fractions != fractions)
      return inval(w + ": every member of a job must ask for whole GPUs, or all for the same " +
                   "fractionNumber");
    total += int64_t{m.pods} * (m.fractions ? 1 : m.leaves);
    pods += m.pods;
  }
  if (total > (int64_t{1} << 24)) return inval("members: more than 16M GPUs requested");
  if (!req.allowed.empty() && req.allowed.size() != node_names_.size())
    return inval("allowedNodes: must cover every node");
  int vc = -1;
  if (!req.vc.empty()) {
    auto it = vc_index_.find(req.vc);
    if (it == vc_index_.end()) return Status::Err(Code::kNoEnt, "vc: unknown VC '" + req.vc + "'");
    vc = it->second;
  } else if (req.priority >= 0) {
    return inval("vc: a guaranteed job needs a VC");
  }
  if (!req.leaf_type.empty()) {
    bool known = false;
    for (const auto& ch : chains_) known |= ch.leaf_type == req.leaf_type;
    if (!known)
      return Status::Err(Code::kNoEnt, "leafCellType: unknown GPU model '" + req.leaf_type + "'");
  }
  if (!req.within_type.empty() && !type_index_.count(req.within_type)) {
    bool leaf = false;
    for (const auto& ch : chains_) leaf |= ch.leaf_type == req.within_type;
    if (!leaf)
      return Status::Err(Code::kNoEnt,
                         "withinCellType: unknown cell type '" + req.within_type + "'");
  }
  if (!req.pod_within_type.empty() && !type_index_.count(req.pod_within_type))
    return Status::Err(Code::kNoEnt,
                       "podWithinCellType: unknown cell type '" + req.pod_within_type + "'");
  std::string shape_why;
  auto chain_fits = [&](int c) {
    const Chain& ch = chains_[c];
    if (!req.leaf_type.empty() && ch.leaf_type != req.leaf_type) return false;
    // A MIG slice is not a GPU: only a request naming its profile gets one.
    if (ch.mig && req.leaf_type.empty()) return false;
    Request shaped;
    if (!ShapeFor(req, c, &shaped, &shape_why)) return false;
    if (!req.within_type.empty()) {
      bool has = false;
      for (int l = 1; l <= ch.levels; l++) has |= ch.level_type[l] == req.within_type;
      if (!has) return false;
    }
    return true;
  };
  d->outcome = Outcome::kRejected;
  if (!req.pinned_id.empty()) {
    if (req.priority < 0)
      return inval("pinnedCellId: an opportunistic job cannot ask for a pinned cell");
    CellId root = kNone;
    for (const auto& [id, r] : vcs_[vc].pinned)
      if (id == req.pinned_id) root = r;
    if (root == kNone)
      return Status::Err(Code::kNoEnt, "pinnedCellId: '" + req.pinned_id +
                                           "' is not a pinned cell of VC '" + req.vc + "'");
    if (chain_fits(vcells_[root].chain)) chains->push_back(vcells_[root].chain);
  } else if (req.priority >= 0) {
    for (const auto& vch : vcs_[vc].chains)
      if (chain_fits(vch.chain)) chains->push_back(vch.chain);
  } else {
    for (size_t c = 0; c < chains_.size(); c++)
      if (chain_fits(static_cast<int>(c))) chains->push_back(static_cast<int>(c));
  }
  if (chains->empty()) {
    if (!shape_why.empty()) {
      d->reason = shape_why;
      return Status::Ok();
    }
    d->reason = req.priority >= 0
                    ? "VC '" + req.vc + "' has no cells of that GPU model and cell type"
                    : "the cluster has no cells of that GPU model and cell type";
    return Status::Ok();
  }
  // Shapes that can never fit are rejected rather than left waiting forever; a
  // guaranteed job that the cluster could hold but its VC's cells cannot waits, since
  // a VC's cells follow its quota (sacctmgr GrpTRES) and can grow at run time.
  // Counts in a chain with fractional levels are in its smallest fractions.
  const std::string unit = LeafWord(*chains);
  bool any = false, pod_too_big = false, vc_too_small = false;
  int max_pod = 0;
  int64_t vc_cap = 0, vc_unit = 0;
  // Counted in leaf cells: GPUs, or in a chain with fractional levels its smallest
  // fractions (a whole GPU is all of them).
  for (int c : *chains) {
    const Chain& ch = chains_[c];
    Request shaped;
    std::string why;
    ShapeFor(req, c, &shaped, &why);
    max_pod = 0;
    total = 0;
    for (const auto& m : shaped.members) {
      max_pod = std::max(max_pod, m.leaves);
      total += int64_t{m.pods} * m.leaves;
    }
    int64_t unit = ch.desc[ch.node_level][1];
    if (!req.within_type.empty()) {
      int64_t within_leaves = 0;
      for (int l = 1; l <= ch.levels; l++)
        if (ch.level_type[l] == req.within_type) within_leaves = ch.desc[l][1];
      if (total > within_leaves) continue;  // the whole job must fit one such cell
    }
    if (!req.pod_within_type.empty()) {
      int64_t pod_leaves = -1;
      for (int l = 1; l <= ch.levels; l++)
        if (ch.level_type[l] == req.pod_within_type) pod_leaves = ch.desc[l][1];
      if (max_pod > pod_leaves) {  // each pod must fit one such cell
        pod_too_big = true;
        continue;
      }
    }
    const int64_t chain_cap =
        ch.desc[ch.levels][1] * static_cast<int64_t>(ch.cells_at_level[ch.levels].size());
    int64_t cap = 0;
    if (req.priority >= 0 && req.pinned_id.empty()) {
      for (const auto& vch : vcs_[vc].chains)
        if (vch.chain == c) cap = vch.leaves;
      // A VC cell below node level is a unit of its own size.
      int64_t biggest = 0;
      for (const auto& vch : vcs_[vc].chains)
        if (vch.chain == c)
          for (int l = 1; l <= ch.levels; l++)
            if (vch.quota[l]) biggest = std::max(biggest, ch.desc[std::min(l, ch.node_level)][1]);
      if (max_pod <= unit && total <= chain_cap && (max_pod > biggest || total > cap)) {
        vc_too_small = true;
        vc_cap = std::max(vc_cap, cap);
        vc_unit = std::max(vc_unit, biggest);
      }
      unit = biggest;
    } else if (req.priority >= 0) {
      for (const auto& [id, r] : vcs_[vc].pinned)
        if (id == req.pinned_id) cap = chains_[vcells_[r].chain].desc[vcells_[r].level][1];
      unit = std::min(unit, cap);
    } else {
      cap = chain_cap;
    }
    if (max_pod <= unit && total <= cap) any = true;
  }
  if (!any && vc_too_small) {
    d->outcome = Outcome::kWaiting;
    d->wait = Wait::kVcTooSmall;
    d->reason = "VC '" + req.vc + "' is too small for the job: it needs " + std::to_string(total) +
                " " + unit + " (largest pod " + std::to_string(max_pod) +
                "), the VC's cells hold " + std::to_string(vc_cap) + " (pods of at most " +
                std::to_string(vc_unit) + "); it waits until the VC's quota grows";
    return Status::Ok();
  }
  if (!any && pod_too_big) {
    d->reason = "a pod of " + std::to_string(max_pod) + " " + unit + " cannot fit inside one " +
                req.pod_within_type + " cell";
    return Status::Ok();
  }
  if (!any) {
    d->reason = req.priority >= 0
                    ? "the job needs " + std::to_string(total) + " " + unit + " (largest pod " +
                          std::to_string(max_pod) + ") which VC '" + req.vc + "' can never hold"
                    : "the job needs more GPUs per pod or in total than the cluster has";
    return Status::Ok();
  }
  d->outcome = Outcome::kWaiting;
  return Status::Ok();
}

// The cell of GPU index `gpu` on `node`: a leaf, or the GPU-level cell of a chain with
// fractional levels.
CellId Engine::FindGpuCell(int32_t node, int32_t gpu, int chain) const {
  if (node < 0 || static_cast<size_t>(node) >= node_cells_.size()) return kNone;
  for (CellId nc : node_cells_[node]) {
    if (chain >= 0 && pcells_[nc].chain != chain) continue;
    std::vector<CellId> stack{nc};
    while (!stack.empty()) {
      CellId c = stack.back();
      stack.pop_back();
      const PCell& p = pcells_[c];
      if (p.level == chains_[p.chain].gpu_level) {
        if (p.addr == gpu) return c;
        continue;
      }
      for (int k = 0; k < chains_[p.chain].level_children[p.level]; k++)
        stack.push_back(p.first_child + k);
    }
  }
  return kNone;
}

void Engine::ReleaseJob(int slot, Job* taken) {
  Job& j = jobs_[slot];
  if (j.guaranteed())
    for (CellId v : j.Vleaves()) {
      ClearVleafJob(v);
      UnbindUp(v);
    }
  if (j.vc >= 0) (j.guaranteed() ? vcs_[j.vc].used_leaves : vcs_[j.vc].opp_leaves) -= j.leaf_count;
  for (CellId l : j.Leaves()) ClearLeafJob(l, !j.guaranteed());
  jobs_.Free(slot, taken);
  FlushIndexes();
}

bool Engine::Reinstate(Job record) {
  int slot = jobs_.NewSlot();
  jobs_[slot] = std::move(record);
  Job& j = jobs_[slot];
  j.live = true;
  jobs_.Index(slot);
  bool ok = true;
  const CellSpan leaves = j.Leaves(), vleaves = j.Vleaves();
  for (size_t i = 0; i < leaves.size(); i++) {
    if (j.guaranteed()) {
      ok &= BindExact(vleaves[i], leaves[i]);
      SetVleafJob(vleaves[i], slot);
    }
    SetLeafJob(leaves[i], slot, !j.guaranteed());
  }
  if (j.vc >= 0) (j.guaranteed() ? vcs_[j.vc].used_leaves : vcs_[j.vc].opp_leaves) += j.leaf_count;
  FlushIndexes();
  return ok;
}

void Engine::Rollback(int slot, const std::vector<Job>& undo) {
  if (slot >= 0) ReleaseJob(slot);
  for (const Job& v : undo) {
    const int s = jobs_.Find(v.name);
    if (s >= 0) ReleaseJob(s);
  }
  // Guaranteed victims first: they need their exact bindings back.
  for (int pass = 0; pass < 2; pass++)
    for (const Job& v : undo)
      if (v.guaranteed() == (pass == 0)) Reinstate(v);
}

// The levels of the smallest physical cells holding each pod of a placed job, then
// the whole job (top level + 1 when it spans top-level cells): how compact it is.
std::vector<int> Engine::Spans(int slot) const {
  const Job& j = jobs_[slot];
  const int above_top = chains_[j.chain].levels + 1;
  // Smallest cell holding a and b; kNone when they share no cell.
  auto join = [&](CellId a, CellId b) {
    while (pcells_[a].level < pcells_[b].level) a = pcells_[a].parent;
    while (pcells_[b].level < pcells_[a].level) b = pcells_[b].parent;
    while (a != b && a != kNone) {
      a = pcells_[a].parent;
      b = pcells_[b].parent;
    }
    return a;
  };
  std::vector<int> out;
  CellId all = kNone;
  bool apart = false;
  for (const auto& pod : j.Pods()) {
    CellId c = pod.leaves[0];
    for (CellId l : pod.leaves)
      if (c != kNone) c = join(c, l);
    out.push_back(c == kNone ? above_top : pcells_[c].level);
    if (c == kNone || apart) {
      apart = true;
      continue;
    }
    all = all == kNone ? c : join(all, c);
    apart = all == kNone;
  }
  out.push_back(apart ? above_top : pcells_[all].level);
  return out;
}

// The job was committed onto GPUs that opportunistic jobs run on (vleaves `first`).
// A guaranteed job preempts only when no free cell of its VC's shape can be bound: a
// placement on idle GPUs of the VC's cells is taken instead if one binds without
// victims and keeps every pod (and the gang) inside cells as small as `first` did;
// otherwise `first` is committed again.
bool Engine::CommitWithoutVictims(const Request& req, int vc, int chain, CellId pinned_root,
                                  const std::vector<CellId>& first, Decision* d,
                                  std::vector<Job>* undo, int* slot) {
  const std::vector<int> shape = Spans(*slot);
  Rollback(*slot, *undo);
  // Pods as compact as in `first`: inside one cell of its widest pod's level below the node.
  Request r = req;
  const Chain& ch = chains_[chain];
  const int widest = *std::max_element(shape.begin(), shape.end() - 1);
  if (r.pod_within_type.empty() && widest > 1 && widest < ch.node_level)
    r.pod_within_type = ch.level_type[widest];
  std::vector<CellId> idle;
  if (PlaceVirtual(r, vc, chain, pinned_root, false, &idle, /*idle_only=*/true)) {
    Decision a;
    undo->clear();
    bool ok = CommitGuaranteed(r, vc, chain, idle, &a, undo, slot) && a.preempted.empty();
    if (ok) {
      std::vector<int> span = Spans(*slot);
      for (size_t i = 0; i < span.size(); i++) ok &= span[i] <= shape[i];
    }
    if (ok) {
      *d = std::move(a);
      return true;
    }
    Rollback(*slot, *undo);
  }
  *d = Decision();
  undo->clear();
  return CommitGuaranteed(req, vc, chain, first, d, undo, slot);
}

namespace {
std::vector<Pod> SplitPods(const Request& req, const std::vector<CellId>& leaves,
                           const std::vector<PCell>& pcells) {
  std::vector<Pod> pods;
  size_t i = 0;
  for (const auto& m : req.members)
    for (int k = 0; k < m.pods; k++) {
      Pod p;
      for (int x = 0; x < m.leaves; x++) p.leaves.push_back(leaves[i++]);
      p.node = pcells[p.leaves[0]].node;
      pods.push_back(std::move(p));
    }
  return pods;
}
}  // namespace

// Victims among the VC's own jobs are those whose virtual leaves the placement took;
// opportunistic victims are those on the physical leaves the binding lands on.
bool Engine::CommitGuaranteed(const Request& in, int vc, int chain,
                              const std::vector<CellId>& vleaves, Decision* d,
                              std::vector<Job>* undo, int* slot_out) {
  Request req;
  std::string why;
  *slot_out = -1;
  // Exactly one virtual leaf per leaf the shaped request's pods need: anything else
  // is refused before any job is touched (SplitPods would read past the list).
  if (!ShapeFor(in, chain, &req, &why)) return false;
  size_t need = 0;
  for (const auto& m : req.members) need += static_cast<size_t>(m.pods) * m.leaves;
  if (need != vleaves.size()) return false;
  std::vector<int> vvictims;
  for (CellId v : vleaves) {
    int j = vcells_[v].job;
    if (j >= 0 && std::find(vvictims.begin(), vvictims.end(), j) == vvictims.end())
      vvictims.push_back(j);
  }
  for (int s : vvictims) undo->push_back(jobs_[s]);
  for (int s : vvictims) {
    Job& j = jobs_[s];
    if (!j.lazy) {
      d->preempted.push_back(j.name);
      ReleaseJob(s);
      continue;
    }
    // Demote: give back the virtual cells, keep running on the physical ones.
    d->lazy_preempted.push_back(j.name);
    for (CellId v : j.Vleaves()) {
      ClearVleafJob(v);
      UnbindUp(v);
    }
    j.ClearVleaves();
    for (CellId l : j.Leaves()) {
      ClearLeafJob(l, false);
      SetLeafJob(l, s, true);
    }
    vcs_[vc].used_leaves -= j.leaf_count;
    vcs_[vc].opp_leaves += j.leaf_count;
    j.priority = -1;
    j.demoted = true;
  }
  int slot = jobs_.NewSlot();
  *slot_out = slot;
  Job& job = jobs_[slot];
  job.name = req.job;
  job.vc = vc;
  job.vc_name = jobs_.Intern(req.vc);
  job.priority = job.original_priority = req.priority;
  job.lazy = req.lazy;
  job.chain = chain;
  job.pinned_id = jobs_.Intern(req.pinned_id);
  job.leaf_type = jobs_.Intern(req.leaf_type);
  job.grain = req.grain;
  job.seq = jobs_.next_seq++;
  job.live = true;
  jobs_.Index(slot);
  std::vector<CellId> pleaves;
  bool ok = true;
  // Pods bind near each other: inside the cell just above the node of the first one,
  // or of a rack chosen up front with room for them all.
  CellId near = GangRack(chain, vleaves, req.allowed);
  // Distinct nodes: a pod's unbound cells bind off the nodes earlier pods took, so two
  // VC cells below the node size (two sockets) do not land on one node.
  std::vector<int> pod_of;  // pod index of each virtual leaf, request order
  for (const auto& m : req.members)
    for (int k = 0; k < m.pods; k++) {
      int pod = pod_of.empty() ? 0 : pod_of.back() + 1;
      pod_of.insert(pod_of.end(), m.leaves, pod);
    }
  std::vector<uint8_t> pod_allowed = req.allowed;
  if (req.distinct_nodes && pod_allowed.empty()) pod_allowed.assign(node_bad_.size(), 1);
  for (size_t i = 0; i < vleaves.size(); i++) {
    CellId v = vleaves[i];
    const std::vector<uint8_t>& allowed = req.distinct_nodes ? pod_allowed : req.allowed;
    CellId p = vcells_[v].bound != kNone ? vcells_[v].bound : BindDown(v, allowed, near);
    if (p != kNone && near == kNone) {
      int above = chains_[chain].node_level + 1;
      CellId a = p;
      while (a != kNone && pcells_[a].level < above) a = pcells_[a].parent;
      near = a;
    }
    if (p == kNone) {
      ok = false;
      break;
    }
    jobs_[slot].AddVleaf(v);
    SetVleafJob(v, slot);
    pleaves.push_back(p);
    if (req.distinct_nodes && (i + 1 == vleaves.size() || pod_of[i + 1] != pod_of[i]))
      for (size_t k = i + 1; k-- > 0 && pod_of[k] == pod_of[i];)
        if (pcells_[pleaves[k]].node >= 0) pod_allowed[pcells_[pleaves[k]].node] = 0;
  }
  std::vector<int32_t> nodes;
  for (size_t i = 0; ok && i < pleaves.size(); i++) {
    const PCell& p = pcells_[pleaves[i]];
    if (p.bad || (!req.allowed.empty() && !req.allowed[p.node])) ok = false;
    if (p.job >= 0 && jobs_[p.job].guaranteed())
      ok = false;  // cannot happen while bindings are exclusive
  }
  if (ok && !req.within_type.empty()) {
    // Every GPU inside one physical cell of the asked type.
    const Chain& ch = chains_[chain];
    int wl = 0;
    for (int l = 1; l <= ch.levels; l++)
      if (ch.level_type[l] == req.within_type) wl = l;
    CellId common = kNone;
    for (CellId p : pleaves) {
      CellId a = p;
      while (a != kNone && pcells_[a].level < wl) a = pcells_[a].parent;
      if (common == kNone) common = a;
      if (a != common) ok = false;
    }
  }
  if (ok && !req.pod_within_type.empty()) {
    // Each pod inside one physical cell of the asked type.
    const Chain& ch = chains_[chain];
    int pl = 0;
    for (int l = 1; l < ch.node_level; l++)
      if (ch.level_type[l] == req.pod_within_type) pl = l;
    for (const auto& pod : pl ? SplitPods(req, pleaves, pcells_) : std::vector<Pod>{}) {
      CellId common = kNone;
      for (CellId p : pod.leaves) {
        CellId a = p;
        while (a != kNone && pcells_[a].level < pl) a = pcells_[a].parent;
        if (common == kNone) common = a;
        if (a != common) ok = false;
      }
    }
  }
  if (ok && req.distinct_nodes) {
    std::vector<Pod> pods = SplitPods(req, pleaves, pcells_);
    for (const auto& p : pods) {
      if (std::find(nodes.begin(), nodes.end(), p.node) != nodes.end()) ok = false;
      nodes.push_back(p.node);
    }
  }
  if (!ok) {
    d->preempted.clear();
    d->lazy_preempted.clear();
    FlushIndexes();
    return false;
  }
  std::vector<int> ovictims;
  for (CellId p : pleaves) {
    int j = pcells_[p].job;
    if (j >= 0 && std::find(ovictims.begin(), ovictims.end(), j) == ovictims.end())
      ovictims.push_back(j);
  }
  for (int s : ovictims) {
    const std::string& name = jobs_[s].name;
    auto lz = std::find(d->lazy_preempted.begin(), d->lazy_preempted.end(), name);
    if (lz != d->lazy_preempted.end()) {
      d->lazy_preempted.erase(lz);  // demoted, then its GPUs were needed after all
    } else {
      undo->push_back(jobs_[s]);
    }
    d->preempted.push_back(name);
    ReleaseJob(s);
  }
  Job& jb = jobs_[slot];
  jb.SetPods(SplitPods(req, pleaves, pcells_));
  for (CellId p : pleaves) SetLeafJob(p, slot, false);
  vcs_[vc].used_leaves += static_cast<int64_t>(pleaves.size());
  FlushIndexes();
  return true;
}

void Engine::FillDecisionPods(const Job& j, Decision* d) const {
  d->pods.clear();
  for (const auto& p : j.Pods()) d->pods.push_back(PodPlacement(p));
}

// Why a guaranteed job that could not be placed waits, naming the first cause that
// explains it: cells bound to unusable GPUs, free cells only on nodes the job may
// not use, cells held by jobs it may not preempt, too few free GPUs, or their shape.
void Engine::WaitReason(const Request& req, int vc, CellId pinned_root,
                        const std::vector<int>& chains, bool found_virtual, Decision* d) const {
  int64_t need = ShapedNeed(req, chains);
  const std::string unit = LeafWord(chains);
  const std::string where = pinned_root != kNone
                                ? "VC '" + req.vc + "' pinned cell '" + req.pinned_id + "'"
                                : "VC '" + req.vc + "'";
  const int64_t free_v = pinned_root != kNone ? vcells_[pinned_root].vfree : vcs_[vc].free_leaves;
  // Shard jobs: which cell type they wait for, and which the VC owns.
  const std::string shape = FractionalNeedText(req, vc, chains);
  auto fits_if = [&](const Request& r, bool preempt) {
    std::vector<CellId> vleaves;
    for (int c : chains)
      if (PlaceVirtual(r, vc, c, pinned_root, preempt, &vleaves)) return true;
    return false;
  };
  if (found_virtual) {
    d->wait = Wait::kNoCell;
    d->reason = where +
                " has the cells but no healthy, allowed physical GPUs of that shape are bound to "
                "them";
    return;
  }
  if (!req.allowed.empty()) {
    Request anywhere = req;
    anywhere.allowed.clear();
    if (fits_if(anywhere, false)) {
      d->wait = Wait::kNoCell;
      d->reason = where + " has free cells for the job only on nodes it may not use (" +
                  "its allowed nodes: partition, -w/-x, features)";
      return;
    }
  }
  Request above_all = req;
  above_all.priority = 1001;  // above every guaranteed priority: the VC's jobs all count as free
  const bool held = fits_if(above_all, true);
  if (held && pinned_root == kNone && free_v >= need) {
    // Enough free GPUs, scattered: the shape is the cause. Jobs of any priority
    // split the cells; the job would wait the same behind lower ones it may not
    // preempt for want of their GPUs.
    d->wait = Wait::kNoCell;
    d->reason = where + " has " + std::to_string(free_v) + " free " + unit +
                " but not in cells of that shape (the job needs " + std::to_string(need) + shape +
                "; the cells it fits are partly held by the VC's jobs of priority " +
                std::to_string(req.priority) + " or higher)";
    return;
  }
  if (held && pinned_root != kNone) {
    d->wait = Wait::kPriority;
    d->reason = where + " has " + std::to_string(free_v) + " free " + unit + ", the job needs " +
                std::to_string(need) + " in that shape" + shape +
                "; the cells it fits are held by jobs of priority " + std::to_string(req.priority) +
                " or higher, which it may not preempt";
    return;
  }
  if (free_v < need) {
    d->wait = Wait::kVcQuota;
    d->reason = where + " quota is in use: " + std::to_string(free_v) + " free " + unit +
                " in its cells, the job needs " + std::to_string(need) + shape;
    return;
  }
  d->wait = Wait::kNoCell;
  d->reason = where + " has " + std::to_string(free_v) + " free " + unit +
              " but not in cells of that shape" + shape;
}

Status Engine::Submit(const Request& req, bool dry_run, Decision* out) {
  Decision d;
  std::vector<int> chains;
  Status st = Validate(req, &chains, &d);
  if (!st.ok()) return st;
  if (d.outcome == Outcome::kRejected || d.wait == Wait::kVcTooSmall) {
    if (d.wait == Wait::kVcTooSmall) MarkWaiting(req.job, vc_index_.at(req.vc));
    *out = std::move(d);
    return Status::Ok();
  }
  int slot = -1;
  std::vector<Job> undo;
  bool placed = false, found_virtual = false;
  if (req.priority >= 0) {
    int vc = vc_index_.at(req.vc);
    CellId pinned_root = kNone;
    for (const auto& [id, r] : vcs_[vc].pinned)
      if (id == req.pinned_id) pinned_root = r;
    int64_t need = ShapedNeed(req, chains), preemptible = 0;
    for (const auto& [prio, n] : vcs_[vc].used_by_priority)
      if (prio < req.priority) preemptible += n;
    // Preemption can only help if the lower-priority jobs hold enough GPUs.
    int passes = pinned_root != kNone || vcs_[vc].free_leaves + preemptible >= need ? 2 : 1;
    if (preemptible == 0) passes = 1;
    // Neither the VC's free cells nor its lower-priority jobs hold enough GPUs: the job
    // waits for its own VC whatever the cluster looks like, so no placement is tried.
    // Schedulers ask this for every queued job of a flooding VC.
    if (pinned_root == kNone && vcs_[vc].free_leaves + preemptible < need) passes = 0;
    for (int preempt = 0; preempt < passes && !placed; preempt++)
      for (int c : chains) {
        // A job that must stay inside one rack (or larger cell) of a VC that owns no
        // such cell: try the racks one by one, binding only inside the rack tried.
        std::vector<Request> tries;
        int wl = 0;
        const Chain& ch = chains_[c];
        for (int l = ch.node_level + 1; l <= ch.levels; l++)
          if (ch.level_type[l] == req.within_type) wl = l;
        const VcChain* vch = nullptr;
        for (const auto& x : vcs_[vc].chains)
          if (x.chain == c) vch = &x;
        if (wl && pinned_root == kNone && vch && vch->cells_at_level[wl].empty()) {
          // Only racks whose idle or opportunistic (preemptible) GPUs suffice,
          // tightest first.
          int64_t need_gpus = ShapedNeed(req, {c});
          auto room = [&](CellId r) { return int64_t{pcells_[r].avail} + pcells_[r].opp; };
          std::vector<CellId> racks;
          for (CellId r : ch.cells_at_level[wl])
            if (room(r) >= need_gpus) racks.push_back(r);
          std::stable_sort(racks.begin(), racks.end(),
                           [&](CellId a, CellId b) { return room(a) < room(b); });
          for (CellId r : racks) {
            Request t = req;
            std::vector<uint8_t> mask(node_names_.size(), 0);
            std::vector<CellId> stack{r};
            while (!stack.empty()) {
              CellId x = stack.back();
              stack.pop_back();
              if (pcells_[x].level == ch.node_level) {
                int32_t n = pcells_[x].node;
                mask[n] = req.allowed.empty() || req.allowed[n];
                continue;
              }
              for (int k = 0; k < ch.level_children[pcells_[x].level]; k++)
                stack.push_back(pcells_[x].first_child + k);
            }
            t.allowed = std::move(mask);
            tries.push_back(std::move(t));
          }
        } else {
          tries.push_back(req);
        }
        for (const Request& t : tries) {
          std::vector<CellId> vleaves;
          if (!PlaceVirtual(t, vc, c, pinned_root, preempt != 0, &vleaves)) continue;
          found_virtual = true;
          Decision attempt;
          undo.clear();
          bool committed = CommitGuaranteed(t, vc, c, vleaves, &attempt, &undo, &slot);
          if (committed && preempt == 0 && !attempt.preempted.empty())
            committed =
                CommitWithoutVictims(t, vc, c, pinned_root, vleaves, &attempt, &undo, &slot);
          if (committed) {
            d.preempted = attempt.preempted;
            d.lazy_preempted = attempt.lazy_preempted;
            placed = true;
            break;
          }
          Rollback(slot, undo);  // lazy victims restored: the preemptor could not be placed
          slot = -1;
        }
        if (placed) break;
      }
    if (!placed && no_reason_) d.wait = Wait::kNoCell;
    if (!placed && !no_reason_) WaitReason(req, vc, pinned_root, chains, found_virtual, &d);
  } else {
    int vc = req.vc.empty() ? -1 : vc_index_.at(req.vc);
    for (int c : chains) {
      std::vector<CellId> pleaves;
      Request shaped;
      std::string why;
      if (!ShapeFor(req, c, &shaped, &why) || !PlacePhysical(shaped, c, &pleaves)) continue;
      slot = jobs_.NewSlot();
      Job& job = jobs_[slot];
      job.name = req.job;
      job.vc = vc;
      job.vc_name = jobs_.Intern(req.vc);
      job.priority = job.original_priority = -1;
      job.lazy = req.lazy;
      job.chain = c;
      job.leaf_type = jobs_.Intern(req.leaf_type);
      job.grain = shaped.grain;
      job.seq = jobs_.next_seq++;
      job.live = true;
      job.SetPods(SplitPods(shaped, pleaves, pcells_));
      jobs_.Index(slot);
      for (CellId p : pleaves) SetLeafJob(p, slot, true);
      FlushIndexes();
      if (vc >= 0) vcs_[vc].opp_leaves += static_cast<int64_t>(pleaves.size());
      placed = true;
      break;
    }
    if (!placed) {
      d.wait = Wait::kNoCell;
      d.reason = "no idle GPUs of that shape for an opportunistic job";
    }
  }
  if (placed) {
    d.outcome = Outcome::kPlaced;
    FillDecisionPods(jobs_[slot], &d);
    if (dry_run) {
      jobs_.next_seq--;
      Rollback(slot, undo);
    } else {
      waiting_.erase(req.job);
    }
  } else {
    d.outcome = Outcome::kWaiting;
    if (req.priority >= 0) MarkWaiting(req.job, vc_index_.at(req.vc));
  }
  *out = std::move(d);
  return Status::Ok();
}

Status Engine::Finish(const std::string& job) {
  waiting_.erase(job);  // a job cancelled while waiting: no longer waiting work
  const int slot = jobs_.Find(job);
  if (slot < 0) return Status::Err(Code::kNoEnt, "job: unknown job '" + job + "'");
  ReleaseJob(slot);
  if (jobs_.WantsCompaction()) CompactJobs();
  return Status::Ok();
}

// Slots freed at a peak of jobs would otherwise stay allocated for good: at 90% busy
// they were ~20 bytes per GPU (issue 18). Live jobs from the end move into the lowest
// free slots; only between decisions, since a decision holds slot numbers.
void Engine::CompactJobs() {
  jobs_.Compact([&](const Job& j, int to) {
    for (CellId l : j.Leaves()) pcells_[l].job = to;
    for (CellId v : j.Vleaves()) vcells_[v].job = to;
  });
}

Status Engine::AddRunning(const RunningJob& rj, bool* demoted, std::vector<std::string>* dropped) {
  return AddRunningImpl(rj, demoted, dropped);
}

Status Engine::AddRunningImpl(const RunningJob& rj, bool* demoted,
                              std::vector<std::string>* dropped) {
  const Request& req = rj.req;
  auto inval = [](const std::string& m) { return Status::Err(Code::kInval, m); };
  if (req.job.empty()) return inval("job: must be a non-empty name");
  if (jobs_.Find(req.job) >= 0)
    return Status::Err(Code::kExist, "job: '" + req.job + "' already exists");
  if (req.priority < -1 || req.priority > 1000) return inval("priority: must be -1..1000");
  if (rj.pods.empty()) return inval("placement: a running job needs at least one pod");
  std::vector<std::vector<CellId>> leaves;
  // GPUs the config does not have are left out rather than the job refused: its other
  // GPUs are in use all the same, and forgetting them would hand them to the next job.
  std::vector<std::string> missing;
  int chain = -1;
  for (size_t i = 0; i < rj.pods.size(); i++) {
    const auto& pp = rj.pods[i];
    std::string w = "placement[" + std::to_string(i) + "]";
    if (pp.gpus.empty()) return inval(w + ".leaves: empty");
    if (pp.node < 0 || static_cast<size_t>(pp.node) >= node_names_.size()) {
      std::string name = pp.node_name.empty() ? w + ".node" : "'" + pp.node_name + "'";
      missing.push_back("GPUs " + GpuList(pp.gpus) + " on node " + name +
                        " (the node is not in the config)");
      continue;
    }
    leaves.emplace_back();
    std::vector<int32_t> absent;
    if (!pp.fractions.empty() && pp.gpus.size() != 1)
      return inval(w + ".fractions: fractions are slots of one GPU, but the pod names " +
                   std::to_string(pp.gpus.size()) + " GPUs");
    for (int32_t g : pp.gpus) {
      CellId gc = FindGpuCell(pp.node, g, chain);
      if (gc == kNone) {
        absent.push_back(g);
        continue;
      }
      std::vector<CellId> gl;
      const Chain& gch = chains_[pcells_[gc].chain];
      if (pp.fractions.empty()) {
        LeavesUnder(gc, &gl);
      } else if (gch.gpu_level == 1) {
        return inval(w + ".fractions: GPU " + std::to_string(g) + " on node '" +
                     node_names_[pp.node] + "' has no fractional cell levels");
      } else {
        for (int32_t slot : pp.fractions) {
          CellId l = LeafAt(gc, slot);
          if (l == kNone)
            return inval(w + ".fractions: slot " + std::to_string(slot) + " is not a fraction of " +
                         "GPU " + std::to_string(g) + " (it has " +
                         std::to_string(gch.desc[gch.gpu_level][1]) + ")");
          gl.push_back(l);
        }
      }
      for (CellId l : gl) {
        if (pcells_[l].job >= 0)
          return Status::Err(Code::kExist, w + ".leaves: GPU " + std::to_string(g) + " on node '" +
                                               node_names_[pp.node] + "' is already held by job '" +
                                               jobs_[pcells_[l].job].name + "'");
        for (const auto& prev : leaves)
          if (std::find(prev.begin(), prev.end(), l) != prev.end())
            return inval(w + (pp.fractions.empty() ? ".leaves: a GPU" : ".fractions: a fraction") +
                         " is listed twice");
        leaves.back().push_back(l);
      }
      chain = pcells_[gc].chain;
    }
    // A pod holds whole GPUs or one buddy cell of one GPU: the exclusion between
    // whole-GPU and fractional work holds for recovered jobs too.
    if (!leaves.back().empty() && GrainOf(chain, leaves.back()) == 0)
      return inval(w + ".fractions: the fractions of a pod must form one aligned cell of a " +
                   "GPU (a half, a quarter, ...: slots 0-1, 2-3, 0-3, ...)");
    if (!absent.empty())
      missing.push_back("GPUs " + GpuList(absent) + " on node '" + node_names_[pp.node] + "' (" +
                        (chain >= 0 ? "not in the job's chain" : "no such GPU in the config") +
                        ")");
    if (leaves.back().empty()) leaves.pop_back();
  }
  for (size_t i = 1; i < leaves.size(); i++)
    if (GrainOf(chain, leaves[i]) != GrainOf(chain, leaves[0]))
      return inval("placement: a job's pods must all hold whole GPUs or all the same fraction");
  if (leaves.empty()) {
    std::string why = "placement: none of the job's GPUs is in the config";
    for (const auto& m : missing) why += "; " + m;
    return Status::Err(Code::kNoEnt, why);
  }
  int vc = -1;
  if (!req.vc.empty()) {
    auto it = vc_index_.find(req.vc);
    if (it != vc_index_.end()) vc = it->second;
  }
  bool guaranteed = req.priority >= 0 && !rj.demoted && vc >= 0 && missing.empty();
  waiting_.erase(req.job);
  int slot = jobs_.NewSlot();
  Job& job = jobs_[slot];
  job.name = req.job;
  job.vc = vc;
  job.vc_name = jobs_.Intern(req.vc);
  job.original_priority = req.priority;
  job.lazy = req.lazy;
  job.chain = chain;
  job.pinned_id = jobs_.Intern(req.pinned_id);
  // A recovered job on MIG slices holds that profile, whatever its record names.
  job.leaf_type = jobs_.Intern(chains_[chain].mig ? chains_[chain].leaf_type : req.leaf_type);
  job.grain = GrainOf(chain, leaves[0]);
  job.seq = rj.seq ? rj.seq : jobs_.next_seq++;
  if (rj.seq >= jobs_.next_seq) jobs_.next_seq = rj.seq + 1;
  job.priority = guaranteed ? req.priority : -1;  // virtual leaves are counted per priority
  job.live = true;
  jobs_.Index(slot);
  for (const auto& pl : leaves) job.AddPod(pl);
  if (guaranteed) {
    CellId pinned_root = kNone;
    if (!req.pinned_id.empty())
      for (const auto& [id, r] : vcs_[vc].pinned)
        if (id == req.pinned_id) pinned_root = r;
    if (!req.pinned_id.empty() && pinned_root == kNone) guaranteed = false;
    size_t i = 0;
    for (const auto& pl : leaves) {
      if (!guaranteed) break;
      // The pod's own lowest common ancestor: a VC cell smaller than that cannot hold it.
      int lca = 1;
      for (CellId l : pl) {
        CellId a = l, b = pl[0];
        while (a != b) {
          a = pcells_[a].parent;
          b = pcells_[b].parent;
        }
        lca = std::max(lca, static_cast<int>(pcells_[a].level));
      }
      for (CellId l : pl) {
        CellId v =
            i < rj.vleaves.size() ? rj.vleaves[i] : FindVleafFor(vc, chain, l, pinned_root, lca);
        i++;
        if (v == kNone || v < 0 || static_cast<size_t>(v) >= vcells_.size() ||
            vcells_[v].vc != vc || vcells_[v].level != 1 || vcells_[v].job >= 0 ||
            !BindExact(v, l)) {
          guaranteed = false;
          break;
        }
        jobs_[slot].AddVleaf(v);
        SetVleafJob(v, slot);
      }
    }
    if (!guaranteed) {
      for (CellId v : jobs_[slot].Vleaves()) {
        ClearVleafJob(v);
        UnbindUp(v);
      }
      jobs_[slot].ClearVleaves();
    }
  }
  Job& j = jobs_[slot];
  j.priority = guaranteed ? req.priority : -1;
  j.demoted = !guaranteed && req.priority >= 0;
  // Demoted here (the cells of this config cannot hold it), or carried over as such.
  j.demoted_by_config = j.demoted && (rj.demoted_by_config || !rj.demoted || !missing.empty());
  if (dropped && !missing.empty()) {
    std::string what = req.job + ": dropped";
    for (size_t k = 0; k < missing.size(); k++) what += (k ? ", " : " ") + missing[k];
    dropped->push_back(what + "; it keeps its other GPUs" +
                       (j.demoted ? ", as opportunistic" : ""));
  }
  int64_t n = 0;
  for (const auto& p : j.Pods())
    for (CellId l : p.leaves) {
      SetLeafJob(l, slot, !guaranteed);
      n++;
    }
  if (vc >= 0) (guaranteed ? vcs_[vc].used_leaves : vcs_[vc].opp_leaves) += n;
  if (demoted) *demoted = j.demoted ? 1 : 0;
  FlushIndexes();
  return Status::Ok();
}

Status Engine::SetNodeHealth(const std::string& node, bool healthy) {
  auto it = node_index_.find(node);
  if (it == node_index_.end())
    return Status::Err(Code::kNoEnt, "node: unknown node '" + node + "'");
  int32_t n = it->second;
  if ((node_bad_[n] == 0) == healthy) return Status::Ok();
  node_bad_[n] = healthy ? 0 : 1;
  for (CellId nc : node_cells_[n]) {
    const int nl = chains_[pcells_[nc].chain].node_level;
    std::vector<CellId> stack{nc}, leaves;
    while (!stack.empty()) {
      CellId c = stack.back();
      stack.pop_back();
      const PCell& p = pcells_[c];
      if (p.level == 1) {
        leaves.push_back(c);
        continue;
      }
      for (int k = 0; k < chains_[p.chain].level_children[p.level]; k++)
        stack.push_back(p.first_child + k);
    }
    for (CellId l : leaves) {
      // A free leaf (a VC's fraction or GPU cell split off) is refiled like any cell.
      const bool leaf_was_bad = pcells_[l].bad > 0;
      pcells_[l].bad = healthy ? 0 : 1;
      int db = healthy ? -1 : 1, da = pcells_[l].job < 0 ? -db : 0;
      for (CellId c = l; c != kNone; c = pcells_[c].parent) {
        PCell& p = pcells_[c];
        int32_t before = p.avail;
        bool was_bad = c == l ? leaf_was_bad : p.bad > 0;
        if (c != l) p.bad += db;
        p.avail += da;
        if (p.level == nl) NodeUpdate(c, before, p.avail);
        if ((p.flags & kFree) && was_bad != (p.bad > 0)) FreeRefile(c);
      }
    }
  }
  FlushIndexes();
  return Status::Ok();
}

bool Engine::JobMatches(const std::string& name, const std::vector<PlacedPod>& pods) const {
  const int slot = jobs_.Find(name);
  if (slot < 0) return false;
  using Key = std::pair<int32_t, std::pair<std::vector<int32_t>, std::vector<int32_t>>>;
  auto key = [](const PlacedPod& p) {
    Key k{p.node, {p.gpus, p.fractions}};
    std::sort(k.second.first.begin(), k.second.first.end());
    std::sort(k.second.second.begin(), k.second.second.end());
    return k;
  };
  std::vector<Key> mine, theirs;
  for (const auto& p : jobs_[slot].Pods()) mine.push_back(key(PodPlacement(p)));
  for (const auto& p : pods) theirs.push_back(key(p));
  std::sort(mine.begin(), mine.end());
  std::sort(theirs.begin(), theirs.end());
  return mine == theirs;
}

std::vector<std::string> Engine::JobNames() const {
  std::vector<std::string> out;
  for (const RunningJob& rj : RunningJobs()) out.push_back(rj.req.job);
  return out;
}

std::vector<RunningJob> Engine::RunningJobs() const {
  std::vector<RunningJob> out;
  for (int s : jobs_.InSubmissionOrder()) {
    const Job* j = &jobs_[s];
    RunningJob rj;
    rj.req.job = j->name;
    rj.req.vc = j->vc >= 0 ? vcs_[j->vc].name : jobs_.Str(j->vc_name);
    rj.req.priority = j->original_priority;
    rj.req.lazy = j->lazy;
    rj.req.pinned_id = jobs_.Str(j->pinned_id);
    rj.req.leaf_type = jobs_.Str(j->leaf_type);
    rj.demoted = j->demoted;
    rj.demoted_by_config = j->demoted_by_config;
    rj.seq = j->seq;
    // In leaf order (vleaves are parallel to it), in whole GPUs or slots of one GPU.
    size_t at = 0;
    for (const auto& p : j->Pods()) {
      rj.pods.push_back(RunningPod(p, j->Vleaves(), at, &rj.vleaves));
      at += p.leaves.size();
    }
    out.push_back(std::move(rj));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> Engine::WaitingJobs() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [job, vc] : waiting_) out.emplace_back(job, vcs_[vc].name);
  return out;
}

// Unknown VCs (gone in a new config) and running jobs are ignored.
void Engine::NoteWaiting(const std::string& job, const std::string& vc) {
  auto it = vc_index_.find(vc);
  if (it != vc_index_.end() && jobs_.Find(job) < 0) MarkWaiting(job, it->second);
}

// A host may never finish a job that is cancelled while it waits (Slurm calls no
// select hook then): past a bound, every mark goes, and the jobs that really wait
// mark themselves again at their next decision.
void Engine::MarkWaiting(const std::string& job, int vc) {
  if (trial_) return;  // a job only asked about waits nowhere
  constexpr size_t kMaxWaitingMarks = 10000;
  if (waiting_.size() >= kMaxWaitingMarks && !waiting_.count(job)) waiting_.clear();
  waiting_[job] = vc;
}

}  // namespace hived
