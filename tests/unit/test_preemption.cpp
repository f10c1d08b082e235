// SPDX-License-Identifier: GPL-2.0-or-later
// The preemption planner (src/core/preemption.h), table-driven: each row is a cluster,
// the jobs running on it and one guaranteed request; it names the jobs the request must
// preempt and those it must lazily demote. Each row is also asked as a dry run first,
// whose revert must leave the engine exactly as it was (state, counts, invariants).
#include <memory>
#include <string>
#include <vector>

// After the C++ headers: check.h defines a fail() macro.
#include <check.h>

#include "../check_run.h"
#include "core/engine.h"
#include "engine_test_util.h"

namespace {

using hived::Engine;

// Three 4-GPU nodes; VCs A and B own one node each, the third node is no VC's.
const char kThreeNodes[] = R"({"physicalCluster": {
  "cellTypes": {"NODE": {"childCellType": "V100", "childCellNumber": 4, "isNodeLevel": true}},
  "physicalCells": [{"cellType": "NODE", "cellAddress": "n0"},
                    {"cellType": "NODE", "cellAddress": "n1"},
                    {"cellType": "NODE", "cellAddress": "n2"}]},
 "virtualClusters": {"A": {"virtualCells": [{"cellType": "NODE", "cellNumber": 1}]},
                     "B": {"virtualCells": [{"cellType": "NODE", "cellNumber": 1}]}}})";

// One 8-GPU node (two sockets of two pairs) owned by VC A.
const char kOneNode[] = R"({"physicalCluster": {
  "cellTypes": {"PAIR": {"childCellType": "V100", "childCellNumber": 2},
                "SOCKET": {"childCellType": "PAIR", "childCellNumber": 2},
                "NODE": {"childCellType": "SOCKET", "childCellNumber": 2, "isNodeLevel": true}},
  "physicalCells": [{"cellType": "NODE", "cellAddress": "n0"}]},
 "virtualClusters": {"A": {"virtualCells": [{"cellType": "NODE", "cellNumber": 1}]}}})";

struct Running {
  const char* job;
  const char* vc;  // "" for none
  int priority;    // -1: opportunistic
  bool lazy;
  const char* node;
  std::vector<int32_t> gpus;
};

struct Ask {
  const char* job;
  const char* vc;
  int priority;
  int gpus;  // one pod
};

struct Row {
  const char* name;
  const char* config;
  std::vector<Running> running;
  Ask ask;
  hived::Outcome outcome;
  std::vector<std::string> preempted;
  std::vector<std::string> lazy_preempted;
};

const std::vector<Row>& Rows() {
  static const std::vector<Row> rows = {
      {"free cells: no victim",
       kThreeNodes,
       {{"a1", "A", 1, false, "n0", {0, 1}}},
       {"g", "A", 5, 2},
       hived::Outcome::kPlaced,
       {},
       {}},
      {"opportunistic jobs everywhere: the one on the bound node is preempted",
       kThreeNodes,
       {{"o0", "", -1, false, "n0", {0, 1, 2, 3}},
        {"o1", "", -1, false, "n1", {0, 1, 2, 3}},
        {"o2", "", -1, false, "n2", {0, 1, 2, 3}}},
       {"g", "A", 0, 4},
       hived::Outcome::kPlaced,
       {"o0"},
       {}},
      {"lower priority, not lazy: preempted",
       kThreeNodes,
       {{"a1", "A", 1, false, "n0", {0, 1, 2, 3}}},
       {"g", "A", 5, 4},
       hived::Outcome::kPlaced,
       {"a1"},
       {}},
      {"lower priority, lazy, idle GPUs elsewhere: demoted, keeps running",
       kThreeNodes,
       {{"a1", "A", 1, true, "n0", {0, 1, 2, 3}}},
       {"g", "A", 5, 4},
       hived::Outcome::kPlaced,
       {},
       {"a1"}},
      {"lazy victim whose own GPUs are the only ones left: demoted, then preempted",
       kThreeNodes,
       {{"a1", "A", 1, true, "n0", {0, 1, 2, 3}},
        {"b1", "B", 0, false, "n1", {0, 1, 2, 3}},
        {"o2", "", -1, false, "n2", {0, 1, 2, 3}}},
       {"g", "A", 5, 4},
       hived::Outcome::kPlaced,
       {"a1"},
       {}},
      {"equal priority: no victim, the job waits",
       kThreeNodes,
       {{"a1", "A", 5, false, "n0", {0, 1, 2, 3}}},
       {"g", "A", 5, 4},
       hived::Outcome::kWaiting,
       {},
       {}},
      {"another VC's job is never a victim",
       kThreeNodes,
       {{"b1", "B", 0, false, "n1", {0, 1, 2, 3}}, {"a1", "A", 9, false, "n0", {0, 1, 2, 3}}},
       {"g", "A", 5, 4},
       hived::Outcome::kWaiting,
       {},
       {}},
      {"only as many victims as the request needs",
       kOneNode,
       {{"a1", "A", 1, false, "n0", {0, 1}},
        {"a2", "A", 1, false, "n0", {2, 3}},
        {"a3", "A", 1, false, "n0", {4, 5}},
        {"a4", "A", 1, false, "n0", {6, 7}}},
       {"g", "A", 5, 2},
       hived::Outcome::kPlaced,
       {"a1"},
       {}},
      {"victims of two priorities, lazy and not",
       kOneNode,
       {{"a1", "A", 1, true, "n0", {0, 1, 2, 3}}, {"a2", "A", 2, false, "n0", {4, 5, 6, 7}}},
       {"g", "A", 5, 8},
       hived::Outcome::kPlaced,
       {"a2", "a1"},
       {}},
  };
  return rows;
}

