// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm's files as text -> facts. Each parser takes the text and the name to use in
// messages; every error is one sentence "file:line: Key: reason". Notes are things
// worth a log line that do not stop the derivation.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "topo/facts.h"
#include "topo/mig.h"

namespace hived {
namespace topo {

// slurm.conf: the NodeName lines (NodeName=DEFAULT lines set defaults for the lines
// after them). Fills name, sockets, cores, threads and `configured` GPUs from Gres=;
// gpus stays empty with gpus_known = false until combine_node_facts().
Status parse_slurm_conf_nodes(const std::string& text, const std::string& file,
                              std::vector<NodeFacts>* nodes, std::vector<std::string>* notes);

// One gres.conf line with Name=gpu.
struct GresGpuRecord {
  std::vector<std::string> nodes;  // empty: every node
  std::string type;
  std::vector<std::string> files;  // expanded File=; empty when only Count= is given
  int count = 0;                   // GPUs on this line
  std::vector<int> cores;          // empty: no Cores=
  std::vector<int> links;          // empty: no Links=
  // MultipleFiles=: one GRES with several device files, named by the first.
  bool multiple_files = false;
  MigProfile mig;  // mig.slots > 0: the line is one MIG slice of the GPU files[0]
  std::string where;
};

// One gres.conf line with Name=shard.
struct GresShardRecord {
  std::vector<std::string> nodes;  // empty: every node
  std::string file;                // the GPU's device; "": spread over the node's GPUs
  int count = 0;
  std::string where;
};

struct GresConf {
  std::vector<GresGpuRecord> gpus;
  std::vector<GresShardRecord> shards;
  // AutoDetect= per node ("" key: the line without NodeName=), lower-case.
  std::map<std::string, std::string> autodetect;
  std::string autodetect_where;
};

Status parse_gres_conf(const std::string& text, const std::string& file, GresConf* out,
                       std::vector<std::string>* notes);

// topology.conf: SwitchName lines. Checks that child switches exist, that no switch has
// two parents and that there is no cycle.
Status parse_topology_conf(const std::string& text, const std::string& file, TopologyFacts* out);

// Gives each node its GPUs from gres.conf: records in file order, File= ranges expanded;
// indices follow that order, or the position of -1 in Links= when every GPU of the node
// has a Links= row (Slurm orders GPUs that way). Nodes without gres.conf lines keep
// gpus_known = false. MIG slice lines become slices of the GPU their first file names
// (one GPU however many slices); shards are counted per GPU (see gres_shards()).
Status combine_node_facts(const GresConf& gres, std::vector<NodeFacts>* nodes,
                          std::vector<std::string>* notes);

// Shards per GPU of one node from gres.conf's Name=shard lines (per GPU with File=, else
// spread over the node's GPUs the way Slurm does: in index order each GPU gets what is
// left divided by the GPUs left), or from slurm.conf Gres=shard:N when no line names the
// node. Every GPU's count must be a power of two (0 with File=: not shared).
Status assign_shards(const std::vector<GresShardRecord>& shards, NodeFacts* n);

// Gres= of a node line ("gpu:a100:8,gpu:t4:2(S:0-1),mps:100") -> GPUs per type;
// *shards (if given) += shard:N.
Status parse_node_gres(const std::string& value, std::map<std::string, int>* gpus,
                       int* shards = nullptr);

}  // namespace topo
}  // namespace hived
