// SPDX-License-Identifier: GPL-2.0-or-later
// Whether a partition lets a job in, as slurmctld decides before it asks the
// select plugin: whatif must not answer "starts now" for a partition whose
// AllowAccounts, AllowGroups or AllowQos would keep the job pending forever.
#ifndef HIVEDCTL_ACCESS_H
#define HIVEDCTL_ACCESS_H

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace hivedctl {

// The value of " KEY=" in a one-line scontrol record ("" when absent).
std::string RecordField(const std::string& record, const std::string& key);

// Why slurmctld never starts a job of account (on) QOS qos in the partition whose
// `scontrol -o show partition` record this is; "" when it may.
// - AllowAccounts (else DenyAccounts) against the accounts lineage() gives: the
//   account first, then (Slurm 23.11 and later) each account above it, as Slurm
//   walks the association tree. It is called only when the partition lists
//   accounts, and returns none where Slurm does not check them (23.11 and later
//   without AccountingStorageEnforce=associations); then neither does this.
// - AllowQos (else DenyQos) against qos; not checked when qos is "" (a job without
//   -q whose association sacctmgr could not give: see DefaultQos).
// - AllowGroups: in_groups(groups) says whether the user may use them (root and
//   SlurmUser always, as in slurmctld; else a member of one); called only when the
//   partition lists groups, not checked without it.
std::string PartitionRefuses(
    const std::string& record, const std::string& account,
    const std::function<std::vector<std::string>()>& lineage, const std::string& qos,
    const std::function<bool(const std::vector<std::string>&)>& in_groups = nullptr);

// Whether an AccountingStorageEnforce value makes Slurm check associations:
// associations, or limits, qos, safe, wckeys or all, which imply it (1, 2: the
// numeric forms of associations, limits).
bool EnforcesAssociations(const std::string& value);

// Whether an AccountingStorageEnforce value makes Slurm check a job's QOS against
// its association's QOS list: qos, or all.
bool EnforcesQos(const std::string& value);

// Why an association whose QOS list (sacctmgr's comma list) is qos_list may not
// use qos ("" when it may): "may use QOS a,b, not c". Compared case-insensitively.
std::string QosRefuses(const std::string& qos, const std::string& qos_list);

// The QOS slurmctld gives a job submitted without --qos, from its association's
// DefaultQOS and QOS list as `sacctmgr -P show assoc` prints them (a child's are its
// parent's when unset): the default QOS; else the one QOS of the list when it has
// only one; else "normal".
std::string DefaultQos(const std::string& default_qos, const std::string& qos_list);

// A job's size as Slurm's per-job TRES limits count it.
struct JobTres {
  int64_t gpus = 0;            // GPUs of the job (0: none counted, as --exclusive alone)
  int64_t nodes = 1;           // nodes: the number asked (-N), else 1
  int64_t gpus_per_node = -1;  // -1: not known before placement (--gpus without -N)
  std::string gpu_type;        // "" for any type
};

// Per-job limits as `sacctmgr -P` prints them: a QOS's MaxTRESPerJob,
// MaxTRESPerNode and MinTRESPerJob, or an association's MaxTRES and
// MaxTRESPerNode (min_per_job empty).
struct TresLimits {
  std::string owner;  // for the message: "QOS normal", "the association of u in a"
  bool is_qos = false;
  std::string max_per_job, max_per_node, min_per_job;
  // Limits on usage: a QOS's GrpTRES, MaxTRESPerUser, MaxTRESPerAccount, GrpJobs,
  // MaxJobsPerUser and MaxJobsPerAccount; an association's MaxJobs (as
  // jobs_per_user). -1: not set.
  std::string name;  // the QOS's name ("" for an association)
  std::string grp, per_user, per_account;
  int64_t grp_jobs = -1, jobs_per_user = -1, jobs_per_account = -1;
  std::string max_wall;  // MaxWall (a Slurm time; "" not set)
};

// A TRES's value in a sacctmgr TRES list ("cpu=4,gres/gpu=8,node=2"); -1 when
// the list does not name it.
int64_t TresValue(const std::string& list, const std::string& name);

// The per-job limit slurmctld never starts the job past, as it applies them under
// AccountingStorageEnforce with limits (see EnforcesLimits): for each of node,
// gres/gpu and gres/gpu:TYPE, and each kind (max per job, max per node, min per
// job), the first QOS of qos (slurmctld's order: QosOrder) that sets it decides;
// the association's only where no QOS set that one. "" when none keeps it out;
// else what and why, and *reason Slurm's pending reason (QOSMaxGRESPerJob ...).
std::string LimitRefuses(const std::vector<TresLimits>& qos, const TresLimits& assoc,
                         const JobTres& job, std::string* reason);

// Whether an AccountingStorageEnforce value makes slurmctld apply association and
// QOS limits: limits, safe or all (2: the numeric form of limits).
bool EnforcesLimits(const std::string& value);

// Which QOS's limits slurmctld takes first: the partition's QOS, unless the job's
// has the flag OverPartQOS (flags: sacctmgr's comma list); the job's alone when
// the partition has none (part_qos "" or "N/A") or it is the same QOS.
std::vector<std::string> QosOrder(const std::string& job_qos, const std::string& job_qos_flags,
                                  const std::string& part_qos);

// Whether sacctmgr's Flags list of a QOS has flag (case-insensitive).
bool QosHasFlag(const std::string& flags, const char* flag);

// Why partition `record` never starts a job of `nodes` nodes (-N), as slurmctld
// checks its MinNodes and MaxNodes (not where the job's QOS has the flag
// PartitionMinNodes, PartitionMaxNodes: qos_flags); "" when it may.
std::string PartitionNodesRefuse(const std::string& record, int nodes,
                                 const std::string& qos_flags);

// A Slurm time (sbatch -t, a partition's MaxTime, a MaxWall) in minutes, as Slurm
// reads one: MIN, MIN:SEC, H:M:S, D-H, D-H:M or D-H:M:S, seconds rounded up to a
// minute; kUnlimitedMinutes for UNLIMITED, INFINITE or -1; -1 when it is no time.
constexpr int64_t kUnlimitedMinutes = INT64_MAX;
int64_t TimeMinutes(const std::string& text);

// Minutes as Slurm prints a time limit: "1-00:00:00", "02:30:00", "UNLIMITED".
std::string MinutesText(int64_t minutes);

// Why partition `record` never starts a job of time limit `minutes` (-t), as
// slurmctld checks its MaxTime (not where the job's QOS has the flag
// PartitionTimeLimit); "" when it may.
std::string PartitionTimeRefuses(const std::string& record, int64_t minutes,
                                 const std::string& qos_flags);

// The MaxWall slurmctld never starts a job of time limit `minutes` past (under
// AccountingStorageEnforce with limits): the first QOS of qos that sets one, else
// the association's. "" when none keeps it out; else why, and *reason Slurm's
// pending reason (QOSMaxWallDurationPerJobLimit, AssocMaxWallDurationPerJobLimit).
// asks: how the job came by its time, for the message.
std::string WallRefuses(const std::vector<TresLimits>& qos, const TresLimits& assoc,
                        int64_t minutes, std::string* reason,
                        const std::string& asks = "the job asks for");

// Whether slurm.conf's EnforcePartLimits (as scontrol show config prints it) makes
// sbatch refuse a job past a partition's limits instead of leaving it pending.
bool EnforcesPartLimits(const std::string& value);

// A running (or suspended) job as squeue shows it: what limits on usage count.
struct RunningJob {
  std::string id, user, account, qos, partition;
  std::string tres;  // allocated TRES (squeue's tres-alloc): "cpu=2,node=1,gres/gpu=2"
  int64_t end = 0;   // its end time (0: none known)
};

// The limit on usage that holds a job now, as slurmctld checks them before it asks
// the select plugin (under AccountingStorageEnforce with limits): why and Slurm's
// pending reason, and when enough of the jobs it counts end by their end times
// (frees 0: never, some have none) and which (after).
struct UsageHold {
  std::string why, reason;
  int64_t frees = 0;
  std::vector<std::string> after;
  bool never = false;  // the job alone asks for more than the limit: no end frees it
  // never, for a TRES limit: slurmctld checks the request against it at submission
  // too, so that sbatch refuses the job under DenyOnLimit (not for job counts).
  bool request_over = false;
};

// For each QOS of qos in order (the first that sets a limit decides it), then the
// association's MaxJobs: its job counts (GrpJobs, MaxJobsPerUser,
// MaxJobsPerAccount) and, for node, gres/gpu and gres/gpu:TYPE, its GrpTRES,
// MaxTRESPerUser and MaxTRESPerAccount, against the running jobs it counts: those
// of that QOS, or, for the partition's QOS (part_qos), in that partition; of the
// user or the account for the per-user and per-account limits. Empty why: none.
UsageHold UsageHolds(const std::vector<TresLimits>& qos, const TresLimits& assoc,
                     const JobTres& job, const std::string& user, const std::string& account,
                     const std::string& partition, const std::string& part_qos,
                     const std::vector<RunningJob>& running);

// The associations a job's GrpJobs are counted in, as sacctmgr lists them: the
// user's in the account, the account's, then each parent account's (the tree from
// `sacctmgr show assoc format=account,user,parentname,grpjobs`).
struct AssocGroup {
  std::string account, user;  // user "" for an account's own association
  int64_t grp_jobs = -1;      // GrpJobs, -1 not set
};
struct AssocTree {
  std::vector<AssocGroup> chain;               // the job's, its own first
  std::map<std::string, std::string> parents;  // account -> parent account
};

// The first association of tree.chain whose GrpJobs the running jobs under it
// (its user's in its account; or of its account and every account below it)
// fill, as slurmctld checks them after the QOS's job counts (AssocGrpJobsLimit;
// not when one of the job's QOS sets GrpJobs, qos_sets_grp_jobs). Empty why when
// none does.
UsageHold GroupJobsHold(const AssocTree& tree, bool qos_sets_grp_jobs,
                        const std::vector<RunningJob>& running);

}  // namespace hivedctl

#endif
