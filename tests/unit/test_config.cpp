// SPDX-License-Identifier: GPL-2.0-or-later
// Check unit tests for src/config: hived.conf JSON -> hived::Config.
#include <check.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "config/conf_json.h"
#include "config/hived_conf.h"
#include "../check_run.h"

using hived::Config;
using hived::parse_hived_conf;

namespace {

// A HiveD-style config as a HiveD site would convert it from YAML: HiveD's own
// Kubernetes keys, numeric addresses, null children, children without cellType, a
// forged hierarchy, out-of-order GPU indices, pinned cells, two GPU models.
const char kHivedStyle[] = R"({
  "kubeApiServerAddress": "http://10.0.0.1:8080",
  "webServerAddress": ":9096",
  "physicalCluster": {
    "skuTypes": {"V100": {"gpu": 1, "cpu": 5, "memory": "50Gi"}},
    "cellTypes": {
      "K80-NODE": {"childCellType": "K80", "childCellNumber": 4, "isNodeLevel": true},
      "V100-2GPU": {"childCellType": "V100", "childCellNumber": 2},
      "V100-SOCKET": {"childCellType": "V100-2GPU", "childCellNumber": 2},
      "V100-NODE": {"childCellType": "V100-SOCKET", "childCellNumber": 2, "isNodeLevel": true},
      "V100-RACK": {"childCellType": "V100-NODE", "childCellNumber": 2}
    },
    "physicalCells": [
      {"cellType": "K80-NODE", "cellAddress": "k80-0"},
      {"cellType": "K80-NODE", "cellAddress": "k80-1", "cellChildren": [
        {"cellAddress": 3, "pinnedCellId": "PIN-K80"}, {"cellAddress": 2},
        {"cellAddress": 1}, {"cellAddress": 0}]},
      {"cellType": "V100-RACK", "cellAddress": 7, "cellChildren": [
        {"cellAddress": "v100-0", "cellChildren": null},
        {"cellType": "V100-NODE", "cellAddress": "v100-1", "pinnedCellId": "PIN-NODE"}]},
      {"cellType": "V100-RACK", "cellChildren": [
        {"cellAddress": "v100-2", "cellChildren": [
          {"cellChildren": [{"cellChildren": [{"cellAddress": 1}, {"cellAddress": 0}]},
                            {"cellChildren": []}]},
          {}]},
        {"cellAddress": "v100-3"}]}
    ]
  },
  "virtualClusters": {
    "VC1": {
      "virtualCells": [
        {"cellType": "V100-RACK.V100-NODE", "cellNumber": 2},
        {"cellType": "K80-NODE", "cellNumber": 0}
      ],
      "pinnedCells": [{"pinnedCellId": "PIN-K80"}, {"pinnedCellId": "PIN-NODE"}]
    },
    "VC2": {"virtualCells": [{"cellType": "V100-RACK.V100-NODE.V100-SOCKET", "cellNumber": 3}],
            "pinnedCells": null}
  }
})";

std::string err_of(const std::string& json) {
  Config c;
  return parse_hived_conf(json, &c).msg;
}

// Wraps a cellTypes object body and a physicalCells array body into a config.
std::string pc(const std::string& types, const std::string& cells = "") {
  return R"({"physicalCluster": {"cellTypes": {)" + types + R"(}, "physicalCells": [)" + cells +
         "]}}";
}
const char kNode[] =
    R"("NODE": {"childCellType": "GPU", "childCellNumber": 4, "isNodeLevel": true})";

std::string vcs(const std::string& body) { return R"({"virtualClusters": {)" + body + "}}"; }
std::string slurm(const std::string& body) { return R"({"slurm": {)" + body + "}}"; }

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// Check's string macros keep only a pointer; copying first keeps temporaries alive.
#define ck_assert_sstr_eq(a, b)               \
  do {                                        \
    const std::string a_(a), b_(b);           \
    ck_assert_str_eq(a_.c_str(), b_.c_str()); \
  } while (0)

#define ck_assert_has(s, part) \
  ck_assert_msg(has((s), (part)), "expected \"%s\" in \"%s\"", (part), (s).c_str())

// ---------------------------------------------------------------- good configs

