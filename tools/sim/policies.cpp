// SPDX-License-Identifier: GPL-2.0-or-later
#include "policies.h"

#include <chrono>

#include "sched_hived.h"

namespace hivedsim {

std::vector<int64_t> Setup::QuotaGpus() const {
  std::vector<int64_t> q;
  for (const auto& c : cells) q.push_back(c.Gpus(shape.rack_nodes));
  return q;
}

bool ValidateSetup(const Trace& t, const Setup& s, std::string* err) {
  if (s.shape.nodes <= 0) {
    *err = "the cluster needs at least one node";
    return false;
  }
  if (s.shape.rack_nodes > 0 && s.shape.nodes % s.shape.rack_nodes) {
    *err = "--nodes (" + std::to_string(s.shape.nodes) + ") must be a multiple of --rack-nodes (" +
           std::to_string(s.shape.rack_nodes) + ")";
    return false;
  }
  int64_t sum = 0;
  for (int64_t q : s.QuotaGpus()) sum += q;
  if (sum > s.shape.Gpus()) {
    *err = "the VCs' quotas add up to " + std::to_string(sum) + " GPUs but the cluster has " +
           std::to_string(s.shape.Gpus());
    return false;
  }
  hived_engine* e = nullptr;
  char buf[1024] = "";
  std::string conf = MakeHivedConf(s.shape, t.vcs, s.cells);
  if (hived_engine_new(conf.c_str(), &e, buf, sizeof buf) != HIVED_OK) {
    *err = std::string("the engine refuses these cells: ") + buf;
    return false;
  }
  hived_engine_free(e);
  return true;
}

namespace {

bool RunHived(const Trace& t, const std::vector<int>& jobs, const Setup& s, bool opportunistic,
              SimResult* out, std::string* err) {
  auto sched = HivedScheduler::Create(t, MakeHivedConf(s.shape, t.vcs, s.cells), s.shape, s.cells,
                                      opportunistic, err);
  if (!sched) return false;
  *out = RunEvents(t, jobs, *sched, s.shape.rack_nodes);
  out->cluster_gpus = s.shape.Gpus();
  if (!out->error.empty()) *err = out->error;
  return out->error.empty();
}

// Every VC alone on a cluster of exactly its cells: run by the engine (the VC owns
// everything), or with `quota_sched` by the quota policy on ceil(GPUs/8) nodes.
bool RunPrivate(const Trace& t, const std::vector<int>& jobs, const Setup& s, bool quota_sched,
                const PolicyOptions& opt, SimResult* out, std::string* err) {
  auto t0 = std::chrono::steady_clock::now();
  SimResult all;
  all.jobs.assign(t.jobs.size(), JobOutcome());
  std::vector<std::vector<int>> by_vc(t.vcs.size());
  for (int j : jobs) by_vc[t.jobs[j].vc].push_back(j);
  for (size_t v = 0; v < t.vcs.size(); v++) {
    if (by_vc[v].empty()) continue;
    Setup own;
    own.cells.assign(t.vcs.size(), VcCells());
    own.cells[v] = s.cells[v];
    int64_t gpus = own.cells[v].Gpus(s.shape.rack_nodes);
    all.cluster_gpus += gpus;
    if (gpus == 0) {
      for (int j : by_vc[v]) {
        all.jobs[j].in_run = all.jobs[j].rejected = true;
        all.jobs[j].reject_reason = "its VC has no cells";
      }
      continue;
    }
    own.shape = PrivateShape(own.cells[v], s.shape.rack_nodes);
    SimResult one;
    if (quota_sched) {
      std::vector<int64_t> caps(t.vcs.size(), 0);
      caps[v] = gpus;
      QuotaScheduler q(t, static_cast<int>((gpus + kGpusPerNode - 1) / kGpusPerNode), caps,
                       opt.quota);
      one = RunEvents(t, by_vc[v], q, s.shape.rack_nodes);
    } else if (!RunHived(t, by_vc[v], own, false, &one, err)) {
      *err = "private cluster of VC " + t.vcs[v] + ": " + *err;
      return false;
    }
    for (int j : by_vc[v]) all.jobs[j] = one.jobs[j];
    all.runs.insert(all.runs.end(), one.runs.begin(), one.runs.end());
    all.stuck += one.stuck;
  }
  all.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  *out = std::move(all);
  return true;
}

}  // namespace

bool RunPolicy(const std::string& policy, const Trace& t, const std::vector<int>& jobs,
               const Setup& s, const PolicyOptions& opt, SimResult* out, std::string* err) {
  bool ok;
  if (policy == "hived") {
    ok = RunHived(t, jobs, s, opt.opportunistic, out, err);
  } else if (policy == "quota") {
    QuotaScheduler q(t, s.shape.nodes, s.QuotaGpus(), opt.quota);
    *out = RunEvents(t, jobs, q, s.shape.rack_nodes);
    out->cluster_gpus = s.shape.Gpus();
    ok = true;
  } else if (policy == "private" || policy == "private-quota") {
    ok = RunPrivate(t, jobs, s, policy == "private-quota", opt, out, err);
  } else {
    *err = "unknown policy '" + policy + "' (hived, quota, private or private-quota)";
    return false;
  }
  if (!ok) return false;
  out->policy = policy;
  if (policy == "hived" && !opt.opportunistic) out->policy = "hived-noopp";
  out->vc_gpus = s.QuotaGpus();
  return true;
}

}  // namespace hivedsim
