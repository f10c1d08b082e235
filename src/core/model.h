// SPDX-License-Identifier: GPL-2.0-or-later
// The engine's state: cell types and chains, the physical cell forest, every VC's
// virtual cell forest, and jobs. Flat vectors indexed by int32 ids keep a cell under
// ~40 bytes so that 100k GPUs stay within a few tens of MB.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/id_set.h"
#include "core/ids.h"

namespace hived {

struct CellType {
  std::string name;
  int child_type = -1;  // index into Model::types, -1 if children are leaves of a GPU model
  int child_count = 0;  // 0 for a leaf type
  bool node_level = false;
  bool gpu_level = false;
  bool child_is_mig_slice = false;
  std::string where;
};

// A chain is one top-level cell type and every type below it. Level 1 is the leaf:
// the GPU, or in a chain with fractional levels (isGpuLevel below the top) the
// smallest fraction of a GPU, with the GPU at gpu_level.
struct Chain {
  std::string top;        // cell type name of the top level
  std::string leaf_type;  // GPU model (or its smallest fraction)
  int levels = 0;         // top level number
  int node_level = 0;     // level whose cells are nodes
  int gpu_level = 1;      // level whose cells are whole GPUs
  // Leaves are MIG slices of one profile (leaf_type): fixed cells, taken only by a
  // request naming the profile, so a GPU in MIG mode is never given out whole.
  bool mig = false;
  LevelVector<std::string> level_type;     // [level] -> cell type name (index 0 unused)
  LevelVector<int32_t> level_children;     // [level] -> child count (0 at level 1)
  LevelVector<LevelVector<int64_t>> desc;  // [hi][lo] -> level-lo cells inside a level-hi cell
  LevelVector<std::vector<PCellId>> cells_at_level;  // physical cells per level >= node level
  // Buddy free lists per level, split by what a binding prefers to take first.
  LevelVector<IdSet<PCellId>> free_clean;  // healthy, no opportunistic leaves
  LevelVector<IdSet<PCellId>> free_busy;   // healthy, runs opportunistic jobs
  LevelVector<IdSet<PCellId>> free_bad;    // contains bad leaves
  LevelVector<int64_t> unbound_demand;     // [level] unbound preassigned cells, all VCs
  // Node-level cells bucketed by free healthy leaves, for best-fit search.
  std::vector<IdSet<PCellId>> node_by_avail;
};

enum : uint8_t { kFree = 1, kPinned = 2, kUnderPinned = 4 };

struct PCell {
  PCellId parent = kNone;
  PCellId first_child = kNone;
  VCellId bound = kNone;  // virtual cell bound to this one
  int32_t node = -1;      // node index at node level and below
  int32_t addr = -1;      // GPU level and below: GPU index; above node: into addresses_ or -1
  int32_t avail = 0;      // healthy leaves without a job
  int32_t opp = 0;        // leaves running opportunistic jobs
  int32_t bad = 0;        // bad leaves
  int32_t job = -1;       // leaves: job slot using it
  ChainId chain = ChainId(0);
  int8_t level = 0;
  uint8_t flags = 0;
};

struct VCell {
  VCellId parent = kNone;
  VCellId first_child = kNone;
  PCellId bound = kNone;  // physical cell
  VCellId root = kNone;   // its preassigned cell
  int32_t vfree = 0;      // virtual leaves without a guaranteed job
  int32_t job = -1;       // leaves: job slot
  VcId vc = VcId(0);
  ChainId chain = ChainId(0);
  int8_t level = 0;
  uint8_t pinned = 0;  // root of a pinned cell
};

// The part of a VC in one chain: its preassigned cells and placement index.
struct VcChain {
  ChainId chain = ChainId(0);
  std::vector<VCellId> roots;                        // preassigned virtual cells
  LevelVector<int64_t> quota;                        // [level] preassigned cells (non-pinned)
  LevelVector<std::vector<VCellId>> cells_at_level;  // virtual cells per level >= node level
  std::vector<IdSet<VCellId>> unit_by_free;          // placement units bucketed by vfree
  int64_t leaves = 0;                                // non-pinned virtual leaves
  int64_t demoted_leaves = 0;                        // Vc::demoted_leaves of jobs in this chain
};

struct Vc {
  std::string name;
  std::vector<VcChain> chains;                          // non-pinned cells
  std::vector<std::pair<std::string, VCellId>> pinned;  // pinnedCellId -> virtual root
  int64_t used_leaves = 0;
  int64_t opp_leaves = 0;
  // Of opp_leaves, those of its guaranteed jobs running as opportunistic (demoted or
  // borrowed): they count against its quota by GPU count, per chain in VcChain
  // (Request::borrow_idle).
  int64_t demoted_leaves = 0;
  int64_t free_leaves = 0;                       // non-pinned virtual leaves without a job
  std::map<Priority, int64_t> used_by_priority;  // virtual leaves held, per job priority
};

// A pod as placement builds it, before it is recorded.
struct Pod {
  int32_t node = -1;
  std::vector<PCellId> leaves;  // physical leaves
};

using PCellSpan = IdSpan<PCellId>;
using VCellSpan = IdSpan<VCellId>;

// One pod of a recorded job; its node is its first leaf's.
struct PodRef {
  PCellSpan leaves;
};

// One running job. Kept small (issue 18: job records were most of the state above
// the cells' own): the three rarely read strings are ids into the engine's table of
// interned strings (JobTable::Str), every cell id of the job is in one array (most
// jobs have one pod), and fields are ordered to leave no padding.
using StrId = int32_t;  // 0: the empty string

struct Job {
  std::string name;
  // Every pod's physical leaves in pod order, then the virtual leaves parallel to
  // them (guaranteed jobs only), then where each pod after the first starts.
  std::vector<int32_t> cells;
  uint64_t seq = 0;  // submission order, for stable iteration
  VcId vc = kNone;
  Priority priority;  // kOpportunistic: -1
  Priority original_priority;
  ChainId chain = ChainId(0);
  int32_t grain = 1;  // level of the cells each pod takes whole (see Placer)
  StrId vc_name = 0;  // the VC it asked for, kept while a reload has removed that VC
  StrId pinned_id = 0;
  StrId leaf_type = 0;
  int32_t leaf_count = 0;  // physical leaves
  int32_t pod_count = 0;
  bool lazy = false;
  bool demoted = false;  // lazy-preempted: now opportunistic
  // Demoted because the config (a reload, or the cells at recovery) no longer gives its VC
  // cells for it, not by another job: a reload that gives them back promotes it again.
  bool demoted_by_config = false;
  bool borrowed = false;  // started demoted, on idle GPUs outside its VC's cells
  bool live = false;
  bool guaranteed() const { return priority.guaranteed(); }

