// SPDX-License-Identifier: GPL-2.0-or-later
#include "core/job_table.h"

#include <algorithm>

namespace hived {

void Job::SetPods(const std::vector<Pod>& pods) {
  const VCellSpan v = Vleaves();
  std::vector<int32_t> out;
  size_t n = 0;
  for (const auto& p : pods) n += p.leaves.size();
  out.reserve(n + v.size() + (pods.size() > 1 ? pods.size() - 1 : 0));
  for (const auto& p : pods)
    for (PCellId l : p.leaves) out.push_back(l.v);
  for (VCellId x : v) out.push_back(x.v);
  size_t at = 0;
  for (size_t k = 0; k + 1 < pods.size(); k++)
    out.push_back(static_cast<int32_t>(at += pods[k].leaves.size()));
  cells.swap(out);
  leaf_count = static_cast<int32_t>(n);
  pod_count = static_cast<int32_t>(pods.size());
}

void Job::AddPod(PCellSpan leaves) {
  if (pod_count > 0) cells.push_back(leaf_count);  // where the new pod starts
  std::vector<int32_t> ids;
  ids.reserve(leaves.size());
  for (PCellId l : leaves) ids.push_back(l.v);
  cells.insert(cells.begin() + leaf_count, ids.begin(), ids.end());
  leaf_count += static_cast<int32_t>(leaves.size());
  pod_count++;
}

void Job::AddVleaf(VCellId v) {
  cells.insert(cells.end() - static_cast<std::ptrdiff_t>(Starts()), v.v);
}

void Job::ClearVleaves() {
  cells.erase(cells.begin() + leaf_count, cells.end() - static_cast<std::ptrdiff_t>(Starts()));
}

int JobTable::NewSlot() {
  changes_++;
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
  changes_++;
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
    b += sizeof(Job) + heap_text(j.name) + j.cells.capacity() * sizeof(int32_t);
  }
  // WillRun reserves room on the free list for every job a trial may end: kept.
  b += index_.Bytes() + free_.capacity() * sizeof(free_[0]);
  for (const auto& s : strings_) b += sizeof(s) + heap_text(s) + 48;  // + hash entry
  return b;
}

}  // namespace hived