START_TEST(hived_style_config_loads) {
  Config c;
  std::string err = parse_hived_conf(kHivedStyle, &c).msg;
  ck_assert_msg(err.empty(), "%s", err.c_str());
  const hived::ClusterSpec& s = c.cluster;
  ck_assert_uint_eq(s.cell_types.size(), 5);
  ck_assert_sstr_eq(s.cell_types[0].name.c_str(), "K80-NODE");
  ck_assert_sstr_eq(s.cell_types[0].child_type.c_str(), "K80");
  ck_assert_int_eq(s.cell_types[0].child_count, 4);
  ck_assert(s.cell_types[0].is_node_level);
  ck_assert(!s.cell_types[1].is_node_level);  // isNodeLevel omitted: false
  ck_assert_sstr_eq(s.cell_types[3].where.c_str(), "physicalCluster.cellTypes.V100-NODE");

  ck_assert_uint_eq(s.physical_cells.size(), 4);
  ck_assert(s.physical_cells[0].children.empty());
  const hived::PhysicalCellSpec& k80 = s.physical_cells[1];
  ck_assert_uint_eq(k80.children.size(), 4);
  ck_assert_sstr_eq(k80.children[0].address.c_str(), "3");  // number -> string
  ck_assert_sstr_eq(k80.children[0].pinned_id.c_str(), "PIN-K80");
  ck_assert_sstr_eq(k80.children[0].where.c_str(),
                    "physicalCluster.physicalCells[1].cellChildren[0]");
  ck_assert(k80.children[0].cell_type.empty());
  const hived::PhysicalCellSpec& rack = s.physical_cells[2];
  ck_assert_sstr_eq(rack.address.c_str(), "7");
  ck_assert(rack.children[0].children.empty());  // cellChildren: null
  ck_assert_sstr_eq(rack.children[1].cell_type.c_str(), "V100-NODE");
  ck_assert(s.physical_cells[3].address.empty());
  const hived::PhysicalCellSpec& gpu =
      s.physical_cells[3].children[0].children[0].children[0].children[1];
  ck_assert_sstr_eq(gpu.address.c_str(), "0");
  ck_assert_sstr_eq(gpu.where.c_str(),
                    "physicalCluster.physicalCells[3].cellChildren[0].cellChildren[0]."
                    "cellChildren[0].cellChildren[1]");

  ck_assert_uint_eq(s.vcs.size(), 2);
  ck_assert_sstr_eq(s.vcs[0].name.c_str(), "VC1");
  ck_assert_sstr_eq(s.vcs[0].where.c_str(), "virtualClusters.VC1");
  ck_assert_sstr_eq(s.vcs[0].virtual_cells[0].cell_type.c_str(), "V100-RACK.V100-NODE");
  ck_assert_int_eq(s.vcs[0].virtual_cells[0].count, 2);
  ck_assert_int_eq(s.vcs[0].virtual_cells[1].count, 0);
  ck_assert_sstr_eq(s.vcs[0].virtual_cells[1].where.c_str(), "virtualClusters.VC1.virtualCells[1]");
  ck_assert_uint_eq(s.vcs[0].pinned_cells.size(), 2);
  ck_assert_sstr_eq(s.vcs[0].pinned_cells[1].c_str(), "PIN-NODE");
  ck_assert_sstr_eq(s.vcs[0].pinned_cells_where[1].c_str(), "virtualClusters.VC1.pinnedCells[1]");
  ck_assert(s.vcs[1].pinned_cells.empty());
  ck_assert(c.warnings.empty());  // HiveD's own keys are ignored quietly
  // Slurm settings keep their defaults when the section is absent.
  ck_assert(c.slurm.quota_from_sacctmgr);
  ck_assert_sstr_eq(c.slurm.state_file.c_str(), "hived_state.json");
}
END_TEST

START_TEST(order_is_file_order) {
  Config c;
  std::string err = parse_hived_conf(pc(R"("Z": {"childCellType": "G", "childCellNumber": 2},
            "A": {"childCellType": "G", "childCellNumber": 2},
            "M": {"childCellType": "G", "childCellNumber": 2})"),
                                     &c)
                        .msg;
  ck_assert_msg(err.empty(), "%s", err.c_str());
  ck_assert_sstr_eq(c.cluster.cell_types[0].name.c_str(), "Z");
  ck_assert_sstr_eq(c.cluster.cell_types[1].name.c_str(), "A");
  ck_assert_sstr_eq(c.cluster.cell_types[2].name.c_str(), "M");
  err = parse_hived_conf(vcs(R"("b": {}, "a": null, "c": {"virtualCells": []})"), &c).msg;
  ck_assert_msg(err.empty(), "%s", err.c_str());
  ck_assert_uint_eq(c.cluster.vcs.size(), 3);
  ck_assert_sstr_eq(c.cluster.vcs[0].name.c_str(), "b");
  ck_assert_sstr_eq(c.cluster.vcs[1].name.c_str(), "a");
}
END_TEST

