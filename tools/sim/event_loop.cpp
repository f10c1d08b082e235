// SPDX-License-Identifier: GPL-2.0-or-later
// Discrete-event replay: arrivals from the trace, completions from a heap; at each
// instant completions are handled first, then arrivals, then one scheduling pass.
#include <chrono>
#include <queue>

#include "sim.h"

namespace hivedsim {

bool BestAffinity(const Placement& p, int rack_nodes) {
  if (p.size() == 1) {
    uint8_t m = p[0].mask;
    int g = __builtin_popcount(m);
    if (g == 2) return m == 0x03 || m == 0x0c || m == 0x30 || m == 0xc0;
    if (g <= 4) return (m & 0x0f) == m || (m & 0xf0) == m;
    return true;
  }
  if (rack_nodes <= 0) return true;
  std::vector<int> racks;
  for (const auto& pod : p) {
    int r = pod.node / rack_nodes;
    bool seen = false;
    for (int x : racks) seen |= x == r;
    if (!seen) racks.push_back(r);
  }
  size_t best = (p.size() + rack_nodes - 1) / rack_nodes;
  return racks.size() <= best;
}

namespace {

struct Completion {
  double time;
  int job;
  uint32_t gen;
  bool operator>(const Completion& o) const {
    if (time != o.time) return time > o.time;
    return job > o.job;
  }
};

class Loop : public Runner {
 public:
  Loop(const Trace& t, int rack_nodes, SimResult* res) : t_(t), rack_nodes_(rack_nodes), res_(res) {
    gen_.assign(t.jobs.size(), 0);
    run_start_.assign(t.jobs.size(), -1);
    run_opp_.assign(t.jobs.size(), 0);
  }
  double Now() const override { return now_; }
  void Start(int job, const Placement& p, bool opportunistic) override {
    JobOutcome& o = res_->jobs[job];
    if (o.first_start < 0) o.first_start = now_;
    o.starts++;
    o.opportunistic = opportunistic;
    o.best_affinity = BestAffinity(p, rack_nodes_);
    run_start_[job] = now_;
    run_opp_[job] = opportunistic;
    heap_.push({now_ + t_.jobs[job].duration, job, ++gen_[job]});
  }
  void Preempt(int job) override {
    JobOutcome& o = res_->jobs[job];
    o.preemptions++;
    o.lost_gpu_seconds += (now_ - run_start_[job]) * t_.jobs[job].gpus;
    EndRun(job);
    ++gen_[job];  // its completion in the heap is void
  }
  void Reject(int job, const std::string& why) override {
    res_->jobs[job].rejected = true;
    res_->jobs[job].reject_reason = why;
  }

  void Run(const std::vector<int>& jobs, Scheduler& s) {
    size_t next = 0;
    while (next < jobs.size() || !heap_.empty()) {
      double t = heap_.empty() ? t_.jobs[jobs[next]].submit : heap_.top().time;
      if (next < jobs.size() && t_.jobs[jobs[next]].submit < t) t = t_.jobs[jobs[next]].submit;
      now_ = t;
      while (!heap_.empty() && heap_.top().time == t) {
        Completion c = heap_.top();
        heap_.pop();
        if (c.gen != gen_[c.job]) continue;
        JobOutcome& o = res_->jobs[c.job];
        o.finished = true;
        o.finish = t;
        EndRun(c.job);
        s.Finish(c.job);
      }
      while (next < jobs.size() && t_.jobs[jobs[next]].submit == t) {
        res_->jobs[jobs[next]].in_run = true;
        s.Submit(jobs[next++]);
      }
      s.Schedule(*this);
      if (!(res_->error = s.Error()).empty()) return;
    }
    res_->stuck = s.Pending();
  }

 private:
  void EndRun(int job) {
    const TraceJob& j = t_.jobs[job];
    res_->runs.push_back({run_start_[job], now_, j.gpus, j.vc, run_opp_[job] != 0});
  }
  const Trace& t_;
  int rack_nodes_;
  SimResult* res_;
  double now_ = 0;
  std::priority_queue<Completion, std::vector<Completion>, std::greater<Completion>> heap_;
  std::vector<uint32_t> gen_;
  std::vector<double> run_start_;
  std::vector<uint8_t> run_opp_;
};

}  // namespace

SimResult RunEvents(const Trace& t, const std::vector<int>& jobs, Scheduler& s, int rack_nodes) {
  auto t0 = std::chrono::steady_clock::now();
  SimResult res;
  res.jobs.assign(t.jobs.size(), JobOutcome());
  Loop loop(t, rack_nodes, &res);
  loop.Run(jobs, s);
  res.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace hivedsim
