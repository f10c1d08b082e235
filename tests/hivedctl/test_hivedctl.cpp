// SPDX-License-Identifier: GPL-2.0-or-later
// hivedctl's views on a fixture: tests/hivedctl/status.json was written by a live
// select/hived (4 nodes x 8 GPUs in 2 racks; node1 and node2 drained; vc1 has a
// lazy-preempted job 9 on node1 and guaranteed jobs 15 and 16; vc2 runs job 11
// opportunistically and has 1 doomed node cell; vc3 runs job 10 on 2 GPUs of a
// socket; jobs 14, 12 and 13 wait).
#include <fcntl.h>
#include <jansson.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

// After the C++ headers: check.h defines a fail() macro.
#include <check.h>

#include "hivedctl_model.h"
#include "hivedctl_output.h"
#include "hivedctl_views.h"
#include "../check_run.h"

using namespace hivedctl;

namespace {

Status fixture;

std::string ReadFixture(const char* name) {
  std::ifstream in(std::string(HIVEDCTL_FIXTURES) + "/" + name);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs of blanks collapsed, so table rows compare without their padding.
std::string Squeeze(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == ' ' && !o.empty() && o.back() == ' ') continue;
    o += c;
  }
  return o;
}

bool Has(const std::string& text, const std::string& want) {
  return text.find(want) != std::string::npos;
}

#define ck_has(text, want)                                                            \
  ck_assert_msg(Has(text, want), "missing \"%s\" in:\n%s", std::string(want).c_str(), \
                std::string(text).c_str())

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) n++;
  return n;
}

void Setup() {
  std::string err;
  ck_assert_msg(Parse(ReadFixture("status.json"), &fixture, &err), "fixture: %s", err.c_str());
}

}  // namespace

START_TEST(test_parse) {
  ck_assert_int_eq(fixture.version, 1);
  ck_assert_int_eq(fixture.nodes.size(), 4);
  ck_assert_int_eq(fixture.jobs.size(), 5);
  ck_assert_int_eq(fixture.pending.size(), 3);
  ck_assert_int_eq(fixture.vcs.size(), 3);
  ck_assert_int_eq(fixture.chains.size(), 1);
  const Chain& ch = fixture.chains[0];
  ck_assert_int_eq(ch.levels.size(), 5);
  ck_assert_int_eq(ch.LeavesPerCell(4), 8);
  ck_assert_int_eq(ch.LeavesPerCell(3), 4);
  ck_assert_int_eq(ch.LeavesPerCell(1), 1);
  ck_assert(fixture.NodeCellType("A100-RACK") == "A100-NODE");
  ck_assert_ptr_nonnull(fixture.FindVc("VC2"));
  ck_assert_int_eq(fixture.WaitingGuaranteed("vc3"), 2);
  ck_assert_int_eq(fixture.lazy_preemptions, 2);
  const Job* j = fixture.FindJob("9");
  ck_assert_ptr_nonnull(j);
  ck_assert(j->lazy_preempted);
  ck_assert_int_eq(j->Gpus(), 8);
}
END_TEST

START_TEST(test_parse_errors) {
  Status s;
  std::string err;
  ck_assert(!Parse("{", &s, &err));
  ck_has(err, "not JSON");
  ck_assert(!Parse("[]", &s, &err));
  ck_has(err, "not a JSON object");
  ck_assert(!Parse("{\"version\":2}", &s, &err));
  ck_has(err, "version: 2");
  ck_assert(!Parse("{\"version\":1}", &s, &err));
  ck_has(err, "status.cluster: missing");
  ck_assert(!Parse("{\"version\":1,\"cluster\":null}", &s, &err));
  ck_has(err, "no valid hived.conf");
  std::string text = ReadFixture("status.json");
  text.replace(text.find("\"gpu\":3"), 7, "\"gpu\":\"x\"");
  ck_assert(!Parse(text, &s, &err));
  ck_has(err, "topology.nodes[0].gpus[3].gpu: not a number");
}
END_TEST

START_TEST(test_counts) {
  GpuCount g = CountGpus(fixture);
  ck_assert_int_eq(g.total, 32);
  ck_assert_int_eq(g.guaranteed, 18);
  ck_assert_int_eq(g.opportunistic, 12);
  ck_assert_int_eq(g.idle, 2);
  ck_assert_int_eq(g.bad, 16);
  Counts c = CountCells(fixture);
  const auto& rack = c["A100-RACK"];
  ck_assert_int_eq(rack.at(5).cells, 2);
  ck_assert_int_eq(rack.at(4).cells, 4);
  ck_assert_int_eq(rack.at(4).in_use, 4);
  ck_assert_int_eq(rack.at(4).doomed, 1);
  ck_assert_int_eq(rack.at(3).cells, 8);
  ck_assert_int_eq(rack.at(3).idle, 0);
  ck_assert_int_eq(rack.at(2).cells, 16);
  ck_assert_int_eq(rack.at(2).idle, 1);  // node3 GPUs 2-3
  ck_assert_int_eq(rack.at(1).idle, 2);
  ck_assert_int_eq(rack.at(1).bad, 16);
}
END_TEST

