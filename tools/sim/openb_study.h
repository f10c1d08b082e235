// SPDX-License-Identifier: GPL-2.0-or-later
// The openb saturation study: a hived.conf with fractional levels for the openb nodes,
// VC quotas in proportion to guaranteed demand, and a replay in which pods arrive in
// creation order (the trace cycled until the offered load reaches a target) and none
// ends, so the cluster fills up as far as placement allows.
#pragma once

#include <string>
#include <vector>

#include "openb.h"

namespace hivedsim {

struct OpenbSetup {
  std::string conf;                       // every VC
  std::vector<std::string> private_conf;  // per VC: the same cluster, only that VC
  std::vector<int64_t> quota_eighths;     // per VC
  std::vector<int> fraction_cells;        // per VC: HALF/QUARTER/EIGHTH cells owned
  int64_t gpus = 0;
};

// Quotas: each VC's share of the cluster is its share of the guaranteed pods' cells
// (buddy-rounded eighths); per node shape it gets that share of the nodes whole, then of
// what is left as GPUs, then as HALF/QUARTER/EIGHTH cells (rounded down).
bool MakeOpenbSetup(const OpenbTrace& t, OpenbSetup* s, std::string* err);

// The default offered load: twice the cluster, so that guaranteed demand, too, exceeds
// the quotas and the guarantees are tested at saturation.
constexpr double kOpenbOffered = 2.0;
#define kOpenbOfferedText "2.0"

struct OpenbPoint {
  double offered, allocated, used, fragmented;  // shares of the cluster's GPUs
};

struct OpenbResult {
  double offered_target = 0;
  size_t arrivals = 0;
  int64_t gpus = 0;
  double allocated = 0;   // eighths held by placed pods / capacity (cells, buddy-rounded)
  double used = 0;        // what the placed pods asked for (gpu_milli) / capacity
  double fragmented = 0;  // FGD's expected fragmentation / capacity
  size_t partial_gpus = 0, frag_gpus = 0;  // GPUs partly used; of them, unable to host the
                                           // median fractional request
  int median_frac_eighths = 0;
  int64_t req_milli_frac = 0, eighths_frac = 0, buddy_frac = 0;  // fractional pods of the trace
  size_t g_arrived = 0, g_placed = 0, g_waiting = 0, g_frac = 0, g_frac_waiting = 0;
  size_t o_arrived = 0, o_placed = 0, o_preempted = 0;
  size_t rejected = 0;                   // guaranteed pods their VC can never hold
  size_t anomaly = 0, anomaly_frac = 0;  // guaranteed pods waiting that their private VC placed
  std::vector<OpenbPoint> curve;
  OpenbPoint at_full{};  // when the requests first reach the cluster's GPUs (offered 1)
  bool reached_full = false;
  double wall_seconds = 0;
  std::string error;
};

// Replays until the requested GPUs reach offered x capacity.
bool RunOpenbSaturation(const OpenbTrace& t, const OpenbSetup& s, double offered, OpenbResult* r,
                        std::string* err);

// Markdown section (table, plot reference, command) and the SVG plot.
// whole: the same replay with every fraction given a whole GPU (may be null).
std::string OpenbMarkdown(const OpenbTrace& t, const OpenbSetup& s, const OpenbResult& r,
                          const OpenbResult* whole, const std::string& command,
                          const std::string& plot_rel);
std::string OpenbPlot(const OpenbResult& r);

// Load, set up, replay; *md is the section, the plot goes to plots/ (if not empty) and
// the hived.conf to conf (if not empty). `command` is shown as the way to regenerate.
bool OpenbSection(const std::string& node_csv, const std::string& pod_csv, const OpenbOptions& opt,
                  double offered, const std::string& plots, const std::string& conf,
                  const std::string& command, std::string* md, std::string* err);

// `hived-sim openb ...` (argv[1] == "openb").
int RunOpenbCommand(int argc, char** argv);

}  // namespace hivedsim
