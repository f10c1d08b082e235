// SPDX-License-Identifier: GPL-2.0-or-later
// The `quota` policy: what a Slurm site does today. Per-VC GPU caps (like GrpTRES),
// one queue in submit order, first-fit GPU placement over nodes (like cons_tres), no
// cells. A job over its VC's cap is skipped, as Slurm skips jobs held by association
// limits. With backfill (Slurm's default sched/backfill), the first job blocked by
// resources gets a reservation at the earliest time running jobs free enough nodes,
// and later jobs may start only if they end before it or stay off its nodes (EASY
// backfill with exact run times). Without backfill, that job blocks the queue.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "node_pool.h"
#include "sim.h"

namespace hivedsim {

struct QuotaOptions {
  bool backfill = true;
  int backfill_scan = 100;  // pending jobs of one VC and shape looked at for a short one
};

class QuotaScheduler : public Scheduler {
 public:
  // caps[v] = GPUs VC v may hold at once.
  QuotaScheduler(const Trace& t, int nodes, std::vector<int64_t> caps, QuotaOptions opt);
  void Submit(int job) override;
  void Finish(int job) override;
  void Schedule(Runner& r) override;
  size_t Pending() const override;

 private:
  struct Group {
    int vc;
    std::vector<int> pods;
    std::set<int> jobs;  // pending, in queue order
  };
  struct Reservation {
    int job = -1;
    double shadow = 0;
    std::vector<int> nodes;
  };
  void StartJob(int job, const Placement& p, Runner& r);
  void Reserve(int job, double now);
  bool ShortEnough(int job, double now) const;
  bool CapAllows(int job, double now) const;

  const Trace& t_;
  QuotaOptions opt_;
  NodePool pool_;
  std::vector<int64_t> cap_, used_;
  std::vector<Group> groups_;
  std::map<std::pair<int, std::vector<int>>, int> group_of_shape_;
  std::vector<int> group_of_job_;
  std::vector<Placement> placed_;
  std::vector<double> end_of_;
  std::vector<std::pair<int, std::string>> rejects_;
  std::set<std::pair<double, int>> running_by_end_;
  Reservation res_;
};

}  // namespace hivedsim