START_TEST(test_status_text) {
  std::string t = StatusText(fixture, fixture.written + 7);
  ck_has(t, "HiveD status as of 2026-11-21 ");
  ck_has(t, "\nSlurm: 22.05.8\n");
  ck_has(t, "\nOpportunistic QOS: scavenger low (other QOS run guaranteed in the account's VC)\n");
  ck_has(t, "UTC (7 s ago)");
  ck_has(t, "GPUs: 32 total, 18 guaranteed, 12 opportunistic, 2 idle; 16 on bad nodes");
  ck_has(t, "Jobs: 5 running, 3 waiting for cells");
  ck_has(t, "Bad nodes: node1 node2");
  std::string sq = Squeeze(t);
  ck_has(sq, "CHAIN LEVEL CELL TYPE CELLS IDLE IN USE BAD DOOMED");
  ck_has(sq, "A100-RACK 4 A100-NODE 4 0 4 2 1\n");
  ck_has(sq, "A100-RACK 2 A100-PAIR 16 1 15 8 0\n");
  ck_has(sq, "vc2 1 A100-NODE 8 0 1 0 4 1 0\n");
  ck_has(sq, "vc3 2 A100-SOCKET 8 1 0 2 0 1 2\n");
  ck_has(t, "job_test: 81 calls, mean 197 us, p50 131 us, p99 7296 us, max 7296 us");
  // Numbers right-aligned: "32" ends where the CELLS header ends.
  std::istringstream lines(t);
  std::string line;
  size_t head_end = 0, row_end = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("CHAIN", 0) == 0) head_end = line.find("CELLS") + 5;
    if (line.rfind("A100-RACK", 0) == 0 && line.find(" a100 ") != std::string::npos)
      row_end = line.find("32") + 2;
  }
  ck_assert_int_gt(head_end, 5);
  ck_assert_int_eq(row_end, head_end);
}
END_TEST

START_TEST(test_vc_text) {
  std::string out, err;
  ck_assert(VcText(fixture, "", &out, &err));
  ck_has(Squeeze(out), "vc1 2 A100-NODE 16 2 0 16 8 3 1\n");
  ck_assert(VcText(fixture, "vc3", &out, &err));
  ck_has(out, "Quota: 2 A100-SOCKET (8 GPUs); 1 bound, 0 doomed");
  ck_has(out, "In use: 2 GPUs guaranteed, 0 GPUs opportunistic");
  ck_has(out, "Bound GPUs: node3:0-3");
  ck_has(out, "Running jobs: 1");
  ck_has(Squeeze(out), "10 guaranteed 0 2 node3:0-1");
  ck_has(out, "Waiting jobs: 2");
  ck_has(out, "no healthy, allowed physical GPUs");
  ck_assert(VcText(fixture, "VC1", &out, &err));
  ck_has(Squeeze(out), "9 opportunistic (lazy-preempted) -1 8 node1:0-7");
  ck_has(out, "Bound GPUs: node2:0-7 node4:0-7");
  ck_assert(VcText(fixture, "vc2", &out, &err));
  ck_has(out, "0 bound, 1 doomed");
  ck_assert(!VcText(fixture, "nope", &out, &err));
  ck_has(err, "no VC 'nope' (VCs: vc1, vc2, vc3)");
}
END_TEST

START_TEST(test_job_text) {
  std::string out, err;
  ck_assert(JobText(fixture, "9", &out, &err));
  ck_has(out, "Job 9: VC vc1, opportunistic (lazy-preempted), HiveD priority -1, 8 GPUs");
  ck_has(out, "Lazy-preempted:");
  ck_has(Squeeze(out), "node1 0-7 A100-NODE node1 -\n");
  ck_assert(JobText(fixture, "10", &out, &err));
  ck_has(Squeeze(out), "node3 0-1 A100-PAIR node3/0/0 vc3\n");
  ck_assert(JobText(fixture, "11", &out, &err));
  ck_has(Squeeze(out), "node3 4-7 A100-SOCKET node3/1 -\n");
  ck_assert(JobText(fixture, "14", &out, &err));
  ck_has(out, "Job 14: waiting (VC vc1)");
  ck_has(out, "Why: VC 'vc1' quota is in use");
  ck_assert(!JobText(fixture, "99", &out, &err));
  ck_has(err, "HiveD holds no job 99");
}
END_TEST

// A job a reload demoted (its VC gone) is not said to have lost to a higher-priority job.
// The fixture with job 9's record begun by `head` instead (more keys may follow it).
Status WithJob9(const std::string& head) {
  std::string text = ReadFixture("status.json"), err;
  const std::string job9 =
      R"({"job":"9","vc":"vc1","priority":-1,"class":"opportunistic","lazyPreempted":true,)";
  size_t at = text.find(job9);
  ck_assert(at != std::string::npos);
  text.replace(at, job9.size(), head);
  Status s;
  ck_assert_msg(Parse(text, &s, &err), "%s", err.c_str());
  return s;
}