START_TEST(multi_chain) {
  Config c;
  std::string err = parse_hived_conf(R"({"physicalCluster": {
    "cellTypes": {
      "A100-NODE": {"childCellType": "A100", "childCellNumber": 8, "isNodeLevel": true},
      "A100-RACK": {"childCellType": "A100-NODE", "childCellNumber": 4},
      "T4-NODE": {"childCellType": "T4", "childCellNumber": 2, "isNodeLevel": true}},
    "physicalCells": [
      {"cellType": "A100-RACK", "cellChildren": [{"cellAddress": "a0"}, {"cellAddress": "a1"},
                                                 {"cellAddress": "a2"}, {"cellAddress": "a3"}]},
      {"cellType": "T4-NODE", "cellAddress": "t0"}]},
    "virtualClusters": {"research": {"virtualCells": [
      {"cellType": "A100-RACK.A100-NODE", "cellNumber": 2}, {"cellType": "T4-NODE", "cellNumber": 1}]}}})",
                                     &c)
                        .msg;
  ck_assert_msg(err.empty(), "%s", err.c_str());
  ck_assert_uint_eq(c.cluster.physical_cells.size(), 2);
  ck_assert_sstr_eq(c.cluster.physical_cells[0].children[3].address.c_str(), "a3");
  ck_assert_sstr_eq(c.cluster.physical_cells[1].cell_type.c_str(), "T4-NODE");
  ck_assert_uint_eq(c.cluster.vcs[0].virtual_cells.size(), 2);
}
END_TEST

START_TEST(slurm_section) {
  Config c;
  std::string err = parse_hived_conf(slurm(R"("opportunisticQos": ["Scavenger", "low"],
      "accountsWithoutCells": "reject", "quotaFromSacctmgr": false, "checkInvariants": true,
      "verboseCellTrace": true, "stateFile": "/var/spool/hived.json", "priorityScale": 100,
      "jobsLargerThanVc": "reject", "splitCountOnlyJobs": false, "borrowIdleCells": true)"),
                                     &c)
                        .msg;
  ck_assert_msg(err.empty(), "%s", err.c_str());
  ck_assert_uint_eq(c.slurm.opportunistic_qos.size(), 2);
  ck_assert_sstr_eq(c.slurm.opportunistic_qos[0].c_str(), "scavenger");  // lower-cased
  ck_assert(c.slurm.accounts_without_cells == hived::UnquotaedAccounts::kReject);
  ck_assert(!c.slurm.quota_from_sacctmgr);
  ck_assert(c.slurm.check_invariants);
  ck_assert(c.slurm.verbose_cell_trace);
  ck_assert_sstr_eq(c.slurm.state_file.c_str(), "/var/spool/hived.json");
  ck_assert_int_eq(c.slurm.priority_scale, 100);
  ck_assert(c.slurm.reject_larger_than_vc);
  ck_assert(!c.slurm.split_count_only_jobs);
  ck_assert(c.slurm.borrow_idle_cells);
  Config d;  // the defaults: jobs larger than their VC wait, count-only jobs may split
  ck_assert(parse_hived_conf(slurm(R"("jobsLargerThanVc": "wait")"), &d).msg.empty());
  ck_assert(!d.slurm.reject_larger_than_vc);
  ck_assert(d.slurm.split_count_only_jobs);
  ck_assert(!d.slurm.borrow_idle_cells);  // off unless asked
  // A single QOS without brackets.
  err = parse_hived_conf(slurm(R"("opportunisticQos": "scavenger")"), &c).msg;
  ck_assert_msg(err.empty(), "%s", err.c_str());
  ck_assert_uint_eq(c.slurm.opportunistic_qos.size(), 1);
}
END_TEST

