// SPDX-License-Identifier: GPL-2.0-or-later
// Backfill's WILL_RUN on the live engine: a trial that is undone, not a copy.
//
// Copying the engine costs O(cluster) per question (every cell, free list and index),
// and backfill asks once per pending job per pass under slurmctld's locks. The trial
// touches only what the answer needs: the jobs that end before the asked job fits
// are released (ReleaseJob: their cells, bindings and counters), the job is tried as
// a dry run (which undoes itself, as every dry run does), and the released jobs are
// reinstated exactly (Reinstate: the same physical and virtual leaves, so the same
// bindings) - the machinery preemption's rollback already relies on. The end times
// are a heap, so only the jobs that end are ordered and looked up: O(n) to build it,
// then O(log n) per job ended; the part ordered stays ordered for the next question
// asked with the same list. A decision is asked only at an end time where enough of
// the cells the job needs could be free (FitBound, counted from the ended jobs' leaves
// without ending them); jobs end for real, in end order, just before that decision, so
// it sees exactly the state a decision after every end time would have seen. Jobs of
// other VCs in chains the request cannot use do not end at all: a decision reads only
// the cells of its chains and its own VC's counters, so the answer is the same. For a
// guaranteed decision, other VCs' guaranteed jobs end only together with the last job
// of their preassigned cell (ParkedEnds, below): until then their GPUs lie in cells
// the decision does not read.
//
// Answers are kept per request shape (WillRun's memo, below) while the job table,
// the nodes' health and the caller's numbered list of end times are unchanged:
// backfill asks of one state about many jobs of few shapes. The list itself is read
// where the caller keeps it; the memo keeps only its order (doc/bench.md, eleventh
// round: a copy of the names cost 40 bytes per running job). Kept trial state (ending only the
// difference from the last question) was measured not to pay: questions come in no time order, so
// it would move about as many jobs as a fresh trial ends (doc/bench.md, sixth round).
#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/engine.h"
#include "core/fit_bound.h"

namespace hived {

namespace {

// Sets a flag of the engine for as long as it lives.
class FlagScope {
 public:
  explicit FlagScope(bool* flag) : flag_(flag) { *flag_ = true; }
  ~FlagScope() { *flag_ = false; }
  FlagScope(const FlagScope&) = delete;
  FlagScope& operator=(const FlagScope&) = delete;

 private:
  bool* flag_;
};

using EndKey = std::pair<int64_t, size_t>;  // an end time, its place in the caller's list
// Equal end times end together, in the caller's order: pairs compare that way.
using Later = std::greater<EndKey>;

// The caller's end times, none read yet; ends of 0 or less and unnamed jobs are left
// out.
void BuildOrder(const Engine::EndList& ends, Engine::EndOrder* order) {
  order->keys.clear();
  order->keys.reserve(ends.size());
  for (size_t i = 0; i < ends.size(); i++) {
    const Engine::JobEnd e = ends[i];
    if (e.end > 0 && e.job) order->keys.emplace_back(e.end, i);
  }
  std::make_heap(order->keys.begin(), order->keys.end(), Later());
  order->heap = order->keys.size();
}

// Reads an EndOrder from its start, sorting from the heap only what no earlier trial
// read: heapsort in place, one step per end taken, so the order costs one key per end
// and never allocates during a trial.
class EndCursor {
 public:
  explicit EndCursor(Engine::EndOrder* order) : o_(order) {}
  size_t Total() const { return o_->keys.size(); }
  bool Done() const { return pos_ >= Total(); }
  const EndKey& Peek() const { return pos_ < Taken() ? o_->keys[Total() - 1 - pos_] : o_->keys[0]; }
  EndKey Take() {
    if (pos_ >= Taken()) {
      // The earliest left moves to the heap's last place, which then joins the taken.
      std::pop_heap(o_->keys.begin(), o_->keys.begin() + static_cast<std::ptrdiff_t>(o_->heap),
                    Later());
      o_->heap--;
    }
    return o_->keys[Total() - 1 - pos_++];
  }

