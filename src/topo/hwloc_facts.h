// SPDX-License-Identifier: GPL-2.0-or-later
// One node's facts from hwloc: sockets, cores, and each GPU (a PCI device with a GPU
// or co-processor OS device) with its model, core affinity and PCIe bridge path.
// Used by hived-topo on a compute node; not part of libhived (slurmctld has no hwloc
// view of its nodes).
#pragma once

#include <string>
#include <vector>

#include "core/error.h"
#include "topo/facts.h"

namespace hived {
namespace topo {

struct HwlocOptions {
  std::string xml_path;   // "": the running machine
  std::string node_name;  // "": hwloc's HostName, short form
  std::string gpu_type;   // "": from the GPU model name (gpu_type_from_model)
};

struct HwlocNode {
  NodeFacts facts;
  bool have_links = false;  // NVLink rows known (never from hwloc alone)
  std::vector<std::string> notes;
};

Status read_hwloc_node(const HwlocOptions& opts, HwlocNode* out);

// "NVIDIA A100-SXM4-40GB" -> "a100", "Tesla V100-PCIE-16GB" -> "v100",
// "NVIDIA GeForce RTX 3090" -> "rtx_3090": the short names sites write in gres.conf
// Type= (Slurm matches them as substrings of the names NVML reports).
std::string gpu_type_from_model(const std::string& model);

}  // namespace topo
}  // namespace hived
