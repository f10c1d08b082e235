// SPDX-License-Identifier: GPL-2.0-or-later
// The HiveD sections of hived.conf: physicalCluster and virtualClusters. Internal to
// src/config; checks syntax only (types, required keys, ranges, names, unique pinned
// ids) and leaves meaning (cell types that exist, counts, safety) to the engine.
#pragma once

#include <jansson.h>

#include <string>

#include "../core/error.h"
#include "../core/spec.h"

namespace hived {
namespace conf {

// Deepest cellChildren nesting accepted: far beyond any real hierarchy (rack, node,
// socket, switch, GPU) yet small enough that hostile input cannot exhaust the stack.
constexpr int kMaxCellDepth = 32;
// Largest childCellNumber: bounds what one cell type can make the engine generate.
constexpr int kMaxChildCellNumber = 65536;

// `pc` is the value of "physicalCluster" (nullptr: absent).
Status parse_physical_cluster(const json_t* pc, ClusterSpec* out);
// `vcs` is the value of "virtualClusters" (nullptr: absent). Whether a pinned id names a
// physical cell is the engine's check; here only that no two VCs claim the same id.
Status parse_virtual_clusters(const json_t* vcs, ClusterSpec* out);

}  // namespace conf
}  // namespace hived
