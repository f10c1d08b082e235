// SPDX-License-Identifier: GPL-2.0-or-later
// hived-topo --check: the verdict select/hived would give, offline.
#ifndef HIVED_TOOLS_TOPO_CHECK_H
#define HIVED_TOOLS_TOPO_CHECK_H

#include <string>
#include <vector>

namespace hived_topo {

struct CheckArgs {
  std::string slurm_conf;                // "" = $SLURM_CONF, else /etc/slurm/slurm.conf
  std::string hived_conf;                // "" = hived.conf next to slurm.conf (may be absent)
  std::string gres_conf, topology_conf;  // "" = next to slurm.conf
  std::vector<std::pair<std::string, std::string>> quotas;  // account, GrpTRES
  bool sacctmgr = false;  // also the accounts' GrpTRES from sacctmgr
};

// A whole file; false with "path: reason" in *err.
bool read_text(const std::string& path, std::string* out, std::string* err);

// Prints one summary line and returns 0 when the plugin would load the files as
// they are; else prints every reason (prefixed "hived-topo: ") and returns 1.
int check_mode(const CheckArgs& a);

}  // namespace hived_topo

#endif
