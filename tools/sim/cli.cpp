// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace hivedsim {

const char kUsage[] =
    "Usage: hived-sim run     --trace SPEC [cluster] [quotas] [window] [policy] [output]\n"
    "       hived-sim plan    --trace SPEC [cluster] [quotas] [window] [--rounds N] [--rebalance]\n"
    "                         [--plan-start T] [--plan-duration T] [--plan-jobs N] [--out FILE]\n"
    "       hived-sim conf    --trace SPEC [cluster] [quotas] [window]\n"
    "       hived-sim results --itp DIR --philly DIR [--openb DIR] --out FILE.md --plots DIR\n"
    "                         [--quick]\n"
    "       hived-sim openb   [--dir DIR] [--vcs N] [--max-pods N] [--offered F] ...\n"
    "                         (Alibaba openb, fractions of GPUs: hived-sim openb --help)\n"
    "\n"
    "Replays GPU job traces through the HiveD engine (hived), a Slurm-like quota\n"
    "baseline (quota) and each VC's private cluster (private), and reports queuing\n"
    "delay, JCT, utilisation, affinity, preemptions and the sharing anomaly.\n"
    "\n"
    "Trace:   --trace itp:DIR | philly:DIR | sacct:FILE   (repeatable: merged)\n"
    "Cluster: --nodes N (8-GPU nodes; default: just enough for the quotas)\n"
    "         --rack-nodes N (nodes per rack, default 8; 0 = no rack level)\n"
    "Quotas:  --quota VC=GPUS,...  | --proportional (share --nodes by demand)\n"
    "         default: the trace's own (Philly vc_nodes.csv), else proportional\n"
    "Window:  --start T --duration T (e.g. 36h, 7d; from the first submit)\n"
    "         --max-jobs N --compress F (arrivals F times denser) --vcs A,B\n"
    "         --sample P --seed N (keep each job with probability P)\n"
    "Policy:  --policy LIST, comma-separated (default quota,hived), of:\n"
    "           quota          Slurm-like: per-VC GPU caps, one queue, EASY backfill\n"
    "           hived          the engine; jobs also run opportunistically on idle cells\n"
    "           hived-noopp    the engine with opportunistic use off\n"
    "           private        each VC alone on a cluster of exactly its cells, engine\n"
    "           private-quota  each VC alone on ceil(its GPUs/8) nodes, quota scheduler\n"
    "         private always runs, private-quota whenever quota or its own name is\n"
    "         given; the anomaly of hived and hived-noopp is measured against\n"
    "         private, that of quota against private-quota\n"
    "         --opportunistic on|off (hived; default on)  --backfill on|off (quota; on)\n"
    "         --anomaly-tolerance SECONDS (default 1)\n"
    "Output:  --json FILE --csv FILE --jobs-csv FILE --plots DIR (SVG)\n";

namespace {

bool Int(const std::string& opt, const std::string& v, long lo, long hi, long* out,
         std::string* err) {
  char* e = nullptr;
  errno = 0;
  long x = strtol(v.c_str(), &e, 10);
  if (v.empty() || *e || errno || x < lo || x > hi) {
    *err = opt + ": expected a whole number from " + std::to_string(lo) + " to " +
           std::to_string(hi) + ", got '" + v + "'";
    return false;
  }
  *out = x;
  return true;
}

bool Real(const std::string& opt, const std::string& v, double* out, std::string* err) {
  char* e = nullptr;
  double x = strtod(v.c_str(), &e);
  if (v.empty() || *e || !std::isfinite(x) || x < 0) {
    *err = opt + ": expected a number >= 0, got '" + v + "'";
    return false;
  }
  *out = x;
  return true;
}

bool OnOff(const std::string& opt, const std::string& v, bool* out, std::string* err) {
  if (v == "on" || v == "off") {
    *out = v == "on";
    return true;
  }
  *err = opt + ": expected on or off, got '" + v + "'";
  return false;
}

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t e = s.find(',', pos);
    if (e == std::string::npos) e = s.size();
    if (e > pos) out.push_back(s.substr(pos, e - pos));
    pos = e + 1;
  }
  return out;
}

}  // namespace

