// SPDX-License-Identifier: GPL-2.0-or-later
// An account's GPU limit in Slurm's accounting (sacctmgr ... GrpTRES=gres/gpu=N,
// gres/gpu:<type>=N or gres/shard=N) as HiveD virtual cells of the cluster's cell types.
#pragma once

#include <string>
#include <vector>

#include "core/error.h"
#include "core/spec.h"

namespace hived {
namespace topo {

struct GpuTres {
  std::string type;  // "" for gres/gpu (any model)
  long long count = 0;
  bool shards = false;  // gres/shard=N: count is in shards
};

// The gres/gpu and gres/shard entries of a TRES list ("cpu=64,gres/gpu=16,
// gres/gpu:a100=8,gres/shard=32"); other TRES are skipped. Errors name the entry.
Status parse_grptres_gpus(const std::string& grptres, std::vector<GpuTres>* out);

// *out = a VC named `account` whose virtual cells hold exactly the GPUs of `grptres`,
// largest aligned cells first (on 8-GPU nodes of two 4-GPU sockets, 12 GPUs = one node
// + one socket), taking only what spec.vcs have not already been promised (the
// engine's safety rule). A typed limit uses that model's chains; gres/gpu=N (minus the
// typed limits) uses the one model that has no typed limit. A kConfig error says why the
// limit cannot be expressed: unknown model, several models for an untyped limit, or
// more GPUs than remain (over-commit).
// gres/shard:<model>=N and gres/shard=N (minus the typed shard limits, for the one
// model with shards that has none) become fractional cells of that model, largest
// fractions first (32 shards of 8-shard GPUs: 8 HALF cells). A MIG type limit
// (gres/gpu:a100_3g.20gb=n) becomes n slice cells of that profile's chains (Slurm
// counts them in gres/gpu=N as well, so they are taken off it); an untyped limit never
// goes to slices.
Status quota_to_vc(const ClusterSpec& spec, const std::string& account, const std::string& grptres,
                   VcSpec* out, std::vector<std::string>* warnings = nullptr);

}  // namespace topo
}  // namespace hived
