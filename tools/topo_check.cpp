// SPDX-License-Identifier: GPL-2.0-or-later
// hived-topo --check: the same calls, in the same order, as select/hived's load
// (src/slurm/hived_ctld.c): the "slurm" settings, then hived.conf + slurm.conf +
// gres.conf + topology.conf + the accounts' GrpTRES into one config, then the
// engine built from it. What the plugin would only log (an unknown top-level key,
// an account limit that gets no cells) fails the check too: the admin asked.
#include "topo_check.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <sys/stat.h>

#include "api/effective_config.h"
#include "hived.h"
#include "topo/summary.h"

namespace hived_topo {

bool read_text(const std::string& path, std::string* out, std::string* err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *err = path + ": " + strerror(errno);
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

namespace {

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// An optional file: absent is "", unreadable is an error.
bool optional_text(const std::string& path, std::string* out, bool* present, std::string* err) {
  struct stat st;
  *present = stat(path.c_str(), &st) == 0 || errno != ENOENT;
  if (!*present) return true;
  return read_text(path, out, err);
}

// The accounts' own associations (no user, no partition) with a GrpTRES, as
// slurmctld's association cache gives them to the plugin.
bool sacctmgr_quotas(std::vector<std::pair<std::string, std::string>>* out, std::string* err) {
  FILE* p = popen("sacctmgr -nP show associations format=account,user,partition,grptres 2>&1", "r");
  if (!p) {
    *err = std::string("cannot run sacctmgr: ") + strerror(errno);
    return false;
  }
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
  int rc = pclose(p);
  if (rc != 0) {
    *err = "sacctmgr show associations failed: " + text;
    return false;
  }
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    std::string x;
    while (std::getline(fields, x, '|')) f.push_back(x);
    if (f.size() < 4 || f[0].empty() || f[0] == "root" || !f[1].empty() || !f[2].empty() ||
        f[3].empty())
      continue;
    out->push_back({f[0], f[3]});
  }
  return true;
}

int fail(const std::string& why) {
  fprintf(stderr, "hived-topo: %s\n", why.c_str());
  return 1;
}

}  // namespace

int check_mode(const CheckArgs& a) {
  std::string slurm = a.slurm_conf;
  if (slurm.empty()) {
    const char* env = getenv("SLURM_CONF");
    slurm = env && *env ? env : "/etc/slurm/slurm.conf";
  }
  std::string dir = dir_of(slurm), err;
  std::string hived_path = a.hived_conf.empty() ? dir + "/hived.conf" : a.hived_conf;
  std::string slurm_text, hived_text, gres_text, topo_text;
  bool have_hived = false, have_gres = false, have_topo = false;
  if (!read_text(slurm, &slurm_text, &err)) return fail(err);
  if (!optional_text(hived_path, &hived_text, &have_hived, &err) ||
      !optional_text(a.gres_conf.empty() ? dir + "/gres.conf" : a.gres_conf, &gres_text, &have_gres,
                     &err) ||
      !optional_text(a.topology_conf.empty() ? dir + "/topology.conf" : a.topology_conf, &topo_text,
                     &have_topo, &err))
    return fail(err);
  if (!a.hived_conf.empty() && !have_hived) return fail(hived_path + ": no such file");

  char ebuf[1024] = "";
  hived_settings* settings = nullptr;
  if (hived_settings_load(hived_text.c_str(), &settings, ebuf, sizeof ebuf) != HIVED_OK)
    return fail(hived_path + ": " + ebuf);
  bool quotas_used = settings->quota_from_sacctmgr != 0;
  hived_settings_free(settings);
  // A note, not a problem: the plugin makes no VCs from account limits then, nor does the check.
  if (!quotas_used && (a.sacctmgr || !a.quotas.empty())) {
    const char* what = !a.sacctmgr        ? "--quota is"
                       : a.quotas.empty() ? "--sacctmgr is"
                                          : "--sacctmgr and --quota are";
    fprintf(stderr,
            "hived-topo: note: %s sets slurm.quotaFromSacctmgr=false, so select/hived makes no "
            "VCs from account limits: %s ignored\n",
            hived_path.c_str(), what);
  }

  std::vector<std::pair<std::string, std::string>> quotas = a.quotas;
  if (a.sacctmgr && quotas_used && !sacctmgr_quotas(&quotas, &err)) return fail(err);
  std::vector<hived::topo::AccountQuota> q;
  if (quotas_used)
    for (const auto& x : quotas) q.push_back({x.first, x.second});
  hived::topo::ConfTexts texts;
  texts.slurm_conf = slurm_text;
  texts.gres_conf = gres_text;
  texts.topology_conf = topo_text;
  hived::EffectiveConfig eff;
  err = hived::effective_config(hived_text, texts, q, &eff).msg;
  if (!err.empty()) return fail(err);

  int problems = 0;
  for (const auto& w : eff.hived_conf_warnings) {
    fprintf(stderr, "hived-topo: %s: %s (select/hived loads the file without it)\n",
            hived_path.c_str(), w.c_str());
    problems++;
  }
  for (const auto& r : eff.cluster.quota_errors) {
    fprintf(stderr, "hived-topo: sacctmgr quota refused: %s\n", r.c_str());
    problems++;
  }
  for (const auto& w : eff.cluster.quota_warnings) {
    fprintf(stderr, "hived-topo: sacctmgr quota warning: %s\n", w.c_str());
    problems++;
  }
  // The fractions below GPUs are told with the verdict.
  std::string fractions;
  const hived::topo::DeriveReport& report = eff.cluster.report;
  if (!report.mig_gpus.empty())
    fractions += "hived-topo: " + hived::topo::mig_slices_line(report) + "\n";
  for (const auto& f : report.fractions) fractions += "hived-topo: shards: " + f + "\n";

  hived_engine* e = nullptr;
  hived_rc rc = hived_engine_new(eff.cluster.hived_conf_json.c_str(), &e, ebuf, sizeof ebuf);
  if (rc != HIVED_OK) return fail(hived_path + ": " + ebuf);
  size_t nodes = hived_node_count(e), vcs = hived_vc_count(e);
  hived_engine_free(e);
  if (problems) {
    fprintf(stderr, "hived-topo: %d problem(s); fix them before select/hived reads the files\n",
            problems);
    return 1;
  }
  fputs(fractions.c_str(), stdout);
  printf("hived-topo: OK: %s with %s: %zu nodes, %zu VCs%s\n",
         have_hived ? hived_path.c_str() : "no hived.conf (all derived)", slurm.c_str(), nodes, vcs,
         a.sacctmgr && quotas_used ? " (sacctmgr limits included)" : "");
  return 0;
}

}  // namespace hived_topo
