// SPDX-License-Identifier: GPL-2.0-or-later
// The preemption planner: which running jobs a guaranteed placement displaces and how
// (preempted outright, or lazily demoted to opportunistic and left running), and how a
// trial placement is undone (snapshot the records of the jobs it changes, revert them).
// Which cells a preemptor may take is PlaceVirtual's question (lower-priority jobs'
// virtual leaves count as free there); this class acts on the answer.
#pragma once

#include <cstdint>
#include <vector>

#include "core/model.h"

namespace hived {

class Engine;
struct Decision;
struct Request;

// The records of the jobs a trial placement changed, each as it was before its first
// change. Reverting needs only these and the new job's slot.
class JobSnapshot {
 public:
  void Record(const Job& j) { records_.push_back(j); }
  void Clear() { records_.clear(); }
  const std::vector<Job>& records() const { return records_; }

 private:
  std::vector<Job> records_;
};

// A short-lived view of one engine for one decision: never stored (the engine is
// copied, and a pointer into it would then point into the original).
class Preemption {
 public:
  explicit Preemption(Engine* e) : e_(e) {}

  // How many placement passes are worth trying for a guaranteed request needing `need`
  // leaf cells: 0 when neither the VC's free cells nor its lower-priority jobs hold
  // enough (it waits for its own VC whatever the cluster looks like; schedulers ask
  // this for every queued job of a flooding VC), 1 for none that preempts, else 2.
  int Passes(const Request& req, VcId vc, VCellId pinned_root, int64_t need) const;

  // Running jobs holding any of the leaves, in order of first appearance.
  std::vector<int> VirtualVictims(const std::vector<VCellId>& vleaves) const;
  std::vector<int> PhysicalVictims(const std::vector<PCellId>& pleaves) const;

  // The VC's jobs holding `vleaves` give them up: a lazy job is demoted (keeps its
  // physical GPUs as opportunistic work), any other is preempted. Each is recorded in
  // *undo first and named in d->preempted or d->lazy_preempted.
  void DisplaceVirtual(VcId vc, const std::vector<VCellId>& vleaves, Decision* d,
                       JobSnapshot* undo);
  // The jobs still on the physical leaves the placement bound to (opportunistic, or
  // just demoted above) are preempted; a demoted one moves to d->preempted.
  void DisplacePhysical(const std::vector<PCellId>& pleaves, Decision* d, JobSnapshot* undo);
  // Lazy preemption of the guaranteed job in `slot` of VC `vc`.
  void Demote(int slot, VcId vc);

  // Undoes a trial: releases the new job (slot -1: none) and the changed jobs' current
  // forms, then reinstates their records, guaranteed ones first since they need their
  // exact bindings back.
  void Revert(int slot, const JobSnapshot& undo);

 private:
  Engine* e_;
};

}  // namespace hived
