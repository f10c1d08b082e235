// SPDX-License-Identifier: GPL-2.0-or-later
// Promotion: a demoted job (a borrower, or a lazy-preempted one) becomes guaranteed
// again, where it runs, once its own VC's free cells can hold it there and no waiting
// job of its VC has a higher priority.
//
// A demoted job runs as opportunistic: the first guaranteed job whose binding lands on
// its GPUs preempts it, and its work is lost. A borrower started outside its VC's cells
// only because those cells were fragmented by the VC's own small jobs; when they leave,
// the VC has a free cell of the borrower's shape, and lazy binding gives a free virtual
// cell any physical cell the buddy allocator can hand out safely. Binding it to the
// cells the job already holds then takes nothing from anyone (BindExact checks that
// every other VC's cells stay obtainable), and the job keeps its GPUs for good.
#include <algorithm>
#include <utility>

#include "core/binding.h"
#include "core/engine.h"

namespace hived {

const std::vector<std::string>& Engine::PromoteDemoted() {
  promoted_.clear();
  bool any = false;
  for (const Vc& v : vcs_) any |= v.demoted_leaves > 0;
  if (!any) return promoted_;
  auto chain_free = [this](const VcChain& vch) {
    int64_t free_c = 0;
    for (VCellId r : vch.roots) free_c += vcells_[r].vfree;
    return free_c;
  };
  // A VC's waiting job of higher priority would take the free cell itself (and then
  // preempt the promoted job within the VC): it goes first.
  IdVector<VcId, int> waiting_top(vcs_.size(), -1);
  for (const auto& [job, mark] : waiting_)
    waiting_top[mark.vc] = std::max(waiting_top[mark.vc], mark.priority);
  // Oldest first, as they would have started had the cells been free.
  std::vector<std::pair<uint64_t, int>> tries;
  const JobTable& table = jobs_;
  for (size_t s = 0; s < table.size(); s++) {
    const Job& j = table[static_cast<int>(s)];
    if (!j.live || !j.demoted || j.demoted_by_config || !j.vc.valid() ||
        !j.original_priority.guaranteed() || waiting_top[j.vc] > j.original_priority.v)
      continue;
    const VcChain* vch = VcChainOf(j.vc, j.chain);
    if (vch && chain_free(*vch) >= j.leaf_count) tries.emplace_back(j.seq, static_cast<int>(s));
  }
  std::sort(tries.begin(), tries.end());
  for (const auto& t : tries) {
    const Job& j = table[t.second];
    if (chain_free(*VcChainOf(j.vc, j.chain)) < j.leaf_count) continue;  // an earlier one took it
    if (Promote(t.second)) promoted_.push_back(j.name);
  }
  if (!promoted_.empty()) DropStaleMemo();
  return promoted_;
}

// The job's leaves are cleared and bound as AddRunning binds a recovered job's; if the
// VC's cells cannot hold them, everything is put back as it was.
bool Engine::Promote(int slot) {
  std::vector<std::vector<PCellId>> pods;
  for (PodRef p : std::as_const(jobs_)[slot].Pods())
    pods.emplace_back(p.leaves.begin(), p.leaves.end());
  RunningJob rj;
  rj.req.pinned_id = jobs_.Str(std::as_const(jobs_)[slot].pinned_id);
  Job& j = jobs_[slot];
  const VcId vc = j.vc;
  const ChainId chain = j.chain;
  CountVcUse(j, -1);
  for (PCellId l : j.Leaves()) ClearLeafJob(l, true);
  j.priority = j.original_priority;  // BindRunning counts the leaves at this priority
  const bool ok = BindRunning(rj, vc, chain, pods, slot);
  Job& k = jobs_[slot];
  if (ok) {
    k.demoted = k.borrowed = false;
  } else {
    k.priority = kOpportunistic;
  }
  for (PCellId l : k.Leaves()) SetLeafJob(l, slot, !ok);
  CountVcUse(k, 1);
  FlushIndexes();
  return ok;
}

}  // namespace hived
