// SPDX-License-Identifier: GPL-2.0-or-later
// hived-topo: what the cell derivation sees. On a compute node it reads hwloc (live or
// a saved `lstopo --of xml` file) and prints the node's gres.conf lines and its cell
// types; given slurm.conf/gres.conf/topology.conf it prints the cluster's derived
// hierarchy. See hived-topo(1) and doc/topology.md.
#include <getopt.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "config/hived_conf.h"
#include "hived.h"
#include "topo/cluster.h"
#include "topo/derive.h"
#include "topo/gres_lines.h"
#include "topo/hwloc_facts.h"
#include "topo/spec_json.h"
#include "topo/summary.h"
#include "topo_check.h"

namespace {

const char kUsage[] =
    "usage: hived-topo [-x|--xml FILE] [-n|--node NAME] [-t|--type TYPE] [-j|--json]\n"
    "       hived-topo -s|--slurm-conf FILE [-g|--gres-conf FILE]\n"
    "                  [-T|--topology-conf FILE] [-H|--hived-conf FILE]\n"
    "                  [-q|--quota ACCOUNT=GRPTRES]... [-j|--json]\n"
    "       hived-topo --check [-s|--slurm-conf FILE] [-g|--gres-conf FILE]\n"
    "                  [-T|--topology-conf FILE] [-H|--hived-conf FILE] [--sacctmgr]\n"
    "                  [-q|--quota ACCOUNT=GRPTRES]...\n"
    "       hived-topo -h|--help\n";

bool exists(const std::string& path) { return std::ifstream(path).good(); }

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// The engine is the judge of a config: build it once so errors surface here.
bool engine_accepts(const std::string& json, std::string* why) {
  hived_engine* e = nullptr;
  char err[1024] = "";
  hived_rc rc = hived_engine_new(json.c_str(), &e, err, sizeof err);
  hived_engine_free(e);
  if (rc != HIVED_OK) *why = err;
  return rc == HIVED_OK;
}

std::string count(int n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

std::string commented(const std::string& text) {
  std::string o;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    o += line.empty() ? "#\n" : "#   " + line + "\n";
    start = nl == std::string::npos ? text.size() : nl + 1;
  }
  return o;
}

int node_mode(const hived::topo::HwlocOptions& opts, bool json) {
  using namespace hived::topo;
  HwlocNode node;
  hived::Status err = read_hwloc_node(opts, &node);
  if (!err.ok()) {
    fprintf(stderr, "hived-topo: %s\n", err.msg.c_str());
    return 1;
  }
  hived::ClusterSpec spec;
  DeriveReport report;
  err = derive_cluster({node.facts}, TopologyFacts(), hived::ClusterSpec(), &spec, &report);
  if (!err.ok()) {
    fprintf(stderr, "hived-topo: %s\n", err.msg.c_str());
    return 1;
  }
  for (const auto& n : report.notes) node.notes.push_back(n);
  // slurmctld sees only what gres.conf carries; PCIe switches are not in it.
  NodeFacts plain = node.facts;
  for (auto& g : plain.gpus) g.pcie_path.clear();
  hived::ClusterSpec plain_spec;
  DeriveReport plain_report;
  if (derive_cluster({plain}, TopologyFacts(), hived::ClusterSpec(), &plain_spec, &plain_report)
          .ok() &&
      spec_to_hived_conf(plain_spec) != spec_to_hived_conf(spec))
    node.notes.push_back(
        "PCIe switches shape these cells but gres.conf cannot carry them: put the cellTypes of "
        "'hived-topo --json' into hived.conf and the plugin uses them for every node of this "
        "shape");
  if (json) {
    for (const auto& n : node.notes) fprintf(stderr, "hived-topo: %s\n", n.c_str());
    if (node.facts.gpus.empty()) {
      fprintf(stderr, "hived-topo: node %s has no GPUs: no cell types\n", node.facts.name.c_str());
      return 1;
    }
    std::string json_text = spec_to_hived_conf(spec), why;
    if (!engine_accepts(json_text, &why)) {
      fprintf(stderr, "hived-topo: the derived cells are not a valid config: %s\n", why.c_str());
      return 1;
    }
    fputs(json_text.c_str(), stdout);
    return 0;
  }
  const NodeFacts& n = node.facts;
  std::string o =
      "# hived-topo: node " + n.name + " (" +
      (opts.xml_path.empty() ? std::string("hwloc, this machine") : "hwloc XML " + opts.xml_path) +
      "): " + count(n.sockets, "socket") + " x " + count(n.cores_per_socket, "core") + " x " +
      count(n.threads_per_core, "thread") + ", " + count(static_cast<int>(n.gpus.size()), "GPU") +
      "\n";
  for (const auto& note : node.notes) o += "# " + note + "\n";
  o += "# slurm.conf: " + slurm_conf_node_line(n) + "\n";
  if (n.gpus.empty()) {
    o += "# no GPUs: nothing for gres.conf, no cells\n";
  } else {
    for (const auto& line : gres_conf_lines(n)) o += line + "\n";
    o += "# cells of this node shape (--json prints them as hived.conf):\n";
    o += commented(hierarchy_summary(spec));
  }
  fputs(o.c_str(), stdout);
  return 0;
}

struct ClusterArgs {
  std::string slurm_conf, gres_conf, topology_conf, hived_conf;
  std::vector<hived::topo::AccountQuota> quotas;
};

int cluster_mode(const ClusterArgs& a, bool json) {
  using namespace hived::topo;
  ConfTexts texts;
  std::string err;
  texts.slurm_conf_name = a.slurm_conf;
  if (!hived_topo::read_text(a.slurm_conf, &texts.slurm_conf, &err)) {
    fprintf(stderr, "hived-topo: %s\n", err.c_str());
    return 1;
  }
  // Slurm keeps gres.conf and topology.conf next to slurm.conf.
  std::string gres = a.gres_conf, topo = a.topology_conf;
  if (gres.empty() && exists(dir_of(a.slurm_conf) + "/gres.conf"))
    gres = dir_of(a.slurm_conf) + "/gres.conf";
  if (topo.empty() && exists(dir_of(a.slurm_conf) + "/topology.conf"))
    topo = dir_of(a.slurm_conf) + "/topology.conf";
  if ((!gres.empty() && !hived_topo::read_text(gres, &texts.gres_conf, &err)) ||
      (!topo.empty() && !hived_topo::read_text(topo, &texts.topology_conf, &err))) {
    fprintf(stderr, "hived-topo: %s\n", err.c_str());
    return 1;
  }
  texts.gres_conf_name = gres.empty() ? "gres.conf" : gres;
  texts.topology_conf_name = topo.empty() ? "topology.conf" : topo;
  hived::Config cfg;
  if (!a.hived_conf.empty()) {
    err = hived::load_hived_conf_file(a.hived_conf, &cfg).msg;
    if (!err.empty()) {
      fprintf(stderr, "hived-topo: %s\n", err.c_str());
      return 1;
    }
    for (const auto& w : cfg.warnings)
      fprintf(stderr, "hived-topo: warning: %s: %s\n", a.hived_conf.c_str(), w.c_str());
  }
  std::vector<NodeFacts> nodes;
  TopologyFacts topology;
  std::vector<std::string> notes;
  err = facts_from_conf(texts, &nodes, &topology, &notes).msg;
  if (err.empty()) {
    ClusterConfig cc;
    err = build_cluster_config(nodes, topology, cfg.cluster, a.quotas, &cc).msg;
    if (err.empty()) {
      std::string why;
      bool ok = engine_accepts(cc.hived_conf_json, &why);
      if (json) {
        for (const auto& n : notes) fprintf(stderr, "hived-topo: %s\n", n.c_str());
        for (const auto& p : cc.report.problems) fprintf(stderr, "hived-topo: %s\n", p.c_str());
        for (const auto& m : cc.report.mismatches)
          fprintf(stderr, "hived-topo: %s\n", m.message.c_str());
        for (const auto& q : cc.quota_errors) fprintf(stderr, "hived-topo: %s\n", q.c_str());
        if (ok) fputs(cc.hived_conf_json.c_str(), stdout);
      } else {
        std::string o = cc.summary;
        for (const auto& n : notes) o += "input note: " + n + "\n";
        fputs(o.c_str(), stdout);
      }
      if (!ok) {
        fprintf(stderr, "hived-topo: the engine rejects the result: %s\n", why.c_str());
        return 1;
      }
      return 0;
    }
  }
  fprintf(stderr, "hived-topo: %s\n", err.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  static const option kOpts[] = {{"xml", required_argument, nullptr, 'x'},
                                 {"node", required_argument, nullptr, 'n'},
                                 {"type", required_argument, nullptr, 't'},
                                 {"json", no_argument, nullptr, 'j'},
                                 {"slurm-conf", required_argument, nullptr, 's'},
                                 {"gres-conf", required_argument, nullptr, 'g'},
                                 {"topology-conf", required_argument, nullptr, 'T'},
                                 {"hived-conf", required_argument, nullptr, 'H'},
                                 {"quota", required_argument, nullptr, 'q'},
                                 {"check", no_argument, nullptr, 'c'},
                                 {"sacctmgr", no_argument, nullptr, 'S'},
                                 {"help", no_argument, nullptr, 'h'},
                                 {nullptr, 0, nullptr, 0}};
  hived::topo::HwlocOptions hw;
  ClusterArgs ca;
  bool json = false, check = false, sacctmgr = false;
  int c;
  while ((c = getopt_long(argc, argv, "x:n:t:js:g:T:H:q:h", kOpts, nullptr)) != -1) {
    switch (c) {
      case 'x':
        hw.xml_path = optarg;
        break;
      case 'n':
        hw.node_name = optarg;
        break;
      case 't':
        hw.gpu_type = optarg;
        break;
      case 'j':
        json = true;
        break;
      case 's':
        ca.slurm_conf = optarg;
        break;
      case 'g':
        ca.gres_conf = optarg;
        break;
      case 'T':
        ca.topology_conf = optarg;
        break;
      case 'H':
        ca.hived_conf = optarg;
        break;
      case 'q': {
        std::string q = optarg;
        size_t eq = q.find('=');
        if (eq == std::string::npos || eq == 0) {
          fprintf(stderr,
                  "hived-topo: --quota %s: expected ACCOUNT=GRPTRES (e.g. vc1=gres/gpu=16)\n",
                  optarg);
          return 2;
        }
        ca.quotas.push_back({q.substr(0, eq), q.substr(eq + 1)});
        break;
      }
      case 'c':
        check = true;
        break;
      case 'S':
        sacctmgr = true;
        break;
      case 'h':
        fputs(kUsage, stdout);
        return 0;
      default:
        fputs(kUsage, stderr);
        return 2;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "hived-topo: unexpected argument '%s'\n%s", argv[optind], kUsage);
    return 2;
  }
  if (check) {
    if (json || !hw.xml_path.empty() || !hw.node_name.empty() || !hw.gpu_type.empty()) {
      fprintf(stderr,
              "hived-topo: --check takes only the cluster's files and --quota/--sacctmgr\n");
      return 2;
    }
    hived_topo::CheckArgs ck;
    ck.slurm_conf = ca.slurm_conf;
    ck.hived_conf = ca.hived_conf;
    ck.gres_conf = ca.gres_conf;
    ck.topology_conf = ca.topology_conf;
    for (const auto& q : ca.quotas) ck.quotas.push_back({q.account, q.grptres});
    ck.sacctmgr = sacctmgr;
    return hived_topo::check_mode(ck);
  }
  if (sacctmgr) {
    fprintf(stderr, "hived-topo: --sacctmgr goes with --check\n");
    return 2;
  }
  bool cluster = !ca.slurm_conf.empty();
  bool node = !hw.xml_path.empty() || !hw.node_name.empty() || !hw.gpu_type.empty();
  if (cluster && node) {
    fprintf(
        stderr,
        "hived-topo: --xml/--node/--type describe one node; --slurm-conf a cluster: not both\n");
    return 2;
  }
  if (!cluster && (!ca.gres_conf.empty() || !ca.topology_conf.empty() || !ca.hived_conf.empty() ||
                   !ca.quotas.empty())) {
    fprintf(
        stderr,
        "hived-topo: --gres-conf, --topology-conf, --hived-conf and --quota need --slurm-conf\n");
    return 2;
  }
  return cluster ? cluster_mode(ca, json) : node_mode(hw, json);
}