START_TEST(empty_configs) {
  Config c;
  c.slurm.priority_scale = 7;
  ck_assert_sstr_eq(parse_hived_conf("", &c).msg.c_str(), "");
  ck_assert_int_eq(c.slurm.priority_scale, 1);  // replaced by a default Config
  ck_assert_sstr_eq(parse_hived_conf(" \n\t", &c).msg.c_str(), "");
  ck_assert_sstr_eq(parse_hived_conf("{}", &c).msg.c_str(), "");
  ck_assert_sstr_eq(parse_hived_conf("null", &c).msg, "");  // a comment-only YAML, converted
  ck_assert(c.cluster.cell_types.empty() && c.cluster.vcs.empty());
  // Sections present but null (YAML "physicalCluster:" with nothing under it).
  ck_assert_sstr_eq(
      parse_hived_conf(R"({"physicalCluster": null, "virtualClusters": null})", &c).msg.c_str(),
      "");
}
END_TEST

START_TEST(unknown_top_level_key_warns) {
  Config c;
  std::string err =
      parse_hived_conf(R"({"comment": "lab cluster", "webServerAddress": ":9096"})", &c).msg;
  ck_assert_msg(err.empty(), "%s", err.c_str());
  ck_assert_uint_eq(c.warnings.size(), 1);  // HiveD's own keys are quiet
  ck_assert_has(c.warnings[0], "comment: unknown top-level key ignored");
}
END_TEST

// A slip in a section name would drop the whole section (every VC, on a reload): refused.
START_TEST(misspelt_section_refused) {
  const char* const cases[][2] = {{"virtualCluster", "virtualClusters"},
                                  {"VirtualClusters", "virtualClusters"},
                                  {"virtualClsuters", "virtualClusters"},
                                  {"physicalClusters", "physicalCluster"},
                                  {"Slurm", "slurm"},
                                  {"slurmm", "slurm"}};
  for (const auto& k : cases) {
    Config c;
    ck_assert_sstr_eq(parse_hived_conf(kHivedStyle, &c).msg.c_str(), "");
    std::string err = parse_hived_conf(std::string("{\"") + k[0] + "\": {}}", &c).msg;
    std::string want =
        std::string(k[0]) + ": unknown top-level key (did you mean \"" + k[1] + "\"?)";
    ck_assert_has(err, want.c_str());
    ck_assert_uint_eq(c.cluster.vcs.size(), 2);  // the old config is untouched
  }
  Config c;
  ck_assert_sstr_eq(parse_hived_conf(R"({"scrum": 1})", &c).msg.c_str(), "");  // too far from slurm
}
END_TEST

START_TEST(allow_removing_vcs) {
  Config c;
  ck_assert_sstr_eq(
      parse_hived_conf(slurm(R"("allowRemovingVcs": ["Physics", "bio"])"), &c).msg.c_str(), "");
  ck_assert_uint_eq(c.slurm.allow_removing_vcs.size(), 2);
  ck_assert_sstr_eq(c.slurm.allow_removing_vcs[0].c_str(), "Physics");  // case kept
  ck_assert_sstr_eq(parse_hived_conf(slurm(R"("allowRemovingVcs": "bio")"), &c).msg.c_str(), "");
  ck_assert_uint_eq(c.slurm.allow_removing_vcs.size(), 1);
  ck_assert_has(parse_hived_conf(slurm(R"("allowRemovingVcs": [true])"), &c).msg,
                "slurm.allowRemovingVcs[0]: must be a VC name (string), got true");
}
END_TEST

START_TEST(error_leaves_config_unchanged) {
  Config c;
  ck_assert_sstr_eq(parse_hived_conf(kHivedStyle, &c).msg.c_str(), "");
  std::string err = parse_hived_conf(slurm(R"("priorityScale": 0)"), &c).msg;
  ck_assert(!err.empty());
  ck_assert_uint_eq(c.cluster.vcs.size(), 2);
  ck_assert_uint_eq(c.cluster.physical_cells.size(), 4);
}
END_TEST

