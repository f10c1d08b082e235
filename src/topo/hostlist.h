// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm host lists ("node[1-4,7],gpu[01-16]x[1-2]") without Slurm: expansion for the
// parsers and compression for summaries.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/error.h"

namespace hived {
namespace topo {

constexpr size_t kMaxHostlistNames = 1000000;

// Appends every name of `text` to *out in order. A kConfig error says why the text is
// not a host list (unbalanced brackets, a bad range, more than max_names names). The
// limit is checked before a range is expanded, so a caller with a smaller one refuses
// "n[1-999999]" without building its names; *over_limit (if given) tells that case.
Status expand_hostlist(const std::string& text, std::vector<std::string>* out,
                       size_t max_names = kMaxHostlistNames, bool* over_limit = nullptr);

// slurm.conf's node lines may define no more nodes than this (no Slurm cluster comes
// near it), so no other file's list can name more distinct nodes either.
constexpr size_t kMaxClusterNodes = 100000;

// The host lists of one file (gres.conf, topology.conf) share a budget: each list
// names at most kMaxClusterNodes names and the file kMaxHostlistNames in all (a node
// may be named on several lines, one per GPU type). Every name costs memory in
// slurmctld, and a few lines of huge ranges would take gigabytes of it.
class FileHostlists {
 public:
  explicit FileHostlists(std::string file) : file_(std::move(file)) {}
  // expand_hostlist into *out; over a limit, a kConfig error that names it.
  Status Expand(const std::string& text, std::vector<std::string>* out);

 private:
  std::string file_;
  size_t used_ = 0;
};

// The shortest usual form of `names`: names that differ only in a trailing number are
// merged into ranges ("node[1-4,7]"); prefixes keep their first-seen order.
std::string compress_hostlist(const std::vector<std::string>& names);

// Integer list syntax of Cores= ("0-3,8,10-11") both ways; a bad list is a kConfig error.
Status parse_int_ranges(const std::string& text, int max_value, std::vector<int>* out);
std::string format_int_ranges(std::vector<int> values);

}  // namespace topo
}  // namespace hived
