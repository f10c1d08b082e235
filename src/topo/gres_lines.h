// SPDX-License-Identifier: GPL-2.0-or-later
// A node's facts written back as Slurm configuration: the gres.conf lines and the
// slurm.conf node line that describe it (hived-topo prints them).
#pragma once

#include <string>
#include <vector>

#include "topo/facts.h"

namespace hived {
namespace topo {

// gres.conf lines in GPU index order. Consecutive GPUs of one type with the same
// Cores= and no Links= share a line (File=/dev/nvidia[0-3]); a GPU with Links= gets
// a line of its own (a Links= row describes one device).
std::vector<std::string> gres_conf_lines(const NodeFacts& node);

// "NodeName=n Sockets=2 CoresPerSocket=16 ThreadsPerCore=2 Gres=gpu:a100:8"
std::string slurm_conf_node_line(const NodeFacts& node);

}  // namespace topo
}  // namespace hived
