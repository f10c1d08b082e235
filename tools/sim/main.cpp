// SPDX-License-Identifier: GPL-2.0-or-later
// hived-sim: trace-driven simulation of HiveD (through the real engine) against a
// Slurm-like quota baseline and every VC's private cluster (doc/sim.md, hived-sim(1)).
#include <cstdio>
#include <filesystem>
#include <string>

#include "cli.h"
#include "cluster.h"
#include "openb_study.h"
#include "planner.h"
#include "plots.h"
#include "report.h"
#include "results_page.h"

using namespace hivedsim;

namespace {

int Fail(const std::string& msg) {
  fprintf(stderr, "hived-sim: %s\n", msg.c_str());
  return 1;
}

int Run(const Cli& c) {
  Study s;
  std::string err;
  if (!PrepareStudy(c.study, &s, &err) || !RunStudy(c.study, &s, &err)) return Fail(err);
  fputs(TextReport(s).c_str(), stdout);
  if (!c.json.empty() && !WriteFile(c.json, JsonReport(s), &err)) return Fail(err);
  if (!c.csv.empty() && !WriteFile(c.csv, CsvReport(s), &err)) return Fail(err);
  if (!c.jobs_csv.empty() && !WriteFile(c.jobs_csv, JobsCsv(s), &err)) return Fail(err);
  if (!c.plots.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(c.plots, ec);
    if (!WritePlots(s, c.plots, "", &err)) return Fail(err);
  }
  for (const auto& r : s.results)
    if (r.stuck)
      return Fail(r.policy + ": " + std::to_string(r.stuck) + " jobs never ran (simulator bug)");
  return 0;
}

int Conf(const Cli& c) {
  Study s;
  std::string err;
  if (!PrepareStudy(c.study, &s, &err)) return Fail(err);
  fputs(MakeHivedConf(s.setup.shape, s.trace.vcs, s.setup.cells).c_str(), stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // openb has its own options (heterogeneous nodes, fractions): doc/sim.md.
  if (argc > 1 && std::string(argv[1]) == "openb") return RunOpenbCommand(argc, argv);
  Cli c;
  std::string err;
  if (!ParseCli(argc, argv, &c, &err)) return Fail(err);
  if (c.help) {
    fputs(kUsage, stdout);
    return 0;
  }
  if (c.command == "run") return Run(c);
  if (c.command == "conf") return Conf(c);
  if (c.command == "plan") return RunPlanner(c);
  return RunResultsPage(c);
}
