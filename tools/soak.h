// SPDX-License-Identifier: GPL-2.0-or-later
// The engine soak of hived-soak (doc/reliability.md, hived-soak(1)): a long seeded
// random sequence of engine operations on a generated cluster, with the invariant
// checker after every step and a model of its own (which job holds which GPU, each
// VC's guaranteed use) compared with the engine. Kept apart from the program so that
// tests/unit/test_soak runs it in-process.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>

namespace hived_tools {

struct SoakOptions {
  uint64_t seed = 1;
  long steps = 10000;
  int gpus = 10000;  // rounded up to whole racks of 25 8-GPU nodes
  int vcs = 6;
  long check_every = 1;    // hived_check_invariants every N steps
  long sweep_every = 100;  // compare every job's placement with the model every N steps
  // Test-only faults, to show that the soak can fail: "drop-job" (the model forgets a
  // live job), "corrupt-snapshot" (a restore from a snapshot in which one job's
  // placement is copied onto another's). Applied at fault_step.
  std::string fault;
  long fault_step = 0;
  long progress_every = 0;  // 0: silent
  // Each GPU in 4 fractions (halves of two quarters, isGpuLevel): VCs own some halves
  // and quarters, and some jobs ask for 1..4 quarters of one GPU.
  bool fractions = false;
  // Each node also has a GPU in MIG mode, split into a 3g and two 2g slices (chains
  // of their own, childIsMigSlice, GRES indices 8, 9, 10): VCs own slices of each
  // profile, and some jobs ask for slices of one profile on one or two nodes.
  bool mig = false;
};

struct SoakResult {
  bool ok = true;
  long steps_done = 0;
  long failed_step = -1;
  std::string failed_op;
  std::string message;
  int gpus = 0, nodes = 0, racks = 0, vcs = 0;
  double seconds = 0;
  std::map<std::string, long> ops;       // operations per kind
  std::map<std::string, long> outcomes;  // placed, waiting, rejected, preempted, ...
  long invariant_checks = 0, sweeps = 0, max_jobs = 0, max_used_gpus = 0;
};

SoakResult RunSoak(const SoakOptions &opt, std::ostream *progress);

// The result as one JSON line (no trailing newline).
std::string SoakResultJson(const SoakOptions &opt, const SoakResult &r);

}  // namespace hived_tools
