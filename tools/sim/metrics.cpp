// SPDX-License-Identifier: GPL-2.0-or-later
#include "metrics.h"

#include <algorithm>
#include <cmath>

namespace hivedsim {

Dist Distribution(std::vector<double> v) {
  Dist d;
  d.n = v.size();
  if (v.empty()) return d;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  d.mean = sum / v.size();
  auto rank = [&](double p) {
    size_t k = static_cast<size_t>(std::ceil(p / 100.0 * v.size()));
    return v[std::min(v.size(), std::max<size_t>(k, 1)) - 1];
  };
  d.p50 = rank(50);
  d.p95 = rank(95);
  d.p99 = rank(99);
  d.max = v.back();
  return d;
}

double JobDelay(const TraceJob& j, const JobOutcome& o) { return o.finish - j.submit - j.duration; }

namespace {

struct Acc {
  std::vector<double> delay, jct;
  double used = 0, opp = 0;
};

void Fill(VcMetrics* m, Acc& a, double window) {
  m->delay = Distribution(a.delay);
  m->jct = Distribution(a.jct);
  m->utilisation =
      m->quota_gpus > 0 && window > 0 ? a.used / (static_cast<double>(m->quota_gpus) * window) : 0;
  m->opportunistic_share = a.used > 0 ? a.opp / a.used : 0;
}

}  // namespace

Metrics Summarize(const Trace& t, const SimResult& r, const SimResult* baseline,
                  double tolerance_s) {
  Metrics m;
  m.policy = r.policy;
  m.wall_seconds = r.wall_seconds;
  bool any = false;
  double last_finish = 0;
  for (size_t i = 0; i < t.jobs.size(); i++) {
    if (!r.jobs[i].in_run) continue;
    if (!any) m.window_start = t.jobs[i].submit;
    any = true;
    m.window_start = std::min(m.window_start, t.jobs[i].submit);
    m.window_end = std::max(m.window_end, t.jobs[i].submit);
    if (r.jobs[i].finished) last_finish = std::max(last_finish, r.jobs[i].finish);
  }
  if (!any) return m;
  m.makespan = last_finish - m.window_start;
  double wend =
      m.window_end > m.window_start ? m.window_end : std::max(last_finish, m.window_start);
  double window = wend - m.window_start;

  const size_t nv = t.vcs.size();
  std::vector<VcMetrics> per(nv);
  std::vector<Acc> acc(nv);
  Acc all;
  std::vector<bool> seen(nv, false);
  for (size_t v = 0; v < nv; v++) {
    per[v].vc = t.vcs[v];
    per[v].quota_gpus = v < r.vc_gpus.size() ? r.vc_gpus[v] : 0;
  }
  m.overall.vc = "all";
  m.overall.quota_gpus = r.cluster_gpus;
  for (size_t i = 0; i < t.jobs.size(); i++) {
    const JobOutcome& o = r.jobs[i];
    if (!o.in_run) continue;
    const TraceJob& j = t.jobs[i];
    VcMetrics& vm = per[j.vc];
    seen[j.vc] = true;
    for (VcMetrics* x : {&vm, &m.overall}) {
      x->jobs++;
      x->preemptions += o.preemptions;
      x->lost_gpu_hours += o.lost_gpu_seconds / 3600.0;
      if (o.rejected)
        x->rejected++;
      else if (!o.finished)
        x->unfinished++;
    }
    if (o.rejected || !o.finished) continue;
    double delay = JobDelay(j, o), jct = o.finish - j.submit;
    for (Acc* a : {&acc[j.vc], &all}) {
      a->delay.push_back(delay);
      a->jct.push_back(jct);
    }
    if (j.gpus > 1)
      for (VcMetrics* x : {&vm, &m.overall}) {
        x->multi_gpu++;
        if (o.best_affinity) x->multi_best++;
      }
    if (baseline) {
      const JobOutcome& b = baseline->jobs[i];
      if (b.finished && !b.rejected) {
        double extra = delay - JobDelay(j, b);
        if (extra > tolerance_s)
          for (VcMetrics* x : {&vm, &m.overall}) {
            x->anomaly_jobs++;
            x->anomaly_minutes += extra / 60.0;
          }
      }
    }
  }
  for (const auto& run : r.runs) {
    double s = std::max(run.start, m.window_start), e = std::min(run.end, wend);
    if (e <= s) continue;
    double g = (e - s) * run.gpus;
    for (Acc* a : {&acc[run.vc], &all}) {
      a->used += g;
      if (run.opportunistic) a->opp += g;
    }
  }
  for (size_t v = 0; v < nv; v++) {
    if (!seen[v]) continue;
    Fill(&per[v], acc[v], window);
    m.vcs.push_back(per[v]);
  }
  Fill(&m.overall, all, window);
  return m;
}

std::vector<double> UtilisationSeries(const SimResult& r, double t0, double t1, int bins) {
  std::vector<double> busy(bins, 0);
  if (t1 <= t0 || bins <= 0 || r.cluster_gpus <= 0) return busy;
  double w = (t1 - t0) / bins;
  for (const auto& run : r.runs) {
    double s = std::max(run.start, t0), e = std::min(run.end, t1);
    if (e <= s) continue;
    int b0 = std::min(bins - 1, static_cast<int>((s - t0) / w));
    int b1 = std::min(bins - 1, static_cast<int>((e - t0) / w));
    for (int b = b0; b <= b1; b++) {
      double bs = t0 + b * w, be = bs + w;
      double o = std::min(e, be) - std::max(s, bs);
      if (o > 0) busy[b] += o * run.gpus;
    }
  }
  for (double& x : busy) x /= w * static_cast<double>(r.cluster_gpus);
  return busy;
}

}  // namespace hivedsim
