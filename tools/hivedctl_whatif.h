// SPDX-License-Identifier: GPL-2.0-or-later
// hivedctl whatif: a hypothetical job asked of a private engine rebuilt from what
// select/hived publishes (the config, the running jobs, the bad nodes), so the
// live engine in slurmctld is never touched.
#ifndef HIVEDCTL_WHATIF_H
#define HIVEDCTL_WHATIF_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hived.h"
#include "hivedctl_access.h"
#include "hivedctl_model.h"

namespace hivedctl {

// The job as sbatch would be asked for it (the shape options hived_job.c reads).
struct WhatifAsk {
  std::string account, qos;
  std::string qos_from;        // "" (-q) or "association": its default, without -q
  int priority = -2;           // engine priority 0..1000; -2: from the QOS (else 0)
  int nodes = 1;               // -N
  bool nodes_given = false;    // -N was given: a --gpus job is never split
  int gpus_per_node = 0;       // --gpus-per-node / --gres=gpu:K
  int gpus = 0;                // --gpus (per job)
  std::string gpu_type;        // --gres=gpu:TYPE:K / --gpus=TYPE:N
  std::string within, pinned;  // --hived-within, --hived-pinned
  bool lazy = false;           // --hived-lazy-preempt
  bool opportunistic = false;  // --hived-opportunistic
  bool switches_one = false;   // --switches=1
  bool exclusive = false;      // --exclusive: whole nodes, every GPU of them
  bool borrow = false;         // slurmctld lets guaranteed jobs borrow idle GPUs
  int64_t time_limit = -1;     // -t in minutes (kUnlimitedMinutes: 0 or UNLIMITED); -1 none
  int64_t default_time = -1;   // the partition's DefaultTime (minutes), -1 none: without
                               // -t, slurmctld gives it to the job before any QOS limit
  // -p (or sbatch's default): a partition, or a list of them from the options;
  // Whatif takes one, whose partition_nodes hivedctl fills from scontrol.
  // partition_all: its Nodes=ALL.
  std::string partition;
  std::string partition_from;  // "" (-p), "SBATCH_PARTITION" or "default"
  std::vector<std::string> partition_nodes;
  bool partition_all = false;
  // Why Slurm never starts the job in the partition (its AllowAccounts, AllowQos
  // and their Deny twins; hivedctl_access.h); "" when it lets it in.
  std::string partition_refuses;
  std::string partition_qos;  // its QoS= (its limits apply too), "N/A" for none
  // The partition, QOS or association limit slurmctld never starts the job past
  // (hivedctl_access.h PartitionNodesRefuse, LimitRefuses), Slurm's pending
  // reason for it, and, when sbatch refuses the job instead, why and with which
  // words ("its QOS has DenyOnLimit (Job violates accounting/QOS policy)").
  std::string limit_refuses, limit_reason, limit_refused_by;
  // A limit on usage (hivedctl_access.h UsageHolds): it frees when the jobs it
  // counts end; when (0: not by known end times) and after which of them.
  bool limit_on_usage = false;
  int64_t limit_frees = 0;
  std::vector<std::string> limit_after;
  std::vector<std::string> nodelist, exclude;  // -w, -x (expanded host lists)
};

// One whatif option at argv[*i] (advancing *i past its value). 1: taken, 0: not a
// whatif option, -1: bad value (err says which option and why).
int TakeWhatifOption(int argc, char** argv, int* i, WhatifAsk* ask, std::string* err);

// The config to rebuild the engine from: the status file's own "config" when it
// has one, else the state file's (snapshot) text. "" and err when neither.
std::string WhatifConfig(const Status& st, const std::string& state_text, std::string* err);

// A private engine: config, bad nodes and running jobs as the status lists them.
// Guaranteed jobs first, so their cells are bound before opportunistic ones.
bool WhatifEngine(const Status& st, const std::string& config_text, hived_engine** out,
                  std::string* err);

// Whatif over the partitions a job names (one ask each, its nodes filled in), as
// Slurm tries them: asks come in its order (PriorityTier); the first that
// starts the job now, else the one with the earliest estimated start, else the
// first that waits without an estimate, else the first refusal. With more than
// one, the answer lists them in "partitionsAsked". An error in every partition
// is the first's.
int WhatifPartitions(hived_engine* e, const std::string& config_text,
                     const std::vector<WhatifAsk>& asks,
                     const std::vector<std::pair<std::string, int64_t>>& ends, int64_t now,
                     std::string* json, std::string* err);

// squeue -h -t R,S -o '%A|%e' output: job id and end time ("2026-11-24T01:30:00"
// local, or Unix seconds; N/A, Unknown, NONE: no end known).
std::vector<std::pair<std::string, int64_t>> ParseEnds(const std::string& text);

// The answer as hived_whatif JSON. Exit codes as hivedctl's: 1 for a request the
// engine refuses (err says why), 2 for a broken engine.
int Whatif(hived_engine* e, const std::string& config_text, const WhatifAsk& ask,
           const std::vector<std::pair<std::string, int64_t>>& ends, int64_t now, std::string* json,
           std::string* err);

// "The limit frees: <when>, when job 9 ends; cells permitting" and a newline: when
// a limit on usage lets the job start (hivedctl_access.h UsageHolds).
std::string LimitFreesText(const UsageHold& hold, int64_t now);

// The human answer, from Whatif's JSON.
std::string WhatifText(const std::string& json, int64_t now);

}  // namespace hivedctl

#endif
