// SPDX-License-Identifier: GPL-2.0-or-later
// The extern "C" face of the engine (include/hived.h): converts C structs to engine
// requests, keeps the last decision alive for the caller, and turns Status into
// hived_rc + a message. Nothing may throw across this boundary.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <vector>

#include "api/guard.h"
#include "api/snapshot_load.h"
#include "config/hived_conf.h"
#include "core/engine.h"
#include "core/json_writer.h"
#include "hived.h"

struct hived_engine {
  std::unique_ptr<hived::Engine> engine;
  std::string config_text;
  // Written by failing calls on a const engine too (inspection), as before.
  mutable std::string last_error;
  // Storage behind the last hived_decision.
  hived::Decision decision;
  std::vector<hived_pod> pods;
  std::vector<const char*> preempted, lazy;
  std::vector<std::string> names;
  std::vector<const char*> name_ptrs;
  hived_decision out{};
  std::vector<std::string> promoted;  // by the last hived_promote
};

namespace {

using hived::Code;
using hived::Status;
using hived::api::DupOut;
using hived::api::ErrSink;
using hived::api::Guard;
using hived::api::GuardValue;
using hived::api::Missing;

// A call that changes the engine: its message (or "") replaces the last one.
template <class Body>
hived_rc OnEngine(const char* call, hived_engine* e, Body&& body) noexcept {
  if (!e) return HIVED_EINVAL;
  e->last_error.clear();
  return Guard(call, ErrSink(&e->last_error), body);
}

// A call that only reads the engine: a failure's message is kept for hived_last_error.
template <class Body>
hived_rc OnConstEngine(const char* call, const hived_engine* e, Body&& body) noexcept {
  if (!e) return HIVED_EINVAL;
  return Guard(call, ErrSink(&e->last_error), body);
}

// A value from the engine; fallback when there is no engine or the body throws.
template <class T, class Body>
T EngineValue(const char* call, const hived_engine* e, T fallback, Body&& body) noexcept {
  if (!e) return fallback;
  return GuardValue(call, ErrSink(&e->last_error), fallback, body);
}

Status BuildFromText(const std::string& text, std::unique_ptr<hived::Engine>* out) {
  hived::Config cfg;
  Status st = hived::parse_hived_conf(text, &cfg);
  if (!st.ok()) return st;
  return hived::Engine::Build(cfg.cluster, out);
}

Status ToRequest(const hived_engine* e, const hived_job_request* r, hived::Request* q) {
  if (!r) return Missing("request");
  if (!r->job) return Status::Err(Code::kInval, "job: missing");
  q->job = r->job;
  q->vc = r->vc ? r->vc : "";
  q->priority = r->priority;
  q->leaf_type = r->leaf_cell_type ? r->leaf_cell_type : "";
  q->pinned_id = r->pinned_cell_id ? r->pinned_cell_id : "";
  q->within_type = r->within_cell_type ? r->within_cell_type : "";
  q->pod_within_type = r->pod_within_cell_type ? r->pod_within_cell_type : "";
  q->lazy = r->lazy_preemption != 0;
  q->distinct_nodes = r->distinct_nodes != 0;
  q->split_max_pods = r->split_max_pods;
  q->borrow_idle = r->borrow_idle_cells != 0;
  if (r->n_members && !r->members) return Missing("members");
  if (r->n_members > 100000) return Status::Err(Code::kInval, "members: too many");
  for (size_t i = 0; i < r->n_members; i++)
    q->members.push_back(
        {r->members[i].pod_number, r->members[i].leaf_cell_number, r->members[i].fraction_number});
  // Every node allowed is the engine's empty list: slurmctld passes one for every job
  // (its partition's nodes), and a list costs its copy in each shape a decision tries
  // and a walk of every free node cell in a gang's rack choice.
  if (r->allowed_nodes) {
    const uint8_t* end = r->allowed_nodes + e->engine->NodeCount();
    if (std::find(r->allowed_nodes, end, 0) != end) q->allowed.assign(r->allowed_nodes, end);
  }
  return Status::Ok();
}

// hived_add_running's pods → the engine's, each array checked.
Status ToPods(const hived_pod* pods, size_t n_pods, std::vector<hived::PlacedPod>* out) {
  if (n_pods && !pods) return Missing("placement");
  for (size_t i = 0; i < n_pods; i++) {
    hived::PlacedPod p;
    p.node = pods[i].node;
    const std::string at = "placement[" + std::to_string(i) + "]";
    if (pods[i].n_leaves < 0 || (pods[i].n_leaves && !pods[i].leaves))
      return Status::Err(Code::kInval, at + ".leaves: invalid");
    p.gpus.assign(pods[i].leaves, pods[i].leaves + pods[i].n_leaves);
    if (pods[i].n_fractions < 0 || (pods[i].n_fractions && !pods[i].fractions))
      return Status::Err(Code::kInval, at + ".fractions: invalid");
    if (pods[i].n_fractions)
      p.fractions.assign(pods[i].fractions, pods[i].fractions + pods[i].n_fractions);
    if (pods[i].node_name) p.node_name = pods[i].node_name;
    out->push_back(std::move(p));
  }
  return Status::Ok();
}

// hived_reconfigure and _ex: refuses a config that removes VCs in which guaranteed jobs
// run (unless allowed), else moves every job into an engine built from it.
Status Reconfigure(hived_engine* e, const char* config_json, unsigned flags,
                   const char* const* removable_vcs, size_t n_removable,
                   hived::TransferReport* rep) {
  // Same cells and VCs: keep every binding as it is.
  if (hived::SameJson(e->config_text, config_json)) return Status::Ok();
  hived::Config cfg;
  Status st = hived::parse_hived_conf(config_json, &cfg);
  if (!st.ok()) return st;
  std::unique_ptr<hived::Engine> next;
  st = hived::Engine::Build(cfg.cluster, &next);
  if (!st.ok()) return st;
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
    return Status::Err(Code::kConfig,
                       "the new config has no " + refused +
                           ": refused, the old config stays in force (to remove a VC and "
                           "demote its jobs, name it in slurm.allowRemovingVcs)");
  st = e->engine->TransferJobsTo(next.get(), rep);
  if (!st.ok()) return st;
  e->engine = std::move(next);
  e->config_text = config_json;
  if (!rep->dropped.empty()) {
    e->last_error = "GPUs the new config does not have were dropped from running jobs:";
    for (size_t i = 0; i < rep->dropped.size(); i++)
      e->last_error += (i ? "; " : " ") + rep->dropped[i];
  }
  return Status::Ok();
}

// A call on hived.conf text alone: the text parsed whole, then body(cfg); errbuf
// says why not.
template <class Body>
hived_rc OnConfig(const char* call, const char* text, char* errbuf, size_t errlen,
                  Body&& body) noexcept {
  return Guard(call, ErrSink(errbuf, errlen), [&]() -> Status {
    if (!text) return Missing("config");
    hived::Config cfg;
    Status st = hived::parse_hived_conf(text, &cfg);
    return st.ok() ? body(cfg) : st;
  });
}

std::string JsonList(const std::vector<std::string>& v) {
  hived::JsonOut j;
  j.Open('[');
  for (const auto& s : v) j.Val(s);
  j.Close(']');
  return j.str();
}

// One snapshot job back into e, its node names mapped to e's indices.
Status RestoreJob(hived::Engine* e, size_t i, const hived::SnapshotJob& sj) {
  const std::string at = "snapshot.jobs[" + std::to_string(i) + "]";
  hived::RunningJob rj = sj.job;
  for (size_t p = 0; p < rj.pods.size(); p++) {
    rj.pods[p].node = e->NodeIndex(sj.node_names[p]);
    if (rj.pods[p].node < 0)
      return Status::Err(Code::kNoEnt, at + ": unknown node '" + sj.node_names[p] + "'");
  }
  bool demoted = false;
  Status st = e->AddRunning(rj, &demoted);
  if (!st.ok()) return Status::Err(st.code, at + ": " + st.msg);
  if (demoted != rj.demoted)
    return Status::Err(Code::kInval,
                       at + ": job '" + rj.req.job + "' no longer fits the cells recorded for it");
  return Status::Ok();
}

Status Restore(const char* snapshot_json, hived_engine* e) {
  hived::SnapshotData snap;
  Status st = hived::ParseSnapshot(snapshot_json, &snap);
  if (!st.ok()) return st;
  st = BuildFromText(snap.config_text, &e->engine);
  if (!st.ok()) return Status::Err(st.code, "snapshot.config: " + st.msg);
  e->config_text = snap.config_text;
  for (const auto& n : snap.bad_nodes) {
    st = e->engine->SetNodeHealth(n, false);
    if (!st.ok()) return Status::Err(st.code, "snapshot.badNodes: " + st.msg);
  }
  for (size_t i = 0; i < snap.jobs.size(); i++) {
    st = RestoreJob(e->engine.get(), i, snap.jobs[i]);
    if (!st.ok()) return st;
  }
  for (const auto& w : snap.waiting) e->engine->NoteWaiting(w.job, w.vc, w.priority);
  return Status::Ok();
}

// hived_engine_new/_restore: a new handle through *out, or NULL and errbuf says why.
template <class Fill>
hived_rc NewEngine(const char* call, const char* text, const char* what, hived_engine** out,
                   char* errbuf, size_t errlen, Fill&& fill) noexcept {
  if (out) *out = nullptr;
  return Guard(call, ErrSink(errbuf, errlen), [&]() -> Status {
    if (!text) return Missing(what);
    if (!out) return Missing("out");
    std::unique_ptr<hived_engine> e(new hived_engine());
    Status st = fill(e.get());
    if (st.ok()) *out = e.release();
    return st;
  });
}

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
  e->out.borrowed = d.borrowed ? 1 : 0;
  return &e->out;
}