START_TEST(load_file) {
  char path[] = "/tmp/test_config_XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, kHivedStyle, sizeof(kHivedStyle) - 1), sizeof(kHivedStyle) - 1);
  close(fd);
  Config c;
  std::string err = hived::load_hived_conf_file(path, &c).msg;
  ck_assert_msg(err.empty(), "%s", err.c_str());
  ck_assert_uint_eq(c.cluster.cell_types.size(), 5);

  fd = open(path, O_WRONLY | O_TRUNC);
  ck_assert_int_eq(write(fd, "{\n  \"slurm\": 3\n}", 16), 16);
  close(fd);
  err = hived::load_hived_conf_file(path, &c).msg;
  ck_assert_sstr_eq(err.c_str(), (std::string(path) + ": slurm: must be an object, got 3").c_str());
  unlink(path);

  err = hived::load_hived_conf_file("/nonexistent/hived.conf", &c).msg;
  ck_assert_has(err, "/nonexistent/hived.conf: cannot open");
}
END_TEST

// ---------------------------------------------------------------- one case per error class

START_TEST(err_json_syntax) {
  std::string err =
      err_of("{\"physicalCluster\": {\"cellTypes\": {\n  \"N\": {\"childCellNumber\": 4,}}}}");
  ck_assert_has(err, "physicalCluster.cellTypes.N: JSON syntax error at line 2, column");
  // At the top level there is no path, only the position.
  err = err_of("[1, 2");
  ck_assert_has(err, "JSON syntax error at line 1");
}
END_TEST

START_TEST(err_duplicate_key) {
  std::string err = err_of("{\"virtualClusters\": {\"VC1\": {},\n \"VC1\": {}}}");
  ck_assert_sstr_eq(err.c_str(),
                    "virtualClusters.VC1: duplicate key at line 2, column 6 (a key may appear "
                    "only once in an object)");
  err = err_of(pc(R"("N": {"childCellType": "G", "childCellNumber": 2, "childCellNumber": 4})"));
  ck_assert_has(err, "physicalCluster.cellTypes.N.childCellNumber: duplicate key");
}
END_TEST

START_TEST(err_wrong_type_of_section) {
  ck_assert_sstr_eq(err_of("[]").c_str(), "top level: must be a JSON object, got an array");
  ck_assert_sstr_eq(err_of("\"x\""), "top level: must be a JSON object, got \"x\"");
  ck_assert_sstr_eq(err_of(R"({"physicalCluster": []})").c_str(),
                    "physicalCluster: must be an object, got an array");
  ck_assert_sstr_eq(err_of(R"({"physicalCluster": {"physicalCells": {}}})").c_str(),
                    "physicalCluster.physicalCells: must be an array, got an object");
  ck_assert_sstr_eq(err_of(vcs(R"("VC1": [])")).c_str(),
                    "virtualClusters.VC1: must be an object, got an array");
}
END_TEST

START_TEST(err_unknown_key) {
  std::string err = err_of(pc(R"("N": {"childCellType": "G", "childcellnumber": 2})"));
  ck_assert_has(err,
                "physicalCluster.cellTypes.N.childcellnumber: unknown key (did you mean "
                "\"childCellNumber\"?)");
  err = err_of(slurm(R"("stateDir": "x")"));
  ck_assert_has(err, "slurm.stateDir: unknown key; allowed here: opportunisticQos");
  err = err_of(R"({"physicalCluster": {"cellType": {}}})");
  ck_assert_has(err, "physicalCluster.cellType: unknown key; allowed here: cellTypes");
  err = err_of(vcs(R"("VC1": {"virtualCells": [{"cellType": "N", "cellNumber": 1, "x": 1}]})"));
  ck_assert_has(err, "virtualClusters.VC1.virtualCells[0].x: unknown key");
}
END_TEST

// isGpuLevel: read into the spec, and only as a boolean.
START_TEST(gpu_level_key) {
  hived::Config c;
  std::string err =
      hived::parse_hived_conf(
          pc(R"("A100": {"childCellType": "A100-HALF", "childCellNumber": 2, "isGpuLevel": true})"),
          &c)
          .msg;
  ck_assert_msg(err.empty(), "%s", err.c_str());
  ck_assert(c.cluster.cell_types[0].is_gpu_level);
  ck_assert_has(err_of(pc(R"("A100": {"childCellType": "H", "childCellNumber": 2,
                                      "isGpuLevel": "yes"})")),
                "physicalCluster.cellTypes.A100.isGpuLevel");
}
END_TEST

