// SPDX-License-Identifier: GPL-2.0-or-later
// Check unit tests for hived-sim (tools/sim): trace loaders on tests/sim fixtures,
// metrics on hand-made outcomes, and two known-answer replays through the policies.
#include <check.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "cluster.h"
#include "hived.h"
#include "loaders.h"
#include "metrics.h"
#include "policies.h"
#include "quota.h"
#include "selection.h"
#include "study.h"
#include "../check_run.h"

using namespace hivedsim;

namespace {

std::string Fixture(const std::string& rel) {
  const char* src = getenv("HIVED_SRCDIR");
  std::string base = src && *src ? src : HIVED_SIM_SRCDIR;
  return base + "/tests/sim/" + rel;
}

const TraceJob* ById(const Trace& t, const std::string& id) {
  for (const auto& j : t.jobs)
    if (j.id == id) return &j;
  return nullptr;
}

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// --- loaders ---------------------------------------------------------------

START_TEST(itp_loads_one_vc_per_file) {
  Trace t;
  std::string err;
  ck_assert_msg(LoadItp(Fixture("itp"), &t, &err), "%s", err.c_str());
  ck_assert_int_eq(t.vcs.size(), 2);
  ck_assert_str_eq(t.vcs[0].c_str(), "cluster01");
  ck_assert_str_eq(t.vcs[1].c_str(), "cluster02");
  ck_assert_int_eq(t.jobs.size(), 5);
  // Sorted by submit time, then VC.
  ck_assert_str_eq(t.jobs[0].id.c_str(), "x2");
  ck_assert_str_eq(t.jobs[1].id.c_str(), "y1");
  ck_assert_str_eq(t.jobs[2].id.c_str(), "x1");
  ck_assert_str_eq(t.jobs[4].id.c_str(), "y2");
  const TraceJob* x2 = ById(t, "x2");
  ck_assert_int_eq(x2->gpus, 16);
  ck_assert_int_eq(x2->pods.size(), 2);
  ck_assert_int_eq(x2->pods[0], 8);
  ck_assert_int_eq(x2->pods[1], 8);
  ck_assert(x2->duration == 700 && x2->submit == 50);
}
END_TEST

START_TEST(philly_offsets_median_and_quotas) {
  Trace t;
  std::string err;
  ck_assert_msg(LoadPhilly(Fixture("philly"), &t, &err), "%s", err.c_str());
  ck_assert_int_eq(t.vcs.size(), 3);
  ck_assert_int_eq(t.jobs.size(), 4);
  // aa: offset 1000; bb: 3000; cc: none -> median of {1000, 3000} = 2000.
  const TraceJob* a1 = nullptr;
  for (const auto& j : t.jobs)
    if (t.vcs[j.vc] == "aa" && j.id == "1") a1 = &j;
  ck_assert_ptr_nonnull(a1);
  ck_assert(a1->submit == 1010);
  ck_assert_int_eq(a1->gpus, 12);
  ck_assert_int_eq(a1->pods.size(), 2);
  ck_assert_int_eq(a1->pods[0], 8);
  ck_assert_int_eq(a1->pods[1], 4);
  ck_assert(a1->duration == 200);
  for (const auto& j : t.jobs)
    if (t.vcs[j.vc] == "cc") ck_assert(j.submit == 2005);
  ck_assert(t.jobs[0].duration == 100.5);  // service is the run time, fractions kept
  ck_assert_int_eq(t.quota_gpus.at("aa"), 16);
  ck_assert_int_eq(t.quota_gpus.at("bb"), 8);
  ck_assert(!t.quota_gpus.count("cc"));
  bool median_noted = false;
  for (const auto& n : t.notes)
    median_noted |= Contains(n, "cc") && Contains(n, "median offset 2000");
  ck_assert(median_noted);
  std::vector<std::string> notes;
  auto q = TraceQuotas(t, &notes);
  ck_assert_int_eq(q[t.FindVc("cc")], 8);  // its largest job (2 GPUs) in whole nodes
  ck_assert_int_eq(notes.size(), 1);
}
END_TEST

START_TEST(sacct_skips_and_splits) {
  Trace t;
  std::string err;
  ck_assert_msg(LoadSacct(Fixture("sacct/sacct.txt"), &t, &err), "%s", err.c_str());
  ck_assert_int_eq(t.jobs.size(), 3);  // 101, 102, 105_7
  ck_assert_int_eq(t.vcs.size(), 2);
  const TraceJob* j101 = ById(t, "101");
  const TraceJob* j102 = ById(t, "102");
  const TraceJob* j105 = ById(t, "105_7");
  ck_assert(j101 && j102 && j105);
  ck_assert_int_eq(j101->gpus, 4);
  ck_assert(j101->duration == 3600);
  ck_assert_int_eq(j102->gpus, 8);
  ck_assert_int_eq(j102->pods.size(), 2);  // NNodes=2: 4 GPUs per node
  ck_assert_int_eq(j102->pods[0], 4);
  ck_assert(j102->duration == 600);
  ck_assert(j102->submit - j101->submit == 1800);
  ck_assert_str_eq(t.vcs[j102->vc].c_str(), "bio");
  ck_assert(t.jobs[0].id == "105_7");  // submitted first
  ck_assert(
      Contains(t.notes.back(), "skipped 2 steps, 1 jobs that never ran, 1 jobs without GPUs"));
}
END_TEST

START_TEST(bad_rows_name_file_line_column) {
  std::string err;
  Trace t1;
  ck_assert(!LoadItp(Fixture("bad/itp"), &t1, &err));
  ck_assert_msg(
      Contains(err, "bad/itp/cluster01.csv:3:9: column 'num_gpu': expected a whole number"), "%s",
      err.c_str());
  ck_assert(Contains(err, "got 'x'"));
  Trace t2;
  ck_assert(!LoadPhilly(Fixture("bad/philly"), &t2, &err));
  ck_assert_msg(
      Contains(err, "bad/philly/trace_aa.csv:3:3: column 'submit_time': expected a number >= 0"),
      "%s", err.c_str());
  Trace t3;
  ck_assert(!LoadSacct(Fixture("bad/sacct.txt"), &t3, &err));
  ck_assert_msg(Contains(err, "bad/sacct.txt:3:31: column 'Start'"), "%s", err.c_str());
  Trace t4;
  ck_assert(!LoadTrace("csv:/nowhere", &t4, &err));
  ck_assert(Contains(err, "itp:DIR, philly:DIR or sacct:FILE"));
  Trace t5;
  ck_assert(!LoadItp(Fixture("no-such-dir"), &t5, &err));
  ck_assert(Contains(err, "no-such-dir"));
}
END_TEST

START_TEST(pods_quota_and_selection) {
  ck_assert_int_eq(PodsFor(6).size(), 1);
  ck_assert_int_eq(PodsFor(20).size(), 3);
  ck_assert_int_eq(PodsFor(20)[2], 4);
  ck_assert_int_eq(PodsFor(8, 2)[0], 4);
  ck_assert_int_eq(PodsFor(6, 4).size(), 1);  // does not split evenly: one pod
  Trace t;
  std::string err;
  ck_assert(LoadItp(Fixture("itp"), &t, &err));
  std::vector<int> q;
  ck_assert(!ParseQuotaSpec("cluster01=16", t, &q, &err));
  ck_assert(Contains(err, "cluster02"));
  ck_assert(!ParseQuotaSpec("cluster01=16,nope=8", t, &q, &err));
  ck_assert(ParseQuotaSpec("cluster01=16,cluster02=12", t, &q, &err));
  ck_assert_int_eq(q[1], 12);
  // Demand: cluster01 = 600 + 11200 + 3200 GPU-s, cluster02 = 7200 + 2000; floors 2 and 1 nodes.
  ck_assert(ProportionalQuotas(t, 10, &q, &err));
  ck_assert_int_eq(q[0] + q[1], 80);
  ck_assert_int_eq(q[0], 48);
  ck_assert_int_eq(q[1], 32);
  ck_assert(!ProportionalQuotas(t, 2, &q, &err));
  double s;
  ck_assert(ParseSeconds("36h", &s) && s == 129600);
  ck_assert(!ParseSeconds("3 days", &s));
  Selection sel;
  sel.start = 5;  // from the first submit (50): jobs submitted at 55 s or later
  sel.max_jobs = 2;
  std::vector<int> jobs;
  ck_assert(SelectJobs(&t, sel, &jobs, &err));
  ck_assert_int_eq(jobs.size(), 2);
  ck_assert_str_eq(t.jobs[jobs[0]].id.c_str(), "y1");
  Trace c = t;
  Selection comp;
  comp.compress = 2;
  ck_assert(SelectJobs(&c, comp, &jobs, &err));
  ck_assert(ById(c, "x1")->submit == 75);  // 50 + (100 - 50) / 2
}
END_TEST

START_TEST(conf_is_accepted_by_engine) {
  ClusterShape shape{4, 2};
  std::vector<VcCells> cells{CellsForGpus(13), CellsForGpus(8), VcCells()};
  cells[1].racks = 0;
  ck_assert_int_eq(cells[0].nodes, 1);
  ck_assert_int_eq(cells[0].sockets, 1);
  ck_assert_int_eq(cells[0].gpus, 1);
  std::string described = cells[0].Describe(2);
  ck_assert_str_eq(described.c_str(), "1 node + 1 socket + 1 GPU");
  std::string conf = MakeHivedConf(shape, {"a", "b", "c"}, cells);
  hived_engine* e = nullptr;
  char buf[512];
  ck_assert_msg(hived_engine_new(conf.c_str(), &e, buf, sizeof buf) == HIVED_OK, "%s", buf);
  ck_assert_int_eq(hived_node_count(e), 4);
  hived_engine_free(e);
  // Two racks of two nodes: three rack cells cannot fit, and the engine says why.
  Trace t;
  t.vcs = {"a", "b"};
  Setup s;
  s.shape = shape;
  s.cells.assign(2, VcCells());
  s.cells[0].racks = 2;
  s.cells[1].racks = 1;
  std::string err;
  ck_assert(!ValidateSetup(t, s, &err));
  ck_assert(Contains(err, "add up to 48 GPUs but the cluster has 32"));
  s.cells[1] = CellsForGpus(0);
  ck_assert_msg(ValidateSetup(t, s, &err), "%s", err.c_str());
  ck_assert_int_eq(PrivateShape(CellsForGpus(12), 2).nodes, 2);
}
END_TEST

// --- metrics ---------------------------------------------------------------

START_TEST(distribution_nearest_rank) {
  std::vector<double> v;
  for (int i = 20; i >= 1; i--) v.push_back(i);
  Dist d = Distribution(v);
  ck_assert_int_eq(d.n, 20);
  ck_assert(d.mean == 10.5);
  ck_assert(d.p50 == 10);
  ck_assert(d.p95 == 19);
  ck_assert(d.p99 == 20);
  ck_assert(d.max == 20);
  Dist one = Distribution({7});
  ck_assert(one.p50 == 7 && one.p99 == 7);
  ck_assert_int_eq(Distribution({}).n, 0);
}
END_TEST

START_TEST(affinity_rules) {
  ck_assert(BestAffinity({{0, 0x03}}, 8));
  ck_assert(!BestAffinity({{0, 0x06}}, 8));
  ck_assert(BestAffinity({{0, 0xf0}}, 8));
  ck_assert(!BestAffinity({{0, 0x3c}}, 8));
  ck_assert(!BestAffinity({{0, 0x07 | 0x10}}, 8));  // 4 GPUs over both sockets
  ck_assert(BestAffinity({{0, 0x7f}}, 8));          // 7 GPUs: one node is best
  ck_assert(BestAffinity({{0, 0xff}, {7, 0xff}}, 8));
  ck_assert(!BestAffinity({{7, 0xff}, {8, 0xff}}, 8));
  ck_assert(BestAffinity({{7, 0xff}, {8, 0xff}}, 0));             // no racks: any nodes
  ck_assert(BestAffinity({{0, 0xff}, {1, 0xff}, {2, 0xff}}, 2));  // 3 nodes need 2 racks
}
END_TEST

START_TEST(summary_and_anomaly) {
  Trace t;
  t.vcs = {"a", "b"};
  // (vc, submit, duration, gpus)
  double spec[][4] = {{0, 0, 100, 1}, {0, 10, 100, 2}, {1, 20, 50, 8}, {1, 100, 10, 1}};
  for (auto& s : spec) {
    TraceJob j;
    j.vc = static_cast<int>(s[0]);
    j.submit = s[1];
    j.duration = s[2];
    j.gpus = static_cast<int>(s[3]);
    j.pods = PodsFor(j.gpus);
    t.jobs.push_back(j);
  }
  auto outcome = [](double start, double finish, bool best) {
    JobOutcome o;
    o.in_run = o.finished = true;
    o.first_start = start;
    o.finish = finish;
    o.starts = 1;
    o.best_affinity = best;
    return o;
  };
  SimResult priv, run;
  priv.policy = "private";
  run.policy = "quota";
  priv.jobs = {outcome(0, 100, true), outcome(10, 110, true), outcome(20, 70, true),
               outcome(100, 110, true)};
  run.jobs = {outcome(0, 100, true), outcome(40, 140, false), outcome(80, 130, true),
              outcome(100, 110, true)};
  run.jobs[1].preemptions = 1;
  run.jobs[1].lost_gpu_seconds = 3600;
  run.cluster_gpus = 16;
  run.vc_gpus = {8, 8};
  run.runs = {{0, 100, 1, 0, false},
              {40, 140, 2, 0, false},
              {80, 130, 8, 1, true},
              {100, 110, 1, 1, false}};
  Metrics m = Summarize(t, run, &priv, 1);
  ck_assert_int_eq(m.vcs.size(), 2);
  // Job 1 waits 30 s more, job 2 waits 60 s more than in private.
  ck_assert_int_eq(m.vcs[0].anomaly_jobs, 1);
  ck_assert(std::fabs(m.vcs[0].anomaly_minutes - 0.5) < 1e-9);
  ck_assert_int_eq(m.vcs[1].anomaly_jobs, 1);
  ck_assert(std::fabs(m.overall.anomaly_minutes - 1.5) < 1e-9);
  ck_assert(m.vcs[0].delay.mean == 15);
  ck_assert(m.vcs[1].delay.max == 60);
  ck_assert(m.overall.jct.max == 130);
  ck_assert_int_eq(m.overall.multi_gpu, 2);
  ck_assert_int_eq(m.overall.multi_best, 1);
  ck_assert_int_eq(m.vcs[0].preemptions, 1);
  ck_assert(m.overall.lost_gpu_hours == 1);
  // Window [0, 100]: VC a used 100 + 60*2 GPU-s of 8*100; VC b 20*8 of 800 (opportunistic).
  ck_assert(std::fabs(m.vcs[0].utilisation - 220.0 / 800) < 1e-9);
  ck_assert(std::fabs(m.vcs[1].utilisation - 160.0 / 800) < 1e-9);
  ck_assert(m.vcs[1].opportunistic_share == 1);
  ck_assert(std::fabs(m.overall.utilisation - 380.0 / 1600) < 1e-9);
  ck_assert(m.makespan == 140);
  auto u = UtilisationSeries(run, 0, 100, 2);
  ck_assert(std::fabs(u[0] - (50 + 20) / 800.0) < 1e-9);         // [0,50): job 0, job 1 from 40
  ck_assert(std::fabs(u[1] - (50 + 100 + 160) / 800.0) < 1e-9);  // [50,100]: jobs 0, 1, 2
  Metrics none = Summarize(t, run, nullptr, 1);
  ck_assert_int_eq(none.overall.anomaly_jobs, 0);
}
END_TEST

// --- known answers ---------------------------------------------------------

Study Known(const std::string& dir, std::vector<std::string> policies) {
  StudyConfig c;
  c.traces = {"itp:" + Fixture(dir)};
  c.nodes = 2;
  c.rack_nodes = 0;
  c.quota_spec = "A=8,B=8";
  c.policies = std::move(policies);
  Study s;
  std::string err;
  ck_assert_msg(PrepareStudy(c, &s, &err), "%s", err.c_str());
  ck_assert_msg(RunStudy(c, &s, &err), "%s", err.c_str());
  return s;
}

const Metrics& Of(const Study& s, const std::string& p) {
  for (const auto& m : s.metrics)
    if (m.policy == p) return m;
  ck_abort_msg("no policy %s", p.c_str());
  return s.metrics[0];
}

double DelayOf(const Study& s, const std::string& policy, const std::string& id) {
  for (const auto& r : s.results)
    if (r.policy == policy)
      for (size_t i = 0; i < s.trace.jobs.size(); i++)
        if (s.trace.jobs[i].id == id) return JobDelay(s.trace.jobs[i], r.jobs[i]);
  ck_abort_msg("no job %s", id.c_str());
  return -1;
}

// A's 1-GPU jobs take GPUs 0-3 of both nodes (first fit, with B's short jobs in
// between); B's 8-GPU job, submitted at 20 s, finds no free node until A's first four
// end at 100 s: 80 s of anomaly. HiveD keeps A in one node cell: B starts at once.
START_TEST(known_answer_quota_anomaly_hived_none) {
  Study s = Known("anomaly", {"quota", "hived", "hived-noopp"});
  const Metrics& q = Of(s, "quota");
  ck_assert_int_eq(q.overall.anomaly_jobs, 1);
  ck_assert(std::fabs(q.overall.anomaly_minutes - 80.0 / 60) < 1e-9);
  ck_assert_int_eq(q.vcs[1].anomaly_jobs, 1);
  ck_assert_str_eq(q.vcs[1].vc.c_str(), "B");
  ck_assert(DelayOf(s, "quota", "b5") == 80);
  ck_assert(DelayOf(s, "private-quota", "b5") == 0);
  ck_assert(DelayOf(s, "private", "b5") == 0);
  for (const char* p : {"hived", "hived-noopp"}) {
    const Metrics& h = Of(s, p);
    ck_assert_int_eq(h.overall.anomaly_jobs, 0);
    ck_assert(h.overall.anomaly_minutes == 0);
    ck_assert(h.overall.delay.max == 0);
    ck_assert_int_eq(h.overall.preemptions, 0);
  }
  ck_assert_int_eq(Of(s, "hived").overall.jobs, 13);
}
END_TEST

// A's second 8-GPU job runs opportunistically on B's idle node, is killed when B's
// job arrives at 30 s (240 GPU-s lost), restarts at 80 s and ends at 180 s: 80 s of
// delay, less than the 100 s it waits on A's private node, so no anomaly.
START_TEST(known_answer_preemption) {
  Study s = Known("preempt", {"quota", "hived", "hived-noopp"});
  const Metrics& h = Of(s, "hived");
  ck_assert_int_eq(h.overall.preemptions, 1);
  ck_assert_int_eq(h.vcs[0].preemptions, 1);
  ck_assert(std::fabs(h.overall.lost_gpu_hours - 240.0 / 3600) < 1e-12);
  ck_assert(DelayOf(s, "hived", "a2") == 80);
  ck_assert(DelayOf(s, "hived", "b1") == 0);
  ck_assert(DelayOf(s, "private", "a2") == 100);
  ck_assert(DelayOf(s, "hived-noopp", "a2") == 100);
  ck_assert(DelayOf(s, "quota", "a2") == 100);
  ck_assert_int_eq(h.overall.anomaly_jobs, 0);
  ck_assert_int_eq(Of(s, "quota").overall.anomaly_jobs, 0);
  // Window [0, 30]: both nodes busy the whole time, half of it opportunistic.
  ck_assert(std::fabs(h.overall.utilisation - 1.0) < 1e-12);
  ck_assert(std::fabs(h.overall.opportunistic_share - 0.5) < 1e-12);
}
END_TEST

// Naming the baselines alone runs both, once each: a study of the private clusters.
START_TEST(baselines_alone_run_once) {
  Study s = Known("anomaly", {"private-quota", "private", "private-quota"});
  ck_assert_int_eq(s.results.size(), 2);
  ck_assert_str_eq(s.results[0].policy.c_str(), "private");
  ck_assert_str_eq(s.results[1].policy.c_str(), "private-quota");
  ck_assert(DelayOf(s, "private-quota", "b5") == 0);
  ck_assert_int_eq(Of(s, "private-quota").overall.jobs, 13);
}
END_TEST

}  // namespace

int main() {
  Suite* s = suite_create("hived-sim");
  TCase* loaders = tcase_create("loaders");
  tcase_add_test(loaders, itp_loads_one_vc_per_file);
  tcase_add_test(loaders, philly_offsets_median_and_quotas);
  tcase_add_test(loaders, sacct_skips_and_splits);
  tcase_add_test(loaders, bad_rows_name_file_line_column);
  tcase_add_test(loaders, pods_quota_and_selection);
  tcase_add_test(loaders, conf_is_accepted_by_engine);
  suite_add_tcase(s, loaders);
  TCase* metrics = tcase_create("metrics");
  tcase_add_test(metrics, distribution_nearest_rank);
  tcase_add_test(metrics, affinity_rules);
  tcase_add_test(metrics, summary_and_anomaly);
  suite_add_tcase(s, metrics);
  TCase* known = tcase_create("known-answer");
  tcase_add_test(known, known_answer_quota_anomaly_hived_none);
  tcase_add_test(known, known_answer_preemption);
  tcase_add_test(known, baselines_alone_run_once);
  suite_add_tcase(s, known);
  return check_run(s, CK_NORMAL, CK_FORK_GETENV);
}
