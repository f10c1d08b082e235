// SPDX-License-Identifier: GPL-2.0-or-later
// hived-replay: drive the HiveD engine with JSON Lines events, one decision line per
// event (protocol: doc/replay.md, man page hived-replay(1)). It is both a user tool
// ("what would HiveD do with this cluster and these jobs?") and the scenario driver.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "cli_args.h"
#include "hived.h"
#include "replay_json.h"
#include "replay_session.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitRoundtrip = 1;
constexpr int kExitUsage = 2;
constexpr int kExitInvariant = 3;

const char kUsage[] =
    "Usage: hived-replay --config FILE [--events FILE|-] [--check-invariants]\n"
    "\n"
    "Builds a HiveD engine from the hived.conf JSON in FILE, reads JSON Lines events\n"
    "(submit, finish, node, reconfigure, inspect, add-running, snapshot-roundtrip) from\n"
    "--events (default: standard input) and writes one JSON line per event.\n"
    "Blank lines and lines starting with '#' are skipped.\n"
    "\n"
    "  --config FILE         cluster and VC configuration (hived.conf)\n"
    "  --events FILE|-       events to replay; '-' is standard input\n"
    "  --check-invariants    check the engine's invariants after every event and stop\n"
    "                        with exit status 3 at the first violation\n"
    "  --help                show this text\n"
    "\n"
    "Exit status: 0 success, 1 a snapshot-roundtrip found a difference,\n"
    "2 bad usage or invalid configuration, 3 an invariant was violated.\n";

struct Options {
  std::string config;
  std::string events = "-";
  bool check_invariants = false;
};

// Returns -1 to go on, else the exit status.
int ParseArgs(int argc, char **argv, Options *opt) {
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto value = [&](const char *name, std::string *out) {
      return hived_tools::OptionValue(argc, argv, &i, name, out);
    };
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return kExitOk;
    } else if (a == "--check-invariants") {
      opt->check_invariants = true;
    } else if (value("--config", &opt->config) || value("--events", &opt->events)) {
      continue;
    } else {
      std::cerr << "hived-replay: unknown or incomplete option '" << a << "'\n" << kUsage;
      return kExitUsage;
    }
  }
  if (opt->config.empty()) {
    std::cerr << "hived-replay: --config FILE is required\n" << kUsage;
    return kExitUsage;
  }
  return -1;
}

std::string DirOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return "";
  return slash == 0 ? "/" : path.substr(0, slash);
}

void PrintInvariantViolation(const std::string &error, long line) {
  hived_tools::JsonPtr out(json_object());
  json_object_set_new(out.get(), "result", json_string("invariant-violated"));
  json_object_set_new(out.get(), "error", hived_tools::SafeString(error.c_str()));
  if (line > 0) json_object_set_new(out.get(), "line", json_integer(line));
  std::cout << hived_tools::DumpCompact(out.get()) << std::endl;
}

}  // namespace

int main(int argc, char **argv) {
  Options opt;
  int rc = ParseArgs(argc, argv, &opt);
  if (rc >= 0) return rc;

  std::ifstream config_in(opt.config, std::ios::binary);
  if (!config_in) {
    std::cerr << "hived-replay: cannot read config '" << opt.config << "': " << strerror(errno)
              << "\n";
    return kExitUsage;
  }
  std::ostringstream config_text;
  config_text << config_in.rdbuf();
  hived_engine *engine = nullptr;
  char errbuf[2048] = "";
  char *warnings = nullptr;
  if (hived_config_warnings(config_text.str().c_str(), &warnings, errbuf, sizeof errbuf) ==
          HIVED_OK &&
      warnings != nullptr) {
    std::istringstream lines(warnings);
    for (std::string w; std::getline(lines, w);)
      std::cerr << "hived-replay: warning: " << opt.config << ": " << w << "\n";
  }
  free(warnings);
  hived_rc erc = hived_engine_new(config_text.str().c_str(), &engine, errbuf, sizeof errbuf);
  if (erc != HIVED_OK || engine == nullptr) {
    std::cerr << "hived-replay: " << opt.config << ": " << (errbuf[0] ? errbuf : hived_rc_str(erc))
              << "\n";
    return kExitUsage;
  }

  std::ifstream events_file;
  std::istream *events = &std::cin;
  std::string base_dir;
  const bool interactive = opt.events == "-";
  if (!interactive) {
    events_file.open(opt.events, std::ios::binary);
    if (!events_file) {
      hived_engine_free(engine);
      std::cerr << "hived-replay: cannot read events '" << opt.events << "': " << strerror(errno)
                << "\n";
      return kExitUsage;
    }
    events = &events_file;
    base_dir = DirOf(opt.events);
  }

  hived_tools::ReplaySession session(engine, base_dir);
  if (opt.check_invariants) {
    std::string violated = session.CheckInvariants();
    if (!violated.empty()) {
      PrintInvariantViolation(violated, 0);
      return kExitInvariant;
    }
  }
  std::string line;
  long line_no = 0;
  while (std::getline(*events, line)) {
    line_no++;
    std::optional<std::string> out = session.Handle(line);
    if (!out) continue;
    std::cout << *out << '\n';
    // Line by line when someone waits for it, and when checking invariants, so that
    // the lines before an engine crash are not lost in the buffer.
    if (interactive || opt.check_invariants) std::cout.flush();
    if (opt.check_invariants) {
      std::string violated = session.CheckInvariants();
      if (!violated.empty()) {
        PrintInvariantViolation(violated, line_no);
        return kExitInvariant;
      }
    }
  }
  std::cout.flush();
  if (events->bad()) {
    std::cerr << "hived-replay: error reading events\n";
    return kExitUsage;
  }
  return session.roundtrip_failed() ? kExitRoundtrip : kExitOk;
}
