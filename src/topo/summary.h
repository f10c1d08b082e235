// SPDX-License-Identifier: GPL-2.0-or-later
// The cell hierarchy as text for people: what the plugin logs at startup and hivedctl
// shows, so an admin can see which cells the scheduler believes in and why.
#pragma once

#include <string>

#include "core/spec.h"
#include "topo/derive.h"

namespace hived {
namespace topo {

// One block per chain (levels top-down: cell type, cells, children, GPUs per cell),
// then the VCs' virtual cells, then, when `report` is given, where cells came from,
// problems, nodes whose GRES disagrees and notes. Lines end in '\n'.
std::string hierarchy_summary(const ClusterSpec& spec, const DeriveReport* report = nullptr);

// "MIG slices: 6 slices on 2 GPUs (...)", the line of the summary above; "" when none.
std::string mig_slices_line(const DeriveReport& report);

}  // namespace topo
}  // namespace hived
