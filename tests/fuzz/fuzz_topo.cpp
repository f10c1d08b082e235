// SPDX-License-Identifier: GPL-2.0-or-later
// The readers of Slurm's own files (src/topo): slurm.conf node lines, gres.conf and
// topology.conf, then the derivation the plugin runs on them at startup. Input: the
// files' text separated by lines "%%", in the order slurm.conf, gres.conf,
// topology.conf, hived.conf, sacctmgr quotas (one "account grptres" per line).
// Each parser runs on its part even when another part is bad, so one broken file
// does not hide the others from the fuzzer; whatever derives must build an engine.
#include <cstdlib>
#include <sstream>

#include "config/hived_conf.h"
#include "fuzz_target.h"
#include "hived.h"
#include "topo/cluster.h"
#include "topo/parse.h"

namespace {

void Require(bool ok) {
  if (!ok) abort();
}

}  // namespace

HIVED_FUZZ_TARGET(topo) {
  namespace topo = hived::topo;
  std::string text(reinterpret_cast<const char *>(data), size);
  topo::ConfTexts texts;
  texts.slurm_conf = hived_fuzz::Part(text, "%%", 0);
  texts.gres_conf = hived_fuzz::Part(text, "%%", 1);
  texts.topology_conf = hived_fuzz::Part(text, "%%", 2);
  std::string hived_conf = hived_fuzz::Part(text, "%%", 3);
  std::vector<topo::AccountQuota> quotas;
  std::istringstream quota_lines(hived_fuzz::Part(text, "%%", 4));
  for (std::string line; std::getline(quota_lines, line);) {
    size_t space = line.find(' ');
    if (space != std::string::npos)
      quotas.push_back({line.substr(0, space), line.substr(space + 1)});
  }

  std::vector<std::string> notes;
  std::vector<topo::NodeFacts> nodes;
  hived::Status slurm_err =
      topo::parse_slurm_conf_nodes(texts.slurm_conf, "slurm.conf", &nodes, &notes);
  topo::GresConf gres;
  hived::Status gres_err = topo::parse_gres_conf(texts.gres_conf, "gres.conf", &gres, &notes);
  if (slurm_err.ok() && gres_err.ok()) (void)topo::combine_node_facts(gres, &nodes, &notes);
  topo::TopologyFacts topology;
  (void)topo::parse_topology_conf(texts.topology_conf, "topology.conf", &topology);

  nodes.clear();
  notes.clear();
  if (!topo::facts_from_conf(texts, &nodes, &topology, &notes).msg.empty()) return 0;
  hived::Config explicit_cfg;
  if (!hived::parse_hived_conf(hived_conf, &explicit_cfg).msg.empty()) return 0;
  topo::ClusterConfig out;
  if (!topo::build_cluster_config(nodes, topology, explicit_cfg.cluster, quotas, &out)
           .msg.empty()) {
    return 0;
  }
  hived_engine *e = nullptr;
  char errbuf[512] = "";
  if (hived_engine_new(out.hived_conf_json.c_str(), &e, errbuf, sizeof errbuf) == HIVED_OK) {
    Require(hived_check_invariants(e, errbuf, sizeof errbuf) == HIVED_OK);
    hived_engine_free(e);
  }
  return 0;
}