void AddRunning(Engine* e, const Running& r) {
  hived::RunningJob rj;
  rj.req.job = r.job;
  rj.req.vc = r.vc;
  rj.req.priority = r.priority;
  rj.req.lazy = r.lazy;
  rj.req.members = {{1, static_cast<int>(r.gpus.size()), 0}};
  hived::PlacedPod pod;
  pod.node = e->NodeIndex(r.node);
  pod.gpus = r.gpus;
  rj.pods = {pod};
  bool demoted = true;
  hived::Status st = e->AddRunning(rj, &demoted);
  ck_assert_msg(st.ok(), "add-running %s: %s", r.job, st.msg.c_str());
  ck_assert_msg(!demoted, "%s recorded demoted", r.job);
}

hived::Request RequestOf(const Ask& a) {
  hived::Request req;
  req.job = a.job;
  req.vc = a.vc;
  req.priority = a.priority;
  req.members = {{1, a.gpus, 0}};
  return req;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return "[" + s + "]";
}

// Everything a revert must restore: jobs with their bindings, per-VC counts, invariants.
std::string Fingerprint(const Engine& e) {
  std::string all = e.SnapshotState() + "\n" + e.InspectCluster();
  for (size_t i = 0; i < e.VcCount(); i++) {
    std::string vc;
    ck_assert(e.InspectVc(e.VcName(i), &vc).ok());
    all += "\n" + vc;
  }
  return all;
}

void CheckDecision(const Row& row, const hived::Decision& d, const char* how) {
  ck_assert_msg(d.outcome == row.outcome, "%s (%s): outcome %d, want %d (%s)", row.name, how,
                static_cast<int>(d.outcome), static_cast<int>(row.outcome), d.reason.c_str());
  ck_assert_msg(d.preempted == row.preempted, "%s (%s): preempted %s, want %s", row.name, how,
                Join(d.preempted).c_str(), Join(row.preempted).c_str());
  ck_assert_msg(d.lazy_preempted == row.lazy_preempted, "%s (%s): lazy %s, want %s", row.name, how,
                Join(d.lazy_preempted).c_str(), Join(row.lazy_preempted).c_str());
}

// The message is kept in a named string: check's macros read it after the statement.
void CheckInvariants(const Engine& e, const char* row) {
  const std::string broken = e.CheckInvariants();
  ck_assert_msg(broken.empty(), "%s: %s", row, broken.c_str());
}