 private:
  size_t Taken() const { return Total() - o_->heap; }
  Engine::EndOrder* o_;
  size_t pos_ = 0;
};

}  // namespace

// Another VC's guaranteed job holds GPUs of cells bound to that VC. A guaranteed,
// unpinned decision without a rack constraint reads its own VC's virtual cells and
// counters, the chain's free lists (the buddy allocator's) and the physical cells on
// them (their opportunistic runs, idle GPUs), and none of these is such a cell until
// the last job in one of that VC's preassigned cells ends: the cell is then unbound
// and given back to the buddy allocator (Binder::UnbindUp). So such jobs are parked
// here, counted per preassigned cell, and the jobs of a cell go to end together when
// its last one would; the jobs of a pinned cell, which never unbinds, stay parked. At
// 10k GPUs they were ~78% of what a first question's trial ended (doc/bench.md).
class ParkedEnds {
 public:
  explicit ParkedEnds(const Engine& e) : e_(e), out_(e.jobs_.size(), 0) {}
  // The job in `slot` (live, guaranteed, another VC's) will have ended; the jobs of
  // every preassigned cell that it leaves empty are appended to *ending.
  void Park(int slot, std::vector<int>* ending) {
    parked_.push_back(slot);
    const Job& j = e_.jobs_[slot];
    for (VCellId v : j.Vleaves()) {
      const VCellId r = e_.vcells_[v].root;
      const VCell& root = e_.vcells_[r];
      if (root.pinned) continue;
      auto [it, fresh] = roots_.try_emplace(r.v);
      Root& c = it->second;
      if (fresh) {
        const Chain& ch = e_.chains_[root.chain];
        c.held = ch.desc[Level(root.level)][Level(1)] - root.vfree;
      }
      if (c.jobs.empty() || c.jobs.back() != slot) c.jobs.push_back(slot);
      if (--c.held == 0) Send(&c.jobs, ending);
    }
  }
  // Every job still parked: the decision after the last end time reads them all.
  void Flush(std::vector<int>* ending) { Send(&parked_, ending); }

