// SPDX-License-Identifier: GPL-2.0-or-later
// NVIDIA MIG slices as Slurm names them in gres.conf: a Name=gpu line whose Type= ends
// in a profile ("a100_3g.20gb", "1g.5gb") and whose MultipleFiles= starts with the
// parent GPU's device. A slice is a part of one GPU, never a GPU of its own.
#pragma once

#include <string>

#include "core/error.h"

namespace hived {
namespace topo {

// Compute slots of an A100/H100-style GPU: every profile takes 1, 2, 3, 4 or 7 of them.
constexpr int kMigSlots = 7;

struct MigProfile {
  std::string model;    // the GPU model before the profile ("a100"); "" when absent
  std::string profile;  // "3g.20gb", "1g.10gb+me"
  int slots = 0;        // compute slots out of kMigSlots
};

// Whether `type` names a MIG slice: its last '_'-separated part (or the whole type)
// starts "<digits>g.". Such a type must be a known profile: 1g, 2g, 3g, 4g or 7g,
// then memory "<digits>gb" and an optional "+me"; the kConfig error says why not.
bool is_mig_type(const std::string& type);
Status parse_mig_type(const std::string& type, MigProfile* out);

}  // namespace topo
}  // namespace hived
