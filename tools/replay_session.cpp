// SPDX-License-Identifier: GPL-2.0-or-later
#include "replay_session.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "replay_json.h"
#include "replay_request.h"

namespace hived_tools {
namespace {

const char *WaitKindName(hived_wait_kind k) {
  switch (k) {
    case HIVED_WAIT_NONE:
      return "none";
    case HIVED_WAIT_VC_QUOTA:
      return "vc-quota";
    case HIVED_WAIT_NO_CELL:
      return "no-cell";
    case HIVED_WAIT_PRIORITY:
      return "priority";
    case HIVED_WAIT_VC_TOO_SMALL:
      return "vc-too-small";
  }
  return "unknown";
}

// The event's job name when it is a usable string, so rejections still say which job.
const char *JobOf(const json_t *event) {
  const json_t *j = json_object_get(event, "job");
  return json_is_string(j) ? json_string_value(j) : nullptr;
}

// Rejects keys outside `allowed`, naming the first one.
std::string CheckKeys(const json_t *event, std::initializer_list<const char *> allowed) {
  const char *key;
  json_t *value;
  json_object_foreach(const_cast<json_t *>(event), key, value) {
    bool known = false;
    for (const char *a : allowed) known = known || strcmp(key, a) == 0;
    if (!known) return std::string(key) + ": unknown field";
  }
  return "";
}

std::string StringField(const json_t *event, const char *field, bool required, std::string *out,
                        bool *present) {
  const json_t *v = json_object_get(event, field);
  if (present != nullptr) *present = false;
  if (v == nullptr || json_is_null(v)) return required ? std::string(field) + ": missing" : "";
  if (!json_is_string(v)) return std::string(field) + ": expected a string";
  if (strlen(json_string_value(v)) != json_string_length(v)) {
    return std::string(field) + ": contains a NUL character";
  }
  *out = json_string_value(v);
  if (present != nullptr) *present = true;
  return "";
}

json_t *PlacementJson(const hived_pod *pods, size_t n) {
  json_t *a = json_array();
  for (size_t i = 0; i < n; i++) {
    json_t *pod = json_object();
    json_object_set_new(pod, "node", SafeString(pods[i].node_name));
    json_t *leaves = json_array();
    for (int32_t k = 0; k < pods[i].n_leaves && pods[i].leaves != nullptr; k++) {
      json_array_append_new(leaves, json_integer(pods[i].leaves[k]));
    }
    json_object_set_new(pod, "leaves", leaves);
    if (pods[i].n_fractions > 0 && pods[i].fractions != nullptr) {
      json_t *fractions = json_array();
      for (int32_t k = 0; k < pods[i].n_fractions; k++)
        json_array_append_new(fractions, json_integer(pods[i].fractions[k]));
      json_object_set_new(pod, "fractions", fractions);
    }
    json_array_append_new(a, pod);
  }
  return a;
}

bool ReadFile(const std::string &path, std::string *text, std::string *error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot read '" + path + "': " + strerror(errno);
    return false;
  }
  std::ostringstream s;
  s << in.rdbuf();
  *text = s.str();
  return true;
}

}  // namespace

json_t *Rejected(const char *job, const std::string &error) {
  json_t *out = json_object();
  if (job != nullptr) json_object_set_new(out, "job", SafeString(job));
  json_object_set_new(out, "result", json_string("rejected"));
  json_object_set_new(out, "error", SafeString(error.c_str()));
  return out;
}

ReplaySession::ReplaySession(hived_engine *engine, std::string base_dir)
    : engine_(engine), base_dir_(std::move(base_dir)) {}

ReplaySession::~ReplaySession() { hived_engine_free(engine_); }

std::optional<std::string> ReplaySession::Handle(const std::string &raw) {
  std::string line = raw;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  size_t first = line.find_first_not_of(" \t");
  if (first == std::string::npos || line[first] == '#') return std::nullopt;

  json_error_t err;
  JsonPtr event(json_loadb(line.data(), line.size(), JSON_REJECT_DUPLICATES, &err));
  JsonPtr out;
  if (!event) {
    out.reset(Rejected(nullptr, std::string("invalid JSON: ") + err.text + " at column " +
                                    std::to_string(err.column)));
  } else if (!json_is_object(event.get())) {
    out.reset(Rejected(nullptr, "expected a JSON object"));
  } else {
    out.reset(Dispatch(event.get()));
  }
  return DumpCompact(out.get());
}

