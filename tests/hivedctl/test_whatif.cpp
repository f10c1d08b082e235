// SPDX-License-Identifier: GPL-2.0-or-later
// hivedctl whatif on saved states. tests/hivedctl/whatif/ holds one hived.conf
// (2 racks x 2 nodes x 8 V100; VC A owns 2 nodes, VC B 1 node + 2 sockets;
// QOS scavenger is opportunistic), the state file select/hived saves
// (hived_state.json) and the status files it writes, one per situation:
//   busy:  a1 (A, 8 GPUs), b1 (B, 4), o1 (B's opportunistic, 8)
//   full:  busy + b2 (B, 4) + o2 (opportunistic, 8): every GPU in use
//   frag:  a1 and a2 (A, 2 GPUs each) share one of A's node cells: 12 of A's
//          GPUs free, but only one node cell with 6 free
//   bad:   busy with r1n0 and r1n1 drained
//   fractions: another cluster (fractions-packing's, in eighths of an A100): shard
//          jobs of VC A and an opportunistic quarter split two GPUs; a6 waits
// They were written by this program (test_whatif --write-fixtures DIR) from the
// engine itself, in the format src/slurm/hived_status.c writes.
#include <jansson.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <functional>
#include <string>
#include <vector>

// After the C++ headers: check.h defines a fail() macro.
#include <check.h>

#include "../check_run.h"
#include "hived.h"
#include "hivedctl_access.h"
#include "hivedctl_model.h"
#include "hivedctl_views.h"
#include "hivedctl_whatif.h"

using namespace hivedctl;

// ck_assert_str_eq on a std::string a call returns: the string must outlive the
// check (a temporary's c_str() dangles once the macro's first statement ends).
#define ck_str_eq(expr, want)             \
  do {                                    \
    const std::string got_ = (expr);      \
    ck_assert_str_eq(got_.c_str(), want); \
  } while (0)

namespace {

const int64_t kWritten = 1795275964;  // the fixtures' "written" time

std::string Read(const std::string& name) {
  std::ifstream in(std::string(HIVEDCTL_FIXTURES) + "/whatif/" + name);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool Has(const std::string& text, const std::string& want) {
  return text.find(want) != std::string::npos;
}

#define ck_has(text, want)                                                            \
  ck_assert_msg(Has(text, want), "missing \"%s\" in:\n%s", std::string(want).c_str(), \
                std::string(text).c_str())

struct JsonDel {
  void operator()(json_t* j) const { json_decref(j); }
};

// One whatif against a saved situation; the answer parsed.
struct Answer {
  int rc = -1;
  std::string json, err, text;
  std::unique_ptr<json_t, JsonDel> root;
  // Owned by root: valid inside Check's macros, which keep the pointer.
  const char* S(const char* key) const {
    const char* s = json_string_value(json_object_get(root.get(), key));
    return s ? s : "";
  }
  json_t* Get(const char* key) const { return json_object_get(root.get(), key); }
};

// One whatif against engine e (freed here), built from config.
// tweak: what hivedctl fills in from scontrol and the environment (the partition).
Answer AskEngine(hived_engine* e, const std::string& config, std::vector<std::string> args,
                 const std::string& ends, const std::vector<std::string>& partition_nodes = {},
                 const std::function<void(WhatifAsk*)>& tweak = nullptr) {
  Answer a;
  std::string err;
  char* before = nullptr;
  ck_assert_int_eq(hived_snapshot(e, &before), HIVED_OK);

  WhatifAsk ask;
  std::vector<char*> argv;
  args.insert(args.begin(), "hivedctl");
  for (auto& s : args) argv.push_back(&s[0]);
  for (int i = 1; i < static_cast<int>(argv.size()); i++)
    ck_assert_msg(TakeWhatifOption(static_cast<int>(argv.size()), argv.data(), &i, &ask, &err) == 1,
                  "option %s: %s", argv[i], err.c_str());
  ask.partition_nodes = partition_nodes;  // hivedctl asks scontrol for them
  if (tweak) tweak(&ask);
  a.rc = Whatif(e, config, ask, ParseEnds(ends), kWritten, &a.json, &a.err);

  // The engine it asked is as it was: a whatif changes nothing.
  char* after = nullptr;
  ck_assert_int_eq(hived_snapshot(e, &after), HIVED_OK);
  ck_assert_str_eq(before, after);
  free(before);
  free(after);
  hived_engine_free(e);
  if (a.rc == 0) {
    a.root.reset(json_loads(a.json.c_str(), 0, nullptr));
    ck_assert_msg(a.root != nullptr, "not JSON: %s", a.json.c_str());
    a.text = WhatifText(a.json, kWritten);
  }
  return a;
}

Answer Ask(const char* situation, std::vector<std::string> args, const std::string& ends = "") {
  Status st;
  std::string err;
  ck_assert_msg(Parse(Read(std::string("status-") + situation + ".json"), &st, &err), "%s",
                err.c_str());
  const std::string config = WhatifConfig(st, Read("hived_state.json"), &err);
  ck_assert_msg(!config.empty(), "%s", err.c_str());
  hived_engine* e = nullptr;
  ck_assert_msg(WhatifEngine(st, config, &e, &err), "%s", err.c_str());
  return AskEngine(e, config, std::move(args), ends);
}

int64_t EstimateStart(const Answer& a) {
  json_t* s = json_object_get(a.Get("estimate"), "start");
  return json_is_integer(s) ? json_integer_value(s) : -1;
}

// Nodes of a placement, in order.
std::string Nodes(json_t* placement) {
  std::string out;
  size_t i;
  json_t* p;
  json_array_foreach(placement, i, p) {
    out += std::string(i ? "," : "") + json_string_value(json_object_get(p, "node"));
  }
  return out;
}

START_TEST(test_starts_now) {
  Answer a = Ask("busy", {"-A", "A", "--gpus-per-node=8"});
  ck_assert_int_eq(a.rc, 0);
  ck_assert(json_is_true(a.Get("startsNow")));
  ck_assert_str_eq(a.S("cause"), "none");
  ck_assert_str_eq(a.S("class"), "guaranteed");
  ck_assert_int_eq(json_integer_value(a.Get("vcFreeGpus")), 8);
  // A's free node cell binds to the idle node, not to o1's.
  const std::string nodes = Nodes(a.Get("placement"));
  ck_assert_str_eq(nodes.c_str(), "r1n1");
  ck_assert_int_eq(json_array_size(a.Get("preempts")), 0);
  ck_has(a.text, "Starts now on r1n1:0-7");
  // The account is matched as Slurm matches accounts: case-insensitively.
  Answer b = Ask("busy", {"--account=a", "--gres=gpu:v100:2"});
  ck_assert_int_eq(b.rc, 0);
  ck_assert_str_eq(b.S("vc"), "A");
  ck_assert(json_is_true(b.Get("startsNow")));
}
END_TEST

START_TEST(test_vc_quota_in_use_and_estimate) {
  // A holds a1 on one of its two node cells: two nodes more must wait for a1.
  const std::string ends = "1|" + std::to_string(kWritten + 7200) + "\n" + "a1|" +
                           std::to_string(kWritten + 3600) + "\n" + "o1|N/A\n";
  Answer a = Ask("busy", {"-A", "A", "-N", "2", "--gpus-per-node", "8"}, ends);
  ck_assert_int_eq(a.rc, 0);
  ck_assert(json_is_false(a.Get("startsNow")));
  ck_assert_str_eq(a.S("cause"), "vcQuotaInUse");
  ck_has(a.S("reason"), "quota is in use: 8 free GPUs in its cells, the job needs 16");
  ck_assert_int_eq(EstimateStart(a), kWritten + 3600);
  json_t* after = json_object_get(a.Get("estimate"), "afterJobs");
  ck_assert_int_eq(json_array_size(after), 1);
  ck_assert_str_eq(json_string_value(json_array_get(after, 0)), "a1");
  ck_has(a.text, "Waits: the VC's quota is in use");
  ck_has(a.text, "after job a1 ends");
  // Without end times there is no estimate, and the answer says why.
  Answer b = Ask("busy", {"-A", "A", "-N", "2", "--gpus-per-node", "8"});
  ck_assert_int_eq(EstimateStart(b), -1);
  ck_has(b.text, "no known end time");
  // sbatch's glued short options ask the same.
  Answer c = Ask("busy", {"-AA", "-N2", "--gpus-per-node", "8"});
  ck_assert_int_eq(c.rc, b.rc);
  ck_assert_str_eq(c.json.c_str(), b.json.c_str());
}
END_TEST

START_TEST(test_fragmented) {
  Answer a =
      Ask("frag", {"-A", "A", "-N", "2", "--gpus-per-node=6"},
          "a2|" + std::to_string(kWritten + 600) + "\na1|" + std::to_string(kWritten + 300) + "\n");
  ck_assert_int_eq(a.rc, 0);
  ck_assert(json_is_false(a.Get("startsNow")));
  ck_assert_int_eq(json_integer_value(a.Get("vcFreeGpus")), 12);
  ck_assert_str_eq(a.S("cause"), "fragmented");
  ck_has(a.text, "fragmented");
  // Once a1 ends, its node cell has 6 GPUs free beside a2's.
  ck_assert_int_eq(EstimateStart(a), kWritten + 300);
  json_t* after = json_object_get(a.Get("estimate"), "afterJobs");
  ck_assert_int_eq(json_array_size(after), 1);
  ck_has(a.text, "after job a1 ends");
}
END_TEST

START_TEST(test_preempts_opportunistic) {
  Answer a = Ask("full", {"-A", "A", "--gpus-per-node=8"});
  ck_assert_int_eq(a.rc, 0);
  ck_assert(json_is_true(a.Get("startsNow")));
  json_t* pre = a.Get("preempts");
  ck_assert_int_eq(json_array_size(pre), 1);
  json_t* v = json_array_get(pre, 0);
  const std::string victim = json_string_value(json_object_get(v, "job"));
  ck_assert_msg(victim == "o1" || victim == "o2", "victim %s", victim.c_str());
  ck_assert_str_eq(json_string_value(json_object_get(v, "class")), "opportunistic");
  ck_assert_int_eq(json_integer_value(json_object_get(v, "gpus")), 8);
  ck_has(a.text, "Preempts:\n  job " + victim);
  // With lazy preemption asked of nobody, the victim is killed, not demoted.
  ck_assert(json_is_false(json_object_get(v, "lazy")));
}
END_TEST

// A's 2-node job in the full cluster fits once a1 ends (+300), on a1's node and on
// one of the opportunistic jobs' nodes. The VC's guarantee answers the estimate, so
// the opportunistic jobs are not ended in it; both end before +300, so the estimate
// names no victim (whatif.cpp leaves out victims gone by the start).
START_TEST(test_estimate_without_gone_victims) {
  const std::string at = [](int64_t d) { return std::to_string(kWritten + d); }(100);
  Answer a = Ask("full", {"-A", "A", "-N", "2", "--gpus-per-node=8"},
                 "a1|" + std::to_string(kWritten + 300) + "\no1|" + at + "\no2|" + at + "\n");
  ck_assert_int_eq(a.rc, 0);
  ck_assert(json_is_false(a.Get("startsNow")));
  ck_assert_int_eq(EstimateStart(a), kWritten + 300);
  json_t* est = a.Get("estimate");
  ck_assert_int_eq(json_array_size(json_object_get(est, "afterJobs")), 3);
  ck_assert_msg(json_array_size(json_object_get(est, "preempts")) == 0,
                "victims that end before the start: %s", a.json.c_str());
}
END_TEST

START_TEST(test_larger_than_vc) {
  Answer a = Ask("busy", {"-A", "B", "-N", "3", "--gpus-per-node=8"},
                 "b1|" + std::to_string(kWritten + 60) + "\n");
  ck_assert_int_eq(a.rc, 0);
  ck_assert_str_eq(a.S("cause"), "largerThanVc");
  ck_assert_int_eq(EstimateStart(a), -1);
  ck_has(a.text, "larger than its VC");
  ck_has(a.text, "quota grows");
}
END_TEST

START_TEST(test_no_healthy_cell) {
  Answer a = Ask("bad", {"-A", "A", "--gpus-per-node=8"});
  ck_assert_int_eq(a.rc, 0);
  ck_assert(json_is_false(a.Get("startsNow")));
  ck_assert_str_eq(a.S("cause"), "noHealthyCell");
  ck_assert_int_ge(json_integer_value(a.Get("doomedCells")), 1);
  ck_has(a.text, "no healthy cell");
}
END_TEST

START_TEST(test_opportunistic_qos) {
  // scavenger is an opportunistic QOS: idle GPUs only, and the cluster is full.
  const std::string ends =
      "o2|" + std::to_string(kWritten + 120) + "\na1|" + std::to_string(kWritten + 60) + "\n";
  Answer a = Ask("full", {"-A", "A", "-q", "scavenger", "--gpus=4"}, ends);
  ck_assert_int_eq(a.rc, 0);
  ck_assert_str_eq(a.S("class"), "opportunistic");
  ck_assert_str_eq(a.S("cause"), "noIdleCell");
  ck_assert_int_eq(EstimateStart(a), kWritten + 60);
  // --hived-opportunistic lowers a guaranteed QOS the same way; idle GPUs: starts.
  Answer b = Ask("busy", {"-A", "A", "--hived-opportunistic", "--gpus=4"});
  ck_assert_str_eq(b.S("class"), "opportunistic");
  ck_assert(json_is_true(b.Get("startsNow")));
}
END_TEST

// --exclusive: Slurm gives the job every GPU of its nodes, so each pod is a whole
// node cell of the VC. A has 8 free GPUs in "busy": one exclusive node, not two.
START_TEST(test_exclusive_takes_whole_nodes) {
  Answer a = Ask("busy", {"-A", "A", "--gres=gpu:2", "--exclusive"});
  ck_assert_int_eq(a.rc, 0);
  ck_assert(json_is_true(a.Get("startsNow")));
  ck_has(a.text, "Starts now on r1n1:0-7");
  Answer b = Ask("busy", {"-A", "A", "-N2", "--gpus-per-node=1", "--exclusive"});
  ck_assert_int_eq(b.rc, 0);
  ck_assert(json_is_false(b.Get("startsNow")));
  ck_has(b.S("reason"), "the job needs 16");
  // Without --exclusive the same two pods fit A's 8 free GPUs.
  Answer c = Ask("busy", {"-A", "A", "-N2", "--gpus-per-node=1"});
  ck_assert_int_eq(c.rc, 0);
  ck_assert_msg(!strstr(c.S("reason"), "the job needs 16"), "%s", c.S("reason"));
  // A GPU count without -N takes whole nodes too, never split.
  Answer d = Ask("busy", {"-A", "A", "--gpus=9", "--exclusive"});
  ck_assert_int_eq(d.rc, 0);
  ck_has(d.S("reason"), "the job needs 16");
  WhatifAsk ask;
  std::string err;
  char* argv[] = {const_cast<char*>("hivedctl"), const_cast<char*>("--exclusive=user")};
  int i = 1;
  ck_assert_int_eq(TakeWhatifOption(2, argv, &i, &ask, &err), -1);
  ck_has(err, "--exclusive takes no value");
}
END_TEST

// Nodes of two sizes: VC small owns the two 4-GPU V100 nodes, big the 8-GPU A100
// node. An exclusive job gets every GPU of the node it lands on, so its whole node
// is of the largest node it could be given: its VC's, or of its GPU model.
const char kMixedPhysical[] = R"("physicalCluster": {
  "cellTypes": {
    "V100-NODE": {"childCellType": "V100", "childCellNumber": 4, "isNodeLevel": true},
    "A100-NODE": {"childCellType": "A100", "childCellNumber": 8, "isNodeLevel": true}},
  "physicalCells": [{"cellType": "V100-NODE", "cellAddress": "v0"},
                    {"cellType": "V100-NODE", "cellAddress": "v1"},
                    {"cellType": "A100-NODE", "cellAddress": "a0"}]})";
