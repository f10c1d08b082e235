// SPDX-License-Identifier: GPL-2.0-or-later
#include "results_page.h"

#include "openb_study.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <thread>

#include "planner.h"
#include "plots.h"
#include "report.h"
#include "study.h"

namespace hivedsim {

namespace {

std::string Fmt(const char* f, double v) {
  char b[64];
  snprintf(b, sizeof b, f, v);
  return b;
}

const Metrics* Find(const Study& s, const std::string& policy) {
  for (const auto& m : s.metrics)
    if (m.policy == policy) return &m;
  return nullptr;
}

const VcMetrics& Row(const Metrics& m, size_t i) { return i < m.vcs.size() ? m.vcs[i] : m.overall; }

std::string Anomaly(const VcMetrics& v) {
  if (v.anomaly_jobs == 0) return "0";
  return std::to_string(v.anomaly_jobs) + " / " + Fmt("%.0f", v.anomaly_minutes / 60) + " h";
}

std::string Pct(size_t a, size_t b) { return b ? Fmt("%.0f%%", 100.0 * a / b) : "–"; }

// The two tables of one study.
std::string Tables(const Study& s) {
  const Metrics* pv = Find(s, "private");
  const Metrics* pq = Find(s, "private-quota");
  const Metrics* q = Find(s, "quota");
  const Metrics* h = Find(s, "hived");
  const Metrics* hn = Find(s, "hived-noopp");
  std::string o;
  o += "Queuing delay in hours, mean / p95 (p50 and p99 are in the JSON); *load* is the GPU-time a "
       "VC's jobs ask "
       "for over its GPUs times the time from the first to the last submit:\n\n";
  // Offered load: GPU-time the VC's jobs ask for / (its GPUs x the submit window).
  std::vector<double> asked(s.trace.vcs.size(), 0);
  double total_asked = 0;
  for (int j : s.jobs) {
    const TraceJob& tj = s.trace.jobs[j];
    asked[tj.vc] += tj.gpus * tj.duration;
    total_asked += tj.gpus * tj.duration;
  }
  const double window = pv->window_end - pv->window_start;
  auto load = [&](double gpu_s, double gpus) {
    return gpus > 0 && window > 0 ? Fmt("%.0f%%", 100 * gpu_s / (gpus * window)) : "–";
  };
  o += "| VC | GPUs | cells (hived) | jobs | load | private (hived sched.) | private (quota "
       "sched.) | **quota** | **hived** | hived, no opp. |\n";
  o += "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n";
  auto md = [](const VcMetrics& v) {
    return Fmt("%.2f", v.delay.mean / 3600) + " / " + Fmt("%.1f", v.delay.p95 / 3600);
  };
  for (size_t i = 0; i <= pv->vcs.size(); i++) {
    const VcMetrics& base = Row(*pv, i);
    bool all = i == pv->vcs.size();
    std::string cells =
        all ? "" : s.setup.cells[s.trace.FindVc(base.vc)].Describe(s.setup.shape.rack_nodes);
    o += "| " + std::string(all ? "**all**" : base.vc) + " | " +
         std::to_string(all ? s.setup.shape.Gpus() : base.quota_gpus) + " | " + cells + " | " +
         std::to_string(base.jobs) + " | " +
         (all ? load(total_asked, s.setup.shape.Gpus())
              : load(asked[s.trace.FindVc(base.vc)], base.quota_gpus)) +
         " | " + md(base) + " | " + md(Row(*pq, i)) + " | " + md(Row(*q, i)) + " | " +
         md(Row(*h, i)) + " | " + md(Row(*hn, i)) + " |\n";
  }
  o += "\nSharing anomaly (jobs that waited longer than on their VC's private cluster under the "
       "same scheduler, "
       "and their total extra wait), multi-GPU jobs at best affinity, and what opportunistic use "
       "cost:\n\n";
  o += "| VC | anomaly **quota** | anomaly **hived** | anomaly hived, no opp. | best affinity "
       "quota | best affinity hived | "
       "hived preemptions | lost GPU-h | GPU-time opportunistic |\n";
  o += "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (size_t i = 0; i <= pv->vcs.size(); i++) {
    bool all = i == pv->vcs.size();
    const VcMetrics &vq = Row(*q, i), &vh = Row(*h, i), &vn = Row(*hn, i);
    o += "| " + std::string(all ? "**all**" : vq.vc) + " | " + Anomaly(vq) + " | " + Anomaly(vh) +
         " | " + Anomaly(vn) + " | " + Pct(vq.multi_best, vq.multi_gpu) + " | " +
         Pct(vh.multi_best, vh.multi_gpu) + " | " + std::to_string(vh.preemptions) + " | " +
         Fmt("%.0f", vh.lost_gpu_hours) + " | " + Fmt("%.0f%%", 100 * vh.opportunistic_share) +
         " |\n";
  }
  o += "\nGPU utilisation between the first and the last submit: ";
  for (const auto& m : s.metrics)
    o += m.policy + " " + Fmt("%.1f%%", 100 * m.overall.utilisation) + ", ";
  o.resize(o.size() - 2);
  o += " (private setups count only the GPUs the VCs own).\n";
  return o;
}

std::string Command(const StudyConfig& c, const std::string& trace_flag, const std::string& extra) {
  std::string o = "hived-sim run --trace " + trace_flag;
  if (c.nodes) o += " --nodes " + std::to_string(c.nodes);
  o += " --rack-nodes " + std::to_string(c.rack_nodes);
  if (c.proportional) o += " --proportional";
  if (c.sel.compress != 1) o += " --compress " + Fmt("%g", c.sel.compress);
  if (c.sel.max_jobs) o += " --max-jobs " + std::to_string(c.sel.max_jobs);
  o += " --policy quota,hived,hived-noopp" + extra;
  return o;
}

bool RunOne(const StudyConfig& c, const std::string& plots, const std::string& prefix, Study* s,
            std::string* err) {
  if (!PrepareStudy(c, s, err) || !RunStudy(c, s, err)) return false;
  for (const auto& r : s->results)
    if (r.stuck) {
      *err = r.policy + ": " + std::to_string(r.stuck) + " jobs never ran";
      return false;
    }
  return WritePlots(*s, plots, prefix, err) &&
         WriteFile(plots + "/" + prefix + "results.json", JsonReport(*s), err) &&
         WriteFile(plots + "/" + prefix + "results.csv", CsvReport(*s), err);
}

std::string Notes(const Study& s) {
  std::string o;
  for (const auto& n : s.notes) o += "- " + n + "\n";
  return o;
}

}  // namespace