// Names into e's storage for a job list (valid until the next change or list).
size_t ExportNames(hived_engine* e, std::vector<std::string> names, const char* const** out) {
  e->names = std::move(names);
  e->name_ptrs.clear();
  for (const auto& n : e->names) e->name_ptrs.push_back(n.c_str());
  *out = e->name_ptrs.data();
  return e->name_ptrs.size();
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
    case HIVED_EINTERNAL:
      return "internal error";
  }
  return "unknown error";
}

hived_rc hived_engine_new(const char* config_json, hived_engine** out, char* errbuf,
                          size_t errlen) {
  return NewEngine("hived_engine_new", config_json, "config", out, errbuf, errlen,
                   [&](hived_engine* e) {
                     Status st = BuildFromText(config_json, &e->engine);
                     if (st.ok()) e->config_text = config_json;
                     return st;
                   });
}

hived_rc hived_engine_restore(const char* snapshot_json, hived_engine** out, char* errbuf,
                              size_t errlen) {
  return NewEngine("hived_engine_restore", snapshot_json, "snapshot", out, errbuf, errlen,
                   [&](hived_engine* e) { return Restore(snapshot_json, e); });
}

hived_rc hived_engine_clone(const hived_engine* e, hived_engine** out) {
  if (out) *out = nullptr;
  return OnConstEngine("hived_engine_clone", e, [&]() -> Status {
    if (!out) return Missing("out");
    std::unique_ptr<hived_engine> c(new hived_engine());
    c->engine.reset(new hived::Engine(*e->engine));
    c->config_text = e->config_text;
    *out = c.release();
    return Status::Ok();
  });
}

