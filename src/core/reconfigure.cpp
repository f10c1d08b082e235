// SPDX-License-Identifier: GPL-2.0-or-later
// Reconfiguration: carrying running jobs from the engine of the old config into the one
// built from the new config, and what a new config would take away from them.
#include <algorithm>
#include <set>

#include "core/engine.h"

namespace hived {

namespace {

// Order of re-adding: jobs guaranteed now first (highest priority first) so they keep
// their VC cells, then the ones an earlier config demoted (they get what is left), then
// the rest. Ties keep submission order.
int Tier(const RunningJob& rj) {
  if (!rj.demoted && rj.req.priority >= 0) return 0;
  return rj.demoted && rj.demoted_by_config ? 1 : 2;
}

}  // namespace

VcJobs Engine::RemovedVcsWithJobs(const Engine& next) const {
  VcJobs out;
  for (VcId v : vcs_.ids()) {
    if (next.vc_index_.count(vcs_[v].name)) continue;
    std::vector<std::string> names;
    for (const RunningJob& rj : RunningJobs())
      if (rj.req.vc == vcs_[v].name && !rj.demoted && rj.req.priority >= 0)
        names.push_back(rj.req.job);
    if (!names.empty()) out.emplace_back(vcs_[v].name, std::move(names));
  }
  return out;
}

Status Engine::TransferJobsTo(Engine* next, TransferReport* report) const {
  for (size_t n = 0; n < node_names_.size(); n++)
    if (node_bad_[n] && next->NodeIndex(node_names_[n]) >= 0)
      next->SetNodeHealth(node_names_[n], false);
  std::vector<RunningJob> jobs = RunningJobs();
  std::stable_sort(jobs.begin(), jobs.end(), [](const RunningJob& a, const RunningJob& b) {
    int ta = Tier(a), tb = Tier(b);
    if (ta != tb) return ta < tb;
    return ta < 2 && a.req.priority > b.req.priority;
  });
  for (auto& rj : jobs) {
    std::vector<std::string> gone;
    for (auto& p : rj.pods) {
      int32_t idx = next->NodeIndex(node_names_[p.node]);
      if (idx < 0) gone.push_back(node_names_[p.node]);
      p.node_name = node_names_[p.node];
      p.node = idx;  // -1: AddRunning leaves the pod out
    }
    rj.vleaves.clear();  // virtual cells are the new config's
    const bool was_demoted = rj.demoted;
    // A job the config demoted is tried as guaranteed again: the new cells may hold it.
    if (rj.demoted_by_config) rj.demoted = false;
    bool dem = false;
    std::vector<std::string> dropped;
    Status st = next->AddRunning(rj, &dem, &dropped);
    if (!st.ok()) {
      std::string nodes;
      for (const auto& g : gone) nodes += (nodes.empty() ? "" : ", ") + g;
      report->dropped.push_back(
          rj.req.job + ": " +
          (gone.empty() ? st.msg
                        : "every GPU was on nodes the config no longer has (" + nodes + ")") +
          "; no longer tracked");
      continue;
    }
    report->dropped.insert(report->dropped.end(), dropped.begin(), dropped.end());
    if (dem && !was_demoted) report->demoted.push_back(rj.req.job);
    if (!dem && was_demoted) report->promoted.push_back(rj.req.job);
  }
  for (const auto& w : WaitingJobs()) next->NoteWaiting(w.job, w.vc, w.priority);
  return Status::Ok();
}

}  // namespace hived