const std::string kMixedConfig = std::string("{") + kMixedPhysical + R"(,
 "virtualClusters": {"small": {"virtualCells": [{"cellType": "V100-NODE", "cellNumber": 2}]},
                     "big": {"virtualCells": [{"cellType": "A100-NODE", "cellNumber": 1}]}}})";

Answer AskMixed(std::vector<std::string> args, const std::vector<std::string>& partition_nodes = {},
                const std::function<void(WhatifAsk*)>& tweak = nullptr) {
  hived_engine* e = nullptr;
  char err[512] = "";
  ck_assert_msg(hived_engine_new(kMixedConfig.c_str(), &e, err, sizeof err) == HIVED_OK, "%s", err);
  return AskEngine(e, kMixedConfig, std::move(args), "", partition_nodes, tweak);
}

// The first pod's GPU count.
size_t FirstPodGpus(const Answer& a) {
  return json_array_size(json_object_get(json_array_get(a.Get("placement"), 0), "leaves"));
}

// One node with two GPU models (chains of their own): 8 A100s and 4 V100s on m0. VC v
// owns the V100 node cell: its exclusive job is that cell, on m0, though m0's
// largest cell is the A100s'.
const char kTwoModelConfig[] = R"({"physicalCluster": {
  "cellTypes": {
    "V100-NODE": {"childCellType": "V100", "childCellNumber": 4, "isNodeLevel": true},
    "A100-NODE": {"childCellType": "A100", "childCellNumber": 8, "isNodeLevel": true}},
  "physicalCells": [{"cellType": "A100-NODE", "cellAddress": "m0"},
                    {"cellType": "V100-NODE", "cellAddress": "m0",
                     "cellChildren": [{"cellAddress": "8"}, {"cellAddress": "9"},
                                      {"cellAddress": "10"}, {"cellAddress": "11"}]}]},
 "virtualClusters": {"v": {"virtualCells": [{"cellType": "V100-NODE", "cellNumber": 1}]}}})";

START_TEST(test_exclusive_on_a_node_of_two_models) {
  hived_engine* e = nullptr;
  char err[512] = "";
  ck_assert_msg(hived_engine_new(kTwoModelConfig, &e, err, sizeof err) == HIVED_OK, "%s", err);
  ck_assert_int_eq(hived_node_cell_leaves(e, 0, nullptr), 8);
  ck_assert_int_eq(hived_whole_node_leaves(e, "v", nullptr, nullptr), 4);
  ck_assert_int_eq(hived_is_node_cell_size(e, 0, 4, nullptr), 1);
  ck_assert_int_eq(hived_is_node_cell_size(e, 0, 4, "A100"), 0);
  // Its smaller size: none, as m0's pod (any model) is of 8, already tried; of
  // V100s, m0's V100 cell.
  uint8_t sized[1] = {7};
  ck_assert_int_eq(hived_next_whole_node_leaves(e, nullptr, nullptr, nullptr, 8, sized), 0);
  ck_assert_int_eq(sized[0], 7);
  ck_assert_int_eq(hived_next_whole_node_leaves(e, nullptr, "V100", nullptr, 8, sized), 4);
  ck_assert_int_eq(sized[0], 1);
  Answer a = AskEngine(e, kTwoModelConfig, {"-A", "v", "--gres=gpu:1", "--exclusive"}, "");
  ck_assert_int_eq(a.rc, 0);
  ck_assert_msg(json_is_true(a.Get("startsNow")), "%s", a.json.c_str());
  ck_assert_uint_eq(FirstPodGpus(a), 4);
}
END_TEST

// A node with whole GPUs and MIG slices (chains of their own): n0 has 2 whole GPUs, a
// 3g and two 2g slices; n1 slices only. VC C owns n0's whole GPUs.
const char kMigConfig[] = R"({"physicalCluster": {
  "cellTypes": {
    "A100-NODE": {"childCellType": "a100", "childCellNumber": 2, "isNodeLevel": true},
    "A100-3G-NODE": {"childCellType": "a100_3g.20gb", "childCellNumber": 1, "isNodeLevel": true,
                     "childIsMigSlice": true},
    "A100-2G-NODE": {"childCellType": "a100_2g.10gb", "childCellNumber": 2, "isNodeLevel": true,
                     "childIsMigSlice": true}},
  "physicalCells": [
    {"cellType": "A100-NODE", "cellAddress": "n0", "cellChildren": [{"cellAddress": "0"}, {"cellAddress": "4"}]},
    {"cellType": "A100-3G-NODE", "cellAddress": "n0", "cellChildren": [{"cellAddress": "1"}]},
    {"cellType": "A100-2G-NODE", "cellAddress": "n0", "cellChildren": [{"cellAddress": "2"}, {"cellAddress": "3"}]},
    {"cellType": "A100-3G-NODE", "cellAddress": "n1", "cellChildren": [{"cellAddress": "0"}]},
    {"cellType": "A100-2G-NODE", "cellAddress": "n1", "cellChildren": [{"cellAddress": "1"}, {"cellAddress": "2"}]}]},
 "virtualClusters": {"C": {"virtualCells": [{"cellType": "A100-NODE", "cellNumber": 1}]}}})";

