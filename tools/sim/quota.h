// SPDX-License-Identifier: GPL-2.0-or-later
// How many GPUs each VC is owed: given on the command line, shipped with the trace
// (Philly's vc_nodes.csv), or proportional to each VC's demand in the trace.
#pragma once

#include <string>
#include <vector>

#include "trace.h"

namespace hivedsim {

// GPUs of the VC's largest job rounded up to whole nodes (at least one node).
int FloorGpus(const Trace& t, int vc);

// "vc=GPUS,vc=GPUS"; every VC of the trace with jobs must be named.
bool ParseQuotaSpec(const std::string& spec, const Trace& t, std::vector<int>* gpus,
                    std::string* err);

// Trace-shipped quotas; VCs without one get FloorGpus (noted in *notes).
std::vector<int> TraceQuotas(const Trace& t, std::vector<std::string>* notes);

// Whole nodes, proportional to GPU-seconds demanded, each at least FloorGpus, summing
// to `nodes` (fails if the floors alone do not fit).
bool ProportionalQuotas(const Trace& t, int nodes, std::vector<int>* gpus, std::string* err);

}  // namespace hivedsim