json_t *ReplaySession::Dispatch(const json_t *event) {
  const json_t *op = json_object_get(event, "op");
  if (op == nullptr) return Rejected(JobOf(event), "op: missing");
  if (!json_is_string(op)) return Rejected(JobOf(event), "op: expected a string");
  std::string name = json_string_value(op);
  if (name == "submit") return Submit(event);
  if (name == "finish") return Finish(event);
  if (name == "node") return Node(event);
  if (name == "reconfigure") return Reconfigure(event);
  if (name == "inspect") return Inspect(event);
  if (name == "snapshot-roundtrip") return SnapshotRoundtrip(event);
  if (name == "add-running") return AddRunning(event);
  return Rejected(JobOf(event), "op: unknown operation '" + name + "'");
}

json_t *ReplaySession::EngineError(const char *job, hived_rc rc) const {
  const char *msg = hived_last_error(engine_);
  json_t *out = Rejected(job, msg != nullptr && *msg != '\0' ? msg : hived_rc_str(rc));
  json_object_set_new(out, "code", SafeString(hived_rc_str(rc)));
  return out;
}

json_t *ReplaySession::Submit(const json_t *event) {
  JobRequest r;
  std::string err = r.Parse(event, engine_, RequestKind::kSubmit);
  if (!err.empty()) return Rejected(JobOf(event), err);
  const char *job = r.job().c_str();
  const hived_decision *d = nullptr;
  hived_rc rc = hived_submit(engine_, &r.request(), r.dry_run() ? 1 : 0, &d);
  if (rc != HIVED_OK) return EngineError(job, rc);
  if (d == nullptr) return Rejected(job, "engine returned no decision");

  json_t *out = json_object();
  json_object_set_new(out, "job", SafeString(job));
  switch (d->outcome) {
    case HIVED_PLACED:
      json_object_set_new(out, "result", json_string("placed"));
      if (r.dry_run()) json_object_set_new(out, "dryRun", json_true());
      json_object_set_new(out, "placement", PlacementJson(d->pods, d->n_pods));
      json_object_set_new(out, "preempted", StringArray(d->preempted, d->n_preempted));
      json_object_set_new(out, "lazyPreempted",
                          StringArray(d->lazy_preempted, d->n_lazy_preempted));
      // Only when it did, so that the decisions of scenarios without it read as before.
      if (d->borrowed) json_object_set_new(out, "borrowed", json_true());
      if (!r.dry_run()) job_names_.insert(r.job());
      break;
    case HIVED_WAITING:
      json_object_set_new(out, "result", json_string("waiting"));
      json_object_set_new(out, "waitKind", json_string(WaitKindName(d->wait_kind)));
      json_object_set_new(out, "reason", SafeString(d->reason));
      // A waiting decision should not preempt; shown if it does so that tests catch it.
      if (d->n_preempted > 0) {
        json_object_set_new(out, "preempted", StringArray(d->preempted, d->n_preempted));
      }
      if (d->n_lazy_preempted > 0) {
        json_object_set_new(out, "lazyPreempted",
                            StringArray(d->lazy_preempted, d->n_lazy_preempted));
      }
      break;
    case HIVED_REJECTED:
    default:
      json_object_set_new(out, "result", json_string("rejected"));
      json_object_set_new(out, "error", SafeString(d->reason));
      break;
  }
  return out;
}

json_t *ReplaySession::AddRunning(const json_t *event) {
  JobRequest r;
  std::string err = r.Parse(event, engine_, RequestKind::kAddRunning);
  if (!err.empty()) return Rejected(JobOf(event), err);
  int demoted = 0;
  hived_rc rc =
      hived_add_running(engine_, &r.request(), r.pods().data(), r.pods().size(), &demoted);
  if (rc != HIVED_OK) return EngineError(r.job().c_str(), rc);
  job_names_.insert(r.job());
  json_t *out = json_object();
  json_object_set_new(out, "job", SafeString(r.job().c_str()));
  json_object_set_new(out, "result", json_string("running"));
  json_object_set_new(out, "demoted", json_boolean(demoted != 0));
  // GPUs the config does not have, left out of the job instead of refusing it.
  if (hived_last_error(engine_)[0] != '\0')
    json_object_set_new(out, "dropped", SafeString(hived_last_error(engine_)));
  return out;
}

