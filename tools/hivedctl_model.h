// SPDX-License-Identifier: GPL-2.0-or-later
// hivedctl's view of hived_status.json (written by select/hived in slurmctld):
// the engine's cluster, VC, topology and job status, plus why jobs wait.
#ifndef HIVEDCTL_MODEL_H
#define HIVEDCTL_MODEL_H

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

struct json_t;

namespace hivedctl {

struct Level {
  int level = 0;
  std::string cell_type;
  int64_t cells = 0, free = 0, bad = 0;
};

struct Chain {
  std::string chain, leaf_type;
  std::vector<Level> levels;  // level 1 (GPU, or its smallest fraction) first
  // Leaf cells per GPU: 1, or in a chain with levels below the GPU its smallest
  // fractions per GPU (from the topology's fraction slots).
  int64_t leaves_per_gpu = 1;
  // A chain of MIG slices (childIsMigSlice in the config): its slices' compute
  // slots out of a GPU's 7 (a100_3g.20gb: 3); 0 for other chains.
  int mig_slots = 0;
  // Leaf cells in one cell of `level` (chains are uniform trees).
  int64_t LeavesPerCell(int level) const;
  // GPUs in one cell of `level`: below 1 for a fractional cell.
  double GpusPerCell(int level) const;
  const Level* At(int level) const;
};

struct VcCell {
  std::string chain, cell_type;
  int level = 0;
  int64_t total = 0, bound = 0, doomed = 0;
};

struct Pinned {
  std::string id, cell_type;
  int64_t used_leaves = 0;
};

struct Vc {
  std::string name;
  std::vector<VcCell> cells;
  std::vector<Pinned> pinned;
  int64_t used_leaves = 0, opp_leaves = 0;  // leaf cells: fractions in fractional chains
  // The same in GPUs (a fraction counts its part of a GPU).
  double used_gpus = 0, opp_gpus = 0;
  std::vector<std::string> jobs;
};

struct Group {
  std::string cell_type;
  int index = 0;
};

// One smallest fraction of a GPU (a leaf cell below the GPU level).
struct Slot {
  std::string vc, job, cls;  // as for a whole GPU
};

struct Gpu {
  int gpu = 0;
  std::vector<Group> groups;  // node's child cell first, GPU's parent last
  std::string vc, job, cls;   // bound VC, job on it, "guaranteed"/"opportunistic"
  bool bad = false;
  // A GPU of a chain with levels below the GPU: its fractions by slot. When all
  // say the same (one job holds the whole GPU, or none), vc/job/cls say it too;
  // else the GPU is split and those are empty.
  std::vector<Slot> slots;
  bool Split() const;
  int64_t SlotsUsed() const;
};

struct Above {
  std::string cell_type, address;
};

// One node cell (a node appears once per chain it has GPUs in).
struct Node {
  std::string name, chain;
  bool bad = false;
  std::vector<Above> above;  // top-level cell first
  std::vector<Gpu> gpus;
};

struct Pod {
  std::string node;
  std::vector<int> leaves;
  std::vector<int> fractions;  // slots of its one GPU when it holds part of it
  // "0-3", or "0[4-5]" for fraction slots 4-5 of GPU 0.
  std::string GpuText() const;
};

struct Job {
  std::string job, vc, cls;
  int priority = 0;
  bool lazy_preempted = false;     // demoted: runs on as opportunistic
  bool demoted_by_config = false;  // by the config (a reload), not by another job
  bool borrowed = false;           // started outside its VC's cells (borrowIdleCells)
  std::string asked_vc;            // its VC when the config no longer has it
  std::vector<Pod> placement;
  int64_t Gpus() const;
  int64_t Fractions() const;  // fraction slots held (0: whole GPUs)
};

// How long select/hived made a job wait, by cause ("waited" in the status file:
// vcQuota, cells, pinnedCell, vcTooSmall, behindVcHead, victimsLeaving, other,
// notAsked), in seconds.
struct WaitHistory {
  bool present = false;  // written (plugins before it write none)
  int64_t since = 0;     // the first wait (epoch seconds)
  int64_t secs = 0;      // from then to the file's writing, or to the start
  std::vector<std::pair<std::string, int64_t>> by_cause;
  std::string current;  // a waiting job's cause now ("waitingFor"; "" if not written)
};

struct Waiting {
  std::string job, vc, reason, cls;  // cls may be empty (not written)
  WaitHistory history;
};

// A job that started after select/hived made it wait (the last 256 such).
struct Started {
  std::string job;
  int64_t time = 0;
  WaitHistory history;
};

struct Status {
  int version = 0;
  int64_t written = 0;
  std::string hived_conf;
  std::string slurm_version;       // the Slurm select/hived runs under ("" if not written)
  bool borrow_idle_cells = false;  // "borrowIdleCells": borrowing is on in slurmctld
  // hived.conf's "opportunisticQos" ("slurm" in the status; none when not written)
  std::vector<std::string> opportunistic_qos;
  std::vector<Chain> chains;
  int64_t total_leaves = 0, used_leaves = 0, opp_leaves = 0;
  std::vector<std::string> bad_nodes;
  std::vector<Vc> vcs;
  std::vector<Node> nodes;
  std::vector<Job> jobs;
  std::vector<Waiting> pending;
  std::vector<Waiting> refused;  // refused outright (at submit), the latest last
  std::vector<Started> started;  // oldest first
  // The last load of hived.conf or of sacctmgr limits (time 0: not written).
  int64_t reload_time = 0;
  bool reload_refused = false;
  std::string reload_reason;
  int64_t job_test_calls = 0;
  double job_test_mean_us = 0, job_test_p50_us = 0, job_test_p99_us = 0, job_test_max_us = 0;
  // WILL_RUN answers by a trial on the engine or from its memo; jobs the trials ended.
  int64_t will_run_trials = 0, will_run_memo_answers = 0, will_run_trial_ended_jobs = 0;
  int64_t will_run_by_guarantee = 0;  // of the trials: the VC's guarantee gave the start
  int64_t preemptions = 0, lazy_preemptions = 0;
  int64_t borrowed_starts = 0;  // "borrowedStarts" (absent before it existed: 0)
  int64_t promotions = 0;       // "promotions" (likewise)

  // The parsed document, for --json output of its parts.
  std::shared_ptr<json_t> root;

  const Chain* FindChain(const std::string& name) const;
  const Vc* FindVc(const std::string& name) const;  // case-insensitive, like Slurm accounts
  const Job* FindJob(const std::string& id) const;
  const Waiting* FindWaiting(const std::string& id) const;
  const Waiting* FindRefused(const std::string& id) const;
  const Started* FindStarted(const std::string& id) const;
  // The plugin writes the file on changes only: waiting jobs' histories as of
  // `now`, the time since it was written added to their current cause.
  void AgeWaits(int64_t now);
  int64_t waits_as_of = 0;  // the last AgeWaits (0: none; the file's time)
  // The cell type of the node level of a chain ("" if unknown).
  std::string NodeCellType(const std::string& chain) const;
  // Waiting guaranteed jobs of a VC (all waiting jobs when the class is not written).
  int64_t WaitingGuaranteed(const std::string& vc) const;
};

// Parse hived_status.json text. Errors name the field.
bool Parse(const std::string& text, Status* out, std::string* err);

// "0-3,6" from GPU indices (sorted copy).
std::string Ranges(std::vector<int> v);

}  // namespace hivedctl

#endif
