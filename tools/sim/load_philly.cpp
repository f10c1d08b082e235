// SPDX-License-Identifier: GPL-2.0-or-later
#include <algorithm>
#include <filesystem>
#include <map>

#include "csv_reader.h"
#include "loaders.h"

namespace hivedsim {

namespace fs = std::filesystem;

namespace {

// Two-column table "vc,<value>" with a header; values parsed as numbers >= 0.
bool LoadVcTable(const std::string& path, const std::string& value_name,
                 std::map<std::string, double>* out, std::string* err) {
  DelimitedReader r(path, ',');
  if (!r.Open(err)) return false;
  if (!r.Next()) return true;
  int c_vc = r.Find("vc"), c_v = r.Find(value_name);
  if (c_vc < 0 || c_v < 0) {
    *err = r.WhereLine() + "header: expected columns 'vc' and '" + value_name + "'";
    return false;
  }
  while (r.Next()) {
    double v;
    if (static_cast<size_t>(c_vc) >= r.Fields().size() || r.Fields()[c_vc].empty()) {
      *err = r.Where(c_vc) + "column 'vc': missing";
      return false;
    }
    if (!ParseNonNegDouble(r, c_v, value_name, &v, err)) return false;
    (*out)[r.Fields()[c_vc]] = v;
  }
  return true;
}

}  // namespace

bool LoadPhilly(const std::string& dir, Trace* t, std::string* err) {
  std::error_code ec;
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string n = e.path().filename().string();
    if (n.rfind("trace_", 0) == 0 && e.path().extension() == ".csv")
      files.push_back(e.path().string());
  }
  if (ec) {
    *err = dir + ": cannot list: " + ec.message();
    return false;
  }
  if (files.empty()) {
    *err = dir + ": no trace_<vc>.csv files";
    return false;
  }
  std::sort(files.begin(), files.end());
  std::map<std::string, double> offsets, nodes;
  if (!LoadVcTable(dir + "/vc_offsets.csv", "offset_s", &offsets, err)) return false;
  if (fs::exists(dir + "/vc_nodes.csv") &&
      !LoadVcTable(dir + "/vc_nodes.csv", "node num", &nodes, err))
    return false;
  std::vector<double> known;
  for (const auto& [vc, off] : offsets) known.push_back(off);
  std::sort(known.begin(), known.end());
  double median = 0;
  if (!known.empty())
    median = known.size() % 2 ? known[known.size() / 2]
                              : (known[known.size() / 2 - 1] + known[known.size() / 2]) / 2;
  t->name = "philly";
  size_t loaded = 0;
  for (const auto& path : files) {
    std::string vcname = fs::path(path).stem().string().substr(6);
    double offset = median;
    auto it = offsets.find(vcname);
    if (it != offsets.end()) {
      offset = it->second;
    } else {
      t->notes.push_back("Philly: VC " + vcname +
                         " has no entry in vc_offsets.csv; it gets the median offset " +
                         std::to_string(static_cast<long long>(median)) + " s");
    }
    auto nt = nodes.find(vcname);
    if (nt != nodes.end()) t->quota_gpus[vcname] = static_cast<int>(nt->second) * kGpusPerNode;
    DelimitedReader r(path, ',');
    if (!r.Open(err)) return false;
    if (!r.Next()) continue;
    int c_id = r.Find("app_id"), c_sub = r.Find("submit_time"), c_svc = r.Find("service"),
        c_gpu = r.Find("num_jobs");
    for (auto [c, n] : {std::pair{c_sub, "submit_time"}, {c_svc, "service"}, {c_gpu, "num_jobs"}})
      if (c < 0) {
        *err = r.WhereLine() + "header: no column '" + n +
               "' (expected app_id,submit_time,service,num_jobs,...)";
        return false;
      }
    int vc = t->VcIndex(vcname);
    while (r.Next()) {
      TraceJob j;
      j.vc = vc;
      if (!ParseNonNegDouble(r, c_sub, "submit_time", &j.submit, err) ||
          !ParseNonNegDouble(r, c_svc, "service", &j.duration, err) ||
          !ParsePositiveInt(r, c_gpu, "num_jobs", &j.gpus, err))
        return false;
      j.submit += offset;
      j.id = c_id >= 0 && static_cast<size_t>(c_id) < r.Fields().size() ? r.Fields()[c_id]
                                                                        : std::to_string(r.Line());
      j.pods = PodsFor(j.gpus);
      t->jobs.push_back(std::move(j));
      loaded++;
    }
  }
  for (const auto& vc : t->vcs)
    if (!nodes.empty() && !nodes.count(vc))
      t->notes.push_back("Philly: VC " + vc +
                         " has no entry in vc_nodes.csv (its quota is chosen by the simulator)");
  t->notes.push_back(
      "Philly: " + std::to_string(files.size()) + " VCs, " + std::to_string(loaded) +
      " jobs; the 'service' column is used as each job's run time (it is scaled up for "
      "multi-GPU jobs by the trace's publishers)");
  t->SortJobs();
  return true;
}

}  // namespace hivedsim
