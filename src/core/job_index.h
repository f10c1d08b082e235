// SPDX-License-Identifier: GPL-2.0-or-later
// Job name -> job slot. Open addressing over the slots themselves: 4 bytes a place,
// the names stay in the job records. A hash map node per job held a second copy of
// the name and cost ~70 bytes a job (issue 18: most of the state above the cells).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace hived {

class JobIndex {
 public:
  // `name_of(slot)` gives the name of the job in a slot that is in the index.
  template <class NameOf>
  int Find(std::string_view name, NameOf name_of) const {
    if (table_.empty()) return -1;
    const size_t mask = table_.size() - 1;
    for (size_t i = Hash(name) & mask;; i = (i + 1) & mask) {
      const int32_t s = table_[i];
      if (s == kEmpty) return -1;
      if (s >= 0 && name_of(s) == name) return s;
    }
  }
  // The slot's job must not be in the index yet. A job put back after Erase finds
  // its own place, or an earlier free one, and never grows the table: a place Erase
  // left empty took a tombstone out of the count, so used + deleted is no higher than
  // before the Erase. WillRun's restore allocates nothing here.
  template <class NameOf>
  void Insert(int slot, NameOf name_of) {
    size_t i = Probe(name_of(slot));
    if (i == table_.size() || (table_[i] == kEmpty && 2 * (used_ + deleted_ + 1) > table_.size())) {
      Reserve(1, name_of);
      i = Probe(name_of(slot));
    }
    if (table_[i] == kDeleted) deleted_--;
    table_[i] = slot;
    used_++;
  }
  template <class NameOf>
  bool Erase(std::string_view name, NameOf name_of) {
    if (table_.empty()) return false;
    const size_t mask = table_.size() - 1;
    for (size_t i = Hash(name) & mask;; i = (i + 1) & mask) {
      const int32_t s = table_[i];
      if (s == kEmpty) return false;
      if (s >= 0 && name_of(s) == name) {
        table_[i] = kDeleted;
        used_--;
        deleted_++;
        // A tombstone just before an empty place ends every probe path through it,
        // so it is empty too, and so is the run of tombstones before it. A dry run's
        // job (inserted, then erased) then mostly leaves nothing behind: before,
        // tombstones piled up until a rehash of the whole table (~100 us at 2k jobs)
        // fell into some caller's decision.
        if (table_[(i + 1) & mask] == kEmpty)
          for (size_t k = i; table_[k] == kDeleted; k = (k - 1) & mask) {
            table_[k] = kEmpty;
            deleted_--;
          }
        return true;
      }
    }
  }
  // The job in slot `from` now lives in slot `to` (same name).
  void Move(std::string_view name, int from, int to) {
    const size_t mask = table_.size() - 1;
    for (size_t i = Hash(name) & mask;; i = (i + 1) & mask) {
      if (table_[i] == from) {
        table_[i] = to;
        return;
      }
      if (table_[i] == kEmpty) return;
    }
  }
  // Room for `more` insertions on empty places without allocating.
  template <class NameOf>
  void Reserve(size_t more, NameOf name_of) {
    if (2 * (used_ + deleted_ + more) <= table_.size()) return;
    size_t cap = 16;
    while (cap < 4 * (used_ + more)) cap *= 2;
    std::vector<int32_t> old = std::move(table_);
    table_.assign(cap, kEmpty);
    deleted_ = 0;
    for (int32_t s : old)
      if (s >= 0) {
        size_t i = Hash(name_of(s)) & (cap - 1);
        while (table_[i] != kEmpty) i = (i + 1) & (cap - 1);
        table_[i] = s;
      }
  }
  size_t size() const { return used_; }
  size_t Bytes() const { return table_.capacity() * sizeof(int32_t); }

 private:
  static constexpr int32_t kEmpty = -1;
  static constexpr int32_t kDeleted = -2;
  static size_t Hash(std::string_view s) { return std::hash<std::string_view>()(s); }
  // The first free place (empty or deleted) on the name's probe path; size() if none.
  size_t Probe(std::string_view name) const {
    if (table_.empty()) return 0;
    const size_t mask = table_.size() - 1;
    size_t i = Hash(name) & mask;
    while (table_[i] >= 0) i = (i + 1) & mask;
    return i;
  }
  std::vector<int32_t> table_;
  size_t used_ = 0;
  size_t deleted_ = 0;
};

}  // namespace hived
