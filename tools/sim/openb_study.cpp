// SPDX-License-Identifier: GPL-2.0-or-later
#include "openb_study.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <unordered_map>

#include "cluster.h"
#include "hived.h"

namespace hivedsim {

namespace {

struct Shape {
  std::string model;
  int gpus;
  std::string Type() const { return model + "-NODE-" + std::to_string(gpus) + "G"; }
};

const char* const kFractionLevels[] = {"HALF", "QUARTER", "EIGHTH"};

std::vector<Shape> Shapes(const OpenbTrace& t, std::vector<int>* shape_of_node,
                          std::vector<int>* count) {
  std::map<std::pair<std::string, int>, int> idx;
  for (const auto& n : t.nodes) idx.emplace(std::pair{n.model, -n.gpus}, 0);
  std::vector<Shape> out;
  for (auto& [k, i] : idx) {
    i = static_cast<int>(out.size());
    out.push_back({k.first, -k.second});
  }
  count->assign(out.size(), 0);
  for (const auto& n : t.nodes) {
    int i = idx.at({n.model, -n.gpus});
    shape_of_node->push_back(i);
    (*count)[i]++;
  }
  return out;
}

std::string Physical(const OpenbTrace& t, const std::vector<Shape>& shapes,
                     const std::vector<int>& shape_of_node) {
  std::string o = "{\n  \"physicalCluster\": {\n    \"cellTypes\": {\n";
  std::map<std::string, bool> models;
  for (const auto& s : shapes) models[s.model] = true;
  for (const auto& [m, unused] : models) {
    o += "      " + JsonString(m + "-QUARTER") +
         ": {\"childCellType\": " + JsonString(m + "-EIGHTH") + ", \"childCellNumber\": 2},\n";
    o += "      " + JsonString(m + "-HALF") +
         ": {\"childCellType\": " + JsonString(m + "-QUARTER") + ", \"childCellNumber\": 2},\n";
    o += "      " + JsonString(m) + ": {\"childCellType\": " + JsonString(m + "-HALF") +
         ", \"childCellNumber\": 2, \"isGpuLevel\": true},\n";
  }
  for (size_t i = 0; i < shapes.size(); i++)
    o += "      " + JsonString(shapes[i].Type()) +
         ": {\"childCellType\": " + JsonString(shapes[i].model) +
         ", \"childCellNumber\": " + std::to_string(shapes[i].gpus) + ", \"isNodeLevel\": true}" +
         (i + 1 < shapes.size() ? ",\n" : "\n");
  o += "    },\n    \"physicalCells\": [";
  for (size_t n = 0; n < t.nodes.size(); n++)
    o += std::string(n ? ",\n" : "\n") +
         "      {\"cellType\": " + JsonString(shapes[shape_of_node[n]].Type()) +
         ", \"cellAddress\": " + JsonString(t.nodes[n].name) + "}";
  return o + "\n    ]\n  },\n  \"virtualClusters\": {";
}

}  // namespace

bool MakeOpenbSetup(const OpenbTrace& t, OpenbSetup* s, std::string* err) {
  std::vector<int> shape_of_node, count;
  std::vector<Shape> shapes = Shapes(t, &shape_of_node, &count);
  const size_t nv = t.vcs.size();
  std::vector<double> demand(nv, 0);
  double total = 0;
  for (const auto& p : t.pods)
    if (p.guaranteed) demand[p.vc] += p.Cells(), total += p.Cells();
  if (total == 0) {
    *err = "openb: no guaranteed (LS) GPU pods, so no VC has a demand to size its quota by";
    return false;
  }
  s->gpus = 0;
  for (const auto& n : t.nodes) s->gpus += n.gpus;
  s->quota_eighths.assign(nv, 0);
  s->fraction_cells.assign(nv, 0);
  std::vector<std::string> vc_json(nv);
  for (size_t v = 0; v < nv; v++) {
    std::string cells;
    auto add = [&](const std::string& path, int64_t n) {
      if (n <= 0) return;
      cells += std::string(cells.empty() ? "\n" : ",\n") +
               "      {\"cellType\": " + JsonString(path) +
               ", \"cellNumber\": " + std::to_string(n) + "}";
    };
    const double share = demand[v] / total;
    for (size_t i = 0; i < shapes.size(); i++) {
      const Shape& sh = shapes[i];
      const int64_t node_eighths = int64_t{sh.gpus} * kEighthsPerGpu;
      int64_t e = static_cast<int64_t>(std::floor(share * count[i] * node_eighths));
      s->quota_eighths[v] += e;
      const std::string node = sh.Type(), gpu = node + "." + sh.model;
      add(node, e / node_eighths);
      e %= node_eighths;
      add(gpu, e / kEighthsPerGpu);
      e %= kEighthsPerGpu;
      std::string path = gpu;
      for (int l = 0, size = kEighthsPerGpu / 2; l < 3; l++, size /= 2) {
        path += "." + sh.model + "-" + kFractionLevels[l];
        if (e >= size) {
          add(path, 1);
          s->fraction_cells[v]++;
          e -= size;
        }
      }
    }
    if (!cells.empty())
      vc_json[v] = "    " + JsonString(t.vcs[v]) + ": {\"virtualCells\": [" + cells + "\n    ]}";
  }
  const std::string phys = Physical(t, shapes, shape_of_node);
  s->conf = phys;
  bool first = true;
  for (const auto& j : vc_json)
    if (!j.empty()) {
      s->conf += std::string(first ? "\n" : ",\n") + j;
      first = false;
    }
  s->conf += "\n  }\n}\n";
  s->private_conf.clear();
  for (const auto& j : vc_json)
    s->private_conf.push_back(j.empty() ? "" : phys + "\n" + j + "\n  }\n}\n");
  return true;
}

namespace {

// Free eighths of each GPU: bit k set = slot k in use.
struct GpuState {
  std::vector<std::vector<uint8_t>> used;  // [engine node][GPU index]
};

bool FitsIn(uint8_t used, int size) {
  for (int at = 0; at < kEighthsPerGpu; at += size) {
    uint8_t block = static_cast<uint8_t>(((1u << size) - 1) << at);
    if (!(used & block)) return true;
  }
  return false;
}

int FreeEighths(uint8_t used) { return kEighthsPerGpu - __builtin_popcount(used); }

struct TaskClass {
  int gpus, eighths;  // one of them non-zero
  double share;
};

// FGD (Weng et al., ATC'23), with buddy-aligned fits: for a node and a task class,
// the free GPU capacity that cannot serve the class (a fraction: free parts of GPUs
// without an aligned free block of its size; whole GPUs: the node's whole free
// capacity if it has too few idle GPUs, else the free parts of partly used GPUs),
// weighted by the class's share of the pods; summed over nodes, in GPUs.
double FgdFragmentation(const GpuState& g, const std::vector<TaskClass>& classes) {
  double frag = 0;
  for (const auto& node : g.used) {
    int idle = 0, free_all = 0, free_partial = 0;
    for (uint8_t u : node) {
      free_all += FreeEighths(u);
      if (!u)
        idle++;
      else
        free_partial += FreeEighths(u);
    }
    for (const auto& c : classes) {
      int f = 0;
      if (c.gpus)
        f = idle < c.gpus ? free_all : free_partial;
      else
        for (uint8_t u : node)
          if (u && !FitsIn(u, c.eighths)) f += FreeEighths(u);
      frag += c.share * f / kEighthsPerGpu;
    }
  }
  return frag;
}

struct Engine {
  hived_engine* e = nullptr;
  ~Engine() { hived_engine_free(e); }
};

// vc empty: a VC that owns no cells (only opportunistic pods get here).
hived_outcome Submit(hived_engine* e, const std::string& name, const std::string& vc,
                     const OpenbPod& p, bool opportunistic, const hived_decision** d,
                     std::string* err) {
  hived_member m = {1, p.gpus, p.gpus ? 0 : p.eighths};
  hived_job_request req = {};
  req.job = name.c_str();
  req.vc = vc.empty() ? nullptr : vc.c_str();
  req.priority = opportunistic ? HIVED_PRIORITY_OPPORTUNISTIC : 0;
  req.members = &m;
  req.n_members = 1;
  if (hived_submit(e, &req, 0, d) != HIVED_OK) {
    *err = "engine error on " + name + ": " + hived_last_error(e);
    return HIVED_REJECTED;
  }
  return (*d)->outcome;
}

}  // namespace

bool RunOpenbSaturation(const OpenbTrace& t, const OpenbSetup& s, double offered, OpenbResult* r,
                        std::string* err) {
  auto t0 = std::chrono::steady_clock::now();
  char eb[1024] = "";
  Engine eng;
  if (hived_engine_new(s.conf.c_str(), &eng.e, eb, sizeof eb) != HIVED_OK) {
    *err = std::string("openb: hived.conf refused by the engine: ") + eb;
    return false;
  }
  r->gpus = s.gpus;
  r->offered_target = offered;
  // The arrivals: the pod list cycled until the requests reach offered x capacity.
  std::vector<int> arrivals;
  const double cap_milli = 1000.0 * s.gpus;
  double asked = 0;
  if (t.pods.empty()) {
    *err = "openb: no GPU pods to replay";
    return false;
  }
  while (asked < offered * cap_milli) {
    int p = static_cast<int>(arrivals.size() % t.pods.size());
    arrivals.push_back(p);
    asked += t.pods[p].milli;
  }
  r->arrivals = arrivals.size();
  // Task classes and rounding, over the pods of the file replayed.
  std::map<std::pair<int, int>, size_t> cls;
  std::vector<int> frac_sizes;
  for (const auto& p : t.pods) {
    cls[{p.gpus, p.gpus ? 0 : BuddyEighths(p.eighths)}]++;
    if (!p.gpus) {
      r->req_milli_frac += p.milli;
      r->eighths_frac += p.eighths;
      r->buddy_frac += BuddyEighths(p.eighths);
      frac_sizes.push_back(BuddyEighths(p.eighths));
    }
  }
  std::vector<TaskClass> classes;
  for (const auto& [k, n] : cls)
    classes.push_back({k.first, k.second, static_cast<double>(n) / t.pods.size()});
  std::sort(frac_sizes.begin(), frac_sizes.end());
  r->median_frac_eighths = frac_sizes.empty() ? 0 : frac_sizes[(frac_sizes.size() - 1) / 2];

  // The private runs: each VC alone in its own cells, its guaranteed pods only.
  std::vector<uint8_t> private_placed(arrivals.size(), 0);
  for (size_t v = 0; v < t.vcs.size(); v++) {
    if (s.private_conf[v].empty()) continue;
    Engine pe;
    if (hived_engine_new(s.private_conf[v].c_str(), &pe.e, eb, sizeof eb) != HIVED_OK) {
      *err = "openb: private hived.conf of " + t.vcs[v] + " refused: " + eb;
      return false;
    }
    for (size_t a = 0; a < arrivals.size(); a++) {
      const OpenbPod& p = t.pods[arrivals[a]];
      if (!p.guaranteed || p.vc != static_cast<int>(v)) continue;
      const hived_decision* d = nullptr;
      hived_outcome o = Submit(pe.e, "a" + std::to_string(a), t.vcs[v], p, false, &d, err);
      if (!err->empty()) return false;
      private_placed[a] = o == HIVED_PLACED;
    }
  }

  GpuState g;
  const size_t nn = hived_node_count(eng.e);
  std::unordered_map<std::string, size_t> node_index;
  for (size_t n = 0; n < t.nodes.size(); n++) node_index[t.nodes[n].name] = n;
  g.used.resize(nn);
  for (size_t i = 0; i < nn; i++)
    g.used[i].assign(t.nodes[node_index.at(hived_node_name(eng.e, i))].gpus, 0);
  struct Held {
    int node, gpu;
    uint8_t mask;
  };
  std::vector<std::vector<Held>> held(arrivals.size());
  std::vector<uint8_t> running(arrivals.size(), 0);
  int64_t held_eighths = 0, used_milli = 0;
  std::vector<size_t> opp_waiting;
  auto release = [&](size_t a) {
    for (const auto& h : held[a]) g.used[h.node][h.gpu] &= static_cast<uint8_t>(~h.mask);
    held[a].clear();
    running[a] = 0;
    held_eighths -= t.pods[arrivals[a]].Cells();
    used_milli -= t.pods[arrivals[a]].milli;
  };
  auto take = [&](size_t a, const hived_decision* d) {
    for (size_t i = 0; i < d->n_preempted; i++) {
      size_t victim = static_cast<size_t>(atol(d->preempted[i] + 1));
      release(victim);
      r->o_preempted++;
      opp_waiting.push_back(victim);
    }
    for (size_t i = 0; i < d->n_pods; i++) {
      const hived_pod& pod = d->pods[i];
      for (int32_t k = 0; k < pod.n_leaves; k++) {
        uint8_t mask = 0xff;
        if (pod.n_fractions) {
          mask = 0;
          for (int32_t f = 0; f < pod.n_fractions; f++)
            mask |= static_cast<uint8_t>(1u << pod.fractions[f]);
        }
        held[a].push_back({pod.node, pod.leaves[k], mask});
        g.used[pod.node][pod.leaves[k]] |= mask;
      }
    }
    running[a] = 1;
    held_eighths += t.pods[arrivals[a]].Cells();
    used_milli += t.pods[arrivals[a]].milli;
  };
  double offered_so_far = 0;
  const size_t every = std::max<size_t>(1, arrivals.size() / 200);
  for (size_t a = 0; a < arrivals.size(); a++) {
    const OpenbPod& p = t.pods[arrivals[a]];
    const std::string name = "a" + std::to_string(a);
    const hived_decision* d = nullptr;
    const bool owns = !s.private_conf[p.vc].empty();
    if (p.guaranteed && !owns) {  // its VC's share rounded down to no cells at all
      r->g_arrived++;
      r->rejected++;
      if (!p.gpus) r->g_frac++, r->g_frac_waiting++;
      offered_so_far += p.milli;
      continue;
    }
    hived_outcome o = Submit(eng.e, name, owns ? t.vcs[p.vc] : "", p, !p.guaranteed, &d, err);
    if (!err->empty()) return false;
    if (p.guaranteed) {
      r->g_arrived++;
      if (!p.gpus) r->g_frac++;
      if (o == HIVED_PLACED) {
        r->g_placed++;
      } else {
        if (o == HIVED_REJECTED || d->wait_kind == HIVED_WAIT_VC_TOO_SMALL)
          r->rejected++;
        else
          r->g_waiting++;
        if (!p.gpus) r->g_frac_waiting++;
        if (private_placed[a]) {
          r->anomaly++;
          if (!p.gpus) r->anomaly_frac++;
        }
      }
    } else {
      r->o_arrived++;
      if (o != HIVED_PLACED) opp_waiting.push_back(a);
    }
    if (o == HIVED_PLACED) take(a, d);
    offered_so_far += p.milli;
    const bool full = !r->reached_full && offered_so_far >= cap_milli;
    if (full || a % every == 0 || a + 1 == arrivals.size())
      r->curve.push_back({offered_so_far / cap_milli,
                          static_cast<double>(held_eighths) / (kEighthsPerGpu * s.gpus),
                          used_milli / cap_milli, FgdFragmentation(g, classes) / s.gpus});
    if (full) {
      r->at_full = r->curve.back();
      r->reached_full = true;
    }
  }
  // Nothing ends, so only preemption frees cells: give the opportunistic pods that
  // waited one more try at what is left.
  for (size_t a : opp_waiting) {
    if (running[a]) continue;
    const hived_decision* d = nullptr;
    const OpenbPod& p = t.pods[arrivals[a]];
    const std::string vc = s.private_conf[p.vc].empty() ? "" : t.vcs[p.vc];
    if (Submit(eng.e, "r" + std::to_string(a), vc, p, true, &d, err) == HIVED_PLACED) take(a, d);
    if (!err->empty()) return false;
  }
  for (size_t a = 0; a < arrivals.size(); a++)
    if (running[a] && !t.pods[arrivals[a]].guaranteed) r->o_placed++;
  r->allocated = static_cast<double>(held_eighths) / (kEighthsPerGpu * s.gpus);
  r->used = used_milli / cap_milli;
  r->fragmented = FgdFragmentation(g, classes) / s.gpus;
  for (const auto& node : g.used)
    for (uint8_t u : node)
      if (u && u != 0xff) {
        r->partial_gpus++;
        if (r->median_frac_eighths && !FitsIn(u, r->median_frac_eighths)) r->frag_gpus++;
      }
  char buf[1024] = "";
  if (hived_check_invariants(eng.e, buf, sizeof buf) != HIVED_OK)
    r->error = std::string("engine invariant violated: ") + buf;
  r->wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return true;
}

}  // namespace hivedsim
