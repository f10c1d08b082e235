// SPDX-License-Identifier: GPL-2.0-or-later
// The whole path from Slurm's view of the cluster to an engine config, in one call:
// facts -> derived cells merged with hived.conf -> VCs from sacctmgr quotas -> the
// hived.conf JSON the engine is built from, plus the summary to log. This is what the
// select plugin calls at startup and on reconfigure.
#pragma once

#include <string>
#include <vector>

#include "core/error.h"
#include "core/spec.h"
#include "topo/derive.h"
#include "topo/facts.h"

namespace hived {
namespace topo {

struct AccountQuota {
  std::string account;  // becomes the VC name
  std::string grptres;  // sacctmgr's GrpTRES text, e.g. "cpu=64,gres/gpu=16"
};

struct ClusterConfig {
  ClusterSpec spec;  // hived.conf's cells and VCs + derived cells + VCs from quotas
  DeriveReport report;
  // One sentence per account whose GrpTRES gave no cells (over-commit, unknown model).
  std::vector<std::string> quota_errors;
  // One sentence per limit that was left out (a MIG type limit: slices are not cells yet).
  std::vector<std::string> quota_warnings;
  std::string hived_conf_json;  // for hived_engine_new() / hived_reconfigure()
  std::string summary;          // hierarchy_summary() of the result, for the log
};

// Accounts that hived.conf already gives a VC keep it (their quota is ignored); the
// others are converted in the order given, each seeing what the previous ones took.
// Fails (kConfig) with the hard error of derive_cluster().
Status build_cluster_config(const std::vector<NodeFacts>& nodes, const TopologyFacts& topology,
                            const ClusterSpec& explicit_spec,
                            const std::vector<AccountQuota>& quotas, ClusterConfig* out);

// Facts from the text of slurm.conf, gres.conf and topology.conf as slurmctld would read
// them (gres/topology text may be empty). `*_name` are used in messages.
struct ConfTexts {
  std::string slurm_conf, gres_conf, topology_conf;
  std::string slurm_conf_name = "slurm.conf", gres_conf_name = "gres.conf",
              topology_conf_name = "topology.conf";
};
// Fails (kConfig) with the first error, naming the file and line.
Status facts_from_conf(const ConfTexts& texts, std::vector<NodeFacts>* nodes,
                       TopologyFacts* topology, std::vector<std::string>* notes);

}  // namespace topo
}  // namespace hived
