// SPDX-License-Identifier: GPL-2.0-or-later
#include "quota.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace hivedsim {

int FloorGpus(const Trace& t, int vc) {
  int biggest = 0;
  for (const auto& j : t.jobs)
    if (j.vc == vc) biggest = std::max(biggest, j.gpus);
  int nodes = std::max(1, (biggest + kGpusPerNode - 1) / kGpusPerNode);
  return nodes * kGpusPerNode;
}

bool ParseQuotaSpec(const std::string& spec, const Trace& t, std::vector<int>* gpus,
                    std::string* err) {
  gpus->assign(t.vcs.size(), -1);
  size_t pos = 0;
  while (pos < spec.size()) {
    size_t end = spec.find(',', pos);
    if (end == std::string::npos) end = spec.size();
    std::string item = spec.substr(pos, end - pos);
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      *err = "--quota: '" + item + "' must be VC=GPUS";
      return false;
    }
    std::string vc = item.substr(0, eq), n = item.substr(eq + 1);
    char* e = nullptr;
    long v = strtol(n.c_str(), &e, 10);
    if (n.empty() || *e || v < 0 || v > 10000000) {
      *err = "--quota: " + vc + ": GPUs must be a whole number >= 0, got '" + n + "'";
      return false;
    }
    int i = t.FindVc(vc);
    if (i < 0) {
      *err = "--quota: the trace has no VC '" + vc + "'";
      return false;
    }
    (*gpus)[i] = static_cast<int>(v);
    pos = end + 1;
  }
  std::vector<bool> has_jobs(t.vcs.size(), false);
  for (const auto& j : t.jobs) has_jobs[j.vc] = true;
  for (size_t v = 0; v < t.vcs.size(); v++) {
    if ((*gpus)[v] >= 0) continue;
    if (has_jobs[v]) {
      *err = "--quota: VC '" + t.vcs[v] + "' has jobs but no quota";
      return false;
    }
    (*gpus)[v] = 0;
  }
  return true;
}

std::vector<int> TraceQuotas(const Trace& t, std::vector<std::string>* notes) {
  std::vector<int> q(t.vcs.size(), 0);
  for (size_t v = 0; v < t.vcs.size(); v++) {
    auto it = t.quota_gpus.find(t.vcs[v]);
    if (it != t.quota_gpus.end()) {
      q[v] = it->second;
    } else {
      q[v] = FloorGpus(t, static_cast<int>(v));
      if (notes)
        notes->push_back("VC " + t.vcs[v] + " has no quota in the trace: it gets " +
                         std::to_string(q[v]) + " GPUs (its largest job, in whole nodes)");
    }
  }
  return q;
}

bool ProportionalQuotas(const Trace& t, int nodes, std::vector<int>* gpus, std::string* err) {
  const size_t n = t.vcs.size();
  std::vector<double> demand(n, 0);
  std::vector<int> floor_nodes(n, 0);
  std::vector<bool> has_jobs(n, false);
  for (const auto& j : t.jobs) {
    demand[j.vc] += j.duration * j.gpus;
    has_jobs[j.vc] = true;
  }
  int floors = 0;
  for (size_t v = 0; v < n; v++) {
    if (has_jobs[v]) floor_nodes[v] = FloorGpus(t, static_cast<int>(v)) / kGpusPerNode;
    floors += floor_nodes[v];
  }
  if (floors > nodes) {
    *err = "the cluster's " + std::to_string(nodes) +
           " nodes cannot hold every VC's largest job (" + std::to_string(floors) +
           " nodes needed); give more --nodes or --quota";
    return false;
  }
  // Water-filling: VCs whose proportional share is below their floor get the floor,
  // the rest share what is left by demand; largest remainders round to whole nodes.
  std::vector<bool> fixed(n, false);
  std::vector<double> share(n, 0);
  for (;;) {
    double free_nodes = nodes, free_demand = 0;
    for (size_t v = 0; v < n; v++) {
      if (fixed[v] || !has_jobs[v])
        free_nodes -= floor_nodes[v];
      else
        free_demand += demand[v];
    }
    bool changed = false;
    for (size_t v = 0; v < n; v++) {
      if (fixed[v] || !has_jobs[v]) {
        share[v] = floor_nodes[v];
        continue;
      }
      share[v] = free_demand > 0 ? free_nodes * demand[v] / free_demand : 0;
      if (share[v] < floor_nodes[v]) {
        fixed[v] = true;
        changed = true;
      }
    }
    if (!changed) break;
  }
  std::vector<int> whole(n);
  int used = 0;
  std::vector<size_t> order;
  for (size_t v = 0; v < n; v++) {
    whole[v] = std::max(floor_nodes[v], static_cast<int>(std::floor(share[v])));
    used += whole[v];
    if (has_jobs[v] && !fixed[v]) order.push_back(v);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return share[a] - std::floor(share[a]) > share[b] - std::floor(share[b]);
  });
  for (size_t k = 0; used < nodes && !order.empty(); k = (k + 1) % order.size()) {
    whole[order[k]]++;
    used++;
  }
  gpus->assign(n, 0);
  for (size_t v = 0; v < n; v++) (*gpus)[v] = whole[v] * kGpusPerNode;
  return true;
}

}  // namespace hivedsim
