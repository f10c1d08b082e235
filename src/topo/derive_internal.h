// SPDX-License-Identifier: GPL-2.0-or-later
// Pieces of the derivation shared by derive.cpp and derive_node.cpp.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "topo/facts.h"

namespace hived {
namespace topo {

// Notes that many nodes share are printed once with the node list.
class NoteSet {
 public:
  void Add(const std::string& text, const std::string& node = "");
  void AppendTo(std::vector<std::string>* out) const;

 private:
  std::vector<std::string> order_;
  std::map<std::string, std::vector<std::string>> nodes_;
};

// How one node's GPUs of one model group below the node.
struct NodeLayout {
  std::vector<std::string> kinds;  // levels below the node, coarse to fine ("SOCKET", "PAIR")
  std::vector<int> sizes;          // GPUs per cell at each of those levels
  std::vector<int> order;          // GPU indices in leaf order (groups contiguous)
  // Identifies the shape: nodes with equal keys share cell types.
  std::string Key() const;
};

// `gpus`: the node's GPUs of one model, ascending index.
NodeLayout layout_gpus(const NodeFacts& node, const std::vector<const GpuFact*>& gpus,
                       NoteSet* notes);

// A layout with no levels below the node, leaves in `indices` order.
NodeLayout flat_layout(const std::vector<int>& indices);

}  // namespace topo
}  // namespace hived
