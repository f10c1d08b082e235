// SPDX-License-Identifier: GPL-2.0-or-later
#include "replay_request.h"

#include <cstring>
#include <limits>

namespace hived_tools {
namespace {

// Only shape is checked here; value ranges (priority, counts) are left to the engine so
// that its own validation is exercised by the scenarios and by fuzzing.
std::string ReadInt32(const json_t *v, const std::string &field, int32_t *out) {
  if (!json_is_integer(v)) return field + ": expected an integer";
  json_int_t x = json_integer_value(v);
  if (x < std::numeric_limits<int32_t>::min() || x > std::numeric_limits<int32_t>::max()) {
    return field + ": " + std::to_string(x) + " is out of range";
  }
  *out = static_cast<int32_t>(x);
  return "";
}

std::string ReadBool(const json_t *v, const std::string &field, bool *out) {
  if (!json_is_boolean(v)) return field + ": expected true or false";
  *out = json_is_true(v);
  return "";
}

std::string ReadString(const json_t *v, const std::string &field, std::string *out) {
  if (!json_is_string(v)) return field + ": expected a string";
  // Engine names are C strings: an embedded NUL would silently truncate them.
  if (strlen(json_string_value(v)) != json_string_length(v)) {
    return field + ": contains a NUL character";
  }
  *out = json_string_value(v);
  return "";
}

bool IsKnownKey(const char *key, RequestKind kind) {
  static const char *const kCommon[] = {"op",
                                        "job",
                                        "vc",
                                        "priority",
                                        "leafCellType",
                                        "pinnedCellId",
                                        "withinCellType",
                                        "podWithinCellType",
                                        "lazyPreemptionEnable",
                                        "distinctNodes",
                                        "splitMaxPods",
                                        "borrowIdleCells",
                                        "allowedNodes",
                                        "members"};
  for (const char *k : kCommon) {
    if (strcmp(key, k) == 0) return true;
  }
  if (kind == RequestKind::kSubmit) return strcmp(key, "dryRun") == 0;
  return strcmp(key, "placement") == 0;
}

}  // namespace

std::string JobRequest::Parse(const json_t *event, const hived_engine *engine, RequestKind kind) {
  const char *key;
  json_t *value;
  json_object_foreach(const_cast<json_t *>(event), key, value) {
    if (!IsKnownKey(key, kind)) return std::string(key) + ": unknown field";
  }
  std::string err;
  const json_t *v = json_object_get(event, "job");
  if (v == nullptr) return "job: missing";
  if (!(err = ReadString(v, "job", &job_)).empty()) return err;

  if ((v = json_object_get(event, "vc")) != nullptr && !json_is_null(v)) {
    if (!(err = ReadString(v, "vc", &vc_)).empty()) return err;
    has_vc_ = true;
  }
  if ((v = json_object_get(event, "priority")) != nullptr) {
    if (!(err = ReadInt32(v, "priority", &priority_)).empty()) return err;
  }
  struct OptString {
    const char *field;
    std::string *value;
    bool *present;
  } const opt_strings[] = {
      {"leafCellType", &leaf_cell_type_, &has_leaf_cell_type_},
      {"pinnedCellId", &pinned_cell_id_, &has_pinned_cell_id_},
      {"withinCellType", &within_cell_type_, &has_within_cell_type_},
      {"podWithinCellType", &pod_within_cell_type_, &has_pod_within_cell_type_},
  };
  for (const OptString &o : opt_strings) {
    if ((v = json_object_get(event, o.field)) != nullptr && !json_is_null(v)) {
      if (!(err = ReadString(v, o.field, o.value)).empty()) return err;
      *o.present = true;
    }
  }
  struct OptBool {
    const char *field;
    bool *value;
  } const opt_bools[] = {
      {"lazyPreemptionEnable", &lazy_preemption_},
      {"distinctNodes", &distinct_nodes_},
      {"borrowIdleCells", &borrow_idle_},
      {"dryRun", &dry_run_},
  };
  for (const OptBool &o : opt_bools) {
    if ((v = json_object_get(event, o.field)) != nullptr) {
      if (!(err = ReadBool(v, o.field, o.value)).empty()) return err;
    }
  }
  if ((v = json_object_get(event, "splitMaxPods")) != nullptr) {
    if (!(err = ReadInt32(v, "splitMaxPods", &split_max_pods_)).empty()) return err;
  }
  if ((v = json_object_get(event, "members")) == nullptr) return "members: missing";
  if (!(err = ParseMembers(v)).empty()) return err;
  if ((v = json_object_get(event, "allowedNodes")) != nullptr && !json_is_null(v)) {
    if (!(err = ParseAllowedNodes(v, engine)).empty()) return err;
  }
  if (kind == RequestKind::kAddRunning) {
    if ((v = json_object_get(event, "placement")) == nullptr) return "placement: missing";
    if (!(err = ParsePlacement(v, engine)).empty()) return err;
  }
  Link();
  return "";
}

std::string JobRequest::ParseMembers(const json_t *members) {
  if (!json_is_array(members)) return "members: expected an array";
  size_t i;
  json_t *m;
  json_array_foreach(members, i, m) {
    std::string where = "members[" + std::to_string(i) + "]";
    if (!json_is_object(m)) return where + ": expected an object";
    const char *key;
    json_t *value;
    json_object_foreach(m, key, value) {
      if (strcmp(key, "podNumber") != 0 && strcmp(key, "leafCellNumber") != 0 &&
          strcmp(key, "fractionNumber") != 0) {
        return where + "." + key + ": unknown field";
      }
    }
    hived_member hm{};
    const json_t *v = json_object_get(m, "podNumber");
    if (v == nullptr) return where + ".podNumber: missing";
    std::string err = ReadInt32(v, where + ".podNumber", &hm.pod_number);
    if (!err.empty()) return err;
    // fractionNumber (fractions of one GPU) stands in for leafCellNumber (whole GPUs).
    const json_t *f = json_object_get(m, "fractionNumber");
    if (f != nullptr &&
        !(err = ReadInt32(f, where + ".fractionNumber", &hm.fraction_number)).empty()) {
      return err;
    }
    if ((v = json_object_get(m, "leafCellNumber")) == nullptr) {
      if (f == nullptr) return where + ".leafCellNumber: missing";
    } else if (!(err = ReadInt32(v, where + ".leafCellNumber", &hm.leaf_cell_number)).empty()) {
      return err;
    }
    members_.push_back(hm);
  }
  return "";
}

std::string JobRequest::ParseAllowedNodes(const json_t *nodes, const hived_engine *engine) {
  if (!json_is_array(nodes)) return "allowedNodes: expected an array of node names";
  allowed_nodes_.assign(hived_node_count(engine), 0);
  size_t i;
  json_t *n;
  json_array_foreach(nodes, i, n) {
    std::string where = "allowedNodes[" + std::to_string(i) + "]";
    std::string name, err = ReadString(n, where, &name);
    if (!err.empty()) return err;
    int32_t index = hived_node_index(engine, name.c_str());
    if (index < 0 || static_cast<size_t>(index) >= allowed_nodes_.size()) {
      return where + ": unknown node '" + name + "'";
    }
    allowed_nodes_[index] = 1;
  }
  has_allowed_nodes_ = true;
  return "";
}

std::string JobRequest::ParsePlacement(const json_t *placement, const hived_engine *engine) {
  if (!json_is_array(placement)) return "placement: expected an array";
  size_t i;
  json_t *p;
  json_array_foreach(placement, i, p) {
    std::string where = "placement[" + std::to_string(i) + "]";
    if (!json_is_object(p)) return where + ": expected an object";
    const char *key;
    json_t *value;
    json_object_foreach(p, key, value) {
      if (strcmp(key, "node") != 0 && strcmp(key, "leaves") != 0 && strcmp(key, "fractions") != 0) {
        return where + "." + key + ": unknown field";
      }
    }
    const json_t *v = json_object_get(p, "node");
    if (v == nullptr) return where + ".node: missing";
    std::string name, err = ReadString(v, where + ".node", &name);
    if (!err.empty()) return err;
    // A node the config lacks is passed on as index -1: the engine leaves that pod out
    // and demotes the job (a running job is recorded, not refused whole).
    const json_t *leaves = json_object_get(p, "leaves");
    if (leaves == nullptr) return where + ".leaves: missing";
    if (!json_is_array(leaves)) return where + ".leaves: expected an array of GPU indices";
    std::vector<int32_t> indices;
    size_t j;
    json_t *leaf;
    json_array_foreach(leaves, j, leaf) {
      int32_t x;
      err = ReadInt32(leaf, where + ".leaves[" + std::to_string(j) + "]", &x);
      if (!err.empty()) return err;
      indices.push_back(x);
    }
    std::vector<int32_t> slots;
    const json_t *fractions = json_object_get(p, "fractions");
    if (fractions != nullptr && !json_is_array(fractions))
      return where + ".fractions: expected an array of fraction slots";
    json_array_foreach(fractions, j, leaf) {
      int32_t x;
      err = ReadInt32(leaf, where + ".fractions[" + std::to_string(j) + "]", &x);
      if (!err.empty()) return err;
      slots.push_back(x);
    }
    pod_node_names_.push_back(name);
    pod_leaves_.push_back(std::move(indices));
    pod_fractions_.push_back(std::move(slots));
  }
  pods_.clear();
  for (size_t k = 0; k < pod_node_names_.size(); k++) {
    hived_pod pod{};
    pod.node = hived_node_index(engine, pod_node_names_[k].c_str());
    pod.node_name = pod_node_names_[k].c_str();
    pod.leaves = pod_leaves_[k].data();
    pod.n_leaves = static_cast<int32_t>(pod_leaves_[k].size());
    pod.fractions = pod_fractions_[k].empty() ? nullptr : pod_fractions_[k].data();
    pod.n_fractions = static_cast<int32_t>(pod_fractions_[k].size());
    pods_.push_back(pod);
  }
  return "";
}

void JobRequest::Link() {
  req_ = hived_job_request{};
  req_.job = job_.c_str();
  req_.vc = has_vc_ ? vc_.c_str() : nullptr;
  req_.priority = priority_;
  req_.leaf_cell_type = has_leaf_cell_type_ ? leaf_cell_type_.c_str() : nullptr;
  req_.pinned_cell_id = has_pinned_cell_id_ ? pinned_cell_id_.c_str() : nullptr;
  req_.within_cell_type = has_within_cell_type_ ? within_cell_type_.c_str() : nullptr;
  req_.pod_within_cell_type = has_pod_within_cell_type_ ? pod_within_cell_type_.c_str() : nullptr;
  req_.lazy_preemption = lazy_preemption_ ? 1 : 0;
  req_.distinct_nodes = distinct_nodes_ ? 1 : 0;
  req_.split_max_pods = split_max_pods_;
  req_.borrow_idle_cells = borrow_idle_ ? 1 : 0;
  req_.members = members_.empty() ? nullptr : members_.data();
  req_.n_members = members_.size();
  req_.allowed_nodes = has_allowed_nodes_ ? allowed_nodes_.data() : nullptr;
}

}  // namespace hived_tools
