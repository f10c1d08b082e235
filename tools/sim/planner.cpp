// SPDX-License-Identifier: GPL-2.0-or-later
// Greedy search over each VC's cell types: start from the default cells (whole nodes
// plus a socket/pair/GPU remainder), try one change at a time (node cells into a
// rack cell for VCs with multi-node jobs, a node into two sockets for VCs whose jobs
// fit a socket, the reverse of both, and with --rebalance one node from the VC that
// waits least to the one that waits most), keep the change that lowers the score
// most, and stop when none does. Every candidate must pass the engine's own check
// (hived_engine_new) and is judged by a short simulation of the hived policy.
#include "planner.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "cluster.h"
#include "quota.h"
#include "report.h"
#include "study.h"

namespace hivedsim {

namespace {

struct Score {
  double value = 0;  // mean delay + mean extra wait over private, hours per job
  double delay_h = 0, anomaly_h = 0, affinity = 1;
  size_t anomaly_jobs = 0;
  Metrics m;
};

class Planner {
 public:
  // `jobs` are simulated; the cells must still suit every job of the study (a VC
  // whose big jobs come after the planning window keeps cells for them).
  Planner(const Study& base, std::vector<int> jobs, const PolicyOptions& opt,
          const std::string& policy)
      : base_(base), jobs_(std::move(jobs)), opt_(opt), policy_(policy) {
    for (int j : jobs_) by_vc_[base_.trace.jobs[j].vc].push_back(j);
    Trace all;
    all.vcs = base_.trace.vcs;
    for (int j : base_.jobs) {
      const TraceJob& tj = base_.trace.jobs[j];
      if (tj.pods.size() > 1) multi_node_[tj.vc] = true;
      max_pod_[tj.vc] = std::max(max_pod_[tj.vc], tj.pods.front());
      all.jobs.push_back(tj);
    }
    for (size_t v = 0; v < all.vcs.size(); v++) floor_[v] = FloorGpus(all, static_cast<int>(v));
  }

  bool Evaluate(const Setup& s, Score* out, std::string* err) {
    std::string why;
    if (!ValidateSetup(base_.trace, s, &why)) return false;
    Study st;
    st.trace = base_.trace;  // shares nothing mutable with base_
    st.jobs = jobs_;
    st.setup = s;
    SimResult run, priv;
    if (!RunNamedPolicy(policy_, st, opt_, &run, err)) return false;
    priv.policy = "private";
    priv.jobs.assign(base_.trace.jobs.size(), JobOutcome());
    for (const auto& [v, js] : by_vc_) {
      std::string key = std::to_string(v) + ":" + s.cells[v].Describe(s.shape.rack_nodes);
      auto it = private_cache_.find(key);
      if (it == private_cache_.end()) {
        SimResult one;
        if (!RunPolicy("private", base_.trace, js, s, opt_, &one, err)) return false;
        it = private_cache_.emplace(key, std::move(one)).first;
      }
      for (int j : js) priv.jobs[j] = it->second.jobs[j];
    }
    out->m = Summarize(base_.trace, run, &priv, 1);
    const VcMetrics& o = out->m.overall;
    size_t n = std::max<size_t>(1, o.delay.n);
    out->delay_h = o.delay.mean / 3600;
    out->anomaly_h = o.anomaly_minutes / 60 / n;
    out->anomaly_jobs = o.anomaly_jobs;
    out->affinity = o.multi_gpu ? static_cast<double>(o.multi_best) / o.multi_gpu : 1;
    out->value = out->delay_h + out->anomaly_h;
    evaluated_++;
    return true;
  }

