// SPDX-License-Identifier: GPL-2.0-or-later
#include "sched_hived.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <queue>

namespace hivedsim {

std::unique_ptr<HivedScheduler> HivedScheduler::Create(const Trace& t, const std::string& conf,
                                                       const ClusterShape& shape,
                                                       const std::vector<VcCells>& cells,
                                                       bool opportunistic, std::string* err) {
  std::unique_ptr<HivedScheduler> s(new HivedScheduler(t));
  char errbuf[1024] = "";
  if (hived_engine_new(conf.c_str(), &s->e_, errbuf, sizeof errbuf) != HIVED_OK) {
    *err = std::string("hived.conf refused by the engine: ") + errbuf;
    return nullptr;
  }
  const int nodes = shape.nodes;
  size_t en = hived_node_count(s->e_);
  if (en != static_cast<size_t>(nodes)) {
    *err = "the engine has " + std::to_string(en) + " nodes, expected " + std::to_string(nodes);
    return nullptr;
  }
  std::unordered_map<std::string, int> ours;
  for (int n = 0; n < nodes; n++) ours[NodeName(n, nodes)] = n;
  s->node_of_engine_.resize(en);
  s->engine_of_node_.resize(en);
  for (size_t i = 0; i < en; i++) {
    s->node_of_engine_[i] = ours.at(hived_node_name(s->e_, i));
    s->engine_of_node_[s->node_of_engine_[i]] = static_cast<int>(i);
  }
  const size_t nv = t.vcs.size();
  s->opportunistic_ = opportunistic;
  s->pool_ = NodePool(nodes);
  s->quota_.assign(nv, 0);
  s->node_cells_.assign(nv, 0);
  for (size_t v = 0; v < nv && v < cells.size(); v++) {
    s->quota_[v] = cells[v].Gpus(shape.rack_nodes);
    s->node_cells_[v] = cells[v].racks * shape.rack_nodes + cells[v].nodes;
  }
  s->used_.assign(nv, 0);
  s->footprint_.resize(nv);
  s->pending_.resize(nv);
  s->vc_version_.assign(nv, 1);
  s->running_g_.resize(nv);
  s->res_.resize(nv);
  s->names_.resize(t.jobs.size());
  s->placed_.resize(t.jobs.size());
  s->running_opp_.assign(t.jobs.size(), 0);
  s->tried_g_.assign(t.jobs.size(), 0);
  s->tried_o_.assign(t.jobs.size(), 0);
  s->end_of_.assign(t.jobs.size(), 0);
  s->scan_version_.assign(nv, 0);
  s->scan_phys_.assign(nv, 0);
  s->scan_upto_.assign(nv, -1);
  if (const char* every = getenv("HIVEDSIM_CHECK_EVERY")) s->check_every_ = atol(every);
  s->pending_.resize(nv);
  std::map<std::vector<int>, int> shapes;
  s->shape_of_.resize(t.jobs.size());
  for (size_t i = 0; i < t.jobs.size(); i++) {
    auto it = shapes.emplace(t.jobs[i].pods, static_cast<int>(shapes.size())).first;
    s->shape_of_[i] = it->second;
  }
  s->shapes_ = static_cast<int>(shapes.size());
  s->failed_any_.assign(s->shapes_, 0);
  s->failed_avoid_.assign(s->shapes_, 0);
  s->opp_dead_.assign(s->shapes_, 0);
  return s;
}

HivedScheduler::~HivedScheduler() { hived_engine_free(e_); }

size_t HivedScheduler::Pending() const {
  size_t n = 0;
  for (const auto& q : pending_) n += q.Size();
  return n;
}

std::string HivedScheduler::CheckInvariants() const {
  char buf[1024] = "";
  return hived_check_invariants(e_, buf, sizeof buf) == HIVED_OK ? "" : buf;
}

void HivedScheduler::Submit(int job) {
  const TraceJob& j = t_.jobs[job];
  if (j.gpus > quota_[j.vc]) {
    rejects_.push_back({job, "needs " + std::to_string(j.gpus) + " GPUs, more than its VC's " +
                                 std::to_string(quota_[j.vc]) + " GPUs of cells"});
    return;
  }
  if (names_[job].empty()) names_[job] = "j" + std::to_string(job);
  Enqueue(job);
}

void HivedScheduler::Enqueue(int job) {
  pending_[t_.jobs[job].vc].Insert(job, shape_of_[job], t_.jobs[job].duration);
}

void HivedScheduler::Dequeue(int job) {
  pending_[t_.jobs[job].vc].Erase(job, shape_of_[job], t_.jobs[job].duration);
}

hived_outcome HivedScheduler::Decide(int job, int priority, const uint8_t* allowed, bool dry_run,
                                     Placement* p, std::vector<int>* victims, std::string* why) {
  const TraceJob& j = t_.jobs[job];
  // Pods come biggest first; equal sizes form one member.
  std::vector<hived_member> members;
  for (int g : j.pods) {
    if (!members.empty() && members.back().leaf_cell_number == g)
      members.back().pod_number++;
    else
      members.push_back({1, g});
  }
  hived_job_request req = {};
  req.job = names_[job].c_str();
  req.vc = t_.vcs[j.vc].c_str();
  req.priority = priority;
  req.members = members.data();
  req.n_members = members.size();
  req.allowed_nodes = allowed;
  const hived_decision* d = nullptr;
  engine_calls_++;
  hived_rc rc = hived_submit(e_, &req, dry_run ? 1 : 0, &d);
  if (rc != HIVED_OK) {
    *why = std::string("engine error: ") + hived_rc_str(rc) + ": " + hived_last_error(e_);
    return HIVED_REJECTED;
  }
  if (d->outcome != HIVED_PLACED) {
    *why = d->reason ? d->reason : "";
    // The simulated VCs' quotas never grow: a job larger than its VC never runs.
    if (d->outcome == HIVED_WAITING && d->wait_kind == HIVED_WAIT_VC_TOO_SMALL)
      return HIVED_REJECTED;
    return d->outcome;
  }
  p->clear();
  for (size_t i = 0; i < d->n_pods; i++) {
    PodPlace pp;
    pp.node = node_of_engine_[d->pods[i].node];
    for (int32_t k = 0; k < d->pods[i].n_leaves; k++)
      pp.mask |= static_cast<uint8_t>(1u << d->pods[i].leaves[k]);
    p->push_back(pp);
  }
  victims->clear();
  for (size_t i = 0; i < d->n_preempted; i++) victims->push_back(atoi(d->preempted[i] + 1));
  return HIVED_PLACED;
}

void HivedScheduler::Started(int job, const Placement& p, bool opportunistic) {
  const TraceJob& j = t_.jobs[job];
  Dequeue(job);
  pool_.Take(p);
  placed_[job] = p;
  running_opp_[job] = opportunistic;
  if (opportunistic) return;
  used_[j.vc] += j.gpus;
  running_g_[j.vc].insert({end_of_[job], job});
  for (const auto& pod : p) footprint_[j.vc][pod.node] += __builtin_popcount(pod.mask);
}

void HivedScheduler::Released(int job) {
  const TraceJob& j = t_.jobs[job];
  pool_.Give(placed_[job]);
  phys_version_++;
  if (!running_opp_[job]) {
    used_[j.vc] -= j.gpus;
    vc_version_[j.vc]++;
    running_g_[j.vc].erase({end_of_[job], job});
    for (const auto& pod : placed_[job]) {
      auto it = footprint_[j.vc].find(pod.node);
      if ((it->second -= __builtin_popcount(pod.mask)) == 0) {
        footprint_[j.vc].erase(it);
        Unbound(j.vc, pod.node);
      }
    }
  }
  placed_[job].clear();
}

void HivedScheduler::Finish(int job) {
  hived_finish(e_, names_[job].c_str());
  Released(job);
}

bool HivedScheduler::TryStart(int job, Mode mode, Runner& r,
                              std::vector<std::pair<int, int>>* requeued) {
  const TraceJob& j = t_.jobs[job];
  const int v = j.vc;
  Placement p;
  std::vector<int> victims;
  std::string why;
  bool placed = false, opportunistic = false;
  end_of_[job] = r.Now() + j.duration;
  if (mode != Mode::kOpportunisticOnly && tried_g_[job] != vc_version_[v]) {
    if (used_[v] + j.gpus <= quota_[v]) {
      if (mode == Mode::kAvoidReserved) {
        placed = GuaranteedAvoiding(job, res_[v], &p, &victims, &why);
      } else {
        hived_outcome o = Decide(job, 0, nullptr, false, &p, &victims, &why);
        if (o == HIVED_REJECTED) {
          Dequeue(job);
          r.Reject(job, why);
          return true;
        }
        placed = o == HIVED_PLACED;
      }
    }
    if (!placed) tried_g_[job] = vc_version_[v];
  }
  if (!placed && opportunistic_ && tried_o_[job] != phys_version_) {
    if (pool_.GangFits(j.pods))
      placed = opportunistic = Decide(job, HIVED_PRIORITY_OPPORTUNISTIC, nullptr, false, &p,
                                      &victims, &why) == HIVED_PLACED;
    if (!placed) tried_o_[job] = phys_version_;
  }
  if (!placed) return false;
  // The engine has already released the victims; requeue them in their VCs.
  for (int victim : victims) {
    r.Preempt(victim);
    Released(victim);
    int vv = t_.jobs[victim].vc;
    Enqueue(victim);
    requeued->push_back({victim, vv});
  }
  Started(job, p, opportunistic);
  r.Start(job, p, opportunistic);
  return true;
}

void HivedScheduler::Schedule(Runner& r) {
  for (const auto& [job, why] : rejects_) r.Reject(job, why);
  rejects_.clear();
  // HIVEDSIM_CHECK_EVERY=N: run the engine's invariant checker every N passes and stop
  // at the first violation (a debugging aid; it costs a full walk of the engine).
  if (check_every_ > 0 && ++passes_ % check_every_ == 0 && error_.empty()) {
    std::string bad = CheckInvariants();
    if (!bad.empty())
      error_ = "engine invariant violated at t=" + std::to_string(r.Now()) + ": " + bad;
  }
  const double now = r.Now();
  using Head = std::pair<int, int>;  // (job, vc): VCs served in the order of their first jobs
  std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heads;
  for (size_t v = 0; v < pending_.size(); v++)
    if (!pending_[v].Empty()) heads.push({pending_[v].Head(), static_cast<int>(v)});
  std::vector<std::pair<int, int>> requeued;
  auto push_requeued = [&] {
    for (const auto& [job, vv] : requeued) heads.push({pending_[vv].Head(), vv});
    requeued.clear();
  };
  while (!heads.empty()) {
    auto [job, v] = heads.top();
    heads.pop();
    if (pending_[v].Empty() || pending_[v].Head() != job) continue;
    if (TryStart(job, Mode::kAny, r, &requeued)) {
      push_requeued();
      if (!pending_[v].Empty()) heads.push({pending_[v].Head(), v});
      continue;
    }
    Backfill(v, job, now, r, &requeued);
    push_requeued();
  }
}

}  // namespace hivedsim