START_TEST(test_job_text_demoted_by_config) {
  std::string out, err;
  Status s =
      WithJob9(R"({"job":"9","vc":"","priority":-1,"class":"opportunistic","lazyPreempted":true,)"
               R"("demotedBy":"config","askedVc":"vc4",)");
  ck_assert(JobText(s, "9", &out, &err));
  ck_has(out, "Job 9: VC - (asked vc4), opportunistic (demoted by the config)");
  ck_has(out, "Demoted by the config: hived.conf no longer has VC vc4");
  ck_assert_msg(out.find("higher-priority") == std::string::npos, "%s", out.c_str());
}
END_TEST

// A borrower (borrowIdleCells) is not said to have lost to a higher-priority job either.
START_TEST(test_job_text_borrowed) {
  std::string out, err;
  Status s = WithJob9(
      R"({"job":"9","vc":"vc1","priority":-1,"class":"opportunistic","lazyPreempted":true,)"
      R"("demotedBy":"borrow",)");
  ck_assert(JobText(s, "9", &out, &err));
  ck_has(out, "Job 9: VC vc1, opportunistic (borrowed idle GPUs)");
  ck_has(out, "Borrowed idle GPUs: its VC had the free GPUs but not in cells of its shape");
  ck_assert_msg(out.find("higher-priority") == std::string::npos, "%s", out.c_str());
  ck_has(MapSvg(s, s.written), "job 9 (vc1, opportunistic, borrowed idle GPUs)");
}
END_TEST

// How long select/hived made a job wait, by cause: while it waits, and once it runs.
START_TEST(test_wait_history) {
  json_error_t jerr;
  json_t* root = json_loads(ReadFixture("status.json").c_str(), 0, &jerr);
  ck_assert_ptr_nonnull(root);
  json_t* job14 = json_array_get(json_object_get(root, "pending"), 0);
  ck_assert_str_eq(json_string_value(json_object_get(job14, "job")), "14");
  json_object_set_new(job14, "waitingSince", json_integer(1795275879));
  json_object_set_new(job14, "waitedSecs", json_integer(85));
  json_object_set_new(job14, "waited", json_pack("{s:i, s:i}", "vcQuota", 40, "cells", 45));
  json_object_set_new(job14, "waitingFor", json_string("cells"));
  json_object_set_new(
      root, "started",
      json_pack("[{s:s, s:i, s:i, s:i, s:{s:i}}]", "job", "10", "time", 1795275900, "waitingSince",
                1795275888, "waitedSecs", 12, "waited", "behindVcHead", 12));
  char* text = json_dumps(root, 0);
  Status st;
  std::string err, out;
  ck_assert_msg(Parse(text, &st, &err), "%s", err.c_str());
  free(text);
  ck_assert(JobText(st, "14", &out, &err));
  ck_has(out, "Waited so far: 85 s: its VC's quota in use 40 s, no free cells of its shape 45 s\n");
  ck_has(StatusText(st, st.written),
         "Longest guaranteed wait: job 14 (VC vc1), 85 s: its VC's quota in use 40 s");
  ck_assert(!Has(StatusText(fixture, fixture.written), "Longest"));
  // The file is written on changes only: 10 s later the current cause has 10 s more.
  Status later = st;
  later.AgeWaits(st.written + 10);
  ck_assert(JobText(later, "14", &out, &err));
  ck_has(out, "Waited so far: 95 s: its VC's quota in use 40 s, no free cells of its shape 55 s\n");
  later.AgeWaits(st.written + 10);  // the same moment again adds nothing
  ck_assert(JobText(later, "14", &out, &err));
  ck_has(out, "Waited so far: 95 s:");
  ck_assert(JobText(st, "10", &out, &err));
  ck_has(out, "Waited before it started: 12 s: behind its VC's head job 12 s\n");
  // A cause a newer plugin wrote shows by its key rather than vanishing.
  Status newer = st;
  newer.started[0].history.by_cause.emplace_back("fairShare", 3);
  newer.started[0].history.secs = 15;
  ck_assert(JobText(newer, "10", &out, &err));
  ck_has(out, "Waited before it started: 15 s: behind its VC's head job 12 s, fairShare 3 s\n");
  ck_assert(JobJson(st, "10", &out, &err));
  ck_has(out, "\"waitedBeforeStart\"");
  ck_has(out, "\"behindVcHead\": 12");
  // The longest wait per VC and cause, for alerts (job 14 is vc1's).
  ck_has(Metrics(st), "hived_vc_longest_wait_seconds{vc=\"vc1\",cause=\"cells\"} 45\n");
  ck_has(Metrics(st), "hived_vc_longest_wait_seconds{vc=\"vc1\",cause=\"vcQuota\"} 40\n");
  ck_has(Metrics(st), "hived_vc_longest_wait_seconds{vc=\"vc3\",cause=\"cells\"} 0\n");
  ck_has(Metrics(fixture), "hived_vc_longest_wait_seconds{vc=\"vc1\",cause=\"cells\"} 0\n");
  // Without the fields (older plugins) nothing is said about waiting.
  ck_assert(JobText(fixture, "10", &out, &err));
  ck_assert_msg(!Has(out, "Waited"), "%s", out.c_str());
  ck_assert(JobText(fixture, "14", &out, &err));
  ck_assert_msg(!Has(out, "Waited"), "%s", out.c_str());
  // A cause whose seconds are not a number is named.
  json_object_set_new(job14, "waited", json_pack("{s:s}", "cells", "45"));
  text = json_dumps(root, 0);
  json_decref(root);
  ck_assert(!Parse(text, &st, &err));
  free(text);
  ck_has(err, "pending[0].waited.cells: not an integer");
}
END_TEST

