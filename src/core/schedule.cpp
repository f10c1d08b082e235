// SPDX-License-Identifier: GPL-2.0-or-later
// Job decisions: validate, place guaranteed jobs in their VC's cells (preempting lower
// priority and opportunistic jobs if needed), place opportunistic jobs on idle cells,
// release, recover running jobs, and node health.
#include <algorithm>
#include <map>

#include "core/binding.h"
#include "core/constraints.h"
#include "core/engine.h"
#include "core/preemption.h"

namespace hived {

namespace {

std::string GpuList(const std::vector<int32_t>& gpus) {
  std::string s;
  for (int32_t g : gpus) s += (s.empty() ? "" : ",") + std::to_string(g);
  return s;
}

}  // namespace

// Leaf cells a request needs, the fewest over the chains it may use.
int64_t Engine::ShapedNeed(const Request& req, const std::vector<ChainId>& chains) const {
  int64_t best = -1;
  for (ChainId c : chains) {
    std::vector<Member> members;
    std::string why;
    if (!ShapeMembers(req, c, &members, &why)) continue;
    int64_t n = 0;
    for (const auto& m : members) n += int64_t{m.pods} * m.leaves;
    if (best < 0 || n < best) best = n;
  }
  return best < 0 ? 0 : best;
}

// What the chains' leaf cells are, for messages: GPUs, or the smallest fraction's type.
std::string Engine::LeafWord(const std::vector<ChainId>& chains) const {
  for (ChainId c : chains) {
    if (chains_[c].gpu_level > 1) return "'" + chains_[c].level_type[Level(1)] + "' fractions";
    if (chains_[c].mig) return "'" + chains_[c].leaf_type + "' MIG slices";
  }
  return "GPUs";
}

// The request's own fields, each refused with its name and the reason; *vc is the
// VC's index (-1: none).
Status Engine::ValidateFields(const Request& req, VcId* vc) const {
  auto inval = [](const std::string& m) { return Status::Err(Code::kInval, m); };
  if (req.job.empty()) return inval("job: must be a non-empty name");
  if (jobs_.Find(req.job) >= 0)
    return Status::Err(Code::kExist, "job: '" + req.job + "' already exists");
  if (req.priority < -1 || req.priority > 1000)
    return inval("priority: must be -1 (opportunistic) or 0..1000, got " +
                 std::to_string(req.priority));
  if (req.split_max_pods < 0 || req.split_max_pods > 100000)
    return inval("splitMaxPods: must be 0..100000 (0 or 1: never split), got " +
                 std::to_string(req.split_max_pods));
  Status st = ValidateMembers(req);
  if (!st.ok()) return st;
  if (!req.allowed.empty() && req.allowed.size() != node_names_.size())
    return inval("allowedNodes: must cover every node");
  *vc = kNone;
  if (!req.vc.empty()) {
    auto it = vc_index_.find(req.vc);
    if (it == vc_index_.end()) return Status::Err(Code::kNoEnt, "vc: unknown VC '" + req.vc + "'");
    *vc = it->second;
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
  return Status::Ok();
}

Status Engine::ValidateMembers(const Request& req) const {
  auto inval = [](const std::string& m) { return Status::Err(Code::kInval, m); };
  if (req.members.empty()) return inval("members: at least one member is needed");
  int64_t total = 0;
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
  }
  if (total > (int64_t{1} << 24)) return inval("members: more than 16M GPUs requested");
  return Status::Ok();
}

// The chains whose GPU model and cell types the request can use (its pinned cell's,
// its VC's, or any for an opportunistic job); *shape_why says why the last chain
// refused its shape.
Status Engine::FittingChains(const Request& req, VcId vc, std::vector<ChainId>* chains,
                             std::string* shape_why) const {
  auto chain_fits = [&](ChainId c) {
    const Chain& ch = chains_[c];
    if (!req.leaf_type.empty() && ch.leaf_type != req.leaf_type) return false;
    // A MIG slice is not a GPU: only a request naming its profile gets one.
    if (ch.mig && req.leaf_type.empty()) return false;
    std::vector<Member> members;
    if (!ShapeMembers(req, c, &members, shape_why)) return false;
    if (!req.within_type.empty()) {
      bool has = false;
      for (int l = 1; l <= ch.levels; l++) has |= ch.level_type[Level(l)] == req.within_type;
      if (!has) return false;
    }
    return true;
  };
  if (!req.pinned_id.empty()) {
    if (req.priority < 0)
      return Status::Err(Code::kInval,
                         "pinnedCellId: an opportunistic job cannot ask for a pinned cell");
    VCellId root = kNone;
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
    for (ChainId c : chains_.ids())
      if (chain_fits(c)) chains->push_back(c);
  }
  return Status::Ok();
}

// Whether the request could ever fit chain c: in one cell of its withinCellType, each
// pod in one cell of its podWithinCellType, and in the cells its VC (or pinned cell,
// or the cluster) has. Counted in leaf cells: GPUs, or in a chain with fractional
// levels its smallest fractions (a whole GPU is all of them).
void Engine::CapacityIn(const Request& req, VcId vc, ChainId c, Capacity* cap_out) const {
  Capacity& k = *cap_out;
  const Chain& ch = chains_[c];
  std::vector<Member> members;
  std::string why;
  ShapeMembers(req, c, &members, &why);
  k.max_pod = 0;
  k.total = 0;
  for (const auto& m : members) {
    k.max_pod = std::max(k.max_pod, m.leaves);
    k.total += int64_t{m.pods} * m.leaves;
  }
  int64_t unit = ch.desc[Level(ch.node_level)][Level(1)];
  if (!req.within_type.empty()) {
    int64_t within_leaves = 0;
    for (int l = 1; l <= ch.levels; l++)
      if (ch.level_type[Level(l)] == req.within_type) within_leaves = ch.desc[Level(l)][Level(1)];
    if (k.total > within_leaves) return;  // the whole job must fit one such cell
  }
  if (!req.pod_within_type.empty()) {
    int64_t pod_leaves = -1;
    for (int l = 1; l <= ch.levels; l++)
      if (ch.level_type[Level(l)] == req.pod_within_type) pod_leaves = ch.desc[Level(l)][Level(1)];
    if (k.max_pod > pod_leaves) {  // each pod must fit one such cell
      k.pod_too_big = true;
      return;
    }
  }
  const int64_t chain_cap = ch.desc[Level(ch.levels)][Level(1)] *
                            static_cast<int64_t>(ch.cells_at_level[Level(ch.levels)].size());
  int64_t cap = 0;
  if (req.priority >= 0 && req.pinned_id.empty()) {
    for (const auto& vch : vcs_[vc].chains)
      if (vch.chain == c) cap = vch.leaves;
    // A VC cell below node level is a unit of its own size.
    int64_t biggest = 0;
    for (const auto& vch : vcs_[vc].chains)
      if (vch.chain == c)
        for (int l = 1; l <= ch.levels; l++)
          if (vch.quota[Level(l)])
            biggest = std::max(biggest, ch.desc[Level(std::min(l, ch.node_level))][Level(1)]);
    if (k.max_pod <= unit && k.total <= chain_cap && (k.max_pod > biggest || k.total > cap)) {
      k.vc_too_small = true;
      k.vc_cap = std::max(k.vc_cap, cap);
      k.vc_unit = std::max(k.vc_unit, biggest);
    }
    unit = biggest;
  } else if (req.priority >= 0) {
    for (const auto& [id, r] : vcs_[vc].pinned)
      if (id == req.pinned_id)
        cap = chains_[vcells_[r].chain].desc[Level(vcells_[r].level)][Level(1)];
    unit = std::min(unit, cap);
  } else {
    cap = chain_cap;
  }
  if (k.max_pod <= unit && k.total <= cap) k.any = true;
}

Status Engine::Validate(const Request& req, std::vector<ChainId>* chains, Decision* d) const {
  VcId vc = kNone;
  Status st = ValidateFields(req, &vc);
  if (!st.ok()) return st;
  std::string shape_why;
  d->outcome = Outcome::kRejected;
  st = FittingChains(req, vc, chains, &shape_why);
  if (!st.ok()) return st;
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
  Capacity k;
  for (ChainId c : *chains) CapacityIn(req, vc, c, &k);
  if (!k.any)
    NeverFits(req, LeafWord(*chains), k, d);
  else
    d->outcome = Outcome::kWaiting;
  return Status::Ok();
}

// A request that no chain can hold: rejected, or (its VC is too small) waiting.
void Engine::NeverFits(const Request& req, const std::string& unit, const Capacity& k,
                       Decision* d) const {
  const std::string need =
      std::to_string(k.total) + " " + unit + " (largest pod " + std::to_string(k.max_pod) + ")";
  if (k.vc_too_small) {
    d->outcome = Outcome::kWaiting;
    d->wait = Wait::kVcTooSmall;
    d->reason = "VC '" + req.vc + "' is too small for the job: it needs " + need +
                ", the VC's cells hold " + std::to_string(k.vc_cap) + " (pods of at most " +
                std::to_string(k.vc_unit) + "); it waits until the VC's quota grows";
  } else if (k.pod_too_big) {
    d->reason = "a pod of " + std::to_string(k.max_pod) + " " + unit + " cannot fit inside one " +
                req.pod_within_type + " cell";
  } else {
    d->reason = req.priority >= 0
                    ? "the job needs " + need + " which VC '" + req.vc + "' can never hold"
                    : "the job needs more GPUs per pod or in total than the cluster has";
  }
}

// The cell of GPU index `gpu` on `node`: a leaf, or the GPU-level cell of a chain with
// fractional levels.
PCellId Engine::FindGpuCell(int32_t node, int32_t gpu, ChainId chain) const {
  if (node < 0 || static_cast<size_t>(node) >= node_cells_.size()) return kNone;
  for (PCellId nc : node_cells_[node]) {
    if (chain != kNone && pcells_[nc].chain != chain) continue;
    PCellId found = kNone;
    WalkPhysical(nc, [&](PCellId c) {
      const PCell& p = pcells_[c];
      if (p.level != chains_[p.chain].gpu_level) return Visit::kDescend;
      if (p.addr != gpu) return Visit::kPrune;
      found = c;
      return Visit::kStop;
    });
    if (found != kNone) return found;
  }
  return kNone;
}

void Engine::CountVcUse(const Job& j, int sign) {
  if (!j.vc.valid()) return;
  Vc& v = vcs_[j.vc];
  const int64_t n = sign * static_cast<int64_t>(j.leaf_count);
  (j.guaranteed() ? v.used_leaves : v.opp_leaves) += n;
  if (!j.demoted) return;
  v.demoted_leaves += n;
  if (VcChain* vch = VcChainOf(j.vc, j.chain)) vch->demoted_leaves += n;
}

void Engine::ReleaseJob(int slot, Job* taken) {
  Job& j = jobs_[slot];
  if (j.guaranteed()) CountVleaves(slot, -1);
  if (j.guaranteed())
    for (VCellId v : j.Vleaves()) {
      ClearVleafJob(v);
      Binder(this).UnbindUp(v);
    }
  CountVcUse(j, -1);
  for (PCellId l : j.Leaves()) ClearLeafJob(l, !j.guaranteed());
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
  const PCellSpan leaves = j.Leaves();
  const VCellSpan vleaves = j.Vleaves();
  for (size_t i = 0; i < leaves.size(); i++) {
    if (j.guaranteed()) {
      ok &= Binder(this).BindExact(vleaves[i], leaves[i]);
      SetVleafJob(vleaves[i], slot);
    }
    SetLeafJob(leaves[i], slot, !j.guaranteed());
  }
  if (j.guaranteed()) CountVleaves(slot, 1);
  CountVcUse(j, 1);
  FlushIndexes();
  return ok;
}

// The levels of the smallest physical cells holding each pod of a placed job, then
// the whole job (top level + 1 when it spans top-level cells): how compact it is.
std::vector<int> Engine::Spans(int slot) const {
  const Job& j = jobs_[slot];
  const int above_top = chains_[j.chain].levels + 1;
  // Smallest cell holding a and b; kNone when they share no cell.
  auto join = [&](PCellId a, PCellId b) {
    while (pcells_[a].level < pcells_[b].level) a = pcells_[a].parent;
    while (pcells_[b].level < pcells_[a].level) b = pcells_[b].parent;
    while (a != b && a != kNone) {
      a = pcells_[a].parent;
      b = pcells_[b].parent;
    }
    return a;
  };
  std::vector<int> out;
  PCellId all = kNone;
  bool apart = false;
  for (const auto& pod : j.Pods()) {
    PCellId c = pod.leaves[0];
    for (PCellId l : pod.leaves)
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
bool Engine::CommitWithoutVictims(const Request& req, VcId vc, ChainId chain, VCellId pinned_root,
                                  const std::vector<VCellId>& first, Decision* d, JobSnapshot* undo,
                                  int* slot) {
  const std::vector<int> shape = Spans(*slot);
  Preemption(this).Revert(*slot, *undo);
  // Pods as compact as in `first`: inside one cell of its widest pod's level below the node.
  Request r = req;
  const Chain& ch = chains_[chain];
  const int widest = *std::max_element(shape.begin(), shape.end() - 1);
  if (r.pod_within_type.empty() && widest > 1 && widest < ch.node_level)
    r.pod_within_type = ch.level_type[Level(widest)];
  std::vector<VCellId> idle;
  if (PlaceVirtual(r, vc, chain, pinned_root, false, &idle, /*idle_only=*/true)) {
    Decision a;
    undo->Clear();
    bool ok = CommitGuaranteed(r, vc, chain, idle, &a, undo, slot) && a.preempted.empty();
    if (ok) {
      std::vector<int> span = Spans(*slot);
      for (size_t i = 0; i < span.size(); i++) ok &= span[i] <= shape[i];
    }
    if (ok) {
      *d = std::move(a);
      return true;
    }
    Preemption(this).Revert(*slot, *undo);
  }
  *d = Decision();
  undo->Clear();
  return CommitGuaranteed(req, vc, chain, first, d, undo, slot);
}

namespace {
std::vector<Pod> SplitPods(const Request& req, const std::vector<PCellId>& leaves,
                           const IdVector<PCellId, PCell>& pcells) {
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
bool Engine::CommitGuaranteed(const Request& in, VcId vc, ChainId chain,
                              const std::vector<VCellId>& vleaves, Decision* d, JobSnapshot* undo,
                              int* slot_out) {
  Constraints k;
  *slot_out = -1;
  // Exactly one virtual leaf per leaf the shaped request's pods need: anything else
  // is refused before any job is touched (SplitPods would read past the list).
  if (!Compile(in, chain, nullptr, kNone, &k)) return false;
  const Request& req = k.shaped;
  size_t need = 0;
  for (const auto& m : req.members) need += static_cast<size_t>(m.pods) * m.leaves;
  if (need != vleaves.size()) return false;
  Preemption planner(this);
  planner.DisplaceVirtual(vc, vleaves, d, undo);
  const int slot = OpenJob(req, vc, chain);
  *slot_out = slot;
  std::vector<PCellId> pleaves;
  if (!BindLeaves(k, chain, vleaves, slot, &pleaves) || !PhysicalOk(k, pleaves)) {
    d->preempted.clear();
    d->lazy_preempted.clear();
    FlushIndexes();
    return false;
  }
  planner.DisplacePhysical(pleaves, d, undo);
  Job& jb = jobs_[slot];
  jb.SetPods(SplitPods(req, pleaves, pcells_));
  for (PCellId p : pleaves) SetLeafJob(p, slot, false);
  vcs_[vc].used_leaves += static_cast<int64_t>(pleaves.size());
  FlushIndexes();
  return true;
}

// A new job's record in a new slot, from the (shaped) request; no cells yet.
int Engine::OpenJob(const Request& req, VcId vc, ChainId chain) {
  const int slot = jobs_.NewSlot();
  Job& job = jobs_[slot];
  job.name = req.job;
  job.vc = vc;
  job.vc_name = jobs_.Intern(req.vc);
  job.priority = job.original_priority = Priority(req.priority);
  job.lazy = req.lazy;
  job.chain = chain;
  job.pinned_id = jobs_.Intern(req.pinned_id);
  job.leaf_type = jobs_.Intern(req.leaf_type);
  job.grain = req.grain;
  job.seq = jobs_.next_seq++;
  job.live = true;
  jobs_.Index(slot);
  return slot;
}

// Binds each virtual leaf (already bound ones keep their GPU) and records it on the
// job in `slot`; *pleaves gets the physical leaves in the same order. False when a
// leaf finds no GPU.
bool Engine::BindLeaves(const Constraints& k, ChainId chain, const std::vector<VCellId>& vleaves,
                        int slot, std::vector<PCellId>* pleaves_out) {
  std::vector<PCellId>& pleaves = *pleaves_out;
  // Pods bind near each other: inside the cell just above the node of the first one,
  // or of a rack chosen up front with room for them all.
  PCellId near = Binder(this).GangRack(chain, vleaves, k.allowed());
  // Distinct nodes: a pod's unbound cells bind off the nodes earlier pods took, so two
  // VC cells below the node size (two sockets) do not land on one node.
  std::vector<int> pod_of;  // pod index of each virtual leaf, request order
  for (const auto& m : k.shaped.members)
    for (int k = 0; k < m.pods; k++) {
      int pod = pod_of.empty() ? 0 : pod_of.back() + 1;
      pod_of.insert(pod_of.end(), m.leaves, pod);
    }
  std::vector<uint8_t> pod_allowed = k.allowed();
  if (k.distinct_nodes && pod_allowed.empty()) pod_allowed.assign(node_bad_.size(), 1);
  for (size_t i = 0; i < vleaves.size(); i++) {
    VCellId v = vleaves[i];
    const std::vector<uint8_t>& allowed = k.distinct_nodes ? pod_allowed : k.allowed();
    PCellId p =
        vcells_[v].bound != kNone ? vcells_[v].bound : Binder(this).BindDown(v, allowed, near);
    if (p != kNone && near == kNone) {
      int above = chains_[chain].node_level + 1;
      PCellId a = p;
      while (a != kNone && pcells_[a].level < above) a = pcells_[a].parent;
      near = a;
    }
    if (p == kNone) break;
    jobs_[slot].AddVleaf(v);
    SetVleafJob(v, slot);
    pleaves.push_back(p);
    if (k.distinct_nodes && (i + 1 == vleaves.size() || pod_of[i + 1] != pod_of[i]))
      for (size_t k = i + 1; k-- > 0 && pod_of[k] == pod_of[i];)
        if (pcells_[pleaves[k]].node >= 0) pod_allowed[pcells_[pleaves[k]].node] = 0;
  }
  // The leaves recorded count even when a later one found no GPU: releasing the job
  // takes off all it holds.
  CountVleaves(slot, 1);
  return jobs_[slot].Vleaves().size() == vleaves.size();
}

// The physical leaves the binding chose keep the request's rules: healthy, allowed,
// inside one cell of its withinCellType, each pod inside one cell of its
// podWithinCellType, pods on distinct nodes.
bool Engine::PhysicalOk(const Constraints& k, const std::vector<PCellId>& pleaves) const {
  const std::vector<uint8_t>& allowed = k.allowed();
  for (PCellId l : pleaves) {
    const PCell& p = pcells_[l];
    if (p.bad || (!allowed.empty() && !allowed[p.node])) return false;
    if (p.job >= 0 && jobs_[p.job].guaranteed())
      return false;  // cannot happen while bindings are exclusive
  }
  // The rack rule's racks are checked here: the virtual placement left them to binding.
  if (k.within_level > 0 && !InOneCell(pleaves, k.within_level)) return false;
  if (k.pod_level > 0)
    for (const auto& pod : SplitPods(k.shaped, pleaves, pcells_))
      if (!InOneCell(pod.leaves, k.pod_level)) return false;
  if (k.distinct_nodes) {
    std::vector<int32_t> nodes;
    for (const auto& p : SplitPods(k.shaped, pleaves, pcells_)) {
      if (std::find(nodes.begin(), nodes.end(), p.node) != nodes.end()) return false;
      nodes.push_back(p.node);
    }
  }
  return true;
}

// Whether the physical leaves lie inside one cell of `level`.
bool Engine::InOneCell(const std::vector<PCellId>& leaves, int level) const {
  PCellId common = kNone;
  for (PCellId a : leaves) {
    while (a != kNone && pcells_[a].level < level) a = pcells_[a].parent;
    if (common == kNone) common = a;
    if (a != common) return false;
  }
  return true;
}

void Engine::FillDecisionPods(const Job& j, Decision* d) const {
  d->pods.clear();
  for (const auto& p : j.Pods()) d->pods.push_back(PodPlacement(p));
}

namespace {
// The answer for a job whose VC has fewer free cells than it needs.
void QuotaInUse(const std::string& where, int64_t free_v, int64_t need, const std::string& unit,
                const std::string& shape, Decision* d) {
  d->wait = Wait::kVcQuota;
  d->reason = where + " quota is in use: " + std::to_string(free_v) + " free " + unit +
              " in its cells, the job needs " + std::to_string(need) + shape;
}
}  // namespace

// Why a guaranteed job that could not be placed waits, naming the first cause that
// explains it: cells bound to unusable GPUs, free cells only on nodes the job may
// not use, cells held by jobs it may not preempt, too few free GPUs, or their shape.
void Engine::WaitReason(const Request& req, VcId vc, VCellId pinned_root,
                        const std::vector<ChainId>& chains, bool found_virtual, Decision* d) const {
  int64_t need = ShapedNeed(req, chains);
  const std::string unit = LeafWord(chains);
  const std::string where = pinned_root != kNone
                                ? "VC '" + req.vc + "' pinned cell '" + req.pinned_id + "'"
                                : "VC '" + req.vc + "'";
  const int64_t free_v = pinned_root != kNone ? vcells_[pinned_root].vfree : vcs_[vc].free_leaves;
  // Shard jobs: which cell type they wait for, and which the VC owns.
  const std::string shape = FractionalNeedText(req, vc, chains);
  auto fits_if = [&](const Request& r, bool preempt) {
    std::vector<VCellId> vleaves;
    for (ChainId c : chains)
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
  // Without preemption a placement takes only free virtual cells: with fewer free than
  // the job needs none exists, allowed nodes or not. An unpinned job then waits for its
  // quota whatever its priority would win (below), so the common answer under a flood
  // (the VC's quota in use) costs no placement.
  if (free_v < need && pinned_root == kNone) {
    QuotaInUse(where, free_v, need, unit, shape, d);
    return;
  }
  if (!req.allowed.empty() && free_v >= need) {
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
    QuotaInUse(where, free_v, need, unit, shape, d);
    return;
  }
  d->wait = Wait::kNoCell;
  d->reason = where + " has " + std::to_string(free_v) + " free " + unit +
              " but not in cells of that shape" + shape;
}

Status Engine::Submit(const Request& req, bool dry_run, Decision* out) {
  Decision d;
  std::vector<ChainId> chains;
  Status st = Validate(req, &chains, &d);
  if (!st.ok()) return st;
  if (d.outcome == Outcome::kRejected || d.wait == Wait::kVcTooSmall) {
    if (d.wait == Wait::kVcTooSmall) MarkWaiting(req.job, vc_index_.at(req.vc), req.priority);
    *out = std::move(d);
    return Status::Ok();
  }
  int slot = -1;
  JobSnapshot undo;
  bool placed = req.priority >= 0 ? SubmitGuaranteed(req, chains, &d, &undo, &slot)
                                  : SubmitOpportunistic(req, chains, &d, &slot);
  // Only a guaranteed job borrows: an opportunistic one runs on idle GPUs already.
  if (!placed && req.borrow_idle && req.priority >= 0 && d.wait == Wait::kNoCell) {
    undo.Clear();
    std::string why;
    if ((placed = SubmitBorrowed(req, chains, &slot, &why))) d = Decision();
    d.borrowed = placed;
    if (!placed && !no_reason_ && !why.empty()) d.reason += "; " + why;
  }
  if (placed) {
    d.outcome = Outcome::kPlaced;
    FillDecisionPods(jobs_[slot], &d);
    if (dry_run) {
      jobs_.next_seq--;
      Preemption(this).Revert(slot, undo);
    } else {
      waiting_.erase(req.job);
      DropStaleMemo();
    }
  } else {
    d.outcome = Outcome::kWaiting;
    if (req.priority >= 0) MarkWaiting(req.job, vc_index_.at(req.vc), req.priority);
  }
  *out = std::move(d);
  return Status::Ok();
}

// Tries the chains without preemption, then (if lower-priority jobs could make room)
// with it; a job that waits gets the reason.
bool Engine::SubmitGuaranteed(const Request& req, const std::vector<ChainId>& chains, Decision* d,
                              JobSnapshot* undo, int* slot) {
  const VcId vc = vc_index_.at(req.vc);
  const VCellId pinned_root = PinnedRoot(vc, req.pinned_id);
  const int passes = Preemption(this).Passes(req, vc, pinned_root, ShapedNeed(req, chains));
  bool placed = false, found_virtual = false;
  for (int preempt = 0; preempt < passes && !placed; preempt++)
    for (ChainId c : chains) {
      Constraints k;
      Compile(req, c, VcChainOf(vc, c), pinned_root, &k);
      auto try_one = [&](const Request& t) {
        std::vector<VCellId> vleaves;
        if (!PlaceVirtual(t, vc, c, pinned_root, preempt != 0, &vleaves)) return false;
        found_virtual = true;
        return TryCommit(t, vc, c, pinned_root, preempt != 0, vleaves, d, undo, slot);
      };
      // Only the rack rule needs copies of the request (one per rack, its nodes cut).
      if (!k.usable || !k.by_rack)
        placed = try_one(req);
      else
        for (const Request& t : RackTries(req, k, c))
          if ((placed = try_one(t))) break;
      if (placed) break;
    }
  // A count-only job splits only where the compact shape would have waited.
  if (!placed) placed = SubmitSplit(req, chains, d, undo, slot);
  if (!placed && no_reason_) d->wait = Wait::kNoCell;
  if (!placed && !no_reason_) WaitReason(req, vc, pinned_root, chains, found_virtual, d);
  return placed;
}

// The rack rule: a job that must stay inside one rack (or larger cell) of a VC that
// owns no such cell tries the racks one by one, binding only inside the rack tried
// (its allowed nodes cut to that rack). Asked under the rule only (k.by_rack).
std::vector<Request> Engine::RackTries(const Request& req, const Constraints& k, ChainId c) const {
  std::vector<Request> tries;
  const Chain& ch = chains_[c];
  const int wl = k.within_level;
  // Only racks whose idle or opportunistic (preemptible) GPUs suffice, tightest first.
  int64_t need_gpus = ShapedNeed(req, {c});
  auto room = [&](PCellId r) { return int64_t{pcells_[r].avail} + pcells_[r].opp; };
  std::vector<PCellId> racks;
  for (PCellId r : ch.cells_at_level[Level(wl)])
    if (room(r) >= need_gpus) racks.push_back(r);
  std::stable_sort(racks.begin(), racks.end(),
                   [&](PCellId a, PCellId b) { return room(a) < room(b); });
  for (PCellId r : racks) {
    Request t = req;
    std::vector<uint8_t> mask(node_names_.size(), 0);
    WalkPhysical(r, [&](PCellId x) {
      if (pcells_[x].level != ch.node_level) return Visit::kDescend;
      const int32_t n = pcells_[x].node;
      mask[n] = req.allowed.empty() || req.allowed[n];
      return Visit::kPrune;
    });
    t.allowed = std::move(mask);
    tries.push_back(std::move(t));
  }
  return tries;
}

// Commits a virtual placement. Without preemption allowed, a commit that displaced
// opportunistic jobs is first redone on idle GPUs if that keeps it as compact.
bool Engine::TryCommit(const Request& t, VcId vc, ChainId c, VCellId pinned_root, bool preempt,
                       const std::vector<VCellId>& vleaves, Decision* d, JobSnapshot* undo,
                       int* slot) {
  Decision attempt;
  undo->Clear();
  bool committed = CommitGuaranteed(t, vc, c, vleaves, &attempt, undo, slot);
  if (committed && !preempt && !attempt.preempted.empty())
    committed = CommitWithoutVictims(t, vc, c, pinned_root, vleaves, &attempt, undo, slot);
  if (committed) {
    d->preempted = attempt.preempted;
    d->lazy_preempted = attempt.lazy_preempted;
    return true;
  }
  Preemption(this).Revert(*slot,
                          *undo);  // lazy victims restored: the preemptor could not be placed
  *slot = -1;
  return false;
}

// A guaranteed job its VC's free cells hold by count but not in its shape runs on idle
// GPUs as opportunistic, demoted from its start, rather than wait while GPUs sit idle
// (the sharing anomaly inside a VC: its own small jobs hold a part of each of its node
// cells). The other VCs' guarantees hold: it only takes GPUs an opportunistic job
// could, and the first guaranteed job that needs them preempts it. Its VC's GPUs in
// jobs running so count against its free cells when it borrows, so a VC borrows no
// more than its cells have free; a later job that fits its cells still starts in
// them, and the borrowers then run beyond its quota as the opportunistic work they are.
bool Engine::SubmitBorrowed(const Request& req, const std::vector<ChainId>& chains, int* slot,
                            std::string* why) {
  if (!req.pinned_id.empty()) return false;
  const VcId vc = vc_index_.at(req.vc);
  Request o = req;
  o.priority = -1;
  for (ChainId c : chains) {
    const VcChain* vch = VcChainOf(vc, c);
    if (!vch) continue;
    int64_t free_c = 0;
    for (VCellId r : vch->roots) free_c += vcells_[r].vfree;
    if (free_c - vch->demoted_leaves < ShapedNeed(req, {c})) {
      if (vch->demoted_leaves > 0)
        *why = "its jobs running outside its cells use " + std::to_string(vch->demoted_leaves) +
               " of them, so it may not borrow idle ones";
      continue;
    }
    Decision ignored;
    if (!SubmitOpportunistic(o, {c}, &ignored, slot)) {
      *why = "no idle GPUs of that shape to borrow either";
      continue;
    }
    Job& j = jobs_[*slot];
    CountVcUse(j, -1);
    j.original_priority = Priority(req.priority);
    j.lazy = req.lazy;
    j.demoted = j.borrowed = true;
    CountVcUse(j, 1);
    return true;
  }
  return false;
}

// Idle GPUs only, in the first chain where the shaped request fits.
bool Engine::SubmitOpportunistic(const Request& req, const std::vector<ChainId>& chains,
                                 Decision* d, int* slot) {
  const VcId vc = req.vc.empty() ? VcId(kNone) : vc_index_.at(req.vc);
  for (ChainId c : chains) {
    std::vector<PCellId> pleaves;
    Request shaped;
    std::string why;
    if (!ShapeFor(req, c, &shaped, &why) || !PlacePhysical(shaped, c, &pleaves)) continue;
    OpenOpportunistic(shaped, vc, c, pleaves, slot);
    return true;
  }
  // A count-only job splits only where the compact shape would have waited.
  if (SubmitOpportunisticSplit(req, chains, slot)) return true;
  d->wait = Wait::kNoCell;
  d->reason = "no idle GPUs of that shape for an opportunistic job";
  return false;
}

void Engine::OpenOpportunistic(const Request& shaped, VcId vc, ChainId c,
                               const std::vector<PCellId>& pleaves, int* slot) {
  *slot = OpenJob(shaped, vc, c);
  jobs_[*slot].SetPods(SplitPods(shaped, pleaves, pcells_));
  for (PCellId p : pleaves) SetLeafJob(p, *slot, true);
  FlushIndexes();
  if (vc.valid()) vcs_[vc].opp_leaves += static_cast<int64_t>(pleaves.size());
}

Status Engine::Finish(const std::string& job) {
  waiting_.erase(job);  // a job cancelled while waiting: no longer waiting work
  const int slot = jobs_.Find(job);
  if (slot < 0) return Status::Err(Code::kNoEnt, "job: unknown job '" + job + "'");
  ReleaseJob(slot);
  if (jobs_.WantsCompaction()) CompactJobs();
  DropStaleMemo();
  return Status::Ok();
}

// Slots freed at a peak of jobs would otherwise stay allocated for good: at 90% busy
// they were ~20 bytes per GPU (issue 18). Live jobs from the end move into the lowest
// free slots; only between decisions, since a decision holds slot numbers.
void Engine::CompactJobs() {
  jobs_.Compact([&](const Job& j, int to) {
    for (PCellId l : j.Leaves()) pcells_[l].job = to;
    for (VCellId v : j.Vleaves()) vcells_[v].job = to;
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
  std::vector<std::vector<PCellId>> leaves;
  // GPUs the config does not have are left out rather than the job refused: its other
  // GPUs are in use all the same, and forgetting them would hand them to the next job.
  std::vector<std::string> missing;
  ChainId chain = kNone;
  Status st = RunningLeaves(rj, &leaves, &missing, &chain);
  if (!st.ok()) return st;
  VcId vc = kNone;
  if (!req.vc.empty()) {
    auto it = vc_index_.find(req.vc);
    if (it != vc_index_.end()) vc = it->second;
  }
  bool guaranteed = req.priority >= 0 && !rj.demoted && vc.valid() && missing.empty();
  waiting_.erase(req.job);
  int slot = jobs_.NewSlot();
  Job& job = jobs_[slot];
  job.name = req.job;
  job.vc = vc;
  job.vc_name = jobs_.Intern(req.vc);
  job.original_priority = Priority(req.priority);
  job.lazy = req.lazy;
  job.chain = chain;
  job.pinned_id = jobs_.Intern(req.pinned_id);
  // A recovered job on MIG slices holds that profile, whatever its record names.
  job.leaf_type = jobs_.Intern(chains_[chain].mig ? chains_[chain].leaf_type : req.leaf_type);
  job.grain = GrainOf(chain, leaves[0]);
  job.seq = rj.seq ? rj.seq : jobs_.next_seq++;
  if (rj.seq >= jobs_.next_seq) jobs_.next_seq = rj.seq + 1;
  job.priority = guaranteed ? Priority(req.priority)
                            : kOpportunistic;  // virtual leaves are counted per priority
  job.live = true;
  jobs_.Index(slot);
  for (const auto& pl : leaves) job.AddPod(pl);
  if (guaranteed) guaranteed = BindRunning(rj, vc, chain, leaves, slot);
  Job& j = jobs_[slot];
  j.priority = guaranteed ? Priority(req.priority) : kOpportunistic;
  j.demoted = !guaranteed && req.priority >= 0;
  // Demoted here (the cells of this config cannot hold it), or carried over as such.
  j.demoted_by_config = j.demoted && (rj.demoted_by_config || !rj.demoted || !missing.empty());
  j.borrowed = j.demoted && !j.demoted_by_config && rj.borrowed;
  if (dropped && !missing.empty()) {
    std::string what = req.job + ": dropped";
    for (size_t k = 0; k < missing.size(); k++) what += (k ? ", " : " ") + missing[k];
    dropped->push_back(what + "; it keeps its other GPUs" +
                       (j.demoted ? ", as opportunistic" : ""));
  }
  for (PCellId l : j.Leaves()) SetLeafJob(l, slot, !guaranteed);
  CountVcUse(j, 1);
  if (demoted) *demoted = j.demoted ? 1 : 0;
  FlushIndexes();
  return Status::Ok();
}

// The leaf cells of each pod of a running job, pods the config has none of left out
// and what is missing named in *missing; *chain is the chain they are in.
Status Engine::RunningLeaves(const RunningJob& rj, std::vector<std::vector<PCellId>>* leaves_out,
                             std::vector<std::string>* missing_out, ChainId* chain_out) const {
  auto inval = [](const std::string& m) { return Status::Err(Code::kInval, m); };
  std::vector<std::vector<PCellId>>& leaves = *leaves_out;
  std::vector<std::string>& missing = *missing_out;
  ChainId& chain = *chain_out;
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
    Status st = PodLeaves(pp, w, &leaves, &absent, &chain);
    if (!st.ok()) return st;
    // A pod holds whole GPUs or one buddy cell of one GPU: the exclusion between
    // whole-GPU and fractional work holds for recovered jobs too.
    if (!leaves.back().empty() && GrainOf(chain, leaves.back()) == 0)
      return inval(w + ".fractions: the fractions of a pod must form one aligned cell of a " +
                   "GPU (a half, a quarter, ...: slots 0-1, 2-3, 0-3, ...)");
    if (!absent.empty())
      missing.push_back("GPUs " + GpuList(absent) + " on node '" + node_names_[pp.node] + "' (" +
                        (chain != kNone ? "not in the job's chain" : "no such GPU in the config") +
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
  return Status::Ok();
}

// The leaves of one pod's GPUs (whole, or the fraction slots it names) appended to
// leaves.back(); GPUs the config lacks go to *absent. w names the pod in errors.
Status Engine::PodLeaves(const PlacedPod& pp, const std::string& w,
                         std::vector<std::vector<PCellId>>* leaves_out,
                         std::vector<int32_t>* absent_out, ChainId* chain_out) const {
  std::vector<std::vector<PCellId>>& leaves = *leaves_out;
  auto inval = [](const std::string& m) { return Status::Err(Code::kInval, m); };
  std::vector<int32_t>& absent = *absent_out;
  ChainId& chain = *chain_out;
  for (int32_t g : pp.gpus) {
    PCellId gc = FindGpuCell(pp.node, g, chain);
    if (gc == kNone) {
      absent.push_back(g);
      continue;
    }
    std::vector<PCellId> gl;
    const Chain& gch = chains_[pcells_[gc].chain];
    if (pp.fractions.empty()) {
      LeavesUnder(gc, &gl);
    } else if (gch.gpu_level == 1) {
      return inval(w + ".fractions: GPU " + std::to_string(g) + " on node '" +
                   node_names_[pp.node] + "' has no fractional cell levels");
    } else {
      for (int32_t slot : pp.fractions) {
        PCellId l = LeafAt(gc, slot);
        if (l == kNone)
          return inval(w + ".fractions: slot " + std::to_string(slot) + " is not a fraction of " +
                       "GPU " + std::to_string(g) + " (it has " +
                       std::to_string(gch.desc[Level(gch.gpu_level)][Level(1)]) + ")");
        gl.push_back(l);
      }
    }
    for (PCellId l : gl) {
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
  return Status::Ok();
}

// Binds a recovered guaranteed job's leaves to virtual leaves of its VC (the recorded
// ones, or found for each GPU); false, with nothing bound, if they cannot all be.
bool Engine::BindRunning(const RunningJob& rj, VcId vc, ChainId chain,
                         const std::vector<std::vector<PCellId>>& leaves, int slot) {
  const Request& req = rj.req;
  bool guaranteed = true;
  const VCellId pinned_root = req.pinned_id.empty() ? kNone : PinnedRoot(vc, req.pinned_id);
  if (!req.pinned_id.empty() && pinned_root == kNone) guaranteed = false;
  size_t i = 0;
  for (const auto& pl : leaves) {
    if (!guaranteed) break;
    // The pod's own lowest common ancestor: a VC cell smaller than that cannot hold it.
    int lca = 1;
    for (PCellId l : pl) {
      PCellId a = l, b = pl[0];
      while (a != b) {
        a = pcells_[a].parent;
        b = pcells_[b].parent;
      }
      lca = std::max(lca, static_cast<int>(pcells_[a].level));
    }
    for (PCellId l : pl) {
      VCellId v = i < rj.vleaves.size() ? rj.vleaves[i]
                                        : Binder(this).FindVleafFor(vc, chain, l, pinned_root, lca);
      i++;
      if (v == kNone || v.v < 0 || v.index() >= vcells_.size() || vcells_[v].vc != vc ||
          vcells_[v].level != 1 || vcells_[v].job >= 0 || !Binder(this).BindExact(v, l)) {
        guaranteed = false;
        break;
      }
      jobs_[slot].AddVleaf(v);
      SetVleafJob(v, slot);
    }
  }
  if (!guaranteed) {
    for (VCellId v : jobs_[slot].Vleaves()) {
      ClearVleafJob(v);
      Binder(this).UnbindUp(v);
    }
    jobs_[slot].ClearVleaves();
  }
  if (guaranteed) CountVleaves(slot, 1);
  return guaranteed;
}

Status Engine::SetNodeHealth(const std::string& node, bool healthy) {
  auto it = node_index_.find(node);
  if (it == node_index_.end())
    return Status::Err(Code::kNoEnt, "node: unknown node '" + node + "'");
  int32_t n = it->second;
  if ((node_bad_[n] == 0) == healthy) return Status::Ok();
  node_bad_[n] = healthy ? 0 : 1;
  for (PCellId nc : node_cells_[n]) {
    const int nl = chains_[pcells_[nc].chain].node_level;
    std::vector<PCellId> leaves;
    LeavesUnder(nc, &leaves);
    for (PCellId l : leaves) {
      // A free leaf (a VC's fraction or GPU cell split off) is refiled like any cell.
      const bool leaf_was_bad = pcells_[l].bad > 0;
      pcells_[l].bad = healthy ? 0 : 1;
      int db = healthy ? -1 : 1, da = pcells_[l].job < 0 ? -db : 0;
      for (PCellId c = l; c != kNone; c = pcells_[c].parent) {
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

// Names only: building every job's RunningJob (pods, leaves) made backfill's per-call
// job list cost far more than the names.
std::vector<std::string> Engine::JobNames() const {
  std::vector<std::string> out;
  const std::vector<int> slots = jobs_.InSubmissionOrder();
  out.reserve(slots.size());
  for (int s : slots) out.push_back(jobs_[s].name);
  return out;
}

std::vector<RunningJob> Engine::RunningJobs() const {
  std::vector<RunningJob> out;
  for (int s : jobs_.InSubmissionOrder()) {
    const Job* j = &jobs_[s];
    RunningJob rj;
    rj.req.job = j->name;
    rj.req.vc = j->vc.valid() ? vcs_[j->vc].name : jobs_.Str(j->vc_name);
    rj.req.priority = j->original_priority.v;
    rj.req.lazy = j->lazy;
    rj.req.pinned_id = jobs_.Str(j->pinned_id);
    rj.req.leaf_type = jobs_.Str(j->leaf_type);
    rj.demoted = j->demoted;
    rj.demoted_by_config = j->demoted_by_config;
    rj.borrowed = j->borrowed;
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

std::vector<Engine::WaitingJob> Engine::WaitingJobs() const {
  std::vector<WaitingJob> out;
  for (const auto& [job, mark] : waiting_)
    out.push_back(WaitingJob{job, vcs_[mark.vc].name, mark.priority});
  return out;
}

// Unknown VCs (gone in a new config) and running jobs are ignored.
void Engine::NoteWaiting(const std::string& job, const std::string& vc, int priority) {
  auto it = vc_index_.find(vc);
  if (it != vc_index_.end() && jobs_.Find(job) < 0) MarkWaiting(job, it->second, priority);
}

size_t Engine::ForgetWaiting(bool (*keep)(const char* job, void* arg), void* arg) {
  size_t gone = 0;
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    if (keep(it->first.c_str(), arg)) {
      ++it;
    } else {
      it = waiting_.erase(it);
      ++gone;
    }
  }
  return gone;
}

// A host may never finish a job that is cancelled while it waits (Slurm calls no
// select hook then): past a bound, every mark goes, and the jobs that really wait
// mark themselves again at their next decision.
void Engine::MarkWaiting(const std::string& job, VcId vc, int priority) {
  if (trial_) return;  // a job only asked about waits nowhere
  constexpr size_t kMaxWaitingMarks = 10000;
  if (waiting_.size() >= kMaxWaitingMarks && !waiting_.count(job)) waiting_.clear();
  waiting_[job] = WaitMark{vc, priority};
}

}  // namespace hived
