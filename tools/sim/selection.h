// SPDX-License-Identifier: GPL-2.0-or-later
// Which jobs of a trace a run replays: a time window, a job cap, a random sample,
// some VCs, and time compression of arrivals (run times are kept).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace.h"

namespace hivedsim {

struct Selection {
  double start = 0;      // seconds after the trace's first submit
  double duration = -1;  // window length in seconds; < 0: to the end
  size_t max_jobs = 0;   // 0: no cap
  double compress = 1;   // arrivals come `compress` times closer together
  double sample = 1;     // keep each job with this probability
  uint64_t seed = 1;
  std::vector<std::string> vcs;  // empty: all
};

// "90", "90s", "15m", "12h", "7d" -> seconds; false if malformed.
bool ParseSeconds(const std::string& s, double* out);

// Applies compression to t's submit times, then returns the chosen jobs (indices into
// t->jobs, in submit order).
bool SelectJobs(Trace* t, const Selection& sel, std::vector<int>* jobs, std::string* err);

}  // namespace hivedsim