int RunResultsPage(const Cli& c) {
  auto fail = [](const std::string& m) {
    fprintf(stderr, "hived-sim results: %s\n", m.c_str());
    return 1;
  };
  if (c.itp_dir.empty() || c.philly_dir.empty() || c.out.empty() || c.plots.empty())
    return fail("needs --itp DIR --philly DIR --out FILE.md --plots DIR");
  std::error_code ec;
  std::filesystem::create_directories(c.plots, ec);
  std::string err;
  const std::string rel = std::filesystem::path(c.plots).filename().string();
  const size_t quick = c.quick ? 4000 : 0;

  StudyConfig itp;
  itp.traces = {"itp:" + c.itp_dir};
  itp.nodes = 192;
  itp.rack_nodes = 8;
  itp.proportional = true;
  itp.sel.max_jobs = quick;
  itp.policies = {"quota", "hived", "hived-noopp"};
  Study si;
  fprintf(stderr, "hived-sim results: ITP ...\n");
  if (!RunOne(itp, c.plots, "itp-", &si, &err)) return fail("ITP: " + err);

  StudyConfig ph;
  ph.traces = {"philly:" + c.philly_dir};
  ph.rack_nodes = 8;
  ph.sel.compress = 0.5;
  ph.sel.max_jobs = quick;
  ph.policies = itp.policies;
  Study sp;
  fprintf(stderr, "hived-sim results: Philly ...\n");
  if (!RunOne(ph, c.plots, "philly-", &sp, &err)) return fail("Philly: " + err);

  // Speed: the whole ITP trace on a 10,000-GPU cluster.
  StudyConfig sc = itp;
  sc.nodes = 1250;
  sc.rack_nodes = 10;
  Study ss;
  fprintf(stderr, "hived-sim results: speed ...\n");
  if (!PrepareStudy(sc, &ss, &err) || !RunStudy(sc, &ss, &err)) return fail("speed: " + err);

  std::string md =
      "<!-- SPDX-License-Identifier: GPL-2.0-or-later -->\n"
      "<!-- Generated by `make sim-results` (hived-sim results); do not edit by hand. -->\n"
      "# hived-sim results: the sharing anomaly on real GPU traces\n\n"
      "Public traces of multi-tenant GPU clusters (../shared/traces, see its README) replayed by\n"
      "[hived-sim](sim.md) through the HiveD engine of this repository and through a Slurm-like\n"
      "quota baseline on the same cluster. A job meets the *sharing anomaly* when it waits longer "
      "in\n"
      "the shared cluster than it would on a private cluster made of its VC's quota, run by the "
      "same\n"
      "scheduler. Queuing delay = completion − submit − run time, so a preempted job's lost work "
      "and\n"
      "second wait count.\n\n"
      "Policies (details in [sim.md](sim.md)):\n\n"
      "- **quota** — what a Slurm site does today: per-VC GPU caps (GrpTRES), one queue in submit\n"
      "  order with EASY backfill, first-fit GPUs over nodes (cons_tres); its baseline is\n"
      "  *private (quota sched.)*: each VC alone on ceil(quota/8) nodes under the same scheduler.\n"
      "- **hived** — the engine: each VC's quota as cells (whole nodes, plus a socket/pair/GPU for "
      "a\n"
      "  remainder), a queue per VC with backfill inside the VC, and opportunistic use of idle\n"
      "  cells (preempted, killed and requeued when the owner needs them); its baseline is\n"
      "  *private (hived sched.)*: each VC alone on a cluster of exactly its cells, same engine.\n"
      "- **hived, no opp.** — the same without opportunistic use.\n\n";
  auto section = [&](const std::string& title, const Study& s, const StudyConfig& cfg,
                     const std::string& flag, const std::string& prefix, const std::string& about) {
    std::string o = "## " + title + "\n\n" + about + "\n\n";
    o += "Cluster: " + std::to_string(s.setup.shape.nodes) +
         " nodes × 8 GPUs = " + std::to_string(s.setup.shape.Gpus()) + " GPUs in racks of " +
         std::to_string(s.setup.shape.rack_nodes) + " nodes; " + std::to_string(s.jobs.size()) +
         " jobs. Loader and setup notes:\n\n" + Notes(s) + "\n";
    o += Tables(s) + "\n";
    o += "![queuing delay CDF per VC](" + rel + "/" + prefix + "delay-cdf.svg)\n\n";
    o += "![sharing anomaly per VC](" + rel + "/" + prefix + "anomaly.svg)\n\n";
    o += "![utilisation over time](" + rel + "/" + prefix + "utilisation.svg)\n\n";
    o += "All figures: [" + prefix + "results.json](" + rel + "/" + prefix + "results.json), [" +
         prefix + "results.csv](" + rel + "/" + prefix + "results.csv). Reproduce:\n\n```\n" +
         Command(cfg, flag, "") + " \\\n    --json out.json --csv out.csv --plots out/\n```\n\n";
    return o;
  };
  md += section("ITP (Microsoft, 2021)", si, itp, "itp:../shared/traces/itp", "itp-",
                "Each of the ten cluster files is one VC. The trace asks for about 1,130 GPUs on "
                "average, so the "
                "cluster has 1,536 GPUs (about 74% load) and each VC a quota of whole nodes in "
                "proportion to its "
                "GPU-time, but at least its largest job (64 GPUs for cluster01).");
  md += section(
      "Philly (Microsoft, 2017), by VC", sp, ph, "philly:../shared/traces/philly-vc", "philly-",
      "Each file is one VC; quotas are the VCs' node counts from vc_nodes.csv. The `service` "
      "column is "
      "used as each job's run time; it is scaled up for multi-GPU jobs by the trace's publishers, "
      "so at "
      "the recorded arrival rate the VCs ask for about 1.7 times the GPUs they own and every queue "
      "grows "
      "for months. Arrivals are therefore spread out twice as far (`--compress 0.5`); even so some "
      "VCs "
      "ask for more than their quota and others for a fraction of it (the *load* column), which is "
      "where sharing matters most. Philly's racks are not published; racks of 8 nodes are "
      "assumed.");
  if (!c.openb_dir.empty()) {
    fprintf(stderr, "hived-sim results: openb ...\n");
    std::string sec;
    if (!OpenbSection(
            c.openb_dir + "/openb_node_list_gpu_node.csv",
            c.openb_dir + "/openb_pod_list_default.csv", OpenbOptions(), kOpenbOffered, c.plots, "",
            "hived-sim openb --dir ../shared/traces/openb --plots doc/results", &sec, &err))
      return fail(err);
    md += sec + "\n";
  }
  // The planner on the ITP setup, with and without opportunistic use.
  fprintf(stderr, "hived-sim results: planner ...\n");
  Selection plan_sel;
  if (c.quick) {
    plan_sel.max_jobs = 2000;
  } else {
    plan_sel.start = 26 * 86400.0;  // every ITP VC is active from day 26 on
    plan_sel.duration = 14 * 86400.0;
  }
  md +=
      "## Planner\n\n`hived-sim plan` on the ITP setup above, with `--rebalance` (it may also move "
      "whole "
      "nodes between VCs), judging each candidate on the two weeks from day 26 (every VC is active "
      "then) "
      "and checking the proposal on the whole trace. It prints the proposal as hived.conf and this "
      "summary on standard error.\n\n";
  for (const char* policy : {"hived", "hived-noopp"}) {
    PlanOutcome plan;
    StudyConfig pc = itp;
    pc.policies = {policy};
    if (!Plan(pc, plan_sel, 6, true, &plan, &err)) return fail("planner: " + err);
    md += std::string(policy == std::string("hived")
                          ? "With opportunistic use (the default):"
                          : "Without opportunistic use (`--policy hived-noopp`):") +
          "\n\n```\n" + plan.summary + "```\n\n";
  }
  md +=
      "With opportunistic use, idle cells already absorb most of the imbalance between VCs; what a "
      "short window shows for a change of cells is then mostly where the engine happened to bind "
      "cells, and the check on the whole trace says whether it holds. Without opportunistic use "
      "each "
      "VC lives on its own cells, and moving nodes to the VCs that wait most pays off on the whole "
      "trace too.\n\n```\nhived-sim plan --trace itp:../shared/traces/itp --nodes 192 --rack-nodes "
      "8 "
      "--proportional --rebalance --plan-start 26d --plan-duration 14d [--policy hived-noopp] > "
      "hived.conf\n"
      "```\n\n";
  md += "## Speed\n\nThe whole ITP trace (" + std::to_string(ss.jobs.size()) +
        " jobs, 60 days) on a 10,000-GPU cluster (1,250 nodes, racks of 10), on this machine (" +
        std::to_string(std::thread::hardware_concurrency()) +
        " cores, one used):\n\n| policy | wall seconds |\n|---|---:|\n";
  for (const auto& r : ss.results)
    md += "| " + r.policy + " | " + Fmt("%.2f", r.wall_seconds) + " |\n";
  md += "\n```\n" + Command(sc, "itp:../shared/traces/itp", "") + "\n```\n\n";
  md +=
      "## Regenerate\n\n```\nmake sim-results                      # traces in ../shared/traces\n"
      "make sim-results TRACES=/path/to/traces\n```\n\n"
      "It rewrites this page and doc/results/ (SVG plots, JSON and CSV per trace) in about a "
      "minute "
      "on one core: every trace is replayed whole, and the planner runs twice. `hived-sim results "
      "--quick` replays only the first 4000 jobs of each trace.\n";
  if (c.quick) md += "\n**Quick mode: only the first 4000 jobs of each trace were replayed.**\n";
  if (!WriteFile(c.out, md, &err)) return fail(err);
  fprintf(stderr, "hived-sim results: wrote %s and %s/\n", c.out.c_str(), c.plots.c_str());
  return 0;
}

}  // namespace hivedsim
