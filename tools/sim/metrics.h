// SPDX-License-Identifier: GPL-2.0-or-later
// Figures of one run, per VC and overall. Queuing delay = completion - submit - run
// time: all the time a job was not doing work that counted, so a preempted job's lost
// work and its second wait are included. The sharing anomaly counts jobs whose delay
// exceeds (by more than a tolerance) their delay in the `private` run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim.h"
#include "trace.h"

namespace hivedsim {

struct Dist {
  size_t n = 0;
  double mean = 0, p50 = 0, p95 = 0, p99 = 0, max = 0;
};

// Nearest-rank percentiles (p-th: the ceil(p/100 * n)-th smallest value).
Dist Distribution(std::vector<double> v);

struct VcMetrics {
  std::string vc;
  int64_t quota_gpus = 0;
  size_t jobs = 0, rejected = 0, unfinished = 0;
  Dist delay, jct;                       // seconds
  double utilisation = 0;                // GPU-time used inside the window / (GPUs owned x window)
  double opportunistic_share = 0;        // of that GPU-time, the part run opportunistically
  size_t multi_gpu = 0, multi_best = 0;  // multi-GPU jobs, and those at best affinity
  size_t preemptions = 0;
  double lost_gpu_hours = 0;
  size_t anomaly_jobs = 0;
  double anomaly_minutes = 0;  // total extra delay over private
};

struct Metrics {
  std::string policy;
  std::vector<VcMetrics> vcs;  // VCs with jobs in the run, trace order
  VcMetrics overall;
  double window_start = 0, window_end = 0;  // first and last submit
  double makespan = 0;                      // last completion - first submit
  double wall_seconds = 0;
};

double JobDelay(const TraceJob& j, const JobOutcome& o);

// `baseline` (the private run) may be null: no anomaly figures then.
Metrics Summarize(const Trace& t, const SimResult& r, const SimResult* baseline,
                  double tolerance_s);

// Busy share of the cluster's GPUs in `bins` equal slices of [t0, t1].
std::vector<double> UtilisationSeries(const SimResult& r, double t0, double t1, int bins);

}  // namespace hivedsim
