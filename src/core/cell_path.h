// SPDX-License-Identifier: GPL-2.0-or-later
// A virtualCells cellType ("TOP.A.B", or one type name) resolved to a chain and level,
// shared by the engine and by src/topo's chain table (which has no engine). Type names
// are matched whole, so a MIG profile ("a100_3g.20gb") is one step of a path.
#pragma once

#include <string>

namespace hived {

// Chains is any table with size(), top(c), levels(c) and type(c, level) (level 1 =
// leaf). Returns "" or why the path names no cell type.
template <class Chains>
std::string ResolveCellPath(const Chains& t, const std::string& path, int* chain, int* level) {
  auto step = [&](size_t pos, const std::string& name) {
    return path.compare(pos, name.size(), name) == 0 &&
           (pos + name.size() == path.size() || path[pos + name.size()] == '.');
  };
  *chain = -1;
  for (size_t c = 0; c < t.size() && *chain < 0; c++)
    if (step(0, t.top(c))) *chain = static_cast<int>(c);
  if (*chain >= 0) {
    *level = t.levels(*chain);
    for (size_t pos = t.top(*chain).size(); pos < path.size();) {
      pos++;  // the '.'
      const std::string child = *level > 1 ? t.type(*chain, *level - 1) : std::string();
      if (*level <= 1 || !step(pos, child))
        return "'" + path.substr(pos, path.find('.', pos) - pos) + "' is not the child type of '" +
               t.type(*chain, *level) + "'";
      pos += child.size();
      (*level)--;
    }
    return "";
  }
  for (size_t c = 0; c < t.size(); c++)
    for (int l = 1; l <= t.levels(c); l++)
      if (t.type(c, l) == path) {
        if (*chain >= 0 && *chain != static_cast<int>(c))
          return "'" + path +
                 "' is in several chains; write the path from the chain's top, e.g. '" +
                 t.top(*chain) + "." + path + "'";
        *chain = static_cast<int>(c);
        *level = l;
      }
  if (*chain >= 0) return "";
  if (path.find('.') != std::string::npos)
    return "'" + path.substr(0, path.find('.')) + "' is not the top cell type of any physical cell";
  return "unknown cell type '" + path + "'";
}

}  // namespace hived
