// SPDX-License-Identifier: GPL-2.0-or-later
// Command-line options shared by hived-sim's subcommands.
#pragma once

#include <string>
#include <vector>

#include "study.h"

namespace hivedsim {

struct Cli {
  std::string command;  // run, plan, conf, results
  StudyConfig study;
  std::string json, csv, jobs_csv, plots, out;
  // plan
  int rounds = 6;
  bool rebalance = false;
  Selection plan_sel;  // window of the planner's short simulations
  bool plan_sel_set = false;
  // results
  std::string itp_dir, philly_dir, openb_dir;  // openb: optional
  bool quick = false;
  bool help = false;
};

extern const char kUsage[];

// Parses argv[1..]; false with *err on a bad option.
bool ParseCli(int argc, char** argv, Cli* c, std::string* err);

}  // namespace hivedsim