START_TEST(err_missing_required) {
  ck_assert_sstr_eq(err_of(pc(R"("N": {"childCellType": "G"})")).c_str(),
                    "physicalCluster.cellTypes.N.childCellNumber: required key is missing (an "
                    "integer from 1 to 65536)");
  ck_assert_sstr_eq(err_of(pc(kNode, R"({"cellAddress": "n0"})")).c_str(),
                    "physicalCluster.physicalCells[0].cellType: required key is missing");
  ck_assert_sstr_eq(err_of(vcs(R"("VC1": {"virtualCells": [{"cellType": "NODE"}]})")).c_str(),
                    "virtualClusters.VC1.virtualCells[0].cellNumber: required key is missing "
                    "(an integer >= 0)");
  ck_assert_sstr_eq(err_of(vcs(R"("VC1": {"pinnedCells": [{}]})")).c_str(),
                    "virtualClusters.VC1.pinnedCells[0].pinnedCellId: required key is missing");
}
END_TEST

START_TEST(err_integer_range_and_type) {
  ck_assert_sstr_eq(
      err_of(pc(R"("A100-NODE": {"childCellType": "A100", "childCellNumber": "4"})")).c_str(),
      "physicalCluster.cellTypes.A100-NODE.childCellNumber: must be an integer from 1 to 65536, "
      "got \"4\"");
  ck_assert_has(err_of(pc(R"("N": {"childCellType": "G", "childCellNumber": 0})")),
                "childCellNumber: must be an integer from 1 to 65536, got 0");
  ck_assert_has(err_of(pc(R"("N": {"childCellType": "G", "childCellNumber": 4.0})")), "got 4.0");
  ck_assert_has(err_of(pc(R"("N": {"childCellType": "G", "childCellNumber": 1099511627776})")),
                "got 1099511627776");
  ck_assert_sstr_eq(
      err_of(vcs(R"("VC1": {"virtualCells": [{"cellType": "N", "cellNumber": -1}]})")).c_str(),
      "virtualClusters.VC1.virtualCells[0].cellNumber: must be an integer >= 0, got -1");
  ck_assert_has(err_of(slurm(R"("priorityScale": 0)")),
                "slurm.priorityScale: must be an integer >= 1, got 0");
}
END_TEST

START_TEST(err_huge_number) {
  std::string err =
      err_of(pc(R"("N": {"childCellType": "G", "childCellNumber": 99999999999999999999999})"));
  ck_assert_has(err, "physicalCluster.cellTypes.N: JSON syntax error");
  ck_assert_has(err, "too big integer");
}
END_TEST

START_TEST(err_bool) {
  ck_assert_sstr_eq(
      err_of(pc(R"("N": {"childCellType": "G", "childCellNumber": 2, "isNodeLevel": "true"})"))
          .c_str(),
      "physicalCluster.cellTypes.N.isNodeLevel: must be true or false, got \"true\"");
  ck_assert_has(err_of(slurm(R"("checkInvariants": 1)")),
                "slurm.checkInvariants: must be true or false, got 1");
  ck_assert_has(err_of(slurm(R"("splitCountOnlyJobs": "yes")")),
                "slurm.splitCountOnlyJobs: must be true or false, got \"yes\"");
  ck_assert_has(err_of(slurm(R"("borrowIdleCells": "on")")),
                "slurm.borrowIdleCells: must be true or false, got \"on\"");
}
END_TEST

START_TEST(err_names) {
  ck_assert_has(err_of(pc(R"("A.B": {"childCellType": "G", "childCellNumber": 2})")),
                "physicalCluster.cellTypes.A.B: must not contain '.'");
  ck_assert_sstr_eq(err_of(pc(R"("": {"childCellType": "G", "childCellNumber": 2})")).c_str(),
                    "physicalCluster.cellTypes: a cell type name (key) must not be empty");
  ck_assert_sstr_eq(err_of(pc(R"("N": {"childCellType": "", "childCellNumber": 2})")).c_str(),
                    "physicalCluster.cellTypes.N.childCellType: must not be empty");
  ck_assert_sstr_eq(err_of(vcs(R"("": {})")).c_str(),
                    "virtualClusters: a VC name (key) must not be empty");
  // A control character in a name is refused and shown escaped, never raw.
  std::string err = err_of(vcs(R"("V\u0007C": {})"));
  ck_assert_has(err, "virtualClusters.V\\x07C: must not contain control characters");
  ck_assert(err.find('\a') == std::string::npos);
  ck_assert_sstr_eq(
      err_of(vcs(R"("VC1": {"virtualCells": [{"cellType": "RACK..NODE", "cellNumber": 1}]})"))
          .c_str(),
      "virtualClusters.VC1.virtualCells[0].cellType: empty level in cell type path "
      "\"RACK..NODE\" (write TOP.LEVEL.LEVEL or a single cell type)");
}
END_TEST

