// SPDX-License-Identifier: GPL-2.0-or-later
#include "study.h"

#include "loaders.h"
#include "quota.h"

namespace hivedsim {

bool PrepareStudy(const StudyConfig& c, Study* s, std::string* err) {
  if (c.traces.empty()) {
    *err = "no --trace given";
    return false;
  }
  for (const auto& spec : c.traces)
    if (!LoadTrace(spec, &s->trace, err)) return false;
  s->notes = s->trace.notes;
  if (!SelectJobs(&s->trace, c.sel, &s->jobs, err)) return false;
  // Quotas are judged on the jobs replayed, not on the whole file.
  Trace chosen;
  chosen.vcs = s->trace.vcs;
  chosen.quota_gpus = s->trace.quota_gpus;
  for (int j : s->jobs) chosen.jobs.push_back(s->trace.jobs[j]);
  if (c.rack_nodes < 0) {
    *err = "--rack-nodes must be >= 0";
    return false;
  }
  std::vector<int> q;
  if (!c.quota_spec.empty()) {
    if (!ParseQuotaSpec(c.quota_spec, chosen, &q, err)) return false;
  } else if (!c.proportional && !chosen.quota_gpus.empty()) {
    q = TraceQuotas(chosen, &s->notes);
  } else {
    if (c.nodes <= 0) {
      *err = "--nodes is needed to share the cluster by demand (or give --quota)";
      return false;
    }
    if (!ProportionalQuotas(chosen, c.nodes, &q, err)) return false;
    s->notes.push_back(
        "quotas: whole nodes in proportion to each VC's GPU-time in the replayed jobs, "
        "at least its largest job");
  }
  // VCs without jobs in the window keep no cells (they would only idle).
  std::vector<bool> has(s->trace.vcs.size(), false);
  for (int j : s->jobs) has[s->trace.jobs[j].vc] = true;
  int64_t sum = 0;
  s->setup.cells.clear();
  for (size_t v = 0; v < q.size(); v++) {
    if (!has[v]) q[v] = 0;
    s->setup.cells.push_back(CellsForGpus(q[v]));
    sum += q[v];
  }
  s->setup.shape.rack_nodes = c.rack_nodes;
  int nodes = c.nodes;
  if (nodes <= 0) {
    nodes = static_cast<int>((sum + kGpusPerNode - 1) / kGpusPerNode);
    if (c.rack_nodes > 0) nodes = (nodes + c.rack_nodes - 1) / c.rack_nodes * c.rack_nodes;
    s->notes.push_back("cluster: " + std::to_string(nodes) + " nodes, just enough for the quotas");
  }
  s->setup.shape.nodes = nodes;
  return ValidateSetup(s->trace, s->setup, err);
}

bool RunNamedPolicy(const std::string& name, const Study& s, const PolicyOptions& base,
                    SimResult* out, std::string* err) {
  PolicyOptions o = base;
  std::string policy = name;
  if (name == "hived-noopp") {
    policy = "hived";
    o.opportunistic = false;
  } else if (name == "hived") {
    o.opportunistic = true;
  }
  return RunPolicy(policy, s.trace, s.jobs, s.setup, o, out, err);
}

const char* BaselineOf(const std::string& policy) {
  if (policy == "quota") return "private-quota";
  if (policy == "hived" || policy == "hived-noopp") return "private";
  return nullptr;
}

bool RunStudy(const StudyConfig& c, Study* s, std::string* err) {
  s->results.clear();
  s->metrics.clear();
  // A named private-quota runs even without quota: it is a run a user asked for.
  std::vector<std::string> names{"private"};
  for (const auto& p : c.policies)
    if (p == "quota" || p == "private-quota") {
      names.push_back("private-quota");
      break;
    }
  for (const auto& p : c.policies)
    if (p != "private" && p != "private-quota") names.push_back(p);
  for (const auto& n : names) {
    SimResult r;
    if (!RunNamedPolicy(n, *s, c.popt, &r, err)) return false;
    s->results.push_back(std::move(r));
  }
  for (const auto& r : s->results) {
    const SimResult* base = nullptr;
    const char* b = BaselineOf(r.policy);
    for (const auto& x : s->results)
      if (b && x.policy == b) base = &x;
    s->metrics.push_back(Summarize(s->trace, r, base, c.tolerance_s));
  }
  return true;
}

}  // namespace hivedsim
