// SPDX-License-Identifier: GPL-2.0-or-later
#include <algorithm>
#include <numeric>

#include "csv_reader.h"
#include "openb.h"

namespace hivedsim {

int BuddyEighths(int k) {
  int b = 1;
  while (b < k) b *= 2;
  return b;
}

int OpenbPod::Cells() const { return gpus ? gpus * kEighthsPerGpu : BuddyEighths(eighths); }

int OpenbVcOf(const std::string& pod_name, int vcs) {
  uint32_t h = 2166136261u;
  for (unsigned char c : pod_name) h = (h ^ c) * 16777619u;
  // Weights n, n-1, ..., 1 over 1000 buckets: VC 0 is the largest.
  const int total = vcs * (vcs + 1) / 2;
  const int bucket = static_cast<int>(h % 1000u);
  int upto = 0;
  for (int v = 0; v < vcs; v++) {
    upto += (vcs - v) * 1000 / total;
    if (bucket < upto) return v;
  }
  return vcs - 1;
}

namespace {

bool Columns(DelimitedReader& r, std::initializer_list<const char*> names, std::vector<int>* c,
             std::string* err) {
  std::string all;
  for (const char* n : names) all += std::string(all.empty() ? "" : ",") + n;
  for (const char* n : names) {
    c->push_back(r.Find(n));
    if (c->back() < 0) {
      *err = r.WhereLine() + "header: no column '" + n + "' (expected " + all + ")";
      return false;
    }
  }
  return true;
}

bool NonNegInt(const DelimitedReader& r, int field, const char* name, long hi, int* out,
               std::string* err) {
  double v;
  if (!ParseNonNegDouble(r, field, name, &v, err)) return false;
  if (v != static_cast<long>(v) || v > hi) {
    *err = r.Where(field) + "column '" + name + "': expected a whole number from 0 to " +
           std::to_string(hi) + ", got '" + r.Fields()[field] + "'";
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

bool LoadNodes(const std::string& path, OpenbTrace* t, std::string* err) {
  DelimitedReader r(path, ',');
  if (!r.Open(err)) return false;
  if (!r.Next()) {
    *err = path + ": empty (expected a header sn,cpu_milli,memory_mib,gpu,model)";
    return false;
  }
  std::vector<int> c;
  if (!Columns(r, {"sn", "gpu", "model"}, &c, err)) return false;
  while (r.Next()) {
    OpenbNode n;
    if (!NonNegInt(r, c[1], "gpu", 8, &n.gpus, err)) return false;
    if (n.gpus == 0) continue;
    n.name = static_cast<size_t>(c[0]) < r.Fields().size() ? r.Fields()[c[0]] : "";
    n.model = static_cast<size_t>(c[2]) < r.Fields().size() ? r.Fields()[c[2]] : "";
    if (n.name.empty() || n.model.empty()) {
      *err = r.Where(n.name.empty() ? c[0] : c[2]) + "column '" +
             (n.name.empty() ? "sn" : "model") + "': missing on a node with GPUs";
      return false;
    }
    if (n.gpus & (n.gpus - 1)) {
      *err = r.Where(c[1]) + "column 'gpu': " + std::to_string(n.gpus) +
             " GPUs on one node; only 1, 2, 4 or 8 are supported";
      return false;
    }
    t->nodes.push_back(std::move(n));
  }
  if (t->nodes.empty()) {
    *err = path + ": no node with GPUs";
    return false;
  }
  return true;
}

}  // namespace

bool LoadOpenb(const std::string& node_csv, const std::string& pod_csv, const OpenbOptions& o,
               OpenbTrace* t, std::string* err) {
  if (o.vcs < 1 || o.vcs > 26) {
    *err = "openb: the number of VCs must be from 1 to 26, got " + std::to_string(o.vcs);
    return false;
  }
  if (!LoadNodes(node_csv, t, err)) return false;
  for (int v = 0; v < o.vcs; v++) t->vcs.push_back(std::string("vc-") + char('a' + v));
  DelimitedReader r(pod_csv, ',');
  if (!r.Open(err)) return false;
  if (!r.Next()) {
    *err = pod_csv + ": empty (expected a header name,...,num_gpu,gpu_milli,...,qos,...)";
    return false;
  }
  std::vector<int> c;
  if (!Columns(r, {"name", "num_gpu", "gpu_milli", "qos", "creation_time"}, &c, err)) return false;
  size_t fractional = 0, whole = 0, rows = 0;
  while (r.Next()) {
    rows++;
    OpenbPod p;
    int num_gpu = 0, milli = 0;
    if (!NonNegInt(r, c[1], "num_gpu", 8, &num_gpu, err) ||
        !NonNegInt(r, c[2], "gpu_milli", 1000, &milli, err) ||
        !ParseNonNegDouble(r, c[4], "creation_time", &p.submit, err))
      return false;
    if (num_gpu == 0) {
      t->cpu_only++;
      continue;
    }
    p.id = static_cast<size_t>(c[0]) < r.Fields().size() ? r.Fields()[c[0]] : "";
    p.qos = static_cast<size_t>(c[3]) < r.Fields().size() ? r.Fields()[c[3]] : "";
    if (p.id.empty()) {
      *err = r.Where(c[0]) + "column 'name': missing";
      return false;
    }
    if (p.qos == "LS" || p.qos == "Guaranteed")
      p.guaranteed = true;
    else if (p.qos != "BE" && p.qos != "Burstable") {
      *err = r.Where(c[3]) + "column 'qos': expected LS, BE, Burstable or Guaranteed, got '" +
             p.qos + "'";
      return false;
    }
    if (milli == 0) {
      *err = r.Where(c[2]) + "column 'gpu_milli': 0 on a pod with num_gpu " +
             std::to_string(num_gpu) + " (expected 1..1000 per GPU)";
      return false;
    }
    if (num_gpu > 1 && milli != 1000) {
      *err = r.Where(c[2]) + "column 'gpu_milli': " + std::to_string(milli) + " with num_gpu " +
             std::to_string(num_gpu) + " (a pod of several GPUs takes them whole: expected 1000)";
      return false;
    }
    if (milli == 1000) {
      p.gpus = num_gpu;
      whole++;
    } else {
      p.eighths = (milli * kEighthsPerGpu + 999) / 1000;
      fractional++;
    }
    p.milli = milli * num_gpu;
    p.vc = OpenbVcOf(p.id, o.vcs);
    t->pods.push_back(std::move(p));
  }
  t->rows = rows;
  std::stable_sort(t->pods.begin(), t->pods.end(),
                   [](const OpenbPod& a, const OpenbPod& b) { return a.submit < b.submit; });
  if (o.max_pods && t->pods.size() > o.max_pods) t->pods.resize(o.max_pods);
  t->notes.push_back(
      "openb: " + std::to_string(t->nodes.size()) + " GPU nodes; " + std::to_string(rows) +
      " pods, " + std::to_string(t->cpu_only) + " without GPUs dropped, " + std::to_string(whole) +
      " of whole GPUs, " + std::to_string(fractional) +
      " of a fraction of one GPU (gpu_milli rounded "
      "up to eighths)" +
      (o.max_pods
           ? "; the first " + std::to_string(t->pods.size()) + " GPU pods by creation_time kept"
           : ""));
  return true;
}

}  // namespace hivedsim
