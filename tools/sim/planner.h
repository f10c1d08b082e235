// SPDX-License-Identifier: GPL-2.0-or-later
// hived-sim plan: propose each VC's cells (types and counts) for a cluster and a
// trace, checked by the engine's safety rule, chosen by short simulations.
#pragma once

#include "cli.h"

namespace hivedsim {

int RunPlanner(const Cli& c);

}  // namespace hivedsim
