// SPDX-License-Identifier: GPL-2.0-or-later
// The binder (src/core/binding.h), table-driven: where a guaranteed job's unbound
// virtual cells land on the physical cluster, given what runs where, which nodes are
// bad and which the job may use. Rows name the nodes each pod must get.
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

// Two racks of two 4-GPU nodes; VC A owns two node cells (no rack), VC B one.
const char kConfig[] = R"({"physicalCluster": {
  "cellTypes": {"NODE": {"childCellType": "V100", "childCellNumber": 4, "isNodeLevel": true},
                "RACK": {"childCellType": "NODE", "childCellNumber": 2}},
  "physicalCells": [
    {"cellType": "RACK", "cellAddress": "r0", "cellChildren": [{"cellAddress": "n0"}, {"cellAddress": "n1"}]},
    {"cellType": "RACK", "cellAddress": "r1", "cellChildren": [{"cellAddress": "n2"}, {"cellAddress": "n3"}]}]},
 "virtualClusters": {"A": {"virtualCells": [{"cellType": "RACK.NODE", "cellNumber": 2}]},
                     "B": {"virtualCells": [{"cellType": "RACK.NODE", "cellNumber": 1}]}}})";

struct Row {
  const char* name;
  std::vector<const char*> opportunistic;  // nodes a 4-GPU opportunistic job runs on
  std::vector<const char*> bad;
  std::vector<const char*> not_allowed;
  int pods;                        // of 4 GPUs, VC A
  std::vector<std::string> nodes;  // expected, per pod; empty: the job waits
};

const std::vector<Row>& Rows() {
  static const std::vector<Row> rows = {
      {"empty cluster: the gang in one rack", {}, {}, {}, 2, {"n0", "n1"}},
      {"one pod: the first free node", {}, {}, {}, 1, {"n0"}},
      {"a rack with an opportunistic job: the idle rack", {"n0"}, {}, {}, 2, {"n2", "n3"}},
      {"one pod avoids opportunistic work", {"n0", "n1", "n2"}, {}, {}, 1, {"n3"}},
      {"one pod avoids a bad node, and its rack", {}, {"n0"}, {}, 1, {"n2"}},
      {"the gang avoids a rack with a bad node", {}, {"n1"}, {}, 2, {"n2", "n3"}},
      {"allowed nodes choose the rack", {}, {}, {"n0", "n1"}, 2, {"n2", "n3"}},
      {"allowed nodes for one pod", {}, {}, {"n0", "n1", "n2"}, 1, {"n3"}},
      {"no idle rack: the gang still binds, preempting", {"n0", "n2"}, {}, {}, 2, {"n1", "n0"}},
  };
  return rows;
}

START_TEST(bound_nodes_per_row) {
  const Row& row = Rows()[static_cast<size_t>(_i)];
  std::unique_ptr<Engine> e = EngineFromConfig(kConfig);
  for (const char* n : row.opportunistic) {
    hived::RunningJob rj;
    rj.req.job = std::string("o-") + n;
    rj.req.priority = -1;
    rj.req.members = {{1, 4, 0}};
    hived::PlacedPod pod;
    pod.node = e->NodeIndex(n);
    pod.gpus = {0, 1, 2, 3};
    rj.pods = {pod};
    ck_assert(e->AddRunning(rj, nullptr).ok());
  }
  for (const char* n : row.bad) ck_assert(e->SetNodeHealth(n, false).ok());
  hived::Request req;
  req.job = "g";
  req.vc = "A";
  req.members = {{row.pods, 4, 0}};
  if (!row.not_allowed.empty()) {
    req.allowed.assign(e->NodeCount(), 1);
    for (const char* n : row.not_allowed) req.allowed[e->NodeIndex(n)] = 0;
  }
  hived::Decision d;
  ck_assert(e->Submit(req, false, &d).ok());
  std::string got;
  for (const auto& p : d.pods) got += (got.empty() ? "" : ",") + e->NodeName(p.node);
  std::string want;
  for (const auto& n : row.nodes) want += (want.empty() ? "" : ",") + n;
  ck_assert_msg(got == want, "%s: bound to [%s], want [%s] (%s)", row.name, got.c_str(),
                want.c_str(), d.reason.c_str());
  const std::string broken = e->CheckInvariants();
  ck_assert_msg(broken.empty(), "%s: %s", row.name, broken.c_str());
  // Released, every binding goes: the same request binds the same way again.
  ck_assert(e->Finish("g").ok());
  hived::Decision again;
  ck_assert(e->Submit(req, false, &again).ok());
  ck_assert_int_eq(again.pods.size(), d.pods.size());
}
END_TEST

Suite* binding_suite() {
  Suite* s = suite_create("binding");
  TCase* tc = tcase_create("binder");
  tcase_add_loop_test(tc, bound_nodes_per_row, 0, static_cast<int>(Rows().size()));
  suite_add_tcase(s, tc);
  return s;
}

}  // namespace

int main() { return check_run(binding_suite(), CK_NORMAL, CK_FORK_GETENV); }
