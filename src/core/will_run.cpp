// SPDX-License-Identifier: GPL-2.0-or-later
// Backfill's WILL_RUN on the live engine: a trial that is undone, not a copy.
//
// Copying the engine costs O(cluster) per question (every cell, free list and index),
// and backfill asks once per pending job per pass under slurmctld's locks. The trial
// touches only what the answer needs: the jobs that end before the asked job fits
// are released (ReleaseJob: their cells, bindings and counters), the job is tried as
// a dry run (which undoes itself, as every dry run does), and the released jobs are
// reinstated exactly (Reinstate: the same physical and virtual leaves, so the same
// bindings) - the machinery preemption's rollback already relies on. The cost is
// that of the releases, the tries and the reinstatements: O(GPUs of the jobs ended)
// plus one decision per distinct end time, independent of the cluster's size.
#include <algorithm>

#include "core/engine.h"

namespace hived {

namespace {

// Marks the engine as inside a trial for as long as it lives.
class TrialScope {
 public:
  explicit TrialScope(bool* flag) : flag_(flag) { *flag_ = true; }
  ~TrialScope() { *flag_ = false; }
  TrialScope(const TrialScope&) = delete;
  TrialScope& operator=(const TrialScope&) = delete;

 private:
  bool* flag_;
};

}  // namespace

Status Engine::WillRun(const Request& req, const std::vector<JobEnd>& ends, Decision* out,
                       int64_t* start) {
  *start = -1;
  // Earliest end first; equal end times keep the caller's order and end together.
  std::vector<const JobEnd*> order;
  order.reserve(ends.size());
  for (const JobEnd& e : ends)
    if (e.end > 0 && job_index_.count(e.job)) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(),
                   [](const JobEnd* a, const JobEnd* b) { return a->end < b->end; });

  TrialScope trial(&trial_);
  std::vector<Job> ended;
  ended.reserve(order.size());
  // Everything released comes back, even when a decision throws (out of memory).
  auto restore = [&] {
    // Guaranteed jobs first: they need their exact bindings back before
    // opportunistic work lands on the same free cells' lists.
    for (int pass = 0; pass < 2; pass++)
      for (auto it = ended.rbegin(); it != ended.rend(); ++it)
        if (it->guaranteed() == (pass == 0)) Reinstate(*it);
    ended.clear();
  };
  try {
    Decision d;
    Status st = Submit(req, true, &d);
    int64_t at = 0;
    size_t k = 0;
    // A rejected job and one larger than its VC fit after no end of running jobs.
    while (st.ok() && d.outcome == Outcome::kWaiting && d.wait != Wait::kVcTooSmall &&
           k < order.size()) {
      at = order[k]->end;
      for (; k < order.size() && order[k]->end == at; k++) {
        auto it = job_index_.find(order[k]->job);
        if (it == job_index_.end()) continue;  // named twice
        ended.push_back(jobs_[it->second]);
        ReleaseJob(it->second);
      }
      d = Decision();
      st = Submit(req, true, &d);
    }
    restore();
    if (!st.ok()) return st;
    if (d.outcome == Outcome::kPlaced) *start = at;
    *out = std::move(d);
    return Status::Ok();
  } catch (...) {
    restore();
    throw;
  }
}

}  // namespace hived
