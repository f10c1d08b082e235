// SPDX-License-Identifier: GPL-2.0-or-later
// The constraints a request puts on one chain (src/core/constraints.h), table-driven:
// each row is a request and the chain it is compiled for, and names the levels and
// rules placement, the rack rule and the binder then read.
#include <memory>
#include <string>
#include <vector>

// After the C++ headers: check.h defines a fail() macro.
#include <check.h>

#include "../check_run.h"
#include "core/constraints.h"
#include "core/engine.h"
#include "engine_test_util.h"

namespace {

using hived::Engine;

// Levels of the V100 chain: V100 1, PAIR 2, SOCKET 3, NODE 4, RACK 5. VC A owns one
// node (no rack), VC B one rack; the K80 chain has only GPUs and nodes.
const char kConfig[] = R"({"physicalCluster": {
  "cellTypes": {"PAIR": {"childCellType": "V100", "childCellNumber": 2},
                "SOCKET": {"childCellType": "PAIR", "childCellNumber": 2},
                "NODE": {"childCellType": "SOCKET", "childCellNumber": 2, "isNodeLevel": true},
                "RACK": {"childCellType": "NODE", "childCellNumber": 2},
                "K80NODE": {"childCellType": "K80", "childCellNumber": 4, "isNodeLevel": true}},
  "physicalCells": [{"cellType": "RACK", "cellAddress": "r0", "cellChildren": [{"cellAddress": "n0"}, {"cellAddress": "n1"}]},
                    {"cellType": "RACK", "cellAddress": "r1", "cellChildren": [{"cellAddress": "n2"}, {"cellAddress": "n3"}]},
                    {"cellType": "K80NODE", "cellAddress": "k0"}]},
 "virtualClusters": {"A": {"virtualCells": [{"cellType": "RACK.NODE", "cellNumber": 1},
                                            {"cellType": "K80NODE", "cellNumber": 1}]},
                     "B": {"virtualCells": [{"cellType": "RACK", "cellNumber": 1}]}}})";

enum ChainOf { kV100, kK80 };

struct Row {
  const char* name;
  const char* vc;  // "": opportunistic
  const char* within;
  const char* pod_within;
  bool distinct;
  int pods, gpus;
  ChainOf chain;
  // expected
  bool usable;
  int within_level, pod_level;
  bool by_rack;
};

const std::vector<Row>& Rows() {
  static const std::vector<Row> rows = {
      {"no rules", "A", "", "", false, 1, 2, kV100, true, 0, 0, false},
      {"within a socket", "A", "SOCKET", "", false, 1, 2, kV100, true, 3, 0, false},
      {"within a node", "A", "NODE", "", false, 1, 4, kV100, true, 4, 0, false},
      {"within a rack, VC owns no rack: the rack rule", "A", "RACK", "", false, 2, 8, kV100, true,
       5, 0, true},
      {"within a rack, VC owns a rack", "B", "RACK", "", false, 2, 8, kV100, true, 5, 0, false},
      {"within a rack, opportunistic", "", "RACK", "", false, 2, 8, kV100, true, 5, 0, false},
      {"each pod within a socket", "A", "", "SOCKET", false, 2, 2, kV100, true, 0, 3, false},
      {"each pod within a pair", "A", "", "PAIR", false, 2, 2, kV100, true, 0, 2, false},
      {"each pod within a node: no rule below the node", "A", "", "NODE", false, 2, 2, kV100, true,
       0, 0, false},
      {"distinct nodes", "A", "", "", true, 2, 4, kV100, true, 0, 0, false},
      {"both rules", "B", "RACK", "SOCKET", true, 2, 2, kV100, true, 5, 3, false},
      {"a cell type the chain lacks", "A", "SOCKET", "", false, 1, 2, kK80, false, 0, 0, false},
      {"the leaf type as the cell", "A", "K80", "", false, 1, 1, kK80, true, 1, 0, false},
  };
  return rows;
}

// The chain's index: the one with RACK cells is the V100 chain.
int ChainIndex(const Engine& e, ChainOf which) {
  hived::Request probe;
  probe.job = "probe";
  probe.within_type = "RACK";
  probe.members = {{1, 1, 0}};
  for (int c = 0; c < 2; c++) {
    hived::Constraints k;
    ck_assert(e.CompileConstraints(probe, c, &k).ok());
    if (k.usable == (which == kV100)) return c;
  }
  ck_abort_msg("no such chain");
  return -1;
}

START_TEST(compiled_per_row) {
  const Row& row = Rows()[static_cast<size_t>(_i)];
  std::unique_ptr<Engine> e = EngineFromConfig(kConfig);
  hived::Request req;
  req.job = "j";
  req.vc = row.vc;
  req.priority = row.vc[0] ? 0 : -1;
  req.within_type = row.within;
  req.pod_within_type = row.pod_within;
  req.distinct_nodes = row.distinct;
  req.members = {{row.pods, row.gpus, 0}};
  req.allowed.assign(e->NodeCount(), 1);
  req.allowed[1] = 0;
  hived::Constraints k;
  ck_assert(e->CompileConstraints(req, ChainIndex(*e, row.chain), &k).ok());
  ck_assert_msg(k.usable == row.usable, "%s: usable %d", row.name, k.usable);
  if (!row.usable) return;
  ck_assert_msg(k.within_level == row.within_level, "%s: within level %d, want %d", row.name,
                k.within_level, row.within_level);
  ck_assert_msg(k.pod_level == row.pod_level, "%s: pod level %d, want %d", row.name, k.pod_level,
                row.pod_level);
  ck_assert_msg(k.by_rack == row.by_rack, "%s: rack rule %d", row.name, k.by_rack);
  ck_assert_int_eq(k.virtual_within(), row.by_rack ? 0 : row.within_level);
  ck_assert(k.distinct_nodes == row.distinct);
  ck_assert_int_eq(k.grain, 1);  // whole GPUs of a chain without fractional levels
  ck_assert(k.allowed() == req.allowed);
  ck_assert_int_eq(k.shaped.members.size(), 1);
  ck_assert_int_eq(k.shaped.members[0].leaves, row.gpus);
}
END_TEST

START_TEST(unknown_vc_and_chain_are_errors) {
  std::unique_ptr<Engine> e = EngineFromConfig(kConfig);
  hived::Request req;
  req.job = "j";
  req.vc = "nope";
  req.members = {{1, 1, 0}};
  hived::Constraints k;
  hived::Status st = e->CompileConstraints(req, 0, &k);
  ck_assert(st.code == hived::Code::kNoEnt);
  ck_assert_msg(st.msg.find("'nope'") != std::string::npos, "%s", st.msg.c_str());
  req.vc = "A";
  st = e->CompileConstraints(req, 7, &k);
  ck_assert(st.code == hived::Code::kInval);
  ck_assert_msg(st.msg.find("chain") != std::string::npos, "%s", st.msg.c_str());
}
END_TEST

Suite* constraints_suite() {
  Suite* s = suite_create("constraints");
  TCase* tc = tcase_create("compile");
  tcase_add_loop_test(tc, compiled_per_row, 0, static_cast<int>(Rows().size()));
  tcase_add_test(tc, unknown_vc_and_chain_are_errors);
  suite_add_tcase(s, tc);
  return s;
}

}  // namespace

int main() { return check_run(constraints_suite(), CK_NORMAL, CK_FORK_GETENV); }