bool ParseCli(int argc, char** argv, Cli* c, std::string* err) {
  int i = 1;
  if (argc < 2) {
    c->help = true;
    return true;
  }
  c->command = argv[1];
  if (c->command == "--help" || c->command == "-h" || c->command == "help") {
    c->help = true;
    return true;
  }
  if (c->command != "run" && c->command != "plan" && c->command != "conf" &&
      c->command != "results") {
    *err = "unknown command '" + c->command + "' (run, plan, conf or results)";
    return false;
  }
  bool opportunistic = true;
  for (i = 2; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      c->help = true;
      return true;
    }
    if (a == "--rebalance") {
      c->rebalance = true;
      continue;
    }
    if (a == "--proportional") {
      c->study.proportional = true;
      continue;
    }
    if (a == "--quick") {
      c->quick = true;
      continue;
    }
    if (i + 1 >= argc) {
      *err = a + ": needs a value";
      return false;
    }
    std::string v = argv[++i];
    long n;
    double x;
    Selection& sel = c->study.sel;
    if (a == "--trace")
      c->study.traces.push_back(v);
    else if (a == "--nodes") {
      if (!Int(a, v, 1, 10000000, &n, err)) return false;
      c->study.nodes = static_cast<int>(n);
    } else if (a == "--rack-nodes") {
      if (!Int(a, v, 0, 65536, &n, err)) return false;
      c->study.rack_nodes = static_cast<int>(n);
    } else if (a == "--quota")
      c->study.quota_spec = v;
    else if (a == "--start" || a == "--duration" || a == "--plan-duration" || a == "--plan-start") {
      if (!ParseSeconds(v, &x)) {
        *err = a + ": expected a time such as 3600, 90m, 36h or 7d, got '" + v + "'";
        return false;
      }
      if (a == "--start")
        sel.start = x;
      else if (a == "--duration")
        sel.duration = x;
      else if (a == "--plan-start") {
        c->plan_sel.start = x;
        c->plan_sel_set = true;
      } else {
        c->plan_sel.duration = x;
        c->plan_sel_set = true;
      }
    } else if (a == "--max-jobs" || a == "--plan-jobs") {
      if (!Int(a, v, 1, 100000000, &n, err)) return false;
      if (a == "--max-jobs")
        sel.max_jobs = static_cast<size_t>(n);
      else {
        c->plan_sel.max_jobs = static_cast<size_t>(n);
        c->plan_sel_set = true;
      }
    } else if (a == "--compress") {
      if (!Real(a, v, &x, err)) return false;
      sel.compress = x;
    } else if (a == "--sample") {
      if (!Real(a, v, &x, err)) return false;
      sel.sample = x;
    } else if (a == "--seed") {
      if (!Int(a, v, 0, 2147483647L, &n, err)) return false;
      sel.seed = static_cast<uint64_t>(n);
    } else if (a == "--vcs")
      sel.vcs = Split(v);
    else if (a == "--policy") {
      c->study.policies = Split(v);
      for (const auto& p : c->study.policies)
        if (p != "private" && p != "private-quota" && p != "quota" && p != "hived" &&
            p != "hived-noopp") {
          *err = "--policy: unknown policy '" + p +
                 "' (quota, hived, hived-noopp, private, private-quota)";
          return false;
        }
    } else if (a == "--opportunistic") {
      if (!OnOff(a, v, &opportunistic, err)) return false;
    } else if (a == "--backfill") {
      if (!OnOff(a, v, &c->study.popt.quota.backfill, err)) return false;
    } else if (a == "--anomaly-tolerance") {
      if (!Real(a, v, &c->study.tolerance_s, err)) return false;
    } else if (a == "--json")
      c->json = v;
    else if (a == "--csv")
      c->csv = v;
    else if (a == "--jobs-csv")
      c->jobs_csv = v;
    else if (a == "--plots")
      c->plots = v;
    else if (a == "--out")
      c->out = v;
    else if (a == "--rounds") {
      if (!Int(a, v, 0, 1000, &n, err)) return false;
      c->rounds = static_cast<int>(n);
    } else if (a == "--itp")
      c->itp_dir = v;
    else if (a == "--philly")
      c->philly_dir = v;
    else if (a == "--openb")
      c->openb_dir = v;
    else {
      *err = "unknown option '" + a + "' (see hived-sim --help)";
      return false;
    }
  }
  if (!opportunistic)
    for (auto& p : c->study.policies)
      if (p == "hived") p = "hived-noopp";
  return true;
}

}  // namespace hivedsim
