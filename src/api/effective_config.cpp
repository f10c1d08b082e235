// SPDX-License-Identifier: GPL-2.0-or-later
// hived_effective_config(): what a Slurm site has (hived.conf, slurm.conf, gres.conf,
// topology.conf, sacctmgr limits) → the one hived.conf JSON the engine is built from.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "api/effective_config.h"

#include "api/guard.h"
#include "config/hived_conf.h"
#include "hived.h"

namespace hived {

Status effective_config(const std::string& hived_conf, const topo::ConfTexts& texts,
                        const std::vector<topo::AccountQuota>& quotas, EffectiveConfig* out) {
  Config explicit_cfg;
  Status st = parse_hived_conf(hived_conf, &explicit_cfg);
  if (!st.ok()) return Status::Err(st.code, "hived.conf: " + st.msg);
  std::vector<topo::NodeFacts> nodes;
  topo::TopologyFacts topology;
  EffectiveConfig r;
  st = topo::facts_from_conf(texts, &nodes, &topology, &r.notes);
  if (!st.ok()) return st;
  st = topo::build_cluster_config(nodes, topology, explicit_cfg.cluster, quotas, &r.cluster);
  if (!st.ok()) return st;
  r.hived_conf_warnings = std::move(explicit_cfg.warnings);
  *out = std::move(r);
  return Status::Ok();
}

}  // namespace hived

namespace {

using hived::Status;

// The log's text: the derived hierarchy, then every warning, note and refusal.
std::string Summary(const hived::EffectiveConfig& eff) {
  const hived::topo::ClusterConfig& out = eff.cluster;
  std::string sum = out.summary;
  for (const auto& w : eff.hived_conf_warnings) sum += "warning: hived.conf: " + w + "\n";
  for (const auto& n : eff.notes) sum += "note: " + n + "\n";
  for (const auto& p : out.report.problems) sum += "not derived: " + p + "\n";
  for (const auto& e : out.quota_errors) sum += "quota refused: " + e + "\n";
  return sum;
}

Status Refused(const std::vector<std::string>& errors, char*** refused, size_t* n_refused) {
  if (!refused || !n_refused || errors.empty()) return Status::Ok();
  *refused = static_cast<char**>(calloc(errors.size(), sizeof(char*)));
  if (!*refused) return Status::Err(hived::Code::kNoMem, "out of memory");
  for (const auto& e : errors) {
    Status st = hived::api::DupOut(e, &(*refused)[*n_refused]);
    if (!st.ok()) {
      hived_strings_free(*refused, *n_refused);
      *refused = nullptr;
      *n_refused = 0;
      return st;
    }
    (*n_refused)++;
  }
  return Status::Ok();
}

}  // namespace

extern "C" void hived_strings_free(char** strings, size_t n) {
  for (size_t i = 0; strings && i < n; i++) free(strings[i]);
  free(strings);
}

extern "C" hived_rc hived_effective_config(const char* hived_conf, const char* slurm_conf,
                                           const char* gres_conf, const char* topology_conf,
                                           const hived_account_quota* quotas, size_t n_quotas,
                                           char** config_json, char** summary, char*** refused,
                                           size_t* n_refused, char* errbuf, size_t errlen) {
  if (config_json) *config_json = nullptr;
  if (summary) *summary = nullptr;
  if (refused) *refused = nullptr;
  if (n_refused) *n_refused = 0;
  using hived::api::ErrSink;
  return hived::api::Guard("hived_effective_config", ErrSink(errbuf, errlen), [&]() -> Status {
    if (!config_json || !slurm_conf || (n_quotas && !quotas))
      return Status::Err(hived::Code::kInval, "effective config: missing argument");
    hived::topo::ConfTexts texts;
    texts.slurm_conf = slurm_conf;
    texts.gres_conf = gres_conf ? gres_conf : "";
    texts.topology_conf = topology_conf ? topology_conf : "";
    std::vector<hived::topo::AccountQuota> q;
    for (size_t i = 0; i < n_quotas; i++)
      if (quotas[i].account && quotas[i].grptres)
        q.push_back({quotas[i].account, quotas[i].grptres});
    hived::EffectiveConfig eff;
    Status st = hived::effective_config(hived_conf ? hived_conf : "", texts, q, &eff);
    // The "slurm" settings are not part of it: the plugin reads them from hived.conf
    // itself (hived_settings_load), the engine never needs them.
    if (st.ok()) st = Refused(eff.cluster.quota_errors, refused, n_refused);
    if (st.ok()) st = hived::api::DupOut(eff.cluster.hived_conf_json, config_json);
    if (st.ok() && summary) st = hived::api::DupOut(Summary(eff), summary);
    if (!st.ok() && *config_json) {  // out of memory half way: the caller gets nothing
      free(*config_json);
      *config_json = nullptr;
      if (refused && n_refused) hived_strings_free(*refused, *n_refused);
      if (refused) *refused = nullptr;
      if (n_refused) *n_refused = 0;
    }
    return st;
  });
}
