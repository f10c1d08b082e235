// SPDX-License-Identifier: GPL-2.0-or-later
#include <algorithm>
#include <filesystem>

#include "csv_reader.h"
#include "loaders.h"

namespace hivedsim {

namespace fs = std::filesystem;

bool LoadItp(const std::string& dir, Trace* t, std::string* err) {
  std::error_code ec;
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".csv") files.push_back(e.path().string());
  if (ec) {
    *err = dir + ": cannot list: " + ec.message();
    return false;
  }
  if (files.empty()) {
    *err = dir + ": no *.csv files (expected cluster01.csv ...)";
    return false;
  }
  std::sort(files.begin(), files.end());
  t->name = "itp";
  size_t loaded = 0;
  for (const auto& path : files) {
    DelimitedReader r(path, ',');
    if (!r.Open(err)) return false;
    if (!r.Next()) continue;  // empty file: a VC without jobs
    int c_id = r.Find("job_id"), c_sub = r.Find("submission_time"), c_dur = r.Find("duration"),
        c_gpu = r.Find("num_gpu");
    for (auto [c, n] :
         {std::pair{c_sub, "submission_time"}, {c_dur, "duration"}, {c_gpu, "num_gpu"}})
      if (c < 0) {
        *err = r.WhereLine() + "header: no column '" + n +
               "' (expected job_id,submission_time,duration,num_gpu)";
        return false;
      }
    int vc = t->VcIndex(fs::path(path).stem().string());
    while (r.Next()) {
      TraceJob j;
      j.vc = vc;
      if (!ParseNonNegDouble(r, c_sub, "submission_time", &j.submit, err) ||
          !ParseNonNegDouble(r, c_dur, "duration", &j.duration, err) ||
          !ParsePositiveInt(r, c_gpu, "num_gpu", &j.gpus, err))
        return false;
      j.id = c_id >= 0 && static_cast<size_t>(c_id) < r.Fields().size() ? r.Fields()[c_id]
                                                                        : std::to_string(r.Line());
      j.pods = PodsFor(j.gpus);
      t->jobs.push_back(std::move(j));
      loaded++;
    }
  }
  t->notes.push_back("ITP: " + std::to_string(files.size()) + " files, one VC each, " +
                     std::to_string(loaded) +
                     " jobs; jobs of more than 8 GPUs take whole 8-GPU nodes");
  t->SortJobs();
  return true;
}

}  // namespace hivedsim
