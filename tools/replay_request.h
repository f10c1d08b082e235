// SPDX-License-Identifier: GPL-2.0-or-later
// Turns the fields of a replay "submit" or "add-running" event into a hived_job_request.
// The request's pointers point into this object, so it must outlive every use of them.
#pragma once

#include <jansson.h>
#include <stdint.h>

#include <string>
#include <vector>

#include "hived.h"

namespace hived_tools {

enum class RequestKind { kSubmit, kAddRunning };

class JobRequest {
 public:
  // Reads `event`; returns "" or a sentence naming the offending field. Node names
  // (allowedNodes, placement) are resolved against `engine`.
  std::string Parse(const json_t *event, const hived_engine *engine, RequestKind kind);

  const hived_job_request &request() const { return req_; }
  const std::string &job() const { return job_; }
  bool dry_run() const { return dry_run_; }
  const std::vector<hived_pod> &pods() const { return pods_; }

 private:
  std::string ParseMembers(const json_t *members);
  std::string ParseAllowedNodes(const json_t *nodes, const hived_engine *engine);
  std::string ParsePlacement(const json_t *placement, const hived_engine *engine);
  void Link();

  std::string job_, vc_, leaf_cell_type_, pinned_cell_id_, within_cell_type_, pod_within_cell_type_;
  bool has_vc_ = false, has_leaf_cell_type_ = false, has_pinned_cell_id_ = false,
       has_within_cell_type_ = false, has_pod_within_cell_type_ = false, has_allowed_nodes_ = false;
  int32_t priority_ = 0;
  int32_t split_max_pods_ = 0;
  bool lazy_preemption_ = false, distinct_nodes_ = false, dry_run_ = false;
  bool borrow_idle_ = false;
  std::vector<hived_member> members_;
  std::vector<uint8_t> allowed_nodes_;
  std::vector<std::string> pod_node_names_;
  std::vector<std::vector<int32_t>> pod_leaves_;
  std::vector<std::vector<int32_t>> pod_fractions_;
  std::vector<hived_pod> pods_;
  hived_job_request req_{};
};

}  // namespace hived_tools
