// SPDX-License-Identifier: GPL-2.0-or-later
// gres.conf (Name=gpu and Name=shard lines, AutoDetect) -> GresConf, and GresConf +
// slurm.conf nodes -> each node's GPUs (gres_fractions.cpp: their slices and shards).
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "topo/conf_lines.h"
#include "topo/hostlist.h"
#include "topo/gres_fractions.h"
#include "topo/parse.h"

namespace hived {
namespace topo {
namespace {

// Name=shard: Count= per node, or per GPU with File= (Slurm ignores Type= and Cores=).
Status parse_shard_line(const GresGpuRecord& line, const std::string& files_text,
                        const std::string& count_text, FileHostlists* lists,
                        std::vector<GresShardRecord>* out) {
  GresShardRecord s;
  s.nodes = line.nodes;
  s.where = line.where;
  long long c;
  if (count_text.empty() || !parse_count(count_text, 1000000, &c))
    return config_error(line.where + ": Count: a shard line needs Count=<shards>, got '" +
                        count_text + "'");
  s.count = static_cast<int>(c);
  if (!files_text.empty()) {
    std::vector<std::string> files;
    Status st = lists->Expand(files_text, &files);
    if (!st.ok()) return config_error(line.where + ": File: " + st.msg);
    if (files.size() != 1)
      return config_error(line.where +
                          ": File: a shard line with File= gives the shards of one GPU, but " +
                          "it names " + std::to_string(files.size()) + " devices");
    s.file = files[0];
  }
  out->push_back(std::move(s));
  return Status::Ok();
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
  return s;
}

Status parse_links(const std::string& value, std::vector<int>* out) {
  size_t start = 0;
  int self = 0;
  for (;;) {
    size_t comma = value.find(',', start);
    std::string item =
        value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    long long v;
    if (item == "-1") {
      out->push_back(-1);
      self++;
    } else if (parse_count(item, 1000, &v)) {
      out->push_back(static_cast<int>(v));
    } else {
      return config_error("'" + item + "' is not a link count (-1, 0 or a positive number)");
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (self != 1)
    return config_error("needs exactly one -1 (the GPU itself), got " + std::to_string(self));
  return Status::Ok();
}

}  // namespace

Status parse_gres_conf(const std::string& text, const std::string& file, GresConf* out,
                       std::vector<std::string>* notes) {
  FileHostlists lists(file);
  for (const ConfLine& cl : split_conf_lines(text)) {
    std::string where = where_of(file, cl.line);
    GresGpuRecord r;
    r.where = where;
    std::string name, autodetect, files_text, count_text, cores_text, links_text;
    bool has_nodes = false, multiple = false;
    for (const ConfToken& t : cl.tokens) {
      if (!t.has_value) return config_error(where + ": '" + t.key + "' is not Key=Value");
      if (key_is(t.key, "NodeName")) {
        Status st = lists.Expand(t.value, &r.nodes);
        if (!st.ok()) return config_error(where + ": NodeName: " + st.msg);
        has_nodes = true;
      } else if (key_is(t.key, "Name")) {
        name = t.value;
      } else if (key_is(t.key, "Type")) {
        r.type = t.value;
      } else if (key_is(t.key, "File") || key_is(t.key, "Files") ||
                 key_is(t.key, "MultipleFiles")) {
        files_text = t.value;
        multiple = key_is(t.key, "MultipleFiles");
      } else if (key_is(t.key, "Count")) {
        count_text = t.value;
      } else if (key_is(t.key, "Cores") || key_is(t.key, "CPUs")) {
        cores_text = t.value;
      } else if (key_is(t.key, "Links")) {
        links_text = t.value;
      } else if (key_is(t.key, "AutoDetect")) {
        autodetect = lower(t.value);
        if (autodetect != "off" && autodetect != "nvml" && autodetect != "rsmi" &&
            autodetect != "oneapi")
          return config_error(where + ": AutoDetect: must be off, nvml, rsmi or oneapi, got '" +
                              t.value + "'");
      } else if (key_is(t.key, "Flags")) {
        // Environment flags only; no bearing on cells.
      } else {
        return config_error(where + ": " + t.key + ": unknown gres.conf key");
      }
    }
    if (!autodetect.empty()) {
      if (!has_nodes) {
        out->autodetect[""] = autodetect;
        out->autodetect_where = where;
      }
      for (const auto& n : r.nodes) out->autodetect[n] = autodetect;
    }
    if (name.empty()) {
      if (autodetect.empty()) return config_error(where + ": Name: required key is missing");
      continue;
    }
    if (key_is(name, "shard")) {
      Status err = parse_shard_line(r, files_text, count_text, &lists, &out->shards);
      if (!err.ok()) return err;
      continue;
    }
    if (!key_is(name, "gpu")) continue;  // mps, nic: not cells
    std::string file_key = multiple ? "MultipleFiles" : "File";
    if (!files_text.empty()) {
      Status st = lists.Expand(files_text, &r.files);
      if (!st.ok()) return config_error(where + ": " + file_key + ": " + st.msg);
      std::set<std::string> uniq(r.files.begin(), r.files.end());
      if (uniq.size() != r.files.size())
        return config_error(where + ": " + file_key + ": a device is listed twice");
    }
    r.multiple_files = multiple;
    bool caps = false;
    for (const auto& f : r.files) caps = caps || f.find("/nvidia-caps/") != std::string::npos;
    if (is_mig_type(r.type) || (multiple && caps)) {
      Status err = parse_mig_type(r.type, &r.mig);
      if (!err.ok()) return config_error(where + ": Type: " + err.msg);
      if (!multiple)
        return config_error(
            where + ": MultipleFiles: the MIG slice " + r.type +
            " needs MultipleFiles=<GPU device>,<MIG capability devices> (the first names "
            "the GPU it is part of)");
    }
    // MultipleFiles= is one GRES however many files it names (one GPU, or one slice).
    if (multiple) {
      if (!count_text.empty() && count_text != "1")
        return config_error(where +
                            ": Count: MultipleFiles= describes one GRES, got Count=" + count_text);
      r.count = 1;
    } else if (!count_text.empty()) {
      long long c;
      if (!parse_count(count_text, 100000, &c) || c == 0)
        return config_error(where + ": Count: must be a positive integer, got '" + count_text +
                            "'");
      if (!r.files.empty() && static_cast<size_t>(c) != r.files.size())
        return config_error(where + ": Count: is " + count_text + " but File= names " +
                            std::to_string(r.files.size()) + " devices");
      r.count = static_cast<int>(c);
    } else if (!r.files.empty()) {
      r.count = static_cast<int>(r.files.size());
    } else {
      return config_error(where + ": File: a GPU line needs File= (or Count=)");
    }
    if (!cores_text.empty()) {
      Status st = parse_int_ranges(cores_text, 1 << 20, &r.cores);
      if (!st.ok()) return config_error(where + ": Cores: " + st.msg);
    }
    if (!links_text.empty()) {
      if (r.count != 1)
        return config_error(where + ": Links: a Links= row describes one GPU, but this line has " +
                            std::to_string(r.count));
      Status err = parse_links(links_text, &r.links);
      if (!err.ok()) return config_error(where + ": Links: " + err.msg);
    }
    out->gpus.push_back(std::move(r));
  }
  (void)notes;
  return Status::Ok();
}

Status combine_node_facts(const GresConf& gres, std::vector<NodeFacts>* nodes,
                          std::vector<std::string>* notes) {
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < nodes->size(); i++) by_name[(*nodes)[i].name] = i;
  std::vector<std::vector<const GresGpuRecord*>> recs(nodes->size());
  std::set<std::string> unknown;
  for (const auto& r : gres.gpus) {
    if (r.nodes.empty()) {
      for (auto& v : recs) v.push_back(&r);
      continue;
    }
    for (const auto& n : r.nodes) {
      auto it = by_name.find(n);
      if (it == by_name.end()) {
        unknown.insert(n);
        continue;
      }
      recs[it->second].push_back(&r);
    }
  }
  if (!unknown.empty())
    notes->push_back("gres.conf names nodes slurm.conf does not define: " +
                     compress_hostlist(std::vector<std::string>(unknown.begin(), unknown.end())));
  std::vector<std::string> from_slurm_conf, autodetected;
  for (size_t i = 0; i < nodes->size(); i++) {
    NodeFacts& n = (*nodes)[i];
    if (recs[i].empty()) {
      if (!n.configured_mig.empty())
        notes->push_back("node " + n.name +
                         ": slurm.conf Gres= gives it MIG slices but gres.conf has no "
                         "MultipleFiles= lines saying which GPUs they are part of: no cells for "
                         "those GPUs");
      if (n.configured_shards > 0)
        notes->push_back("node " + n.name +
                         ": slurm.conf Gres= gives it shards but gres.conf lists none of its "
                         "GPUs: its GPUs stay whole cells");
      int total = 0;
      for (const auto& c : n.configured) total += c.second;
      if (total == 0) continue;
      auto ad = gres.autodetect.find(n.name);
      if (ad == gres.autodetect.end()) ad = gres.autodetect.find("");
      if (ad != gres.autodetect.end() && ad->second != "off")
        autodetected.push_back(n.name);
      else
        from_slurm_conf.push_back(n.name);
      continue;
    }
    n.gpus.clear();
    n.gpus_known = true;
    bool all_links = true;
    std::map<std::string, size_t> by_file;  // device -> position in n.gpus
    int gres_index = 0;                     // Slurm's: one per whole GPU and per slice
    for (const GresGpuRecord* r : recs[i]) {
      if (r->mig.slots > 0) {
        Status err = add_mig_slice(*r, gres_index++, &n, &by_file);
        if (!err.ok()) return err;
        all_links = false;
        continue;
      }
      for (int k = 0; k < r->count; k++) {
        GpuFact g;
        g.type = r->type;
        g.file = r->files.empty() ? "" : r->files[k];
        g.cores = r->cores;
        g.links = r->links;
        g.where = r->where;
        g.index = gres_index++;
        if (g.links.empty()) all_links = false;
        if (!g.file.empty()) {
          auto f = by_file.emplace(g.file, n.gpus.size());
          if (!f.second && !n.gpus[f.first->second].mig.empty())
            return config_error(r->where + ": File: " + g.file + " of node '" + n.name +
                                "' is in MIG mode (its slices start at " +
                                n.gpus[f.first->second].where + "): it cannot also be a whole GPU");
        }
        n.gpus.push_back(std::move(g));
      }
    }
    count_mig_parents(&n, notes);
    int max_core = n.sockets * n.cores_per_socket;
    for (size_t k = 0; k < n.gpus.size(); k++) {
      GpuFact& g = n.gpus[k];
      for (int c : g.cores)
        if (c >= max_core)
          return config_error(g.where + ": Cores: core " + std::to_string(c) +
                              " does not exist on node '" + n.name + "' (" +
                              std::to_string(n.sockets) + " sockets x " +
                              std::to_string(n.cores_per_socket) + " cores)");
      if (!g.links.empty() && g.links.size() != n.gpus.size())
        return config_error(g.where + ": Links: has " + std::to_string(g.links.size()) +
                            " entries but node '" + n.name + "' has " +
                            std::to_string(n.gpus.size()) + " GPUs");
    }
    if (all_links) {
      std::vector<int> seen(n.gpus.size(), 0);
      for (auto& g : n.gpus) {
        int self =
            static_cast<int>(std::find(g.links.begin(), g.links.end(), -1) - g.links.begin());
        if (seen[self]++)
          return config_error(g.where + ": Links: two GPUs of node '" + n.name +
                              "' put -1 at position " + std::to_string(self));
        g.index = self;
      }
      std::sort(n.gpus.begin(), n.gpus.end(),
                [](const GpuFact& a, const GpuFact& b) { return a.index < b.index; });
    }
  }
  for (auto& n : *nodes) {
    Status err = assign_shards(gres.shards, &n);
    if (!err.ok()) return err;
  }
  if (!from_slurm_conf.empty())
    notes->push_back("no gres.conf lines for " + compress_hostlist(from_slurm_conf) +
                     ": their GPUs come from slurm.conf Gres= without core or link data");
  if (!autodetected.empty())
    notes->push_back("GPUs of " + compress_hostlist(autodetected) +
                     " are autodetected by slurmd: the files give no core or link data for them");
  return Status::Ok();
}

}  // namespace topo
}  // namespace hived