void hived_engine_free(hived_engine* e) { delete e; }

const char* hived_last_error(const hived_engine* e) {
  return e ? e->last_error.c_str() : "engine: NULL";
}

hived_rc hived_submit(hived_engine* e, const hived_job_request* req, int dry_run,
                      const hived_decision** out) {
  if (out) *out = nullptr;
  return OnEngine("hived_submit", e, [&]() -> Status {
    hived::Request q;
    Status st = ToRequest(e, req, &q);
    if (!st.ok()) return st;
    e->decision = hived::Decision();
    st = e->engine->Submit(q, dry_run != 0, &e->decision);
    if (!st.ok()) return st;
    const hived_decision* d = ExportDecision(e);
    if (out) *out = d;
    return st;
  });
}

namespace {

// The caller's ends as the engine reads them: where they lie, for the length of the
// call (the engine keeps their order, not them).
class CallerEnds final : public hived::Engine::EndList {
 public:
  CallerEnds(const hived_job_end* ends, size_t n) : ends_(ends), n_(n) {}
  size_t size() const override { return n_; }
  hived::Engine::JobEnd operator[](size_t i) const override { return {ends_[i].job, ends_[i].end}; }

 private:
  const hived_job_end* ends_;
  size_t n_;
};

}  // namespace

hived_rc hived_will_run_kept(hived_engine* e, const hived_job_request* req,
                             const hived_job_end* ends, size_t n_ends, uint64_t ends_gen,
                             int64_t* start, const hived_decision** out) {
  if (out) *out = nullptr;
  if (start) *start = -1;
  return OnEngine("hived_will_run", e, [&]() -> Status {
    if (n_ends && !ends) return Status::Err(Code::kInval, "ends: NULL with n_ends > 0");
    hived::Request q;
    Status st = ToRequest(e, req, &q);
    if (!st.ok()) return st;
    int64_t at = -1;
    e->decision = hived::Decision();
    st = e->engine->WillRun(q, CallerEnds(ends, n_ends), &e->decision, &at, ends_gen);
    if (!st.ok()) return st;
    const hived_decision* d = ExportDecision(e);
    if (out) *out = d;
    if (start) *start = at;
    return st;
  });
}

