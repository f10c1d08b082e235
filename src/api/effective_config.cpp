// SPDX-License-Identifier: GPL-2.0-or-later
// hived_effective_config(): what a Slurm site has (hived.conf, slurm.conf, gres.conf,
// topology.conf, sacctmgr limits) → the one hived.conf JSON the engine is built from.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "api/effective_config.h"

#include "config/hived_conf.h"
#include "hived.h"

namespace {

char* Dup(const std::string& s) {
  char* p = static_cast<char*>(malloc(s.size() + 1));
  if (p) memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

void CopyErr(char* buf, size_t len, const std::string& msg) {
  if (!buf || !len) return;
  size_t n = msg.size() < len - 1 ? msg.size() : len - 1;
  memcpy(buf, msg.data(), n);
  buf[n] = '\0';
}

}  // namespace

namespace hived {

std::string effective_config(const std::string& hived_conf, const topo::ConfTexts& texts,
                             const std::vector<topo::AccountQuota>& quotas, EffectiveConfig* out) {
  Config explicit_cfg;
  std::string err = parse_hived_conf(hived_conf, &explicit_cfg);
  if (!err.empty()) return "hived.conf: " + err;
  std::vector<topo::NodeFacts> nodes;
  topo::TopologyFacts topology;
  EffectiveConfig r;
  err = topo::facts_from_conf(texts, &nodes, &topology, &r.notes);
  if (!err.empty()) return err;
  err = topo::build_cluster_config(nodes, topology, explicit_cfg.cluster, quotas, &r.cluster);
  if (!err.empty()) return err;
  r.hived_conf_warnings = std::move(explicit_cfg.warnings);
  *out = std::move(r);
  return "";
}

}  // namespace hived

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
  if (!config_json || !slurm_conf || (n_quotas && !quotas)) {
    CopyErr(errbuf, errlen, "effective config: missing argument");
    return HIVED_EINVAL;
  }
  try {
    hived::topo::ConfTexts texts;
    texts.slurm_conf = slurm_conf;
    texts.gres_conf = gres_conf ? gres_conf : "";
    texts.topology_conf = topology_conf ? topology_conf : "";
    std::vector<hived::topo::AccountQuota> q;
    for (size_t i = 0; i < n_quotas; i++)
      if (quotas[i].account && quotas[i].grptres)
        q.push_back({quotas[i].account, quotas[i].grptres});
    hived::EffectiveConfig eff;
    std::string err = hived::effective_config(hived_conf ? hived_conf : "", texts, q, &eff);
    if (!err.empty()) {
      CopyErr(errbuf, errlen, err);
      return HIVED_ECONFIG;
    }
    const hived::topo::ClusterConfig& out = eff.cluster;
    // The "slurm" settings are not part of it: the plugin reads them from hived.conf
    // itself (hived_settings_load), the engine never needs them.
    const std::string& json = out.hived_conf_json;
    std::string sum = out.summary;
    for (const auto& w : eff.hived_conf_warnings) sum += "warning: hived.conf: " + w + "\n";
    for (const auto& n : eff.notes) sum += "note: " + n + "\n";
    for (const auto& p : out.report.problems) sum += "not derived: " + p + "\n";
    for (const auto& e : out.quota_errors) sum += "quota refused: " + e + "\n";
    if (refused && n_refused && !out.quota_errors.empty()) {
      *refused = static_cast<char**>(calloc(out.quota_errors.size(), sizeof(char*)));
      if (!*refused) return HIVED_ENOMEM;
      for (const auto& e : out.quota_errors) {
        char* r = Dup(e);
        if (!r) {
          hived_strings_free(*refused, *n_refused);
          *refused = nullptr;
          *n_refused = 0;
          return HIVED_ENOMEM;
        }
        (*refused)[(*n_refused)++] = r;
      }
    }
    *config_json = Dup(json);
    if (summary) *summary = Dup(sum);
    return *config_json ? HIVED_OK : HIVED_ENOMEM;
  } catch (...) {
    CopyErr(errbuf, errlen, "out of memory while deriving the cluster");
    return HIVED_ENOMEM;
  }
}
