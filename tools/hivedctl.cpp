// SPDX-License-Identifier: GPL-2.0-or-later
// hivedctl - what select/hived holds, for users and admins: cluster, VCs, jobs,
// a cell map, Prometheus metrics and "what if I submitted this job". Reads
// <StateSaveLocation>/hived_status.json, which slurmctld writes world-readable;
// needs no privilege and no daemon (whatif also reads the config, see below).
#include <grp.h>
#include <pwd.h>
#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <jansson.h>

#include "hivedctl_access.h"
#include "hivedctl_model.h"
#include "hivedctl_output.h"
#include "hivedctl_views.h"
#include "hivedctl_whatif.h"
#include "topo/hostlist.h"

namespace {

const char kUsage[] =
    "Usage: hivedctl [--status FILE] [--json] COMMAND\n"
    "  status               cluster: chains, levels, idle/used/bad/doomed cells, VCs\n"
    "  vc [NAME]            VCs, or one VC: quota, bound cells, jobs, why jobs wait\n"
    "  job ID               a job's cells, binding, class, lazy preemption; why it\n"
    "                       waits (for a Slurm limit: which, and when it frees)\n"
    "  map --html FILE      cell map as an HTML page (FILE - for stdout)\n"
    "  map --svg FILE       cell map as SVG (both options may be given)\n"
    "  metrics [-o FILE]    Prometheus text format (FILE written atomically)\n"
    "  whatif -A ACCOUNT GPU-OPTIONS [-N N] [-q QOS] [--hived-*]\n"
    "                       would this job start now, where, whom would it preempt;\n"
    "                       if not, why and when (nothing is submitted or changed).\n"
    "                       GPU-OPTIONS: --gpus-per-node=[TYPE:]K, --gres=gpu[:TYPE]:K\n"
    "                       or --gpus=[TYPE:]N; also --priority P, --switches=1,\n"
    "                       --exclusive, --hived-within T, --hived-pinned ID,\n"
    "                       --hived-lazy-preempt, --hived-opportunistic; -p PARTITION[,..]\n"
    "                       (nodes from scontrol; a list is tried as Slurm does;\n"
    "                       without -p, SBATCH_PARTITION or the default partition,\n"
    "                       unless --status is given), -w NODES, -x NODES, -t TIME\n"
    "                       (checked against MaxTime and MaxWall). --account, --nodes,\n"
    "                       --qos, --partition, --nodelist, --exclude, --time and -G\n"
    "                       are the same as -A, -N, -q, -p, -w, -x, -t and --gpus; a short\n"
    "                       option's value may be glued on, as in sbatch (-N2, -Avc1)\n"
    "Options:\n"
    "  --status FILE        read this hived_status.json (default: $HIVED_STATUS, else\n"
    "                       StateSaveLocation from 'scontrol show config')\n"
    "  --state FILE         whatif: the config from this hived_state.json when the status\n"
    "                       has none (default: $HIVED_STATE, else next to the status)\n"
    "  --ends FILE          whatif: running jobs' end times as 'JOBID|END' lines\n"
    "                       (default: squeue -h -t R,S -o '%A|%e')\n"
    "  -o, --output FILE    metrics: write FILE atomically instead of stdout\n"
    "  --json               JSON instead of tables (status, vc, job, whatif)\n"
    "  -h, --help           this text\n"
    "Exit status: 0 ok, 1 unknown VC or job, partition or -w node, or a whatif job the\n"
    "engine refuses as asked,\n"
    "2 usage error or no readable status (whatif: no config, or libhived out of memory\n"
    "or failing inside).\n";

std::string Trim(std::string s) {
  while (!s.empty() && isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && isspace(static_cast<unsigned char>(s[i]))) i++;
  return s.substr(i);
}

// A '|'-separated row of sacctmgr -P or squeue, each field trimmed.
std::vector<std::string> Fields(const std::string& row) {
  std::vector<std::string> f;
  std::istringstream fields(row);
  for (std::string v; std::getline(fields, v, '|');) f.push_back(Trim(v));
  return f;
}

// What `cmd` prints on stdout, in *out; the exit status as pclose(3) gives it, -1
// when it cannot be started.
int Capture(const std::string& cmd, std::string* out) {
  out->clear();
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out->append(buf, n);
  return pclose(p);
}

// A name that stays one word inside single quotes on a popen command line.
bool ShellSafe(const std::string& name) {
  return !name.empty() && name.find_first_of("'\\\"$`;|&<> \n") == std::string::npos;
}

std::string HeldFor(const std::string& id, const std::string& reason);

// A job HiveD holds nothing for, as squeue sees it: a pending GPU job that Slurm
// has not offered to select/hived yet (priority, limits, dependency, begin time)
// gets its squeue reason, and for a limit whatif checks that limit (HeldFor);
// "" when squeue knows nothing more useful.
std::string SlurmView(const std::string& id) {
  if (id.empty() || id.find_first_not_of("0123456789_") != std::string::npos) return "";
  std::string out;
  if (Capture("squeue -h -j '" + id + "' -o '%T|%r|%b' 2>/dev/null", &out)) return "";
  std::string l = Trim(out.substr(0, out.find('\n')));
  size_t a = l.find('|'), b = a == std::string::npos ? a : l.find('|', a + 1);
  if (b == std::string::npos) return "";
  std::string state = l.substr(0, a), reason = l.substr(a + 1, b - a - 1), tres = l.substr(b + 1);
  if (state != "PENDING" || tres.find("gpu") == std::string::npos) return "";
  return "Job " + id + ": pending in Slurm (reason " + reason +
         "); select/hived has not been asked to place it yet: Slurm holds a job back for its "
         "priority, limits, dependencies or begin time before it asks the select plugin\n" +
         HeldFor(id, reason);
}

// `scontrol show config` as key -> value, asked once: whatif reads StateSaveLocation
// and, for partition checks, three keys more. Empty when scontrol fails (`*failed`).
const std::map<std::string, std::string>& SlurmctldConfig(bool* failed = nullptr) {
  static std::map<std::string, std::string> known;
  static int rc = 0;
  static bool asked = false;
  if (!asked) {
    asked = true;
    std::string out, line;
    rc = Capture("scontrol show config 2>/dev/null", &out);
    std::istringstream lines(out);
    while (std::getline(lines, line)) {
      const size_t eq = line.find('=');
      if (eq != std::string::npos) known[Trim(line.substr(0, eq))] = Trim(line.substr(eq + 1));
    }
  }
  if (failed) *failed = rc != 0;
  return known;
}

// "StateSaveLocation = /var/spool/slurmctld" from scontrol, or the line in slurm.conf.
std::string StateSaveLocation(std::string* why) {
  std::string line, found;
  bool failed = false;
  const auto& config = SlurmctldConfig(&failed);
  const auto it = config.find("StateSaveLocation");
  if (it != config.end() && !it->second.empty()) return it->second;
  *why = failed ? "'scontrol show config' failed (is slurmctld up, SLURM_CONF right?)"
                : "'scontrol show config' has no StateSaveLocation";
  const char* conf = getenv("SLURM_CONF");
  std::ifstream in(conf && *conf ? conf : "/etc/slurm/slurm.conf");
  while (std::getline(in, line)) {
    line = Trim(line);
    if (strncasecmp(line.c_str(), "StateSaveLocation", 17)) continue;
    size_t eq = line.find('=');
    if (eq != std::string::npos) found = Trim(line.substr(eq + 1));
  }
  if (found.empty() && why->empty()) *why = "no StateSaveLocation in slurm.conf";
  return found;
}

bool ReadAll(const std::string& path, std::string* text, std::string* err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *err = path + ": " + strerror(errno);
    if (errno == ENOENT) *err += " (is slurmctld running select/hived with a valid hived.conf?)";
    if (errno == EACCES)
      *err +=
          " (select/hived keeps it to SlurmUser when slurm.conf's PrivateData hides jobs,"
          " accounts or usage; squeue shows your own jobs, an administrator can run hivedctl)";
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  *text = ss.str();
  return true;
}

// "JOBID|END" lines from squeue: the end times backfill would use. "" without squeue.
std::string SqueueEnds() {
  std::string out;
  Capture("squeue -h -t R,S -o '%A|%e' 2>/dev/null", &out);
  return out;
}

// What slurmctld's `scontrol show config` says about partition account checks:
// its release (SLURM_VERSION, as major*100+minor; 0 unknown) and whether its
// AccountingStorageEnforce implies associations. Asked once, when needed.
struct AccountChecks {
  int release = 0;
  bool enforced = false;
  bool enforce_qos = false;         // AccountingStorageEnforce has qos (or all)
  bool enforce_limits = false;      // ... limits (or safe, all)
  std::string slurm_user;           // SlurmUser's name
  std::string enforce_part_limits;  // EnforcePartLimits
};

const AccountChecks& SlurmctldAccountChecks() {
  static AccountChecks known;
  static bool asked = false;
  if (asked) return known;
  asked = true;
  for (const auto& [key, value] : SlurmctldConfig()) {
    if (key == "AccountingStorageEnforce") {
      known.enforced = hivedctl::EnforcesAssociations(value);
      known.enforce_qos = hivedctl::EnforcesQos(value);
      known.enforce_limits = hivedctl::EnforcesLimits(value);
    }
    if (key == "SlurmUser") known.slurm_user = value.substr(0, value.find('('));
    if (key == "EnforcePartLimits") known.enforce_part_limits = value;
    int major = 0, minor = 0;
    if (key == "SLURM_VERSION" && sscanf(value.c_str(), "%d.%d", &major, &minor) == 2)
      known.release = major * 100 + minor;
  }
  return known;
}

// The accounts a partition's AllowAccounts/DenyAccounts are matched against, the
// job's first. Slurm 22.05 matches the account alone, always; 23.11 and later walk
// up the association tree (sacctmgr's ParentName) and check only under
// AccountingStorageEnforce=associations: none then, nor when sacctmgr does not
// know the account (Slurm refuses the job at submission).
std::vector<std::string> AccountLineage(const std::string& account) {
  const AccountChecks& checks = SlurmctldAccountChecks();
  std::vector<std::string> up;
  if (checks.release < 2311) return {account};
  if (!checks.enforced) return up;
  for (std::string a = account; ShellSafe(a) && up.size() < 32;) {
    std::string out;
    if (Capture(
            "sacctmgr -nP show assoc where account='" + a + "' format=user,parentname 2>/dev/null",
            &out))
      break;
    std::istringstream rows(out);
    std::string row, parent;
    bool found = false;
    while (std::getline(rows, row)) {
      if (row.empty() || row[0] != '|') continue;  // a user's association
      found = true;
      parent = Trim(row.substr(1));
    }
    if (!found) break;
    up.push_back(a);
    if (parent.empty() || std::find(up.begin(), up.end(), parent) != up.end()) break;
    a = parent;
  }
  return up;
}

// An association as `sacctmgr -P show assoc` prints it: that of the user hivedctl
// runs as in account (user_row), else the account's own, on slurmctld's cluster.
// found false when sacctmgr does not know the account (no accounting).
struct Association {
  bool found = false, user_row = false;
  std::string user;                         // "" for the account's own
  std::string default_qos, qos;             // DefaultQOS, QOS (a comma list)
  std::string max_tres, max_tres_per_node;  // MaxTRES, MaxTRESPerNode (an ancestor's if unset)
  int64_t max_jobs = -1;                    // MaxJobs
  std::string max_wall;                     // MaxWall (an ancestor's if unset)
};

Association AssociationOf(const std::string& account, const std::string& user = "") {
  Association a;
  std::string out, cluster, me = user;
  const auto& config = SlurmctldConfig();
  const auto it = config.find("ClusterName");
  if (it != config.end() && ShellSafe(it->second)) cluster = " cluster='" + it->second + "'";
  if (me.empty())
    if (const struct passwd* pw = getpwuid(getuid())) me = pw->pw_name;
  if (!ShellSafe(account) ||
      Capture("sacctmgr -nP show assoc where account='" + account + "'" + cluster +
                  " format=user,defaultqos,qos,maxtres,maxtrespernode,maxjobs,maxwall 2>/dev/null",
              &out))
    return a;
  std::istringstream rows(out);
  std::string row;
  std::vector<std::string> mine, its;
  while (std::getline(rows, row)) {
    std::vector<std::string> f = Fields(row);
    if (f.size() < 3) continue;
    f.resize(7);
    if (f[0] == me && mine.empty()) mine = f;
    if (f[0].empty() && its.empty()) its = f;
  }
  const std::vector<std::string>& pick = mine.empty() ? its : mine;
  if (pick.empty()) return a;
  a.found = true;
  a.user_row = !mine.empty();
  a.user = pick[0];
  a.default_qos = pick[1];
  a.qos = pick[2];
  a.max_tres = pick[3];
  a.max_tres_per_node = pick[4];
  if (!pick[5].empty()) a.max_jobs = atoll(pick[5].c_str());
  a.max_wall = pick[6];
  return a;
}

// A QOS as sacctmgr shows it: its limits, flags and priority, asked once per run
// (one query serves every check). answered false when sacctmgr could not be asked
// (no accounting); found false when it answered and does not know the QOS.
struct QosLimits {
  bool answered = false, found = false;
  hivedctl::TresLimits limits;
  std::string flags;
  int priority = -1;  // slurmctld gives it to the engine divided by priorityScale
};

const QosLimits& QosLimitsOf(const std::string& qos) {
  static std::map<std::string, QosLimits> known;
  auto [it, fresh] = known.try_emplace(qos);
  QosLimits& q = it->second;
  if (!fresh) return q;
  std::string out;
  if (!ShellSafe(qos) ||
      Capture("sacctmgr -nP show qos '" + qos +
                  "' format=maxtres,maxtrespernode,mintres,flags,grptres,maxtresperuser,"
                  "maxtresperaccount,grpjobs,maxjobsperuser,maxjobsperaccount,priority,maxwall "
                  "2>/dev/null",
              &out))
    return q;
  q.answered = true;
  std::vector<std::string> f = Fields(Trim(out));
  if (f.size() < 3) return q;
  f.resize(12);
  auto count = [](const std::string& v) { return v.empty() ? int64_t{-1} : atoll(v.c_str()); };
  q.found = true;
  q.limits.owner = "QOS " + qos;
  q.limits.is_qos = true;
  q.limits.max_per_job = f[0];
  q.limits.max_per_node = f[1];
  q.limits.min_per_job = f[2];
  q.flags = f[3];
  q.limits.name = qos;
  q.limits.grp = f[4];
  q.limits.per_user = f[5];
  q.limits.per_account = f[6];
  q.limits.grp_jobs = count(f[7]);
  q.limits.jobs_per_user = count(f[8]);
  q.limits.jobs_per_account = count(f[9]);
  if (isdigit(static_cast<unsigned char>(f[10].c_str()[0]))) q.priority = atoi(f[10].c_str());
  q.limits.max_wall = f[11];
  return q;
}

// The associations whose GrpJobs count a job of user in account, and the account
// tree to count the running jobs under them, from one sacctmgr query per run.
const hivedctl::AssocTree& AssocTreeOf(const std::string& account, const std::string& user) {
  static std::map<std::string, hivedctl::AssocTree> known;
  static std::string rows;
  static bool asked = false;
  auto [at, fresh] = known.try_emplace(account + '|' + user);
  hivedctl::AssocTree& tree = at->second;
  if (!fresh) return tree;
  if (!asked) {
    asked = true;
    std::string cluster;
    const auto& config = SlurmctldConfig();
    const auto it = config.find("ClusterName");
    if (it != config.end() && ShellSafe(it->second))
      cluster = " where cluster='" + it->second + "'";
    if (Capture("sacctmgr -nP show assoc" + cluster +
                    " format=account,user,parentname,grpjobs 2>/dev/null",
                &rows))
      rows.clear();
  }
  std::map<std::string, int64_t> of_account;
  int64_t of_user = -1;
  bool user_row = false;
  std::istringstream lines(rows);
  for (std::string row; std::getline(lines, row);) {
    std::vector<std::string> f = Fields(row);
    if (f.size() < 3) continue;
    f.resize(4);
    const int64_t grp = f[3].empty() ? -1 : atoll(f[3].c_str());
    if (f[1].empty()) {
      tree.parents[f[0]] = f[2];
      of_account[f[0]] = grp;
    } else if (f[0] == account && f[1] == user) {
      user_row = true;
      of_user = grp;
    }
  }
  if (user_row) tree.chain.push_back({account, user, of_user});
  std::set<std::string> seen;
  for (std::string a = account; !a.empty() && of_account.count(a) && seen.insert(a).second;) {
    tree.chain.push_back({a, "", of_account[a]});
    a = tree.parents[a];
  }
  return tree;
}

// The limit on usage that holds a job, in slurmctld's order: its QOS's job counts,
// then the associations' GrpJobs up the tree, then MaxJobs and the QOS's TRES.
hivedctl::UsageHold HoldOnUsage(const std::vector<hivedctl::TresLimits>& qos,
                                const hivedctl::TresLimits& mine, const hivedctl::JobTres& job,
                                const std::string& user, const std::string& account,
                                const std::string& partition, const std::string& part_qos,
                                const std::vector<hivedctl::RunningJob>& running) {
  hivedctl::UsageHold hold =
      hivedctl::UsageHolds(qos, mine, job, user, account, partition, part_qos, running);
  static const std::set<std::string> kQosCounts = {"QOSGrpJobsLimit", "QOSMaxJobsPerUserLimit",
                                                   "MaxJobsPerAccount"};
  if (kQosCounts.count(hold.reason)) return hold;
  bool qos_grp_jobs = false;
  for (const auto& q : qos) qos_grp_jobs = qos_grp_jobs || q.grp_jobs >= 0;
  hivedctl::UsageHold group =
      hivedctl::GroupJobsHold(AssocTreeOf(account, user), qos_grp_jobs, running);
  return group.why.empty() ? hold : group;
}

// The limits of a job's QOS and its partition's, in the order slurmctld takes
// them (QosOrder); *denies (if given): one of them has DenyOnLimit.
std::vector<hivedctl::TresLimits> QosChain(const std::string& job_qos, const std::string& part_qos,
                                           bool* denies) {
  std::vector<hivedctl::TresLimits> chain;
  for (const auto& name : hivedctl::QosOrder(job_qos, QosLimitsOf(job_qos).flags, part_qos)) {
    const QosLimits& q = QosLimitsOf(name);
    if (!q.found) continue;
    chain.push_back(q.limits);
    if (denies) *denies = *denies || hivedctl::QosHasFlag(q.flags, "DenyOnLimit");
  }
  return chain;
}

// The running and suspended jobs, as limits on usage count them: squeue's user,
// account, QOS, partition and allocated TRES, with the end times of ends.
std::vector<hivedctl::RunningJob> RunningJobs(
    const std::vector<std::pair<std::string, int64_t>>& ends) {
  std::vector<hivedctl::RunningJob> jobs;
  std::string out;
  // "type:|": a field as long as its value (size 0, no padding, no truncation), then
  // '|' (its suffix).
  if (Capture("squeue -h -t R,S -O 'JobID:|,UserName:|,Account:|,QOS:|,Partition:|,"
              "tres-alloc:|' 2>/dev/null",
              &out))
    return jobs;
  std::map<std::string, int64_t> end_of(ends.begin(), ends.end());
  std::istringstream rows(out);
  for (std::string row; std::getline(rows, row);) {
    std::vector<std::string> f = Fields(row);
    if (f.size() < 6) continue;
    hivedctl::RunningJob r;
    r.id = f[0];
    r.user = f[1];
    r.account = f[2];
    r.qos = f[3];
    r.partition = f[4];
    r.tres = f[5];
    const auto it = end_of.find(r.id);
    if (it != end_of.end()) r.end = it->second;
    jobs.push_back(std::move(r));
  }
  return jobs;
}

// The limit of the job's QOS, its partition's QOS or its association that keeps it
// out, as slurmctld applies them (only under AccountingStorageEnforce with limits),
// into ask's limit_* fields: per-job limits first, then limits on usage, against
// the running jobs (asked for once, when a QOS or the association has a limit on
// usage).
void CheckLimits(const Association& assoc, const std::vector<std::pair<std::string, int64_t>>& ends,
                 hivedctl::WhatifAsk* ask) {
  if (!ask->limit_refuses.empty()) return;  // its partition's, checked first
  if (!assoc.found || !SlurmctldAccountChecks().enforce_limits) return;
  bool denies = false;
  const std::vector<hivedctl::TresLimits> qos = QosChain(ask->qos, ask->partition_qos, &denies);
  hivedctl::TresLimits mine{"the association of " +
                                (assoc.user.empty() ? "account " : assoc.user + " in account ") +
                                ask->account,
                            false, assoc.max_tres, assoc.max_tres_per_node, ""};
  mine.max_wall = assoc.max_wall;
  // MaxWall first: slurmctld checks time before TRES (acct_policy.c's
  // runnable_pre_select). Without -t the job has its partition's DefaultTime by
  // then (_valid_job_part()); without that either, it takes the limit as its time.
  if (ask->time_limit >= 0)
    ask->limit_refuses = hivedctl::WallRefuses(qos, mine, ask->time_limit, &ask->limit_reason);
  else if (ask->default_time >= 0)
    ask->limit_refuses = hivedctl::WallRefuses(
        qos, mine, ask->default_time, &ask->limit_reason,
        "without -t the job gets partition " + ask->partition + "'s DefaultTime,");
  if (denies && !ask->limit_refuses.empty())
    ask->limit_refused_by = "its QOS has DenyOnLimit (Job violates accounting/QOS policy)";
  if (!ask->limit_refuses.empty()) return;
  hivedctl::JobTres job;
  job.nodes = ask->nodes;
  job.gpus = ask->gpus > 0 ? ask->gpus : int64_t{ask->gpus_per_node} * ask->nodes;
  if (ask->gpus_per_node > 0)
    job.gpus_per_node = ask->gpus_per_node;
  else if (ask->gpus > 0 && ask->nodes_given)
    job.gpus_per_node = ask->gpus / ask->nodes;
  job.gpu_type = ask->gpu_type;
  ask->limit_refuses = hivedctl::LimitRefuses(qos, mine, job, &ask->limit_reason);
  if (denies && !ask->limit_refuses.empty())
    ask->limit_refused_by = "its QOS has DenyOnLimit (Job violates accounting/QOS policy)";
  if (!ask->limit_refuses.empty()) return;
  mine.jobs_per_user = assoc.max_jobs;
  std::string me = assoc.user;
  if (me.empty())
    if (const struct passwd* pw = getpwuid(getuid())) me = pw->pw_name;
  bool on_usage = mine.jobs_per_user >= 0;
  for (const auto& q : qos)
    on_usage = on_usage || !q.grp.empty() || !q.per_user.empty() || !q.per_account.empty() ||
               q.grp_jobs >= 0 || q.jobs_per_user >= 0 || q.jobs_per_account >= 0;
  for (const auto& g : AssocTreeOf(ask->account, me).chain) on_usage = on_usage || g.grp_jobs >= 0;
  if (!on_usage) return;
  static const std::vector<hivedctl::RunningJob> running = RunningJobs(ends);
  const hivedctl::UsageHold hold =
      HoldOnUsage(qos, mine, job, me, ask->account, ask->partition, ask->partition_qos, running);
  if (hold.why.empty()) return;
  ask->limit_refuses = hold.why;
  ask->limit_reason = hold.reason;
  ask->limit_on_usage = !hold.never;  // never: as a per-job limit, for as long as it stands
  if (denies && hold.request_over)
    ask->limit_refused_by = "its QOS has DenyOnLimit (Job violates accounting/QOS policy)";
  ask->limit_frees = hold.frees;
  ask->limit_after = hold.after;
}

// Why sbatch refuses `-q qos` for a job of this association ("" when it takes it),
// as slurmctld checks it: a QOS sacctmgr does not know, always; one outside the
// user's association's QOS list, under AccountingStorageEnforce with qos, for a user
// who is not root, SlurmUser or an operator (sacctmgr AdminLevel).
std::string QosRefused(const std::string& qos, const std::string& account,
                       const Association& assoc) {
  const QosLimits& known = QosLimitsOf(qos);
  if (!known.answered) return "";
  if (!known.found)
    return "QOS '" + qos +
           "' does not exist (sacctmgr show qos); sbatch refuses the job "
           "(Invalid qos specification)";
  const AccountChecks& checks = SlurmctldAccountChecks();
  if (!checks.enforce_qos || !assoc.user_row) return "";
  const struct passwd* pw = getpwuid(getuid());
  if (getuid() == 0 || !pw || pw->pw_name == checks.slurm_user || !ShellSafe(pw->pw_name))
    return "";
  const std::string why = hivedctl::QosRefuses(qos, assoc.qos);
  if (why.empty()) return "";
  std::string out;
  Capture(std::string("sacctmgr -nP show user '") + pw->pw_name + "' format=adminlevel 2>/dev/null",
          &out);
  const std::string level = Trim(out);
  if (level == "Operator" || level == "Administrator") return "";
  return "the association of user " + std::string(pw->pw_name) + " in account " + account + " " +
         why + "; sbatch refuses the job (Invalid qos specification)";
}

// Whether the user hivedctl runs as may use a partition of AllowGroups=groups, as
// slurmctld decides: root and SlurmUser anywhere, else a member of one of the groups
// (primary or supplementary). A user the system does not know is not refused.
bool UserInGroups(const std::vector<std::string>& groups) {
  const uid_t uid = getuid();
  const struct passwd* pw = getpwuid(uid);
  if (uid == 0 || !pw) return true;
  const std::string user = pw->pw_name;
  const gid_t primary = pw->pw_gid;
  if (user == SlurmctldAccountChecks().slurm_user) return true;
  int n = 64;
  std::vector<gid_t> gids(n);
  if (getgrouplist(user.c_str(), primary, gids.data(), &n) < 0) {
    gids.resize(n);
    if (getgrouplist(user.c_str(), primary, gids.data(), &n) < 0) return true;
  }
  gids.resize(n);
  for (gid_t g : gids) {
    const struct group* gr = getgrgid(g);
    if (gr && std::find(groups.begin(), groups.end(), gr->gr_name) != groups.end()) return true;
  }
  return false;
}

// A partition's limits on the job, from its record into ask: its QoS, then its
// MinNodes and MaxNodes against -N and its MaxTime against -t, as slurmctld checks
// them before any accounting limit, and its DefaultTime for a job without -t.
void PartitionLimits(const std::string& record, hivedctl::WhatifAsk* ask) {
  ask->partition_qos = hivedctl::RecordField(record, "QoS");
  ask->default_time = hivedctl::TimeMinutes(hivedctl::RecordField(record, "DefaultTime"));
  const std::string flags = ask->qos.empty() ? "" : QosLimitsOf(ask->qos).flags;
  // Its MinNodes and MaxNodes against -N, then its MaxTime against -t, checked by
  // slurmctld before any accounting limit (without -N the node count comes from
  // the placement; without -t the job takes the partition's times).
  const char* reason = "PartitionNodeLimit";
  const char* sbatch_says = "Node count specification invalid";
  if (ask->nodes_given)
    ask->limit_refuses = hivedctl::PartitionNodesRefuse(record, ask->nodes, flags);
  if (ask->limit_refuses.empty() && ask->time_limit >= 0) {
    ask->limit_refuses = hivedctl::PartitionTimeRefuses(record, ask->time_limit, flags);
    reason = "PartitionTimeLimit";
    sbatch_says = "Requested time limit is invalid (missing or exceeds some limit)";
  }
  if (ask->limit_refuses.empty()) return;
  ask->limit_reason = reason;
  const std::string& enforce = SlurmctldAccountChecks().enforce_part_limits;
  if (hivedctl::EnforcesPartLimits(enforce))
    ask->limit_refused_by = "EnforcePartLimits is " + enforce + " (" + sbatch_says + ")";
}

// For a pending job Slurm holds for a partition, QOS or association limit that
// whatif checks (its squeue reason), that limit as whatif names it and, for a
// limit on usage, when enough of the jobs it counts end: whatif's checks run on
// the job's own record (its user, account, QOS, partition, TRES and time limit).
// "" for any other reason, or when the limit no longer holds it by what Slurm says.
std::string HeldFor(const std::string& id, const std::string& reason) {
  static const std::set<std::string> kLimits = {"PartitionNodeLimit",
                                                "PartitionTimeLimit",
                                                "QOSMaxWallDurationPerJobLimit",
                                                "AssocMaxWallDurationPerJobLimit",
                                                "QOSMaxGRESPerJob",
                                                "QOSMaxNodePerJobLimit",
                                                "QOSMaxGRESPerNode",
                                                "QOSMinGRES",
                                                "QOSMinNode",
                                                "AssocMaxGRESPerJob",
                                                "AssocMaxNodePerJobLimit",
                                                "AssocMaxGRESPerNode",
                                                "QOSGrpGRES",
                                                "QOSGrpNodeLimit",
                                                "QOSMaxGRESPerUser",
                                                "QOSMaxNodePerUserLimit",
                                                "MaxGRESPerAccount",
                                                "MaxNodePerAccount",
                                                "QOSGrpJobsLimit",
                                                "QOSMaxJobsPerUserLimit",
                                                "MaxJobsPerAccount",
                                                "AssocMaxJobsLimit",
                                                "AssocGrpJobsLimit"};
  if (!kLimits.count(reason)) return "";
  std::string out;
  if (Capture("scontrol -o show job '" + id + "' 2>/dev/null", &out)) return "";
  const std::string record = " " + Trim(out.substr(0, out.find('\n')));
  std::string user = hivedctl::RecordField(record, "UserId");
  user = user.substr(0, user.find('('));
  hivedctl::WhatifAsk ask;
  ask.account = hivedctl::RecordField(record, "Account");
  ask.qos = hivedctl::RecordField(record, "QOS");
  ask.partition = hivedctl::RecordField(record, "Partition");
  // ReqTRES from 23.02 on; before, TRES is the request while the job pends.
  std::string req = hivedctl::RecordField(record, "ReqTRES");
  if (req.empty()) req = hivedctl::RecordField(record, "TRES");
  if (!ShellSafe(user) || !ShellSafe(ask.partition) || ask.partition.find(',') != std::string::npos)
    return "";
  ask.nodes = static_cast<int>(std::max<int64_t>(1, hivedctl::TresValue(req, "node")));
  ask.nodes_given = true;
  ask.gpus = static_cast<int>(std::max<int64_t>(0, hivedctl::TresValue(req, "gres/gpu")));
  std::istringstream entries(req);
  for (std::string e; std::getline(entries, e, ',');)
    if (e.rfind("gres/gpu:", 0) == 0) ask.gpu_type = e.substr(9, e.find('=') - 9);
  ask.time_limit = hivedctl::TimeMinutes(hivedctl::RecordField(record, "TimeLimit"));
  std::string part_record;
  if (!Capture("scontrol -a -o show partition '" + ask.partition + "' 2>/dev/null", &part_record))
    PartitionLimits(Trim(part_record), &ask);
  CheckLimits(AssociationOf(ask.account, user), hivedctl::ParseEnds(SqueueEnds()), &ask);
  if (ask.limit_refuses.empty()) return "";
  std::string text = "  " + ask.limit_refuses + "\n";
  if (ask.limit_on_usage) {
    hivedctl::UsageHold hold;
    hold.frees = ask.limit_frees;
    hold.after = ask.limit_after;
    text += hivedctl::LimitFreesText(hold, time(nullptr));
  }
  return text;
}

// A partition's record from `scontrol -o show partition` into ask: its name and
// nodes (scontrol expands node sets; Nodes=ALL sets partition_all), whether it
// lets the job's account and QOS in, and, in *tier, its PriorityTier. what: the
// option or variable that named it.
bool TakePartition(const std::string& record, const std::string& what, hivedctl::WhatifAsk* ask,
                   int* tier, std::string* err) {
  ask->partition = record.substr(14, record.find(' ') - 14);
  ask->partition_refuses = hivedctl::PartitionRefuses(
      record, ask->account, [&] { return AccountLineage(ask->account); }, ask->qos, UserInGroups);
  *tier = atoi(hivedctl::RecordField(record, "PriorityTier").c_str());
  PartitionLimits(record, ask);
  const std::string list = hivedctl::RecordField(record, "Nodes");
  ask->partition_nodes.clear();
  ask->partition_all = list == "ALL";
  if (ask->partition_all || list == "(null)") return true;  // (null): a partition without nodes
  hived::Status st =
      hived::topo::expand_hostlist(list, &ask->partition_nodes, hived::topo::kMaxClusterNodes);
  if (!st.ok())
    *err = what + ": partition " + ask->partition + "'s node list " + list + ": " + st.msg;
  return st.ok();
}

// The partitions an sbatch with these options would be tried in, one ask each, in
// Slurm's order (PriorityTier, highest first, then as listed): -p's; else, reading
// the live cluster, SBATCH_PARTITION's or slurmctld's default partition. One ask
// without a partition (every node) for an offline status file without -p, or a
// live cluster without a default (or whose scontrol does not answer, noted on
// stderr). false and *err when scontrol does not know a named partition. -a:
// hidden partitions too, which sbatch -p may name.
bool ResolvePartitions(const hivedctl::WhatifAsk& ask, bool live,
                       std::vector<hivedctl::WhatifAsk>* asks, std::string* err) {
  asks->assign(1, ask);
  std::string names = ask.partition, from = ask.partition_from, what = "--partition=" + names;
  if (names.empty() && live) {
    const char* env = getenv("SBATCH_PARTITION");
    if (env && *env) {
      names = env;
      from = "SBATCH_PARTITION";
      what = "SBATCH_PARTITION=" + names;
    }
  }
  std::vector<std::pair<int, hivedctl::WhatifAsk>> found;
  std::string out;
  if (!names.empty()) {
    std::istringstream list(names);
    std::string name;
    while (std::getline(list, name, ',')) {
      if (!ShellSafe(name)) {
        *err = what + ": '" + name + "' is not a partition name";
        return false;
      }
      int rc = Capture("scontrol -a -o show partition '" + name + "' 2>&1", &out);
      if (rc || out.compare(0, 14, "PartitionName=") ||
          hivedctl::RecordField(out, "Nodes").empty()) {
        out = Trim(out);
        *err = what + ": scontrol show partition " + name + ": " +
               (out.empty() ? std::string("no answer (is slurmctld up, SLURM_CONF right?)") : out);
        return false;
      }
      found.emplace_back(0, ask);
      found.back().second.partition_from = from;
      if (!TakePartition(out, what, &found.back().second, &found.back().first, err)) return false;
    }
  } else if (live) {
    int rc = Capture("scontrol -a -o show partition 2>&1", &out);
    std::istringstream lines(out);
    std::string line, record;
    while (std::getline(lines, line))
      if (!line.compare(0, 14, "PartitionName=") && hivedctl::RecordField(line, "Default") == "YES")
        record = line;
    if (record.empty()) {
      if (rc)
        fprintf(stderr,
                "hivedctl: whatif: no default partition from scontrol (%s); every node is "
                "considered, pass -p PARTITION\n",
                Trim(out).empty() ? "no answer" : Trim(out).c_str());
      return true;  // no default partition: every node, as -p ALL
    }
    found.emplace_back(0, ask);
    found.back().second.partition_from = "default";
    if (!TakePartition(record, "the default partition", &found.back().second, &found.back().first,
                       err))
      return false;
  }
  if (found.empty()) return true;  // an offline status file: every node unless -p
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& x, const auto& y) { return x.first > y.first; });
  asks->clear();
  for (auto& f : found) asks->push_back(std::move(f.second));
  return true;
}