hived_rc hived_will_run(hived_engine* e, const hived_job_request* req, const hived_job_end* ends,
                        size_t n_ends, int64_t* start, const hived_decision** out) {
  return hived_will_run_kept(e, req, ends, n_ends, 0, start, out);
}

void hived_will_run_last(const hived_engine* e, hived_will_run_counts* out) {
  if (!out) return;
  *out = hived_will_run_counts{};
  if (!e || !e->engine) return;
  const hived::Engine::TrialCounts& t = e->engine->LastTrial();
  out->from_memo = t.memo ? 1 : 0;
  out->ended_own = t.ended_own;
  out->ended_guaranteed = t.ended_guaranteed;
  out->ended_opportunistic = t.ended_opportunistic;
  out->decisions = t.decisions;
  out->by_guarantee = t.by_guarantee ? 1 : 0;
}

hived_rc hived_finish(hived_engine* e, const char* job) {
  return OnEngine("hived_finish", e, [&]() -> Status {
    if (!job) return Missing("job");
    return e->engine->Finish(job);
  });
}

hived_rc hived_promote(hived_engine* e, size_t* n_promoted) {
  if (n_promoted) *n_promoted = 0;
  return OnEngine("hived_promote", e, [&]() -> Status {
    e->promoted = e->engine->PromoteDemoted();
    if (n_promoted) *n_promoted = e->promoted.size();
    return Status::Ok();
  });
}

hived_rc hived_forget_waiting(hived_engine* e, hived_keep_waiting_f keep, void* arg,
                              size_t* n_forgotten) {
  if (n_forgotten) *n_forgotten = 0;
  return OnEngine("hived_forget_waiting", e, [&]() -> Status {
    if (!keep) return Status::Err(Code::kInval, "hived_forget_waiting: keep is NULL");
    struct Call {
      hived_keep_waiting_f keep;
      void* arg;
    } call{keep, arg};
    const size_t gone = e->engine->ForgetWaiting(
        [](const char* job, void* c) {
          auto* k = static_cast<Call*>(c);
          return k->keep(job, k->arg) != 0;
        },
        &call);
    if (n_forgotten) *n_forgotten = gone;
    return Status::Ok();
  });
}

const char* hived_promoted_name(const hived_engine* e, size_t i) {
  if (!e || i >= e->promoted.size()) return nullptr;
  return e->promoted[i].c_str();
}

