// SPDX-License-Identifier: GPL-2.0-or-later
// Compiling a request's constraints for one chain (constraints.h).
#include "core/constraints.h"

namespace hived {

namespace {

// The level of a cell type in a chain; 0 for none asked, -1 when the chain lacks it.
int LevelOf(const Chain& ch, const std::string& type) {
  if (type.empty()) return 0;
  for (int l = 1; l <= ch.levels; l++)
    if (ch.level_type[Level(l)] == type) return l;
  return -1;
}

}  // namespace

bool Engine::Compile(const Request& req, ChainId chain, const VcChain* vch, VCellId pinned_root,
                     Constraints* out) const {
  *out = Constraints();
  std::string why;
  if (!ShapeFor(req, chain, &out->shaped, &why)) return false;
  const Chain& ch = chains_[chain];
  out->within_level = LevelOf(ch, req.within_type);
  if (out->within_level < 0) return false;
  // Below the node level only: a pod never leaves its node anyway.
  const int pl = LevelOf(ch, req.pod_within_type);
  out->pod_level = pl > 0 && pl < ch.node_level ? pl : 0;
  out->distinct_nodes = req.distinct_nodes;
  out->grain = out->shaped.grain;
  out->by_rack = out->within_level > ch.node_level && pinned_root == kNone && vch &&
                 vch->cells_at_level[Level(out->within_level)].empty();
  out->usable = true;
  return true;
}

VCellId Engine::PinnedRoot(VcId vc, const std::string& pinned_id) const {
  VCellId root = kNone;
  for (const auto& [id, r] : vcs_[vc].pinned)
    if (id == pinned_id) root = r;
  return root;
}

Status Engine::CompileConstraints(const Request& req, int chain, Constraints* out) const {
  if (chain < 0 || static_cast<size_t>(chain) >= chains_.size())
    return Status::Err(Code::kInval, "chain: no chain " + std::to_string(chain));
  VcId vc = kNone;
  if (!req.vc.empty()) {
    auto it = vc_index_.find(req.vc);
    if (it == vc_index_.end()) return Status::Err(Code::kNoEnt, "vc: unknown VC '" + req.vc + "'");
    vc = it->second;
  }
  const VCellId pinned_root =
      vc.valid() && !req.pinned_id.empty() ? PinnedRoot(vc, req.pinned_id) : kNone;
  const ChainId c(chain);
  Compile(req, c, vc.valid() ? VcChainOf(vc, c) : nullptr, pinned_root, out);
  return Status::Ok();
}

}  // namespace hived