// An exclusive whole-GPU job beside MIG slices: its whole node is the node's GPU
// cell (Slurm gives it the slices too, which no HiveD pod can hold). Before, the
// node's slices were counted into the pod, which then had more GPUs than any cell.
START_TEST(test_exclusive_beside_mig_slices) {
  hived_engine* e = nullptr;
  char err[512] = "";
  ck_assert_msg(hived_engine_new(kMigConfig, &e, err, sizeof err) == HIVED_OK, "%s", err);
  ck_assert_str_eq(hived_node_name(e, 0), "n0");
  ck_assert_int_eq(hived_node_leaf_count(e, 0), 5);
  ck_assert_int_eq(hived_node_cell_leaves(e, 0, nullptr), 2);
  ck_assert_int_eq(hived_node_cell_leaves(e, 0, "a100"), 2);
  ck_assert_int_eq(hived_node_cell_leaves(e, 0, "a100_3g.20gb"), 0);
  ck_assert_int_eq(hived_node_cell_leaves(e, 1, nullptr), 0);
  ck_assert_int_eq(hived_is_node_cell_size(e, 0, 2, nullptr), 1);
  ck_assert_int_eq(hived_is_node_cell_size(e, 0, 2, "a100"), 1);
  ck_assert_int_eq(hived_is_node_cell_size(e, 0, 2, "a100_3g.20gb"), 0);
  ck_assert_int_eq(hived_is_node_cell_size(e, 0, 5, nullptr), 0);
  ck_assert_int_eq(hived_largest_node_leaves(e, nullptr, nullptr, nullptr), 2);
  ck_assert_int_eq(hived_whole_node_leaves(e, "C", nullptr, nullptr), 2);
  Answer a = AskEngine(e, kMigConfig, {"-A", "C", "--gres=gpu:1", "--exclusive"}, "");
  ck_assert_int_eq(a.rc, 0);
  ck_assert_msg(json_is_true(a.Get("startsNow")), "%s", a.json.c_str());
  ck_assert_uint_eq(FirstPodGpus(a), 2);
  ck_has(Nodes(a.Get("placement")), "n0");
}
END_TEST

START_TEST(test_exclusive_on_nodes_of_two_sizes) {
  hived_engine* e = nullptr;
  char err[512] = "";
  ck_assert_msg(hived_engine_new(kMixedConfig.c_str(), &e, err, sizeof err) == HIVED_OK, "%s", err);
  ck_assert_int_eq(hived_largest_node_leaves(e, nullptr, nullptr, nullptr), 8);
  ck_assert_int_eq(hived_largest_node_leaves(e, "small", nullptr, nullptr), 4);
  ck_assert_int_eq(hived_largest_node_leaves(e, "big", nullptr, nullptr), 8);
  ck_assert_int_eq(hived_largest_node_leaves(e, nullptr, "V100", nullptr), 4);
  ck_assert_int_eq(hived_largest_node_leaves(e, "small", "A100", nullptr), 0);
  ck_assert_int_eq(hived_largest_node_leaves(e, "nope", nullptr, nullptr), 0);
  // Nodes a job may use (select/hived: its partition's): v0, v1 | a0.
  ck_assert_str_eq(hived_node_name(e, 2), "a0");
  const uint8_t v_nodes[3] = {1, 1, 0}, a_node[3] = {0, 0, 1};
  ck_assert_int_eq(hived_largest_node_leaves(e, nullptr, nullptr, v_nodes), 4);
  ck_assert_int_eq(hived_largest_node_leaves(e, "big", nullptr, v_nodes), 0);
  ck_assert_int_eq(hived_largest_node_leaves(e, "small", nullptr, a_node), 0);
  // Whole-node pods: an opportunistic job in a partition of 4-GPU nodes asks 4
  // (before: the largest node anywhere, 8, which no node of its partition is).
  ck_assert_int_eq(hived_whole_node_leaves(e, nullptr, nullptr, v_nodes), 4);
  ck_assert_int_eq(hived_whole_node_leaves(e, "small", nullptr, v_nodes), 4);
  // None of its VC's there: the largest it may use, then anywhere (the engine refuses).
  ck_assert_int_eq(hived_whole_node_leaves(e, "small", nullptr, a_node), 8);
  ck_assert_int_eq(hived_whole_node_leaves(e, "small", "A100", nullptr), 8);
  ck_assert_int_eq(hived_whole_node_leaves(e, "big", nullptr, v_nodes), 4);
  const uint8_t none[3] = {0, 0, 0};
  ck_assert_int_eq(hived_whole_node_leaves(e, "big", nullptr, none), 8);
  // Sizes below the largest, each once, with the nodes of each.
  uint8_t sized[3] = {9, 9, 9};
  auto is = [&](int v0, int v1, int a0) {
    return sized[0] == v0 && sized[1] == v1 && sized[2] == a0;
  };
  ck_assert_int_eq(hived_next_whole_node_leaves(e, nullptr, nullptr, nullptr, 9, sized), 8);
  ck_assert(is(0, 0, 1));
  ck_assert_int_eq(hived_next_whole_node_leaves(e, nullptr, nullptr, nullptr, 8, sized), 4);
  ck_assert(is(1, 1, 0));
  sized[0] = 9;
  ck_assert_int_eq(hived_next_whole_node_leaves(e, nullptr, nullptr, nullptr, 4, sized), 0);
  ck_assert_int_eq(sized[0], 9);  // untouched when there is none
  ck_assert_int_eq(hived_next_whole_node_leaves(e, "small", nullptr, nullptr, 8, sized), 4);
  ck_assert_int_eq(hived_next_whole_node_leaves(e, "big", nullptr, nullptr, 8, sized), 0);
  ck_assert_int_eq(hived_next_whole_node_leaves(e, nullptr, nullptr, a_node, 8, sized), 0);
  const uint8_t v1_a0[3] = {0, 1, 1};
  ck_assert_int_eq(hived_next_whole_node_leaves(e, nullptr, nullptr, v1_a0, 8, sized), 4);
  ck_assert(is(0, 1, 0));
  ck_assert_int_eq(hived_next_whole_node_leaves(e, "nope", nullptr, nullptr, 8, sized), 0);
  ck_assert_int_eq(hived_next_whole_node_leaves(nullptr, nullptr, nullptr, nullptr, 8, sized), 0);
  hived_engine_free(e);
  // small's exclusive job: one of its 4-GPU nodes (before: asked 8, larger than small).
  Answer a = AskMixed({"-A", "small", "--gres=gpu:2", "--exclusive"});
  ck_assert_int_eq(a.rc, 0);
  ck_assert_msg(json_is_true(a.Get("startsNow")), "%s", a.json.c_str());
  ck_assert_uint_eq(FirstPodGpus(a), 4);
  ck_has(Nodes(a.Get("placement")), "v");
  // Two of them: both V100 nodes, whole.
  Answer b = AskMixed({"-A", "small", "--gpus=6", "--exclusive"});
  ck_assert_int_eq(b.rc, 0);
  ck_assert_msg(json_is_true(b.Get("startsNow")), "%s", b.json.c_str());
  const std::string b_nodes = Nodes(b.Get("placement"));
  ck_assert_str_eq(b_nodes.c_str(), "v0,v1");
  // No VC: the largest node anywhere; of the model asked, when it names one.
  Answer c = AskMixed({"-A", "nobody", "--gres=gpu:2", "--exclusive"});
  ck_assert_int_eq(c.rc, 0);
  const std::string c_nodes = Nodes(c.Get("placement"));
  ck_assert_str_eq(c_nodes.c_str(), "a0");
  ck_assert_uint_eq(FirstPodGpus(c), 8);
  Answer d = AskMixed({"-A", "nobody", "--gres=gpu:V100:2", "--exclusive"});
  ck_assert_int_eq(d.rc, 0);
  ck_has(Nodes(d.Get("placement")), "v");
  ck_assert_uint_eq(FirstPodGpus(d), 4);
}
END_TEST

// Each {option, value} is refused with a message that names the option.
void ExpectBadOptions(const std::vector<std::pair<std::string, std::string>>& bad) {
  for (auto p : bad) {
    WhatifAsk ask;
    std::string err;
    char* argv[] = {const_cast<char*>("hivedctl"), &p.first[0], &p.second[0]};
    int i = 1;
    ck_assert_int_eq(TakeWhatifOption(3, argv, &i, &ask, &err), -1);
    ck_has(err, p.first);
  }
}

// An exclusive job whose largest whole nodes are taken starts on a smaller node
// it may use, as select/hived starts it (_smaller_whole_nodes) and cons_tres
// would: VC "both" owns an A100 node (8) and a V100 node (4). Before, whatif
// (and slurmctld) said it waits for an 8-GPU node.
START_TEST(test_exclusive_takes_a_smaller_node) {
  const std::string kBoth = std::string("{") + kMixedPhysical + R"(,
 "virtualClusters": {"both": {"virtualCells": [{"cellType": "V100-NODE", "cellNumber": 1},
                                               {"cellType": "A100-NODE", "cellNumber": 1}]}}})";
  // A running job of `gpus` GPUs on one node, guaranteed in vc (nullptr:
  // opportunistic); the node's name.
  auto run_on = [](hived_engine* e, const char* job, const char* vc, int32_t gpus) {
    hived_member m{1, gpus, 0};
    hived_job_request r{};
    r.job = job;
    r.vc = vc;
    r.priority = vc ? 0 : HIVED_PRIORITY_OPPORTUNISTIC;
    r.members = &m;
    r.n_members = 1;
    r.distinct_nodes = 1;
    const hived_decision* d = nullptr;
    ck_assert_int_eq(hived_submit(e, &r, 0, &d), HIVED_OK);
    ck_assert_int_eq(d->outcome, HIVED_PLACED);
    return std::string(hived_node_name(e, d->pods[0].node));
  };
  auto with_a0_taken = [&](const std::string& config, const char* vc) {
    hived_engine* e = nullptr;
    char eb[512] = "";
    ck_assert_msg(hived_engine_new(config.c_str(), &e, eb, sizeof eb) == HIVED_OK, "%s", eb);
    ck_str_eq(run_on(e, "on-a0", vc, 8), "a0");
    return e;
  };
  // Guaranteed: its V100 node cell, 4 GPUs of its 12 (8 are on a0).
  Answer a = AskEngine(with_a0_taken(kBoth, "both"), kBoth,
                       {"-A", "both", "--gres=gpu:1", "--exclusive"}, "");
  ck_assert_int_eq(a.rc, 0);
  ck_assert_msg(json_is_true(a.Get("startsNow")), "%s", a.json.c_str());
  ck_assert_uint_eq(FirstPodGpus(a), 4);
  ck_has(Nodes(a.Get("placement")), "v");
  // Opportunistic: an idle 4-GPU node.
  Answer b = AskEngine(with_a0_taken(kMixedConfig, "big"), kMixedConfig,
                       {"-A", "nobody", "--gres=gpu:2", "--exclusive"}, "");
  ck_assert_int_eq(b.rc, 0);
  ck_assert_msg(json_is_true(b.Get("startsNow")), "%s", b.json.c_str());
  ck_assert_uint_eq(FirstPodGpus(b), 4);
  // Two whole nodes: both 4-GPU ones.
  Answer c = AskEngine(with_a0_taken(kMixedConfig, "big"), kMixedConfig,
                       {"-A", "nobody", "-N2", "--gres=gpu:1", "--exclusive"}, "");
  ck_assert_int_eq(c.rc, 0);
  ck_assert_msg(json_is_true(c.Get("startsNow")), "%s", c.json.c_str());
  const std::string c_nodes = Nodes(c.Get("placement"));
  ck_assert_str_eq(c_nodes.c_str(), "v0,v1");
  // Nothing smaller free either: the answer is the largest size's wait.
  Answer d = AskEngine(with_a0_taken(kMixedConfig, "big"), kMixedConfig,
                       {"-A", "nobody", "-N3", "--gres=gpu:1", "--exclusive"}, "");
  ck_assert_int_eq(d.rc, 0);
  ck_assert_msg(!json_is_true(d.Get("startsNow")), "%s", d.json.c_str());
  ck_assert_uint_eq(FirstPodGpus(d), 0);
  // a0 runs opportunistic work: "both" takes its free V100 node rather than
  // preempt it there, as cons_tres would take a free node first.
  Answer p = AskEngine(with_a0_taken(kBoth, nullptr), kBoth,
                       {"-A", "both", "--gres=gpu:1", "--exclusive"}, "");
  ck_assert_int_eq(p.rc, 0);
  ck_assert_msg(json_is_true(p.Get("startsNow")) && !json_array_size(p.Get("preempts")), "%s",
                p.json.c_str());
  ck_assert_uint_eq(FirstPodGpus(p), 4);
  // -p of a0 alone: no smaller node, so it preempts there.
  Answer q = AskEngine(with_a0_taken(kBoth, nullptr), kBoth,
                       {"-A", "both", "--gres=gpu:1", "--exclusive", "-p", "a"}, "", {"a0"});
  ck_assert_msg(json_is_true(q.Get("startsNow")) && json_array_size(q.Get("preempts")) == 1, "%s",
                q.json.c_str());
  ck_assert_uint_eq(FirstPodGpus(q), 8);
  // Every node taken: a0 for an hour, the 4-GPU nodes for ten minutes. The job
  // waits for the largest size's reason, with the earliest estimate of any size
  // (select/hived's _will_run_nodes): a 4-GPU node in ten minutes. Before, an hour.
  hived_engine* e = with_a0_taken(kMixedConfig, "big");
  ck_str_eq(run_on(e, "on-v0", nullptr, 4), "v0");
  ck_str_eq(run_on(e, "on-v1", nullptr, 4), "v1");
  const std::string ends = "on-a0|" + std::to_string(kWritten + 3600) + "\non-v0|" +
                           std::to_string(kWritten + 600) + "\non-v1|" +
                           std::to_string(kWritten + 900) + "\n";
  Answer w = AskEngine(e, kMixedConfig, {"-A", "nobody", "--gres=gpu:1", "--exclusive"}, ends);
  ck_assert_int_eq(w.rc, 0);
  ck_assert_msg(!json_is_true(w.Get("startsNow")), "%s", w.json.c_str());
  ck_assert_str_eq(w.S("cause"), "noIdleCell");
  json_t* est = w.Get("estimate");
  ck_assert_int_eq(json_integer_value(json_object_get(est, "start")), kWritten + 600);
  const std::string est_nodes = Nodes(json_object_get(est, "placement"));
  ck_assert_str_eq(est_nodes.c_str(), "v0");
}
END_TEST