hived_rc hived_add_running(hived_engine* e, const hived_job_request* req, const hived_pod* pods,
                           size_t n_pods, int* demoted) {
  return OnEngine("hived_add_running", e, [&]() -> Status {
    hived::RunningJob rj;
    Status st = ToRequest(e, req, &rj.req);
    if (st.ok()) st = ToPods(pods, n_pods, &rj.pods);
    if (!st.ok()) return st;
    bool dem = false;
    std::vector<std::string> dropped;
    st = e->engine->AddRunning(rj, &dem, &dropped);
    if (!st.ok()) return st;
    if (demoted) *demoted = dem ? 1 : 0;
    for (const auto& d : dropped) e->last_error += (e->last_error.empty() ? "" : "; ") + d;
    return st;
  });
}

int hived_job_exists(const hived_engine* e, const char* job) {
  return EngineValue("hived_job_exists", e, 0,
                     [&] { return job && e->engine->HasJob(job) ? 1 : 0; });
}

int hived_job_matches(const hived_engine* e, const char* job, const hived_pod* pods,
                      size_t n_pods) {
  return EngineValue("hived_job_matches", e, 0, [&] {
    if (!job || (n_pods && !pods)) return 0;
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
  });
}

size_t hived_job_list(hived_engine* e, const char* const** names) {
  if (names) *names = nullptr;
  return EngineValue("hived_job_list", e, size_t{0}, [&]() -> size_t {
    return names ? ExportNames(e, e->engine->JobNames(), names) : 0;
  });
}

size_t hived_opportunistic_job_list(hived_engine* e, const char* const** names) {
  if (names) *names = nullptr;
  return EngineValue("hived_opportunistic_job_list", e, size_t{0}, [&]() -> size_t {
    if (!names) return 0;
    std::vector<std::string> v;
    for (const auto& rj : e->engine->RunningJobs())
      if (rj.demoted || rj.req.priority < 0) v.push_back(rj.req.job);
    return ExportNames(e, std::move(v), names);
  });
}

size_t hived_node_count(const hived_engine* e) { return e ? e->engine->NodeCount() : 0; }

const char* hived_node_name(const hived_engine* e, size_t node) {
  if (!e || node >= e->engine->NodeCount()) return nullptr;
  return e->engine->NodeName(node).c_str();
}

int32_t hived_node_index(const hived_engine* e, const char* name) {
  return EngineValue("hived_node_index", e, int32_t{-1},
                     [&] { return name ? e->engine->NodeIndex(name) : int32_t{-1}; });
}

hived_rc hived_set_node_health(hived_engine* e, const char* node, int healthy) {
  return OnEngine("hived_set_node_health", e, [&]() -> Status {
    if (!node) return Missing("node");
    return e->engine->SetNodeHealth(node, healthy != 0);
  });
}

hived_rc hived_reconfigure_ex(hived_engine* e, const char* config_json, unsigned flags,
                              const char* const* removable_vcs, size_t n_removable,
                              char** report_json) {
  if (report_json) *report_json = nullptr;
  return OnEngine("hived_reconfigure_ex", e, [&]() -> Status {
    if (!config_json) return Missing("config");
    if (n_removable && !removable_vcs) return Missing("removable_vcs");
    hived::TransferReport rep;
    Status st = Reconfigure(e, config_json, flags, removable_vcs, n_removable, &rep);
    if (!st.ok() || !report_json) return st;
    hived::JsonOut j;
    j.Open('{');
    const std::pair<const char*, const std::vector<std::string>*> lists[] = {
        {"demoted", &rep.demoted}, {"promoted", &rep.promoted}, {"dropped", &rep.dropped}};
    for (const auto& [key, list] : lists) j.Key(key).Raw(JsonList(*list));
    j.Close('}');
    return DupOut(j.str(), report_json);
  });
}

hived_rc hived_reconfigure(hived_engine* e, const char* config_json, char** lazy_preempted_json) {
  if (lazy_preempted_json) *lazy_preempted_json = nullptr;
  return OnEngine("hived_reconfigure", e, [&]() -> Status {
    if (!config_json) return Missing("config");
    hived::TransferReport rep;
    Status st = Reconfigure(e, config_json, 0, nullptr, 0, &rep);
    if (!st.ok() || !lazy_preempted_json) return st;
    return DupOut(JsonList(rep.demoted), lazy_preempted_json);
  });
}

