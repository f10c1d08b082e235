// SPDX-License-Identifier: GPL-2.0-or-later
#include "api/snapshot_load.h"

#include <jansson.h>

#include <cstdlib>
#include <memory>

namespace hived {
namespace {

struct JsonDel {
  void operator()(json_t* j) const { json_decref(j); }
};
using JsonPtr = std::unique_ptr<json_t, JsonDel>;

bool GetString(json_t* o, const char* key, std::string* out, bool required = true) {
  json_t* v = json_object_get(o, key);
  if (!v) return !required;
  if (!json_is_string(v)) return false;
  *out = json_string_value(v);
  return true;
}

bool GetInt(json_t* o, const char* key, json_int_t lo, json_int_t hi, json_int_t* out) {
  json_t* v = json_object_get(o, key);
  if (!json_is_integer(v)) return false;
  json_int_t x = json_integer_value(v);
  if (x < lo || x > hi) return false;
  *out = x;
  return true;
}

std::string ParseJob(json_t* o, const std::string& where, SnapshotJob* sj) {
  if (!json_is_object(o)) return where + ": must be an object";
  RunningJob& rj = sj->job;
  json_int_t prio = 0, seq = 0;
  if (!GetString(o, "job", &rj.req.job) || rj.req.job.empty())
    return where + ".job: must be a non-empty string";
  if (!GetString(o, "vc", &rj.req.vc)) return where + ".vc: must be a string";
  if (!GetInt(o, "priority", -1, 1000, &prio))
    return where + ".priority: must be an integer -1..1000";
  rj.req.priority = static_cast<int>(prio);
  if (!GetInt(o, "seq", 0, (json_int_t{1} << 62), &seq))
    return where + ".seq: must be a non-negative integer";
  rj.seq = static_cast<uint64_t>(seq);
  json_t* b = json_object_get(o, "lazyPreemptionEnable");
  if (!json_is_boolean(b)) return where + ".lazyPreemptionEnable: must be true or false";
  rj.req.lazy = json_is_true(b);
  b = json_object_get(o, "demoted");
  if (!json_is_boolean(b)) return where + ".demoted: must be true or false";
  rj.demoted = json_is_true(b);
  // Absent in state files written before it existed: demoted by preemption.
  b = json_object_get(o, "demotedByConfig");
  if (b && !json_is_boolean(b)) return where + ".demotedByConfig: must be true or false";
  rj.demoted_by_config = rj.demoted && json_is_true(b);
  // Absent but for jobs that started outside their VC's cells (Request::borrow_idle).
  b = json_object_get(o, "borrowed");
  if (b && !json_is_boolean(b)) return where + ".borrowed: must be true or false";
  rj.borrowed = rj.demoted && !rj.demoted_by_config && json_is_true(b);
  if (!GetString(o, "pinnedCellId", &rj.req.pinned_id, false))
    return where + ".pinnedCellId: must be a string";
  if (!GetString(o, "leafCellType", &rj.req.leaf_type, false))
    return where + ".leafCellType: must be a string";
  json_t* pl = json_object_get(o, "placement");
  if (!json_is_array(pl) || json_array_size(pl) == 0)
    return where + ".placement: must be a non-empty array";
  size_t i;
  json_t* pod;
  json_array_foreach(pl, i, pod) {
    std::string pw = where + ".placement[" + std::to_string(i) + "]";
    std::string node;
    if (!json_is_object(pod) || !GetString(pod, "node", &node))
      return pw + ".node: must be a string";
    json_t* leaves = json_object_get(pod, "leaves");
    if (!json_is_array(leaves) || json_array_size(leaves) == 0)
      return pw + ".leaves: must be a non-empty array";
    PlacedPod pp;
    size_t k;
    json_t* g;
    json_array_foreach(leaves, k, g) {
      if (!json_is_integer(g) || json_integer_value(g) < 0 || json_integer_value(g) > 999999)
        return pw + ".leaves[" + std::to_string(k) + "]: must be a GPU index";
      pp.gpus.push_back(static_cast<int32_t>(json_integer_value(g)));
    }
    json_t* fr = json_object_get(pod, "fractions");
    if (fr && !json_is_array(fr)) return pw + ".fractions: must be an array of fraction slots";
    json_array_foreach(fr, k, g) {
      if (!json_is_integer(g) || json_integer_value(g) < 0 || json_integer_value(g) > (1 << 24))
        return pw + ".fractions[" + std::to_string(k) + "]: must be a fraction slot";
      pp.fractions.push_back(static_cast<int32_t>(json_integer_value(g)));
    }
    rj.pods.push_back(std::move(pp));
    sj->node_names.push_back(node);
  }
  json_t* vl = json_object_get(o, "vleaves");
  if (!json_is_array(vl)) return where + ".vleaves: must be an array";
  json_t* v;
  json_array_foreach(vl, i, v) {
    if (!json_is_integer(v) || json_integer_value(v) < 0 ||
        json_integer_value(v) > (json_int_t{1} << 30))
      return where + ".vleaves[" + std::to_string(i) + "]: must be a cell id";
    rj.vleaves.push_back(static_cast<VCellId>(json_integer_value(v)));
  }
  return "";
}

std::string ParseText(const std::string& text, SnapshotData* out) {
  json_error_t err;
  JsonPtr root(json_loadb(text.data(), text.size(), JSON_REJECT_DUPLICATES, &err));
  if (!root)
    return "snapshot: not valid JSON at line " + std::to_string(err.line) + " column " +
           std::to_string(err.column) + ": " + err.text;
  if (!json_is_object(root.get())) return "snapshot: must be a JSON object";
  json_int_t version = 0;
  if (!GetInt(root.get(), "version", 1, 1, &version)) return "snapshot.version: must be 1";
  json_t* cfg = json_object_get(root.get(), "config");
  if (!json_is_object(cfg)) return "snapshot.config: must be an object";
  char* dumped = json_dumps(cfg, JSON_COMPACT | JSON_PRESERVE_ORDER);
  if (!dumped) return "snapshot.config: cannot be re-encoded";
  out->config_text = dumped;
  free(dumped);
  json_t* state = json_object_get(root.get(), "state");
  if (!json_is_object(state)) return "snapshot.state: must be an object";
  json_t* bad = json_object_get(state, "badNodes");
  if (!json_is_array(bad)) return "snapshot.state.badNodes: must be an array";
  size_t i;
  json_t* v;
  json_array_foreach(bad, i, v) {
    if (!json_is_string(v))
      return "snapshot.state.badNodes[" + std::to_string(i) + "]: must be a string";
    out->bad_nodes.push_back(json_string_value(v));
  }
  json_t* jobs = json_object_get(state, "jobs");
  if (!json_is_array(jobs)) return "snapshot.state.jobs: must be an array";
  json_array_foreach(jobs, i, v) {
    SnapshotJob sj;
    std::string e = ParseJob(v, "snapshot.state.jobs[" + std::to_string(i) + "]", &sj);
    if (!e.empty()) return e;
    out->jobs.push_back(std::move(sj));
  }
  json_t* waiting = json_object_get(state, "waiting");  // absent in older snapshots
  if (waiting && !json_is_array(waiting)) return "snapshot.state.waiting: must be an array";
  json_array_foreach(waiting, i, v) {
    const char* job = json_string_value(json_object_get(v, "job"));
    const char* vc = json_string_value(json_object_get(v, "vc"));
    if (!job || !vc)
      return "snapshot.state.waiting[" + std::to_string(i) + "]: needs string job and vc";
    SnapshotData::Waiting w{job, vc};
    json_t* prio = json_object_get(v, "priority");
    if (prio) {
      if (!json_is_integer(prio) || json_integer_value(prio) < 0 || json_integer_value(prio) > 1000)
        return "snapshot.state.waiting[" + std::to_string(i) + "].priority: must be 0..1000";
      w.priority = static_cast<int>(json_integer_value(prio));
    }
    out->waiting.push_back(std::move(w));
  }
  return "";
}

}  // namespace

Status ParseSnapshot(const std::string& text, SnapshotData* out) {
  std::string err = ParseText(text, out);
  return err.empty() ? Status::Ok() : Status::Err(Code::kInval, err);
}

bool SameJson(const std::string& a, const std::string& b) {
  json_error_t err;
  JsonPtr ja(json_loadb(a.data(), a.size(), 0, &err));
  JsonPtr jb(json_loadb(b.data(), b.size(), 0, &err));
  return ja && jb && json_equal(ja.get(), jb.get());
}

std::string ComposeSnapshot(const std::string& config_text, const std::string& state_json) {
  json_error_t err;
  JsonPtr cfg(config_text.find_first_not_of(" \t\r\n") == std::string::npos
                  ? json_object()
                  : json_loadb(config_text.data(), config_text.size(), 0, &err));
  JsonPtr state(json_loadb(state_json.data(), state_json.size(), 0, &err));
  if (!cfg || !state) return "";
  JsonPtr root(json_object());
  json_object_set_new(root.get(), "version", json_integer(1));
  json_object_set(root.get(), "config", cfg.get());
  json_object_set(root.get(), "state", state.get());
  char* s = json_dumps(root.get(), JSON_COMPACT | JSON_PRESERVE_ORDER);
  if (!s) return "";
  std::string r(s);
  free(s);
  return r;
}

}  // namespace hived
