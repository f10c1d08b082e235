// SPDX-License-Identifier: GPL-2.0-or-later
// The HiveD engine: one cluster's cells, VCs and jobs, and every decision on them.
// No I/O, no globals, no exceptions: every entry point returns a Status.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/buddy.h"
#include "core/cell_store.h"
#include "core/error.h"
#include "core/job_table.h"
#include "core/model.h"
#include "core/preemption.h"
#include "core/spec.h"

namespace hived {

struct Member {
  int pods = 0;
  int leaves = 0;     // whole GPUs per pod
  int fractions = 0;  // > 0 (with leaves 0): this many smallest fractions of one GPU per pod
};

struct Request {
  std::string job;
  std::string vc;  // empty: none
  int priority = 0;
  std::string leaf_type;
  std::string pinned_id;
  std::string within_type;
  std::string pod_within_type;  // empty: none; each pod inside one cell of this type
  bool lazy = false;
  bool distinct_nodes = false;
  // > 1: the job asked for a GPU count only (Slurm --gpus=K without a node count). When
  // its shape cannot be bound now, it may take the same GPUs as up to this many smaller
  // pods on distinct nodes: in its VC's free cells if guaranteed, on idle GPUs if
  // opportunistic (split.cpp).
  int split_max_pods = 0;
  // A guaranteed job whose VC has the free GPUs for it, but not in cells of its shape,
  // may start on idle GPUs outside its VC's cells instead of waiting: it then runs as
  // opportunistic (lazy-preempted from its start), preempted by the first guaranteed
  // job that needs those GPUs. Its VC's GPUs outside its cells count against its
  // quota. (hived.conf "borrowIdleCells")
  bool borrow_idle = false;
  std::vector<Member> members;
  std::vector<uint8_t> allowed;  // empty: every node allowed
  // Set by the engine only (ShapeFor): members are then in leaf cells of one chain and
  // each pod takes whole cells of this level. 0 in requests from outside.
  int grain = 0;
};

enum class Outcome { kPlaced = 0, kWaiting = 1, kRejected = 2 };
enum class Wait { kNone = 0, kVcQuota = 1, kNoCell = 2, kPriority = 3, kVcTooSmall = 4 };

struct PlacedPod {
  int32_t node = -1;
  std::vector<int32_t> gpus;  // GPU indices, ascending
  // Fraction slots (0 .. fractions per GPU - 1, ascending) of the one GPU in `gpus`
  // when the pod holds part of a GPU; empty when it holds whole GPUs.
  std::vector<int32_t> fractions;
  std::string node_name;  // for messages when `node` is not in the config (-1)
};

struct Decision {
  Outcome outcome = Outcome::kWaiting;
  Wait wait = Wait::kNone;
  std::string reason;
  std::vector<PlacedPod> pods;
  std::vector<std::string> preempted;
  std::vector<std::string> lazy_preempted;
  bool borrowed = false;  // placed outside its VC's cells (Request::borrow_idle)
};

// A running job as recorded outside the engine (Slurm, a snapshot, a reconfigure).
struct RunningJob {
  Request req;
  bool demoted = false;
  bool demoted_by_config = false;  // see Job::demoted_by_config
  bool borrowed = false;           // see Job::borrowed (kept with demoted)
  std::vector<PlacedPod> pods;
  std::vector<VCellId> vleaves;  // exact virtual leaves (snapshot); empty: choose
  uint64_t seq = 0;              // submission order to keep (snapshot); 0: next
};

// What a reconfiguration did to the running jobs.
struct TransferReport {
  std::vector<std::string> demoted;   // guaranteed before, opportunistic now
  std::vector<std::string> promoted;  // demoted by an earlier config, guaranteed again
  std::vector<std::string> dropped;   // one sentence per job that lost GPUs (or all of them)
};

// VCs a new config no longer has, each with the guaranteed jobs running in it.
using VcJobs = std::vector<std::pair<std::string, std::vector<std::string>>>;

struct Constraints;

// The cells are a private CellStore base, not a member, so that the code working on
// them keeps its names (pcells_, chains_, ...) while the store builds and walks them
// and the buddy allocator (buddy.h) works on the store alone.
class Engine : private CellStore {
 public:
  static Status Build(const ClusterSpec& spec, std::unique_ptr<Engine>* out);