hived_rc hived_inspect(const hived_engine* e, const char* vc, char** json) {
  if (json) *json = nullptr;
  return OnConstEngine("hived_inspect", e, [&]() -> Status {
    if (!json) return Missing("json");
    std::string s;
    if (!vc) return DupOut(e->engine->InspectCluster(), json);
    Status st = e->engine->InspectVc(vc, &s);
    return st.ok() ? DupOut(s, json) : st;
  });
}

hived_rc hived_inspect_job(const hived_engine* e, const char* job, char** json) {
  if (json) *json = nullptr;
  return OnConstEngine("hived_inspect_job", e, [&]() -> Status {
    if (!json) return Missing("json");
    if (!job) return Missing("job");
    std::string s;
    Status st = e->engine->InspectJob(job, &s);
    return st.ok() ? DupOut(s, json) : st;
  });
}

hived_rc hived_inspect_topology(const hived_engine* e, char** json) {
  if (json) *json = nullptr;
  return OnConstEngine("hived_inspect_topology", e, [&]() -> Status {
    if (!json) return Missing("json");
    return DupOut(e->engine->InspectTopology(), json);
  });
}

hived_rc hived_snapshot(const hived_engine* e, char** json) {
  if (json) *json = nullptr;
  return OnConstEngine("hived_snapshot", e, [&]() -> Status {
    if (!json) return Missing("json");
    std::string s = hived::ComposeSnapshot(e->config_text, e->engine->SnapshotState());
    // Both parts are the engine's own JSON: not parsing back is a bug, not bad input.
    if (s.empty()) return Status::Err(Code::kInternal, "hived_snapshot: the state is not JSON");
    return DupOut(s, json);
  });
}

hived_rc hived_check_invariants(const hived_engine* e, char* errbuf, size_t errlen) {
  if (!e) return HIVED_EINVAL;
  return Guard("hived_check_invariants", ErrSink(errbuf, errlen), [&]() -> Status {
    std::string v = e->engine->CheckInvariants();
    return v.empty() ? Status::Ok() : Status::Err(Code::kInvariant, v);
  });
}

size_t hived_memory_bytes(const hived_engine* e) { return e ? e->engine->MemoryBytes() : 0; }

size_t hived_vc_count(const hived_engine* e) { return e ? e->engine->VcCount() : 0; }

const char* hived_vc_name(const hived_engine* e, size_t vc) {
  if (!e || vc >= e->engine->VcCount()) return nullptr;
  return e->engine->VcName(vc).c_str();
}

int64_t hived_vc_free_leaves(const hived_engine* e, const char* vc) {
  return EngineValue("hived_vc_free_leaves", e, int64_t{-1},
                     [&] { return vc ? e->engine->VcFreeLeaves(vc) : int64_t{-1}; });
}

int64_t hived_job_quota_leaves(const hived_engine* e, const char* job, const char** vc) {
  const std::string* name = nullptr;
  const int64_t n = EngineValue("hived_job_quota_leaves", e, int64_t{0}, [&] {
    return job ? e->engine->JobQuotaLeaves(job, &name) : int64_t{0};
  });
  if (vc) *vc = name ? name->c_str() : nullptr;
  return name ? n : 0;
}

int hived_has_leaf_type(const hived_engine* e, const char* t) {
  return EngineValue("hived_has_leaf_type", e, 0,
                     [&] { return t && e->engine->HasLeafType(t) ? 1 : 0; });
}

int hived_is_mig_profile(const hived_engine* e, const char* t) {
  return EngineValue("hived_is_mig_profile", e, 0, [&] {
    if (!t) return 0;
    const auto p = e->engine->MigProfiles();
    return std::find(p.begin(), p.end(), t) != p.end() ? 1 : 0;
  });
}

size_t hived_mig_profiles(const hived_engine* e, char* buf, size_t len) {
  return EngineValue("hived_mig_profiles", e, size_t{0}, [&] {
    std::string all;
    const auto p = e->engine->MigProfiles();
    for (const auto& t : p) all += (all.empty() ? "" : ", ") + t;
    if (buf && len) snprintf(buf, len, "%s", all.c_str());
    return p.size();
  });
}