// What select/hived adds when it refuses: a job at submit, a reload.
START_TEST(test_refusals) {
  json_error_t jerr;
  json_t* root = json_loads(ReadFixture("status.json").c_str(), 0, &jerr);
  ck_assert_ptr_nonnull(root);
  json_object_set_new(root, "refused",
                      json_pack("[{s:s, s:i, s:s, s:s}]", "job", "57", "time", 1, "vc", "vc3",
                                "reason", "VC 'vc3' has 8 GPUs in its cells, the job needs 16"));
  json_object_set_new(root, "lastReload",
                      json_pack("{s:i, s:b, s:s}", "time", 1763700000, "refused", 1, "reason",
                                "/etc/slurm/hived.conf: line 1: end of file expected"));
  char* text = json_dumps(root, 0);
  json_decref(root);
  Status st;
  std::string err, out;
  ck_assert_msg(Parse(text, &st, &err), "%s", err.c_str());
  free(text);
  ck_assert(JobText(st, "57", &out, &err));
  ck_has(out, "Job 57: refused by HiveD (VC vc3)");
  ck_has(out, "Why: VC 'vc3' has 8 GPUs in its cells, the job needs 16");
  ck_assert(JobJson(st, "57", &out, &err));
  ck_has(out, "\"refused\": true");
  std::string t = StatusText(st, st.written);
  ck_has(t, "Last reload REFUSED at 2025-11-21 ");
  ck_has(t, "(the previous configuration stays in force): /etc/slurm/hived.conf: line 1");
  ck_has(t, "job 57 (VC vc3): VC 'vc3' has 8 GPUs");
  ck_has(StatusJson(st), "\"lastReload\"");
  // The fixture (no such fields) says nothing about reloads.
  ck_assert(!Has(StatusText(fixture, fixture.written), "REFUSED"));
}
END_TEST

START_TEST(test_json) {
  std::string out, err;
  json_error_t jerr;
  ck_assert(JobJson(fixture, "15", &out, &err));
  json_t* j = json_loads(out.c_str(), 0, &jerr);
  ck_assert_ptr_nonnull(j);
  ck_assert_int_eq(json_integer_value(json_object_get(j, "priority")), 100);
  json_decref(j);
  ck_assert(JobJson(fixture, "12", &out, &err));
  ck_has(out, "\"waiting\": true");
  ck_assert(!JobJson(fixture, "99", &out, &err));
  ck_assert(VcJson(fixture, "vc2", &out, &err));
  j = json_loads(out.c_str(), 0, &jerr);
  ck_assert_ptr_nonnull(j);
  ck_assert_int_eq(json_integer_value(json_object_get(j, "quotaGpus")), 8);
  ck_assert_int_eq(json_array_size(json_object_get(j, "waiting")), 0);
  json_decref(j);
  ck_assert(VcJson(fixture, "", &out, &err));
  j = json_loads(out.c_str(), 0, &jerr);
  ck_assert_int_eq(json_array_size(j), 3);
  ck_assert_int_eq(json_array_size(json_object_get(json_array_get(j, 2), "waiting")), 2);
  json_decref(j);
  out = StatusJson(fixture);
  j = json_loads(out.c_str(), 0, &jerr);
  ck_assert_ptr_nonnull(j);
  ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "gpus"), "opportunistic")),
                   12);
  ck_assert_int_eq(json_array_size(json_object_get(j, "levels")), 5);
  ck_assert_ptr_nonnull(json_object_get(j, "cluster"));
  json_decref(j);
}
END_TEST

