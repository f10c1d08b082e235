// SPDX-License-Identifier: GPL-2.0-or-later
// hivedctl metrics: Prometheus text exposition (format 0.0.4), one family per
// HELP/TYPE block, suitable for node_exporter's textfile collector.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <sstream>

#include "hivedctl_views.h"
#include "slurm/wait_history.h"

namespace hivedctl {

namespace {

// Label values: backslash, double quote and newline escaped.
std::string Label(const std::string& v) {
  std::string o;
  for (char c : v) {
    if (c == '\\')
      o += "\\\\";
    else if (c == '"')
      o += "\\\"";
    else if (c == '\n')
      o += "\\n";
    else
      o += c;
  }
  return o;
}

class Out {
 public:
  void Family(const char* name, const char* type, const char* help) {
    o_ << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n";
  }
  void Sample(const char* name, const std::string& labels, double v) {
    char buf[64];
    if (v == static_cast<double>(static_cast<int64_t>(v)))
      snprintf(buf, sizeof(buf), "%" PRId64, static_cast<int64_t>(v));
    else
      snprintf(buf, sizeof(buf), "%.9g", v);
    o_ << name << (labels.empty() ? "" : "{" + labels + "}") << " " << buf << "\n";
  }
  std::string Str() const { return o_.str(); }