int32_t hived_node_leaf_count(const hived_engine* e, size_t node) {
  if (!e || node >= e->engine->NodeCount()) return 0;
  return e->engine->NodeLeafCount(node);
}

int32_t hived_node_cell_leaves(const hived_engine* e, size_t node, const char* leaf_cell_type) {
  if (!e || node >= e->engine->NodeCount()) return 0;
  return EngineValue("hived_node_cell_leaves", e, int32_t{0}, [&] {
    const std::string t = leaf_cell_type ? leaf_cell_type : "";
    return e->engine->NodeCellLeafCount(node, leaf_cell_type ? &t : nullptr);
  });
}

int hived_is_node_cell_size(const hived_engine* e, size_t node, int32_t leaves,
                            const char* leaf_cell_type) {
  if (!e || node >= e->engine->NodeCount()) return 0;
  return EngineValue("hived_is_node_cell_size", e, 0, [&] {
    const std::string t = leaf_cell_type ? leaf_cell_type : "";
    return e->engine->IsNodeCellSize(node, leaves, leaf_cell_type ? &t : nullptr) ? 1 : 0;
  });
}

int32_t hived_largest_node_leaves(const hived_engine* e, const char* vc, const char* leaf_cell_type,
                                  const uint8_t* nodes) {
  return EngineValue("hived_largest_node_leaves", e, int32_t{0}, [&] {
    const std::string v = vc ? vc : "", t = leaf_cell_type ? leaf_cell_type : "";
    return e->engine->LargestNodeLeafCount(vc ? &v : nullptr, leaf_cell_type ? &t : nullptr, nodes);
  });
}

int32_t hived_next_whole_node_leaves(const hived_engine* e, const char* vc,
                                     const char* leaf_cell_type, const uint8_t* nodes,
                                     int32_t below, uint8_t* sized) {
  return EngineValue("hived_next_whole_node_leaves", e, int32_t{0}, [&] {
    const std::string v = vc ? vc : "", t = leaf_cell_type ? leaf_cell_type : "";
    return e->engine->NextNodeLeafCount(vc ? &v : nullptr, leaf_cell_type ? &t : nullptr, nodes,
                                        below, sized);
  });
}

