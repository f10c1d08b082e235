// SPDX-License-Identifier: GPL-2.0-or-later
// The snapshot file: {"version":1,"config":<hived.conf>,"state":{badNodes, jobs}}.
// Reading it is strict (every field checked, errors name the path) because it is
// also the plugin's state file and may be truncated or corrupted on disk.
#pragma once

#include <string>
#include <vector>

#include "core/engine.h"

namespace hived {

struct SnapshotJob {
  RunningJob job;                       // pods[i].node is unset; see node_names
  std::vector<std::string> node_names;  // per pod
};

struct SnapshotData {
  std::string config_text;
  std::vector<std::string> bad_nodes;
  std::vector<SnapshotJob> jobs;
  struct Waiting {
    std::string job, vc;
    int priority = 1000;  // absent in older snapshots: see Engine::NoteWaiting
  };
  std::vector<Waiting> waiting;  // (optional key)
};

// Fails (kInval) naming the path of the first bad field.
Status ParseSnapshot(const std::string& text, SnapshotData* out);
// True when both texts are JSON and denote the same value.
bool SameJson(const std::string& a, const std::string& b);
// "" if either part is not valid JSON.
std::string ComposeSnapshot(const std::string& config_text, const std::string& state_json);

}  // namespace hived
