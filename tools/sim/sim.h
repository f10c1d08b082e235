// SPDX-License-Identifier: GPL-2.0-or-later
// What a scheduling policy and the event loop say to each other, and what a run
// leaves behind. Jobs are named by their index in the Trace.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace.h"

namespace hivedsim {

struct PodPlace {
  int node = -1;
  uint8_t mask = 0;  // the node's GPUs this pod holds, bit i = GPU i
};
using Placement = std::vector<PodPlace>;

// The event loop as a policy sees it.
class Runner {
 public:
  virtual ~Runner() = default;
  virtual double Now() const = 0;
  virtual void Start(int job, const Placement& p, bool opportunistic) = 0;
  // The policy killed a running job to free its GPUs; it requeues the job itself.
  virtual void Preempt(int job) = 0;
  virtual void Reject(int job, const std::string& why) = 0;
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual void Submit(int job) = 0;
  virtual void Finish(int job) = 0;  // a started job ran to completion
  virtual void Schedule(Runner& r) = 0;
  virtual size_t Pending() const = 0;
  // Non-empty: the replay cannot go on (the event loop stops and reports it).
  virtual std::string Error() const { return ""; }
};

struct JobOutcome {
  bool in_run = false;
  bool rejected = false;
  bool finished = false;
  double first_start = -1;
  double finish = -1;
  int starts = 0;
  int preemptions = 0;
  double lost_gpu_seconds = 0;
  bool opportunistic = false;  // of the run that finished
  bool best_affinity = false;  // of the run that finished
  std::string reject_reason;
};

struct RunInterval {
  double start, end;
  int gpus;
  int vc;
  bool opportunistic;
};

struct SimResult {
  std::string policy;
  std::vector<JobOutcome> jobs;  // indexed like Trace::jobs; in_run marks the ones replayed
  std::vector<RunInterval> runs;
  int64_t cluster_gpus = 0;
  std::vector<int64_t> vc_gpus;  // each VC's quota (GPUs)
  double wall_seconds = 0;
  size_t stuck = 0;   // jobs left waiting when nothing else could happen (should be 0)
  std::string error;  // why the replay stopped early, if it did
};

// Does this placement give the job its best affinity: 2 GPUs in one PCIe pair, 3-4
// in one socket, up to 8 in one node, more in as few racks as its nodes allow?
bool BestAffinity(const Placement& p, int rack_nodes);

// Replays `jobs` (indices into t.jobs, in submit order) through `s`.
SimResult RunEvents(const Trace& t, const std::vector<int>& jobs, Scheduler& s, int rack_nodes);

}  // namespace hivedsim