 private:
  struct Root {
    int64_t held = 0;       // its virtual leaves whose job is not parked
    std::vector<int> jobs;  // parked in it
  };
  void Send(std::vector<int>* slots, std::vector<int>* ending) {
    for (int s : *slots)
      if (!out_[static_cast<size_t>(s)]) {
        out_[static_cast<size_t>(s)] = 1;
        ending->push_back(s);
      }
    slots->clear();
  }
  const Engine& e_;
  std::unordered_map<int32_t, Root> roots_;
  std::vector<int> parked_;
  std::vector<uint8_t> out_;  // by slot: gone to end
};

// The jobs of the caller's list, as a trial takes them in end order: which must have
// ended before its next decision, and whether that decision could place the job.
class TrialEnds {
 public:
  using Class = Engine::EndOrder::Class;
  // vc: the request's (kNone: opportunistic without one). by_guarantee: only the VC's
  // own guaranteed jobs end (GuaranteeAnswers says when that leaves the start time as
  // it is). classes: the order's, kept between trials of one job table.
  TrialEnds(const Engine& e, const Request& req, VcId vc, std::vector<ChainId> chains,
            bool by_guarantee, const Engine::EndList& ends, std::vector<Class>* classes)
      : e_(e),
        chains_(std::move(chains)),
        vc_(vc),
        bound_(e, req, chains_),
        noted_(e.jobs_.size(), 0),
        by_guarantee_(by_guarantee),
        ends_(ends),
        classes_(classes) {
    if (!by_guarantee_ && Unconstrained(req, vc_)) parked_ = std::make_unique<ParkedEnds>(e);
    if (classes_->size() != ends_.size()) classes_->assign(ends_.size(), Class());
  }
  // A guaranteed request that names no pinned cell and no cell to stay within: its
  // decision binds the VC's own virtual cells wherever the buddy allocator finds
  // physical ones. Not one that may borrow idle GPUs (Request::borrow_idle): any job
  // that ends may leave it room.
  static bool Unconstrained(const Request& req, VcId vc) {
    return req.priority >= 0 && vc.valid() && req.pinned_id.empty() && req.within_type.empty() &&
           !req.borrow_idle;
  }
  // HiveD's guarantee: a VC's free virtual cells can always be bound to physical cells
  // that no other VC's guaranteed job holds (the invariant checker's "VC cells always
  // obtainable"), opportunistic runs being displaced. So when such a request may use
  // every healthy node of its chains and the healthy free cells cover every VC's
  // unbound cells at each level (no cell doomed: bad nodes, if any, are not needed), it is
  // placed at the first end time its own VC's ends free its virtual cells (or let it
  // preempt its VC's lower-priority jobs), whatever else has ended by then: other
  // VCs' guaranteed jobs and opportunistic runs need not end at all. Only where it is
  // placed may differ (cells they would have left empty), and that placement can be
  // taken at that time whatever they do, its victims being preemptible anyway. At
  // 10k GPUs they were 91-97% of what a churned cluster's first questions ended
  // (doc/bench.md, fourteenth round).
  static bool GuaranteeAnswers(const Engine& e, const Request& req, VcId vc,
                               const std::vector<ChainId>& chains) {
    if (!Unconstrained(req, vc)) return false;
    for (ChainId c : chains) {
      const Chain& ch = e.chains_[c];
      for (int l = 1; l <= ch.levels; l++)
        if (e.Demand(c, l) > e.Obtainable(c, l, true)) return false;
      // A node left out because it is bad (Slurm leaves down and drained nodes out of
      // backfill's) is counted above already.
      if (!req.allowed.empty())
        for (PCellId x : ch.cells_at_level[Level(ch.node_level)]) {
          const size_t n = static_cast<size_t>(e.pcells_[x].node);
          if (!req.allowed[n] && !e.NodeBad(n)) return false;
        }
    }
    return true;
  }
  // The job at `place` in the caller's list will have ended: what must end with it
  // goes to *ending (each job once); returns how many went.
  size_t Add(size_t place, std::vector<int>* ending) {
    const Class c = ClassAt(place);
    if (c.state == Engine::EndOrder::kNotHeld) return 0;
    const bool guaranteed = c.state == Engine::EndOrder::kGuaranteed;
    const bool own = c.vc == vc_.v;
    // A job of another VC in a chain the request cannot use changes nothing the
    // decision reads (its chain's cells, its VC's counters): it need not end.
    if (!own && std::find(chains_.begin(), chains_.end(), ChainId(c.chain)) == chains_.end())
      return 0;
    if (by_guarantee_ && !(guaranteed && own)) return 0;
    const int slot = e_.jobs_.Find(ends_[place].job);
    if (noted_[static_cast<size_t>(slot)]) return 0;  // named twice
    noted_[static_cast<size_t>(slot)] = 1;
    const size_t before = ending->size();
    if (parked_ && guaranteed && !own)
      parked_->Park(slot, ending);
    else
      ending->push_back(slot);
    for (size_t k = before; k < ending->size(); k++) bound_.Note((*ending)[k]);
    return ending->size() - before;
  }
  // Not enough cells free up for the job's pods: the same decision as before.
  bool MayFit() const { return bound_.MayFit(); }
  // The decision after the last end time, which says why the job still waits.
  void Flush(std::vector<int>* ending) {
    if (parked_) parked_->Flush(ending);
  }