START_TEST(test_metrics) {
  std::string m = Metrics(fixture);
  ck_has(m,
         "hived_vc_doomed_cells{vc=\"vc2\",chain=\"A100-RACK\",cell_type=\"A100-NODE\",level=\"4\"}"
         " 1\n");
  ck_has(m,
         "hived_vc_quota_cells{vc=\"vc3\",chain=\"A100-RACK\",cell_type=\"A100-SOCKET\",level="
         "\"3\"} 2\n");
  ck_has(m,
         "hived_vc_bound_cells{vc=\"vc1\",chain=\"A100-RACK\",cell_type=\"A100-NODE\",level=\"4\"} "
         "2\n");
  ck_has(m, "hived_vc_used_gpus{vc=\"vc1\"} 16\n");
  ck_has(m, "hived_vc_opportunistic_gpus{vc=\"vc2\"} 4\n");
  ck_has(m, "hived_vc_pending_guaranteed_jobs{vc=\"vc3\"} 2\n");
  ck_has(m, "hived_vc_quota_gpus{vc=\"vc1\"} 16\n");
  ck_has(m, "hived_gpus{state=\"idle\"} 2\n");
  ck_has(m, "hived_lazy_preemptions_total 2\n");
  ck_has(m, "hived_borrowed_starts_total 1\n");
  ck_has(m, "hived_promotions_total 3\n");
  ck_has(m, "# TYPE hived_preemptions_total counter\n");
  ck_has(m, "hived_job_test_calls_total ");
  ck_has(m, "hived_job_test_seconds{stat=\"p50\"} 0.000131\n");
  ck_has(m, "hived_will_run_answers_total{by=\"trial\"} 5\n");
  ck_has(m, "hived_will_run_answers_total{by=\"memo\"} 40\n");
  ck_has(m, "hived_will_run_trial_ended_jobs_total 12\n");
  ck_has(m, "hived_will_run_trials_by_guarantee_total 3\n");
  // Every sample line is well formed and belongs to a family declared before it.
  std::regex sample(R"(^([a-z_]+)(\{([a-z_]+="([^"\\]|\\.)*",?)+\})? -?[0-9.e+-]+$)");
  std::istringstream in(m);
  std::string line, declared;
  int samples = 0;
  while (std::getline(in, line)) {
    if (line.rfind("# TYPE ", 0) == 0) {
      declared = line.substr(7, line.find(' ', 7) - 7);
      continue;
    }
    if (line.rfind("# HELP ", 0) == 0) continue;
    std::smatch mt;
    ck_assert_msg(std::regex_match(line, mt, sample), "bad sample line: %s", line.c_str());
    ck_assert_msg(mt[1] == declared, "sample %s after TYPE %s", line.c_str(), declared.c_str());
    samples++;
  }
  ck_assert_int_gt(samples, 40);
  // Label values are escaped.
  Status odd = fixture;
  odd.vcs[0].name = "a\"b\\c";
  ck_has(Metrics(odd), "hived_vc_used_gpus{vc=\"a\\\"b\\\\c\"} 16\n");
}
END_TEST

START_TEST(test_map) {
  std::string svg = MapSvg(fixture, fixture.written);
  ck_assert_int_eq(Count(svg, "class=\"gpu "), 32);
  ck_assert_int_eq(Count(svg, "data-state=\"guaranteed\""), 18);
  ck_assert_int_eq(Count(svg, "data-state=\"opportunistic\""), 12);
  ck_assert_int_eq(Count(svg, "data-state=\"bound\""), 2);
  ck_assert_int_eq(Count(svg, "data-state=\"free\""), 0);
  ck_assert_int_eq(Count(svg, "class=\"rack\""), 2);
  ck_has(svg, "data-rack=\"rack0\"");
  ck_has(svg,
         "<title>node1 GPU 0: job 9 (vc1, opportunistic, lazy-preempted); cell not bound to a VC; "
         "bad</title>");
  ck_has(svg, "<title>node3 GPU 2: idle; cell bound to vc3</title>");
  ck_has(svg, "<title>node3 GPU 4: job 11 (vc2, opportunistic); cell not bound to a VC</title>");
  ck_has(svg, "vc2 opportunistic  \u2014 doomed: 1 A100-NODE");
  // Colours: vc1 solid for its guaranteed jobs, vc3's border on its idle bound GPUs.
  ck_has(svg, "fill=\"" + MapColors::Vc(0) +
                  "\" stroke=\"#9a9a9a\" stroke-width=\"0.5\" data-node=\"node2\"");
  ck_has(svg, "fill=\"#ffffff\" stroke=\"" + MapColors::Vc(2) + "\" stroke-width=\"2\"");
  ck_has(svg, "node1 (bad)");
  ck_assert(MapColors::Vc(0) != MapColors::VcOpportunistic(0));
  ck_assert(MapColors::Vc(10) != MapColors::Vc(11));
  std::string html = MapHtml(fixture, fixture.written + 7);
  ck_has(html, "<!DOCTYPE html>");
  // Its age is computed when viewed, not when written.
  ck_assert_msg(html.find("(7 s ago)") == std::string::npos, "age baked into the page");
  ck_has(html, "data-written=\"" + std::to_string(fixture.written) + "\"");
  ck_has(html, "Date.now()");
  ck_has(html, "<svg xmlns=");
  ck_has(html, "<tr data-vc=\"vc2\">");
  ck_has(html, "class=\"doomed\">1 A100-NODE</td>");
  ck_assert(Xml("<a href='x'>&\"") == "&lt;a href=&#39;x&#39;&gt;&amp;&quot;");
}
END_TEST

// whatif/status-fractions.json: written from the engine by test_whatif
// --write-fixtures on fractions-packing's cluster (2 nodes x 4 A100 in eighths).
// n0 GPU 0: a1, a2, a3 (2), a5 of VC A, o3 (opportunistic, no VC, 2), one eighth of
// A's idle; GPU 1: a4 (A, a half), the other half free; GPU 2: b1 (B, whole);
// GPU 3 free; n1: c1 (C, whole node). a6 (A, a quarter) waits.
Status Fractions() {
  Status s;
  std::string err;
  ck_assert_msg(Parse(ReadFixture("whatif/status-fractions.json"), &s, &err), "fixture: %s",
                err.c_str());
  return s;
}

