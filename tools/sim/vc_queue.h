// SPDX-License-Identifier: GPL-2.0-or-later
// One VC's waiting jobs: in queue order, and per pod shape both in queue order and
// by run time, so that a backfill pass can skip whole shapes that cannot start and
// find a shape's short jobs without walking its long ones.
#pragma once

#include <cstddef>
#include <set>
#include <utility>
#include <vector>

namespace hivedsim {

class VcQueue {
 public:
  struct Shape {
    std::set<int> jobs;                        // queue order (job index)
    std::set<std::pair<double, int>> by_time;  // (run time, job)
  };
  void Insert(int job, int shape, double duration);
  void Erase(int job, int shape, double duration);
  bool Empty() const { return all_.empty(); }
  size_t Size() const { return all_.size(); }
  int Head() const { return *all_.begin(); }
  int Tail() const { return *all_.rbegin(); }
  bool Contains(int job) const { return all_.count(job) != 0; }
  const std::vector<int>& Shapes() const { return live_; }  // shapes with waiting jobs
  const Shape& Of(int shape) const { return shapes_[shape]; }

 private:
  std::set<int> all_;
  std::vector<Shape> shapes_;
  std::vector<int> live_;
};

}  // namespace hivedsim