 private:
  Class ClassAt(size_t place) {
    Class& c = (*classes_)[place];
    if (c.state != Engine::EndOrder::kUnread) return c;
    const int slot = e_.jobs_.Find(ends_[place].job);
    if (slot < 0) {
      c.state = Engine::EndOrder::kNotHeld;
      return c;
    }
    const Job& j = e_.jobs_[slot];
    c.vc = j.vc.v;
    c.chain = j.chain.v;
    c.state = j.guaranteed() ? Engine::EndOrder::kGuaranteed : Engine::EndOrder::kOpportunistic;
    return c;
  }

  const Engine& e_;
  std::vector<ChainId> chains_;  // the request's
  VcId vc_ = kNone;
  FitBound bound_;
  std::unique_ptr<ParkedEnds> parked_;  // for the decisions ParkedEnds describes
  std::vector<uint8_t> noted_;          // by slot
  bool by_guarantee_ = false;
  const Engine::EndList& ends_;
  std::vector<Class>* classes_;
};

// In end order, as if each had ended at its time: the state is the same.
void Engine::EndJobs(std::vector<int>* slots, std::vector<Job>* ended) {
  for (int slot : *slots) {
    ended->emplace_back();
    ReleaseJob(slot, &ended->back());
  }
  slots->clear();
}

// Guaranteed jobs first: they need their exact bindings back before opportunistic
// work lands on the same free cells' lists.
void Engine::PutBack(std::vector<Job>* ended) {
  no_reason_ = false;
  for (int pass = 0; pass < 2; pass++)
    for (auto it = ended->rbegin(); it != ended->rend(); ++it)
      if (it->guaranteed() == (pass == 0)) Reinstate(std::move(*it));
  ended->clear();
}

namespace {

// The number of fields of an aggregate: the most initializers it takes.
struct AnyField {
  template <class U>
  operator U() const;
};
template <class T, class Seq, class = void>
struct Takes : std::false_type {};
template <class T, size_t... I>
struct Takes<T, std::index_sequence<I...>, std::void_t<decltype(T{(void(I), AnyField{})...})>>
    : std::true_type {};
template <class T, size_t N = 0>
constexpr size_t FieldCount() {
  if constexpr (Takes<T, std::make_index_sequence<N + 1>>::value)
    return FieldCount<T, N + 1>();
  else
    return N;
}

// Everything of a request a decision reads, its name aside (the name only decides
// whether the request is refused, which is checked before the memo is).
std::string ShapeKey(const Request& req) {
  // Fails when Request gains a field: the memo would answer for a request that
  // differs only in it.
  static_assert(FieldCount<Request>() == 14,
                "a new Request field: add it to ShapeKey, or the memo answers wrongly");
  std::string k;
  auto text = [&](const std::string& s) {
    k += std::to_string(s.size());
    k += ':';
    k += s;
  };
  auto num = [&](int64_t v) {
    k += std::to_string(v);
    k += ',';
  };
  text(req.vc);
  num(req.priority);
  text(req.leaf_type);
  text(req.pinned_id);
  text(req.within_type);
  text(req.pod_within_type);
  // Not req.lazy: it is recorded on the job a dry run opens and reverts, and no
  // decision reads it, so a job array's lazy and plain twins share one trial (at 10k
  // GPUs a first question ends hundreds of jobs; doc/bench.md, ninth round).
  num(req.distinct_nodes);
  num(req.split_max_pods);
  num(req.borrow_idle);
  num(req.grain);
  num(static_cast<int64_t>(req.members.size()));
  for (const Member& m : req.members) {
    num(m.pods);
    num(m.leaves);
    num(m.fractions);
  }
  num(static_cast<int64_t>(req.allowed.size()));
  k.append(req.allowed.begin(), req.allowed.end());
  return k;
}

}  // namespace

namespace {

// Heap bytes behind a string: none while it fits the small-string buffer.
size_t HeapBytes(const std::string& s) {
  return s.capacity() > std::string().capacity() ? s.capacity() + 1 : 0;
}

template <class T>
size_t HeapBytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}

// An answer holds its pods (each with its GPU indices), victims and reason: a gang's
// is many times a single pod's, so a flat size per answer would undercount gangs.
size_t DecisionBytes(const Decision& d) {
  size_t b = HeapBytes(d.reason) + HeapBytes(d.pods) + HeapBytes(d.preempted) +
             HeapBytes(d.lazy_preempted);
  for (const PlacedPod& p : d.pods)
    b += HeapBytes(p.gpus) + HeapBytes(p.fractions) + HeapBytes(p.node_name);
  for (const std::string& s : d.preempted) b += HeapBytes(s);
  for (const std::string& s : d.lazy_preempted) b += HeapBytes(s);
  return b;
}

}  // namespace

