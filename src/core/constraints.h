// SPDX-License-Identifier: GPL-2.0-or-later
// What one request asks of the cells of one chain, compiled once per request and chain
// (Engine::Compile) and read by every step that places or binds it: the virtual and
// physical placement (PlaceVirtual, PlacePhysical, the Placer), the rack rule
// (RackTries), the binder (BindLeaves) and the check of the physical result
// (PhysicalOk). Levels are the chain's (1 = leaf cells).
#pragma once

#include <cstdint>
#include <vector>

#include "core/engine.h"

namespace hived {

struct Constraints {
  // False when the chain cannot hold the request's shape (ShapeFor) or has no cell of
  // its withinCellType: nothing else is set then.
  bool usable = false;
  // The request in this chain's leaf cells (fractions, grain): its members are what
  // each pod takes here.
  Request shaped;
  int within_level = 0;  // the whole job inside one cell of this level; 0: no such rule
  int pod_level = 0;     // each pod inside one cell of this level (below the node); 0: none
  bool distinct_nodes = false;
  int grain = 1;  // each pod takes whole cells of this level (see Placer)
  // The rack rule: within_level is above the node and the VC owns no cell of that
  // level. Virtual placement then ignores within_level, the racks are tried one by one
  // (the allowed nodes cut to each, RackTries), and PhysicalOk checks the result.
  bool by_rack = false;

  const std::vector<uint8_t>& allowed() const { return shaped.allowed; }  // empty: all
  // within_level as the virtual placement reads it (0 under the rack rule).
  int virtual_within() const { return by_rack ? 0 : within_level; }
};

}  // namespace hived
