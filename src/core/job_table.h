// SPDX-License-Identifier: GPL-2.0-or-later
// The engine's running jobs: their records in reusable slots, the name index, the
// interned strings the records share, and submission order. The table knows nothing
// of cells: a record's slot number is written into the cells it holds, so the engine
// says what a slot move means (Compact) and does every count update itself.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/job_index.h"
#include "core/model.h"

namespace hived {

class JobTable {
 public:
  // Every slot, live or free (a free slot holds an empty record, live false).
  size_t size() const { return jobs_.size(); }
  // Writable access counts as a change (see Changes).
  Job& operator[](int slot) {
    changes_++;
    return jobs_[static_cast<size_t>(slot)];
  }
  const Job& operator[](int slot) const { return jobs_[static_cast<size_t>(slot)]; }
  std::vector<Job>::const_iterator begin() const { return jobs_.begin(); }
  std::vector<Job>::const_iterator end() const { return jobs_.end(); }

  // An empty record's slot (a freed one first). The caller fills it and calls Index.
  int NewSlot();
  // Grows on every way the table can change (a slot taken or freed, a record written,
  // the index or the slots rearranged): WillRun's memo holds its answers only while
  // this is where it was.
  uint64_t Changes() const { return changes_; }
  // The record goes (moved to *taken when not null), its name leaves the index and
  // its slot is reused. Allocates nothing when Reserve(n) preceded n frees.
  void Free(int slot, Job* taken = nullptr);
  // The live job of that name, -1 if none.
  int Find(std::string_view name) const { return index_.Find(name, NameOf{&jobs_}); }
  void Index(int slot) {
    changes_++;
    index_.Insert(slot, NameOf{&jobs_});
  }
  void Unindex(std::string_view name) {
    changes_++;
    index_.Erase(name, NameOf{&jobs_});
  }
  size_t IndexSize() const { return index_.size(); }
  // Room for `frees` slots to be freed and `inserts` new names without allocating
  // (WillRun ends and puts back jobs under slurmctld's locks, and must not fail midway).
  void Reserve(size_t frees, size_t inserts);

  // Many free slots after a peak: worth moving live records down (only between
  // decisions: a decision holds slot numbers).
  bool WantsCompaction() const { return free_.size() > 64 && free_.size() * 4 > jobs_.size(); }
  // Live records from the end move into the lowest free slots and the storage shrinks;
  // moved(job, to) is called after each move so that the caller renumbers its cells.
  template <class Moved>
  void Compact(Moved moved);

  // Interned strings of job records (VC asked for, pinned cell, GPU model): a handful
  // of distinct values shared by every job. Never shrinks.
  StrId Intern(const std::string& s);
  const std::string& Str(StrId id) const { return strings_[static_cast<size_t>(id)]; }

  // Slots of the live jobs, oldest submission first.
  std::vector<int> InSubmissionOrder() const;
  size_t Bytes() const;

  uint64_t next_seq = 1;  // the next job's submission order

 private:
  struct NameOf {
    const std::vector<Job>* jobs;
    const std::string& operator()(int s) const { return (*jobs)[static_cast<size_t>(s)].name; }
  };
  std::vector<Job> jobs_;
  std::vector<int> free_;
  uint64_t changes_ = 0;
  JobIndex index_;
  std::vector<std::string> strings_{std::string()};  // StrId -> text; 0 is ""
  std::unordered_map<std::string, StrId> string_ids_;
};

template <class Moved>
void JobTable::Compact(Moved moved) {
  changes_++;
  std::sort(free_.begin(), free_.end());
  int last = static_cast<int>(jobs_.size()) - 1;
  for (size_t h = 0;; h++) {
    while (last >= 0 && !jobs_[static_cast<size_t>(last)].live) last--;
    if (h >= free_.size() || free_[h] > last) break;
    const int to = free_[h];
    Job& j = jobs_[static_cast<size_t>(to)];
    j = std::move(jobs_[static_cast<size_t>(last)]);
    jobs_[static_cast<size_t>(last)] = Job();
    moved(static_cast<const Job&>(j), to);
    index_.Move(j.name, last, to);
    last--;
  }
  const size_t n = static_cast<size_t>(last + 1);
  std::vector<Job> kept;
  kept.reserve(n + n / 8 + 16);
  for (size_t i = 0; i < n; i++) kept.push_back(std::move(jobs_[i]));
  jobs_.swap(kept);
  free_.clear();
  free_.shrink_to_fit();
}

}  // namespace hived
