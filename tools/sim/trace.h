// SPDX-License-Identifier: GPL-2.0-or-later
// A job trace as the simulator replays it: jobs on one clock, each of a VC (tenant),
// with its GPUs split into pods of at most one node each.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace hivedsim {

constexpr int kGpusPerNode = 8;

struct TraceJob {
  std::string id;       // the trace's own id
  int vc = 0;           // index into Trace::vcs
  double submit = 0;    // seconds on the trace's common clock
  double duration = 0;  // seconds of run time
  int gpus = 0;
  std::vector<int> pods;  // GPUs per pod, biggest first, each <= kGpusPerNode
};

struct Trace {
  std::string name;  // e.g. "itp", "philly", "sacct"
  std::vector<std::string> vcs;
  std::vector<TraceJob> jobs;             // sorted by (submit, vc, load order)
  std::map<std::string, int> quota_gpus;  // VC quotas that came with the trace (vc_nodes.csv)
  std::vector<std::string> notes;         // how the loader read the files, for reports

  int VcIndex(const std::string& vc);       // adds the VC if new
  int FindVc(const std::string& vc) const;  // -1 if absent
  void SortJobs();
};

// Pods of a job: up to one node's GPUs in one pod; bigger jobs take whole nodes plus a
// remainder pod. `nodes` > 1 (sacct NNodes) splits evenly when it can.
std::vector<int> PodsFor(int gpus, int nodes = 0);

}  // namespace hivedsim