int Usage(const std::string& msg) {
  if (!msg.empty()) fprintf(stderr, "hivedctl: %s\n", msg.c_str());
  fputs(kUsage, stderr);
  return 2;
}

// whatif: the config comes from the status file when it carries one, else from
// the state file (SlurmUser's, 0600); jobs and bad nodes always from the status,
// which slurmctld rewrites within a second of any change.
int RunWhatif(const hivedctl::Status& st, const std::string& status_path, std::string state_path,
              const std::string& ends_path, hivedctl::WhatifAsk ask, bool live, bool json,
              int64_t now) {
  std::string state_text, err;
  if (!(st.root && json_is_object(json_object_get(st.root.get(), "config")))) {
    if (state_path.empty() && getenv("HIVED_STATE") && *getenv("HIVED_STATE"))
      state_path = getenv("HIVED_STATE");
    if (state_path.empty()) {
      size_t slash = status_path.rfind('/');
      state_path = (slash == std::string::npos ? std::string(".") : status_path.substr(0, slash)) +
                   "/hived_state.json";
    }
    if (!ReadAll(state_path, &state_text, &err)) {
      fprintf(stderr,
              "hivedctl: whatif needs the cluster's config, which this hived_status.json does "
              "not carry; %s (the state file is SlurmUser's: run as SlurmUser or root, or "
              "pass --state FILE)\n",
              err.c_str());
      return 2;
    }
  }
  const std::string config = hivedctl::WhatifConfig(st, state_text, &err);
  hived_engine* e = nullptr;
  if (config.empty() || !hivedctl::WhatifEngine(st, config, &e, &err)) {
    fprintf(stderr, "hivedctl: whatif: %s\n", err.c_str());
    return 2;
  }
  std::string ends_text;
  if (!ends_path.empty()) {
    if (!ReadAll(ends_path, &ends_text, &err)) {
      hived_engine_free(e);
      fprintf(stderr, "hivedctl: %s\n", err.c_str());
      return 2;
    }
  } else {
    ends_text = SqueueEnds();
  }
  Association assoc;
  if (live) {
    assoc = AssociationOf(ask.account);
    if (ask.qos.empty() && assoc.found) {
      ask.qos = hivedctl::DefaultQos(assoc.default_qos, assoc.qos);
      ask.qos_from = "association";
    } else if (!ask.qos.empty() && assoc.found) {
      const std::string why = QosRefused(ask.qos, ask.account, assoc);
      if (!why.empty()) {
        hived_engine_free(e);
        fprintf(stderr, "hivedctl: whatif: %s\n", why.c_str());
        return 1;
      }
    }
    // Whatif asks about no reservation, and a job outside one may not have this QOS,
    // given or by default (slurmctld's _determine_and_validate_qos, for anyone).
    if (assoc.found && hivedctl::QosHasFlag(QosLimitsOf(ask.qos).flags, "RequiresReservation")) {
      hived_engine_free(e);
      fprintf(stderr,
              "hivedctl: whatif: QOS %s%s can only be used in a reservation "
              "(RequiresReservation); sbatch refuses the job without --reservation (Invalid "
              "qos specification), and whatif does not ask about reservations\n",
              ask.qos.c_str(), ask.qos_from.empty() ? "" : " (its association's default)");
      return 1;
    }
  }
  if (ask.priority < 0 && !ask.qos.empty()) ask.priority = QosLimitsOf(ask.qos).priority;
  ask.borrow = st.borrow_idle_cells;
  std::vector<hivedctl::WhatifAsk> asks;
  if (!ResolvePartitions(ask, live, &asks, &err)) {
    hived_engine_free(e);
    fprintf(stderr, "hivedctl: whatif: %s\n", err.c_str());
    return 1;
  }
  const auto ends = hivedctl::ParseEnds(ends_text);
  if (live)
    for (auto& a : asks) CheckLimits(assoc, ends, &a);
  std::string answer;
  int rc = hivedctl::WhatifPartitions(e, config, asks, ends, now, &answer, &err);
  hived_engine_free(e);
  if (rc) {
    fprintf(stderr, "hivedctl: whatif: %s\n", err.c_str());
    return rc;
  }
  const std::string out = json ? answer + "\n" : hivedctl::WhatifText(answer, now);
  fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string status_path, state_path, ends_path, html, svg, output;
  bool json = false, whatif_opts = false;
  hivedctl::WhatifAsk ask;
  std::vector<std::string> args;
  std::string why_opt;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto value = [&](std::string* slot) -> bool {
      size_t eq = a.find('=');
      if (eq != std::string::npos) {
        *slot = a.substr(eq + 1);
        return true;
      }
      if (i + 1 >= argc) return false;
      *slot = argv[++i];
      return true;
    };
    auto is = [&](const char* name) {
      return a == name || a.rfind(std::string(name) + "=", 0) == 0;
    };
    if (a == "-h" || a == "--help") {
      fputs(kUsage, stdout);
      return 0;
    } else if (a == "--json") {
      json = true;
    } else if (is("--status")) {
      if (!value(&status_path)) return Usage("--status needs a file");
    } else if (is("--html")) {
      if (!value(&html)) return Usage("--html needs a file");
    } else if (is("--svg")) {
      if (!value(&svg)) return Usage("--svg needs a file");
    } else if (a == "-o" || is("--output")) {
      if (!value(&output)) return Usage("-o needs a file");
    } else if (is("--state")) {
      if (!value(&state_path)) return Usage("--state needs a file");
    } else if (is("--ends")) {
      if (!value(&ends_path)) return Usage("--ends needs a file");
    } else if (int took = hivedctl::TakeWhatifOption(argc, argv, &i, &ask, &why_opt)) {
      if (took < 0) return Usage(why_opt);
      whatif_opts = true;
    } else if (a.size() > 1 && a[0] == '-') {
      return Usage("unknown option '" + a + "'");
    } else {
      args.push_back(a);
    }
  }
  if (args.empty()) return Usage("no command");
  const std::string cmd = args[0];
  const bool known = cmd == "status" || cmd == "vc" || cmd == "job" || cmd == "map" ||
                     cmd == "metrics" || cmd == "whatif";
  if (!known) return Usage("unknown command '" + cmd + "'");
  if ((cmd == "job" && args.size() != 2) || (cmd == "vc" && args.size() > 2) ||
      ((cmd == "status" || cmd == "map" || cmd == "metrics" || cmd == "whatif") &&
       args.size() != 1))
    return Usage("wrong number of arguments for '" + cmd + "'");
  if (cmd == "map" && html.empty() && svg.empty())
    return Usage("map needs --html FILE or --svg FILE");
  if (cmd != "map" && (!html.empty() || !svg.empty())) return Usage("--html/--svg go with 'map'");
  if (cmd != "metrics" && !output.empty()) return Usage("-o goes with 'metrics'");
  if (cmd != "whatif" && (whatif_opts || !state_path.empty() || !ends_path.empty()))
    return Usage("job shape options, --state and --ends go with 'whatif'");
  if (cmd == "whatif" && ask.account.empty()) return Usage("whatif needs -A ACCOUNT");

  std::string why;
  // --status FILE may be a copy from elsewhere: only -p then names a partition.
  const bool live = status_path.empty();
  if (status_path.empty() && getenv("HIVED_STATUS") && *getenv("HIVED_STATUS"))
    status_path = getenv("HIVED_STATUS");
  if (status_path.empty()) {
    std::string dir = StateSaveLocation(&why);
    if (dir.empty()) {
      fprintf(stderr, "hivedctl: cannot find hived_status.json: %s; pass --status FILE\n",
              why.c_str());
      return 2;
    }
    status_path = dir + "/hived_status.json";
  }
  std::string text, err;
  hivedctl::Status st;
  if (!ReadAll(status_path, &text, &err)) {
    fprintf(stderr, "hivedctl: %s\n", err.c_str());
    return 2;
  }
  if (!hivedctl::Parse(text, &st, &err)) {
    fprintf(stderr, "hivedctl: %s: %s\n", status_path.c_str(), err.c_str());
    return 2;
  }
  const int64_t now = time(nullptr);
  st.AgeWaits(now);
  std::string out;
  bool ok = true;
  if (cmd == "status") {
    out = json ? hivedctl::StatusJson(st) : hivedctl::StatusText(st, now);
  } else if (cmd == "vc") {
    std::string name = args.size() > 1 ? args[1] : "";
    ok = json ? hivedctl::VcJson(st, name, &out, &err) : hivedctl::VcText(st, name, &out, &err);
  } else if (cmd == "job") {
    ok = json ? hivedctl::JobJson(st, args[1], &out, &err)
              : hivedctl::JobText(st, args[1], &out, &err);
    if (!ok && !json) {
      out = SlurmView(args[1]);
      ok = !out.empty();
    }
  } else if (cmd == "whatif") {
    return RunWhatif(st, status_path, state_path, ends_path, ask, live, json, now);
  } else if (cmd == "metrics") {
    if (!hivedctl::WriteOutput(output.empty() ? "-" : output, hivedctl::Metrics(st), &err)) {
      fprintf(stderr, "hivedctl: %s\n", err.c_str());
      return 2;
    }
    return 0;
  } else {
    if ((!html.empty() && !hivedctl::WriteOutput(html, hivedctl::MapHtml(st, now), &err)) ||
        (!svg.empty() && !hivedctl::WriteOutput(svg, hivedctl::MapSvg(st, now), &err))) {
      fprintf(stderr, "hivedctl: %s\n", err.c_str());
      return 2;
    }
    return 0;
  }
  if (!ok) {
    fprintf(stderr, "hivedctl: %s\n", err.c_str());
    return 1;
  }
  fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}
