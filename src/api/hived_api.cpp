// SPDX-License-Identifier: GPL-2.0-or-later
// The extern "C" face of the engine (include/hived.h): converts C structs to engine
// requests, keeps the last decision alive for the caller, and turns Status into
// hived_rc + a message. Nothing may throw across this boundary.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <vector>

#include "api/snapshot_load.h"
#include "config/hived_conf.h"
#include "core/engine.h"
#include "core/json_writer.h"
#include "hived.h"

struct hived_engine {
  std::unique_ptr<hived::Engine> engine;
  std::string config_text;
  std::string last_error;
  // Storage behind the last hived_decision.
  hived::Decision decision;
  std::vector<hived_pod> pods;
  std::vector<const char*> preempted, lazy;
  std::vector<std::string> names;
  std::vector<const char*> name_ptrs;
  hived_decision out{};
};

namespace {

hived_rc ToRc(hived::Code c) {
  switch (c) {
    case hived::Code::kOk:
      return HIVED_OK;
    case hived::Code::kInval:
      return HIVED_EINVAL;
    case hived::Code::kConfig:
      return HIVED_ECONFIG;
    case hived::Code::kNoEnt:
      return HIVED_ENOENT;
    case hived::Code::kExist:
      return HIVED_EEXIST;
  }
  return HIVED_EINVAL;
}

void CopyErr(char* buf, size_t len, const std::string& msg) {
  if (!buf || !len) return;
  size_t n = msg.size() < len - 1 ? msg.size() : len - 1;
  memcpy(buf, msg.data(), n);
  buf[n] = '\0';
}

char* Dup(const std::string& s) {
  char* p = static_cast<char*>(malloc(s.size() + 1));
  if (p) memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

hived_rc Fail(hived_engine* e, const hived::Status& st) {
  e->last_error = st.msg;
  return ToRc(st.code);
}

hived::Status BuildFromText(const std::string& text, std::unique_ptr<hived::Engine>* out) {
  hived::Config cfg;
  std::string err = hived::parse_hived_conf(text, &cfg);
  if (!err.empty()) return hived::Status::Err(hived::Code::kConfig, err);
  return hived::Engine::Build(cfg.cluster, out);
}

hived::Status ToRequest(const hived_engine* e, const hived_job_request* r, hived::Request* q) {
  if (!r) return hived::Status::Err(hived::Code::kInval, "request: NULL");
  if (!r->job) return hived::Status::Err(hived::Code::kInval, "job: missing");
  q->job = r->job;
  q->vc = r->vc ? r->vc : "";
  q->priority = r->priority;
  q->leaf_type = r->leaf_cell_type ? r->leaf_cell_type : "";
  q->pinned_id = r->pinned_cell_id ? r->pinned_cell_id : "";
  q->within_type = r->within_cell_type ? r->within_cell_type : "";
  q->pod_within_type = r->pod_within_cell_type ? r->pod_within_cell_type : "";
  q->lazy = r->lazy_preemption != 0;
  q->distinct_nodes = r->distinct_nodes != 0;
  if (r->n_members && !r->members) return hived::Status::Err(hived::Code::kInval, "members: NULL");
  if (r->n_members > 100000) return hived::Status::Err(hived::Code::kInval, "members: too many");
  for (size_t i = 0; i < r->n_members; i++)
    q->members.push_back(
        {r->members[i].pod_number, r->members[i].leaf_cell_number, r->members[i].fraction_number});
  if (r->allowed_nodes)
    q->allowed.assign(r->allowed_nodes, r->allowed_nodes + e->engine->NodeCount());
  return hived::Status::Ok();
}

// hived_reconfigure and _ex: refuses a config that removes VCs in which guaranteed jobs
// run (unless allowed), else moves every job into an engine built from it.
hived_rc Reconfigure(hived_engine* e, const char* config_json, unsigned flags,
                     const char* const* removable_vcs, size_t n_removable,
                     hived::TransferReport* rep) {
  if (hived::SameJson(e->config_text, config_json)) {
    // Same cells and VCs: keep every binding as it is.
    e->last_error.clear();
    return HIVED_OK;
  }
  hived::Config cfg;
  std::string err = hived::parse_hived_conf(config_json, &cfg);
  if (!err.empty()) return Fail(e, hived::Status::Err(hived::Code::kConfig, err));
  std::unique_ptr<hived::Engine> next;
  hived::Status st = hived::Engine::Build(cfg.cluster, &next);
  if (!st.ok()) return Fail(e, st);
  std::set<std::string> may_go(cfg.slurm.allow_removing_vcs.begin(),
                               cfg.slurm.allow_removing_vcs.end());
  for (size_t i = 0; i < n_removable; i++)
    if (removable_vcs[i]) may_go.insert(removable_vcs[i]);
  std::string refused;
  for (const auto& [vc, jobs] : e->engine->RemovedVcsWithJobs(*next)) {
    if ((flags & HIVED_RECONF_ALLOW_VC_REMOVAL) || may_go.count(vc)) continue;
    refused += (refused.empty() ? "VC " : "; VC ") + vc + " (guaranteed jobs";
    for (const auto& j : jobs) refused += " " + j;
    refused += ")";
  }
  if (!refused.empty())
    return Fail(
        e, hived::Status::Err(hived::Code::kConfig,
                              "the new config has no " + refused +
                                  ": refused, the old config stays in force (to remove a VC and "
                                  "demote its jobs, name it in slurm.allowRemovingVcs)"));
  st = e->engine->TransferJobsTo(next.get(), rep);
  if (!st.ok()) return Fail(e, st);
  e->engine = std::move(next);
  e->config_text = config_json;
  e->last_error.clear();
  if (!rep->dropped.empty()) {
    e->last_error = "GPUs the new config does not have were dropped from running jobs:";
    for (size_t i = 0; i < rep->dropped.size(); i++)
      e->last_error += (i ? "; " : " ") + rep->dropped[i];
  }
  return HIVED_OK;
}

// hived.conf text handed to a settings call, parsed whole; errbuf says why not.
hived_rc ParseConfigArg(const char* text, hived::Config* cfg, char* errbuf, size_t errlen) {
  if (!text || !cfg) {
    CopyErr(errbuf, errlen, "config: NULL");
    return HIVED_EINVAL;
  }
  std::string err = hived::parse_hived_conf(text, cfg);
  if (err.empty()) return HIVED_OK;
  CopyErr(errbuf, errlen, err);
  return HIVED_ECONFIG;
}

std::string JsonList(const std::vector<std::string>& v) {
  hived::JsonOut j;
  j.Open('[');
  for (const auto& s : v) j.Val(s);
  j.Close(']');
  return j.str();
}

}  // namespace

extern "C" {

const char* hived_rc_str(hived_rc rc) {
  switch (rc) {
    case HIVED_OK:
      return "ok";
    case HIVED_EINVAL:
      return "invalid request";
    case HIVED_ECONFIG:
      return "invalid configuration";
    case HIVED_ENOENT:
      return "not found";
    case HIVED_EEXIST:
      return "already exists";
    case HIVED_ENOMEM:
      return "out of memory";
    case HIVED_EINVARIANT:
      return "invariant violated";
  }
  return "unknown error";
}

hived_rc hived_engine_new(const char* config_json, hived_engine** out, char* errbuf,
                          size_t errlen) {
  if (out) *out = nullptr;
  if (!config_json || !out) {
    CopyErr(errbuf, errlen, "config: NULL");
    return HIVED_EINVAL;
  }
  try {
    std::unique_ptr<hived_engine> e(new hived_engine());
    hived::Status st = BuildFromText(config_json, &e->engine);
    if (!st.ok()) {
      CopyErr(errbuf, errlen, st.msg);
      return ToRc(st.code);
    }
    e->config_text = config_json;
    *out = e.release();
    return HIVED_OK;
  } catch (const std::bad_alloc&) {
    CopyErr(errbuf, errlen, "out of memory");
    return HIVED_ENOMEM;
  } catch (...) {
    CopyErr(errbuf, errlen, "internal error while building the engine");
    return HIVED_EINVAL;
  }
}

hived_rc hived_engine_restore(const char* snapshot_json, hived_engine** out, char* errbuf,
                              size_t errlen) {
  if (out) *out = nullptr;
  if (!snapshot_json || !out) {
    CopyErr(errbuf, errlen, "snapshot: NULL");
    return HIVED_EINVAL;
  }
  try {
    hived::SnapshotData snap;
    std::string err = hived::ParseSnapshot(snapshot_json, &snap);
    if (!err.empty()) {
      CopyErr(errbuf, errlen, err);
      return HIVED_EINVAL;
    }
    std::unique_ptr<hived_engine> e(new hived_engine());
    hived::Status st = BuildFromText(snap.config_text, &e->engine);
    if (!st.ok()) {
      CopyErr(errbuf, errlen, "snapshot.config: " + st.msg);
      return ToRc(st.code);
    }
    e->config_text = snap.config_text;
    for (const auto& n : snap.bad_nodes) {
      st = e->engine->SetNodeHealth(n, false);
      if (!st.ok()) {
        CopyErr(errbuf, errlen, "snapshot.badNodes: " + st.msg);
        return ToRc(st.code);
      }
    }
    for (size_t i = 0; i < snap.jobs.size(); i++) {
      auto& sj = snap.jobs[i];
      hived::RunningJob rj = sj.job;
      for (size_t p = 0; p < rj.pods.size(); p++) {
        rj.pods[p].node = e->engine->NodeIndex(sj.node_names[p]);
        if (rj.pods[p].node < 0) {
          CopyErr(
              errbuf, errlen,
              "snapshot.jobs[" + std::to_string(i) + "]: unknown node '" + sj.node_names[p] + "'");
          return HIVED_ENOENT;
        }
      }
      bool demoted = false;
      st = e->engine->AddRunning(rj, &demoted);
      if (!st.ok()) {
        CopyErr(errbuf, errlen, "snapshot.jobs[" + std::to_string(i) + "]: " + st.msg);
        return ToRc(st.code);
      }
      if (demoted != rj.demoted) {
        CopyErr(errbuf, errlen,
                "snapshot.jobs[" + std::to_string(i) + "]: job '" + rj.req.job +
                    "' no longer fits the cells recorded for it");
        return HIVED_EINVAL;
      }
    }
    for (const auto& [job, vc] : snap.waiting) e->engine->NoteWaiting(job, vc);
    *out = e.release();
    return HIVED_OK;
  } catch (const std::bad_alloc&) {
    CopyErr(errbuf, errlen, "out of memory");
    return HIVED_ENOMEM;
  } catch (...) {
    CopyErr(errbuf, errlen, "internal error while restoring");
    return HIVED_EINVAL;
  }
}

hived_rc hived_engine_clone(const hived_engine* e, hived_engine** out) {
  if (out) *out = nullptr;
  if (!e || !out) return HIVED_EINVAL;
  try {
    std::unique_ptr<hived_engine> c(new hived_engine());
    c->engine.reset(new hived::Engine(*e->engine));
    c->config_text = e->config_text;
    *out = c.release();
    return HIVED_OK;
  } catch (...) {
    return HIVED_ENOMEM;
  }
}

void hived_engine_free(hived_engine* e) { delete e; }

const char* hived_last_error(const hived_engine* e) {
  return e ? e->last_error.c_str() : "engine: NULL";
}

namespace {

// Points e->out at e->decision (valid until the next call that changes the engine).
const hived_decision* ExportDecision(hived_engine* e) {
  const hived::Decision& d = e->decision;
  e->pods.clear();
  for (const auto& p : d.pods)
    e->pods.push_back({p.node, e->engine->NodeName(p.node).c_str(), p.gpus.data(),
                       static_cast<int32_t>(p.gpus.size()),
                       p.fractions.empty() ? nullptr : p.fractions.data(),
                       static_cast<int32_t>(p.fractions.size())});
  e->preempted.clear();
  for (const auto& s : d.preempted) e->preempted.push_back(s.c_str());
  e->lazy.clear();
  for (const auto& s : d.lazy_preempted) e->lazy.push_back(s.c_str());
  e->out.outcome = static_cast<hived_outcome>(d.outcome);
  e->out.wait_kind = static_cast<hived_wait_kind>(d.wait);
  e->out.reason = d.reason.c_str();
  e->out.pods = e->pods.data();
  e->out.n_pods = e->pods.size();
  e->out.preempted = e->preempted.data();
  e->out.n_preempted = e->preempted.size();
  e->out.lazy_preempted = e->lazy.data();
  e->out.n_lazy_preempted = e->lazy.size();
  e->last_error.clear();
  return &e->out;
}

}  // namespace

hived_rc hived_submit(hived_engine* e, const hived_job_request* req, int dry_run,
                      const hived_decision** out) {
  if (!e) return HIVED_EINVAL;
  if (out) *out = nullptr;
  try {
    hived::Request q;
    hived::Status st = ToRequest(e, req, &q);
    if (!st.ok()) return Fail(e, st);
    e->decision = hived::Decision();
    st = e->engine->Submit(q, dry_run != 0, &e->decision);
    if (!st.ok()) return Fail(e, st);
    const hived_decision* d = ExportDecision(e);
    if (out) *out = d;
    return HIVED_OK;
  } catch (const std::bad_alloc&) {
    e->last_error = "out of memory";
    return HIVED_ENOMEM;
  } catch (...) {
    e->last_error = "internal error in submit";
    return HIVED_EINVAL;
  }
}

hived_rc hived_will_run(hived_engine* e, const hived_job_request* req, const hived_job_end* ends,
                        size_t n_ends, int64_t* start, const hived_decision** out) {
  if (!e) return HIVED_EINVAL;
  if (out) *out = nullptr;
  if (start) *start = -1;
  if (n_ends && !ends) {
    e->last_error = "ends: NULL with n_ends > 0";
    return HIVED_EINVAL;
  }
  try {
    hived::Request q;
    hived::Status st = ToRequest(e, req, &q);
    if (!st.ok()) return Fail(e, st);
    std::vector<hived::Engine::JobEnd> v;
    v.reserve(n_ends);
    for (size_t i = 0; i < n_ends; i++)
      if (ends[i].job) v.push_back({ends[i].job, ends[i].end});
    int64_t at = -1;
    e->decision = hived::Decision();
    st = e->engine->WillRun(q, v, &e->decision, &at);
    if (!st.ok()) return Fail(e, st);
    const hived_decision* d = ExportDecision(e);
    if (out) *out = d;
    if (start) *start = at;
    return HIVED_OK;
  } catch (const std::bad_alloc&) {
    e->last_error = "out of memory";
    return HIVED_ENOMEM;
  } catch (...) {
    e->last_error = "internal error in will_run";
    return HIVED_EINVAL;
  }
}

hived_rc hived_finish(hived_engine* e, const char* job) {
  if (!e || !job) return HIVED_EINVAL;
  try {
    hived::Status st = e->engine->Finish(job);
    return st.ok() ? HIVED_OK : Fail(e, st);
  } catch (...) {
    e->last_error = "internal error in finish";
    return HIVED_ENOMEM;
  }
}

hived_rc hived_add_running(hived_engine* e, const hived_job_request* req, const hived_pod* pods,
                           size_t n_pods, int* demoted) {
  if (!e) return HIVED_EINVAL;
  try {
    hived::RunningJob rj;
    hived::Status st = ToRequest(e, req, &rj.req);
    if (!st.ok()) return Fail(e, st);
    if (n_pods && !pods) return Fail(e, hived::Status::Err(hived::Code::kInval, "placement: NULL"));
    for (size_t i = 0; i < n_pods; i++) {
      hived::PlacedPod p;
      p.node = pods[i].node;
      if (pods[i].n_leaves < 0 || (pods[i].n_leaves && !pods[i].leaves))
        return Fail(e, hived::Status::Err(hived::Code::kInval,
                                          "placement[" + std::to_string(i) + "].leaves: invalid"));
      p.gpus.assign(pods[i].leaves, pods[i].leaves + pods[i].n_leaves);
      if (pods[i].n_fractions < 0 || (pods[i].n_fractions && !pods[i].fractions))
        return Fail(e, hived::Status::Err(hived::Code::kInval, "placement[" + std::to_string(i) +
                                                                   "].fractions: invalid"));
      if (pods[i].n_fractions)
        p.fractions.assign(pods[i].fractions, pods[i].fractions + pods[i].n_fractions);
      if (pods[i].node_name) p.node_name = pods[i].node_name;
      rj.pods.push_back(std::move(p));
    }
    bool dem = false;
    std::vector<std::string> dropped;
    st = e->engine->AddRunning(rj, &dem, &dropped);
    if (!st.ok()) return Fail(e, st);
    if (demoted) *demoted = dem ? 1 : 0;
    e->last_error.clear();
    for (const auto& d : dropped) e->last_error += (e->last_error.empty() ? "" : "; ") + d;
    return HIVED_OK;
  } catch (...) {
    e->last_error = "internal error in add_running";
    return HIVED_ENOMEM;
  }
}

int hived_job_exists(const hived_engine* e, const char* job) {
  return e && job && e->engine->HasJob(job) ? 1 : 0;
}

int hived_job_matches(const hived_engine* e, const char* job, const hived_pod* pods,
                      size_t n_pods) {
  if (!e || !job || (n_pods && !pods)) return 0;
  try {
    std::vector<hived::PlacedPod> v;
    for (size_t i = 0; i < n_pods; i++) {
      hived::PlacedPod p;
      p.node = pods[i].node;
      if (pods[i].n_leaves > 0 && pods[i].leaves)
        p.gpus.assign(pods[i].leaves, pods[i].leaves + pods[i].n_leaves);
      if (pods[i].n_fractions > 0 && pods[i].fractions)
        p.fractions.assign(pods[i].fractions, pods[i].fractions + pods[i].n_fractions);
      v.push_back(std::move(p));
    }
    return e->engine->JobMatches(job, v) ? 1 : 0;
  } catch (...) {
    return 0;
  }
}

size_t hived_job_list(hived_engine* e, const char* const** names) {
  if (names) *names = nullptr;
  if (!e || !names) return 0;
  try {
    e->names = e->engine->JobNames();
    e->name_ptrs.clear();
    for (const auto& n : e->names) e->name_ptrs.push_back(n.c_str());
    *names = e->name_ptrs.data();
    return e->name_ptrs.size();
  } catch (...) {
    return 0;
  }
}

size_t hived_opportunistic_job_list(hived_engine* e, const char* const** names) {
  if (names) *names = nullptr;
  if (!e || !names) return 0;
  try {
    e->names.clear();
    for (const auto& rj : e->engine->RunningJobs())
      if (rj.demoted || rj.req.priority < 0) e->names.push_back(rj.req.job);
    e->name_ptrs.clear();
    for (const auto& n : e->names) e->name_ptrs.push_back(n.c_str());
    *names = e->name_ptrs.data();
    return e->name_ptrs.size();
  } catch (...) {
    return 0;
  }
}

size_t hived_node_count(const hived_engine* e) { return e ? e->engine->NodeCount() : 0; }

const char* hived_node_name(const hived_engine* e, size_t node) {
  if (!e || node >= e->engine->NodeCount()) return nullptr;
  return e->engine->NodeName(node).c_str();
}

int32_t hived_node_index(const hived_engine* e, const char* name) {
  if (!e || !name) return -1;
  return e->engine->NodeIndex(name);
}

hived_rc hived_set_node_health(hived_engine* e, const char* node, int healthy) {
  if (!e || !node) return HIVED_EINVAL;
  try {
    hived::Status st = e->engine->SetNodeHealth(node, healthy != 0);
    return st.ok() ? HIVED_OK : Fail(e, st);
  } catch (...) {
    e->last_error = "internal error in set_node_health";
    return HIVED_ENOMEM;
  }
}

hived_rc hived_reconfigure_ex(hived_engine* e, const char* config_json, unsigned flags,
                              const char* const* removable_vcs, size_t n_removable,
                              char** report_json) {
  if (report_json) *report_json = nullptr;
  if (!e || !config_json || (n_removable && !removable_vcs)) return HIVED_EINVAL;
  try {
    hived::TransferReport rep;
    hived_rc rc = Reconfigure(e, config_json, flags, removable_vcs, n_removable, &rep);
    if (rc != HIVED_OK || !report_json) return rc;
    hived::JsonOut j;
    j.Open('{');
    const std::pair<const char*, const std::vector<std::string>*> lists[] = {
        {"demoted", &rep.demoted}, {"promoted", &rep.promoted}, {"dropped", &rep.dropped}};
    for (const auto& [key, list] : lists) j.Key(key).Raw(JsonList(*list));
    j.Close('}');
    *report_json = Dup(j.str());
    return HIVED_OK;
  } catch (...) {
    e->last_error = "internal error in reconfigure; the old config stays";
    return HIVED_ENOMEM;
  }
}

hived_rc hived_reconfigure(hived_engine* e, const char* config_json, char** lazy_preempted_json) {
  if (lazy_preempted_json) *lazy_preempted_json = nullptr;
  if (!e || !config_json) return HIVED_EINVAL;
  try {
    hived::TransferReport rep;
    hived_rc rc = Reconfigure(e, config_json, 0, nullptr, 0, &rep);
    if (rc == HIVED_OK && lazy_preempted_json) *lazy_preempted_json = Dup(JsonList(rep.demoted));
    return rc;
  } catch (...) {
    e->last_error = "internal error in reconfigure; the old config stays";
    return HIVED_ENOMEM;
  }
}

hived_rc hived_inspect(const hived_engine* e, const char* vc, char** json) {
  if (!e || !json) return HIVED_EINVAL;
  *json = nullptr;
  try {
    std::string s;
    if (vc) {
      hived::Status st = e->engine->InspectVc(vc, &s);
      if (!st.ok()) return Fail(const_cast<hived_engine*>(e), st);
    } else {
      s = e->engine->InspectCluster();
    }
    *json = Dup(s);
    return *json ? HIVED_OK : HIVED_ENOMEM;
  } catch (...) {
    return HIVED_ENOMEM;
  }
}

hived_rc hived_inspect_job(const hived_engine* e, const char* job, char** json) {
  if (!e || !json || !job) return HIVED_EINVAL;
  *json = nullptr;
  try {
    std::string s;
    hived::Status st = e->engine->InspectJob(job, &s);
    if (!st.ok()) return Fail(const_cast<hived_engine*>(e), st);
    *json = Dup(s);
    return *json ? HIVED_OK : HIVED_ENOMEM;
  } catch (...) {
    return HIVED_ENOMEM;
  }
}

hived_rc hived_inspect_topology(const hived_engine* e, char** json) {
  if (!e || !json) return HIVED_EINVAL;
  *json = nullptr;
  try {
    *json = Dup(e->engine->InspectTopology());
    return *json ? HIVED_OK : HIVED_ENOMEM;
  } catch (...) {
    return HIVED_ENOMEM;
  }
}

hived_rc hived_snapshot(const hived_engine* e, char** json) {
  if (!e || !json) return HIVED_EINVAL;
  *json = nullptr;
  try {
    std::string s = hived::ComposeSnapshot(e->config_text, e->engine->SnapshotState());
    if (s.empty()) return HIVED_EINVAL;
    *json = Dup(s);
    return *json ? HIVED_OK : HIVED_ENOMEM;
  } catch (...) {
    return HIVED_ENOMEM;
  }
}

hived_rc hived_check_invariants(const hived_engine* e, char* errbuf, size_t errlen) {
  if (!e) return HIVED_EINVAL;
  try {
    std::string v = e->engine->CheckInvariants();
    if (v.empty()) return HIVED_OK;
    CopyErr(errbuf, errlen, v);
    return HIVED_EINVARIANT;
  } catch (...) {
    CopyErr(errbuf, errlen, "internal error in the invariant checker");
    return HIVED_EINVARIANT;
  }
}

size_t hived_memory_bytes(const hived_engine* e) { return e ? e->engine->MemoryBytes() : 0; }

size_t hived_vc_count(const hived_engine* e) { return e ? e->engine->VcCount() : 0; }

const char* hived_vc_name(const hived_engine* e, size_t vc) {
  if (!e || vc >= e->engine->VcCount()) return nullptr;
  return e->engine->VcName(vc).c_str();
}

int64_t hived_vc_free_leaves(const hived_engine* e, const char* vc) {
  try {
    return e && vc ? e->engine->VcFreeLeaves(vc) : -1;
  } catch (...) {
    return -1;
  }
}

int64_t hived_job_quota_leaves(const hived_engine* e, const char* job, const char** vc) {
  const std::string* name = nullptr;
  int64_t n = 0;

  try {
    if (e && job) n = e->engine->JobQuotaLeaves(job, &name);
  } catch (...) {
    n = 0;
    name = nullptr;
  }
  if (vc) *vc = name ? name->c_str() : nullptr;
  return name ? n : 0;
}

int hived_has_leaf_type(const hived_engine* e, const char* t) {
  return e && t && e->engine->HasLeafType(t) ? 1 : 0;
}

int32_t hived_node_leaf_count(const hived_engine* e, size_t node) {
  if (!e || node >= e->engine->NodeCount()) return 0;
  return e->engine->NodeLeafCount(node);
}

const char* hived_node_parent_type(const hived_engine* e, size_t node) {
  if (!e || node >= e->engine->NodeCount()) return nullptr;
  const std::string* t = e->engine->NodeParentType(node);
  return t ? t->c_str() : nullptr;
}

const char* hived_node_child_type(const hived_engine* e, size_t node, int32_t leaves) {
  if (!e || node >= e->engine->NodeCount()) return nullptr;
  const std::string* t = e->engine->NodeChildType(node, leaves);
  return t ? t->c_str() : nullptr;
}

hived_rc hived_settings_load(const char* config_json, hived_settings** out, char* errbuf,
                             size_t errlen) {
  if (out) *out = nullptr;
  if (!out) return ParseConfigArg(nullptr, nullptr, errbuf, errlen);
  try {
    hived::Config cfg;
    hived_rc rc = ParseConfigArg(config_json, &cfg, errbuf, errlen);
    if (rc != HIVED_OK) return rc;
    hived_settings* s = static_cast<hived_settings*>(calloc(1, sizeof(hived_settings)));
    if (!s) return HIVED_ENOMEM;
    const hived::SlurmSettings& ss = cfg.slurm;
    s->n_opportunistic_qos = ss.opportunistic_qos.size();
    s->opportunistic_qos =
        static_cast<char**>(calloc(ss.opportunistic_qos.size() + 1, sizeof(char*)));
    for (size_t i = 0; s->opportunistic_qos && i < ss.opportunistic_qos.size(); i++)
      s->opportunistic_qos[i] = Dup(ss.opportunistic_qos[i]);
    s->accounts_without_cells_reject =
        ss.accounts_without_cells == hived::UnquotaedAccounts::kReject;
    s->quota_from_sacctmgr = ss.quota_from_sacctmgr;
    s->check_invariants = ss.check_invariants;
    s->verbose_cell_trace = ss.verbose_cell_trace;
    s->state_file = Dup(ss.state_file);
    s->priority_scale = ss.priority_scale;
    s->larger_than_vc_reject = ss.reject_larger_than_vc;
    s->n_allow_removing_vcs = ss.allow_removing_vcs.size();
    s->allow_removing_vcs =
        static_cast<char**>(calloc(ss.allow_removing_vcs.size() + 1, sizeof(char*)));
    for (size_t i = 0; s->allow_removing_vcs && i < ss.allow_removing_vcs.size(); i++)
      s->allow_removing_vcs[i] = Dup(ss.allow_removing_vcs[i]);
    if (!s->allow_removing_vcs) s->n_allow_removing_vcs = 0;
    *out = s;
    return HIVED_OK;
  } catch (...) {
    CopyErr(errbuf, errlen, "out of memory");
    return HIVED_ENOMEM;
  }
}

void hived_settings_free(hived_settings* s) {
  if (!s) return;
  for (size_t i = 0; s->opportunistic_qos && i < s->n_opportunistic_qos; i++)
    free(s->opportunistic_qos[i]);
  free(s->opportunistic_qos);
  for (size_t i = 0; s->allow_removing_vcs && i < s->n_allow_removing_vcs; i++)
    free(s->allow_removing_vcs[i]);
  free(s->allow_removing_vcs);
  free(s->state_file);
  free(s);
}

namespace {
void PinnedIds(const std::vector<hived::PhysicalCellSpec>& cells, std::vector<std::string>* out) {
  for (const auto& c : cells) {
    if (!c.pinned_id.empty() && std::find(out->begin(), out->end(), c.pinned_id) == out->end())
      out->push_back(c.pinned_id);
    PinnedIds(c.children, out);
  }
}
// malloc()ed copy of v for hived_strings_free; false when out of memory (nothing kept).
bool DupList(const std::vector<std::string>& v, char*** out, size_t* n) {
  *out = static_cast<char**>(calloc(v.size() + 1, sizeof(char*)));
  if (!*out) return false;
  for (const auto& x : v) {
    if (!((*out)[*n] = Dup(x))) {
      hived_strings_free(*out, *n);
      *out = nullptr;
      *n = 0;
      return false;
    }
    (*n)++;
  }
  return true;
}
}  // namespace

hived_rc hived_config_names(const char* config_json, char*** cell_types, size_t* n_cell_types,
                            char*** pinned_ids, size_t* n_pinned_ids, char* errbuf, size_t errlen) {
  if (cell_types) *cell_types = nullptr;
  if (pinned_ids) *pinned_ids = nullptr;
  if (n_cell_types) *n_cell_types = 0;
  if (n_pinned_ids) *n_pinned_ids = 0;
  if (!cell_types || !pinned_ids || !n_cell_types || !n_pinned_ids)
    return ParseConfigArg(nullptr, nullptr, errbuf, errlen);
  try {
    hived::Config cfg;
    hived_rc rc = ParseConfigArg(config_json, &cfg, errbuf, errlen);
    if (rc != HIVED_OK) return rc;
    std::vector<std::string> types, pinned;
    for (const auto& t : cfg.cluster.cell_types) types.push_back(t.name);
    PinnedIds(cfg.cluster.physical_cells, &pinned);
    for (const auto& vc : cfg.cluster.vcs)
      for (const auto& id : vc.pinned_cells)
        if (std::find(pinned.begin(), pinned.end(), id) == pinned.end()) pinned.push_back(id);
    if (!DupList(types, cell_types, n_cell_types) || !DupList(pinned, pinned_ids, n_pinned_ids)) {
      hived_strings_free(*cell_types, *n_cell_types);
      *cell_types = nullptr;
      *n_cell_types = 0;
      CopyErr(errbuf, errlen, "out of memory");
      return HIVED_ENOMEM;
    }
    return HIVED_OK;
  } catch (...) {
    CopyErr(errbuf, errlen, "out of memory");
    return HIVED_ENOMEM;
  }
}

hived_rc hived_config_warnings(const char* config_json, char** warnings, char* errbuf,
                               size_t errlen) {
  if (warnings) *warnings = nullptr;
  if (!warnings) return ParseConfigArg(nullptr, nullptr, errbuf, errlen);
  try {
    hived::Config cfg;
    hived_rc rc = ParseConfigArg(config_json, &cfg, errbuf, errlen);
    if (rc != HIVED_OK) return rc;
    std::string text;
    for (const auto& w : cfg.warnings) text += w + "\n";
    *warnings = Dup(text);
    return *warnings ? HIVED_OK : HIVED_ENOMEM;
  } catch (...) {
    CopyErr(errbuf, errlen, "out of memory");
    return HIVED_ENOMEM;
  }
}

}  // extern "C"
