// SPDX-License-Identifier: GPL-2.0-or-later
// The `hived` policy, driven through the real engine (include/hived.h only). Each VC
// has its own queue in submit order, and its jobs are submitted as guaranteed
// (priority 0) in its VC's cells, so no VC waits behind another VC's job.
//
// When a VC's first waiting job does not fit, it gets a reservation inside its VC
// (EASY backfill, as Slurm's backfill does across the cluster): the VC's running jobs
// are played forward to the time enough of its cells are free, and the nodes those
// cells sit on are reserved. Later jobs of the VC may start in its cells if they end
// by then, or if the engine, asked in a dry run with the reserved nodes excluded,
// places them without taking more cells than the reservation can spare. The
// reservation follows the VC's cells, not physical nodes, so a VC decides the same
// whether it shares the cluster or owns a private one.
//
// With opportunistic use on, a job that cannot start guaranteed runs
// opportunistically on idle cells if any can hold it; the engine preempts it when an
// owner needs those cells, and it is requeued (its work so far is lost). Also used
// for `private`: one VC that owns a whole private cluster, opportunistic use off.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "cluster.h"
#include "hived.h"
#include "node_pool.h"
#include "sim.h"
#include "vc_queue.h"

namespace hivedsim {

class HivedScheduler : public Scheduler {
 public:
  // conf: hived.conf JSON for `shape` with cells[v] for VC v (none: its jobs are
  // rejected); nodes are named NodeName(i, shape.nodes).
  static std::unique_ptr<HivedScheduler> Create(const Trace& t, const std::string& conf,
                                                const ClusterShape& shape,
                                                const std::vector<VcCells>& cells,
                                                bool opportunistic, std::string* err);
  ~HivedScheduler() override;
  void Submit(int job) override;
  void Finish(int job) override;
  void Schedule(Runner& r) override;
  size_t Pending() const override;
  std::string Error() const override { return error_; }
  size_t EngineCalls() const { return engine_calls_; }
  // The engine's invariant checker (tests); "" when every invariant holds.
  std::string CheckInvariants() const;

 private:
  struct Reservation {
    int job = -1;
    double shadow = 0;
    bool spatial = false;  // node-based (else counted in GPUs, the fallback)
    int64_t surplus = 0;   // spatial: unbound node cells to spare; else GPUs to spare
    // Node sets below hold nodes bound to the VC since the reservation was made; a
    // node leaves them when its cell unbinds (a cell bound again later may sit on
    // another node, so it counts as new).
    std::set<int> reserved;        // bound nodes whose cells the reserved job will use
    std::set<int> kept;            // bound nodes it will not use
    std::set<int> charged;         // new cells already counted against the surplus
    std::vector<uint8_t> allowed;  // engine-indexed: every node but the reserved ones
  };
  enum class Mode { kAny, kOpportunisticOnly, kAvoidReserved };

  explicit HivedScheduler(const Trace& t) : t_(t), pool_(0) {}
  hived_outcome Decide(int job, int priority, const uint8_t* allowed, bool dry_run, Placement* p,
                       std::vector<int>* victims, std::string* why);
  void Started(int job, const Placement& p, bool opportunistic);
  void Released(int job);
  // True if the job started (or was rejected); victims are requeued and listed.
  bool TryStart(int job, Mode mode, Runner& r, std::vector<std::pair<int, int>>* requeued);
  bool GuaranteedAvoiding(int job, Reservation& res, Placement* p, std::vector<int>* victims,
                          std::string* why);
  Reservation& Reserve(int vc, int head, double now);
  bool ReserveByNodes(int vc, int head, double now, Reservation* res);
  void ReserveByCount(int vc, int head, double now, Reservation* res);
  void Unbound(int vc, int node);  // the VC's cell on `node` is free again
  void Backfill(int vc, int head, double now, Runner& r,
                std::vector<std::pair<int, int>>* requeued);
  void Enqueue(int job);
  void Dequeue(int job);

  const Trace& t_;
  hived_engine* e_ = nullptr;
  bool opportunistic_ = true;
  NodePool pool_;                    // mirror of free GPUs, for cheap "cannot fit" answers
  std::vector<int> node_of_engine_;  // engine node index -> ours
  std::vector<int> engine_of_node_;
  std::vector<std::string> names_;     // job names as the engine knows them
  std::vector<int64_t> quota_, used_;  // per VC: GPUs in its cells, held by its guaranteed jobs
  std::vector<int> node_cells_;        // per VC: node-level (or bigger) cells, in nodes
  std::vector<std::unordered_map<int, int>>
      footprint_;                 // per VC: node -> GPUs of its guaranteed jobs
  std::vector<VcQueue> pending_;  // per VC
  std::vector<Placement> placed_;
  std::vector<uint8_t> running_opp_;
  std::vector<double> end_of_;
  std::vector<std::set<std::pair<double, int>>>
      running_g_;  // per VC: (end, job) of guaranteed jobs
  std::vector<std::pair<int, std::string>> rejects_;
  // A failed attempt is not repeated until something it depends on changed: the
  // guaranteed one on the VC's releases or reservation, the opportunistic one on any
  // release anywhere.
  std::vector<uint64_t> vc_version_;
  uint64_t phys_version_ = 1;
  std::vector<uint64_t> tried_g_, tried_o_;  // per job
  std::vector<int> shape_of_;                // per job: index of its pod shape
  int shapes_ = 0;
  // What the VC's last backfill scan saw: nothing new can start unless its cells,
  // its reservation, the idle cells (opportunistic use) or its queue's tail changed.
  std::vector<uint64_t> scan_version_, scan_phys_;
  std::vector<int> scan_upto_;
  std::vector<uint8_t> failed_any_, failed_avoid_, opp_dead_;  // per shape, one backfill pass
  std::vector<Reservation> res_;
  size_t engine_calls_ = 0;
  long check_every_ = 0, passes_ = 0;
  std::string error_;
};

}  // namespace hivedsim
