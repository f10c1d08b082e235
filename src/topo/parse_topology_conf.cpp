// SPDX-License-Identifier: GPL-2.0-or-later
// topology.conf (topology/tree): SwitchName lines -> TopologyFacts.
#include <functional>
#include <map>

#include "topo/conf_lines.h"
#include "topo/hostlist.h"
#include "topo/parse.h"

namespace hived {
namespace topo {

Status parse_topology_conf(const std::string& text, const std::string& file, TopologyFacts* out) {
  TopologyFacts t;
  std::map<std::string, size_t> index;
  FileHostlists lists(file);
  for (const ConfLine& cl : split_conf_lines(text)) {
    std::string where = where_of(file, cl.line);
    const ConfToken& first = cl.tokens[0];
    if (!key_is(first.key, "SwitchName"))
      return config_error(where + ": " + first.key +
                          ": a topology.conf line starts with SwitchName=");
    if (!first.has_value || first.value.empty())
      return config_error(where + ": SwitchName: needs a value");
    SwitchFact s;
    s.name = first.value;
    s.where = where;
    for (size_t i = 1; i < cl.tokens.size(); i++) {
      const ConfToken& tok = cl.tokens[i];
      if (!tok.has_value) return config_error(where + ": '" + tok.key + "' is not Key=Value");
      Status st;
      if (key_is(tok.key, "Nodes")) {
        st = lists.Expand(tok.value, &s.nodes);
      } else if (key_is(tok.key, "Switches")) {
        st = lists.Expand(tok.value, &s.switches);
      } else if (key_is(tok.key, "LinkSpeed")) {
        continue;
      } else {
        return config_error(where + ": " + tok.key + ": unknown topology.conf key");
      }
      if (!st.ok()) return config_error(where + ": " + tok.key + ": " + st.msg);
    }
    auto ins = index.emplace(s.name, t.switches.size());
    if (!ins.second)
      return config_error(where + ": SwitchName: switch '" + s.name + "' is already defined at " +
                          t.switches[ins.first->second].where);
    t.switches.push_back(std::move(s));
  }
  std::map<std::string, std::string> parent;
  for (const auto& s : t.switches)
    for (const auto& c : s.switches) {
      if (!index.count(c)) return config_error(s.where + ": Switches: unknown switch '" + c + "'");
      if (c == s.name) return config_error(s.where + ": Switches: switch '" + c + "' lists itself");
      auto ins = parent.emplace(c, s.name);
      if (!ins.second)
        return config_error(s.where + ": Switches: switch '" + c + "' is already below switch '" +
                            ins.first->second + "'");
    }
  // With one parent each, a cycle is a switch that reaches itself going up.
  for (const auto& s : t.switches) {
    std::string cur = s.name;
    for (size_t steps = 0; parent.count(cur); steps++) {
      cur = parent[cur];
      if (steps > t.switches.size() || cur == s.name)
        return config_error(s.where + ": Switches: switch '" + s.name + "' is below itself");
    }
  }
  *out = std::move(t);
  return Status::Ok();
}

}  // namespace topo
}  // namespace hived
