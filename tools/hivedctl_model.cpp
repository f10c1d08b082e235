// SPDX-License-Identifier: GPL-2.0-or-later
// Reading hived_status.json with jansson. Fields the engine may add later are
// ignored; fields hivedctl needs are checked and named when missing.
#include "hivedctl_model.h"

#include <jansson.h>
#include <strings.h>

#include <algorithm>
#include <set>

namespace hivedctl {

namespace {

struct Reader {
  std::string err;

  bool Fail(const std::string& path, const std::string& what) {
    if (err.empty()) err = path + ": " + what;
    return false;
  }
  json_t* Obj(json_t* o, const char* key, const std::string& path, bool required = true) {
    json_t* v = json_object_get(o, key);
    if (!v && required) Fail(path + "." + key, "missing");
    return v;
  }
  std::string Str(json_t* o, const char* key, const std::string& path, bool required = true) {
    json_t* v = Obj(o, key, path, required);
    if (!v) return "";
    if (!json_is_string(v)) {
      Fail(path + "." + key, "not a string");
      return "";
    }
    return json_string_value(v);
  }
  int64_t Int(json_t* o, const char* key, const std::string& path, bool required = true) {
    json_t* v = Obj(o, key, path, required);
    if (!v) return 0;
    if (json_is_integer(v)) return json_integer_value(v);
    if (json_is_real(v)) return static_cast<int64_t>(json_real_value(v));
    Fail(path + "." + key, "not a number");
    return 0;
  }
  double Num(json_t* o, const char* key, const std::string& path) {
    json_t* v = json_object_get(o, key);
    if (!v) return 0;
    if (json_is_number(v)) return json_number_value(v);
    Fail(path + "." + key, "not a number");
    return 0;
  }
  bool Bool(json_t* o, const char* key, const std::string& path) {
    json_t* v = json_object_get(o, key);
    if (!v) return false;
    if (!json_is_boolean(v)) return Fail(path + "." + key, "not a boolean");
    return json_is_true(v);
  }
  json_t* Arr(json_t* o, const char* key, const std::string& path, bool required = true) {
    json_t* v = Obj(o, key, path, required);
    if (v && !json_is_array(v)) {
      Fail(path + "." + key, "not an array");
      return nullptr;
    }
    return v;
  }
};

std::string Idx(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

void ReadVc(Reader& r, json_t* o, const std::string& p, Vc* vc) {
  vc->name = r.Str(o, "vc", p);
  json_t* cells = r.Arr(o, "cells", p);
  size_t i;
  json_t* c;
  if (cells) json_array_foreach(cells, i, c) {
      VcCell cell;
      std::string q = Idx(p + ".cells", i);
      cell.chain = r.Str(c, "chain", q);
      cell.cell_type = r.Str(c, "cellType", q);
      cell.level = static_cast<int>(r.Int(c, "level", q));
      cell.total = r.Int(c, "total", q);
      cell.bound = r.Int(c, "bound", q);
      cell.doomed = r.Int(c, "doomed", q, false);
      vc->cells.push_back(cell);
    }
  json_t* pins = r.Arr(o, "pinnedCells", p, false);
  if (pins) json_array_foreach(pins, i, c) {
      Pinned pin;
      std::string q = Idx(p + ".pinnedCells", i);
      pin.id = r.Str(c, "pinnedCellId", q);
      pin.cell_type = r.Str(c, "cellType", q, false);
      pin.used_leaves = r.Int(c, "usedLeaves", q, false);
      vc->pinned.push_back(pin);
    }
  vc->used_leaves = r.Int(o, "usedLeaves", p);
  vc->opp_leaves = r.Int(o, "opportunisticLeaves", p, false);
  json_t* jobs = r.Arr(o, "jobs", p, false);
  if (jobs)
    json_array_foreach(jobs, i, c) if (json_is_string(c)) vc->jobs.push_back(json_string_value(c));
}

void ReadCluster(Reader& r, json_t* o, Status* s) {
  const std::string p = "cluster";
  json_t* chains = r.Arr(o, "chains", p);
  size_t i, k;
  json_t *c, *l;
  if (chains) json_array_foreach(chains, i, c) {
      Chain ch;
      std::string q = Idx(p + ".chains", i);
      ch.chain = r.Str(c, "chain", q);
      ch.leaf_type = r.Str(c, "leafCellType", q, false);
      json_t* levels = r.Arr(c, "levels", q);
      if (levels) json_array_foreach(levels, k, l) {
          Level lv;
          std::string lq = Idx(q + ".levels", k);
          lv.level = static_cast<int>(r.Int(l, "level", lq));
          lv.cell_type = r.Str(l, "cellType", lq);
          lv.cells = r.Int(l, "cells", lq);
          lv.free = r.Int(l, "free", lq, false);
          lv.bad = r.Int(l, "bad", lq, false);
          ch.levels.push_back(lv);
        }
      std::sort(ch.levels.begin(), ch.levels.end(),
                [](const Level& a, const Level& b) { return a.level < b.level; });
      s->chains.push_back(ch);
    }
  s->total_leaves = r.Int(o, "totalLeaves", p);
  s->used_leaves = r.Int(o, "usedLeaves", p);
  s->opp_leaves = r.Int(o, "opportunisticLeaves", p, false);
  json_t* bad = r.Arr(o, "badNodes", p, false);
  if (bad)
    json_array_foreach(bad, i, c) if (json_is_string(c))
        s->bad_nodes.push_back(json_string_value(c));
  json_t* vcs = r.Arr(o, "vcs", p);
  if (vcs) json_array_foreach(vcs, i, c) {
      Vc vc;
      ReadVc(r, c, Idx(p + ".vcs", i), &vc);
      s->vcs.push_back(vc);
    }
}

void ReadTopology(Reader& r, json_t* o, Status* s) {
  const std::string p = "topology";
  json_t* nodes = r.Arr(o, "nodes", p);
  size_t i, k, g;
  json_t *n, *a, *gpu, *grp;
  if (nodes) json_array_foreach(nodes, i, n) {
      Node node;
      std::string q = Idx(p + ".nodes", i);
      node.name = r.Str(n, "node", q);
      node.chain = r.Str(n, "chain", q, false);
      node.bad = r.Bool(n, "bad", q);
      json_t* above = r.Arr(n, "above", q, false);
      if (above) json_array_foreach(above, k, a) {
          std::string aq = Idx(q + ".above", k);
          node.above.push_back({r.Str(a, "cellType", aq), r.Str(a, "address", aq)});
        }
      json_t* gpus = r.Arr(n, "gpus", q);
      if (gpus) json_array_foreach(gpus, k, gpu) {
          Gpu gp;
          std::string gq = Idx(q + ".gpus", k);
          gp.gpu = static_cast<int>(r.Int(gpu, "gpu", gq));
          json_t* groups = r.Arr(gpu, "groups", gq, false);
          if (groups) json_array_foreach(groups, g, grp) {
              std::string grq = Idx(gq + ".groups", g);
              gp.groups.push_back(
                  {r.Str(grp, "cellType", grq), static_cast<int>(r.Int(grp, "index", grq))});
            }
          gp.vc = r.Str(gpu, "vc", gq, false);
          gp.job = r.Str(gpu, "job", gq, false);
          gp.cls = r.Str(gpu, "class", gq, false);
          gp.bad = r.Bool(gpu, "bad", gq);
          // Fractional chains list each smallest fraction: fold them into their GPU.
          if (json_object_get(gpu, "fraction")) {
            r.Int(gpu, "fraction", gq);  // checks that it is a number
            Slot slot{gp.vc, gp.job, gp.cls};
            if (node.gpus.empty() || node.gpus.back().slots.empty() ||
                node.gpus.back().gpu != gp.gpu) {
              gp.slots.push_back(slot);
              node.gpus.push_back(gp);
            } else {
              node.gpus.back().slots.push_back(slot);
              node.gpus.back().bad |= gp.bad;
            }
            continue;
          }
          node.gpus.push_back(gp);
        }
      for (auto& g : node.gpus)
        if (g.Split()) g.vc = g.job = g.cls = "";
      s->nodes.push_back(node);
    }
}

// "waitingSince", "waitedSecs" and "waited" {cause: seconds}; all optional.
void ReadHistory(Reader& r, json_t* o, const std::string& p, WaitHistory* h) {
  json_t* by = json_object_get(o, "waited");
  if (!json_is_object(by)) return;
  h->present = true;
  h->since = r.Int(o, "waitingSince", p, false);
  h->secs = r.Int(o, "waitedSecs", p, false);
  h->current = r.Str(o, "waitingFor", p, false);
  const char* key;
  json_t* v;
  json_object_foreach(by, key, v) {
    if (!json_is_integer(v)) {
      r.Fail(p + ".waited." + key, "not an integer");
      return;
    }
    h->by_cause.emplace_back(key, json_integer_value(v));
  }
}

void ReadJob(Reader& r, json_t* o, const std::string& p, Job* job) {
  job->job = r.Str(o, "job", p);
  job->vc = r.Str(o, "vc", p, false);
  job->priority = static_cast<int>(r.Int(o, "priority", p, false));
  job->cls = r.Str(o, "class", p, false);
  job->lazy_preempted = r.Bool(o, "lazyPreempted", p);
  const std::string by = r.Str(o, "demotedBy", p, false);
  job->demoted_by_config = by == "config";
  job->borrowed = by == "borrow";
  job->asked_vc = r.Str(o, "askedVc", p, false);
  json_t* pl = r.Arr(o, "placement", p, false);
  size_t i, k;
  json_t *pod, *leaf;
  if (pl) json_array_foreach(pl, i, pod) {
      Pod pd;
      std::string q = Idx(p + ".placement", i);
      pd.node = r.Str(pod, "node", q);
      json_t* leaves = r.Arr(pod, "leaves", q);
      if (leaves)
        json_array_foreach(leaves, k, leaf) if (json_is_integer(leaf))
            pd.leaves.push_back(static_cast<int>(json_integer_value(leaf)));
      json_t* fr = r.Arr(pod, "fractions", q, false);
      if (fr)
        json_array_foreach(fr, k, leaf) if (json_is_integer(leaf))
            pd.fractions.push_back(static_cast<int>(json_integer_value(leaf)));
      job->placement.push_back(pd);
    }
}

// The chains whose leaves are MIG slices: their leaf type is the child of a cell
// type with childIsMigSlice in the config; a profile's compute slots are the
// digit before "g." (a100_3g.20gb: 3 of 7).
void MigChains(json_t* root, Status* s) {
  json_t* types = json_object_get(
      json_object_get(json_object_get(root, "config"), "physicalCluster"), "cellTypes");
  const char* key;
  json_t* t;
  std::set<std::string> profiles;
  json_object_foreach(types, key, t) {
    const char* child = json_string_value(json_object_get(t, "childCellType"));
    if (child && json_is_true(json_object_get(t, "childIsMigSlice"))) profiles.insert(child);
  }
  for (auto& ch : s->chains) {
    if (!profiles.count(ch.leaf_type)) continue;
    size_t g = ch.leaf_type.find("g.");
    int slots = g != std::string::npos && g > 0 ? ch.leaf_type[g - 1] - '0' : 0;
    ch.mig_slots = slots >= 1 && slots <= 7 ? slots : 1;
  }
}

// Each VC's use in GPUs. The engine counts leaf cells, which in a chain with levels
// below the GPU are fractions: then the jobs' GPUs and fractions in the topology say
// it (a job of a VC counts for that VC, by its class).
void VcGpus(Status* s) {
  bool fractional = false;
  for (const auto& ch : s->chains) fractional |= ch.leaves_per_gpu > 1;
  for (auto& vc : s->vcs) {
    vc.used_gpus = fractional ? 0 : static_cast<double>(vc.used_leaves);
    vc.opp_gpus = fractional ? 0 : static_cast<double>(vc.opp_leaves);
  }
  if (!fractional) return;
  std::map<std::string, Vc*> by_job;
  for (auto& vc : s->vcs)
    for (const auto& j : vc.jobs) by_job[j] = &vc;
  auto add = [&](const std::string& job, const std::string& cls, double gpus) {
    auto it = by_job.find(job);
    if (it == by_job.end()) return;
    (cls == "opportunistic" ? it->second->opp_gpus : it->second->used_gpus) += gpus;
  };
  for (const auto& n : s->nodes)
    for (const auto& g : n.gpus) {
      if (!g.Split()) {
        if (!g.job.empty()) add(g.job, g.cls, 1);
        continue;
      }
      for (const auto& sl : g.slots)
        if (!sl.job.empty()) add(sl.job, sl.cls, 1.0 / static_cast<double>(g.slots.size()));
    }
}

}  // namespace

bool Gpu::Split() const {
  for (const auto& sl : slots)
    if (sl.vc != slots[0].vc || sl.job != slots[0].job || sl.cls != slots[0].cls) return true;
  return false;
}

int64_t Gpu::SlotsUsed() const {
  int64_t n = 0;
  for (const auto& sl : slots) n += !sl.job.empty();
  return n;
}

double Chain::GpusPerCell(int level) const {
  return static_cast<double>(LeavesPerCell(level)) / static_cast<double>(leaves_per_gpu);
}

int64_t Chain::LeavesPerCell(int level) const {
  const Level* leaf = At(1);
  const Level* l = At(level);
  if (!leaf || !l || l->cells <= 0) return 0;
  return leaf->cells / l->cells;
}

const Level* Chain::At(int level) const {
  for (const auto& l : levels)
    if (l.level == level) return &l;
  return nullptr;
}

int64_t Job::Gpus() const {
  int64_t n = 0;
  for (const auto& p : placement) n += static_cast<int64_t>(p.leaves.size());
  return n;
}

int64_t Job::Fractions() const {
  int64_t n = 0;
  for (const auto& p : placement) n += static_cast<int64_t>(p.fractions.size());
  return n;
}

std::string Pod::GpuText() const {
  return Ranges(leaves) + (fractions.empty() ? "" : "[" + Ranges(fractions) + "]");
}

const Chain* Status::FindChain(const std::string& name) const {
  for (const auto& c : chains)
    if (c.chain == name) return &c;
  return nullptr;
}

const Vc* Status::FindVc(const std::string& name) const {
  for (const auto& v : vcs)
    if (v.name == name) return &v;
  for (const auto& v : vcs)
    if (!strcasecmp(v.name.c_str(), name.c_str())) return &v;
  return nullptr;
}

const Job* Status::FindJob(const std::string& id) const {
  for (const auto& j : jobs)
    if (j.job == id) return &j;
  return nullptr;
}

const Waiting* Status::FindWaiting(const std::string& id) const {
  for (const auto& w : pending)
    if (w.job == id) return &w;
  return nullptr;
}

const Waiting* Status::FindRefused(const std::string& id) const {
  for (const auto& w : refused)
    if (w.job == id) return &w;
  return nullptr;
}

void Status::AgeWaits(int64_t now) {
  const int64_t from = std::max(written, waits_as_of);
  if (now <= from) return;
  for (auto& w : pending) {
    WaitHistory& h = w.history;
    if (!h.present || h.current.empty()) continue;
    h.secs += now - from;
    auto it = std::find_if(
        h.by_cause.begin(), h.by_cause.end(),
        [&](const std::pair<std::string, int64_t>& c) { return c.first == h.current; });
    if (it == h.by_cause.end())
      h.by_cause.emplace_back(h.current, now - from);
    else
      it->second += now - from;
  }
  waits_as_of = now;
}

const Started* Status::FindStarted(const std::string& id) const {
  for (auto it = started.rbegin(); it != started.rend(); ++it)
    if (it->job == id) return &*it;
  return nullptr;
}

std::string Status::NodeCellType(const std::string& chain) const {
  const Chain* ch = FindChain(chain);
  if (!ch) return "";
  for (const auto& n : nodes) {
    if (n.chain != chain) continue;
    // The one level that is neither above the node, inside it, nor a GPU.
    for (const auto& l : ch->levels) {
      if (ch->LeavesPerCell(l.level) <= ch->leaves_per_gpu) continue;  // a GPU or below
      bool used = false;
      for (const auto& a : n.above) used |= a.cell_type == l.cell_type;
      if (!n.gpus.empty())
        for (const auto& g : n.gpus[0].groups) used |= g.cell_type == l.cell_type;
      if (!used) return l.cell_type;
    }
    break;
  }
  return "";
}

int64_t Status::WaitingGuaranteed(const std::string& vc) const {
  int64_t n = 0;
  for (const auto& w : pending)
    if (w.vc == vc && w.cls != "opportunistic") n++;
  return n;
}

bool Parse(const std::string& text, Status* out, std::string* err) {
  json_error_t jerr;
  json_t* root = json_loadb(text.data(), text.size(), 0, &jerr);
  if (!root) {
    *err = "not JSON (line " + std::to_string(jerr.line) + "): " + jerr.text;
    return false;
  }
  *out = Status();
  out->root = std::shared_ptr<json_t>(root, [](json_t* j) { json_decref(j); });
  if (!json_is_object(root)) {
    *err = "not a JSON object";
    return false;
  }
  Reader r;
  out->version = static_cast<int>(r.Int(root, "version", "status"));
  if (r.err.empty() && out->version != 1) {
    *err = "version: " + std::to_string(out->version) + " is not a version this hivedctl reads (1)";
    return false;
  }
  out->written = r.Int(root, "written", "status", false);
  out->hived_conf = r.Str(root, "hivedConf", "status", false);
  out->slurm_version = r.Str(root, "slurmVersion", "status", false);
  out->borrow_idle_cells = json_is_true(json_object_get(root, "borrowIdleCells"));
  size_t qi;
  json_t* q;
  json_array_foreach(json_object_get(json_object_get(root, "slurm"), "opportunisticQos"), qi, q) {
    if (json_is_string(q)) out->opportunistic_qos.push_back(json_string_value(q));
  }
  json_t* cluster = r.Obj(root, "cluster", "status");
  if (cluster && json_is_object(cluster))
    ReadCluster(r, cluster, out);
  else if (cluster)
    r.Fail("cluster", "not an object (select/hived has no valid hived.conf loaded)");
  json_t* topo = r.Obj(root, "topology", "status", false);
  if (topo && json_is_object(topo)) ReadTopology(r, topo, out);
  for (const auto& n : out->nodes)
    for (auto& ch : out->chains)
      if (ch.chain == n.chain && !n.gpus.empty() && !n.gpus[0].slots.empty())
        ch.leaves_per_gpu = static_cast<int64_t>(n.gpus[0].slots.size());
  MigChains(root, out);
  VcGpus(out);
  json_t* jobs = r.Arr(root, "jobs", "status", false);
  size_t i;
  json_t* j;
  if (jobs) json_array_foreach(jobs, i, j) {
      Job job;
      ReadJob(r, j, Idx("jobs", i), &job);
      out->jobs.push_back(job);
    }
  // "pending" and "refused": a job id with its VC, reason and (pending) class.
  for (auto list :
       {std::make_pair("pending", &out->pending), std::make_pair("refused", &out->refused)}) {
    json_t* arr = r.Arr(root, list.first, "status", false);
    if (arr) json_array_foreach(arr, i, j) {
        std::string q = Idx(list.first, i);
        Waiting w;
        w.job = r.Str(j, "job", q);
        w.vc = r.Str(j, "vc", q, false);
        w.reason = r.Str(j, "reason", q, false);
        w.cls = r.Str(j, "class", q, false);
        ReadHistory(r, j, q, &w.history);
        list.second->push_back(w);
      }
  }
  json_t* started = r.Arr(root, "started", "status", false);
  if (started) json_array_foreach(started, i, j) {
      std::string q = Idx("started", i);
      Started st;
      st.job = r.Str(j, "job", q);
      st.time = r.Int(j, "time", q, false);
      ReadHistory(r, j, q, &st.history);
      out->started.push_back(st);
    }
  json_t* reload = json_object_get(root, "lastReload");
  if (json_is_object(reload)) {
    out->reload_time = r.Int(reload, "time", "lastReload", false);
    out->reload_refused = json_is_true(json_object_get(reload, "refused"));
    out->reload_reason = r.Str(reload, "reason", "lastReload", false);
  }
  json_t* timing = json_object_get(root, "timing");
  if (json_is_object(timing)) {
    out->job_test_calls = r.Int(timing, "jobTestCalls", "timing", false);
    out->job_test_mean_us = r.Num(timing, "jobTestMeanUs", "timing");
    // Absent before whole-run percentiles (a status file from an older plugin).
    if (json_object_get(timing, "jobTestP50Us"))
      out->job_test_p50_us = r.Num(timing, "jobTestP50Us", "timing");
    out->job_test_p99_us = r.Num(timing, "jobTestP99Us", "timing");
    out->job_test_max_us = r.Num(timing, "jobTestMaxUs", "timing");
    // Absent from status files of plugins before 2026-11-29.
    if (json_object_get(timing, "willRunTrials")) {
      out->will_run_trials = r.Int(timing, "willRunTrials", "timing", false);
      out->will_run_memo_answers = r.Int(timing, "willRunMemoAnswers", "timing", false);
      out->will_run_trial_ended_jobs = r.Int(timing, "willRunTrialEndedJobs", "timing", false);
    }
    // Absent from status files of plugins before 09fde79.
    if (json_object_get(timing, "willRunByGuarantee"))
      out->will_run_by_guarantee = r.Int(timing, "willRunByGuarantee", "timing", false);
  }
  json_t* counters = json_object_get(root, "counters");
  if (json_is_object(counters)) {
    out->preemptions = r.Int(counters, "preemptions", "counters", false);
    out->lazy_preemptions = r.Int(counters, "lazyPreemptions", "counters", false);
    out->borrowed_starts = r.Int(counters, "borrowedStarts", "counters", false);
    out->promotions = r.Int(counters, "promotions", "counters", false);
  }
  if (!r.err.empty()) {
    *err = r.err;
    return false;
  }
  return true;
}

std::string Ranges(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  std::string s;
  for (size_t k = 0; k < v.size(); k++) {
    size_t end = k;
    while (end + 1 < v.size() && v[end + 1] == v[end] + 1) end++;
    if (!s.empty()) s += ",";
    s += std::to_string(v[k]);
    if (end > k) s += "-" + std::to_string(v[end]);
    k = end;
  }
  return s;
}

}  // namespace hivedctl