  // Single changes to try from `s`, each with a description.
  std::vector<std::pair<std::string, Setup>> Moves(const Setup& s, bool rebalance,
                                                   const Score& cur) {
    std::vector<std::pair<std::string, Setup>> out;
    const int rn = s.shape.rack_nodes;
    for (const auto& [v, js] : by_vc_) {
      const VcCells& c = s.cells[v];
      const std::string& name = base_.trace.vcs[v];
      if (rn > 0 && multi_node_[v] && c.nodes >= rn) {
        Setup n = s;
        n.cells[v].nodes -= rn;
        n.cells[v].racks++;
        out.push_back({name + ": " + std::to_string(rn) + " nodes -> 1 rack", n});
      }
      if (rn > 0 && c.racks > 0) {
        Setup n = s;
        n.cells[v].racks--;
        n.cells[v].nodes += rn;
        out.push_back({name + ": 1 rack -> " + std::to_string(rn) + " nodes", n});
      }
      if (max_pod_[v] <= 4 && c.nodes > 0) {
        Setup n = s;
        n.cells[v].nodes--;
        n.cells[v].sockets += 2;
        out.push_back({name + ": 1 node -> 2 sockets", n});
      }
      if (c.sockets >= 2) {
        Setup n = s;
        n.cells[v].sockets -= 2;
        n.cells[v].nodes++;
        out.push_back({name + ": 2 sockets -> 1 node", n});
      }
    }
    if (rebalance) {
      // From the VCs that wait least to those that wait most, one node at a time,
      // never below a VC's largest job.
      std::vector<std::pair<double, int>> waits;
      for (const auto& v : cur.m.vcs) waits.push_back({v.delay.mean, base_.trace.FindVc(v.vc)});
      std::sort(waits.begin(), waits.end());
      for (size_t a = 0; a < std::min<size_t>(3, waits.size()); a++)
        for (size_t b = waits.size();
             b-- > std::max<size_t>(waits.size() > 3 ? waits.size() - 3 : 0, a + 1);) {
          int from = waits[a].second, to = waits[b].second;
          const VcCells& c = s.cells[from];
          if (c.nodes < 1) continue;
          if (c.Gpus(rn) - kGpusPerNode < floor_[from]) continue;
          Setup n = s;
          n.cells[from].nodes--;
          n.cells[to].nodes++;
          out.push_back({"1 node from " + base_.trace.vcs[from] + " to " + base_.trace.vcs[to], n});
        }
    }
    return out;
  }

  size_t Evaluated() const { return evaluated_; }

