// SPDX-License-Identifier: GPL-2.0-or-later
// hived_whatif: a job that is only asked about. Everything runs as hived_will_run's
// trials, which undo themselves, so the caller's engine (a live one, or hivedctl's
// private one) ends as it was; the answer is JSON because its readers are a CLI and
// scripts.
#include <jansson.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "api/guard.h"
#include "core/json_writer.h"
#include "hived.h"

namespace {

struct JsonDel {
  void operator()(json_t* j) const { json_decref(j); }
};
using JsonPtr = std::unique_ptr<json_t, JsonDel>;

// hived_inspect*/JSON text → parsed value (NULL on any failure).
JsonPtr Parsed(hived_rc rc, char* text) {
  JsonPtr j(rc == HIVED_OK && text ? json_loads(text, 0, nullptr) : nullptr);
  free(text);
  return j;
}

int64_t NeededLeaves(const hived_job_request* req) {
  int64_t n = 0;
  for (size_t i = 0; i < req->n_members; i++)
    n += int64_t{req->members[i].pod_number} * req->members[i].leaf_cell_number;
  return n;
}

// One word per cause a user can act on. The engine's wait kinds are coarser (a
// shape that does not fit and GPUs that are bad are both "no cell"); its reasons
// name the finer cause in fixed words (src/core/schedule.cpp WaitReason).
const char* Cause(const hived_decision* d, bool guaranteed) {
  if (d->outcome == HIVED_PLACED) return "none";
  if (d->outcome == HIVED_REJECTED) return "rejected";
  const std::string r = d->reason ? d->reason : "";
  switch (d->wait_kind) {
    case HIVED_WAIT_VC_QUOTA:
      return "vcQuotaInUse";
    case HIVED_WAIT_PRIORITY:
      return "higherPriority";
    case HIVED_WAIT_VC_TOO_SMALL:
      return "largerThanVc";
    default:
      break;
  }
  if (!guaranteed) return "noIdleCell";
  if (r.find("no healthy, allowed physical GPUs") != std::string::npos) return "noHealthyCell";
  if (r.find("only on nodes it may not use") != std::string::npos) return "nodesNotAllowed";
  if (r.find("but not in cells of that shape") != std::string::npos) return "fragmented";
  return "noCell";
}

// What a victim is, from the engine before the job: VC, class, GPUs.
void WriteVictim(const hived_engine* e, const char* job, bool lazy, hived::JsonOut* j) {
  char* text = nullptr;
  const hived_rc rc = hived_inspect_job(e, job, &text);
  JsonPtr v = Parsed(rc, text);
  j->Open('{').Key("job").Val(job);
  json_t* vc = v ? json_object_get(v.get(), "vc") : nullptr;
  json_t* cls = v ? json_object_get(v.get(), "class") : nullptr;
  j->Key("vc").Val(json_is_string(vc) ? json_string_value(vc) : "");
  j->Key("class").Val(json_is_string(cls) ? json_string_value(cls) : "");
  int64_t gpus = 0;
  size_t i;
  json_t* pod;
  json_array_foreach(v ? json_object_get(v.get(), "placement") : nullptr, i, pod) {
    gpus += static_cast<int64_t>(json_array_size(json_object_get(pod, "leaves")));
  }
  j->Key("gpus").Val(gpus).Key("lazy").Bool(lazy).Close('}');
}

void WritePlacement(const hived_decision* d, hived::JsonOut* j) {
  j->Key("placement").Open('[');
  for (size_t p = 0; p < d->n_pods; p++) {
    j->Open('{').Key("node").Val(d->pods[p].node_name).Key("leaves").Open('[');
    for (int32_t k = 0; k < d->pods[p].n_leaves; k++) j->Val(d->pods[p].leaves[k]);
    j->Close(']').Close('}');
  }
  j->Close(']');
}

// gone: jobs that will have ended by then (an estimate's victims may name them: where
// the VC's guarantee answers, the trial leaves other work running; design.md).
void WritePreempts(const hived_engine* e, const hived_decision* d, hived::JsonOut* j,
                   const std::set<std::string>& gone = {}) {
  j->Key("preempts").Open('[');
  for (size_t i = 0; i < d->n_preempted; i++)
    if (!gone.count(d->preempted[i])) WriteVictim(e, d->preempted[i], false, j);
  for (size_t i = 0; i < d->n_lazy_preempted; i++)
    if (!gone.count(d->lazy_preempted[i])) WriteVictim(e, d->lazy_preempted[i], true, j);
  j->Close(']');
}

// Doomed cells of a VC: its cells no healthy free physical cell can serve.
int64_t DoomedCells(const hived_engine* e, const char* vc) {
  if (!vc) return 0;
  char* text = nullptr;
  const hived_rc rc = hived_inspect(e, vc, &text);
  JsonPtr v = Parsed(rc, text);
  int64_t n = 0;
  size_t i;
  json_t* c;
  json_array_foreach(v ? json_object_get(v.get(), "cells") : nullptr, i, c) {
    n += json_integer_value(json_object_get(c, "doomed"));
  }
  return n;
}

struct Ending {
  std::string job;
  int64_t end;
};

// Backfill's way (hived_will_run, as select_hooks.c asks it): the running jobs end in
// the order their end times say, the job is asked again after each end time, and the
// first time it fits is the estimate. Jobs without an end time never end here; end
// times already past count as now.
void WriteEstimate(hived_engine* e, const hived_job_request* req, const hived_job_end* ends,
                   size_t n_ends, int64_t now, const char* cause, hived::JsonOut* j) {
  j->Key("estimate").Open('{');
  if (!strcmp(cause, "rejected") || !strcmp(cause, "largerThanVc")) {
    j->Key("start").Raw("null").Key("why").Val(
        !strcmp(cause, "rejected")
            ? "no end of running jobs makes the job fit: it can never run as asked"
            : "no end of running jobs makes a VC bigger: it starts once its quota grows");
    j->Close('}');
    return;
  }
  std::vector<Ending> order;
  for (size_t i = 0; i < n_ends; i++) {
    if (!ends[i].job || !hived_job_exists(e, ends[i].job)) continue;
    if (ends[i].end <= 0) continue;
    order.push_back({ends[i].job, std::max(ends[i].end, now)});
  }
  const char* const* names = nullptr;
  size_t n_jobs = hived_job_list(e, &names);
  size_t unknown = n_jobs > order.size() ? n_jobs - order.size() : 0;
  std::stable_sort(order.begin(), order.end(),
                   [](const Ending& a, const Ending& b) { return a.end < b.end; });
  std::vector<hived_job_end> clamped;
  for (const auto& o : order) clamped.push_back({o.job.c_str(), o.end});
  const hived_decision* d = nullptr;
  int64_t start = -1;
  if (hived_will_run(e, req, clamped.data(), clamped.size(), &start, &d) == HIVED_OK && d &&
      d->outcome == HIVED_PLACED && start > 0) {
    j->Key("start").Val(start).Key("afterJobs").Open('[');
    std::set<std::string> gone;
    for (const auto& o : order)
      if (o.end <= start) {
        j->Val(o.job);
        gone.insert(o.job);
      }
    j->Close(']');
    if (d->borrowed) j->Key("borrowed").Bool(true);
    WritePlacement(d, j);
    WritePreempts(e, d, j, gone);
    j->Close('}');
    return;
  }
  std::string why = "the running jobs' end times never free cells of that shape";
  if (unknown)
    why += " (" + std::to_string(unknown) + " running job" + (unknown == 1 ? " has" : "s have") +
           " no known end time)";
  j->Key("start").Raw("null").Key("why").Val(why).Close('}');
}

// The answer for a request the engine refuses, or for a failure: the sentence goes
// where the caller looks for errors.
char* ErrorJson(const std::string& msg) noexcept {
  try {
    hived::JsonOut j;
    j.Open('{').Key("error").Val(msg).Close('}');
    char* out = nullptr;
    (void)hived::api::DupOut(j.str(), &out);
    return out;
  } catch (...) {
    return nullptr;
  }
}

// The answer for a request the engine accepts.
std::string Answer(hived_engine* live, const hived_job_request* req, const hived_decision* d,
                   const hived_job_end* ends, size_t n_ends, int64_t now) {
  const hived_engine* e = live;
  const bool guaranteed = req->priority >= 0 && req->vc;
  const char* cause = Cause(d, guaranteed);
  hived::JsonOut j;
  j.Open('{').Key("job").Val(req->job ? req->job : "");
  j.Key("vc").Val(req->vc ? req->vc : "");
  j.Key("class").Val(guaranteed ? "guaranteed" : "opportunistic");
  j.Key("priority").Val(req->priority);
  j.Key("gpus").Val(NeededLeaves(req));
  j.Key("vcFreeGpus").Val(req->vc ? hived_vc_free_leaves(e, req->vc) : int64_t{-1});
  j.Key("startsNow").Bool(d->outcome == HIVED_PLACED);
  j.Key("outcome").Val(d->outcome == HIVED_PLACED    ? "placed"
                       : d->outcome == HIVED_WAITING ? "waiting"
                                                     : "rejected");
  j.Key("cause").Val(cause);
  j.Key("reason").Val(d->reason ? d->reason : "");
  if (!strcmp(cause, "noHealthyCell")) j.Key("doomedCells").Val(DoomedCells(e, req->vc));
  if (d->outcome == HIVED_PLACED) {
    if (d->borrowed) j.Key("borrowed").Bool(true);
    WritePlacement(d, &j);
    WritePreempts(e, d, &j);
  } else {
    WriteEstimate(live, req, ends, n_ends, now, cause, &j);
  }
  j.Close('}');
  return j.str();
}

}  // namespace