START_TEST(test_fractions_parse) {
  Status s = Fractions();
  ck_assert_int_eq(s.nodes.size(), 2);
  ck_assert_int_eq(s.nodes[0].gpus.size(), 4);  // eighths folded into their GPU
  const Chain& ch = s.chains[0];
  ck_assert_int_eq(ch.leaves_per_gpu, 8);
  ck_assert(ch.GpusPerCell(ch.levels[1].level) == 0.25);   // a quarter
  ck_assert(ch.GpusPerCell(ch.levels.back().level) == 4);  // a node
  const Gpu& g0 = s.nodes[0].gpus[0];
  ck_assert(g0.Split());
  ck_assert_int_eq(g0.SlotsUsed(), 7);
  ck_assert(g0.job.empty() && g0.vc.empty());
  ck_assert(g0.slots[2].job == "o3" && g0.slots[2].cls == "opportunistic");
  const Gpu& g2 = s.nodes[0].gpus[2];
  ck_assert(!g2.Split());
  ck_assert(g2.job == "b1" && g2.vc == "B");
  ck_assert(!s.nodes[1].gpus[0].Split());
  GpuCount c = CountGpus(s);
  ck_assert_int_eq(c.total, 8);
  ck_assert_int_eq(c.split, 2);
  ck_assert_int_eq(c.guaranteed, 5);  // b1 and c1's four
  ck_assert_int_eq(c.idle, 1);
  ck_assert_int_eq(c.fragmented, 2);
  ck_assert_double_eq(c.split_guaranteed, 9.0 / 8);
  ck_assert_double_eq(c.split_opportunistic, 2.0 / 8);
  ck_assert_double_eq(c.stranded, 5.0 / 8);
  // Cells below the GPU counted from the fractions: eighths in use are 7 on n0 GPU 0,
  // 4 on GPU 1, all of b1's GPU 2 and of c1's four GPUs on n1.
  Counts cc = CountCells(s);
  const auto& levels = cc[ch.chain];
  ck_assert_int_eq(levels.at(1).cells, 64);
  ck_assert_int_eq(levels.at(1).in_use, 7 + 4 + 8 + 32);
  ck_assert_int_eq(levels.at(3).cells, 16);              // halves
  ck_assert_int_eq(levels.at(3).in_use, 2 + 1 + 2 + 8);  // GPU 0, 1, 2 of n0; n1
  ck_assert_int_eq(levels.at(4).cells, 8);               // GPUs
  ck_assert_int_eq(levels.at(4).idle, 1);
  ck_has(StatusText(s, s.written),
         "Split GPUs: 2 (in GPUs: 1.12 guaranteed, 0.25 opportunistic, 0.625 free); 2 partly "
         "used, 0.625 GPUs free on them\n");
  std::string vc_text, err;
  ck_assert(VcText(s, "A", &vc_text, &err));
  ck_has(vc_text, "(1.25 GPUs)");
  ck_has(vc_text, "In use: 1.125 GPUs guaranteed, 0 GPUs opportunistic");
  ck_has(vc_text, "Bound GPUs: n0:0-1\n");
  ck_has(Squeeze(vc_text), "a3 guaranteed 0 1 n0:0[4-5]\n");
  std::string job_text;
  ck_assert(JobText(s, "a4", &job_text, &err));
  ck_has(job_text, "HiveD priority 0, 4 fractions of a GPU");
  ck_has(Squeeze(job_text), "n0 1[0-3] within A100-NODE n0 A\n");
  // A shard job's reason names the cell it waits for and the VC's cells.
  ck_has(s.pending[0].reason,
         "the job needs 2: one 'A100-QUARTER' cell per pod; its cells: 2 'A100-HALF', 2 "
         "'A100-EIGHTH'");
}
END_TEST

START_TEST(test_fractions_map) {
  Status s = Fractions();
  std::string svg = MapSvg(s, s.written);
  ck_assert_int_eq(Count(svg, "class=\"gpu "), 8);
  ck_assert_int_eq(Count(svg, "class=\"gpu split\""), 2);
  ck_assert_int_eq(Count(svg, "class=\"slot "), 16);
  ck_has(svg,
         "data-gpu=\"0\" data-state=\"split\" data-fractions=\"8\" data-used=\"7\" "
         "data-shares=\"A:5,no VC opportunistic:2,idle (A):1\">");
  ck_has(svg,
         "<title>n0 GPU 0: split in 8 fractions: 5/8 A, 2/8 no VC opportunistic, 1/8 idle (A); "
         "jobs a1, a2, a3, a5, o3</title>");
  ck_has(svg, "<title>n0 GPU 1: split in 8 fractions: 4/8 A, 4/8 free; jobs a4</title>");
  // Each fraction is coloured as a whole GPU would be.
  ck_has(svg, "fill=\"" + MapColors::Vc(0) +
                  "\" stroke=\"#ffffff\" stroke-width=\"0.4\" "
                  "data-slot=\"0\" data-state=\"guaranteed\" data-vc=\"A\" data-job=\"a1\"");
  ck_has(svg, "data-slot=\"2\" data-state=\"opportunistic\" data-vc=\"\" data-job=\"o3\"");
  // Whole GPUs are drawn as before.
  ck_has(svg, "<title>n0 GPU 2: job b1 (B, guaranteed); cell bound to B</title>");
  ck_has(svg, "<title>n0 GPU 3: idle; cell not bound to a VC</title>");
  ck_has(svg, "split GPU: one box per fraction");
  // Without split GPUs, no legend entry for them.
  ck_assert(!Has(MapSvg(fixture, fixture.written), "split GPU"));
}
END_TEST