  Status Submit(const Request& req, bool dry_run, Decision* out);
  Status Finish(const std::string& job);
  // Demoted jobs (borrowers, lazy-preempted) whose VC's free cells can hold them where
  // they run are bound there and guaranteed again, oldest first, none past a waiting
  // job of its VC of higher priority (promotion.cpp); returns their names. Hosts call
  // it after Finish. A separate step, so that Finish stays what WillRun's trial does
  // when it ends a job: a trial does not foresee promotions.
  const std::vector<std::string>& PromoteDemoted();
  // Placement searches in VCs' virtual cells so far: which answers cost none (a job
  // whose VC quota is in use) is a property the tests pin, not a timing.
  uint64_t VirtualSearches() const { return virtual_searches_; }
  // Backfill's "when and where" (will_run.cpp): the running jobs in `ends` end
  // tentatively, earliest end time first (a group of equal end times at once), and
  // after each group the job is tried as a dry run; the first placement is *out and
  // its end time *start (0: it fits with no job ended, -1: it never fits). Ends of 0
  // or less and unknown jobs are ignored. Every change is undone before it returns:
  // the state afterwards is exactly the state before.
  struct JobEnd {
    const char* job = nullptr;  // the caller's text, not copied: backfill passes thousands
    int64_t end = 0;
  };
  // The caller's list of ends, read where it lies: a copy per question would be
  // O(running jobs), and a copy kept between questions costs memory per running job.
  class EndList {
   public:
    virtual ~EndList() = default;
    virtual size_t size() const = 0;
    virtual JobEnd operator[](size_t i) const = 0;
  };
  // A nonzero ends_gen is the caller's number for `ends`: the same number with as many
  // ends vouches for the same list (not its address), so a repeated question need not
  // read it (O(1)). Without a number nothing is kept: each question is its own trial.
  Status WillRun(const Request& req, const EndList& ends, Decision* out, int64_t* start,
                 uint64_t ends_gen = 0);
  // What WillRun's last call did, by class of the running jobs its trial ended and put
  // back: what a question costs is mostly those (hived-bench reports them). The answer
  // never depends on these counts.
  struct TrialCounts {
    bool memo = false;                // answered from the memo: no trial at all
    int64_t ended_own = 0;            // the asking VC's guaranteed jobs
    int64_t ended_guaranteed = 0;     // other VCs' guaranteed jobs
    int64_t ended_opportunistic = 0;  // opportunistic jobs of any VC
    int32_t decisions = 0;            // dry runs of the job asked
    // Only the asking VC's own jobs ended: the VC's guarantee gives the start time
    // without the rest (will_run.cpp, TrialEnds::GuaranteeAnswers).
    bool by_guarantee = false;
  };
  const TrialCounts& LastTrial() const { return last_trial_; }
  // The end times (end, place in the caller's list) in end order, read lazily, in one
  // array: [0, heap) is a heap with the earliest on top; what trials took from it
  // lies behind it, earliest at the back (the k-th end is keys[size - 1 - k]).
  struct EndOrder {
    std::vector<std::pair<int64_t, size_t>> keys;
    size_t heap = 0;
    // What a trial reads of the job at each place of the list, looked up once for
    // every trial asked while the job table is unchanged (a trial restores it); a
    // lookup by name costs ~100 ns, mostly a cache miss on the job's record.
    struct Class {
      int32_t vc = -1;
      int16_t chain = -1;
      uint8_t state = 0;  // kUnread, kNotHeld, kOpportunistic or kGuaranteed
    };
    enum : uint8_t { kUnread = 0, kNotHeld, kOpportunistic, kGuaranteed };
    std::vector<Class> classes;  // by place in the list; empty: none read yet
  };
  // GPUs of the placement the config does not have (an unknown node or GPU index) are
  // left out and the job is demoted; each is named in *dropped (may be null). Only a job
  // with no known GPU at all is refused.
  Status AddRunning(const RunningJob& rj, bool* demoted,
                    std::vector<std::string>* dropped = nullptr);
  Status SetNodeHealth(const std::string& node, bool healthy);
  // Moves every running job of *this into `next` (built from a new config): jobs that no
  // longer fit their VC are demoted, jobs the config demoted earlier that fit again are
  // promoted, GPUs on nodes that no longer exist are dropped (the rest of the job stays,
  // demoted). (reconfigure.cpp)
  Status TransferJobsTo(Engine* next, TransferReport* report) const;
  // VCs that `next` lacks although guaranteed jobs run in them, in config order.
  VcJobs RemovedVcsWithJobs(const Engine& next) const;

