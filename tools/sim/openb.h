// SPDX-License-Identifier: GPL-2.0-or-later
// Alibaba's openb trace (FGD, ATC'23) as hived-sim replays it: heterogeneous GPU nodes
// whose GPUs split into HALF/QUARTER/EIGHTH cells, pods asking for whole GPUs or a
// fraction of one, VCs synthesised from the pod names, and a saturation replay that
// measures allocation, fragmentation, rounding and the sharing anomaly (doc/sim.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hivedsim {

constexpr int kEighthsPerGpu = 8;

struct OpenbNode {
  std::string name, model;
  int gpus = 0;
};

struct OpenbPod {
  std::string id;
  int vc = 0;
  bool guaranteed = false;  // qos LS or Guaranteed; BE and Burstable run opportunistic
  std::string qos;
  int gpus = 0;       // whole GPUs (0: a fraction of one)
  int eighths = 0;    // fraction of one GPU, gpu_milli rounded up to eighths (1..7)
  int milli = 0;      // what the pod asked for, in thousandths of a GPU (all its GPUs)
  double submit = 0;  // creation_time
  int Cells() const;  // eighths of the cells it holds: buddy-rounded fraction or 8 per GPU
};

struct OpenbTrace {
  std::vector<OpenbNode> nodes;
  std::vector<OpenbPod> pods;  // GPU pods, by (creation_time, file order)
  std::vector<std::string> vcs;
  size_t cpu_only = 0;  // pods without GPUs, dropped
  size_t rows = 0;      // pod rows read
  std::vector<std::string> notes;
};

struct OpenbOptions {
  int vcs = 4;          // synthesised VCs, weights vcs, vcs-1, ..., 1
  size_t max_pods = 0;  // 0: all GPU pods
};

// The VC of a pod: FNV-1a of its name, mod 1000, cut in proportions n:n-1:...:1.
int OpenbVcOf(const std::string& pod_name, int vcs);

// Nodes from openb_node_list_gpu_node.csv (sn,gpu,model; nodes without GPUs are
// skipped), pods from an openb_pod_list_*.csv (name,num_gpu,gpu_milli,qos,
// creation_time). A bad row stops with file:line:column and the column's name.
bool LoadOpenb(const std::string& node_csv, const std::string& pod_csv, const OpenbOptions& o,
               OpenbTrace* t, std::string* err);

// Smallest buddy cell (1, 2, 4 or 8 eighths) holding k eighths.
int BuddyEighths(int k);

}  // namespace hivedsim
