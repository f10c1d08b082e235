// SPDX-License-Identifier: GPL-2.0-or-later
// hived.conf: HiveD's own cluster/VC configuration (as JSON) plus a "slurm" section, read
// into a ClusterSpec for the engine and the settings only the Slurm plugin uses. The
// reference for every key is doc/hived.conf.md and hived.conf(5).
#pragma once

#include <string>
#include <vector>

#include "../core/error.h"
#include "../core/spec.h"

namespace hived {

// What happens to jobs of an account that has no cells (neither in hived.conf nor from
// sacctmgr GrpTRES).
enum class UnquotaedAccounts { kOpportunistic, kReject };

struct SlurmSettings {
  // "opportunisticQos": jobs in these QOS run opportunistically (HiveD priority -1).
  // Stored lower-case: Slurm compares QOS names case-insensitively.
  std::vector<std::string> opportunistic_qos;
  // "accountsWithoutCells": "opportunistic" (run on idle cells) or "reject" (refused at submit).
  UnquotaedAccounts accounts_without_cells = UnquotaedAccounts::kOpportunistic;
  // "jobsLargerThanVc": "wait" (default: the job waits, its VC's quota may grow) or
  // "reject" (refused at submit) for a guaranteed job its VC's cells can never hold.
  bool reject_larger_than_vc = false;
  // "splitCountOnlyJobs": a guaranteed job that gave a GPU count only (--gpus=K, no -N)
  // may run as smaller pods on several nodes when its compact shape cannot be bound now.
  bool split_count_only_jobs = true;
  // "borrowIdleCells": a guaranteed job whose VC has the free GPUs but not in cells of
  // its shape may start on idle GPUs outside them, as opportunistic (Request::borrow_idle).
  bool borrow_idle_cells = false;
  // "quotaFromSacctmgr": an account hived.conf gives no cells gets cells from its
  // GrpTRES gres/gpu=N.
  bool quota_from_sacctmgr = true;
  // "checkInvariants": run the engine's invariant checker after every decision (debug; slow).
  bool check_invariants = false;
  // "verboseCellTrace": log every binding, split, merge and preemption decision.
  bool verbose_cell_trace = false;
  // "stateFile": the engine's state file; relative paths are under StateSaveLocation.
  std::string state_file = "hived_state.json";
  // "priorityScale": guaranteed priority = min(QOS priority / priorityScale, 1000), so a
  // site whose QOS priorities run to 100000 maps them onto HiveD's 0..1000.
  int priority_scale = 1;
  // "allowRemovingVcs": VCs a reload may remove although guaranteed jobs run in them
  // (they are demoted). Without it such a reload is refused and the old config stays.
  std::vector<std::string> allow_removing_vcs;
};

struct Config {
  ClusterSpec cluster;
  SlurmSettings slurm;
  // Not errors, but worth a log line: unknown top-level keys that are not HiveD's own
  // and not a slip of a section name (those are refused).
  std::vector<std::string> warnings;
};

// Parses hived.conf JSON text. On error (kConfig; kNoMem, kInternal) the message is one
// sentence that names the key path and the reason (and, for JSON syntax errors, the line and
// column). On error *out is left unchanged, so a failed reload keeps the old config intact. Text
// that is empty or only whitespace is an empty config (everything derived or from sacctmgr). Never
// throws.
Status parse_hived_conf(const std::string& json_text, Config* out);

// Reads and parses a file; every error (kConfig for an unreadable file) begins with the path.
Status load_hived_conf_file(const std::string& path, Config* out);

}  // namespace hived
