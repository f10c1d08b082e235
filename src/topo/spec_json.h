// SPDX-License-Identifier: GPL-2.0-or-later
// A ClusterSpec as hived.conf JSON: how a derived cluster reaches the engine
// (hived_engine_new takes hived.conf text) and how hived-topo prints it.
#pragma once

#include <string>

#include "core/spec.h"

namespace hived {
namespace topo {

// physicalCluster (cellTypes, physicalCells) and virtualClusters, two-space indented
// with one cell per line; parse_hived_conf() reads it back into an equal spec
// (apart from `where`). Cells without children or pins stay on one line.
std::string spec_to_hived_conf(const ClusterSpec& spec);

// The JSON string literal of s (quotes included).
std::string json_quote(const std::string& s);

}  // namespace topo
}  // namespace hived