START_TEST(err_address) {
  std::string err = err_of(pc(kNode, R"({"cellType": "NODE", "cellAddress": 1.10})"));
  ck_assert_has(err,
                "physicalCluster.physicalCells[0].cellAddress: must be a string or an "
                "integer, got 1.1");
  ck_assert_has(err, "quote it");
  ck_assert_sstr_eq(err_of(pc(kNode, R"({"cellType": "NODE", "cellAddress": ["n0"]})")).c_str(),
                    "physicalCluster.physicalCells[0].cellAddress: must be a string or an "
                    "integer, got an array");
  ck_assert_sstr_eq(err_of(pc(kNode, R"({"cellType": "NODE", "cellAddress": ""})")).c_str(),
                    "physicalCluster.physicalCells[0].cellAddress: must not be empty");
}
END_TEST

START_TEST(err_pinned_duplicates) {
  std::string err = err_of(pc(kNode, R"({"cellType": "NODE", "cellAddress": "n0", "cellChildren": [
      {"pinnedCellId": "P"}, {}, {"pinnedCellId": "P"}]})"));
  ck_assert_sstr_eq(err.c_str(),
                    "physicalCluster.physicalCells[0].cellChildren[2].pinnedCellId: duplicate "
                    "pinnedCellId \"P\", already given to "
                    "physicalCluster.physicalCells[0].cellChildren[0]");
  err = err_of(vcs(R"("VC1": {"pinnedCells": [{"pinnedCellId": "P"}]},
                      "VC2": {"pinnedCells": [{"pinnedCellId": "Q"}, {"pinnedCellId": "P"}]})"));
  ck_assert_sstr_eq(err.c_str(),
                    "virtualClusters.VC2.pinnedCells[1].pinnedCellId: pinned cell \"P\" is "
                    "already given at virtualClusters.VC1.pinnedCells[0] (a pinned cell belongs "
                    "to one VC)");
  ck_assert_sstr_eq(err_of(pc(kNode, R"({"cellType": "NODE", "pinnedCellId": ""})")).c_str(),
                    "physicalCluster.physicalCells[0].pinnedCellId: must not be empty");
}
END_TEST

START_TEST(err_children_shape) {
  ck_assert_sstr_eq(err_of(pc(kNode, R"({"cellType": "NODE", "cellChildren": {}})")).c_str(),
                    "physicalCluster.physicalCells[0].cellChildren: must be an array, got an "
                    "object");
  ck_assert_sstr_eq(err_of(pc(kNode, R"({"cellType": "NODE", "cellChildren": [{}, "x"]})")).c_str(),
                    "physicalCluster.physicalCells[0].cellChildren[1]: must be an object, got "
                    "\"x\"");
  ck_assert_sstr_eq(err_of(pc(kNode, "7")).c_str(),
                    "physicalCluster.physicalCells[0]: must be an object, got 7");
}
END_TEST

START_TEST(err_depth_limit) {
  // 32 levels of cellChildren below a top cell pass; 33 do not.
  auto nested = [](int levels) {
    std::string s = R"({"cellType": "NODE")";
    for (int i = 0; i < levels; i++) s += R"(, "cellChildren": [{"cellAddress": 0)";
    for (int i = 0; i < levels; i++) s += "}]";
    return s + "}";
  };
  ck_assert_sstr_eq(err_of(pc(kNode, nested(32))).c_str(), "");
  std::string err = err_of(pc(kNode, nested(33)));
  ck_assert_has(err, "physicalCluster.physicalCells[0].cellChildren[0]");
  ck_assert_has(err, ": cellChildren nested deeper than 32 levels");
  // Raw nesting far beyond that is stopped by the JSON reader, without a crash.
  ck_assert_has(err_of(std::string(5000, '[')), "JSON syntax error");
}
END_TEST

