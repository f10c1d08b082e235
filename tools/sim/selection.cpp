// SPDX-License-Identifier: GPL-2.0-or-later
#include "selection.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <random>

namespace hivedsim {

bool ParseSeconds(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  double v = strtod(s.c_str(), &end);
  if (errno || end == s.c_str() || !std::isfinite(v) || v < 0) return false;
  std::string unit(end);
  double mult = 1;
  if (unit.empty() || unit == "s")
    mult = 1;
  else if (unit == "m")
    mult = 60;
  else if (unit == "h")
    mult = 3600;
  else if (unit == "d")
    mult = 86400;
  else if (unit == "w")
    mult = 7 * 86400;
  else
    return false;
  *out = v * mult;
  return true;
}

bool SelectJobs(Trace* t, const Selection& sel, std::vector<int>* jobs, std::string* err) {
  jobs->clear();
  if (sel.compress <= 0 || !std::isfinite(sel.compress)) {
    *err = "--compress must be > 0";
    return false;
  }
  if (sel.sample <= 0 || sel.sample > 1) {
    *err = "--sample must be in (0, 1]";
    return false;
  }
  std::vector<bool> want(t->vcs.size(), sel.vcs.empty());
  for (const auto& name : sel.vcs) {
    int v = t->FindVc(name);
    if (v < 0) {
      *err = "--vcs: the trace has no VC '" + name + "'";
      return false;
    }
    want[v] = true;
  }
  if (t->jobs.empty()) return true;
  const double t0 = t->jobs.front().submit;
  if (sel.compress != 1)
    for (auto& j : t->jobs) j.submit = t0 + (j.submit - t0) / sel.compress;
  const double from = t0 + sel.start;
  const double to = sel.duration < 0 ? INFINITY : from + sel.duration;
  std::mt19937_64 rng(sel.seed);
  std::uniform_real_distribution<double> u(0, 1);
  for (size_t i = 0; i < t->jobs.size(); i++) {
    const TraceJob& j = t->jobs[i];
    if (j.submit < from || j.submit >= to || !want[j.vc]) continue;
    if (sel.sample < 1 && u(rng) >= sel.sample) continue;
    jobs->push_back(static_cast<int>(i));
    if (sel.max_jobs && jobs->size() >= sel.max_jobs) break;
  }
  if (jobs->empty()) {
    *err = "no jobs in the selected window";
    return false;
  }
  return true;
}

}  // namespace hivedsim