  PCellSpan Leaves() const { return {cells.data(), cells.data() + leaf_count}; }
  VCellSpan Vleaves() const {
    return {cells.data() + leaf_count, cells.data() + cells.size() - Starts()};
  }
  class PodIter {
   public:
    PodIter(const Job* j, int32_t k) : j_(j), k_(k) {}
    PodRef operator*() const { return {j_->PodLeaves(k_)}; }
    PodIter& operator++() {
      k_++;
      return *this;
    }
    bool operator!=(const PodIter& o) const { return k_ != o.k_; }

   private:
    const Job* j_;
    int32_t k_;
  };
  struct PodRange {
    const Job* j;
    PodIter begin() const { return {j, 0}; }
    PodIter end() const { return {j, j->pod_count}; }
  };
  PodRange Pods() const { return {this}; }

  // The pods, replacing any; the virtual leaves stay. Sized exactly (no growth slack).
  void SetPods(const std::vector<Pod>& pods);
  void AddPod(PCellSpan leaves);
  void AddVleaf(VCellId v);
  void ClearVleaves();

 private:
  size_t Starts() const { return pod_count > 1 ? static_cast<size_t>(pod_count - 1) : 0; }
  PCellSpan PodLeaves(int32_t k) const {
    const int32_t* base = cells.data();
    const int32_t* starts = base + cells.size() - Starts();
    const int32_t b = k == 0 ? 0 : starts[k - 1];
    const int32_t e = k + 1 < pod_count ? starts[k] : leaf_count;
    return {base + b, base + e};
  }
};

}  // namespace hived
