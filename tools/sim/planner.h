// SPDX-License-Identifier: GPL-2.0-or-later
// hived-sim plan: propose each VC's cells (types and counts) for a cluster and a
// trace, checked by the engine's safety rule, chosen by short simulations.
#pragma once

#include <string>

#include "cli.h"

namespace hivedsim {

struct PlanOutcome {
  std::string conf;     // hived.conf JSON of the proposal
  std::string summary;  // the changes and the simulated figures, as text
};

// Plans cells for the study `sc` describes, judging candidates on the jobs of
// `plan_sel` (start, max_jobs / duration; default the first 20000 jobs).
bool Plan(const StudyConfig& sc, const Selection& plan_sel, int rounds, bool rebalance,
          PlanOutcome* out, std::string* err);

int RunPlanner(const Cli& c);

}  // namespace hivedsim
