// SPDX-License-Identifier: GPL-2.0-or-later
// hivedctl status / vc / job as human tables, and as JSON for scripts.
#include <jansson.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <set>
#include <sstream>

#include <strings.h>

#include "hivedctl_views.h"
#include "slurm/wait_history.h"

namespace hivedctl {

namespace {

// Columns padded to their widest cell; numbers right-aligned.
class Table {
 public:
  explicit Table(std::vector<std::string> head) : rows_{std::move(head)} {}
  void Row(std::vector<std::string> r) { rows_.push_back(std::move(r)); }
  std::string Str() const {
    std::vector<size_t> w;
    std::vector<bool> numeric;
    for (const auto& r : rows_)
      for (size_t i = 0; i < r.size(); i++) {
        if (w.size() <= i) w.resize(i + 1, 0), numeric.resize(i + 1, true);
        w[i] = std::max(w[i], r[i].size());
      }
    for (size_t k = 1; k < rows_.size(); k++)
      for (size_t i = 0; i < rows_[k].size(); i++)
        if (!IsNumber(rows_[k][i])) numeric[i] = false;
    std::string out;
    for (const auto& r : rows_) {
      std::string line;
      for (size_t i = 0; i < r.size(); i++) {
        std::string pad(w[i] - r[i].size(), ' ');
        bool last = i + 1 == r.size();
        line += numeric[i] ? pad + r[i] : (last ? r[i] : r[i] + pad);
        if (!last) line += "  ";
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
    return out;
  }

 private:
  static bool IsNumber(const std::string& s) {
    if (s.empty() || s == "-") return true;
    size_t i = s[0] == '-' ? 1 : 0;
    if (i == s.size()) return false;
    for (; i < s.size(); i++)
      if (!isdigit(static_cast<unsigned char>(s[i])) && s[i] != '.') return false;
    return true;
  }
  std::vector<std::vector<std::string>> rows_;
};

std::string N(int64_t v) { return std::to_string(v); }

// "85 s: its VC's quota in use 40 s, no free cells of its shape 45 s": the
// plugin's words (wait_history.c), so this reads as its log line does. A key a
// newer plugin wrote and this hivedctl lacks shows as the key itself.
std::string WaitedText(const WaitHistory& h) {
  std::string t = N(h.secs) + " s";
  const char* sep = ": ";
  for (const auto& c : h.by_cause) {
    const wait_cause_t cause = wait_cause_from_key(c.first.c_str());
    const std::string what = cause == WAIT_CAUSES ? c.first : wait_cause_text(cause);
    t += sep + what + " " + N(c.second) + " s";
    sep = ", ";
  }
  return t;
}
// GPU amounts, which fractional cells make fractional: "16", "1.25".
std::string G(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

std::string Join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// "2 A100-NODE + 4 A100-SOCKET"
std::string Quota(const Vc& vc) {
  std::vector<std::string> parts;
  for (const auto& c : vc.cells) parts.push_back(N(c.total) + " " + c.cell_type);
  for (const auto& p : vc.pinned) parts.push_back("pinned " + p.id);
  return parts.empty() ? "-" : Join(parts, " + ");
}

std::string Dump(json_t* j) {
  char* text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  std::string s = text ? text : "null";
  free(text);
  return s + "\n";
}

json_t* Get(const Status& s, const char* key) { return json_object_get(s.root.get(), key); }

// Map "node" -> per-GPU topology entries (all chains of the node).
std::vector<const Gpu*> GpusOf(const Status& s, const std::string& node,
                               const std::vector<int>& want) {
  std::vector<const Gpu*> out;
  for (const auto& n : s.nodes)
    if (n.name == node)
      for (const auto& g : n.gpus)
        if (std::find(want.begin(), want.end(), g.gpu) != want.end()) out.push_back(&g);
  return out;
}

const Node* NodeOf(const Status& s, const std::string& node) {
  for (const auto& n : s.nodes)
    if (n.name == node) return &n;
  return nullptr;
}

// The smallest cell holding all of gpus, as "A100-SOCKET node3/1"; "within "
// when the GPUs do not fill it.
std::string CellOf(const Status& s, const Node& node, const std::vector<const Gpu*>& gpus) {
  if (gpus.empty()) return "-";
  size_t depth = gpus[0]->groups.size();
  for (const Gpu* g : gpus) {
    size_t d = 0;
    while (d < depth && d < g->groups.size() && g->groups[d].index == gpus[0]->groups[d].index) d++;
    depth = d;
  }
  std::string type, path = node.name;
  for (size_t d = 0; d < depth; d++) path += "/" + std::to_string(gpus[0]->groups[d].index);
  if (gpus.size() == 1 && !gpus[0]->groups.empty() && depth == gpus[0]->groups.size()) {
    // A single GPU: its own cell.
    const Chain* ch = s.FindChain(node.chain);
    type = ch && ch->At(1) ? ch->At(1)->cell_type : "GPU";
    return type + " " + path + "/gpu" + std::to_string(gpus[0]->gpu);
  }
  type = depth ? gpus[0]->groups[depth - 1].cell_type : s.NodeCellType(node.chain);
  // How many GPUs the cell has: those of the node sharing the prefix.
  size_t in_cell = 0;
  for (const auto& g : node.gpus) {
    bool same = g.groups.size() >= depth;
    for (size_t d = 0; same && d < depth; d++) same = g.groups[d].index == gpus[0]->groups[d].index;
    in_cell += same;
  }
  return std::string(in_cell == gpus.size() ? "" : "within ") + (type.empty() ? "node" : type) +
         " " + path;
}

std::string ClassText(const Job& j) {
  std::string c = j.cls.empty() ? (j.priority < 0 ? "opportunistic" : "guaranteed") : j.cls;
  if (j.lazy_preempted)
    c += j.demoted_by_config ? " (demoted by the config)"
         : j.borrowed        ? " (borrowed idle GPUs)"
                             : " (lazy-preempted)";
  return c;
}

std::string PlacementText(const Job& j) {
  std::vector<std::string> parts;
  for (const auto& p : j.placement) parts.push_back(p.node + ":" + p.GpuText());
  return parts.empty() ? "-" : Join(parts, " ");
}

std::string Clip(const std::string& s, size_t n) {
  return s.size() <= n ? s : s.substr(0, n - 3) + "...";
}

}  // namespace

double QuotaGpus(const Status& s, const Vc& vc) {
  double n = 0;
  for (const auto& c : vc.cells) {
    const Chain* ch = s.FindChain(c.chain);
    if (ch) n += static_cast<double>(c.total) * ch->GpusPerCell(c.level);
  }
  return n;
}

Counts CountCells(const Status& s) {
  // Per chain and level: cell key -> (used, bad).
  std::map<std::string, std::map<int, std::map<std::string, std::pair<bool, bool>>>> seen;
  for (const auto& n : s.nodes) {
    const Chain* ch = s.FindChain(n.chain);
    if (!ch) continue;
    auto level_of = [&](const std::string& type) {
      for (const auto& l : ch->levels)
        if (l.cell_type == type) return l.level;
      return 0;
    };
    const int node_level = level_of(s.NodeCellType(n.chain));
    for (const auto& g : n.gpus) {
      const bool bad = g.bad || n.bad;
      bool used = !g.job.empty() || g.SlotsUsed() > 0;
      auto mark = [&](int level, const std::string& key) {
        if (level <= 0) return;
        auto& cell = seen[n.chain][level][key];
        cell.first |= used;
        cell.second |= bad;
      };
      const std::string gpu_key = n.name + "#" + std::to_string(g.gpu);
      if (g.slots.empty()) {
        mark(1, gpu_key);
      } else {
        // The GPU's level and those below it, from its fractions.
        for (const auto& l : ch->levels) {
          const int64_t per = ch->LeavesPerCell(l.level);
          if (per <= 0 || per > ch->leaves_per_gpu) continue;
          for (size_t i = 0; i < g.slots.size(); i++) {
            used = !g.slots[i].job.empty();
            mark(l.level, gpu_key + "/" + std::to_string(static_cast<int64_t>(i) / per));
          }
        }
        used = g.SlotsUsed() > 0;
      }
      std::string path = n.name;
      for (const auto& grp : g.groups) {
        path += "/" + std::to_string(grp.index);
        mark(level_of(grp.cell_type), path);
      }
      mark(node_level, n.name);
      for (const auto& a : n.above)
        mark(level_of(a.cell_type), "@" + a.cell_type + "/" + a.address);
    }
  }
  Counts out;
  for (const auto& [chain, levels] : seen)
    for (const auto& [level, cells] : levels) {
      LevelCount& c = out[chain][level];
      for (const auto& [key, st] : cells) {
        c.cells++;
        c.in_use += st.first;
        c.bad += st.second;
        c.idle += !st.first && !st.second;
      }
    }
  for (const auto& vc : s.vcs)
    for (const auto& cell : vc.cells) out[cell.chain][cell.level].doomed += cell.doomed;
  return out;
}

GpuCount CountGpus(const Status& s) {
  GpuCount c;
  for (const auto& n : s.nodes)
    for (const auto& g : n.gpus) {
      const bool bad = g.bad || n.bad;
      const Chain* ch = s.FindChain(n.chain);
      if (ch && ch->mig_slots) {
        c.slices++;
        if (!g.job.empty())
          (g.cls == "opportunistic" ? c.slices_opportunistic : c.slices_guaranteed)++;
        else
          c.slices_idle += !bad;
        continue;
      }
      c.total++;
      c.bad += bad;
      if (g.Split()) {
        const double part = 1.0 / static_cast<double>(g.slots.size());
        double free_part = 0;
        c.split++;
        for (const auto& sl : g.slots) {
          if (sl.job.empty())
            free_part += bad ? 0 : part;
          else
            (sl.cls == "opportunistic" ? c.split_opportunistic : c.split_guaranteed) += part;
        }
        c.split_free += free_part;
        if (g.SlotsUsed() > 0 && free_part > 0) {
          c.fragmented++;
          c.stranded += free_part;
        }
        continue;
      }
      if (g.job.empty())
        c.idle += !bad;
      else if (g.cls == "opportunistic")
        c.opportunistic++;
      else
        c.guaranteed++;
    }
  if (s.nodes.empty()) {  // no topology: the engine's totals
    c.total = s.total_leaves;
    c.guaranteed = s.used_leaves;
    c.opportunistic = s.opp_leaves;
    c.idle = s.total_leaves - s.used_leaves - s.opp_leaves;
  }
  return c;
}

std::string TimeText(int64_t when) {
  char buf[64];
  time_t t = static_cast<time_t>(when);
  struct tm tm;
  localtime_r(&t, &tm);
  strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S %Z", &tm);
  return buf;
}

std::string AsOf(const Status& s, int64_t now) {
  if (!s.written) return "time unknown";
  std::string out = TimeText(s.written);
  if (now >= s.written) out += " (" + N(now - s.written) + " s ago)";
  return out;
}

std::string StatusText(const Status& s, int64_t now) {
  std::ostringstream o;
  GpuCount g = CountGpus(s);
  o << "HiveD status as of " << AsOf(s, now) << "\n";
  if (!s.slurm_version.empty()) o << "Slurm: " << s.slurm_version << "\n";
  if (!s.opportunistic_qos.empty()) {
    o << "Opportunistic QOS:";
    for (const auto& q : s.opportunistic_qos) o << " " << q;
    o << " (other QOS run guaranteed in the account's VC)\n";
  }
  o << "GPUs: " << g.total << " total, " << g.guaranteed << " guaranteed, " << g.opportunistic
    << " opportunistic, " << g.idle << " idle";
  if (g.bad) o << "; " << g.bad << " on bad nodes";
  o << "\n";
  if (g.slices)
    o << "MIG slices: " << g.slices << " total, " << g.slices_guaranteed << " guaranteed, "
      << g.slices_opportunistic << " opportunistic, " << g.slices_idle << " idle\n";
  if (g.split) {
    char buf[160];
    snprintf(buf, sizeof(buf),
             "Split GPUs: %lld (in GPUs: %.3g guaranteed, %.3g opportunistic, %.3g free); "
             "%lld partly used, %.3g GPUs free on them\n",
             static_cast<long long>(g.split), g.split_guaranteed, g.split_opportunistic,
             g.split_free, static_cast<long long>(g.fragmented), g.stranded);
    o << buf;
  }
  if (s.reload_refused)
    o << "Last reload REFUSED" << (s.reload_time ? " at " + TimeText(s.reload_time) : "")
      << " (the previous configuration stays in force): " << s.reload_reason << "\n";
  o << "Jobs: " << s.jobs.size() << " running, " << s.pending.size() << " waiting for cells\n";
  const Waiting* longest = nullptr;
  for (const auto& w : s.pending)
    if (w.cls != "opportunistic" && w.history.present &&
        (!longest || w.history.secs > longest->history.secs))
      longest = &w;
  if (longest)
    o << "Longest guaranteed wait: job " << longest->job
      << (longest->vc.empty() ? "" : " (VC " + longest->vc + ")") << ", "
      << WaitedText(longest->history) << "\n";
  o << "Bad nodes: " << (s.bad_nodes.empty() ? "none" : Join(s.bad_nodes, " ")) << "\n";
  // sbatch prints no job id for a refused job: the latest ones, with their ids.
  size_t shown = 0;
  for (auto it = s.refused.rbegin(); it != s.refused.rend() && shown < 5; ++it, ++shown)
    o << (shown ? "" : "Refused by HiveD (latest first; hivedctl job ID):\n") << "  job " << it->job
      << (it->vc.empty() ? "" : " (VC " + it->vc + ")") << ": " << it->reason << "\n";
  o << "\n";
  Counts counts = CountCells(s);
  Table t({"CHAIN", "LEVEL", "CELL TYPE", "CELLS", "IDLE", "IN USE", "BAD", "DOOMED"});
  for (const auto& ch : s.chains)
    for (auto it = ch.levels.rbegin(); it != ch.levels.rend(); ++it) {
      const LevelCount& c = counts[ch.chain][it->level];
      t.Row({ch.chain, N(it->level), it->cell_type, N(it->cells), N(c.idle), N(c.in_use),
             N(it->bad), N(c.doomed)});
    }
  o << t.Str() << "\n";
  Table v(
      {"VC", "QUOTA", "GPUS", "BOUND", "DOOMED", "USED", "OPPORTUNISTIC", "RUNNING", "WAITING"});
  for (const auto& vc : s.vcs) {
    int64_t bound = 0, doomed = 0;
    for (const auto& c : vc.cells) bound += c.bound, doomed += c.doomed;
    v.Row({vc.name, Quota(vc), G(QuotaGpus(s, vc)), N(bound), N(doomed), G(vc.used_gpus),
           G(vc.opp_gpus), N(static_cast<int64_t>(vc.jobs.size())),
           N(s.WaitingGuaranteed(vc.name))});
  }
  o << v.Str();
  if (s.job_test_calls)
    o << "\njob_test: " << s.job_test_calls << " calls, mean "
      << static_cast<int64_t>(s.job_test_mean_us + 0.5) << " us, p50 "
      << static_cast<int64_t>(s.job_test_p50_us) << " us, p99 "
      << static_cast<int64_t>(s.job_test_p99_us) << " us, max "
      << static_cast<int64_t>(s.job_test_max_us) << " us; preemptions " << s.preemptions
      << ", lazy " << s.lazy_preemptions;
  if (s.borrowed_starts) o << "; borrowed starts " << s.borrowed_starts;
  if (s.promotions) o << "; promotions " << s.promotions;
  o << "\n";
  return o.str();
}

std::string StatusJson(const Status& s) {
  json_t* o = json_object();
  GpuCount g = CountGpus(s);
  json_object_set_new(o, "written", json_integer(s.written));
  if (!s.slurm_version.empty())
    json_object_set_new(o, "slurmVersion", json_string(s.slurm_version.c_str()));
  json_t* gpus = json_object();
  json_object_set_new(gpus, "total", json_integer(g.total));
  json_object_set_new(gpus, "guaranteed", json_integer(g.guaranteed));
  json_object_set_new(gpus, "opportunistic", json_integer(g.opportunistic));
  json_object_set_new(gpus, "idle", json_integer(g.idle));
  json_object_set_new(gpus, "onBadNodes", json_integer(g.bad));
  json_object_set_new(o, "gpus", gpus);
  json_t* levels = json_array();
  Counts counts = CountCells(s);
  for (const auto& ch : s.chains)
    for (const auto& l : ch.levels) {
      const LevelCount& c = counts[ch.chain][l.level];
      json_t* e = json_object();
      json_object_set_new(e, "chain", json_string(ch.chain.c_str()));
      json_object_set_new(e, "level", json_integer(l.level));
      json_object_set_new(e, "cellType", json_string(l.cell_type.c_str()));
      json_object_set_new(e, "cells", json_integer(l.cells));
      json_object_set_new(e, "idle", json_integer(c.idle));
      json_object_set_new(e, "inUse", json_integer(c.in_use));
      json_object_set_new(e, "bad", json_integer(l.bad));
      json_object_set_new(e, "doomed", json_integer(c.doomed));
      json_array_append_new(levels, e);
    }
  json_object_set_new(o, "levels", levels);
  json_t* cluster = Get(s, "cluster");
  json_object_set(o, "cluster", cluster ? cluster : json_null());
  json_object_set_new(o, "pending", json_integer(static_cast<json_int_t>(s.pending.size())));
  json_t* reload = Get(s, "lastReload");
  if (reload) json_object_set(o, "lastReload", reload);
  json_t* timing = Get(s, "timing");
  if (timing) json_object_set(o, "timing", timing);
  json_t* counters = Get(s, "counters");
  if (counters) json_object_set(o, "counters", counters);
  std::string out = Dump(o);
  json_decref(o);
  return out;
}

bool VcText(const Status& s, const std::string& name, std::string* out, std::string* err) {
  std::ostringstream o;
  if (name.empty()) {
    o << "VCs as of " << AsOf(s, 0) << "\n";
    Table v(
        {"VC", "QUOTA", "GPUS", "BOUND", "DOOMED", "USED", "OPPORTUNISTIC", "RUNNING", "WAITING"});
    for (const auto& vc : s.vcs) {
      int64_t bound = 0, doomed = 0;
      for (const auto& c : vc.cells) bound += c.bound, doomed += c.doomed;
      v.Row({vc.name, Quota(vc), G(QuotaGpus(s, vc)), N(bound), N(doomed), G(vc.used_gpus),
             G(vc.opp_gpus), N(static_cast<int64_t>(vc.jobs.size())),
             N(s.WaitingGuaranteed(vc.name))});
    }
    o << v.Str();
    *out = o.str();
    return true;
  }
  const Vc* vc = s.FindVc(name);
  if (!vc) {
    std::vector<std::string> names;
    for (const auto& v : s.vcs) names.push_back(v.name);
    *err = "no VC '" + name + "' (VCs: " + (names.empty() ? "none" : Join(names, ", ")) + ")";
    return false;
  }
  int64_t bound = 0, doomed = 0;
  for (const auto& c : vc->cells) bound += c.bound, doomed += c.doomed;
  o << "VC " << vc->name << " as of " << AsOf(s, 0) << "\n";
  o << "Quota: " << Quota(*vc) << " (" << QuotaGpus(s, *vc) << " GPUs); " << bound << " bound, "
    << doomed << " doomed\n";
  o << "In use: " << G(vc->used_gpus) << " GPUs guaranteed, " << G(vc->opp_gpus)
    << " GPUs opportunistic\n\n";
  Table cells({"CHAIN", "LEVEL", "CELL TYPE", "QUOTA", "BOUND", "DOOMED", "GPUS/CELL"});
  for (const auto& c : vc->cells) {
    const Chain* ch = s.FindChain(c.chain);
    cells.Row({c.chain, N(c.level), c.cell_type, N(c.total), N(c.bound), N(c.doomed),
               G(ch ? ch->GpusPerCell(c.level) : 0)});
  }
  o << cells.Str();
  if (!vc->pinned.empty()) {
    Table p({"PINNED CELL", "CELL TYPE", "USED GPUS"});
    for (const auto& pin : vc->pinned) p.Row({pin.id, pin.cell_type, N(pin.used_leaves)});
    o << "\n" << p.Str();
  }
  // Physical GPUs whose cells are bound to this VC, per node.
  std::vector<std::string> bound_gpus;
  for (const auto& n : s.nodes) {
    std::vector<int> mine;
    for (const auto& g : n.gpus) {
      bool bound = g.vc == vc->name;
      for (const auto& sl : g.slots) bound |= sl.vc == vc->name;  // part of a split GPU
      if (bound) mine.push_back(g.gpu);
    }
    if (!mine.empty()) bound_gpus.push_back(n.name + ":" + Ranges(mine));
  }
  o << "\nBound GPUs: " << (bound_gpus.empty() ? "none" : Join(bound_gpus, " ")) << "\n";
  Table jobs({"JOB", "CLASS", "PRIORITY", "GPUS", "PLACEMENT"});
  size_t running = 0;
  for (const auto& j : s.jobs) {
    if (strcasecmp(j.vc.c_str(), vc->name.c_str())) continue;
    jobs.Row({j.job, ClassText(j), N(j.priority), N(j.Gpus()), PlacementText(j)});
    running++;
  }
  o << "\nRunning jobs: " << running << "\n";
  if (running) o << jobs.Str();
  Table w({"JOB", "CLASS", "WHY IT WAITS"});
  size_t waiting = 0;
  for (const auto& p : s.pending) {
    if (strcasecmp(p.vc.c_str(), vc->name.c_str())) continue;
    w.Row({p.job, p.cls.empty() ? "-" : p.cls, Clip(p.reason, 100)});
    waiting++;
  }
  o << "\nWaiting jobs: " << waiting << "\n";
  if (waiting) o << w.Str();
  *out = o.str();
  return true;
}

bool VcJson(const Status& s, const std::string& name, std::string* out, std::string* err) {
  json_t* cluster = Get(s, "cluster");
  json_t* vcs = json_object_get(cluster, "vcs");
  json_t* result = json_array();
  size_t i;
  json_t* v;
  bool found = false;
  json_array_foreach(vcs, i, v) {
    const char* vn = json_string_value(json_object_get(v, "vc"));
    if (!vn || (!name.empty() && strcasecmp(vn, name.c_str()))) continue;
    found = true;
    json_t* copy = json_deep_copy(v);
    json_t* waiting = json_array();
    size_t k;
    json_t* p;
    json_array_foreach(json_object_get(s.root.get(), "pending"), k, p) {
      const char* pv = json_string_value(json_object_get(p, "vc"));
      if (pv && !strcasecmp(pv, vn)) json_array_append(waiting, p);
    }
    json_object_set_new(copy, "waiting", waiting);
    const Vc* model = s.FindVc(vn);
    if (model) json_object_set_new(copy, "quotaGpus", json_integer(QuotaGpus(s, *model)));
    json_array_append_new(result, copy);
  }
  if (!name.empty() && !found) {
    json_decref(result);
    *err = "no VC '" + name + "'";
    return false;
  }
  if (!name.empty()) {
    *out = Dump(json_array_get(result, 0));
  } else {
    *out = Dump(result);
  }
  json_decref(result);
  return true;
}

bool JobText(const Status& s, const std::string& id, std::string* out, std::string* err) {
  std::ostringstream o;
  const Job* j = s.FindJob(id);
  if (!j) {
    const Waiting* w = s.FindWaiting(id);
    const Waiting* r = w ? nullptr : s.FindRefused(id);
    if (r) {
      o << "Job " << r->job << ": refused by HiveD" << (r->vc.empty() ? "" : " (VC " + r->vc + ")")
        << "; Slurm said \"Requested node configuration is not available\"\n"
        << "Why: " << r->reason << "\n";
      *out = o.str();
      return true;
    }
    if (!w) {
      *err = "HiveD holds no job " + id +
             " (not a GPU job, not started or placed by select/hived, or already ended)";
      return false;
    }
    o << "Job " << w->job << ": waiting" << (w->vc.empty() ? "" : " (VC " + w->vc + ")") << "\n"
      << "Why: " << w->reason << "\n";
    if (w->history.present) o << "Waited so far: " << WaitedText(w->history) << "\n";
    *out = o.str();
    return true;
  }
  o << "Job " << j->job << ": VC " << (j->vc.empty() ? "-" : j->vc)
    << (j->asked_vc.empty() ? "" : " (asked " + j->asked_vc + ")") << ", " << ClassText(*j)
    << ", HiveD priority " << j->priority << ", "
    << (j->Fractions() ? N(j->Fractions()) + " fractions of a GPU (GPU[slots] below)"
                       : N(j->Gpus()) + " GPUs")
    << "\n";
  if (j->lazy_preempted && j->demoted_by_config)
    o << "Demoted by the config: "
      << (j->asked_vc.empty() ? "its VC's cells in hived.conf do not hold it"
                              : "hived.conf no longer has VC " + j->asked_vc)
      << "; it runs on as opportunistic and is guaranteed again when a reload gives its VC "
         "the cells back\n";
  else if (j->lazy_preempted && j->borrowed)
    o << "Borrowed idle GPUs: its VC had the free GPUs but not in cells of its shape, so it "
         "started outside them (borrowIdleCells) and runs as opportunistic until a guaranteed "
         "job needs them\n";
  else if (j->lazy_preempted)
    o << "Lazy-preempted: it lost its VC cells to a higher-priority job and runs on as "
         "opportunistic\n";
  if (const Started* st = s.FindStarted(id))
    o << "Waited before it started: " << WaitedText(st->history) << "\n";
  Table t({"NODE", "GPUS", "CELL", "BOUND TO"});
  for (const auto& p : j->placement) {
    const Node* n = NodeOf(s, p.node);
    std::vector<const Gpu*> gpus = GpusOf(s, p.node, p.leaves);
    std::set<std::string> vcs;
    for (const Gpu* g : gpus) {
      std::vector<std::string> by;  // a split GPU: the VCs of the job's fractions
      for (int f : p.fractions)
        if (g->Split() && f >= 0 && f < static_cast<int>(g->slots.size()))
          by.push_back(g->slots[f].vc);
      if (by.empty()) by.push_back(g->vc);
      for (const auto& v : by) vcs.insert(v.empty() ? "-" : v);
    }
    std::vector<std::string> bound(vcs.begin(), vcs.end());
    t.Row({p.node, p.GpuText(), n ? CellOf(s, *n, gpus) : "-",
           bound.empty() ? "-" : Join(bound, ",")});
  }
  o << t.Str();
  *out = o.str();
  return true;
}

bool JobJson(const Status& s, const std::string& id, std::string* out, std::string* err) {
  size_t i;
  json_t* j;
  json_array_foreach(json_object_get(s.root.get(), "jobs"), i, j) {
    const char* name = json_string_value(json_object_get(j, "job"));
    if (name && id == name) {
      // How long it waited before it started, when the plugin still lists it.
      json_t* copy = json_deep_copy(j);
      size_t k;
      json_t* st;
      json_array_foreach(json_object_get(s.root.get(), "started"), k, st) {
        const char* sn = json_string_value(json_object_get(st, "job"));
        if (sn && id == sn) json_object_set(copy, "waitedBeforeStart", st);
      }
      *out = Dump(copy);
      json_decref(copy);
      return true;
    }
  }
  json_array_foreach(json_object_get(s.root.get(), "refused"), i, j) {
    const char* name = json_string_value(json_object_get(j, "job"));
    if (name && id == name) {
      json_t* copy = json_deep_copy(j);
      json_object_set_new(copy, "refused", json_true());
      *out = Dump(copy);
      json_decref(copy);
      return true;
    }
  }
  json_array_foreach(json_object_get(s.root.get(), "pending"), i, j) {
    const char* name = json_string_value(json_object_get(j, "job"));
    if (name && id == name) {
      json_t* copy = json_deep_copy(j);
      json_object_set_new(copy, "waiting", json_true());
      *out = Dump(copy);
      json_decref(copy);
      return true;
    }
  }
  *err = "HiveD holds no job " + id;
  return false;
}

}  // namespace hivedctl