 private:
  std::ostringstream o_;
};

std::string VcLabel(const std::string& vc) { return "vc=\"" + Label(vc) + "\""; }

std::string CellLabels(const std::string& vc, const VcCell& c) {
  return VcLabel(vc) + ",chain=\"" + Label(c.chain) + "\",cell_type=\"" + Label(c.cell_type) +
         "\",level=\"" + std::to_string(c.level) + "\"";
}

// Cells below the GPU level and split GPUs, in GPU units: per VC what it owns and
// uses in fractions, and for the cluster how much free fraction is stranded on
// partly used GPUs (FGD's fragmentation).
void FractionalMetrics(const Status& s, Out& m) {
  std::map<std::string, std::string> job_vc;
  for (const auto& j : s.jobs) job_vc[j.job] = j.vc;
  std::map<std::string, std::map<std::string, double>> used;  // vc -> class -> GPUs
  for (const auto& n : s.nodes)
    for (const auto& g : n.gpus) {
      if (!g.Split()) continue;
      for (const auto& sl : g.slots)
        if (!sl.job.empty())
          used[job_vc.count(sl.job) ? job_vc[sl.job] : ""]
              [sl.cls == "opportunistic" ? "opportunistic" : "guaranteed"] +=
              1.0 / static_cast<double>(g.slots.size());
    }
  m.Family("hived_vc_fractional_quota_gpus", "gauge",
           "GPUs in the VC's quota cells below the GPU level (half, quarter, ... cells).");
  for (const auto& vc : s.vcs) {
    double n = 0;
    for (const auto& c : vc.cells) {
      const Chain* ch = s.FindChain(c.chain);
      if (ch && ch->GpusPerCell(c.level) < 1)
        n += static_cast<double>(c.total) * ch->GpusPerCell(c.level);
    }
    m.Sample("hived_vc_fractional_quota_gpus", VcLabel(vc.name), n);
  }
  m.Family("hived_vc_fractional_used_gpus", "gauge",
           "GPUs the VC's jobs use in fractions of split GPUs, by class.");
  for (const auto& vc : s.vcs)
    for (const char* cls : {"guaranteed", "opportunistic"})
      m.Sample("hived_vc_fractional_used_gpus", VcLabel(vc.name) + ",class=\"" + cls + "\"",
               used[vc.name][cls]);
  GpuCount g = CountGpus(s);
  m.Family("hived_fractional_gpus", "gauge",
           "Fractions of split GPUs (held by several jobs or partly idle), in GPUs, by state.");
  m.Sample("hived_fractional_gpus", "state=\"guaranteed\"", g.split_guaranteed);
  m.Sample("hived_fractional_gpus", "state=\"opportunistic\"", g.split_opportunistic);
  m.Sample("hived_fractional_gpus", "state=\"free\"", g.split_free);
  m.Family("hived_fragmented_gpus", "gauge",
           "GPUs partly used by fractional jobs with a free fraction left.");
  m.Sample("hived_fragmented_gpus", "", static_cast<double>(g.fragmented));
  m.Family("hived_stranded_free_gpus", "gauge",
           "Free fractions on partly used GPUs, in GPUs: idle capacity no whole-GPU job can use.");
  m.Sample("hived_stranded_free_gpus", "", g.stranded);
}

}  // namespace

std::string Metrics(const Status& s) {
  Out m;
  m.Family("hived_vc_quota_cells", "gauge", "Cells of the VC's quota, by chain and cell type.");
  for (const auto& vc : s.vcs)
    for (const auto& c : vc.cells)
      m.Sample("hived_vc_quota_cells", CellLabels(vc.name, c), c.total);
  m.Family("hived_vc_bound_cells", "gauge", "Quota cells bound to physical cells.");
  for (const auto& vc : s.vcs)
    for (const auto& c : vc.cells)
      m.Sample("hived_vc_bound_cells", CellLabels(vc.name, c), c.bound);
  m.Family("hived_vc_doomed_cells", "gauge",
           "Unbound quota cells that the healthy free cells can no longer serve (bad hardware).");
  for (const auto& vc : s.vcs)
    for (const auto& c : vc.cells)
      m.Sample("hived_vc_doomed_cells", CellLabels(vc.name, c), c.doomed);
  m.Family("hived_vc_quota_gpus", "gauge",
           "GPUs in the VC's quota cells (a fractional cell counts its part of a GPU).");
  for (const auto& vc : s.vcs) m.Sample("hived_vc_quota_gpus", VcLabel(vc.name), QuotaGpus(s, vc));
  FractionalMetrics(s, m);
  m.Family("hived_vc_used_gpus", "gauge", "GPUs used by the VC's guaranteed jobs.");
  for (const auto& vc : s.vcs) m.Sample("hived_vc_used_gpus", VcLabel(vc.name), vc.used_gpus);
  m.Family("hived_vc_opportunistic_gpus", "gauge", "GPUs used by the VC's opportunistic jobs.");
  for (const auto& vc : s.vcs)
    m.Sample("hived_vc_opportunistic_gpus", VcLabel(vc.name), vc.opp_gpus);
  m.Family("hived_vc_running_jobs", "gauge", "Jobs of the VC holding cells.");
  for (const auto& vc : s.vcs)
    m.Sample("hived_vc_running_jobs", VcLabel(vc.name), static_cast<double>(vc.jobs.size()));
  m.Family("hived_vc_pending_guaranteed_jobs", "gauge",
           "Guaranteed jobs of the VC that select/hived made wait.");
  for (const auto& vc : s.vcs)
    m.Sample("hived_vc_pending_guaranteed_jobs", VcLabel(vc.name),
             static_cast<double>(s.WaitingGuaranteed(vc.name)));
  // An alert on cause "cells" is an alert on the sharing anomaly: a job its VC's
  // quota holds, waiting for the shape of its cells.
  m.Family("hived_vc_longest_wait_seconds", "gauge",
           "Of the VC's waiting guaranteed jobs, the most seconds one has waited for the "
           "cause (select/hived's wait history).");
  for (const auto& vc : s.vcs)
    for (int k = 0; k < WAIT_CAUSES; k++) {
      const std::string cause = wait_cause_key(static_cast<wait_cause_t>(k));
      int64_t most = 0;
      for (const auto& w : s.pending) {
        if (w.vc != vc.name || w.cls == "opportunistic") continue;
        for (const auto& c : w.history.by_cause)
          if (c.first == cause) most = std::max(most, c.second);
      }
      m.Sample("hived_vc_longest_wait_seconds", VcLabel(vc.name) + ",cause=\"" + cause + "\"",
               static_cast<double>(most));
    }

  GpuCount g = CountGpus(s);
  m.Family("hived_gpus", "gauge",
           "GPUs of the cluster by state (bad counts GPUs on bad nodes, in use or not).");
  m.Sample("hived_gpus", "state=\"total\"", g.total);
  m.Sample("hived_gpus", "state=\"guaranteed\"", g.guaranteed);
  m.Sample("hived_gpus", "state=\"opportunistic\"", g.opportunistic);
  m.Sample("hived_gpus", "state=\"idle\"", g.idle);
  m.Sample("hived_gpus", "state=\"bad\"", g.bad);
  m.Sample("hived_gpus", "state=\"split\"", g.split);
  if (g.slices) {
    m.Family("hived_mig_slices", "gauge",
             "MIG slices (parts of GPUs in MIG mode, not in hived_gpus) by state.");
    m.Sample("hived_mig_slices", "state=\"total\"", g.slices);
    m.Sample("hived_mig_slices", "state=\"guaranteed\"", g.slices_guaranteed);
    m.Sample("hived_mig_slices", "state=\"opportunistic\"", g.slices_opportunistic);
    m.Sample("hived_mig_slices", "state=\"idle\"", g.slices_idle);
  }
  Counts counts = CountCells(s);
  m.Family("hived_cells", "gauge", "Physical cells by chain, cell type and state.");
  for (const auto& ch : s.chains)
    for (const auto& l : ch.levels) {
      const LevelCount& c = counts[ch.chain][l.level];
      std::string base = "chain=\"" + Label(ch.chain) + "\",cell_type=\"" + Label(l.cell_type) +
                         "\",level=\"" + std::to_string(l.level) + "\"";
      m.Sample("hived_cells", base + ",state=\"total\"", l.cells);
      m.Sample("hived_cells", base + ",state=\"idle\"", c.idle);
      m.Sample("hived_cells", base + ",state=\"in_use\"", c.in_use);
      m.Sample("hived_cells", base + ",state=\"bad\"", l.bad);
    }
  m.Family("hived_bad_nodes", "gauge",
           "Nodes whose cells are bad (DOWN, DRAIN, FAIL or not in slurm.conf).");
  m.Sample("hived_bad_nodes", "", static_cast<double>(s.bad_nodes.size()));
  m.Family("hived_pending_jobs", "gauge", "Jobs select/hived made wait, all classes.");
  m.Sample("hived_pending_jobs", "", static_cast<double>(s.pending.size()));

  m.Family("hived_preemptions_total", "counter",
           "Jobs preempted (killed or requeued) for HiveD's cells.");
  m.Sample("hived_preemptions_total", "", static_cast<double>(s.preemptions));
  m.Family("hived_lazy_preemptions_total", "counter",
           "Guaranteed jobs demoted to opportunistic instead of preempted.");
  m.Sample("hived_lazy_preemptions_total", "", static_cast<double>(s.lazy_preemptions));
  m.Family("hived_borrowed_starts_total", "counter",
           "Guaranteed jobs started on idle GPUs outside their VC's cells (borrowIdleCells).");
  m.Sample("hived_borrowed_starts_total", "", static_cast<double>(s.borrowed_starts));
  m.Family("hived_promotions_total", "counter",
           "Demoted jobs (borrowers, lazy-preempted) bound to their VC's cells where they run "
           "and guaranteed again.");
  m.Sample("hived_promotions_total", "", static_cast<double>(s.promotions));
  m.Family("hived_job_test_calls_total", "counter", "select_p_job_test calls HiveD decided.");
  m.Sample("hived_job_test_calls_total", "", static_cast<double>(s.job_test_calls));
  m.Family("hived_job_test_seconds", "gauge",
           "Time of select_p_job_test calls HiveD decided (all calls since slurmctld "
           "started).");
  m.Sample("hived_job_test_seconds", "stat=\"mean\"", s.job_test_mean_us / 1e6);
  m.Sample("hived_job_test_seconds", "stat=\"p50\"", s.job_test_p50_us / 1e6);
  m.Sample("hived_job_test_seconds", "stat=\"p99\"", s.job_test_p99_us / 1e6);
  m.Sample("hived_job_test_seconds", "stat=\"max\"", s.job_test_max_us / 1e6);
  m.Family("hived_will_run_answers_total", "counter",
           "Answers to \"when, and where?\" (backfill's WILL_RUN, a VC's head job): by a "
           "trial on the live engine, or from its memo.");
  m.Sample("hived_will_run_answers_total", "by=\"trial\"", static_cast<double>(s.will_run_trials));
  m.Sample("hived_will_run_answers_total", "by=\"memo\"",
           static_cast<double>(s.will_run_memo_answers));
  m.Family("hived_will_run_trials_by_guarantee_total", "counter",
           "WILL_RUN trials that ended only the asking VC's own jobs: HiveD's guarantee "
           "gives the start time without the rest.");
  m.Sample("hived_will_run_trials_by_guarantee_total", "",
           static_cast<double>(s.will_run_by_guarantee));
  m.Family("hived_will_run_trial_ended_jobs_total", "counter",
           "Running jobs WILL_RUN trials ended and put back: what the trials cost.");
  m.Sample("hived_will_run_trial_ended_jobs_total", "",
           static_cast<double>(s.will_run_trial_ended_jobs));
  m.Family("hived_status_written_timestamp_seconds", "gauge",
           "When slurmctld wrote the status these numbers come from.");
  m.Sample("hived_status_written_timestamp_seconds", "", static_cast<double>(s.written));
  return m.Str();
}

}  // namespace hivedctl