json_t *ReplaySession::Finish(const json_t *event) {
  std::string err = CheckKeys(event, {"op", "job"}), job;
  if (err.empty()) err = StringField(event, "job", true, &job, nullptr);
  if (!err.empty()) return Rejected(JobOf(event), err);
  hived_rc rc = hived_finish(engine_, job.c_str());
  if (rc != HIVED_OK) return EngineError(job.c_str(), rc);
  json_t *out = json_object();
  json_object_set_new(out, "job", SafeString(job.c_str()));
  json_object_set_new(out, "result", json_string("finished"));
  // As select/hived does after each job's end. Always there, so that a scenario can
  // say "none" with [].
  size_t n = 0;
  rc = hived_promote(engine_, &n);
  if (rc != HIVED_OK) return EngineError(job.c_str(), rc);
  json_t *promoted = json_array();
  for (size_t i = 0; i < n; i++)
    json_array_append_new(promoted, SafeString(hived_promoted_name(engine_, i)));
  json_object_set_new(out, "promoted", promoted);
  return out;
}

json_t *ReplaySession::Node(const json_t *event) {
  std::string err = CheckKeys(event, {"op", "node", "state"}), node, state;
  if (err.empty()) err = StringField(event, "node", true, &node, nullptr);
  if (err.empty()) err = StringField(event, "state", true, &state, nullptr);
  if (err.empty() && state != "bad" && state != "healthy") {
    err = "state: expected \"bad\" or \"healthy\", got '" + state + "'";
  }
  if (!err.empty()) return Rejected(nullptr, err);
  hived_rc rc = hived_set_node_health(engine_, node.c_str(), state == "healthy" ? 1 : 0);
  if (rc != HIVED_OK) return EngineError(nullptr, rc);
  json_t *out = json_object();
  json_object_set_new(out, "result", json_string("ok"));
  json_object_set_new(out, "node", SafeString(node.c_str()));
  json_object_set_new(out, "state", SafeString(state.c_str()));
  return out;
}

json_t *ReplaySession::Reconfigure(const json_t *event) {
  std::string err = CheckKeys(event, {"op", "config"}), path, text;
  if (err.empty()) err = StringField(event, "config", true, &path, nullptr);
  if (!err.empty()) return Rejected(nullptr, err);
  if (!path.empty() && path[0] != '/' && !base_dir_.empty()) path = base_dir_ + "/" + path;
  if (!ReadFile(path, &text, &err)) return Rejected(nullptr, "config: " + err);
  char *report = nullptr;
  hived_rc rc = hived_reconfigure_ex(engine_, text.c_str(), 0, nullptr, 0, &report);
  CString report_owner(report);
  if (rc != HIVED_OK) return EngineError(nullptr, rc);
  std::string perr;
  JsonPtr parsed = ParseText(report != nullptr ? report : "", &perr);
  if (!parsed || !json_is_object(parsed.get()))
    return Rejected(nullptr, "engine returned an invalid reconfigure report: " + perr);
  json_t *out = json_object();
  json_object_set_new(out, "result", json_string("ok"));
  // "lazyPreempted" as before; "promoted" and "dropped" only when there are any, so
  // that older expected lines still match exactly.
  json_object_set(out, "lazyPreempted", json_object_get(parsed.get(), "demoted"));
  for (const char *key : {"promoted", "dropped"}) {
    json_t *list = json_object_get(parsed.get(), key);
    if (json_array_size(list) > 0) json_object_set(out, key, list);
  }
  return out;
}

json_t *ReplaySession::Inspect(const json_t *event) {
  std::string err = CheckKeys(event, {"op", "vc", "job"}), vc, job;
  bool has_vc = false, has_job = false;
  if (err.empty()) err = StringField(event, "vc", false, &vc, &has_vc);
  if (err.empty()) err = StringField(event, "job", false, &job, &has_job);
  if (err.empty() && has_vc && has_job) err = "job: give either vc or job, not both";
  if (!err.empty()) return Rejected(nullptr, err);
  char *text = nullptr;
  hived_rc rc = has_job ? hived_inspect_job(engine_, job.c_str(), &text)
                        : hived_inspect(engine_, has_vc ? vc.c_str() : nullptr, &text);
  CString owner(text);
  if (rc != HIVED_OK) return EngineError(has_job ? job.c_str() : nullptr, rc);
  if (text == nullptr) return Rejected(nullptr, "engine returned no status");
  JsonPtr status = ParseText(text, &err);
  if (!status) return Rejected(nullptr, "engine returned invalid status JSON: " + err);
  return status.release();
}