int32_t hived_whole_node_leaves(const hived_engine* e, const char* vc, const char* leaf_cell_type,
                                const uint8_t* nodes) {
  int32_t n = hived_largest_node_leaves(e, vc, leaf_cell_type, nodes);
  if (!n && nodes) n = hived_largest_node_leaves(e, nullptr, nullptr, nodes);
  if (!n) n = hived_largest_node_leaves(e, nullptr, nullptr, nullptr);
  return n;
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

size_t hived_chain_count(const hived_engine* e) { return e ? e->engine->ChainCount() : 0; }

const char* hived_chain_name(const hived_engine* e, size_t chain) {
  if (!e || chain >= e->engine->ChainCount()) return nullptr;
  return e->engine->ChainName(chain).c_str();
}

int64_t hived_chain_leaves_per_gpu(const hived_engine* e, size_t chain) {
  if (!e || chain >= e->engine->ChainCount()) return 0;
  return e->engine->ChainLeavesPerGpu(chain);
}

namespace {
// malloc()ed copy of v (NULL-terminated) for hived_strings_free / hived_settings_free;
// on failure nothing is kept.
Status DupList(const std::vector<std::string>& v, char*** out, size_t* n) {
  *n = 0;
  *out = static_cast<char**>(calloc(v.size() + 1, sizeof(char*)));
  if (!*out) return Status::Err(Code::kNoMem, "out of memory");
  for (const auto& x : v) {
    Status st = DupOut(x, &(*out)[*n]);
    if (!st.ok()) {
      hived_strings_free(*out, *n);
      *out = nullptr;
      *n = 0;
      return st;
    }
    (*n)++;
  }
  return Status::Ok();
}

Status FillSettings(const hived::SlurmSettings& ss, hived_settings* s) {
  s->accounts_without_cells_reject = ss.accounts_without_cells == hived::UnquotaedAccounts::kReject;
  s->quota_from_sacctmgr = ss.quota_from_sacctmgr;
  s->check_invariants = ss.check_invariants;
  s->verbose_cell_trace = ss.verbose_cell_trace;
  s->priority_scale = ss.priority_scale;
  s->larger_than_vc_reject = ss.reject_larger_than_vc;
  s->split_count_only_jobs = ss.split_count_only_jobs;
  s->borrow_idle_cells = ss.borrow_idle_cells;
  Status st = DupList(ss.opportunistic_qos, &s->opportunistic_qos, &s->n_opportunistic_qos);
  if (st.ok())
    st = DupList(ss.allow_removing_vcs, &s->allow_removing_vcs, &s->n_allow_removing_vcs);
  if (st.ok()) st = DupOut(ss.state_file, &s->state_file);
  return st;
}

void PinnedIds(const std::vector<hived::PhysicalCellSpec>& cells, std::vector<std::string>* out) {
  for (const auto& c : cells) {
    if (!c.pinned_id.empty() && std::find(out->begin(), out->end(), c.pinned_id) == out->end())
      out->push_back(c.pinned_id);
    PinnedIds(c.children, out);
  }
}
}  // namespace

hived_rc hived_settings_load(const char* config_json, hived_settings** out, char* errbuf,
                             size_t errlen) {
  if (out) *out = nullptr;
  return OnConfig(
      "hived_settings_load", config_json, errbuf, errlen, [&](const hived::Config& cfg) -> Status {
        if (!out) return Missing("out");
        hived_settings* s = static_cast<hived_settings*>(calloc(1, sizeof(hived_settings)));
        if (!s) return Status::Err(Code::kNoMem, "out of memory");
        Status st = FillSettings(cfg.slurm, s);
        if (!st.ok()) {
          hived_settings_free(s);
          return st;
        }
        *out = s;
        return st;
      });
}

void hived_settings_free(hived_settings* s) {
  if (!s) return;
  hived_strings_free(s->opportunistic_qos, s->n_opportunistic_qos);
  hived_strings_free(s->allow_removing_vcs, s->n_allow_removing_vcs);
  free(s->state_file);
  free(s);
}

hived_rc hived_config_names(const char* config_json, char*** cell_types, size_t* n_cell_types,
                            char*** pinned_ids, size_t* n_pinned_ids, char* errbuf, size_t errlen) {
  if (cell_types) *cell_types = nullptr;
  if (pinned_ids) *pinned_ids = nullptr;
  if (n_cell_types) *n_cell_types = 0;
  if (n_pinned_ids) *n_pinned_ids = 0;
  return OnConfig("hived_config_names", config_json, errbuf, errlen,
                  [&](const hived::Config& cfg) -> Status {
                    if (!cell_types || !pinned_ids || !n_cell_types || !n_pinned_ids)
                      return Missing("out");
                    std::vector<std::string> types, pinned;
                    for (const auto& t : cfg.cluster.cell_types) types.push_back(t.name);
                    PinnedIds(cfg.cluster.physical_cells, &pinned);
                    for (const auto& vc : cfg.cluster.vcs)
                      for (const auto& id : vc.pinned_cells)
                        if (std::find(pinned.begin(), pinned.end(), id) == pinned.end())
                          pinned.push_back(id);
                    Status st = DupList(types, cell_types, n_cell_types);
                    if (st.ok()) st = DupList(pinned, pinned_ids, n_pinned_ids);
                    if (!st.ok()) {
                      hived_strings_free(*cell_types, *n_cell_types);
                      *cell_types = nullptr;
                      *n_cell_types = 0;
                    }
                    return st;
                  });
}

hived_rc hived_config_warnings(const char* config_json, char** warnings, char* errbuf,
                               size_t errlen) {
  if (warnings) *warnings = nullptr;
  return OnConfig("hived_config_warnings", config_json, errbuf, errlen,
                  [&](const hived::Config& cfg) -> Status {
                    if (!warnings) return Missing("warnings");
                    std::string text;
                    for (const auto& w : cfg.warnings) text += w + "\n";
                    return DupOut(text, warnings);
                  });
}

}  // extern "C"