// -p, -w and -x as select/hived takes them: the partition's nodes, within -w,
// without -x. Before, whatif placed every job on any node and sized an exclusive
// job by the largest node anywhere.
START_TEST(test_partition_and_node_lists) {
  const std::vector<std::string> v100s = {"v0", "v1"};
  // An opportunistic exclusive job in a partition of the 4-GPU nodes: one, whole.
  Answer a = AskMixed({"-A", "nobody", "--gres=gpu:2", "--exclusive", "-p", "v100s"}, v100s);
  ck_assert_int_eq(a.rc, 0);
  ck_assert_msg(json_is_true(a.Get("startsNow")), "%s", a.json.c_str());
  ck_assert_uint_eq(FirstPodGpus(a), 4);
  ck_has(Nodes(a.Get("placement")), "v");
  // -x takes v0 out of it (the short option's value glued on, as sbatch allows).
  Answer b = AskMixed({"-A", "nobody", "--gres=gpu:2", "--exclusive", "-pv100s", "-xv0"}, v100s);
  ck_assert_int_eq(b.rc, 0);
  const std::string b_nodes = Nodes(b.Get("placement"));
  ck_assert_str_eq(b_nodes.c_str(), "v1");
  // -w: only the nodes listed, here a host list less -x.
  Answer c = AskMixed({"-A", "nobody", "--gres=gpu:1", "--nodelist=v[0-1]", "--exclude=v1"});
  ck_assert_int_eq(c.rc, 0);
  const std::string c_nodes = Nodes(c.Get("placement"));
  ck_assert_str_eq(c_nodes.c_str(), "v0");
  // big's node cell is an A100 node, which the partition does not have.
  Answer d = AskMixed({"-A", "big", "--gres=gpu:8", "-p", "v100s"}, v100s);
  ck_assert_msg(d.rc != 0 || !json_is_true(d.Get("startsNow")),
                "big's 8-GPU job starts in a partition of 4-GPU nodes: %s", d.json.c_str());
  // The same job with no partition starts on a0.
  Answer d2 = AskMixed({"-A", "big", "--gres=gpu:8"});
  ck_assert_int_eq(d2.rc, 0);
  const std::string d2_nodes = Nodes(d2.Get("placement"));
  ck_assert_str_eq(d2_nodes.c_str(), "a0");
  // A -w node without cells is named.
  Answer e = AskMixed({"-A", "big", "--gres=gpu:1", "-w", "zz1"});
  ck_assert_int_eq(e.rc, 1);
  ck_has(e.err, "--nodelist: node 'zz1' has no HiveD cells");

  ExpectBadOptions(
      {{"-p", "a,,b"}, {"--partition", "a,"}, {"-w", "n[1-"}, {"--exclude", "x[3-1]"}});
}
END_TEST

// Without -p, hivedctl asks scontrol for the default partition, as sbatch goes
// there: its nodes bound the job and the answer names it. Before, whatif
// considered every node and said nothing of partitions.
START_TEST(test_default_partition) {
  auto v100s_default = [](WhatifAsk* ask) {
    ask->partition = "v100s";
    ask->partition_from = "default";
  };
  Answer a = AskMixed({"-A", "nobody", "--gres=gpu:2", "--exclusive"}, {"v0", "v1"}, v100s_default);
  ck_assert_int_eq(a.rc, 0);
  ck_assert_uint_eq(FirstPodGpus(a), 4);
  ck_has(Nodes(a.Get("placement")), "v");
  ck_assert_str_eq(a.S("partition"), "v100s");
  ck_assert_str_eq(a.S("partitionFrom"), "default");
  ck_has(a.text, "Partition v100s (the default)\n");
  // A default partition of Nodes=ALL: every node, the largest of them whole.
  Answer b = AskMixed({"-A", "nobody", "--gres=gpu:2", "--exclusive"}, {}, [](WhatifAsk* ask) {
    ask->partition = "all";
    ask->partition_from = "SBATCH_PARTITION";
    ask->partition_all = true;
  });
  ck_assert_int_eq(b.rc, 0);
  ck_assert_uint_eq(FirstPodGpus(b), 8);
  ck_assert_str_eq(b.S("partitionFrom"), "SBATCH_PARTITION");
  ck_has(b.text, "Partition all (SBATCH_PARTITION)\n");
  // -p's partition is named without a source; no partition, no key.
  Answer c = AskMixed({"-A", "nobody", "--gres=gpu:1", "-p", "v100s"}, {"v0", "v1"});
  ck_assert_str_eq(c.S("partitionFrom"), "option");
  ck_has(c.text, "Partition v100s\n");
  Answer d = AskMixed({"-A", "nobody", "--gres=gpu:1"});
  ck_assert_msg(!d.Get("partition") && d.text.find("Partition") == std::string::npos, "%s",
                d.json.c_str());
}
END_TEST

// A partition whose AllowAccounts/AllowQos (or Deny twins) keep the job out:
// slurmctld never asks select/hived to start it there. Before, whatif answered
// from the cells alone: "starts now" in a partition the job can never run in.
START_TEST(test_partition_refuses) {
  const std::string allow =
      "PartitionName=gpu AllowGroups=ALL AllowAccounts=lab,team AllowQos=high,normal "
      "Default=NO Nodes=v0,v1 PriorityTier=1";
  auto tree = [](std::vector<std::string> up) { return [up] { return up; }; };
  ck_str_eq(PartitionRefuses(allow, "team", tree({"team", "root"}), ""), "");
  // Slurm walks up the association tree: an account under lab is let in.
  ck_str_eq(PartitionRefuses(allow, "sub", tree({"sub", "lab", "root"}), ""), "");
  std::string why = PartitionRefuses(allow, "own", tree({"own", "root"}), "");
  ck_assert_str_eq(why.c_str(),
                   "partition gpu allows accounts lab,team, not own or any account above it "
                   "(AllowAccounts)");
  // No lineage: slurmctld does not check accounts (or sacctmgr does not know it).
  ck_str_eq(PartitionRefuses(allow, "own", tree({}), ""), "");
  why = PartitionRefuses(allow, "team", tree({"team"}), "scavenger");
  ck_assert_str_eq(why.c_str(), "partition gpu allows QOS high,normal, not scavenger (AllowQos)");
  ck_str_eq(PartitionRefuses(allow, "team", tree({"team"}), "HIGH"), "");
  const std::string deny =
      "PartitionName=p AllowGroups=ALL DenyAccounts=bad DenyQos=low Default=NO Nodes=ALL";
  ck_has(PartitionRefuses(deny, "bad", tree({"bad", "root"}), ""),
         "denies account bad (DenyAccounts=bad)");
  ck_has(PartitionRefuses(deny, "kid", tree({"kid", "bad", "root"}), ""),
         "denies account kid (through an account above it)");
  ck_str_eq(PartitionRefuses(deny, "good", tree({"good", "root"}), ""), "");
  ck_has(PartitionRefuses(deny, "good", tree({"good"}), "Low"), "denies QOS Low (DenyQos=low)");
  // Without account lists the association tree is not asked for at all.
  bool asked = false;
  const std::string open =
      "PartitionName=all AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL Nodes=ALL";
  ck_str_eq(PartitionRefuses(
                open, "x",
                [&] {
                  asked = true;
                  return std::vector<std::string>{"x"};
                },
                "any"),
            "");
  ck_assert(!asked);
  // AllowGroups: asked of the user's groups only when it lists some.
  std::vector<std::string> seen;
  auto none_of_mine = [&](const std::vector<std::string>& groups) {
    seen = groups;
    return false;
  };
  const std::string grouped = "PartitionName=g AllowGroups=wheel,gpu AllowAccounts=ALL Nodes=ALL";
  ck_str_eq(PartitionRefuses(grouped, "x", tree({"x"}), "", none_of_mine),
            "partition g allows groups wheel,gpu, and you are in none of them "
            "(AllowGroups)");
  ck_assert_uint_eq(seen.size(), 2);
  ck_assert_str_eq(seen[1].c_str(), "gpu");
  ck_str_eq(PartitionRefuses(grouped, "x", tree({"x"}), "",
                             [](const std::vector<std::string>&) { return true; }),
            "");
  ck_str_eq(PartitionRefuses(grouped, "x", tree({"x"}), ""), "");  // unchecked
  seen.clear();
  ck_str_eq(PartitionRefuses(open, "x", tree({"x"}), "", none_of_mine), "");
  ck_assert(seen.empty());
  ck_assert(EnforcesAssociations("associations,limits,qos,safe"));
  ck_assert(EnforcesAssociations("wckeys"));
  ck_assert(EnforcesAssociations("LIMITS"));
  ck_assert(!EnforcesAssociations("none"));
  ck_assert(!EnforcesAssociations("nojobs,nosteps"));
  ck_assert(!EnforcesAssociations(""));

  // The answer: refused there, with the partition's words, and no placement.
  Answer a = AskMixed({"-A", "small", "--gres=gpu:1", "-p", "v100s"}, {"v0", "v1"},
                      [](WhatifAsk* ask) { ask->partition_refuses = "partition v100s allows X"; });
  ck_assert_int_eq(a.rc, 0);
  ck_assert_msg(!json_is_true(a.Get("startsNow")) && !a.Get("placement") && !a.Get("estimate"),
                "%s", a.json.c_str());
  ck_assert_str_eq(a.S("outcome"), "rejected");
  ck_assert_str_eq(a.S("cause"), "partitionRefuses");
  ck_has(a.text,
         "Refused: the partition does not take its account, user or QOS\n"
         "  partition v100s allows X\n");
  ck_assert_msg(a.text.find("Estimated start") == std::string::npos, "%s", a.text.c_str());
  // In a list, the partition that takes it answers, though Slurm tries the other first.
  hived_engine* e = nullptr;
  char eb[512] = "";
  ck_assert_msg(hived_engine_new(kMixedConfig.c_str(), &e, eb, sizeof eb) == HIVED_OK, "%s", eb);
  WhatifAsk first, second;
  first.account = second.account = "small";
  first.gpus_per_node = second.gpus_per_node = 1;
  first.partition = "v100s";
  first.partition_nodes = {"v0", "v1"};
  first.partition_refuses = "partition v100s allows X";
  second.partition = "all";
  second.partition_all = true;
  std::string json, err;
  ck_assert_int_eq(WhatifPartitions(e, kMixedConfig, {first, second}, {}, kWritten, &json, &err),
                   0);
  std::unique_ptr<json_t, JsonDel> j(json_loads(json.c_str(), 0, nullptr));
  ck_assert_msg(json_is_true(json_object_get(j.get(), "startsNow")), "%s", json.c_str());
  ck_assert_str_eq(json_string_value(json_object_get(j.get(), "partition")), "all");
  // Refused by both: the first refusal.
  second.partition_refuses = "partition all allows Y";
  ck_assert_int_eq(WhatifPartitions(e, kMixedConfig, {first, second}, {}, kWritten, &json, &err),
                   0);
  j.reset(json_loads(json.c_str(), 0, nullptr));
  ck_assert_str_eq(json_string_value(json_object_get(j.get(), "reason")),
                   "partition v100s allows X");
  hived_engine_free(e);
}
END_TEST

