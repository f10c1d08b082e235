// SPDX-License-Identifier: GPL-2.0-or-later
// One replay of a trace under a named policy: `hived` (the engine, shared cluster),
// `quota` (Slurm-like caps and first fit), `private` (every VC alone on a cluster
// made of exactly its cells, run by the engine with that VC owning everything) or
// `private-quota` (every VC alone on ceil(GPUs/8) nodes, run by the quota policy).
// The sharing anomaly of a policy is measured against the private run of the same
// scheduler, so that it shows what sharing costs and not how two schedulers differ.
#pragma once

#include <string>
#include <vector>

#include "cluster.h"
#include "sched_quota.h"
#include "sim.h"

namespace hivedsim {

struct Setup {
  ClusterShape shape;
  std::vector<VcCells> cells;  // per VC of the trace
  std::vector<int64_t> QuotaGpus() const;
};

struct PolicyOptions {
  bool opportunistic = true;  // hived only
  QuotaOptions quota;
};

bool RunPolicy(const std::string& policy, const Trace& t, const std::vector<int>& jobs,
               const Setup& s, const PolicyOptions& opt, SimResult* out, std::string* err);

// Refuses a setup whose cells the engine would not accept, with the engine's reason.
bool ValidateSetup(const Trace& t, const Setup& s, std::string* err);

}  // namespace hivedsim
