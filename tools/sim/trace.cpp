// SPDX-License-Identifier: GPL-2.0-or-later
#include "trace.h"

#include <algorithm>
#include <numeric>

namespace hivedsim {

int Trace::VcIndex(const std::string& vc) {
  int i = FindVc(vc);
  if (i >= 0) return i;
  vcs.push_back(vc);
  return static_cast<int>(vcs.size()) - 1;
}

int Trace::FindVc(const std::string& vc) const {
  for (size_t i = 0; i < vcs.size(); i++)
    if (vcs[i] == vc) return static_cast<int>(i);
  return -1;
}

void Trace::SortJobs() {
  std::vector<size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (jobs[a].submit != jobs[b].submit) return jobs[a].submit < jobs[b].submit;
    return jobs[a].vc < jobs[b].vc;
  });
  std::vector<TraceJob> sorted;
  sorted.reserve(jobs.size());
  for (size_t i : order) sorted.push_back(std::move(jobs[i]));
  jobs.swap(sorted);
}

std::vector<int> PodsFor(int gpus, int nodes) {
  std::vector<int> pods;
  if (nodes > 1 && gpus % nodes == 0 && gpus / nodes <= kGpusPerNode) {
    pods.assign(nodes, gpus / nodes);
    return pods;
  }
  if (gpus <= kGpusPerNode) return {gpus};
  pods.assign(gpus / kGpusPerNode, kGpusPerNode);
  if (gpus % kGpusPerNode) pods.push_back(gpus % kGpusPerNode);
  return pods;
}

}  // namespace hivedsim