START_TEST(err_slurm_values) {
  ck_assert_sstr_eq(err_of(slurm(R"("jobsLargerThanVc": "kill")")).c_str(),
                    "slurm.jobsLargerThanVc: must be \"wait\" or \"reject\", got \"kill\"");
  ck_assert_sstr_eq(err_of(slurm(R"("accountsWithoutCells": "kill")")).c_str(),
                    "slurm.accountsWithoutCells: must be \"opportunistic\" or \"reject\", got "
                    "\"kill\"");
  ck_assert_sstr_eq(err_of(slurm(R"("opportunisticQos": ["low", 3])")).c_str(),
                    "slurm.opportunisticQos[1]: must be a QOS name (string), got 3");
  ck_assert_sstr_eq(err_of(slurm(R"("opportunisticQos": {})")).c_str(),
                    "slurm.opportunisticQos: must be a QOS name or an array of QOS names, got an "
                    "object");
  ck_assert_sstr_eq(err_of(slurm(R"("stateFile": "")")).c_str(),
                    "slurm.stateFile: must not be empty");
}
END_TEST

START_TEST(err_hostile_bytes) {
  std::string nul("{\"slurm\": {}}\0", 14);
  ck_assert_sstr_eq(err_of(nul).c_str(),
                    "JSON syntax error at line 1, column 14: NUL byte (hived.conf must be UTF-8 "
                    "JSON text)");
  std::string bad = "{\"virtualClusters\": {\"V\xff\": {}}}";
  std::string err = err_of(bad);
  ck_assert_has(err, "virtualClusters: JSON syntax error");
  ck_assert(err.find('\xff') == std::string::npos);
  ck_assert_has(err_of("{\"a\": \"\\u0000\"}"), "JSON syntax error");
}
END_TEST

// The helpers return Status, not text: a slip there must reach the C API as a config
// error (HIVED_ECONFIG), not as an invalid request or an internal error.
START_TEST(helper_errors_are_config_errors) {
  json_t* obj = json_pack("{s:s}", "childCellNumber", "4");
  int n = 7;
  hived::Status st =
      hived::conf::get_int(obj, "physicalCluster.cellTypes.N", "childCellNumber", true, 1, 9, &n);
  json_decref(obj);
  ck_assert(st.code == hived::Code::kConfig);
  ck_assert_sstr_eq(st.msg,
                    "physicalCluster.cellTypes.N.childCellNumber: must be an integer from 1 to 9, "
                    "got \"4\"");
  ck_assert_int_eq(n, 7);
  Config c;
  st = parse_hived_conf(slurm(R"("priorityScale": 0)"), &c);
  ck_assert(st.code == hived::Code::kConfig);
  ck_assert_has(st.msg, "slurm.priorityScale: must be an integer >= 1, got 0");
}
END_TEST

Suite* config_suite() {
  Suite* s = suite_create("config");
  TCase* good = tcase_create("good");
  tcase_add_test(good, hived_style_config_loads);
  tcase_add_test(good, order_is_file_order);
  tcase_add_test(good, multi_chain);
  tcase_add_test(good, slurm_section);
  tcase_add_test(good, empty_configs);
  tcase_add_test(good, unknown_top_level_key_warns);
  tcase_add_test(good, misspelt_section_refused);
  tcase_add_test(good, allow_removing_vcs);
  tcase_add_test(good, error_leaves_config_unchanged);
  tcase_add_test(good, load_file);
  suite_add_tcase(s, good);
  TCase* bad = tcase_create("errors");
  tcase_add_test(bad, err_json_syntax);
  tcase_add_test(bad, err_duplicate_key);
  tcase_add_test(bad, err_wrong_type_of_section);
  tcase_add_test(bad, err_unknown_key);
  tcase_add_test(bad, err_missing_required);
  tcase_add_test(bad, err_integer_range_and_type);
  tcase_add_test(bad, err_huge_number);
  tcase_add_test(bad, err_bool);
  tcase_add_test(bad, err_names);
  tcase_add_test(bad, err_address);
  tcase_add_test(bad, err_pinned_duplicates);
  tcase_add_test(bad, err_children_shape);
  tcase_add_test(bad, err_depth_limit);
  tcase_add_test(bad, err_slurm_values);
  tcase_add_test(bad, gpu_level_key);
  tcase_add_test(bad, err_hostile_bytes);
  tcase_add_test(bad, helper_errors_are_config_errors);
  suite_add_tcase(s, bad);
  return s;
}

}  // namespace

int main() { return check_run(config_suite(), CK_NORMAL, CK_FORK_GETENV); }