// Everything the memo holds between calls: the end times' order, the answers (hash
// nodes, keys, decisions) and the health it was right for.
size_t Engine::MemoBytes() const {
  size_t b =
      HeapBytes(memo_.node_bad) + HeapBytes(memo_.order.keys) + HeapBytes(memo_.order.classes);
  // A node: the next pointer, the cached hash and the pair; plus the bucket array.
  using Answers = decltype(memo_.answers);
  b += memo_.answers.bucket_count() * sizeof(void*) +
       memo_.answers.size() * (2 * sizeof(void*) + sizeof(Answers::value_type));
  for (const auto& a : memo_.answers) b += HeapBytes(a.first) + DecisionBytes(a.second.d);
  return b;
}

// A started or ended job changes the job table, so the answers are void, and the
// caller's list of running jobs' ends changes with it (the plugin numbers the new
// one anew), so the order is too. Kept, they would only hold memory the status
// reports as the engine's (a few KiB after a flood: test_faults compares two).
void Engine::DropStaleMemo() {
  if (memo_.changes == jobs_.Changes() ||
      (memo_.answers.empty() && memo_.order.keys.capacity() == 0))
    return;
  memo_ = WillRunMemo();
}

// The memo: backfill asks of one unchanged state, with one list of end times, about
// many pending jobs of few shapes (job arrays); the same shape gets the same answer,
// and the end times a trial has put in order stay in order for the next one.
// It holds while the job table has not changed (every job started, ended, demoted or
// moved changes it; the trial's own ends and put-backs happen inside this call, which
// restores the state), no node's health has and the caller's number for its list is
// the same; reconfiguring builds a new engine. The list is known by its number alone:
// a caller that builds an equal list again keeps the number (hived_ends.c does).
Status Engine::WillRun(const Request& req, const EndList& ends, Decision* out, int64_t* start,
                       uint64_t ends_gen) {
  // The end times and their order depend on the caller's list alone: they stay.
  if (memo_.changes != jobs_.Changes() || memo_.node_bad != node_bad_) {
    memo_.answers.clear();
    memo_.order.classes.clear();
    memo_.node_bad = node_bad_;
  }
  // With no end times the question is one dry run: nothing worth keeping; without a
  // number nothing says that the next list is this one.
  const bool keep = ends_gen && ends.size() && !req.job.empty() && jobs_.Find(req.job) < 0;
  std::string key;
  if (keep) {
    if (ends_gen != memo_.ends_gen || ends.size() != memo_.n_ends) {
      // Built aside and then swapped in: running out of memory midway leaves no number
      // vouching for an order of another list.
      EndOrder order;
      BuildOrder(ends, &order);
      memo_.answers.clear();
      std::swap(memo_.order, order);
      memo_.ends_gen = ends_gen;
      memo_.n_ends = ends.size();
    }
    key = ShapeKey(req);
    auto it = memo_.answers.find(key);
    if (it != memo_.answers.end()) {
      last_trial_ = TrialCounts();
      last_trial_.memo = true;
      last_trial_.by_guarantee = it->second.by_guarantee;
      *out = it->second.d;
      *start = it->second.start;
      memo_.changes = jobs_.Changes();
      return Status::Ok();
    }
  }
  EndOrder fresh;
  EndOrder* order = &fresh;
  if (keep)
    order = &memo_.order;
  else
    BuildOrder(ends, &fresh);
  Status st = WillRunTrial(req, ends, order, out, start);
  if (st.ok() && keep) {
    // Bounded: a pass of backfill asks about a few hundred shapes at most.
    if (memo_.answers.size() >= 4096) memo_.answers.clear();
    memo_.answers.emplace(std::move(key),
                          WillRunMemo::Answer{*out, *start, last_trial_.by_guarantee});
  }
  memo_.changes = jobs_.Changes();
  return st;
}