// MIG slices (tests/hivedctl/status-mig.json: test_mig's cluster, 2 nodes of 3
// whole A100s and one in MIG mode as 3g + 2g + 2g; a guaranteed job on node1's 3g
// slice, an opportunistic one on node2's second 2g slice): each node's slices are
// drawn inside one GPU frame, as wide as their compute slots, not as GPUs.
START_TEST(test_mig_map) {
  Status s;
  std::string err;
  ck_assert_msg(Parse(ReadFixture("status-mig.json"), &s, &err), "fixture: %s", err.c_str());
  int mig = 0;
  for (const auto& ch : s.chains) {
    if (ch.leaf_type == "a100_3g.20gb") ck_assert_int_eq(ch.mig_slots, 3);
    if (ch.leaf_type == "a100_2g.10gb") ck_assert_int_eq(ch.mig_slots, 2);
    if (ch.leaf_type == "a100") ck_assert_int_eq(ch.mig_slots, 0);
    mig += ch.mig_slots > 0;
  }
  ck_assert_int_eq(mig, 2);
  std::string svg = MapSvg(s, s.written);
  ck_assert_int_eq(Count(svg, "class=\"mig-gpu\""), 2);
  ck_assert_int_eq(Count(svg, "data-slice="), 6);
  ck_assert_int_eq(Count(svg, "class=\"gpu "), 12);  // 6 whole GPUs, 6 slices
  ck_has(svg,
         "<title>node1 GPU in MIG mode: slices 3 a100_3g.20gb, 4 a100_2g.10gb, 5 "
         "a100_2g.10gb</title>");
  ck_has(svg, "width=\"6\" height=\"14\" fill=\"" + MapColors::Vc(0) + "\"");  // 3/7 of 14
  ck_has(svg,
         "<title>node1 MIG slice 3 (a100_3g.20gb, 3 of 7 compute slots): job 7 (vca, "
         "guaranteed); cell bound to vca</title>");
  ck_has(svg, "data-gpu=\"5\" data-slice=\"a100_2g.10gb\" data-state=\"opportunistic\"");
  ck_has(svg, "GPU in MIG mode: its slices side by side");
  ck_has(svg, "<title>node2 GPU 2: idle; cell not bound to a VC</title>");
  // Counted as slices, not as GPUs: 6 whole GPUs, 6 slices.
  GpuCount c = CountGpus(s);
  ck_assert_int_eq(c.total, 6);
  ck_assert_int_eq(c.slices, 6);
  ck_assert_int_eq(c.slices_guaranteed, 1);
  ck_assert_int_eq(c.slices_opportunistic, 1);
  ck_assert_int_eq(c.slices_idle, 4);
  ck_has(StatusText(s, s.written),
         "GPUs: 6 total, 0 guaranteed, 0 opportunistic, 6 idle\n"
         "MIG slices: 6 total, 1 guaranteed, 1 opportunistic, 4 idle\n");
  ck_has(Metrics(s), "hived_mig_slices{state=\"guaranteed\"} 1\n");
}
END_TEST