  // Guaranteed jobs whose last decision was "wait", by VC name: doomed cells are
  // charged to VCs without waiting work first. A mark goes when the job is placed,
  // finished or recorded running; snapshots and reconfigurations keep the marks.
  struct WaitingJob {
    std::string job, vc;
    int priority;
  };
  std::vector<WaitingJob> WaitingJobs() const;
  // Without its priority (an older snapshot) the highest stands in for it until the
  // job's next decision: no demoted job of its VC is promoted past it meanwhile.
  void NoteWaiting(const std::string& job, const std::string& vc, int priority = 1000);
  // Drops the marks of jobs `keep` says no longer wait (a host that is told of no
  // cancellation of a pending job asks its own queue); returns how many went.
  size_t ForgetWaiting(bool (*keep)(const char* job, void* arg), void* arg);

  bool HasJob(const std::string& job) const { return jobs_.Find(job) >= 0; }
  bool JobMatches(const std::string& job, const std::vector<PlacedPod>& pods) const;
  std::vector<std::string> JobNames() const;
  size_t NodeCount() const { return node_names_.size(); }
  const std::string& NodeName(size_t i) const { return node_names_[i]; }
  int32_t NodeIndex(const std::string& name) const;
  bool NodeBad(size_t i) const { return node_bad_[i] != 0; }

  size_t VcCount() const { return vcs_.size(); }
  const std::string& VcName(size_t i) const { return vcs_[VcId(i)].name; }
  // GPUs of the VC's (non-pinned) cells no job holds; -1 for an unknown VC.
  int64_t VcFreeLeaves(const std::string& vc) const;
  // GPUs of its VC's non-pinned cells a running guaranteed job holds, and which VC
  // (0 and nullptr for opportunistic, pinned or unknown jobs).
  int64_t JobQuotaLeaves(const std::string& job, const std::string** vc) const;
  bool HasLeafType(const std::string& t) const;
  // The MIG profiles whose slices are leaf cells (childIsMigSlice chains), sorted.
  std::vector<std::string> MigProfiles() const;
  int32_t NodeLeafCount(size_t node) const;
  // GPUs of a whole-node pod on the node: its node cell in a chain of GPU model
  // `leaf_type` (nullptr: any, the largest; MIG slice chains never), 0 if none. The
  // node's cells in other chains (another model, MIG slices) are not the pod's.
  int32_t NodeCellLeafCount(size_t node, const std::string* leaf_type) const;
  // The largest NodeCellLeafCount a job could be given: in chains of `leaf_type`, and
  // with `vc`, chains it has cells in; with `nodes` (NodeCount() bytes, 0 = not
  // usable), only on the usable nodes. 0 when there is none (or the VC is unknown).
  // O(chains), with `nodes` O(nodes).
  int32_t LargestNodeLeafCount(const std::string* vc, const std::string* leaf_type,
                               const uint8_t* nodes = nullptr) const;
  // Whether `leaves` GPUs on the node are one whole node cell of a (non-MIG) chain of
  // GPU model `leaf_type` (nullptr: any).
  bool IsNodeCellSize(size_t node, int32_t leaves, const std::string* leaf_type) const;
  // The next smaller node size for an exclusive job whose nodes of size `below` (or
  // larger) cannot be had: LargestNodeLeafCount over the `nodes` whose pod of
  // `leaf_type` (NodeCellLeafCount) is smaller than `below`. With `sized`
  // (NodeCount() bytes), written only when the size is not 0: 1 for each such node
  // with a node cell of that size. O(chains) when no chain has a smaller node, else
  // O(nodes).
  int32_t NextNodeLeafCount(const std::string* vc, const std::string* leaf_type,
                            const uint8_t* nodes, int32_t below, uint8_t* sized) const;
  const std::string* NodeParentType(size_t node) const;
  const std::string* NodeChildType(size_t node, int32_t leaves) const;
  size_t ChainCount() const { return chains_.size(); }
  // The chain's top cell type: its name in the status and topology.
  const std::string& ChainName(size_t i) const { return chains_[ChainId(i)].top; }
  // Leaf cells in one GPU: 1, or in a chain with levels below the GPU its fractions.
  int64_t ChainLeavesPerGpu(size_t i) const;

