// SPDX-License-Identifier: GPL-2.0-or-later
// slurm.conf NodeName lines -> NodeFacts (sockets, cores, configured GPUs).
#include <algorithm>
#include <map>

#include "topo/conf_lines.h"
#include "topo/hostlist.h"
#include "topo/mig.h"
#include "topo/parse.h"

namespace hived {
namespace topo {
namespace {

// The keys of a node line that shape the node, as given (absent: -1).
struct NodeKeys {
  long long sockets = -1, sockets_per_board = -1, boards = -1, cores = -1, threads = -1, cpus = -1;
  std::string gres;
  bool gres_set = false;
};

Status set_number(const ConfToken& t, const std::string& where, long long* out) {
  long long v;
  if (!parse_count(t.value, 1000000, &v) || v == 0)
    return config_error(where + ": " + t.key + ": must be a positive integer, got '" + t.value +
                        "'");
  *out = v;
  return Status::Ok();
}

// Slurm's rules for a node's socket count when Sockets= is absent (read_config.c).
int sockets_of(const NodeKeys& k, int cores, int threads) {
  long long boards = k.boards > 0 ? k.boards : 1;
  if (k.sockets_per_board > 0) return static_cast<int>(boards * k.sockets_per_board);
  if (k.sockets > 0) return static_cast<int>(k.sockets);
  long long per = static_cast<long long>(cores) * threads;
  if (k.cpus > 0 && k.cpus / per > 0 && k.cpus % per == 0) return static_cast<int>(k.cpus / per);
  return static_cast<int>(boards);
}

}  // namespace

Status parse_node_gres(const std::string& value, std::map<std::string, int>* gpus, int* shards) {
  // Split at commas outside parentheses ("gpu:a100:2(S:0,1)").
  std::vector<std::string> items;
  int depth = 0;
  std::string cur;
  for (char c : value) {
    if (c == '(') depth++;
    if (c == ')') depth--;
    if (c == ',' && depth == 0) {
      items.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  items.push_back(cur);
  for (std::string item : items) {
    size_t paren = item.find('(');
    if (paren != std::string::npos) item.erase(paren);
    if (item.empty()) return config_error("empty GRES in '" + value + "'");
    std::vector<std::string> parts;
    size_t start = 0;
    for (;;) {
      size_t colon = item.find(':', start);
      parts.push_back(
          item.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
    if (shards && key_is(parts[0], "shard") && parts.size() > 1) {
      long long v;
      if (!parse_count(parts.back(), 1000000, &v))
        return config_error("'" + item + "': '" + parts.back() + "' is not a shard count");
      *shards += static_cast<int>(v);
      continue;
    }
    if (!key_is(parts[0], "gpu")) continue;
    long long count = 1;
    std::string type;
    size_t last = parts.size();
    if (parts.size() > 1) {
      std::string c = parts.back();
      long long mult = 1;
      if (!c.empty() && (c.back() == 'k' || c.back() == 'K')) mult = 1024, c.pop_back();
      long long v;
      if (parse_count(c, 1000000, &v)) {
        count = v * mult;
        last--;
      }
    }
    for (size_t i = 1; i < last; i++) {
      if (key_is(parts[i], "no_consume")) continue;
      if (!type.empty()) return config_error("'" + item + "' has more than one GPU type");
      type = parts[i];
    }
    if (count > 100000) return config_error("'" + item + "': too many GPUs");
    (*gpus)[type] += static_cast<int>(count);
  }
  return Status::Ok();
}

Status parse_slurm_conf_nodes(const std::string& text, const std::string& file,
                              std::vector<NodeFacts>* nodes, std::vector<std::string>* notes) {
  NodeKeys defaults;
  std::map<std::string, std::string> seen;  // node -> where
  for (const auto& n : *nodes) seen[n.name] = n.where;
  for (const ConfLine& cl : split_conf_lines(text)) {
    const ConfToken& first = cl.tokens[0];
    std::string where = where_of(file, cl.line);
    if (key_is(first.key, "Include")) {
      notes->push_back(where +
                       ": Include is not followed; node lines in the included file are not seen");
      continue;
    }
    if (!key_is(first.key, "NodeName")) continue;
    if (!first.has_value || first.value.empty())
      return config_error(where + ": NodeName: needs a value");
    bool is_default = key_is(first.value, "DEFAULT");
    NodeKeys k = defaults;
    for (size_t i = 1; i < cl.tokens.size(); i++) {
      const ConfToken& t = cl.tokens[i];
      if (!t.has_value) return config_error(where + ": '" + t.key + "' is not Key=Value");
      Status err;
      if (key_is(t.key, "Sockets"))
        err = set_number(t, where, &k.sockets);
      else if (key_is(t.key, "SocketsPerBoard"))
        err = set_number(t, where, &k.sockets_per_board);
      else if (key_is(t.key, "Boards"))
        err = set_number(t, where, &k.boards);
      else if (key_is(t.key, "CoresPerSocket"))
        err = set_number(t, where, &k.cores);
      else if (key_is(t.key, "ThreadsPerCore"))
        err = set_number(t, where, &k.threads);
      else if (key_is(t.key, "CPUs") || key_is(t.key, "Procs"))
        err = set_number(t, where, &k.cpus);
      else if (key_is(t.key, "Gres"))
        k.gres = t.value, k.gres_set = true;
      if (!err.ok()) return err;
    }
    if (is_default) {
      defaults = k;
      continue;
    }
    std::map<std::string, int> gpus, mig;
    int shards = 0;
    if (k.gres_set) {
      Status err = parse_node_gres(k.gres, &gpus, &shards);
      if (!err.ok()) return config_error(where + ": Gres: " + err.msg);
    }
    // A MIG slice is a part of a GPU: which GPU, only gres.conf says.
    for (auto it = gpus.begin(); it != gpus.end();) {
      if (!is_mig_type(it->first)) {
        ++it;
        continue;
      }
      MigProfile p;
      Status err = parse_mig_type(it->first, &p);
      if (!err.ok()) return config_error(where + ": Gres: " + err.msg);
      mig[it->first] += it->second;
      it = gpus.erase(it);
    }
    // Each name costs a NodeFacts and a map entry, so a few lines of large ranges
    // would take gigabytes of slurmctld's memory; no Slurm cluster comes close. The
    // cap goes into the expansion: a line over it is refused before its names exist.
    std::vector<std::string> names;
    bool over = false;
    Status st = expand_hostlist(
        first.value, &names, kMaxClusterNodes - std::min(kMaxClusterNodes, nodes->size()), &over);
    if (over)
      return config_error(where + ": NodeName: more than " + std::to_string(kMaxClusterNodes) +
                          " nodes in " + file);
    if (!st.ok()) return config_error(where + ": NodeName: " + st.msg);
    int cores = k.cores > 0 ? static_cast<int>(k.cores) : 1;
    int threads = k.threads > 0 ? static_cast<int>(k.threads) : 1;
    int sockets = sockets_of(k, cores, threads);
    for (const auto& name : names) {
      auto ins = seen.emplace(name, where);
      if (!ins.second)
        return config_error(where + ": NodeName: node '" + name + "' is already defined at " +
                            ins.first->second);
      NodeFacts n;
      n.name = name;
      n.sockets = sockets;
      n.cores_per_socket = cores;
      n.threads_per_core = threads;
      n.configured = gpus;
      n.configured_mig = mig;
      n.configured_shards = shards;
      n.gpus_known = false;
      n.where = where;
      nodes->push_back(std::move(n));
    }
  }
  return Status::Ok();
}

}  // namespace topo
}  // namespace hived