std::string ReplaySession::CompareInspect(const hived_engine *a, const hived_engine *b,
                                          std::string *left, std::string *right) {
  auto inspect = [](const hived_engine *e, const char *vc, const char *job) {
    char *text = nullptr;
    hived_rc rc = job != nullptr ? hived_inspect_job(e, job, &text) : hived_inspect(e, vc, &text);
    CString owner(text);
    if (rc != HIVED_OK || text == nullptr) return std::string("error: ") + hived_rc_str(rc);
    return std::string(text);
  };
  auto differ = [&](const std::string &what, const char *vc, const char *job) {
    *left = inspect(a, vc, job);
    *right = inspect(b, vc, job);
    return *left != *right ? what : std::string();
  };
  std::string diff = differ("cluster", nullptr, nullptr);
  if (!diff.empty()) return diff;

  for (auto it = job_names_.begin(); it != job_names_.end();) {
    bool in_a = hived_job_exists(a, it->c_str()) != 0;
    if (in_a != (hived_job_exists(b, it->c_str()) != 0)) {
      *left = in_a ? "exists" : "absent";
      *right = in_a ? "absent" : "exists";
      return "job " + *it;
    }
    it = in_a ? std::next(it) : job_names_.erase(it);
  }
  std::set<std::string> jobs = job_names_;
  std::string perr;
  JsonPtr cluster = ParseText(*left, &perr);
  const json_t *vcs = cluster ? json_object_get(cluster.get(), "vcs") : nullptr;
  size_t i;
  json_t *v;
  json_array_foreach(vcs, i, v) {
    const json_t *name = json_object_get(v, "vc");
    if (!json_is_string(name)) continue;
    diff = differ("vc " + std::string(json_string_value(name)), json_string_value(name), nullptr);
    if (!diff.empty()) return diff;
    JsonPtr status = ParseText(*left, &perr);
    const json_t *vc_jobs = status ? json_object_get(status.get(), "jobs") : nullptr;
    size_t k;
    json_t *j;
    json_array_foreach(vc_jobs, k, j) {
      if (json_is_string(j)) jobs.insert(json_string_value(j));
    }
  }
  for (const std::string &job : jobs) {
    diff = differ("job " + job, nullptr, job.c_str());
    if (!diff.empty()) return diff;
  }
  left->clear();
  right->clear();
  return "";
}

json_t *ReplaySession::SnapshotRoundtrip(const json_t *event) {
  std::string err = CheckKeys(event, {"op"});
  if (!err.empty()) return Rejected(nullptr, err);
  const bool failed_before = roundtrip_failed_;
  roundtrip_failed_ = true;  // until proven identical
  char *snap = nullptr;
  hived_rc rc = hived_snapshot(engine_, &snap);
  CString snap_owner(snap);
  if (rc != HIVED_OK || snap == nullptr) {
    json_t *out = EngineError(nullptr, rc);
    json_object_set_new(out, "identical", json_false());
    return out;
  }
  hived_engine *restored = nullptr;
  char errbuf[1024] = "";
  rc = hived_engine_restore(snap, &restored, errbuf, sizeof errbuf);
  if (rc != HIVED_OK || restored == nullptr) {
    json_t *out = Rejected(nullptr, std::string("restore: ") + errbuf);
    json_object_set_new(out, "code", SafeString(hived_rc_str(rc)));
    json_object_set_new(out, "identical", json_false());
    return out;
  }
  std::string left, right;
  std::string diff = CompareInspect(engine_, restored, &left, &right);
  char *snap2 = nullptr;
  bool snapshot_identical =
      hived_snapshot(restored, &snap2) == HIVED_OK && snap2 != nullptr && strcmp(snap, snap2) == 0;
  free(snap2);
  // Continue with the restored engine so later events test it, not the original.
  hived_engine_free(engine_);
  engine_ = restored;

  json_t *out = json_object();
  json_object_set_new(out, "result", json_string("ok"));
  json_object_set_new(out, "identical", json_boolean(diff.empty()));
  json_object_set_new(out, "snapshotIdentical", json_boolean(snapshot_identical));
  if (!diff.empty()) {
    json_object_set_new(out, "difference", SafeString(diff.c_str()));
    json_object_set_new(out, "before", SafeString(left.c_str()));
    json_object_set_new(out, "after", SafeString(right.c_str()));
  }
  roundtrip_failed_ = failed_before || !diff.empty();
  return out;
}

std::string ReplaySession::CheckInvariants() const {
  char errbuf[2048] = "";
  hived_rc rc = hived_check_invariants(engine_, errbuf, sizeof errbuf);
  if (rc == HIVED_OK) return "";
  if (errbuf[0] != '\0') return errbuf;
  return hived_rc_str(rc);
}

}  // namespace hived_tools
