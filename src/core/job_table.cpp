// SPDX-License-Identifier: GPL-2.0-or-later
#include "core/job_table.h"

#include <algorithm>

namespace hived {

int JobTable::NewSlot() {
  if (!free_.empty()) {
    int s = free_.back();
    free_.pop_back();
    return s;
  }
  // Grown by an eighth, not doubled: the table sits at the cluster's peak job count,
  // and a doubling's unused half cost ~20 bytes per GPU at 90% busy (issue 18).
  if (jobs_.size() == jobs_.capacity()) jobs_.reserve(jobs_.size() + jobs_.size() / 8 + 16);
  jobs_.emplace_back();
  return static_cast<int>(jobs_.size()) - 1;
}

void JobTable::Free(int slot, Job* taken) {
  Job& j = jobs_[static_cast<size_t>(slot)];
  Unindex(j.name);
  if (taken) *taken = std::move(j);
  j = Job();
  free_.push_back(slot);
}

void JobTable::Reserve(size_t frees, size_t inserts) {
  free_.reserve(free_.size() + frees);
  index_.Reserve(inserts, NameOf{&jobs_});
}

StrId JobTable::Intern(const std::string& s) {
  if (s.empty()) return 0;
  auto it = string_ids_.find(s);
  if (it != string_ids_.end()) return it->second;
  const StrId id = static_cast<StrId>(strings_.size());
  strings_.push_back(s);
  string_ids_.emplace(s, id);
  return id;
}

std::vector<int> JobTable::InSubmissionOrder() const {
  std::vector<int> out;
  for (size_t s = 0; s < jobs_.size(); s++)
    if (jobs_[s].live) out.push_back(static_cast<int>(s));
  std::sort(out.begin(), out.end(), [&](int a, int b) {
    return jobs_[static_cast<size_t>(a)].seq < jobs_[static_cast<size_t>(b)].seq;
  });
  return out;
}

size_t JobTable::Bytes() const {
  // A string's text is on the heap only beyond the small-string buffer inside it.
  auto heap_text = [](const std::string& s) {
    return s.capacity() > std::string().capacity() ? s.capacity() + 1 : 0;
  };
  size_t b = 0;
  for (const auto& j : jobs_) {
    b += sizeof(Job) + heap_text(j.name) + j.vleaves.capacity() * sizeof(CellId);
    b += j.pods.capacity() * sizeof(Pod);
    for (const auto& p : j.pods) b += p.leaves.capacity() * sizeof(CellId);
  }
  b += index_.Bytes();
  for (const auto& s : strings_) b += sizeof(s) + heap_text(s) + 48;  // + hash entry
  return b;
}

}  // namespace hived
