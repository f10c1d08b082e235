// SPDX-License-Identifier: GPL-2.0-or-later
// A study: load a trace, pick its jobs, give each VC its cells on a cluster, replay
// under several policies, and summarise each against the `private` baseline.
#pragma once

#include <string>
#include <vector>

#include "metrics.h"
#include "policies.h"
#include "selection.h"

namespace hivedsim {

struct StudyConfig {
  std::vector<std::string> traces;  // itp:DIR, philly:DIR, sacct:FILE (merged)
  Selection sel;
  int nodes = 0;                                        // 0: just enough for the quotas
  int rack_nodes = 8;                                   // 0: no rack level
  std::string quota_spec;                               // "vc=GPUS,..." (overrides the rest)
  bool proportional = false;                            // ignore trace quotas, share by demand
  std::vector<std::string> policies{"quota", "hived"};  // private always runs first
  PolicyOptions popt;
  double tolerance_s = 1;
};

struct Study {
  Trace trace;
  std::vector<int> jobs;
  Setup setup;
  std::vector<std::string> notes;
  std::vector<SimResult> results;  // private (and private-quota) first
  std::vector<Metrics> metrics;    // parallel to results
};

// Everything up to the replay: trace, jobs, quotas, cells, cluster, engine check.
bool PrepareStudy(const StudyConfig& c, Study* s, std::string* err);
// Replays the private baselines and then every policy of c.policies on s->setup.
bool RunStudy(const StudyConfig& c, Study* s, std::string* err);

// Policy names: private, private-quota, quota, hived, hived-noopp (hived with
// opportunistic use off).
const char* BaselineOf(const std::string& policy);  // the private run it is judged against
bool RunNamedPolicy(const std::string& name, const Study& s, const PolicyOptions& base,
                    SimResult* out, std::string* err);

}  // namespace hivedsim
