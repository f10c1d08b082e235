// SPDX-License-Identifier: GPL-2.0-or-later
// Pieces of combine_node_facts() for the parts of a GPU (MIG slices, shards); the
// shard rules are declared with it in parse.h (assign_shards).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "topo/parse.h"

namespace hived {
namespace topo {

// A MIG slice line: a slice of the GPU its first file names, which joins n's GPUs the
// first time one of its slices is seen. `by_file`: device -> position in n->gpus.
Status add_mig_slice(const GresGpuRecord& r, int index, NodeFacts* n,
                     std::map<std::string, size_t>* by_file);

// slurm.conf counts slices (configured_mig), not the GPUs in MIG mode: checks that the
// two files agree.
void count_mig_parents(NodeFacts* n, std::vector<std::string>* notes);

}  // namespace topo
}  // namespace hived
