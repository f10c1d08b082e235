// SPDX-License-Identifier: GPL-2.0-or-later
// What a Slurm site has (hived.conf, slurm.conf, gres.conf, topology.conf, sacctmgr
// limits) -> the config the engine is built from, as data: hived_effective_config()
// flattens it into JSON and a summary for the log; hived-topo --check reads the
// parts (quota warnings, MIG slices, shards) from here instead of that text.
#ifndef HIVED_API_EFFECTIVE_CONFIG_H
#define HIVED_API_EFFECTIVE_CONFIG_H

#include <string>
#include <vector>

#include "topo/cluster.h"

namespace hived {

struct EffectiveConfig {
  topo::ClusterConfig cluster;
  std::vector<std::string> notes;                // from reading the Slurm files
  std::vector<std::string> hived_conf_warnings;  // unknown top-level keys of hived.conf
};

// Fails (kConfig) with one sentence naming the file and key (hived.conf errors begin
// "hived.conf: ").
Status effective_config(const std::string& hived_conf, const topo::ConfTexts& texts,
                        const std::vector<topo::AccountQuota>& quotas, EffectiveConfig* out);

}  // namespace hived

#endif