START_TEST(test_fractions_metrics) {
  Status s = Fractions();
  std::string m = Metrics(s);
  ck_has(m, "hived_vc_quota_gpus{vc=\"A\"} 1.25\n");
  ck_has(m, "hived_vc_quota_gpus{vc=\"C\"} 4\n");
  // In GPUs, not in the engine's leaf cells (eighths): c1 holds 4 GPUs, A 9 eighths.
  ck_has(m, "hived_vc_used_gpus{vc=\"C\"} 4\n");
  ck_has(m, "hived_vc_used_gpus{vc=\"A\"} 1.125\n");
  ck_has(m, "hived_vc_fractional_quota_gpus{vc=\"A\"} 1.25\n");
  ck_has(m, "hived_vc_fractional_quota_gpus{vc=\"B\"} 0\n");
  ck_has(m, "hived_vc_fractional_used_gpus{vc=\"A\",class=\"guaranteed\"} 1.125\n");
  ck_has(m, "hived_vc_fractional_used_gpus{vc=\"A\",class=\"opportunistic\"} 0\n");
  ck_has(m, "hived_vc_fractional_used_gpus{vc=\"C\",class=\"guaranteed\"} 0\n");
  ck_has(m, "hived_fractional_gpus{state=\"guaranteed\"} 1.125\n");
  ck_has(m, "hived_fractional_gpus{state=\"opportunistic\"} 0.25\n");
  ck_has(m, "hived_fractional_gpus{state=\"free\"} 0.625\n");
  ck_has(m, "hived_fragmented_gpus 2\n");
  ck_has(m, "hived_stranded_free_gpus 0.625\n");
  ck_has(m, "hived_gpus{state=\"split\"} 2\n");
  ck_has(m, "# TYPE hived_stranded_free_gpus gauge\n");
  // The whole-GPU fixture: no fraction anywhere.
  std::string whole = Metrics(fixture);
  ck_has(whole, "hived_fragmented_gpus 0\n");
  ck_has(whole, "hived_vc_fractional_quota_gpus{vc=\"vc1\"} 0\n");
}
END_TEST

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// map --html and metrics -o: a regular file is replaced whole (a new inode), through
// a symbolic link too; a FIFO or device is written in place. "hivedctl map --html
// /dev/null" as root once renamed a plain file over /dev/null.
START_TEST(test_write_output) {
  char dir_tmpl[] = "/tmp/hivedctl-out-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir_tmpl));
  const std::string dir = dir_tmpl, file = dir + "/map.html", link = dir + "/latest.html",
                    fifo = dir + "/pipe";
  std::string err;
  ck_assert_msg(hivedctl::WriteOutput(file, "one", &err), "%s", err.c_str());
  ck_assert(Slurp(file) == "one");  // a temporary's c_str() would dangle in the macro
  struct stat before, after;
  ck_assert_int_eq(stat(file.c_str(), &before), 0);
  ck_assert(hivedctl::WriteOutput(file, "two", &err));
  ck_assert_int_eq(stat(file.c_str(), &after), 0);
  ck_assert(Slurp(file) == "two");
  ck_assert(before.st_ino != after.st_ino);  // renamed over, never half-written

  ck_assert_int_eq(symlink("map.html", link.c_str()), 0);
  ck_assert(hivedctl::WriteOutput(link, "three", &err));
  ck_assert_int_eq(lstat(link.c_str(), &after), 0);
  ck_assert(S_ISLNK(after.st_mode));
  ck_assert(Slurp(file) == "three");

  ck_assert_int_eq(mkfifo(fifo.c_str(), 0600), 0);
  const int rd = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // a reader, so the write opens
  ck_assert_int_ge(rd, 0);
  ck_assert_msg(hivedctl::WriteOutput(fifo, "four", &err), "%s", err.c_str());
  char buf[16] = {0};
  ck_assert_int_eq(read(rd, buf, sizeof(buf) - 1), 4);
  ck_assert_str_eq(buf, "four");
  close(rd);
  ck_assert_int_eq(lstat(fifo.c_str(), &after), 0);
  ck_assert(S_ISFIFO(after.st_mode));

  ck_assert(!hivedctl::WriteOutput(dir, "five", &err));
  ck_assert_msg(err.find("is a directory") != std::string::npos, "%s", err.c_str());
  ck_assert(!hivedctl::WriteOutput(dir + "/no/such/dir/x", "six", &err));
  ck_assert_msg(err.find("No such file") != std::string::npos, "%s", err.c_str());

  unlink(fifo.c_str());
  unlink(link.c_str());
  unlink(file.c_str());
  ck_assert_int_eq(rmdir(dir.c_str()), 0);  // no temporary file left behind
}
END_TEST

START_TEST(test_ranges) {
  ck_assert(Ranges({3, 0, 1, 2, 6}) == "0-3,6");
  ck_assert(Ranges({}).empty());
  ck_assert(Ranges({5}) == "5");
  ck_assert(Ranges({1, 3, 5}) == "1,3,5");
}
END_TEST

int main() {
  setenv("TZ", "UTC", 1);
  tzset();
  Suite* s = suite_create("hivedctl");
  TCase* tc = tcase_create("views");
  tcase_add_unchecked_fixture(tc, Setup, nullptr);
  tcase_add_checked_fixture(tc, Setup, nullptr);
  tcase_add_test(tc, test_parse);
  tcase_add_test(tc, test_parse_errors);
  tcase_add_test(tc, test_counts);
  tcase_add_test(tc, test_status_text);
  tcase_add_test(tc, test_vc_text);
  tcase_add_test(tc, test_job_text);
  tcase_add_test(tc, test_job_text_demoted_by_config);
  tcase_add_test(tc, test_job_text_borrowed);
  tcase_add_test(tc, test_json);
  tcase_add_test(tc, test_refusals);
  tcase_add_test(tc, test_wait_history);
  tcase_add_test(tc, test_metrics);
  tcase_add_test(tc, test_map);
  tcase_add_test(tc, test_fractions_parse);
  tcase_add_test(tc, test_fractions_map);
  tcase_add_test(tc, test_mig_map);
  tcase_add_test(tc, test_fractions_metrics);
  tcase_add_test(tc, test_ranges);
  tcase_add_test(tc, test_write_output);
  suite_add_tcase(s, tc);
  return check_run(s, CK_NORMAL, CK_FORK_GETENV);
}
