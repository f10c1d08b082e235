// SPDX-License-Identifier: GPL-2.0-or-later
#include "topo/cluster.h"

#include "topo/parse.h"
#include "topo/quota.h"
#include "topo/spec_json.h"
#include "topo/summary.h"

namespace hived {
namespace topo {

Status build_cluster_config(const std::vector<NodeFacts>& nodes, const TopologyFacts& topology,
                            const ClusterSpec& explicit_spec,
                            const std::vector<AccountQuota>& quotas, ClusterConfig* out) {
  ClusterConfig c;
  Status err = derive_cluster(nodes, topology, explicit_spec, &c.spec, &c.report);
  if (!err.ok()) return err;
  for (const auto& q : quotas) {
    bool has = false;
    for (const auto& vc : c.spec.vcs) has = has || vc.name == q.account;
    if (has) continue;
    VcSpec vc;
    err = quota_to_vc(c.spec, q.account, q.grptres, &vc, &c.quota_warnings);
    if (!err.ok()) {
      c.quota_errors.push_back(err.msg);
      continue;
    }
    c.spec.vcs.push_back(std::move(vc));
  }
  c.hived_conf_json = spec_to_hived_conf(c.spec);
  c.summary = hierarchy_summary(c.spec, &c.report);
  for (const auto& e : c.quota_errors) c.summary += "quota not converted: " + e + "\n";
  for (const auto& w : c.quota_warnings) c.summary += "quota warning: " + w + "\n";
  *out = std::move(c);
  return Status::Ok();
}

Status facts_from_conf(const ConfTexts& texts, std::vector<NodeFacts>* nodes,
                       TopologyFacts* topology, std::vector<std::string>* notes) {
  std::vector<NodeFacts> n;
  GresConf gres;
  TopologyFacts t;
  Status err = parse_slurm_conf_nodes(texts.slurm_conf, texts.slurm_conf_name, &n, notes);
  if (err.ok()) err = parse_gres_conf(texts.gres_conf, texts.gres_conf_name, &gres, notes);
  if (err.ok()) err = combine_node_facts(gres, &n, notes);
  if (err.ok()) err = parse_topology_conf(texts.topology_conf, texts.topology_conf_name, &t);
  if (!err.ok()) return err;
  *nodes = std::move(n);
  *topology = std::move(t);
  return Status::Ok();
}

}  // namespace topo
}  // namespace hived