  std::string InspectCluster() const;
  std::string InspectTopology() const;
  Status InspectVc(const std::string& vc, std::string* json) const;
  Status InspectJob(const std::string& job, std::string* json) const;
  // Jobs and bad nodes as JSON (the config is kept by the caller).
  std::string SnapshotState() const;
  std::vector<RunningJob> RunningJobs() const;
  // "" when every invariant holds, else which one broke and where.
  std::string CheckInvariants() const;
  // What `req` asks of the cells of chain `chain` (constraints.h), its VC and pinned
  // cell resolved from the request; out->usable says whether the chain can hold it.
  Status CompileConstraints(const Request& req, int chain, Constraints* out) const;
  size_t MemoryBytes() const;

 private:
  // 1 per chain an exclusive job's whole node could be a node cell of: not MIG
  // slices, of `leaf_type` (nullptr: any), with `vc` the VC's chains (none when
  // unknown).
  std::vector<uint8_t> WholeNodeChains(const std::string* vc, const std::string* leaf_type) const;
  friend struct VirtualView;
  friend class FitBound;
  friend class ParkedEnds;
  friend class TrialEnds;
  friend struct PhysicalView;
  friend class Preemption;
  friend class Binder;
  friend class InvariantCheck;
  // --- buddy: the allocator over the store (buddy.h) ---
  void FreeInsert(PCellId c) { Buddy(*this).FreeInsert(c); }
  void FreeErase(PCellId c) { Buddy(*this).FreeErase(c); }
  void FreeRefile(PCellId c) { Buddy(*this).FreeRefile(c); }
  PCellId FreeAncestor(PCellId c) const { return BuddySafety(*this).FreeAncestor(c); }
  PCellId BuddyAlloc(ChainId chain, int level, const std::vector<uint8_t>& allowed,
                     PCellId near = kNone) {
    return Buddy(*this).Alloc(chain, level, allowed, near);
  }
  bool BuddyTake(PCellId c) { return Buddy(*this).Take(c); }
  void BuddyRelease(PCellId c) { Buddy(*this).Release(c); }
  int64_t Obtainable(ChainId chain, int level, bool healthy_only) const {
    return BuddySafety(*this).Obtainable(chain, level, healthy_only);
  }
  int64_t Demand(ChainId chain, int level) const { return BuddySafety(*this).Demand(chain, level); }
  int64_t HealthyDesc(PCellId c, int level) const {
    return BuddySafety(*this).HealthyDesc(c, level);
  }
  bool CanSplitSafely(PCellId from, int to_level) const {
    return BuddySafety(*this).CanSplitSafely(from, to_level);
  }
  bool CanTakeSafely(PCellId c) const { return BuddySafety(*this).CanTakeSafely(c); }
  // --- counts ---
  void SetLeafJob(PCellId pleaf, int job, bool opportunistic);
  void ClearLeafJob(PCellId pleaf, bool opportunistic);
  void SetVleafJob(VCellId vleaf, int job);
  void ClearVleafJob(VCellId vleaf);
  // Adds (sign 1) or takes off (-1) the job's virtual leaves in its VC's count for
  // its priority; Set/ClearVleafJob leave that count to the caller.
  void CountVleaves(int slot, int64_t sign);
  void UnitUpdate(VCellId vunit, int32_t before, int32_t after);
  void NodeUpdate(PCellId pnode, int32_t before, int32_t after);
  // Best-fit indexes move once per unit per decision, not once per GPU.
  void NoteIndex(PCellId node, int32_t before) { NoteIndex(node.v, before, false); }
  void NoteIndex(VCellId unit, int32_t before) { NoteIndex(unit.v, before, true); }
  void NoteIndex(int32_t cell, int32_t before, bool is_virtual);
  void FlushIndexes();
  // --- scheduling (schedule.cpp, placement.cpp, constraints.cpp) ---
  bool Compile(const Request& req, ChainId chain, const VcChain* vch, VCellId pinned_root,
               Constraints* out) const;
  VCellId PinnedRoot(VcId vc, const std::string& pinned_id) const;  // kNone: no such cell
  Status Validate(const Request& req, std::vector<ChainId>* chains, Decision* d) const;
  Status ValidateFields(const Request& req, VcId* vc) const;
  Status ValidateMembers(const Request& req) const;
  Status FittingChains(const Request& req, VcId vc, std::vector<ChainId>* chains,
                       std::string* shape_why) const;
  // What Validate learns of a request's size against the chains it may use.
  struct Capacity {
    bool any = false;           // some chain can hold it
    bool pod_too_big = false;   // a pod exceeds its podWithinCellType
    bool vc_too_small = false;  // the cluster could hold it, its VC's cells cannot
    int max_pod = 0;            // of the last chain counted
    int64_t total = 0;          // of the last chain counted
    int64_t vc_cap = 0, vc_unit = 0;
  };
  void CapacityIn(const Request& req, VcId vc, ChainId chain, Capacity* k) const;
  void NeverFits(const Request& req, const std::string& unit, const Capacity& k, Decision* d) const;
  // idle_only: count only free GPUs that bind to idle physical ones (no opportunistic job).
  bool PlaceVirtual(const Request& req, VcId vc, ChainId chain, VCellId pinned_root, bool preempt,
                    std::vector<VCellId>* vleaves, bool idle_only = false) const;
  bool PlacePhysical(const Request& req, ChainId chain, std::vector<PCellId>* pleaves) const;
  void MarkWaiting(const std::string& job, VcId vc, int priority);
  void WaitReason(const Request& req, VcId vc, VCellId pinned_root,
                  const std::vector<ChainId>& chains, bool found_virtual, Decision* d) const;
  // *taken (may be null) receives the job's record instead of it being dropped.
  void ReleaseJob(int slot, Job* taken = nullptr);
  // Adds (sign 1) or takes back (-1) the job's leaves in its VC's usage counters.
  void CountVcUse(const Job& j, int sign);
  // WillRun's trial (will_run.cpp): end the jobs of *slots into *ended; put them back.
  void EndJobs(std::vector<int>* slots, std::vector<Job>* ended);
  void PutBack(std::vector<Job>* ended);
  bool Reinstate(Job record);
  bool CommitGuaranteed(const Request& req, VcId vc, ChainId chain,
                        const std::vector<VCellId>& vleaves, Decision* d, JobSnapshot* undo,
                        int* slot_out);
  int OpenJob(const Request& req, VcId vc, ChainId chain);
  bool BindLeaves(const Constraints& k, ChainId chain, const std::vector<VCellId>& vleaves,
                  int slot, std::vector<PCellId>* pleaves);
  bool PhysicalOk(const Constraints& k, const std::vector<PCellId>& pleaves) const;
  bool InOneCell(const std::vector<PCellId>& pleaves, int level) const;
  bool SubmitGuaranteed(const Request& req, const std::vector<ChainId>& chains, Decision* d,
                        JobSnapshot* undo, int* slot);
  bool SubmitBorrowed(const Request& req, const std::vector<ChainId>& chains, int* slot,
                      std::string* why);
  bool Promote(int slot);  // promotion.cpp
  bool SubmitOpportunistic(const Request& req, const std::vector<ChainId>& chains, Decision* d,
                           int* slot);
  void OpenOpportunistic(const Request& shaped, VcId vc, ChainId chain,
                         const std::vector<PCellId>& pleaves, int* slot);
  std::vector<Request> RackTries(const Request& req, const Constraints& k, ChainId chain) const;
  // --- a count-only job split over its VC's free cells (split.cpp) ---
  bool SubmitSplit(const Request& req, const std::vector<ChainId>& chains, Decision* d,
                   JobSnapshot* undo, int* slot);
  std::vector<int> SplitSizes(const Request& req, VcId vc, ChainId chain, int64_t gpus,
                              int min_pod) const;
  int64_t SplitGpus(const Request& req) const;
  int SplitMinPod(ChainId chain, int64_t gpus) const;
  static Request SplitRequest(const Request& req, const std::vector<int>& sizes);
  bool SubmitOpportunisticSplit(const Request& req, const std::vector<ChainId>& chains, int* slot);
  std::vector<int> IdleSplitSizes(const Request& req, ChainId chain, int64_t gpus,
                                  int min_pod) const;
  bool TryCommit(const Request& t, VcId vc, ChainId chain, VCellId pinned_root, bool preempt,
                 const std::vector<VCellId>& vleaves, Decision* d, JobSnapshot* undo, int* slot);
  std::vector<int> Spans(int slot) const;
  bool CommitWithoutVictims(const Request& req, VcId vc, ChainId chain, VCellId pinned_root,
                            const std::vector<VCellId>& first, Decision* d, JobSnapshot* undo,
                            int* slot);
  PCellId FindGpuCell(int32_t node, int32_t gpu, ChainId chain) const;
  // --- fractions (fractions.cpp) ---
  bool ShapeFor(const Request& req, ChainId chain, Request* out, std::string* why) const;
  // The same for the members alone: the counting steps need no copy of the request's
  // names and node list.
  bool ShapeMembers(const Request& req, ChainId chain, std::vector<Member>* members,
                    std::string* why) const;
  bool ShapeInPlace(ChainId chain, std::vector<Member>* members, int* grain,
                    std::string* why) const;
  int32_t LeafSlot(PCellId leaf) const;
  PCellId LeafAt(PCellId gpu_cell, int32_t slot) const;
  PlacedPod PodPlacement(const PodRef& p) const;
  // A pod as AddRunning reads it back; its vleaves (from `at` in `vleaves`) are
  // appended to *out in the order AddRunning lists the leaves.
  PlacedPod RunningPod(const PodRef& p, VCellSpan vleaves, size_t at,
                       std::vector<VCellId>* out) const;
  int GrainOf(ChainId chain, PCellSpan pod_leaves) const;
  // For wait reasons of a fractional request: ": one 'X' cell; its cells: 2 'A', 1 'B'"
  // (the cell each pod takes, and the VC's quota cells in those chains); "" otherwise.
  std::string FractionalNeedText(const Request& req, VcId vc,
                                 const std::vector<ChainId>& chains) const;
  // Slots freed at a peak of jobs would otherwise stay allocated for good (issue 18):
  // the table moves live jobs down, their cells take the new slot numbers.
  void CompactJobs();
  int64_t ShapedNeed(const Request& req, const std::vector<ChainId>& chains) const;
  std::string LeafWord(const std::vector<ChainId>& chains) const;
  void FillDecisionPods(const Job& j, Decision* d) const;
  Status AddRunningImpl(const RunningJob& rj, bool* demoted, std::vector<std::string>* dropped);
  Status RunningLeaves(const RunningJob& rj, std::vector<std::vector<PCellId>>* leaves,
                       std::vector<std::string>* missing, ChainId* chain) const;
  Status PodLeaves(const PlacedPod& pp, const std::string& w,
                   std::vector<std::vector<PCellId>>* leaves, std::vector<int32_t>* absent,
                   ChainId* chain) const;
  bool BindRunning(const RunningJob& rj, VcId vc, ChainId chain,
                   const std::vector<std::vector<PCellId>>& leaves, int slot);
  // [VC][its chain k][level] doomed cells.
  using Doomed = IdVector<VcId, std::vector<std::vector<int64_t>>>;
  void DoomedPerVc(Doomed* doomed) const;
  std::string VcJson(VcId vc, const Doomed& doomed) const;