extern "C" hived_rc hived_whatif(const hived_engine* e, const hived_job_request* req,
                                 const hived_job_end* ends, size_t n_ends, int64_t now,
                                 char** json) {
  if (!json) return HIVED_EINVAL;
  *json = nullptr;
  // hived_will_run undoes every change it makes: e's state is as before, so e may be
  // asked as const (but not from two threads at once).
  hived_engine* live = const_cast<hived_engine*>(e);
  std::string msg;
  const hived_rc rc =
      hived::api::Guard("hived_whatif", hived::api::ErrSink(&msg), [&]() -> hived::Status {
        if (!e) return hived::api::Missing("engine");
        if (!req) return hived::api::Missing("request");
        if (n_ends && !ends) return hived::Status::Err(hived::Code::kInval, "ends: NULL");
        const hived_decision* d = nullptr;
        int64_t start = -1;
        hived_rc wrc = hived_will_run(live, req, nullptr, 0, &start, &d);
        // The request itself is wrong (unknown cell type, pinned cell of another VC).
        if (wrc != HIVED_OK)
          return hived::Status::Err(hived::api::FromRc(wrc), hived_last_error(e));
        return hived::api::DupOut(Answer(live, req, d, ends, n_ends, now), json);
      });
  if (rc != HIVED_OK) *json = ErrorJson(msg);
  return rc;
}
