// SPDX-License-Identifier: GPL-2.0-or-later
#include "topo/gres_lines.h"

#include <map>

#include "topo/hostlist.h"

namespace hived {
namespace topo {

std::vector<std::string> gres_conf_lines(const NodeFacts& node) {
  std::vector<std::string> out;
  const auto& g = node.gpus;
  for (size_t i = 0; i < g.size();) {
    size_t j = i + 1;
    if (g[i].links.empty() && !g[i].file.empty())
      while (j < g.size() && g[j].links.empty() && !g[j].file.empty() && g[j].type == g[i].type &&
             g[j].cores == g[i].cores)
        j++;
    std::vector<std::string> files;
    for (size_t k = i; k < j; k++) files.push_back(g[k].file);
    std::string line = "NodeName=" + node.name + " Name=gpu";
    if (!g[i].type.empty()) line += " Type=" + g[i].type;
    if (!g[i].file.empty())
      line += " File=" + compress_hostlist(files);
    else
      line += " Count=1";
    if (!g[i].cores.empty()) line += " Cores=" + format_int_ranges(g[i].cores);
    if (!g[i].links.empty()) {
      line += " Links=";
      for (size_t k = 0; k < g[i].links.size(); k++)
        line += (k ? "," : "") + std::to_string(g[i].links[k]);
    }
    out.push_back(line);
    i = j;
  }
  return out;
}

std::string slurm_conf_node_line(const NodeFacts& node) {
  std::string line = "NodeName=" + node.name + " Sockets=" + std::to_string(node.sockets) +
                     " CoresPerSocket=" + std::to_string(node.cores_per_socket) +
                     " ThreadsPerCore=" + std::to_string(node.threads_per_core);
  std::map<std::string, int> count;
  std::vector<std::string> order;
  for (const auto& g : node.gpus) {
    if (!count.count(g.type)) order.push_back(g.type);
    count[g.type]++;
  }
  std::string gres;
  for (const auto& t : order)
    gres += (gres.empty() ? "" : ",") + std::string("gpu:") + (t.empty() ? "" : t + ":") +
            std::to_string(count[t]);
  if (!gres.empty()) line += " Gres=" + gres;
  return line;
}

}  // namespace topo
}  // namespace hived