START_TEST(victims_per_row) {
  const Row& row = Rows()[static_cast<size_t>(_i)];
  std::unique_ptr<Engine> e = EngineFromConfig(row.config);
  for (const Running& r : row.running) AddRunning(e.get(), r);
  CheckInvariants(*e, row.name);
  const hived::Request req = RequestOf(row.ask);

  // A job that waits is marked waiting (state the revert rightly keeps): a first dry
  // run marks it, with its priority and need.
  if (row.outcome == hived::Outcome::kWaiting) {
    hived::Decision first;
    ck_assert(e->Submit(req, /*dry_run=*/true, &first).ok());
  }
  const std::string before = Fingerprint(*e);
  hived::Decision dry;
  ck_assert(e->Submit(req, /*dry_run=*/true, &dry).ok());
  CheckDecision(row, dry, "dry run");
  ck_assert_msg(Fingerprint(*e) == before, "%s: the dry run's revert changed the engine", row.name);
  CheckInvariants(*e, row.name);

  hived::Decision wet;
  ck_assert(e->Submit(req, /*dry_run=*/false, &wet).ok());
  CheckDecision(row, wet, "submit");
  ck_assert_msg(wet.pods.size() == dry.pods.size(), "%s: dry run and submit differ", row.name);
  CheckInvariants(*e, row.name);
  // Preempted jobs are gone, demoted ones run on as opportunistic, the rest are untouched.
  for (const Running& r : row.running) {
    bool gone = false;
    for (const auto& p : row.preempted) gone |= p == r.job;
    ck_assert_msg(e->HasJob(r.job) != gone, "%s: job %s %s", row.name, r.job,
                  gone ? "still runs" : "vanished");
  }
  for (const auto& lz : row.lazy_preempted) {
    const std::string* vc = nullptr;
    ck_assert_int_eq(e->JobQuotaLeaves(lz, &vc), 0);
  }
}
END_TEST

// Reverting after the victims were displaced and the preemptor recorded puts every
// victim back on the same GPUs with the same virtual cells: a later identical
// request decides the same way.
START_TEST(revert_then_repeat_decides_the_same) {
  const Row& row = Rows()[static_cast<size_t>(_i)];
  std::unique_ptr<Engine> e = EngineFromConfig(row.config);
  for (const Running& r : row.running) AddRunning(e.get(), r);
  const hived::Request req = RequestOf(row.ask);
  hived::Decision first, second;
  ck_assert(e->Submit(req, true, &first).ok());
  ck_assert(e->Submit(req, true, &second).ok());
  CheckDecision(row, second, "second dry run");
  ck_assert_int_eq(first.pods.size(), second.pods.size());
  for (size_t i = 0; i < first.pods.size(); i++) {
    ck_assert_int_eq(first.pods[i].node, second.pods[i].node);
    ck_assert(first.pods[i].gpus == second.pods[i].gpus);
  }
}
END_TEST

// A job whose VC's quota is in use (fewer free cells than it needs, and no job of lower
// priority to take them from) waits for its quota without a placement search: under a
// flood from one VC that is most of what backfill asks. Its reason still says why.
// A job of higher priority does search, which shows the counter counts.
START_TEST(quota_in_use_costs_no_search) {
  std::unique_ptr<Engine> e = EngineFromConfig(kThreeNodes);
  AddRunning(e.get(), {"a1", "A", 5, false, "n0", {0, 1, 2, 3}});
  hived::Decision wait, over;
  const uint64_t before = e->VirtualSearches();
  ck_assert(e->Submit(RequestOf({"g", "A", 5, 1}), true, &wait).ok());
  ck_assert_int_eq(static_cast<int>(wait.outcome), static_cast<int>(hived::Outcome::kWaiting));
  ck_assert_int_eq(static_cast<int>(wait.wait), static_cast<int>(hived::Wait::kVcQuota));
  ck_assert_msg(wait.reason.find("quota is in use: 0 free GPUs") != std::string::npos, "%s",
                wait.reason.c_str());
  ck_assert_uint_eq(e->VirtualSearches(), before);
  ck_assert(e->Submit(RequestOf({"h", "A", 9, 1}), true, &over).ok());
  ck_assert_int_eq(static_cast<int>(over.outcome), static_cast<int>(hived::Outcome::kPlaced));
  ck_assert_uint_gt(e->VirtualSearches(), before);
}
END_TEST

Suite* preemption_suite() {
  Suite* s = suite_create("preemption");
  TCase* tc = tcase_create("planner");
  const int n = static_cast<int>(Rows().size());
  tcase_add_loop_test(tc, victims_per_row, 0, n);
  tcase_add_loop_test(tc, revert_then_repeat_decides_the_same, 0, n);
  tcase_add_test(tc, quota_in_use_costs_no_search);
  suite_add_tcase(s, tc);
  return s;
}

}  // namespace

int main() { return check_run(preemption_suite(), CK_NORMAL, CK_FORK_GETENV); }
