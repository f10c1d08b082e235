// SPDX-License-Identifier: GPL-2.0-or-later
#include "report.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "cluster.h"

namespace hivedsim {

namespace {

std::string Num(double v, int prec = 3) {
  if (!std::isfinite(v)) return "null";
  char b[64];
  snprintf(b, sizeof b, "%.*f", prec, v);
  return b;
}

std::string DistJson(const Dist& d) {
  return "{\"n\": " + std::to_string(d.n) + ", \"mean\": " + Num(d.mean) +
         ", \"p50\": " + Num(d.p50) + ", \"p95\": " + Num(d.p95) + ", \"p99\": " + Num(d.p99) +
         ", \"max\": " + Num(d.max) + "}";
}

std::string VcJson(const VcMetrics& m, const std::string& cells) {
  std::string o = "{\"vc\": " + JsonString(m.vc) + ", \"gpus\": " + std::to_string(m.quota_gpus);
  if (!cells.empty()) o += ", \"cells\": " + JsonString(cells);
  o += ", \"jobs\": " + std::to_string(m.jobs) + ", \"rejected\": " + std::to_string(m.rejected) +
       ", \"unfinished\": " + std::to_string(m.unfinished) +
       ", \"delaySeconds\": " + DistJson(m.delay) + ", \"jctSeconds\": " + DistJson(m.jct) +
       ", \"utilisation\": " + Num(m.utilisation, 4) +
       ", \"opportunisticShare\": " + Num(m.opportunistic_share, 4) +
       ", \"multiGpuJobs\": " + std::to_string(m.multi_gpu) +
       ", \"bestAffinityJobs\": " + std::to_string(m.multi_best) + ", \"bestAffinityShare\": " +
       Num(m.multi_gpu ? static_cast<double>(m.multi_best) / m.multi_gpu : 1, 4) +
       ", \"preemptions\": " + std::to_string(m.preemptions) +
       ", \"lostGpuHours\": " + Num(m.lost_gpu_hours, 2) +
       ", \"anomalyJobs\": " + std::to_string(m.anomaly_jobs) +
       ", \"anomalyExtraMinutes\": " + Num(m.anomaly_minutes, 2) + "}";
  return o;
}

std::string Hours(double s) { return Num(s / 3600.0, 2); }

}  // namespace

std::string TextReport(const Study& s) {
  std::string o;
  const int rn = s.setup.shape.rack_nodes;
  char line[512];
  snprintf(line, sizeof line, "cluster: %d nodes x 8 GPUs = %lld GPUs%s; %zu jobs replayed\n",
           s.setup.shape.nodes, static_cast<long long>(s.setup.shape.Gpus()),
           rn > 0 ? (", racks of " + std::to_string(rn) + " nodes").c_str() : "", s.jobs.size());
  o += line;
  for (const auto& n : s.notes) o += "note: " + n + "\n";
  for (const auto& m : s.metrics) {
    snprintf(line, sizeof line, "\n== %s (%.2f s wall, makespan %.1f days)\n", m.policy.c_str(),
             m.wall_seconds, m.makespan / 86400);
    o += line;
    snprintf(line, sizeof line, "%-12s %6s %7s %4s %9s %9s %9s %9s %8s %6s %6s %6s %7s %9s\n", "vc",
             "GPUs", "jobs", "rej", "delay_h", "p50_h", "p95_h", "p99_h", "jct_h", "util", "opp",
             "aff", "preempt", "anomaly");
    o += line;
    auto row = [&](const VcMetrics& v) {
      char anom[64];
      snprintf(anom, sizeof anom, "%zu/%.0fh", v.anomaly_jobs, v.anomaly_minutes / 60);
      snprintf(line, sizeof line,
               "%-12s %6lld %7zu %4zu %9s %9s %9s %9s %8s %5.1f%% %5.1f%% %5.1f%% %7zu %9s\n",
               v.vc.c_str(), static_cast<long long>(v.quota_gpus), v.jobs,
               v.rejected + v.unfinished, Hours(v.delay.mean).c_str(), Hours(v.delay.p50).c_str(),
               Hours(v.delay.p95).c_str(), Hours(v.delay.p99).c_str(), Hours(v.jct.mean).c_str(),
               100 * v.utilisation, 100 * v.opportunistic_share,
               v.multi_gpu ? 100.0 * v.multi_best / v.multi_gpu : 100.0, v.preemptions, anom);
      o += line;
    };
    for (const auto& v : m.vcs) row(v);
    row(m.overall);
  }
  return o;
}

std::string JsonReport(const Study& s) {
  const int rn = s.setup.shape.rack_nodes;
  std::string o = "{\n  \"trace\": " + JsonString(s.trace.name) +
                  ",\n  \"jobs\": " + std::to_string(s.jobs.size()) +
                  ",\n  \"cluster\": {\"nodes\": " + std::to_string(s.setup.shape.nodes) +
                  ", \"gpusPerNode\": 8, \"rackNodes\": " + std::to_string(rn) +
                  ", \"gpus\": " + std::to_string(s.setup.shape.Gpus()) + "},\n  \"notes\": [";
  for (size_t i = 0; i < s.notes.size(); i++) o += (i ? ", " : "") + JsonString(s.notes[i]);
  o += "],\n  \"policies\": [";
  for (size_t p = 0; p < s.metrics.size(); p++) {
    const Metrics& m = s.metrics[p];
    o += p ? ",\n" : "\n";
    o += "    {\"policy\": " + JsonString(m.policy) +
         ", \"wallSeconds\": " + Num(m.wall_seconds, 3) +
         ", \"makespanSeconds\": " + Num(m.makespan, 0) +
         ", \"stuck\": " + std::to_string(s.results[p].stuck) +
         ",\n     \"overall\": " + VcJson(m.overall, "") + ",\n     \"vcs\": [";
    for (size_t v = 0; v < m.vcs.size(); v++) {
      int idx = s.trace.FindVc(m.vcs[v].vc);
      o += (v ? ",\n       " : "\n       ") + VcJson(m.vcs[v], s.setup.cells[idx].Describe(rn));
    }
    o += "]}";
  }
  o += "\n  ]\n}\n";
  return o;
}

std::string CsvReport(const Study& s) {
  std::string o =
      "policy,vc,gpus,jobs,rejected,unfinished,delay_mean_s,delay_p50_s,delay_p95_s,delay_p99_s,"
      "jct_mean_s,"
      "jct_p50_s,jct_p95_s,jct_p99_s,utilisation,opportunistic_share,multi_gpu_jobs,best_affinity_"
      "jobs,"
      "preemptions,lost_gpu_hours,anomaly_jobs,anomaly_extra_minutes\n";
  for (const auto& m : s.metrics) {
    auto row = [&](const VcMetrics& v) {
      o += m.policy + "," + v.vc + "," + std::to_string(v.quota_gpus) + "," +
           std::to_string(v.jobs) + "," + std::to_string(v.rejected) + "," +
           std::to_string(v.unfinished) + "," + Num(v.delay.mean) + "," + Num(v.delay.p50) + "," +
           Num(v.delay.p95) + "," + Num(v.delay.p99) + "," + Num(v.jct.mean) + "," +
           Num(v.jct.p50) + "," + Num(v.jct.p95) + "," + Num(v.jct.p99) + "," +
           Num(v.utilisation, 4) + "," + Num(v.opportunistic_share, 4) + "," +
           std::to_string(v.multi_gpu) + "," + std::to_string(v.multi_best) + "," +
           std::to_string(v.preemptions) + "," + Num(v.lost_gpu_hours, 2) + "," +
           std::to_string(v.anomaly_jobs) + "," + Num(v.anomaly_minutes, 2) + "\n";
    };
    for (const auto& v : m.vcs) row(v);
    row(m.overall);
  }
  return o;
}

std::string JobsCsv(const Study& s) {
  std::string o =
      "policy,job,vc,submit_s,duration_s,gpus,first_start_s,finish_s,delay_s,starts,preemptions,"
      "opportunistic,best_affinity,rejected\n";
  for (const auto& r : s.results)
    for (int j : s.jobs) {
      const TraceJob& tj = s.trace.jobs[j];
      const JobOutcome& x = r.jobs[j];
      o += r.policy + "," + tj.id + "," + s.trace.vcs[tj.vc] + "," + Num(tj.submit, 0) + "," +
           Num(tj.duration, 1) + "," + std::to_string(tj.gpus) + "," + Num(x.first_start, 1) + "," +
           Num(x.finish, 1) + "," + (x.finished ? Num(JobDelay(tj, x), 1) : "") + "," +
           std::to_string(x.starts) + "," + std::to_string(x.preemptions) + "," +
           (x.opportunistic ? "1" : "0") + "," + (x.best_affinity ? "1" : "0") + "," +
           (x.rejected ? "1" : "0") + "\n";
    }
  return o;
}

bool WriteFile(const std::string& path, const std::string& text, std::string* err) {
  FILE* f = fopen(path.c_str(), "w");
  if (!f) {
    *err = path + ": cannot write: " + strerror(errno);
    return false;
  }
  bool ok = fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = fclose(f) == 0 && ok;
  if (!ok) *err = path + ": write failed: " + strerror(errno);
  return ok;
}

}  // namespace hivedsim
