// SPDX-License-Identifier: GPL-2.0-or-later
// hived-replay's event parser and handlers (tools/replay_session.cpp, replay_request.cpp)
// on fuzzed JSON Lines. Input: an optional hived.conf, a line "%%", then events; without
// "%%", or when that config is refused, the events run on a small built-in cluster.
// The replay's contract is one output line per event and no crash, so every event's
// output is required; the engine's invariants are checked once at the end (after every
// event would make the target several times slower, and a violation persists).
#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "fuzz_target.h"
#include "hived.h"
#include "replay_session.h"

namespace {

const char kDefaultConfig[] = R"({"physicalCluster":{"cellTypes":{
 "PAIR":{"childCellType":"V100","childCellNumber":2},
 "SOCKET":{"childCellType":"PAIR","childCellNumber":2},
 "NODE":{"childCellType":"SOCKET","childCellNumber":2,"isNodeLevel":true},
 "RACK":{"childCellType":"NODE","childCellNumber":2}},
 "physicalCells":[{"cellType":"RACK","cellChildren":[{"cellAddress":"n0"},{"cellAddress":"n1"}]},
  {"cellType":"NODE","cellAddress":"n2"}]},
 "virtualClusters":{"A":{"virtualCells":[{"cellType":"RACK","cellNumber":1}]},
  "B":{"virtualCells":[{"cellType":"NODE","cellNumber":1}],"pinnedCells":[]}}})";

void Require(bool ok) {
  if (!ok) abort();
}

void WriteFile(const std::string &path, const std::string &text) {
  FILE *f = fopen(path.c_str(), "wb");
  Require(f != nullptr);
  fwrite(text.data(), 1, text.size(), f);
  fclose(f);
}

std::string config_dir_made;  // removed at exit: every corpus replay would leave one behind

void RemoveConfigDir() {
  std::error_code ignored;
  std::filesystem::remove_all(config_dir_made, ignored);
}

// Reconfigure events name files relative to this directory; it holds the names the
// scenario seeds use, so reconfiguring is reachable without touching other files.
const std::string &ConfigDir() {
  static std::string dir = [] {
    char tmpl[] = "/tmp/hived-fuzz-replay.XXXXXX";
    Require(mkdtemp(tmpl) != nullptr);
    std::string d = tmpl;
    config_dir_made = d;
    atexit(RemoveConfigDir);
    WriteFile(d + "/config.json", kDefaultConfig);
    WriteFile(d + "/config-two-vcs.json",
              R"({"physicalCluster":{"cellTypes":{"NODE":{"childCellType":"V100",)"
              R"("childCellNumber":8,"isNodeLevel":true}},"physicalCells":[)"
              R"({"cellType":"NODE","cellAddress":"n0"},{"cellType":"NODE","cellAddress":"n1"}]},)"
              R"("virtualClusters":{"A":{"virtualCells":[{"cellType":"NODE","cellNumber":1}]},)"
              R"("B":{"virtualCells":[{"cellType":"NODE","cellNumber":1}]}}})");
    WriteFile(d + "/config-overcommitted.json", "{\"virtualClusters\":{\"A\":{}}}");
    return d;
  }();
  return dir;
}

// A path outside ConfigDir() could name a FIFO or /dev/zero and block the run; that is
// the replay user's own choice of file, not something the parser can be blamed for.
bool ReachesOutside(const std::string &line) {
  json_t *event = json_loadb(line.data(), line.size(), 0, nullptr);
  if (event == nullptr) return false;
  const json_t *config = json_object_get(event, "config");
  bool outside = json_is_string(config) &&
                 std::string(json_string_value(config), json_string_length(config)).find('/') !=
                     std::string::npos;
  json_decref(event);
  return outside;
}

}  // namespace

HIVED_FUZZ_TARGET(replay) {
  std::string text(reinterpret_cast<const char *>(data), size);
  std::string events = text, config;
  size_t split = text.find("\n%%\n");
  if (split != std::string::npos) {
    config = text.substr(0, split);
    events = text.substr(split + 4);
  }
  hived_engine *e = nullptr;
  char errbuf[512] = "";
  if (config.empty() || hived_engine_new(config.c_str(), &e, errbuf, sizeof errbuf) != HIVED_OK) {
    Require(hived_engine_new(kDefaultConfig, &e, errbuf, sizeof errbuf) == HIVED_OK);
  }
  hived_tools::ReplaySession session(e, ConfigDir());
  size_t begin = 0;
  while (begin <= events.size()) {
    size_t end = events.find('\n', begin);
    if (end == std::string::npos) end = events.size();
    std::string line = events.substr(begin, end - begin);
    begin = end + 1;
    if (ReachesOutside(line)) continue;
    std::optional<std::string> out = session.Handle(line);
    Require(!out || !out->empty());
  }
  Require(session.CheckInvariants().empty());
  return 0;
}
