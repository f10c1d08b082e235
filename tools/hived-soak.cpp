// SPDX-License-Identifier: GPL-2.0-or-later
// hived-soak: a long seeded random sequence of engine operations with the invariant
// checker after every step (doc/reliability.md, hived-soak(1)). Exit 0: every check
// held; 1: a check failed (seed, step and operation printed); 2: usage.
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include "cli_args.h"
#include "soak.h"

namespace {

const char kUsage[] =
    "Usage: hived-soak [--seed N] [--steps N] [--gpus N] [--vcs N] [--fractions] [--mig]\n"
    "                  [--check-every N] [--sweep-every N] [--progress N]\n"
    "                  [--fault drop-job|corrupt-snapshot --fault-step N]\n"
    "\n"
    "Drives the engine through a random sequence of submits (guaranteed,\n"
    "opportunistic, high priority, pinned, rack-bound gangs, pods within a socket or\n"
    "pair, node lists, several members), finishes, preemptions, node failures and\n"
    "repairs, reconfigurations (valid and invalid), snapshot/restore, clones,\n"
    "restart re-adds and invalid requests, checking the engine's invariants and the\n"
    "soak's own record of every job after every step. Prints one JSON line.\n"
    "\n"
    "  --seed N         random seed (default 1); the same seed repeats the same run\n"
    "  --steps N        operations (default 10000)\n"
    "  --gpus N         cluster size (default 10000; whole racks of 25 8-GPU nodes)\n"
    "  --vcs N          virtual clusters (default 6)\n"
    "  --check-every N  hived_check_invariants every N steps (default 1)\n"
    "  --sweep-every N  compare every job with the record every N steps (default 100)\n"
    "  --progress N     a progress line on stderr every N steps\n"
    "  --fractions      split each GPU into 4 fractions (isGpuLevel); VCs own halves and\n"
    "                   quarters, and some jobs ask for fractions of one GPU\n"
    "  --mig            add a GPU in MIG mode to each node (a 3g and two 2g slices,\n"
    "                   childIsMigSlice); VCs own slices, some jobs ask for slices\n"
    "  --fault KIND     test-only: break the run at --fault-step to show it fails\n"
    "  --help           show this text\n";

using hived_tools::ParseLong;

}  // namespace

int main(int argc, char **argv) {
  hived_tools::SoakOptions opt;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i], v;
    auto value = [&](const char *name) {
      return hived_tools::OptionValue(argc, argv, &i, name, &v);
    };
    long x = 0;
    bool ok = true;
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (value("--seed")) {
      ok = ParseLong(v, 0, &x);
      opt.seed = static_cast<uint64_t>(x);
    } else if (value("--steps")) {
      ok = ParseLong(v, 0, &opt.steps);
    } else if (value("--gpus")) {
      ok = ParseLong(v, 8, &x) && x <= 1000000;
      opt.gpus = static_cast<int>(x);
    } else if (value("--vcs")) {
      ok = ParseLong(v, 1, &x) && x <= 100;
      opt.vcs = static_cast<int>(x);
    } else if (value("--check-every")) {
      ok = ParseLong(v, 1, &opt.check_every);
    } else if (value("--sweep-every")) {
      ok = ParseLong(v, 0, &opt.sweep_every);
    } else if (value("--progress")) {
      ok = ParseLong(v, 0, &opt.progress_every);
    } else if (a == "--fractions") {
      opt.fractions = true;
    } else if (a == "--mig") {
      opt.mig = true;
    } else if (value("--fault")) {
      opt.fault = v;
      ok = v == "drop-job" || v == "corrupt-snapshot";
    } else if (value("--fault-step")) {
      ok = ParseLong(v, 1, &opt.fault_step);
    } else {
      std::cerr << "hived-soak: unknown or incomplete option '" << a << "'\n" << kUsage;
      return 2;
    }
    if (!ok) {
      std::cerr << "hived-soak: invalid value '" << v << "' for " << a << "\n";
      return 2;
    }
  }
  hived_tools::SoakResult r = hived_tools::RunSoak(opt, &std::cerr);
  std::cout << hived_tools::SoakResultJson(opt, r) << std::endl;
  if (r.ok) return 0;
  std::cerr << "hived-soak: FAILED at step " << r.failed_step << " (seed " << opt.seed << ", "
            << r.gpus << " GPUs), operation " << r.failed_op << ": " << r.message << "\n"
            << "hived-soak: reproduce with: hived-soak --seed " << opt.seed << " --gpus "
            << opt.gpus << " --vcs " << opt.vcs << " --steps " << r.failed_step;
  // The random draws do not depend on how often the checks run, but what is caught
  // between sweeps does.
  if (opt.sweep_every != hived_tools::SoakOptions().sweep_every)
    std::cerr << " --sweep-every " << opt.sweep_every;
  if (opt.check_every != 1) std::cerr << " --check-every " << opt.check_every;
  if (opt.fractions) std::cerr << " --fractions";
  if (opt.mig) std::cerr << " --mig";
  if (!opt.fault.empty())
    std::cerr << " --fault " << opt.fault << " --fault-step " << opt.fault_step;
  std::cerr << "\n";
  return 1;
}