// A job without -q gets its association's QOS as slurmctld picks it.
START_TEST(test_default_qos) {
  ck_str_eq(DefaultQos("scavenger", "normal,scavenger"), "scavenger");
  // No default: the list's only QOS, else normal.
  ck_str_eq(DefaultQos("", "high"), "high");
  ck_str_eq(DefaultQos("", "high,scavenger"), "normal");
  ck_str_eq(DefaultQos("", ""), "normal");
  // -q against the association's list, where AccountingStorageEnforce has qos.
  ck_assert(EnforcesQos("associations,limits,qos,safe"));
  ck_assert(EnforcesQos("all"));
  ck_assert(!EnforcesQos("associations,limits,safe"));
  ck_str_eq(QosRefuses("scavenger", "normal,scavenger"), "");
  ck_str_eq(QosRefuses("High", "normal,high"), "");
  ck_str_eq(QosRefuses("other", "normal,high"), "may use QOS normal,high, not other");
  ck_str_eq(QosRefuses("other", ""), "may use QOS none, not other");
}
END_TEST

// Per-job limits of the job's QOS, its partition's QOS and its association, as
// slurmctld applies them before it asks select/hived. Before, whatif answered
// "starts now" for a job that pends forever with QOSMaxGRESPerJob.
START_TEST(test_limits) {
  ck_assert_int_eq(TresValue("cpu=4,gres/gpu=8,node=2", "gres/gpu"), 8);
  ck_assert_int_eq(TresValue("cpu=4,gres/gpu:a100=2", "gres/gpu"), -1);
  ck_assert_int_eq(TresValue("gres/gpu:a100=2", "gres/gpu:a100"), 2);
  ck_assert_int_eq(TresValue("node=0", "node"), 0);
  ck_assert_int_eq(TresValue("", "node"), -1);
  ck_assert(EnforcesLimits("associations,limits,qos,safe"));
  ck_assert(EnforcesLimits("all"));
  ck_assert(!EnforcesLimits("associations,qos"));
  ck_assert(QosHasFlag("DenyOnLimit,OverPartQOS", "overpartqos"));
  ck_assert(!QosHasFlag("NoDecay", "DenyOnLimit"));
  // The partition's QOS first, unless the job's overrides it.
  auto order = QosOrder("normal", "", "part");
  ck_assert_uint_eq(order.size(), 2);
  ck_str_eq(order[0], "part");
  order = QosOrder("normal", "OverPartQOS", "part");
  ck_str_eq(order[0], "normal");
  ck_str_eq(order[1], "part");
  ck_assert_uint_eq(QosOrder("normal", "", "N/A").size(), 1);
  ck_assert_uint_eq(QosOrder("normal", "", "Normal").size(), 1);

  TresLimits normal{"QOS normal", true, "gres/gpu=4,node=1", "", ""};
  TresLimits none{"the association of u in account a", false, "", "", ""};
  JobTres job;
  job.gpus = 8;
  job.gpus_per_node = 8;
  std::string reason;
  ck_str_eq(LimitRefuses({normal}, none, job, &reason),
            "MaxTRESPerJob gres/gpu=4 of QOS normal: the job asks for 8 GPUs");
  ck_str_eq(reason, "QOSMaxGRESPerJob");
  job.gpus = job.gpus_per_node = 4;
  ck_str_eq(LimitRefuses({normal}, none, job, &reason), "");
  // Node before GPUs, as in Slurm's TRES order.
  job.nodes = 2;
  job.gpus = 8;
  ck_str_eq(LimitRefuses({normal}, none, job, &reason),
            "MaxTRESPerJob node=1 of QOS normal: the job asks for 2 nodes");
  job.gpus = 2;
  job.gpus_per_node = 1;
  ck_str_eq(LimitRefuses({normal}, none, job, &reason),
            "MaxTRESPerJob node=1 of QOS normal: the job asks for 2 nodes");
  ck_str_eq(reason, "QOSMaxNodePerJobLimit");
  // The first QOS that sets a limit decides it, even when a later one is stricter.
  TresLimits loose{"QOS part", true, "gres/gpu=16,node=4", "", ""};
  job = JobTres();
  job.gpus = job.gpus_per_node = 8;
  ck_str_eq(LimitRefuses({loose, normal}, none, job, &reason), "");
  ck_assert(!LimitRefuses({normal, loose}, none, job, &reason).empty());
  // The association's only where no QOS sets that limit.
  TresLimits assoc{"the association of u in account a", false, "gres/gpu=2", "gres/gpu=1", ""};
  ck_str_eq(LimitRefuses({loose}, assoc, job, &reason),
            "MaxTRESPerNode gres/gpu=1 of the association of u in account a: the job asks for "
            "8 GPUs per node");
  ck_str_eq(reason, "AssocMaxGRESPerNode");
  ck_str_eq(LimitRefuses({}, assoc, job, &reason),
            "MaxTRES gres/gpu=2 of the association of u in account a: the job asks for 8 GPUs");
  ck_str_eq(reason, "AssocMaxGRESPerJob");
  // Per node: unknown for --gpus without -N (its nodes come from the placement).
  job.gpus_per_node = -1;
  TresLimits per_node{"QOS n", true, "", "gres/gpu=4", ""};
  ck_str_eq(LimitRefuses({per_node}, none, job, &reason), "");
  job.gpus_per_node = 8;
  reason.clear();
  ck_str_eq(LimitRefuses({per_node}, none, job, &reason),
            "MaxTRESPerNode gres/gpu=4 of QOS n: the job asks for 8 GPUs per node");
  ck_str_eq(reason, "QOSMaxGRESPerNode");
  // A minimum, and a typed GPU limit that an untyped job does not count against.
  TresLimits big{"QOS big", true, "gres/gpu:a100=2", "", "gres/gpu=4"};
  job.gpus = job.gpus_per_node = 2;
  ck_str_eq(LimitRefuses({big}, none, job, &reason),
            "MinTRESPerJob gres/gpu=4 of QOS big: the job asks for 2 GPUs");
  ck_str_eq(reason, "QOSMinGRES");
  job.gpus = job.gpus_per_node = 4;
  ck_str_eq(LimitRefuses({big}, none, job, &reason), "");
  job.gpu_type = "a100";
  ck_str_eq(LimitRefuses({big}, none, job, &reason),
            "MaxTRESPerJob gres/gpu:a100=2 of QOS big: the job asks for 4 GPUs");
  // No GPU count (--exclusive alone): only the node limits.
  job = JobTres();
  ck_str_eq(LimitRefuses({normal, big}, assoc, job, &reason), "");

  // The answer: pends with Slurm's reason, or refused under DenyOnLimit.
  auto limited = [](WhatifAsk* ask) {
    ask->limit_refuses = "MaxTRESPerJob gres/gpu=4 of QOS normal: the job asks for 8 GPUs";
    ask->limit_reason = "QOSMaxGRESPerJob";
  };
  Answer a = AskMixed({"-A", "small", "--gres=gpu:1"}, {}, limited);
  ck_assert_int_eq(a.rc, 0);
  ck_assert_msg(!json_is_true(a.Get("startsNow")) && !a.Get("placement") && !a.Get("estimate"),
                "%s", a.json.c_str());
  ck_assert_str_eq(a.S("outcome"), "waiting");
  ck_assert_str_eq(a.S("cause"), "limit");
  ck_assert_str_eq(a.S("slurmReason"), "QOSMaxGRESPerJob");
  ck_has(a.text,
         "Waits: a partition, QOS or association limit keeps it out\n"
         "  MaxTRESPerJob gres/gpu=4 of QOS normal: the job asks for 8 GPUs; it pends "
         "(QOSMaxGRESPerJob) for as long as the limit stands\n");
  ck_assert_msg(a.text.find("Estimated start") == std::string::npos, "%s", a.text.c_str());
  a = AskMixed({"-A", "small", "--gres=gpu:1"}, {}, [&](WhatifAsk* ask) {
    limited(ask);
    ask->limit_refused_by = "its QOS has DenyOnLimit (Job violates accounting/QOS policy)";
  });
  ck_assert_str_eq(a.S("outcome"), "rejected");
  ck_has(a.text, "Refused: a partition, QOS or association limit keeps it out\n");
  ck_has(a.text, "sbatch refuses it, as its QOS has DenyOnLimit");
  // A partition's node limits, unless the job's QOS lifts them.
  const std::string small =
      "PartitionName=small AllowGroups=ALL MaxNodes=2 MaxTime=UNLIMITED MinNodes=2 Nodes=v0,v1";
  ck_str_eq(PartitionNodesRefuse(small, 2, ""), "");
  ck_str_eq(PartitionNodesRefuse(small, 3, ""),
            "partition small takes jobs of at most 2 nodes (MaxNodes=2): the job asks for 3");
  ck_str_eq(PartitionNodesRefuse(small, 3, "DenyOnLimit,PartitionMaxNodes"), "");
  ck_str_eq(PartitionNodesRefuse(small, 1, ""),
            "partition small takes jobs of at least 2 nodes (MinNodes=2): the job asks for 1");
  ck_str_eq(PartitionNodesRefuse(small, 1, "PartitionMinNodes"), "");
  ck_str_eq(PartitionNodesRefuse("PartitionName=p MaxNodes=UNLIMITED MinNodes=0 Nodes=ALL", 99, ""),
            "");
  ck_assert(!EnforcesPartLimits("NO"));
  ck_assert(!EnforcesPartLimits(""));
  ck_assert(EnforcesPartLimits("ALL"));
  ck_assert(EnforcesPartLimits("ANY"));
  // A limit on usage: when enough of the jobs it counts end.
  a = AskMixed({"-A", "small", "--gres=gpu:1"}, {}, [&](WhatifAsk* ask) {
    limited(ask);
    ask->limit_reason = "QOSMaxGRESPerUser";
    ask->limit_on_usage = true;
    ask->limit_frees = kWritten + 600;
    ask->limit_after = {"7", "9"};
  });
  ck_assert_str_eq(a.S("outcome"), "waiting");
  ck_assert_int_eq(json_integer_value(json_object_get(a.Get("limitFrees"), "at")), kWritten + 600);
  ck_has(a.text, "it pends (QOSMaxGRESPerUser) until enough of them end\n");
  ck_has(a.text, " (in 10 min), when jobs 7,9 end; cells permitting\n");
  a = AskMixed({"-A", "small", "--gres=gpu:1"}, {}, [&](WhatifAsk* ask) {
    limited(ask);
    ask->limit_on_usage = true;
  });
  ck_assert(json_is_null(json_object_get(a.Get("limitFrees"), "at")));
  ck_has(a.text, "The limit frees: unknown: the jobs it counts have no end time\n");
  // A partition that refuses the job says so first.
  a = AskMixed({"-A", "small", "--gres=gpu:1", "-p", "v100s"}, {"v0", "v1"}, [&](WhatifAsk* ask) {
    limited(ask);
    ask->partition_refuses = "partition v100s allows X";
  });
  ck_assert_str_eq(a.S("cause"), "partitionRefuses");
}
END_TEST