Status Engine::WillRunTrial(const Request& req, const EndList& ends, EndOrder* order, Decision* out,
                            int64_t* start) {
  *start = -1;
  last_trial_ = TrialCounts();
  EndCursor next(order);
  auto vc_it = vc_index_.find(req.vc);
  const VcId vc = vc_it == vc_index_.end() ? VcId(kNone) : vc_it->second;

  FlagScope trial(&trial_);
  // Reserved up front so that putting the jobs back cannot fail for want of memory
  // in what this function owns: records move, slots return to a list with room.
  std::vector<Job> ended;
  // A trial ends each running job once at most, however long the caller's list.
  const size_t most = std::min(next.Total(), jobs_.IndexSize());
  ended.reserve(most);
  std::vector<int> pending;  // will have ended by `at`, not ended yet (see FitBound)
  pending.reserve(most);
  // The dry runs insert and erase the asked job (one empty place at most, its
  // tombstone after); ended jobs go back on their own tombstones (JobIndex::Insert).
  jobs_.Reserve(most, 2);
  auto end_pending = [&]() {
    for (int slot : pending) {
      const Job& j = jobs_[slot];
      (!j.guaranteed() ? last_trial_.ended_opportunistic
       : j.vc == vc    ? last_trial_.ended_own
                       : last_trial_.ended_guaranteed)++;
    }
    EndJobs(&pending, &ended);
  };
  auto decide = [&](Decision* d) {
    *d = Decision();
    last_trial_.decisions++;
    return Submit(req, true, d);
  };
  // Everything released comes back, even when a decision throws (out of memory).
  try {
    no_reason_ = true;
    Decision d;
    Status st = decide(&d);
    int64_t at = 0;
    std::unique_ptr<TrialEnds> taken;  // built when the first end is taken
    // A rejected job and one larger than its VC fit after no end of running jobs.
    while (st.ok() && d.outcome == Outcome::kWaiting && d.wait != Wait::kVcTooSmall &&
           !next.Done()) {
      if (!taken) {
        Decision v;
        std::vector<ChainId> chains;
        Validate(req, &chains, &v);
        last_trial_.by_guarantee = TrialEnds::GuaranteeAnswers(*this, req, vc, chains);
        taken = std::make_unique<TrialEnds>(*this, req, vc, std::move(chains),
                                            last_trial_.by_guarantee, ends, &order->classes);
      }
      at = next.Peek().first;
      size_t added = 0;
      while (!next.Done() && next.Peek().first == at)
        added += taken->Add(next.Take().second, &pending);
      // Nothing changed, or not enough cells free up for the job's pods: the same
      // decision as before, without asking.
      if (!added || !taken->MayFit()) continue;
      end_pending();
      st = decide(&d);
    }
    // The answer a caller reads says why the job still waits.
    no_reason_ = false;
    if (st.ok() && d.outcome == Outcome::kWaiting) {
      if (taken) taken->Flush(&pending);
      end_pending();
      st = decide(&d);
    }
    PutBack(&ended);
    if (!st.ok()) return st;
    if (d.outcome == Outcome::kPlaced) *start = at;
    *out = std::move(d);
    return Status::Ok();
  } catch (...) {
    PutBack(&ended);
    throw;
  }
}

}  // namespace hived