 private:
  const Study& base_;
  std::vector<int> jobs_;
  PolicyOptions opt_;
  std::string policy_;
  std::map<int, std::vector<int>> by_vc_;
  std::map<int, bool> multi_node_;
  std::map<int, int> max_pod_;
  std::map<int, int> floor_;  // GPUs of each VC's largest job, in whole nodes
  std::map<std::string, SimResult> private_cache_;
  size_t evaluated_ = 0;
};

std::string Row(const char* what, const Score& s) {
  char b[256];
  snprintf(b, sizeof b,
           "%-22s score %8.3f h/job  (mean delay %.3f h, anomaly %zu jobs / %.3f h per job, best "
           "affinity %.1f%%)\n",
           what, s.value, s.delay_h, s.anomaly_jobs, s.anomaly_h, 100 * s.affinity);
  return b;
}

std::string VcTable(const Study& s, const Setup& before, const Setup& after, const Score& sb,
                    const Score& sa) {
  std::string o;
  char b[400];
  snprintf(b, sizeof b, "%-12s %-34s %-34s %10s %10s %9s %9s\n", "vc", "cells (before)",
           "cells (proposed)", "delay_h", "delay_h'", "anomaly", "anomaly'");
  o += b;
  for (size_t i = 0; i < sa.m.vcs.size() && i < sb.m.vcs.size(); i++) {
    int v = s.trace.FindVc(sa.m.vcs[i].vc);
    char an0[32], an1[32];
    snprintf(an0, sizeof an0, "%zu", sb.m.vcs[i].anomaly_jobs);
    snprintf(an1, sizeof an1, "%zu", sa.m.vcs[i].anomaly_jobs);
    snprintf(b, sizeof b, "%-12s %-34s %-34s %10.2f %10.2f %9s %9s\n", sa.m.vcs[i].vc.c_str(),
             before.cells[v].Describe(before.shape.rack_nodes).c_str(),
             after.cells[v].Describe(after.shape.rack_nodes).c_str(), sb.m.vcs[i].delay.mean / 3600,
             sa.m.vcs[i].delay.mean / 3600, an0, an1);
    o += b;
  }
  return o;
}

}  // namespace

bool Plan(const StudyConfig& sc, const Selection& plan_sel, int rounds, bool rebalance,
          PlanOutcome* out, std::string* err) {
  Study s;
  if (!PrepareStudy(sc, &s, err)) return false;
  // The planning window: from plan_sel.start, plan_sel.max_jobs jobs or plan_sel.duration
  // of the selection (default: 20000 jobs).
  std::vector<int> plan_jobs;
  double from = s.trace.jobs[s.jobs.front()].submit + plan_sel.start;
  size_t cap = plan_sel.max_jobs ? plan_sel.max_jobs : (plan_sel.duration < 0 ? 20000 : SIZE_MAX);
  for (int j : s.jobs) {
    double t = s.trace.jobs[j].submit;
    if (t < from) continue;
    if (plan_sel.duration >= 0 && t >= from + plan_sel.duration) break;
    plan_jobs.push_back(j);
    if (plan_jobs.size() >= cap) break;
  }
  if (plan_jobs.empty()) {
    *err = "no jobs in the planning window";
    return false;
  }
  std::string policy = "hived";
  for (const auto& p : sc.policies)
    if (p == "hived-noopp") policy = p;
  Planner planner(s, plan_jobs, sc.popt, policy);
  Setup cur = s.setup, start = s.setup;
  Score cur_score;
  if (!planner.Evaluate(cur, &cur_score, err)) {
    if (err->empty()) *err = "the starting cells do not fit";
    return false;
  }
  Score start_score = cur_score;
  std::string log;
  for (int round = 0; round < rounds; round++) {
    std::string best_what;
    Setup best;
    Score best_score;
    bool found = false;
    for (auto& [what, cand] : planner.Moves(cur, rebalance, cur_score)) {
      Score score;
      err->clear();
      if (!planner.Evaluate(cand, &score, err)) {
        if (!err->empty()) return false;
        continue;  // the engine refuses these cells
      }
      bool better =
          score.value < cur_score.value - 1e-9 ||
          (score.value <= cur_score.value + 1e-9 && score.affinity > cur_score.affinity + 0.005);
      if (better && (!found || score.value < best_score.value ||
                     (score.value == best_score.value && score.affinity > best_score.affinity))) {
        found = true;
        best = cand;
        best_score = score;
        best_what = what;
      }
    }
    if (!found) break;
    cur = best;
    cur_score = best_score;
    log += "  round " + std::to_string(round + 1) + ": " + best_what + "\n";
  }
  out->conf = MakeHivedConf(cur.shape, s.trace.vcs, cur.cells);
  out->summary = std::to_string(plan_jobs.size()) + " jobs simulated per candidate (" + policy +
                 " policy), " + std::to_string(planner.Evaluated()) + " candidates judged\n";
  out->summary += log.empty() ? "  no change improves on the default cells\n" : log;
  out->summary += Row("default cells:", start_score);
  out->summary += Row("proposed cells:", cur_score);
  out->summary += VcTable(s, start, cur, start_score, cur_score);
  // A short window can flatter a change (with opportunistic use, small changes in
  // where cells bind move other VCs' figures too): check the proposal on every job.
  if (!log.empty() && plan_jobs.size() < s.jobs.size()) {
    Planner whole(s, s.jobs, sc.popt, policy);
    Score a, b;
    if (!whole.Evaluate(start, &a, err) || !whole.Evaluate(cur, &b, err)) return false;
    out->summary += "on all " + std::to_string(s.jobs.size()) + " jobs of the selection:\n";
    out->summary += Row("default cells:", a);
    out->summary += Row("proposed cells:", b);
  }
  return true;
}

int RunPlanner(const Cli& c) {
  PlanOutcome out;
  std::string err;
  if (!Plan(c.study, c.plan_sel, c.rounds, c.rebalance, &out, &err)) {
    fprintf(stderr, "hived-sim plan: %s\n", err.c_str());
    return 1;
  }
  if (!c.out.empty()) {
    if (!WriteFile(c.out, out.conf, &err)) {
      fprintf(stderr, "hived-sim plan: %s\n", err.c_str());
      return 1;
    }
  } else {
    fputs(out.conf.c_str(), stdout);
  }
  fputs(("hived-sim plan: " + out.summary).c_str(), stderr);
  return 0;
}

}  // namespace hivedsim