  JobTable jobs_;
  std::vector<std::string> promoted_;  // by the last PromoteDemoted
  struct WaitMark {
    VcId vc;
    int priority;
  };
  std::map<std::string, WaitMark> waiting_;  // by job, see WaitingJobs()
  bool trial_ = false;                       // inside WillRun: decisions leave no waiting marks
  // WillRun's answers (will_run.cpp) for the state and the end times they were asked
  // with, by the request's shape (everything but its name).
  struct WillRunMemo {
    uint64_t changes = 0;           // jobs_.Changes() when they were right
    std::vector<uint8_t> node_bad;  // node_bad_ then
    uint64_t ends_gen = 0;          // the caller's number for the list (0: none kept)
    size_t n_ends = 0;              // and its length: a shorter prefix is another list
    struct Answer {
      Decision d;
      int64_t start = -1;
      bool by_guarantee = false;  // TrialCounts::by_guarantee of the trial that gave it
    };
    std::unordered_map<std::string, Answer> answers;
    EndOrder order;  // of that list, kept for the next question's trial
  };
  WillRunMemo memo_;
  TrialCounts last_trial_;
  size_t MemoBytes() const;
  // Frees the memo once a job has started or ended: what it holds is never read again.
  void DropStaleMemo();
  Status WillRunTrial(const Request& req, const EndList& ends, EndOrder* order, Decision* out,
                      int64_t* start);
  // Inside WillRun's tries: a job that waits gets no reason (WaitReason searches again,
  // preemption included); only the last decision, if it waits, is asked with one.
  bool no_reason_ = false;
  mutable uint64_t virtual_searches_ = 0;
  // Scratch for the preemption search: per-virtual-cell counts valid for one epoch.
  mutable IdVector<VCellId, uint32_t> scratch_stamp_;
  mutable IdVector<VCellId, std::pair<int32_t, int32_t>> scratch_count_;
  mutable uint32_t scratch_epoch_ = 0;
  struct IndexMove {
    int32_t cell;  // a virtual unit or a physical node-level cell
    int32_t before;
    bool is_virtual;
  };
  std::vector<IndexMove> index_moves_;
};

}  // namespace hived