// Time limits (-t): Slurm's time formats, a partition's MaxTime and the MaxWall of
// the first QOS that sets one, else the association's. Before, whatif took no -t
// and answered "starts now" for a job Slurm holds with PartitionTimeLimit.
START_TEST(test_time_limits) {
  ck_assert_int_eq(TimeMinutes("90"), 90);
  ck_assert_int_eq(TimeMinutes("90:30"), 91);  // seconds round up, as sbatch's
  ck_assert_int_eq(TimeMinutes("2:00:00"), 120);
  ck_assert_int_eq(TimeMinutes("1-2"), 1560);
  ck_assert_int_eq(TimeMinutes("1-2:30"), 1590);
  ck_assert_int_eq(TimeMinutes("2-00:00:01"), 2881);
  ck_assert(TimeMinutes("UNLIMITED") == kUnlimitedMinutes);
  ck_assert(TimeMinutes("infinite") == kUnlimitedMinutes);
  for (const char* bad : {"", "1:2:3:4", "x", "1-", "-5", "1:", "1h", "1-2-3"})
    ck_assert_msg(TimeMinutes(bad) == -1, "'%s' parsed", bad);
  ck_str_eq(MinutesText(1590), "1-02:30:00");
  ck_str_eq(MinutesText(45), "00:45:00");
  ck_str_eq(MinutesText(kUnlimitedMinutes), "UNLIMITED");

  const std::string part = "PartitionName=short MaxTime=04:00:00 MaxNodes=UNLIMITED";
  ck_str_eq(PartitionTimeRefuses(part, 241, ""),
            "partition short takes jobs of at most 04:00:00 (MaxTime=04:00:00): the job asks "
            "for 04:01:00");
  ck_str_eq(PartitionTimeRefuses(part, 240, ""), "");
  ck_str_eq(PartitionTimeRefuses(part, 241, "NoDecay,PartitionTimeLimit"), "");
  ck_assert(!PartitionTimeRefuses(part, kUnlimitedMinutes, "").empty());
  ck_str_eq(PartitionTimeRefuses("PartitionName=long MaxTime=UNLIMITED", kUnlimitedMinutes, ""),
            "");

  TresLimits part_qos{"QOS part", true, "", "", ""};
  TresLimits normal{"QOS normal", true, "", "", ""};
  normal.max_wall = "1-00:00:00";
  TresLimits assoc{"the association of u in account a", false, "", "", ""};
  assoc.max_wall = "02:00:00";
  std::string reason;
  ck_str_eq(WallRefuses({part_qos, normal}, assoc, 1441, &reason),
            "MaxWall 1-00:00:00 of QOS normal: the job asks for 1-00:01:00");
  ck_str_eq(reason, "QOSMaxWallDurationPerJobLimit");
  // A QOS that sets MaxWall decides it, even when the association's is shorter.
  ck_str_eq(WallRefuses({normal}, assoc, 600, &reason), "");
  ck_str_eq(WallRefuses({part_qos}, assoc, 121, &reason),
            "MaxWall 02:00:00 of the association of u in account a: the job asks for 02:01:00");
  ck_str_eq(reason, "AssocMaxWallDurationPerJobLimit");
  ck_str_eq(WallRefuses({part_qos}, TresLimits{}, kUnlimitedMinutes, &reason), "");
  ck_str_eq(WallRefuses({normal}, assoc, kUnlimitedMinutes, &reason, "it gets"),
            "MaxWall 1-00:00:00 of QOS normal: it gets UNLIMITED");

  // -t as sbatch reads it: 0 is no limit.
  WhatifAsk ask;
  std::string err;
  std::vector<std::string> args = {"hivedctl", "-t", "0", "--time=1-2", "-t90"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(&a[0]);
  int i = 1;
  ck_assert_int_eq(TakeWhatifOption(5, argv.data(), &i, &ask, &err), 1);
  ck_assert(ask.time_limit == kUnlimitedMinutes);
  i = 3;
  ck_assert_int_eq(TakeWhatifOption(5, argv.data(), &i, &ask, &err), 1);
  ck_assert_int_eq(ask.time_limit, 1560);
  i = 4;
  ck_assert_int_eq(TakeWhatifOption(5, argv.data(), &i, &ask, &err), 1);
  ck_assert_int_eq(ask.time_limit, 90);
  ExpectBadOptions({{"-t", "1:2:3:4"}, {"--time", "soon"}});
}
END_TEST

// Limits on usage: the jobs a QOS or an association counts, and when enough of
// them end. Before, whatif answered "starts now" for a job slurmctld holds with
// QOSMaxGRESPerUser.
START_TEST(test_usage_limits) {
  auto job_of = [](const char* id, const char* user, const char* account, const char* qos,
                   const char* tres, int64_t end) {
    RunningJob r;
    r.id = id;
    r.user = user;
    r.account = account;
    r.qos = qos;
    r.partition = "gpu";
    r.tres = tres;
    r.end = end;
    return r;
  };
  const std::vector<RunningJob> running = {
      job_of("1", "u", "a", "normal", "cpu=1,node=1,gres/gpu=2", 300),
      job_of("2", "u", "a", "normal", "cpu=1,node=1,gres/gpu=1", 100),
      job_of("3", "v", "a", "normal", "cpu=1,node=2,gres/gpu=4", 200),
      job_of("4", "u", "b", "high", "cpu=1,node=1,gres/gpu=8", 50)};
  TresLimits normal;
  normal.owner = "QOS normal";
  normal.is_qos = true;
  normal.name = "normal";
  TresLimits none;
  none.owner = "the association of u in account a";
  JobTres job;
  job.gpus = 2;
  auto holds = [&](const std::vector<TresLimits>& qos, const TresLimits& assoc) {
    return UsageHolds(qos, assoc, job, "u", "a", "gpu", "N/A", running);
  };
  ck_str_eq(holds({normal}, none).why, "");
  // Per user: u holds 3 GPUs in normal (not job 4's, of QOS high).
  TresLimits per_user = normal;
  per_user.per_user = "gres/gpu=4";
  UsageHold h = holds({per_user}, none);
  ck_str_eq(h.why,
            "MaxTRESPerUser gres/gpu=4 of QOS normal: user u's jobs in it hold 3 GPUs, the job "
            "asks for 2 GPUs");
  ck_str_eq(h.reason, "QOSMaxGRESPerUser");
  // Job 2 ends first (t = 100): 2 + 2 <= 4.
  ck_assert_int_eq(h.frees, 100);
  ck_assert_uint_eq(h.after.size(), 1);
  ck_str_eq(h.after[0], "2");
  per_user.per_user = "gres/gpu=5";
  ck_str_eq(holds({per_user}, none).why, "");
  // The group: every job of the QOS, the nodes too.
  TresLimits grp = normal;
  grp.grp = "node=8,gres/gpu=8";
  h = holds({grp}, none);
  ck_str_eq(h.why,
            "GrpTRES gres/gpu=8 of QOS normal: its jobs hold 7 GPUs, the job asks for 2 GPUs");
  ck_str_eq(h.reason, "QOSGrpGRES");
  ck_assert_int_eq(h.frees, 100);
  grp.grp = "node=4";
  h = holds({grp}, none);
  ck_str_eq(h.reason, "QOSGrpNodeLimit");
  ck_assert_int_eq(h.frees, 100);  // 4 nodes held, 1 asked: one must end
  // Per account, and a job without an end time: never by known end times.
  std::vector<RunningJob> endless = running;
  endless[1].end = 0;
  TresLimits per_account = normal;
  per_account.per_account = "gres/gpu=7";
  h = UsageHolds({per_account}, none, job, "u", "a", "gpu", "N/A", endless);
  ck_str_eq(h.reason, "MaxGRESPerAccount");
  ck_assert_int_eq(h.frees, 200);  // job 3 (t = 200) frees 4
  per_account.per_account = "gres/gpu=2";
  h = UsageHolds({per_account}, none, job, "u", "a", "gpu", "N/A", endless);
  ck_assert_int_eq(h.frees, 0);  // all must end, and job 2 never does
  ck_assert(h.after.empty());
  // A job over the limit alone: no end frees it.
  TresLimits tiny = normal;
  tiny.grp = "gres/gpu=1";
  h = holds({tiny}, none);
  ck_str_eq(h.why,
            "GrpTRES gres/gpu=1 of QOS normal: its jobs hold 7 GPUs, the job asks for 2 GPUs: "
            "more than the limit alone");
  ck_assert(h.never && h.request_over);
  ck_assert_int_eq(h.frees, 0);
  ck_assert(!holds({per_user}, none).never);
  TresLimits no_jobs = normal;
  no_jobs.jobs_per_user = 0;
  h = holds({no_jobs}, none);
  ck_str_eq(h.why, "MaxJobsPerUser 0 of QOS normal: it lets no job run");
  ck_assert(h.never && !h.request_over);  // sbatch checks no job count at submission
  // Job counts come first.
  TresLimits jobs = per_user;
  jobs.per_user = "gres/gpu=1";
  jobs.jobs_per_user = 2;
  h = holds({jobs}, none);
  ck_str_eq(h.why, "MaxJobsPerUser 2 of QOS normal: user u runs 2 jobs in it");
  ck_str_eq(h.reason, "QOSMaxJobsPerUserLimit");
  ck_assert_int_eq(h.frees, 100);
  // The association's MaxJobs only where no QOS sets MaxJobsPerUser.
  TresLimits assoc = none;
  assoc.jobs_per_user = 1;
  h = holds({normal}, assoc);
  ck_str_eq(h.why, "MaxJobs 1 of the association of u in account a: it runs 2 jobs");
  ck_str_eq(h.reason, "AssocMaxJobsLimit");
  TresLimits loose = normal;
  loose.jobs_per_user = 10;
  ck_str_eq(holds({loose}, assoc).why, "");
  // The partition's QOS counts the jobs in that partition, whatever their QOS.
  TresLimits part;
  part.owner = "QOS p";
  part.is_qos = true;
  part.name = "p";
  part.grp = "gres/gpu=16";
  h = UsageHolds({part}, none, job, "u", "a", "gpu", "p", running);
  ck_str_eq(h.why, "GrpTRES gres/gpu=16 of QOS p: its jobs hold 15 GPUs, the job asks for 2 GPUs");
  ck_assert_int_eq(h.frees, 50);  // job 4 (8 GPUs, QOS high) ends at t = 50
  h = UsageHolds({part}, none, job, "u", "a", "cpu", "p", running);
  ck_str_eq(h.why, "");  // the job's partition is another: only jobs of QOS p count
  // An association's GrpJobs counts every job under it: the user's in the account,
  // or the account's and its sub-accounts' (b is under a here).
  AssocTree tree;
  tree.parents = {{"a", "root"}, {"b", "a"}, {"root", ""}};
  tree.chain = {{"a", "u", 3}, {"a", "", -1}, {"root", "", -1}};
  ck_str_eq(GroupJobsHold(tree, false, running).why, "");  // u runs 2 jobs in a
  tree.chain[0].grp_jobs = 2;
  h = GroupJobsHold(tree, false, running);
  ck_str_eq(h.why, "GrpJobs 2 of the association of u in account a: 2 jobs run under it");
  ck_str_eq(h.reason, "AssocGrpJobsLimit");
  ck_assert_int_eq(h.frees, 100);                         // job 2 ends first
  ck_str_eq(GroupJobsHold(tree, true, running).why, "");  // a QOS's GrpJobs decides instead
  tree.chain[0].grp_jobs = -1;
  tree.chain[1].grp_jobs = 4;  // a: jobs 1, 2, 3 and b's job 4
  h = GroupJobsHold(tree, false, running);
  ck_str_eq(h.why, "GrpJobs 4 of account a: 4 jobs run under it");
  ck_assert_int_eq(h.frees, 50);
  ck_assert_uint_eq(h.after.size(), 1);
  tree.chain[1].grp_jobs = 0;
  h = GroupJobsHold(tree, false, running);
  ck_assert(h.never);
  ck_has(h.why, "it lets no job run");
  tree.parents = {{"a", "b"}, {"b", "a"}};  // a loop in the tree ends the walk
  tree.chain = {{"root", "", 1}};
  ck_str_eq(GroupJobsHold(tree, false, running).why, "");

  // The line hivedctl job and whatif's text give for it.
  UsageHold at;
  at.frees = kWritten + 600;
  at.after = {"4", "7"};
  const std::string want = "The limit frees: " + TimeText(kWritten + 600) +
                           " (in 10 min), when jobs 4,7 end; cells permitting\n";
  ck_str_eq(LimitFreesText(at, kWritten), want.c_str());
  at.frees = 0;
  ck_has(LimitFreesText(at, kWritten), "unknown: the jobs it counts have no end time");
  at.never = true;
  ck_has(LimitFreesText(at, kWritten), "never by jobs ending: the job alone asks for more");
}
END_TEST

// -p with a list: Slurm starts the job in the first partition (in its order)
// that can, else where backfill estimates the earliest start. Before, whatif
// refused a list.
START_TEST(test_partition_list) {
  auto ask_in = [](std::vector<std::string> args,
                   const std::vector<std::pair<std::string, std::vector<std::string>>>& parts,
                   std::string* json, std::string* err) {
    hived_engine* e = nullptr;
    char eb[512] = "";
    ck_assert_msg(hived_engine_new(kMixedConfig.c_str(), &e, eb, sizeof eb) == HIVED_OK, "%s", eb);
    WhatifAsk base;
    std::vector<char*> argv;
    args.insert(args.begin(), "hivedctl");
    for (auto& a : args) argv.push_back(&a[0]);
    for (int i = 1; i < static_cast<int>(argv.size()); i++)
      ck_assert_int_eq(TakeWhatifOption(static_cast<int>(argv.size()), argv.data(), &i, &base, err),
                       1);
    std::vector<WhatifAsk> asks;
    for (const auto& p : parts) {
      asks.push_back(base);
      asks.back().partition = p.first;
      asks.back().partition_nodes = p.second;
    }
    int rc = WhatifPartitions(e, kMixedConfig, asks, {}, kWritten, json, err);
    hived_engine_free(e);
    return rc;
  };
  const std::pair<std::string, std::vector<std::string>> v100s{"v100s", {"v0", "v1"}},
      a100s{"a100s", {"a0"}};
  std::string json, err;
  // big's node cell is the A100 node: not in v100s, so a100s, the second.
  ck_assert_int_eq(
      ask_in({"-A", "big", "--gres=gpu:8", "-p", "v100s,a100s"}, {v100s, a100s}, &json, &err), 0);
  std::unique_ptr<json_t, JsonDel> j(json_loads(json.c_str(), 0, nullptr));
  ck_assert_msg(json_is_true(json_object_get(j.get(), "startsNow")), "%s", json.c_str());
  ck_assert_str_eq(json_string_value(json_object_get(j.get(), "partition")), "a100s");
  ck_assert_uint_eq(json_array_size(json_object_get(j.get(), "partitionsAsked")), 2);
  const std::string text = WhatifText(json, kWritten);
  ck_has(text, "Partition a100s, of v100s,a100s (Slurm's order)\n");
  ck_has(text, "Starts now on a0");
  // A job both can start: the first in Slurm's order.
  ck_assert_int_eq(ask_in({"-A", "nobody", "--gres=gpu:1"}, {a100s, v100s}, &json, &err), 0);
  j.reset(json_loads(json.c_str(), 0, nullptr));
  ck_assert_str_eq(json_string_value(json_object_get(j.get(), "partition")), "a100s");
  // A request refused in every partition: the first one's error.
  ck_assert_int_eq(ask_in({"-A", "big", "--gres=gpu:1", "-w", "zz1"}, {v100s, a100s}, &json, &err),
                   1);
  ck_has(err, "--nodelist: node 'zz1' has no HiveD cells");
}
END_TEST

START_TEST(test_request_errors) {
  Answer a = Ask("busy", {"-A", "A", "--gpus=8", "--hived-within=NOPE"});
  ck_assert_int_eq(a.rc, 1);
  ck_has(a.err, "--hived-within (withinCellType: unknown cell type 'NOPE'");
  Answer b = Ask("busy", {"-A", "A", "-N", "3", "--gpus=8"});
  ck_assert_int_eq(b.rc, 1);
  ck_has(b.err, "does not split evenly over 3 nodes");
  Answer c = Ask("busy", {"-A", "A"});
  ck_assert_int_eq(c.rc, 1);
  ck_has(c.err, "needs GPUs");

  ExpectBadOptions({{"-N", "0"}, {"--gpus", "x"}, {"--gres", "mem:4"}, {"--priority", "2000"}});
}
END_TEST

START_TEST(test_parse_ends) {
  auto v = ParseEnds("12|1795280000\n13|N/A\n14|2026-11-24T02:00:00\nnoise\n15|Unknown\n");
  ck_assert_int_eq(v.size(), 4);
  ck_assert_str_eq(v[0].first.c_str(), "12");
  ck_assert_int_eq(v[0].second, 1795280000);
  ck_assert_int_eq(v[1].second, 0);
  struct tm tm {};
  strptime("2026-11-24T02:00:00", "%Y-%m-%dT%H:%M:%S", &tm);
  tm.tm_isdst = -1;
  ck_assert_int_eq(v[2].second, mktime(&tm));
  ck_assert_int_eq(v[3].second, 0);
}
END_TEST

START_TEST(test_config_from_status) {
  // A status that carries its own config needs no state file.
  Status st;
  std::string err;
  std::string text = Read("status-busy.json");
  text = "{\"config\":" + Read("hived.conf") + "," + text.substr(1);
  ck_assert(Parse(text, &st, &err));
  ck_assert(!WhatifConfig(st, "", &err).empty());
  Status plain;
  ck_assert(Parse(Read("status-busy.json"), &plain, &err));
  err.clear();
  ck_assert(WhatifConfig(plain, "", &err).empty());
  ck_has(err, "no state file");
  ck_assert(WhatifConfig(plain, "{\"version\":1}", &err).empty());
  ck_has(err, "\"config\"");
}
END_TEST

// slurmctld's status carries the engine's config without hived.conf's "slurm"
// section, and the settings whatif needs beside it: a job of an opportunistic QOS
// is asked as opportunistic only with them.
START_TEST(test_settings_from_status) {
  std::unique_ptr<json_t, JsonDel> conf(json_loads(Read("hived.conf").c_str(), 0, nullptr));
  ck_assert(conf != nullptr);
  json_object_del(conf.get(), "slurm");
  char* engine_conf = json_dumps(conf.get(), JSON_COMPACT);
  const std::string busy = Read("status-busy.json").substr(1);
  for (const bool settings : {true, false}) {
    std::string text = "{\"config\":" + std::string(engine_conf) + ",";
    if (settings)
      text +=
          "\"slurm\":{\"opportunisticQos\":[\"scavenger\"],\"priorityScale\":1,"
          "\"jobsLargerThanVc\":\"reject\"},";
    Status st;
    std::string err;
    ck_assert_msg(Parse(text + busy, &st, &err), "%s", err.c_str());
    const std::string config = WhatifConfig(st, "", &err);
    ck_assert_msg(!config.empty(), "%s", err.c_str());
    ck_assert_int_eq(Has(config, "\"opportunisticQos\""), settings);
    hived_engine* e = nullptr;
    ck_assert_msg(WhatifEngine(st, config, &e, &err), "%s", err.c_str());
    // Without -q, hivedctl gives the association's default QOS (from sacctmgr).
    Answer a = AskEngine(e, config, {"-A", "A", "--gres=gpu:1"}, "", {}, [](WhatifAsk* ask) {
      ask->qos = "scavenger";
      ask->qos_from = "association";
    });
    ck_assert_int_eq(a.rc, 0);
    ck_assert_str_eq(a.S("class"), settings ? "opportunistic" : "guaranteed");
    ck_assert_str_eq(a.S("qosFrom"), "association");
    ck_has(a.text, "QOS scavenger (its association's default: no -q given)");
    // jobsLargerThanVc "reject": sbatch refuses what would otherwise wait.
    hived_engine* e2 = nullptr;
    ck_assert_msg(WhatifEngine(st, config, &e2, &err), "%s", err.c_str());
    Answer b = AskEngine(e2, config, {"-A", "B", "-N", "3", "--gpus-per-node=8"}, "");
    ck_assert_int_eq(b.rc, 0);
    ck_assert_str_eq(b.S("cause"), "largerThanVc");
    ck_assert_str_eq(b.S("outcome"), settings ? "rejected" : "waiting");
    ck_assert_int_eq(Has(b.text, "Refused: larger than its VC"), settings);
    ck_assert_int_eq(Has(b.text, "jobsLargerThanVc"), settings);
  }
  free(engine_conf);
}
END_TEST

START_TEST(test_fractions_rebuilt) {
  // whatif's private engine holds the shard jobs on their fraction slots, so a
  // quarter for VC A waits (one eighth left in A's cells) as in the real engine.
  std::ifstream conf(std::string(HIVEDCTL_FIXTURES) +
                     "/../scenarios/fractions-packing/config.json");
  std::ostringstream ct;
  ct << conf.rdbuf();
  std::string text = Read("status-fractions.json");
  text = "{\"config\":" + ct.str() + "," + text.substr(1);
  Status st;
  std::string err;
  ck_assert_msg(Parse(text, &st, &err), "%s", err.c_str());
  const std::string config = WhatifConfig(st, "", &err);
  ck_assert_msg(!config.empty(), "%s", err.c_str());
  hived_engine* e = nullptr;
  ck_assert_msg(WhatifEngine(st, config, &e, &err), "%s", err.c_str());
  char* job = nullptr;
  ck_assert_int_eq(hived_inspect_job(e, "a3", &job), HIVED_OK);
  ck_has(std::string(job), "\"leaves\":[0],\"fractions\":[4,5]");
  free(job);
  hived_member m{1, 0, 2};
  hived_job_request r{};
  r.job = "q";
  r.vc = "A";
  r.members = &m;
  r.n_members = 1;
  r.distinct_nodes = 1;
  const hived_decision* d = nullptr;
  ck_assert_int_eq(hived_submit(e, &r, 1, &d), HIVED_OK);
  ck_assert_int_eq(d->outcome, HIVED_WAITING);
  ck_has(std::string(d->reason), "1 free 'A100-EIGHTH' fractions");
  hived_engine_free(e);
}
END_TEST

// --- writing the fixtures --------------------------------------------------

struct JobSpec {
  const char* job;
  const char* vc;
  int priority;
  int pods, per_pod;
  int fractions = 0;  // > 0: smallest fractions of one GPU per pod instead of per_pod GPUs
};

// Submits a fixture job; exits unless the engine decides `want`.
const hived_decision* Decide(hived_engine* e, const JobSpec& j, hived_outcome want) {
  hived_member m{j.pods, j.per_pod, j.fractions};
  hived_job_request r{};
  r.job = j.job;
  r.vc = j.vc;
  r.priority = j.priority;
  r.members = &m;
  r.n_members = 1;
  r.distinct_nodes = 1;
  const hived_decision* d = nullptr;
  if (hived_submit(e, &r, 0, &d) != HIVED_OK || d->outcome != want) {
    fprintf(stderr, "fixture job %s: not the expected outcome: %s\n", j.job,
            d ? d->reason : hived_last_error(e));
    exit(2);
  }
  return d;
}

void Submit(hived_engine* e, const JobSpec& j) { Decide(e, j, HIVED_PLACED); }

// A guaranteed job that must wait: its engine reason, as "pending" in the status.
std::string Waits(hived_engine* e, const JobSpec& j) {
  const hived_decision* d = Decide(e, j, HIVED_WAITING);
  json_t* w = json_pack("{s:s,s:s,s:s,s:s}", "job", j.job, "vc", j.vc, "reason", d->reason, "class",
                        "guaranteed");
  char* text = json_dumps(w, JSON_COMPACT);
  std::string out = text;
  free(text);
  json_decref(w);
  return out;
}

std::string Take(char* s) {
  std::string out = s ? s : "null";
  free(s);
  return out;
}

// As src/slurm/hived_status.c composes it.
std::string StatusOf(hived_engine* e, const std::string& pending = "") {
  char* s = nullptr;
  std::string out = "{\"version\":1,\"written\":" + std::to_string(kWritten) +
                    ",\"slurmVersion\":\"22.05.8\",\"cluster\":";
  (void)hived_inspect(e, nullptr, &s);
  out += Take(s) + ",\"topology\":";
  s = nullptr;
  (void)hived_inspect_topology(e, &s);
  out += Take(s) + ",\"jobs\":[";
  const char* const* names = nullptr;
  size_t n = hived_job_list(e, &names);
  for (size_t i = 0; i < n; i++) {
    s = nullptr;
    (void)hived_inspect_job(e, names[i], &s);
    out += std::string(i ? "," : "") + Take(s);
  }
  out += "],\"pending\":[" + pending +
         "],\"refused\":[],\"lastReload\":{\"time\":" + std::to_string(kWritten) +
         ",\"refused\":false}}\n";
  return out;
}

void Write(const std::string& dir, const std::string& name, const std::string& text) {
  std::ofstream out(dir + "/" + name);
  out << text;
}

int WriteFixtures(const std::string& dir) {
  char err[512] = "";
  hived_engine* e = nullptr;
  if (hived_engine_new(Read("hived.conf").c_str(), &e, err, sizeof(err)) != HIVED_OK) {
    fprintf(stderr, "hived.conf: %s\n", err);
    return 2;
  }
  Submit(e, {"a1", "A", 0, 1, 8});
  Submit(e, {"b1", "B", 0, 1, 4});
  Submit(e, {"o1", "B", HIVED_PRIORITY_OPPORTUNISTIC, 1, 8});
  Write(dir, "status-busy.json", StatusOf(e));
  char* snap = nullptr;
  (void)hived_snapshot(e, &snap);
  Write(dir, "hived_state.json", Take(snap) + "\n");
  hived_engine* bad = nullptr;
  (void)hived_engine_clone(e, &bad);
  (void)hived_set_node_health(bad, "r1n0", 0);
  (void)hived_set_node_health(bad, "r1n1", 0);
  Write(dir, "status-bad.json", StatusOf(bad));
  hived_engine_free(bad);
  Submit(e, {"b2", "B", 0, 1, 4});
  Submit(e, {"o2", nullptr, HIVED_PRIORITY_OPPORTUNISTIC, 1, 8});
  Write(dir, "status-full.json", StatusOf(e));
  hived_engine_free(e);

  if (hived_engine_new(Read("hived.conf").c_str(), &e, err, sizeof(err)) != HIVED_OK) return 2;
  Submit(e, {"a1", "A", 0, 1, 2});
  Submit(e, {"a2", "A", 0, 1, 2});
  Write(dir, "status-frag.json", StatusOf(e));
  hived_engine_free(e);

  // Fractions (for hivedctl map and metrics): the cluster of the fractions-packing
  // scenario (2 nodes x 4 A100 in eighths; A owns 2 halves and 2 eighths, B an A100,
  // C a node). A's shard jobs and an opportunistic quarter split GPUs 0 and 1 of n0.
  std::ifstream conf(std::string(HIVEDCTL_FIXTURES) +
                     "/../scenarios/fractions-packing/config.json");
  std::ostringstream conf_text;
  conf_text << conf.rdbuf();
  if (hived_engine_new(conf_text.str().c_str(), &e, err, sizeof(err)) != HIVED_OK) {
    fprintf(stderr, "fractions-packing config: %s\n", err);
    return 2;
  }
  Submit(e, {"a1", "A", 0, 1, 0, 1});
  Submit(e, {"a2", "A", 0, 1, 0, 1});
  Submit(e, {"a3", "A", 0, 1, 0, 2});
  Submit(e, {"a4", "A", 0, 1, 0, 3});
  Submit(e, {"a5", "A", 0, 1, 0, 1});
  Submit(e, {"b1", "B", 0, 1, 1});
  Submit(e, {"c1", "C", 0, 1, 4});
  Submit(e, {"o3", nullptr, HIVED_PRIORITY_OPPORTUNISTIC, 1, 0, 2});
  const std::string pending = Waits(e, {"a6", "A", 0, 1, 0, 2});
  Write(dir, "status-fractions.json", StatusOf(e, pending));
  hived_engine_free(e);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && !strcmp(argv[1], "--write-fixtures")) return WriteFixtures(argv[2]);
  Suite* s = suite_create("hivedctl whatif");
  TCase* tc = tcase_create("whatif");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_starts_now);
  tcase_add_test(tc, test_vc_quota_in_use_and_estimate);
  tcase_add_test(tc, test_fragmented);
  tcase_add_test(tc, test_preempts_opportunistic);
  tcase_add_test(tc, test_estimate_without_gone_victims);
  tcase_add_test(tc, test_larger_than_vc);
  tcase_add_test(tc, test_no_healthy_cell);
  tcase_add_test(tc, test_opportunistic_qos);
  tcase_add_test(tc, test_exclusive_takes_whole_nodes);
  tcase_add_test(tc, test_exclusive_on_nodes_of_two_sizes);
  tcase_add_test(tc, test_exclusive_takes_a_smaller_node);
  tcase_add_test(tc, test_partition_and_node_lists);
  tcase_add_test(tc, test_default_partition);
  tcase_add_test(tc, test_partition_list);
  tcase_add_test(tc, test_partition_refuses);
  tcase_add_test(tc, test_default_qos);
  tcase_add_test(tc, test_limits);
  tcase_add_test(tc, test_usage_limits);
  tcase_add_test(tc, test_time_limits);
  tcase_add_test(tc, test_request_errors);
  tcase_add_test(tc, test_parse_ends);
  tcase_add_test(tc, test_config_from_status);
  tcase_add_test(tc, test_settings_from_status);
  tcase_add_test(tc, test_fractions_rebuilt);
  tcase_add_test(tc, test_exclusive_beside_mig_slices);
  tcase_add_test(tc, test_exclusive_on_a_node_of_two_models);
  suite_add_tcase(s, tc);
  return check_run(s, CK_NORMAL, CK_FORK_GETENV);
}
