// SPDX-License-Identifier: GPL-2.0-or-later
// One replay run: an engine plus the event handlers of the hived-replay protocol
// (doc/replay.md). Every input line yields exactly one output line, or none for
// blank and comment lines; no input can make it crash or throw.
#pragma once

#include <jansson.h>

#include <optional>
#include <set>
#include <string>

#include "hived.h"

namespace hived_tools {

class ReplaySession {
 public:
  // Takes ownership of `engine`. Relative reconfigure paths resolve against base_dir.
  ReplaySession(hived_engine *engine, std::string base_dir);
  ~ReplaySession();
  ReplaySession(const ReplaySession &) = delete;
  ReplaySession &operator=(const ReplaySession &) = delete;

  // The output line for one input line, or nullopt for a skipped line.
  std::optional<std::string> Handle(const std::string &line);
  // "" when the engine's invariants hold, else the violated invariant.
  std::string CheckInvariants() const;
  // True once a snapshot-roundtrip event found a difference.
  bool roundtrip_failed() const { return roundtrip_failed_; }

 private:
  json_t *Dispatch(const json_t *event);
  json_t *Submit(const json_t *event);
  json_t *AddRunning(const json_t *event);
  json_t *Finish(const json_t *event);
  json_t *Node(const json_t *event);
  json_t *Reconfigure(const json_t *event);
  json_t *Inspect(const json_t *event);
  json_t *SnapshotRoundtrip(const json_t *event);
  json_t *EngineError(const char *job, hived_rc rc) const;
  // The first difference between the two engines' inspect outputs, or "".
  std::string CompareInspect(const hived_engine *a, const hived_engine *b, std::string *left,
                             std::string *right);

  hived_engine *engine_;
  std::string base_dir_;
  // Every job name ever handed to the engine: hived has no "list jobs" call, and
  // opportunistic jobs appear in no VC's job list.
  std::set<std::string> job_names_;
  bool roundtrip_failed_ = false;
};

// Rejection line {"job"?, "result":"rejected", "error":...}; job may be NULL.
json_t *Rejected(const char *job, const std::string &error);

}  // namespace hived_tools
