// SPDX-License-Identifier: GPL-2.0-or-later
#include "vc_queue.h"

#include <algorithm>

namespace hivedsim {

void VcQueue::Insert(int job, int shape, double duration) {
  if (static_cast<size_t>(shape) >= shapes_.size()) shapes_.resize(shape + 1);
  if (!all_.insert(job).second) return;
  Shape& s = shapes_[shape];
  if (s.jobs.empty()) live_.push_back(shape);
  s.jobs.insert(job);
  s.by_time.insert({duration, job});
}

void VcQueue::Erase(int job, int shape, double duration) {
  if (!all_.erase(job)) return;
  Shape& s = shapes_[shape];
  s.jobs.erase(job);
  s.by_time.erase({duration, job});
  if (s.jobs.empty()) live_.erase(std::find(live_.begin(), live_.end(), shape));
}

}  // namespace hivedsim
