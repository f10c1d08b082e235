// SPDX-License-Identifier: GPL-2.0-or-later
// Check unit tests for src/topo: host lists, the slurm.conf/gres.conf/topology.conf
// parsers, the cell derivation (levels, collapse, racks, broken switches, mixed models,
// missing GPUs, hived.conf precedence), quotas from GrpTRES and the printed summary.
// Every derived spec is built into an engine through hived_engine_new.

#include <string>
#include <vector>

#include "config/hived_conf.h"
#include "hived.h"
#include "topo/chain_table.h"
#include "topo/cluster.h"
#include "topo/conf_lines.h"
#include "topo/derive.h"
#include "topo/hostlist.h"
#include "topo/mig.h"
#include "topo/parse.h"
#include "topo/quota.h"
#include "topo/spec_json.h"
#include "topo/summary.h"
#include "topo_test_util.h"
#include "../check_run.h"

using hived::ClusterSpec;
using hived::Code;
using hived::PhysicalCellSpec;
using hived::Status;
using namespace hived::topo;
using topo_test::build_engine;
using topo_test::Fixture;
using topo_test::has;
using topo_test::load;
using topo_test::read_fixture;
using topo_test::types_text;

namespace {

std::string join(const std::vector<std::string>& v, const char* sep = ",") {
  std::string s;
  for (size_t i = 0; i < v.size(); i++) s += (i ? sep : "") + v[i];
  return s;
}

std::string expand(const std::string& text) {
  std::vector<std::string> v;
  Status st = expand_hostlist(text, &v);
  return st.ok() ? join(v) : "ERR " + st.msg;
}

struct Derived {
  ClusterSpec spec;
  DeriveReport report;
};

Derived derive(const Fixture& f, const ClusterSpec& expl = ClusterSpec()) {
  Derived d;
  hived::Status err = derive_cluster(f.nodes, f.topology, expl, &d.spec, &d.report);
  ck_assert_msg(err.ok(), "%s", err.msg.c_str());
  std::string eng = build_engine(d.spec);
  ck_assert_msg(eng.empty(), "engine rejects the derived spec: %s", eng.c_str());
  return d;
}

const hived::CellTypeSpec* type_of(const ClusterSpec& s, const std::string& name) {
  for (const auto& t : s.cell_types)
    if (t.name == name) return &t;
  return nullptr;
}

// "TYPE@ADDR(child,child)" for top-level cells; leaves show their address only.
std::string cell_text(const PhysicalCellSpec& c) {
  std::string o = (c.cell_type.empty() ? "" : c.cell_type + "@") + c.address;
  if (c.children.empty()) return o;
  o += "(";
  for (size_t i = 0; i < c.children.size(); i++) o += (i ? "," : "") + cell_text(c.children[i]);
  return o + ")";
}

std::string cells_text(const ClusterSpec& s) {
  std::string o;
  for (const auto& c : s.physical_cells) o += (o.empty() ? "" : " ") + cell_text(c);
  return o;
}

std::string quota(const ClusterSpec& s, const std::string& tres, std::string* err = nullptr) {
  hived::VcSpec vc;
  std::string e = quota_to_vc(s, "acct", tres, &vc).msg;
  if (err) *err = e;
  if (!e.empty()) return "ERR";
  std::string o;
  for (const auto& v : vc.virtual_cells)
    o += (o.empty() ? "" : " ") + std::to_string(v.count) + "x" + v.cell_type;
  return o;
}

// ---------------------------------------------------------------- host lists

START_TEST(hostlist_expand) {
  ck_assert_sstr_eq(expand("node[1-3,5]"), "node1,node2,node3,node5");
  ck_assert_sstr_eq(expand("gpu[08-10]"), "gpu08,gpu09,gpu10");
  ck_assert_sstr_eq(expand("r[1-2]n[1-2],login"), "r1n1,r1n2,r2n1,r2n2,login");
  ck_assert_sstr_eq(expand("/dev/nvidia[0-3]"),
                    "/dev/nvidia0,/dev/nvidia1,/dev/nvidia2,/dev/nvidia3");
  ck_assert_sstr_eq(expand("single"), "single");
  ck_assert_has(expand("node[1-"), "'[' without ']'");
  ck_assert_has(expand("node[3-1]"), "runs backwards");
  ck_assert_has(expand("a,,b"), "empty name");
  ck_assert_has(expand("node1]"), "']' without '['");
  ck_assert_has(expand("node[a-b]"), "not a number");
  ck_assert_has(expand("n[[1]]"), "nested");
  ck_assert_has(expand("n[0-9999999]"), "too large");
}
END_TEST

START_TEST(hostlist_compress_and_ranges) {
  std::vector<std::string> v;
  ck_assert_ok(expand_hostlist("node[1-4,7],gpu[08-10],x,node9", &v));
  ck_assert_sstr_eq(compress_hostlist(v), "node[1-4,7,9],gpu[08-10],x");
  ck_assert_sstr_eq(compress_hostlist({"a1"}), "a1");
  ck_assert_sstr_eq(compress_hostlist({}), "");
  std::vector<int> c;
  ck_assert_ok(parse_int_ranges("0-3,8,10-11", 100, &c));
  ck_assert_uint_eq(c.size(), 7);
  ck_assert_sstr_eq(format_int_ranges(c), "0-3,8,10-11");
  ck_assert_has(parse_int_ranges("0-200", 100, &c), "above 100");
  ck_assert_has(parse_int_ranges("x", 100, &c), "not a number");
}
END_TEST

// A caller's limit refuses a list before its names are built: slurm.conf's cap of
// 100000 nodes must not cost the million names of "n[0-999999]" first.
START_TEST(hostlist_limit_checked_before_expanding) {
  std::vector<std::string> v{"kept"};
  bool over = false;
  ck_assert_ok(expand_hostlist("a[1-3],b", &v, 4, &over));
  ck_assert(!over);
  ck_assert_uint_eq(v.size(), 5);
  v = {"kept"};
  for (const char* text : {"a[1-3],b[1-2]", "n[0-999999]", "r[1-4]n[1-4]", "a,b,c,d,e"}) {
    Status st = expand_hostlist(text, &v, 4, &over);
    ck_assert_msg(over, "%s", text);
    ck_assert_has(st.msg, "more than 4 names");
    ck_assert_uint_le(v.size(), 1 + 4);  // never more than the limit added
    v = {"kept"};
  }
  expand_hostlist("n[1-", &v, 4, &over);
  ck_assert(!over);  // a syntax error is not the limit
  std::vector<NodeFacts> n;
  std::vector<std::string> notes;
  ck_assert_has(
      parse_slurm_conf_nodes("NodeName=n[1-50000]\nNodeName=m[0-999999]\n", "s.conf", &n, &notes),
      "s.conf:2: NodeName: more than 100000 nodes in s.conf");
  n.clear();
  ck_assert_ok(
      parse_slurm_conf_nodes("NodeName=n[1-50000]\nNodeName=m[1-50000]\n", "s.conf", &n, &notes));
  ck_assert_uint_eq(n.size(), 100000);
}
END_TEST

// gres.conf and topology.conf: no list names more nodes than a cluster has, and
// one file's lists stop at a million names in all, before they are expanded.
START_TEST(file_hostlists_share_a_budget) {
  GresConf g;
  std::vector<std::string> notes;
  ck_assert_has(
      parse_gres_conf("NodeName=n[0-100000] Name=gpu File=/dev/nvidia0\n", "g.conf", &g, &notes),
      "g.conf:1: NodeName: more than 100000 names in one host list");
  g = GresConf();
  ck_assert_has(
      parse_gres_conf("NodeName=n1 Name=gpu File=/dev/nvidia[0-100000]\n", "g.conf", &g, &notes),
      "g.conf:1: File: more than 100000 names in one host list");
  TopologyFacts t;
  ck_assert_has(parse_topology_conf("SwitchName=s1 Nodes=r[1-1000]n[1-1000]\n", "t.conf", &t),
                "t.conf:1: Nodes: more than 100000 names in one host list");
  // Devices count too: ten lines of 99 999 nodes and a device each fit, one name more
  // does not.
  std::string text;
  for (int i = 0; i < 10; i++)
    text += "NodeName=n[1-99999] Name=gpu Type=t" + std::to_string(i) + " File=/dev/nvidia" +
            std::to_string(i) + "\n";
  g = GresConf();
  ck_assert_ok(parse_gres_conf(text, "g.conf", &g, &notes));
  g = GresConf();
  ck_assert_has(
      parse_gres_conf(text + "NodeName=n1 Name=gpu File=/dev/nvidia10\n", "g.conf", &g, &notes),
      "g.conf:11: NodeName: more than 1000000 names in the host lists of g.conf");
}
END_TEST

// Host-list and Cores= failures are config errors whose message names the text.
START_TEST(hostlist_errors_are_config_status) {
  std::vector<std::string> v;
  Status st = expand_hostlist("node[1-", &v);
  ck_assert_int_eq(static_cast<int>(st.code), static_cast<int>(Code::kConfig));
  ck_assert_has(st.msg, "host list 'node[1-'");
  ck_assert(expand_hostlist("node[1-2]", &v).code == Code::kOk);
  std::vector<int> c;
  st = parse_int_ranges("3-1", 100, &c);
  ck_assert_int_eq(static_cast<int>(st.code), static_cast<int>(Code::kConfig));
  ck_assert_has(st.msg, "range '3-1' runs backwards");
}
END_TEST

// The Slurm-file, MIG, GrpTRES and chain-table helpers fail with config errors too.
START_TEST(topo_parsers_fail_with_config_status) {
  std::vector<NodeFacts> n;
  std::vector<std::string> notes;
  Status st = parse_slurm_conf_nodes("NodeName=n1 Sockets=two\n", "s.conf", &n, &notes);
  ck_assert_int_eq(static_cast<int>(st.code), static_cast<int>(Code::kConfig));
  ck_assert_sstr_eq(st.msg, "s.conf:1: Sockets: must be a positive integer, got 'two'");
  GresConf g;
  st = parse_gres_conf("Name=gpu File=/dev/nvidia0 Foo=1\n", "g.conf", &g, &notes);
  ck_assert_int_eq(static_cast<int>(st.code), static_cast<int>(Code::kConfig));
  TopologyFacts t;
  st = parse_topology_conf("SwitchName=s1 Switches=s9\n", "t.conf", &t);
  ck_assert_int_eq(static_cast<int>(st.code), static_cast<int>(Code::kConfig));
  MigProfile p;
  st = parse_mig_type("a100_5g.20gb", &p);
  ck_assert_int_eq(static_cast<int>(st.code), static_cast<int>(Code::kConfig));
  std::vector<GpuTres> tres;
  st = parse_grptres_gpus("gres/gpu=x", &tres);
  ck_assert_int_eq(static_cast<int>(st.code), static_cast<int>(Code::kConfig));
  ck_assert(parse_grptres_gpus("gres/gpu=4", &tres).ok());
  ClusterSpec spec;
  spec.physical_cells.push_back(PhysicalCellSpec());
  spec.physical_cells.back().cell_type = "NOPE";
  ChainTable ct;
  st = build_chain_table(spec, &ct);
  ck_assert_int_eq(static_cast<int>(st.code), static_cast<int>(Code::kConfig));
  ck_assert_has(st.msg, "unknown cell type 'NOPE'");
}
END_TEST

START_TEST(conf_line_syntax) {
  auto lines = split_conf_lines(
      "# comment\n"
      "NodeName=a Gres=gpu:2 \\\n"
      "   Sockets=2   # trailing\n"
      "\n"
      "Key=\"quoted value\" Bare Hash=x\\#y\r\n");
  ck_assert_uint_eq(lines.size(), 2);
  ck_assert_int_eq(lines[0].line, 2);
  ck_assert_uint_eq(lines[0].tokens.size(), 3);
  ck_assert_sstr_eq(lines[0].tokens[2].key, "Sockets");
  ck_assert_sstr_eq(lines[0].tokens[2].value, "2");
  ck_assert_int_eq(lines[1].line, 5);
  ck_assert_sstr_eq(lines[1].tokens[0].value, "quoted value");
  ck_assert(!lines[1].tokens[1].has_value);
  ck_assert_sstr_eq(lines[1].tokens[2].value, "x#y");
  ck_assert(key_is("nodename", "NodeName"));
}
END_TEST

// ---------------------------------------------------------------- slurm.conf

START_TEST(slurm_conf_nodes) {
  std::vector<NodeFacts> nodes;
  std::vector<std::string> notes;
  ck_assert_ok(parse_slurm_conf_nodes(read_fixture("tests/topo/a100-racks/slurm.conf"),
                                      "slurm.conf", &nodes, &notes));
  ck_assert_uint_eq(nodes.size(), 9);
  ck_assert_sstr_eq(nodes[0].name, "node1");
  ck_assert_int_eq(nodes[0].sockets, 2);  // from NodeName=DEFAULT
  ck_assert_int_eq(nodes[0].cores_per_socket, 8);
  ck_assert_int_eq(nodes[0].threads_per_core, 2);
  ck_assert_int_eq(nodes[0].configured.at("a100"), 8);
  ck_assert(!nodes[0].gpus_known);
  ck_assert_sstr_eq(nodes[0].where, "slurm.conf:9");  // the continued line's first line
  ck_assert_sstr_eq(nodes[8].name, "login1");
  ck_assert_int_eq(nodes[8].sockets, 1);
  ck_assert(nodes[8].configured.empty());
}
END_TEST

START_TEST(slurm_conf_socket_rules_and_gres) {
  std::vector<NodeFacts> n;
  std::vector<std::string> notes;
  ck_assert_ok(parse_slurm_conf_nodes(
      "NodeName=a CPUs=32 CoresPerSocket=16\n"   // Sockets from CPUs
      "NodeName=b Boards=2 SocketsPerBoard=2\n"  // boards x sockets per board
      "NodeName=c CPUs=6 CoresPerSocket=4\n"     // not divisible: one per board
      "NodeName=d Gres=gpu:a100:8,gpu:t4:2(S:0-1),mps:100\n"
      "nodename=e gres=gpu:2\n"
      "Include other.conf\n",
      "s.conf", &n, &notes));
  ck_assert_int_eq(n[0].sockets, 2);
  ck_assert_int_eq(n[1].sockets, 4);
  ck_assert_int_eq(n[2].sockets, 1);
  ck_assert_int_eq(n[3].configured.at("a100"), 8);
  ck_assert_int_eq(n[3].configured.at("t4"), 2);
  ck_assert_uint_eq(n[3].configured.size(), 2);  // mps is not a GPU
  ck_assert_int_eq(n[4].configured.at(""), 2);
  ck_assert_uint_eq(notes.size(), 1);
  ck_assert_has(notes[0], "s.conf:6: Include");

  std::map<std::string, int> g;
  ck_assert_ok(parse_node_gres("gpu", &g));
  ck_assert_int_eq(g.at(""), 1);
  ck_assert_has(parse_node_gres("gpu:a:b:2", &g), "more than one GPU type");
}
END_TEST

START_TEST(slurm_conf_errors) {
  std::vector<NodeFacts> n;
  std::vector<std::string> notes;
  ck_assert_sstr_eq(parse_slurm_conf_nodes("NodeName=n1\nNodeName=n[0-1]\n", "s.conf", &n, &notes),
                    "s.conf:2: NodeName: node 'n1' is already defined at s.conf:1");
  n.clear();
  ck_assert_sstr_eq(parse_slurm_conf_nodes("\nNodeName=n1 Sockets=two\n", "s.conf", &n, &notes),
                    "s.conf:2: Sockets: must be a positive integer, got 'two'");
  n.clear();
  ck_assert_has(parse_slurm_conf_nodes("NodeName=n[1-\n", "s.conf", &n, &notes),
                "s.conf:1: NodeName: ");
  n.clear();
  ck_assert_has(parse_slurm_conf_nodes("NodeName=n1 Gres=gpu:x:y:1\n", "s.conf", &n, &notes),
                "s.conf:1: Gres: ");
  n.clear();
  ck_assert_has(parse_slurm_conf_nodes("NodeName=n1 Weird\n", "s.conf", &n, &notes),
                "'Weird' is not Key=Value");
}
END_TEST

// ---------------------------------------------------------------- gres.conf

START_TEST(gres_conf_records) {
  GresConf g;
  std::vector<std::string> notes;
  ck_assert_ok(
      parse_gres_conf(read_fixture("tests/topo/a100-racks/gres.conf"), "gres.conf", &g, &notes));
  ck_assert_uint_eq(g.gpus.size(), 2);
  ck_assert_sstr_eq(g.autodetect.at(""), "off");
  ck_assert_uint_eq(g.gpus[1].files.size(), 4);
  ck_assert_sstr_eq(g.gpus[1].files[0], "/dev/nvidia4");
  ck_assert_int_eq(g.gpus[1].cores.front(), 8);
  ck_assert_int_eq(g.gpus[1].cores.back(), 15);
  ck_assert_uint_eq(g.gpus[1].nodes.size(), 8);
  ck_assert_sstr_eq(g.gpus[1].where, "gres.conf:4");
  // Other GRES and Count-only GPU lines.
  GresConf h;
  ck_assert_ok(
      parse_gres_conf("Name=mps Count=100\nNodeName=x Name=gpu Type=t4 Count=2\n"
                      "NodeName=y AutoDetect=nvml\n",
                      "g", &h, &notes));
  ck_assert_uint_eq(h.gpus.size(), 1);
  ck_assert_int_eq(h.gpus[0].count, 2);
  ck_assert_sstr_eq(h.autodetect.at("y"), "nvml");
}
END_TEST

START_TEST(gres_conf_errors) {
  GresConf g;
  std::vector<std::string> n;
  ck_assert_sstr_eq(parse_gres_conf("Name=gpu File=/dev/nvidia0 Foo=1\n", "g.conf", &g, &n),
                    "g.conf:1: Foo: unknown gres.conf key");
  ck_assert_sstr_eq(
      parse_gres_conf("\nName=gpu File=/dev/nvidia[0-1] Links=-1,0\n", "g.conf", &g, &n),
      "g.conf:2: Links: a Links= row describes one GPU, but this line has 2");
  ck_assert_has(parse_gres_conf("Name=gpu File=/dev/nvidia0 Links=-1,-1\n", "g.conf", &g, &n),
                "g.conf:1: Links: needs exactly one -1");
  ck_assert_has(parse_gres_conf("Name=gpu File=/dev/nvidia0 Links=-1,x\n", "g.conf", &g, &n),
                "g.conf:1: Links: 'x' is not a link count");
  ck_assert_has(parse_gres_conf("Name=gpu File=/dev/nvidia0 Cores=3-1\n", "g.conf", &g, &n),
                "g.conf:1: Cores: range '3-1' runs backwards");
  ck_assert_sstr_eq(parse_gres_conf("Name=gpu File=/dev/nvidia[0-1] Count=3\n", "g.conf", &g, &n),
                    "g.conf:1: Count: is 3 but File= names 2 devices");
  ck_assert_has(parse_gres_conf("Name=gpu Type=a100\n", "g.conf", &g, &n), "g.conf:1: File: ");
  ck_assert_has(parse_gres_conf("Type=a100\n", "g.conf", &g, &n), "g.conf:1: Name: required");
  ck_assert_has(parse_gres_conf("AutoDetect=maybe\n", "g.conf", &g, &n), "g.conf:1: AutoDetect: ");
  ck_assert_has(parse_gres_conf("Name=gpu File=/dev/a,/dev/a\n", "g.conf", &g, &n), "listed twice");
}
END_TEST

START_TEST(gres_combine_links_order_and_errors) {
  Fixture f = load("nvlink");
  const NodeFacts* dgx = nullptr;
  for (const auto& n : f.nodes)
    if (n.name == "dgx1") dgx = &n;
  ck_assert_ptr_nonnull(dgx);
  ck_assert_uint_eq(dgx->gpus.size(), 8);
  // gres.conf lists nvidia4..7 first; the -1 in Links= puts them at 4..7.
  for (int i = 0; i < 8; i++) {
    ck_assert_int_eq(dgx->gpus[i].index, i);
    ck_assert_sstr_eq(dgx->gpus[i].file, "/dev/nvidia" + std::to_string(i));
  }
  ck_assert_int_eq(dgx->gpus[5].cores.front(), 20);

  ConfTexts t;
  std::vector<NodeFacts> nodes;
  TopologyFacts topo;
  std::vector<std::string> notes;
  t.slurm_conf = "NodeName=n1 Sockets=1 CoresPerSocket=4 Gres=gpu:2\n";
  t.gres_conf = "Name=gpu File=/dev/nvidia[0-1] Cores=0-5\n";
  ck_assert_sstr_eq(facts_from_conf(t, &nodes, &topo, &notes).msg,
                    "gres.conf:1: Cores: core 4 does not exist on node 'n1' (1 sockets x 4 cores)");
  t.gres_conf =
      "Name=gpu File=/dev/nvidia0 Links=-1,1,0\nName=gpu File=/dev/nvidia1 Links=1,-1,0\n";
  ck_assert_has(facts_from_conf(t, &nodes, &topo, &notes).msg,
                "gres.conf:1: Links: has 3 entries but node 'n1' has 2 GPUs");
  t.gres_conf = "Name=gpu File=/dev/nvidia0 Links=-1,1\nName=gpu File=/dev/nvidia1 Links=-1,1\n";
  ck_assert_has(facts_from_conf(t, &nodes, &topo, &notes).msg,
                "gres.conf:2: Links: two GPUs of node 'n1' put -1 at position 0");
  // No gres.conf lines: the GPUs come from slurm.conf, and a note says so.
  t.gres_conf = "NodeName=other Name=gpu File=/dev/nvidia0\n";
  notes.clear();
  ck_assert_ok(facts_from_conf(t, &nodes, &topo, &notes).msg);
  ck_assert(!nodes[0].gpus_known);
  ck_assert_has(join(notes, "|"), "no gres.conf lines for n1");
  ck_assert_has(join(notes, "|"), "gres.conf names nodes slurm.conf does not define: other");
}
END_TEST

// ---------------------------------------------------------------- topology.conf

START_TEST(topology_conf_switches) {
  TopologyFacts t;
  ck_assert_ok(parse_topology_conf(read_fixture("tests/topo/a100-racks/topology.conf"),
                                   "topology.conf", &t));
  ck_assert_uint_eq(t.switches.size(), 3);
  ck_assert_sstr_eq(t.switches[1].name, "rack1");
  ck_assert_uint_eq(t.switches[1].nodes.size(), 4);
  ck_assert_sstr_eq(join(t.switches[2].switches), "rack0,rack1");
  ck_assert_sstr_eq(t.switches[2].where, "topology.conf:4");
}
END_TEST

START_TEST(topology_conf_errors) {
  TopologyFacts t;
  ck_assert_sstr_eq(parse_topology_conf("SwitchName=s1 Switches=s9\n", "t.conf", &t),
                    "t.conf:1: Switches: unknown switch 's9'");
  ck_assert_sstr_eq(parse_topology_conf("SwitchName=s1\nSwitchName=s1\n", "t.conf", &t),
                    "t.conf:2: SwitchName: switch 's1' is already defined at t.conf:1");
  ck_assert_has(
      parse_topology_conf("SwitchName=a Switches=b\nSwitchName=b Switches=a\n", "t.conf", &t),
      "is below itself");
  ck_assert_has(
      parse_topology_conf("SwitchName=a Switches=c\nSwitchName=b Switches=c\nSwitchName=c\n",
                          "t.conf", &t),
      "t.conf:2: Switches: switch 'c' is already below switch 'a'");
  ck_assert_sstr_eq(parse_topology_conf("SwitchName=a Color=red\n", "t.conf", &t),
                    "t.conf:1: Color: unknown topology.conf key");
  ck_assert_has(parse_topology_conf("Nodes=n1\n", "t.conf", &t),
                "a topology.conf line starts with SwitchName=");
  ck_assert_has(parse_topology_conf("SwitchName=a Nodes=n[1-\n", "t.conf", &t),
                "t.conf:1: Nodes: ");
  ck_assert_has(parse_topology_conf("SwitchName=a Switches=a\n", "t.conf", &t), "lists itself");
}
END_TEST

// ---------------------------------------------------------------- derivation

START_TEST(derive_sockets_racks_spine) {
  Derived d = derive(load("a100-racks"));
  ck_assert_sstr_eq(
      types_text(d.spec),
      "A100-SOCKET=a100*4 A100-NODE=A100-SOCKET*2[n] A100-RACK=A100-NODE*4 A100-SPINE=A100-RACK*2");
  // Node leaves are 0..7 in socket order: the engine generates them; nothing spelled out.
  ck_assert_sstr_eq(
      cells_text(d.spec),
      "A100-SPINE@spine(rack0(node1,node2,node3,node4),rack1(node5,node6,node7,node8))");
  ck_assert_sstr_eq(d.spec.physical_cells[0].children[1].children[2].where,
                    "derived.physicalCells[0].cellChildren[1].cellChildren[2]");
  ck_assert_sstr_eq(type_of(d.spec, "A100-NODE")->where, "derived.cellTypes.A100-NODE");
  ck_assert(d.report.problems.empty());
  ck_assert(d.report.mismatches.empty());
  ck_assert_sstr_eq(compress_hostlist(d.report.derived_nodes), "node[1-8]");
  ck_assert(d.report.explicit_nodes.empty());
  ck_assert_uint_eq(d.report.derived_types.size(), 4);

  // The engine places a 4-GPU job on one socket and a 2x8 job inside one rack.
  hived_engine* e = nullptr;
  ck_assert_ok(build_engine(d.spec, &e));
  ck_assert_uint_eq(hived_node_count(e), 8);
  hived_member m{1, 4};
  hived_job_request r{};
  r.job = "j4";
  r.priority = HIVED_PRIORITY_OPPORTUNISTIC;
  r.members = &m;
  r.n_members = 1;
  const hived_decision* dec = nullptr;
  ck_assert_int_eq(hived_submit(e, &r, 0, &dec), HIVED_OK);
  ck_assert_int_eq(dec->outcome, HIVED_PLACED);
  ck_assert_int_eq(dec->pods[0].n_leaves, 4);
  int socket = dec->pods[0].leaves[0] / 4;
  for (int i = 0; i < 4; i++) ck_assert_int_eq(dec->pods[0].leaves[i] / 4, socket);
  hived_engine_free(e);
}
END_TEST

START_TEST(derive_nvlink_levels_and_collapse) {
  Derived d = derive(load("nvlink"));
  // pair nodes: NVLink pairs on one socket (the socket level adds nothing).
  const auto* node = type_of(d.spec, "RTX_A6000-NODE");
  ck_assert_ptr_nonnull(node);
  ck_assert_sstr_eq(node->child_type, "RTX_A6000-PAIR");
  ck_assert_int_eq(node->child_count, 2);
  // dgx1: the cube-mesh cliques are the sockets: one level, not two.
  ck_assert_sstr_eq(type_of(d.spec, "V100-NODE")->child_type, "V100-SOCKET");
  ck_assert_int_eq(type_of(d.spec, "V100-SOCKET")->child_count, 4);
  ck_assert_ptr_null(type_of(d.spec, "V100-QUAD"));
  // cross1: NVLink pairs cut across sockets: sockets win, the note says why.
  ck_assert_sstr_eq(type_of(d.spec, "A40-NODE")->child_type, "A40-SOCKET");
  ck_assert_has(join(d.report.notes, "|"),
                "cross1: NVLink groups cut across socket groups: no NVLink level");
  // No switches: every node is a top-level cell.
  ck_assert_sstr_eq(cells_text(d.spec),
                    "RTX_A6000-NODE@pair1 RTX_A6000-NODE@pair2 V100-NODE@dgx1 A40-NODE@cross1");
}
END_TEST

START_TEST(derive_groups_need_nesting_order) {
  // NVLink pairs (0,2) and (1,3) on one socket: the leaves are spelled out in pair order.
  NodeFacts n;
  n.name = "x";
  n.sockets = 1;
  n.cores_per_socket = 4;
  const int links[4][4] = {{-1, 0, 1, 0}, {0, -1, 0, 1}, {1, 0, -1, 0}, {0, 1, 0, -1}};
  for (int i = 0; i < 4; i++) {
    GpuFact g;
    g.type = "l4";
    g.index = i;
    g.links.assign(links[i], links[i] + 4);
    n.gpus.push_back(g);
  }
  ClusterSpec spec;
  DeriveReport rep;
  ck_assert_ok(derive_cluster({n}, TopologyFacts(), ClusterSpec(), &spec, &rep));
  ck_assert_sstr_eq(types_text(spec), "L4-PAIR=l4*2 L4-NODE=L4-PAIR*2[n]");
  ck_assert_sstr_eq(cells_text(spec), "L4-NODE@x((0,2),(1,3))");
  ck_assert_ok(build_engine(spec));
  // Uneven cliques (0-1-2 and 3) give no level, and say so.
  n.gpus[0].links = {-1, 1, 1, 0};
  n.gpus[1].links = {1, -1, 1, 0};
  n.gpus[2].links = {1, 1, -1, 0};
  n.gpus[3].links = {0, 0, 0, -1};
  ck_assert_ok(derive_cluster({n}, TopologyFacts(), ClusterSpec(), &spec, &rep));
  ck_assert_sstr_eq(types_text(spec), "L4-NODE=l4*4[n]");
  ck_assert_has(join(rep.notes), "NVLink groups are uneven");
  // A fully connected NVLink (NVSwitch) is the node itself: no level, no note.
  for (auto& g : n.gpus) g.links.assign(4, 12);
  for (int i = 0; i < 4; i++) n.gpus[i].links[i] = -1;
  ck_assert_ok(derive_cluster({n}, TopologyFacts(), ClusterSpec(), &spec, &rep));
  ck_assert_sstr_eq(types_text(spec), "L4-NODE=l4*4[n]");
  ck_assert(rep.notes.empty());
}
END_TEST

START_TEST(derive_pcie_paths) {
  // Two switches of two GPUs each (root port > upstream port > downstream ports), in
  // two sockets of one switch each: sockets and switches coincide, one level.
  NodeFacts n;
  n.name = "p";
  n.sockets = 2;
  n.cores_per_socket = 2;
  for (int i = 0; i < 8; i++) {
    GpuFact g;
    g.type = "a10";
    g.index = i;
    g.cores = {i < 4 ? 0 : 2};
    g.pcie_path = {"rp" + std::to_string(i / 2), "up" + std::to_string(i / 2),
                   "down" + std::to_string(i)};
    n.gpus.push_back(g);
  }
  ClusterSpec spec;
  DeriveReport rep;
  ck_assert_ok(derive_cluster({n}, TopologyFacts(), ClusterSpec(), &spec, &rep));
  ck_assert_sstr_eq(types_text(spec),
                    "A10-PAIR=a10*2 A10-SOCKET=A10-PAIR*2 A10-NODE=A10-SOCKET*2[n]");
  ck_assert_ok(build_engine(spec));
  // A switch that straddles sockets is dropped in favour of sockets.
  for (int i = 0; i < 8; i++) n.gpus[i].pcie_path = {"rp" + std::to_string((i + 1) % 8 / 2)};
  ck_assert_ok(derive_cluster({n}, TopologyFacts(), ClusterSpec(), &spec, &rep));
  ck_assert_sstr_eq(types_text(spec), "A10-SOCKET=a10*4 A10-NODE=A10-SOCKET*2[n]");
  ck_assert_has(join(rep.notes), "PCIe groups cut across socket groups");
}
END_TEST

START_TEST(derive_mixed_models_shapes_and_broken_switches) {
  Derived d = derive(load("mixed"));
  // a100 has three node shapes: every a100 type carries its shape's tag.
  ck_assert_ptr_nonnull(type_of(d.spec, "A100-NODE-8G"));
  ck_assert_ptr_nonnull(type_of(d.spec, "A100-SOCKET-8G"));
  ck_assert_sstr_eq(type_of(d.spec, "A100-NODE-4G")->child_type, "a100");  // one socket: no level
  ck_assert_int_eq(type_of(d.spec, "A100-NODE-2G")->child_count, 2);
  ck_assert_sstr_eq(type_of(d.spec, "A100-RACK-8G")->child_type, "A100-NODE-8G");
  ck_assert_sstr_eq(type_of(d.spec, "T4-RACK-4G")->child_type, "T4-NODE-4G");
  ck_assert_ptr_null(type_of(d.spec, "A100-NODE"));
  // One message per switch that cannot be a cell, naming it and the differing types.
  ck_assert_uint_eq(d.report.problems.size(), 2);
  ck_assert_has(d.report.problems[0],
                "topology.conf:6: switch 'rackB' is not a cell: its a100 children have "
                "different cell types (A100-NODE-8G: big[3-4]; A100-NODE-4G: small[1-2])");
  ck_assert_has(d.report.problems[1],
                "topology.conf:9: switch 'top' is not a cell: its t4 children");
  ck_assert_has(join(d.report.notes, "|"),
                "switch 'top' is not a cell of a100 GPUs: switch 'rackB' below it is not");
  // rackB's nodes and rackD's lone node stay top-level; combo1's a100 are GPUs 2 and 3.
  ck_assert_sstr_eq(
      cells_text(d.spec),
      "A100-RACK-8G@rackA(big1,big2) A100-NODE-8G@big3 A100-NODE-8G@big4 A100-NODE-4G@small1 "
      "A100-NODE-4G@small2 A100-NODE-2G@combo1(2,3) T4-RACK-4G@rackC(t4n1,t4n2) T4-NODE-2G@combo1");
  // combo1 has cells in two chains; a t4 job may land there.
  hived_engine* e = nullptr;
  ck_assert_ok(build_engine(d.spec, &e));
  ck_assert_uint_eq(hived_node_count(e), 9);
  char* json = nullptr;
  ck_assert_int_eq(hived_inspect(e, nullptr, &json), HIVED_OK);
  ck_assert_has(std::string(json), "\"chain\":\"T4-NODE-2G\"");
  free(json);
  hived_engine_free(e);
}
END_TEST

START_TEST(derive_missing_gpu_is_reported_and_bad) {
  Derived d = derive(load("missing-gpu"));
  ck_assert_uint_eq(d.report.mismatches.size(), 1);
  const GresMismatch& m = d.report.mismatches[0];
  ck_assert_sstr_eq(m.node, "node4");
  ck_assert_sstr_eq(m.model, "a100");
  ck_assert_int_eq(m.expected, 8);
  ck_assert_int_eq(m.found, 7);
  ck_assert(m.missing());
  ck_assert_has(m.message, "node node4 has 7 a100 GPUs but slurm.conf Gres= configures 8");
  // node4 keeps the shape of its peers, so the rack stays a cell.
  ck_assert_sstr_eq(cells_text(d.spec), "A100-RACK@rack0(node1,node2,node3,node4)");
  ck_assert(d.report.problems.empty());
  hived_engine* e = nullptr;
  ck_assert_ok(build_engine(d.spec, &e));
  ck_assert_int_eq(hived_set_node_health(e, m.node.c_str(), 0), HIVED_OK);
  char* json = nullptr;
  ck_assert_int_eq(hived_inspect(e, nullptr, &json), HIVED_OK);
  ck_assert_has(std::string(json), "\"badNodes\":[\"node4\"]");
  free(json);
  hived_engine_free(e);

  // A lone node with a missing GPU and no peers: a flat cell of the configured size.
  NodeFacts n;
  n.name = "solo";
  n.configured["h100"] = 4;
  for (int i : {0, 1, 3}) {
    GpuFact g;
    g.type = "h100";
    g.index = i;
    n.gpus.push_back(g);
  }
  ClusterSpec spec;
  DeriveReport rep;
  ck_assert_ok(derive_cluster({n}, TopologyFacts(), ClusterSpec(), &spec, &rep));
  ck_assert_sstr_eq(types_text(spec), "H100-NODE=h100*4[n]");
  ck_assert_sstr_eq(cells_text(spec), "H100-NODE@solo");  // GPUs 0,1,3 + the missing 2
  ck_assert_uint_eq(rep.mismatches.size(), 1);
  ck_assert(rep.mismatches[0].missing());
  ck_assert_ok(build_engine(spec));
}
END_TEST

START_TEST(derive_facts_without_gres_conf) {
  // The plugin may know only slurm.conf's Gres= (AutoDetect, no gres.conf lines), with
  // untyped and mixed entries.
  std::vector<NodeFacts> nodes(3);
  nodes[0].name = "u1";
  nodes[0].configured[""] = 4;
  nodes[0].gpus_known = false;
  nodes[1].name = "u2";
  nodes[1].configured[""] = 4;  // untyped in slurm.conf, typed in gres.conf
  for (int i = 0; i < 4; i++) {
    GpuFact g;
    g.type = "a100";
    g.index = i;
    nodes[1].gpus.push_back(g);
  }
  nodes[2].name = "cpu";
  ClusterSpec spec;
  DeriveReport rep;
  ck_assert_ok(derive_cluster(nodes, TopologyFacts(), ClusterSpec(), &spec, &rep));
  ck_assert_sstr_eq(types_text(spec), "GPU-NODE=gpu*4[n] A100-NODE=a100*4[n]");
  ck_assert_sstr_eq(cells_text(spec), "GPU-NODE@u1 A100-NODE@u2");
  ck_assert(rep.mismatches.empty());
  ck_assert_ok(build_engine(spec));
  // Two nodes of one name are an error; a GPU type with '.' cannot be named.
  nodes[2].name = "u1";
  ck_assert_sstr_eq(derive_cluster(nodes, TopologyFacts(), ClusterSpec(), &spec, &rep),
                    "node 'u1' is described twice");
  nodes.resize(1);
  nodes[0].configured.clear();
  nodes[0].configured["a.b"] = 2;
  ck_assert_ok(derive_cluster(nodes, TopologyFacts(), ClusterSpec(), &spec, &rep));
  ck_assert_uint_eq(rep.problems.size(), 1);
  ck_assert_has(rep.problems[0], "GPU type 'a.b' of node u1 contains '.'");
  ck_assert(spec.physical_cells.empty());
  // GPU records out of order are fine; a repeated index drops the node, not the cluster.
  NodeFacts r;
  r.name = "rec";
  for (int i : {3, 1, 2, 0}) {
    GpuFact g;
    g.type = "a30";
    g.index = i;
    r.gpus.push_back(g);
  }
  ck_assert_ok(derive_cluster({r}, TopologyFacts(), ClusterSpec(), &spec, &rep));
  ck_assert_sstr_eq(cells_text(spec), "A30-NODE@rec");
  r.gpus[0].index = 1;
  ck_assert_ok(derive_cluster({r, nodes[0]}, TopologyFacts(), ClusterSpec(), &spec, &rep));
  ck_assert_sstr_eq(rep.problems[0],
                    "node rec: its GPU records repeat an index or lack one: no cells for it");
  ck_assert(spec.physical_cells.empty());
}
END_TEST

START_TEST(derive_rack_of_one_and_uneven_racks) {
  Fixture f = load("a100-racks");
  // rack0 has one node: no rack level for it; racks of 3 and 4 nodes are two types,
  // so the spine above them is not a cell.
  f.topology.switches[0].nodes = {"node1"};
  f.topology.switches[1].nodes = {"node2", "node3", "node4"};
  f.topology.switches.push_back({"rack2", {"node5", "node6", "node7", "node8"}, {}, "t:5"});
  f.topology.switches[2].switches = {"rack1", "rack2"};
  f.topology.switches.push_back({"top", {}, {"rack0", "spine"}, "t:6"});
  Derived d = derive(f);
  ck_assert_sstr_eq(type_of(d.spec, "A100-RACK")->child_type, "A100-NODE");
  ck_assert_int_eq(type_of(d.spec, "A100-RACK")->child_count, 3);
  ck_assert_int_eq(type_of(d.spec, "A100-RACK-32G")->child_count, 4);
  ck_assert_uint_eq(d.report.problems.size(), 1);
  ck_assert_has(
      d.report.problems[0],
      "topology.conf:4: switch 'spine' is not a cell: its a100 children have different cell "
      "types (A100-RACK: rack1; A100-RACK-32G: rack2)");
  ck_assert_sstr_eq(cells_text(d.spec),
                    "A100-NODE@node1 A100-RACK@rack1(node2,node3,node4) "
                    "A100-RACK-32G@rack2(node5,node6,node7,node8)");
}
END_TEST

// ---------------------------------------------------------------- precedence

ClusterSpec parse_conf(const std::string& json) {
  hived::Config c;
  std::string err = hived::parse_hived_conf(json, &c).msg;
  ck_assert_msg(err.empty(), "%s", err.c_str());
  return c.cluster;
}

START_TEST(explicit_cells_win) {
  // hived.conf names node1 (as a flat 8-GPU node) and node2 with a GPU too few: the
  // derivation leaves both alone, checks them against their GRES, and derives the rest.
  ClusterSpec expl = parse_conf(R"({"physicalCluster": {
      "cellTypes": {"FLAT8": {"childCellType": "a100", "childCellNumber": 8, "isNodeLevel": true},
                    "FLAT7": {"childCellType": "a100", "childCellNumber": 7, "isNodeLevel": true}},
      "physicalCells": [{"cellType": "FLAT8", "cellAddress": "node1"},
                        {"cellType": "FLAT7", "cellAddress": "node2"},
                        {"cellType": "FLAT8", "cellAddress": "ghost"}]},
    "virtualClusters": {"vc1": {"virtualCells": [{"cellType": "FLAT8", "cellNumber": 1}]}}})");
  Fixture f = load("a100-racks");
  f.topology = TopologyFacts();
  Derived d = derive(f, expl);
  ck_assert_sstr_eq(join(d.report.explicit_nodes), "node1,node2,ghost");
  ck_assert_sstr_eq(compress_hostlist(d.report.derived_nodes), "node[3-8]");
  ck_assert_sstr_eq(d.spec.physical_cells[0].where, "physicalCluster.physicalCells[0]");
  ck_assert_uint_eq(d.spec.physical_cells.size(), 3 + 6);
  ck_assert_uint_eq(d.spec.vcs.size(), 1);  // hived.conf's VCs are kept
  ck_assert_uint_eq(d.report.mismatches.size(), 1);
  ck_assert_sstr_eq(d.report.mismatches[0].node, "node2");
  ck_assert(!d.report.mismatches[0].missing());  // 8 found, 7 in the cell: extra, not bad
  ck_assert_has(join(d.report.notes),
                "hived.conf physicalCells name nodes Slurm does not know: ghost");
}
END_TEST

START_TEST(explicit_types_shape_derived_nodes) {
  // cellTypes alone (as hived-topo --json prints them for an 8-GPU PCIe box): derived
  // nodes of that model and size take the node type, so the PCIe pair level, which
  // gres.conf cannot carry, reaches the engine. A same-named type of another shape
  // makes the derived one pick another name; an identical one is shared.
  ClusterSpec expl = parse_conf(R"({"physicalCluster": {"cellTypes": {
      "A100-PAIR": {"childCellType": "a100", "childCellNumber": 2},
      "A100-SOCKET": {"childCellType": "A100-PAIR", "childCellNumber": 2},
      "A100-NODE": {"childCellType": "A100-SOCKET", "childCellNumber": 2, "isNodeLevel": true},
      "A100-RACK": {"childCellType": "A100-NODE", "childCellNumber": 2}}}})");
  Derived d = derive(load("a100-racks"), expl);
  ck_assert_sstr_eq(join(d.report.reused_types), "A100-NODE");
  ck_assert_sstr_eq(join(d.report.derived_types), "A100-RACK-32G,A100-SPINE");
  ck_assert_sstr_eq(
      cells_text(d.spec),
      "A100-SPINE@spine(rack0(node1,node2,node3,node4),rack1(node5,node6,node7,node8))");
  ChainTable t;
  ck_assert_ok(build_chain_table(d.spec, &t));
  ck_assert_uint_eq(t.chains.size(), 1);
  ck_assert_sstr_eq(t.chains[0].levels[2].type, "A100-PAIR");
  ck_assert_int_eq(t.chains[0].levels[2].cells, 32);

  // An identical socket type is shared rather than duplicated.
  ClusterSpec same = parse_conf(R"({"physicalCluster": {"cellTypes": {
      "A100-SOCKET": {"childCellType": "a100", "childCellNumber": 4}}}})");
  Derived s = derive(load("a100-racks"), same);
  ck_assert_sstr_eq(join(s.report.reused_types), "A100-SOCKET");
  ck_assert_uint_eq(s.spec.cell_types.size(), 4);
}
END_TEST

// ---------------------------------------------------------------- quotas

START_TEST(quota_largest_aligned_cells_first) {
  Derived d = derive(load("a100-racks"));
  ck_assert_sstr_eq(quota(d.spec, "gres/gpu=16"), "2xA100-SPINE.A100-RACK.A100-NODE");
  ck_assert_sstr_eq(
      quota(d.spec, "cpu=64,gres/gpu=12,mem=1G"),
      "1xA100-SPINE.A100-RACK.A100-NODE 1xA100-SPINE.A100-RACK.A100-NODE.A100-SOCKET");
  ck_assert_sstr_eq(quota(d.spec, "gres/gpu:A100=64"), "1xA100-SPINE");
  ck_assert_sstr_eq(quota(d.spec, "gres/gpu=40"),
                    "1xA100-SPINE.A100-RACK 1xA100-SPINE.A100-RACK.A100-NODE");
  ck_assert_sstr_eq(quota(d.spec, "gres/gpu=3"),
                    "3xA100-SPINE.A100-RACK.A100-NODE.A100-SOCKET.a100");
  ck_assert_sstr_eq(quota(d.spec, "gres/gpu=0"), "");
  ck_assert_sstr_eq(quota(d.spec, "cpu=4"), "");
  // 2 GPUs on NVLink-pair nodes are one pair.
  Derived n = derive(load("nvlink"));
  ck_assert_sstr_eq(quota(n.spec, "gres/gpu:rtx_a6000=2"), "1xRTX_A6000-NODE.RTX_A6000-PAIR");
  ck_assert_sstr_eq(quota(n.spec, "gres/gpu:rtx_a6000=6"),
                    "1xRTX_A6000-NODE 1xRTX_A6000-NODE.RTX_A6000-PAIR");
}
END_TEST

START_TEST(quota_respects_other_vcs) {
  Derived d = derive(load("a100-racks"));
  // A VC already holds a rack and three sockets: what is left is one rack minus 12 GPUs.
  hived::VcSpec vc;
  vc.name = "big";
  vc.where = "virtualClusters.big";
  vc.virtual_cells.push_back({"virtualClusters.big.virtualCells[0]", "A100-RACK", 1});
  vc.virtual_cells.push_back({"virtualClusters.big.virtualCells[1]", "A100-SOCKET", 3});
  d.spec.vcs.push_back(vc);
  // No rack is free as a whole (the sockets are counted against it), so 20 GPUs are
  // two nodes and a socket.
  ck_assert_sstr_eq(
      quota(d.spec, "gres/gpu=20"),
      "2xA100-SPINE.A100-RACK.A100-NODE 1xA100-SPINE.A100-RACK.A100-NODE.A100-SOCKET");
  std::string err;
  ck_assert_sstr_eq(quota(d.spec, "gres/gpu=21", &err), "ERR");
  ck_assert_sstr_eq(
      err,
      "account 'acct': GrpTRES asks for 21 a100 GPUs but only 20 of the cluster's 64 are "
      "not yet promised to other VCs (over-commit)");
  // The result goes through the engine's own safety check.
  hived::VcSpec q;
  ck_assert_ok(quota_to_vc(d.spec, "acct", "gres/gpu=20", &q));
  d.spec.vcs.push_back(q);
  ck_assert_ok(build_engine(d.spec));
  ck_assert_has(quota_to_vc(d.spec, "big", "gres/gpu=1", &q),
                "account 'big': already has cells in hived.conf");
}
END_TEST

// On nodes of two sizes, a limit that one big node or the small nodes' rack would
// meet gets the node: a job of that many GPUs then runs inside one node.
START_TEST(quota_tie_prefers_fewer_nodes) {
  Derived d = derive(load("two-sizes"));
  ck_assert_sstr_eq(quota(d.spec, "gres/gpu=8"), "1xA100-RACK-8G.A100-NODE-8G");
  // Largest cells still come first: 16 GPUs are the big nodes' rack.
  ck_assert_sstr_eq(quota(d.spec, "gres/gpu=16"), "1xA100-RACK-8G");
}
END_TEST

// The C API hands account limits it could not give cells back as data (one sentence
// each), not only as "quota refused:" lines of the summary text.
START_TEST(effective_config_refused_quotas_as_data) {
  const std::string slurm = read_fixture("tests/topo/a100-racks/slurm.conf");
  const std::string gres = read_fixture("tests/topo/a100-racks/gres.conf");
  const std::string topo = read_fixture("tests/topo/a100-racks/topology.conf");
  const hived_account_quota q[] = {{"small", "gres/gpu=8"}, {"huge", "gres/gpu=1000"}};
  char *json = nullptr, *summary = nullptr, **refused = nullptr, err[512] = "";
  size_t n_refused = 0;
  ck_assert_int_eq(hived_effective_config("", slurm.c_str(), gres.c_str(), topo.c_str(), q, 2,
                                          &json, &summary, &refused, &n_refused, err, sizeof err),
                   HIVED_OK);
  ck_assert_uint_eq(n_refused, 1);
  ck_assert_msg(has(refused[0], "account 'huge'"), "%s", refused[0]);
  ck_assert_msg(has(json, "\"small\""), "the accepted limit has no VC");
  hived_strings_free(refused, n_refused);
  free(json);
  free(summary);
  // No limits refused: no array.
  ck_assert_int_eq(hived_effective_config("", slurm.c_str(), gres.c_str(), topo.c_str(), q, 1,
                                          &json, nullptr, &refused, &n_refused, err, sizeof err),
                   HIVED_OK);
  ck_assert_uint_eq(n_refused, 0);
  ck_assert_ptr_null(refused);
  free(json);
}
END_TEST

START_TEST(quota_models_and_errors) {
  Derived d = derive(load("mixed"));
  std::string err;
  quota(d.spec, "gres/gpu=4", &err);
  ck_assert_has(
      err, "GrpTRES gres/gpu=4 does not say which GPU model (a100, t4); give gres/gpu:<model>=N");
  // Typed limits use their model; the untyped rest goes to the one model left.
  ck_assert_sstr_eq(quota(d.spec, "gres/gpu=12,gres/gpu:t4=4"),
                    "1xT4-RACK-4G.T4-NODE-4G 1xA100-RACK-8G.A100-NODE-8G");
  quota(d.spec, "gres/gpu:v100=1", &err);
  ck_assert_has(err, "GrpTRES gres/gpu:v100: no cells have GPU model 'v100' (models: a100, t4)");
  quota(d.spec, "gres/gpu=2,gres/gpu:t4=4", &err);
  ck_assert_has(err, "gres/gpu=2 is less than its typed limits (4)");
  std::vector<GpuTres> t;
  ck_assert_has(parse_grptres_gpus("gres/gpu=x", &t), "GrpTRES: gres/gpu: 'x' is not a GPU count");
  ck_assert_has(parse_grptres_gpus("gres/gpu=1,gres/gpu=2", &t), "given twice");
  ck_assert_has(parse_grptres_gpus("gres/gpu", &t), "is not TRES=count");
  t.clear();
  ck_assert_ok(parse_grptres_gpus("gres/gpumem=5,gres/gpu:a100=2", &t));
  ck_assert_uint_eq(t.size(), 1);
  ck_assert_sstr_eq(t[0].type, "a100");
}
END_TEST

START_TEST(cluster_config_end_to_end) {
  Fixture f = load("a100-racks");
  ClusterSpec expl = parse_conf(R"({"virtualClusters": {"prod": {"virtualCells": [
      {"cellType": "A100-RACK", "cellNumber": 1}]}}})");
  ClusterConfig cc;
  ck_assert_ok(build_cluster_config(
                   f.nodes, f.topology, expl,
                   {{"prod", "gres/gpu=64"}, {"dev", "gres/gpu=12"}, {"greedy", "gres/gpu=64"}},
                   &cc)
                   .msg);
  ck_assert_uint_eq(cc.spec.vcs.size(), 2);  // prod from hived.conf, dev from sacctmgr
  ck_assert_uint_eq(cc.quota_errors.size(), 1);
  ck_assert_has(cc.quota_errors[0], "account 'greedy'");
  ck_assert_has(cc.summary, "  prod: 1 x A100-RACK (32) = 32 a100 GPUs\n");
  ck_assert_has(
      cc.summary,
      "  dev: 1 x A100-SPINE.A100-RACK.A100-NODE (8) + 1 x "
      "A100-SPINE.A100-RACK.A100-NODE.A100-SOCKET (4) = 12 a100 GPUs [from sacctmgr GrpTRES]\n");
  ck_assert_has(cc.summary, "quota not converted: account 'greedy'");
  hived_engine* e = nullptr;
  char err[1024] = "";
  ck_assert_msg(hived_engine_new(cc.hived_conf_json.c_str(), &e, err, sizeof err) == HIVED_OK, "%s",
                err);
  char* json = nullptr;
  ck_assert_int_eq(hived_inspect(e, "dev", &json), HIVED_OK);
  ck_assert_has(std::string(json), "\"vc\":\"dev\"");
  free(json);
  hived_engine_free(e);
}
END_TEST

// ---------------------------------------------------------------- output

START_TEST(summary_text) {
  Derived d = derive(load("missing-gpu"));
  std::string s = hierarchy_summary(d.spec, &d.report);
  ck_assert_has(s, "cell hierarchy: 1 chain, 4 nodes, 32 GPUs\n");
  ck_assert_has(s, "chain A100-RACK: 32 a100 GPUs on node[1-4]\n");
  ck_assert_has(s, "      4  A100-RACK        1  4 x A100-NODE           32  rack0\n");
  ck_assert_has(s, "      3  A100-NODE        4  2 x A100-SOCKET          8  node level\n");
  ck_assert_has(s, "      1  a100            32                           1\n");
  ck_assert_has(s, "derived nodes: node[1-4]; nodes from hived.conf: none\n");
  ck_assert_has(s, "nodes whose GRES disagrees with their cells:\n  node node4 has 7 a100 GPUs");
  ck_assert(!has(s, "problems:"));
  ClusterSpec bad;
  bad.physical_cells.push_back(PhysicalCellSpec());
  bad.physical_cells[0].cell_type = "NOPE";
  bad.physical_cells[0].where = "x";
  ck_assert_has(hierarchy_summary(bad),
                "cell hierarchy: invalid: x.cellType: unknown cell type 'NOPE'");
}
END_TEST

START_TEST(json_round_trip) {
  Derived d = derive(load("mixed"));
  d.spec.vcs.push_back({"w", "v\"1", {{"w", "A100-RACK-8G", 1}}, {}, {}});
  std::string json = spec_to_hived_conf(d.spec);
  ClusterSpec back = parse_conf(json);
  ck_assert_sstr_eq(types_text(back), types_text(d.spec));
  ck_assert_sstr_eq(cells_text(back), cells_text(d.spec));
  ck_assert_sstr_eq(back.vcs[0].name, "v\"1");
  ck_assert_sstr_eq(json_quote("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
  ck_assert_sstr_eq(
      spec_to_hived_conf(ClusterSpec()),
      "{\n  \"physicalCluster\": {\n    \"cellTypes\": {},\n    \"physicalCells\": []\n  }\n}\n");
}
END_TEST

// slurm_conf_examples/derived: the documented example derives what its README shows
// and its VCs (written with derived type names) load.
START_TEST(derived_example) {
  ConfTexts t;
  t.slurm_conf = read_fixture("slurm_conf_examples/derived/slurm.conf");
  t.gres_conf = read_fixture("slurm_conf_examples/derived/gres.conf");
  t.topology_conf = read_fixture("slurm_conf_examples/derived/topology.conf");
  std::vector<NodeFacts> nodes;
  TopologyFacts topo;
  std::vector<std::string> notes;
  ck_assert_ok(facts_from_conf(t, &nodes, &topo, &notes).msg);
  ck_assert(notes.empty());
  hived::Config cfg;
  ck_assert_ok(
      hived::parse_hived_conf(read_fixture("slurm_conf_examples/derived/hived.conf"), &cfg).msg);
  ck_assert(cfg.cluster.cell_types.empty());
  ClusterConfig cc;
  ck_assert_ok(build_cluster_config(nodes, topo, cfg.cluster, {{"ml", "gres/gpu=6"}}, &cc).msg);
  ck_assert_sstr_eq(types_text(cc.spec),
                    "A100-PAIR=a100*2 A100-SOCKET=A100-PAIR*2 A100-NODE=A100-SOCKET*2[n] "
                    "A100-RACK=A100-NODE*4 A100-SPINE=A100-RACK*2");
  ck_assert(cc.quota_errors.empty());
  ck_assert(cc.report.problems.empty() && cc.report.notes.empty() && cc.report.mismatches.empty());
  std::string readme = read_fixture("slurm_conf_examples/derived/README.md");
  size_t from = cc.summary.find("chain "), to = cc.summary.find("  ml: ");
  ck_assert_has(readme, cc.summary.substr(from, to - from));
  ck_assert_ok(build_engine(cc.spec));
}
END_TEST

Suite* topo_suite() {
  Suite* s = suite_create("topo");
  TCase* parse = tcase_create("parse");
  tcase_add_test(parse, hostlist_expand);
  tcase_add_test(parse, hostlist_compress_and_ranges);
  tcase_add_test(parse, hostlist_limit_checked_before_expanding);
  tcase_add_test(parse, file_hostlists_share_a_budget);
  tcase_add_test(parse, hostlist_errors_are_config_status);
  tcase_add_test(parse, topo_parsers_fail_with_config_status);
  tcase_add_test(parse, conf_line_syntax);
  tcase_add_test(parse, slurm_conf_nodes);
  tcase_add_test(parse, slurm_conf_socket_rules_and_gres);
  tcase_add_test(parse, slurm_conf_errors);
  tcase_add_test(parse, gres_conf_records);
  tcase_add_test(parse, gres_conf_errors);
  tcase_add_test(parse, gres_combine_links_order_and_errors);
  tcase_add_test(parse, topology_conf_switches);
  tcase_add_test(parse, topology_conf_errors);
  suite_add_tcase(s, parse);
  TCase* der = tcase_create("derive");
  tcase_add_test(der, derive_sockets_racks_spine);
  tcase_add_test(der, derive_nvlink_levels_and_collapse);
  tcase_add_test(der, derive_groups_need_nesting_order);
  tcase_add_test(der, derive_pcie_paths);
  tcase_add_test(der, derive_mixed_models_shapes_and_broken_switches);
  tcase_add_test(der, derive_missing_gpu_is_reported_and_bad);
  tcase_add_test(der, derive_facts_without_gres_conf);
  tcase_add_test(der, derive_rack_of_one_and_uneven_racks);
  tcase_add_test(der, explicit_cells_win);
  tcase_add_test(der, explicit_types_shape_derived_nodes);
  suite_add_tcase(s, der);
  TCase* q = tcase_create("quota");
  tcase_add_test(q, quota_largest_aligned_cells_first);
  tcase_add_test(q, quota_respects_other_vcs);
  tcase_add_test(q, quota_tie_prefers_fewer_nodes);
  tcase_add_test(q, effective_config_refused_quotas_as_data);
  tcase_add_test(q, quota_models_and_errors);
  tcase_add_test(q, cluster_config_end_to_end);
  tcase_add_test(q, derived_example);
  suite_add_tcase(s, q);
  TCase* out = tcase_create("output");
  tcase_add_test(out, summary_text);
  tcase_add_test(out, json_round_trip);
  suite_add_tcase(s, out);
  return s;
}

}  // namespace

int main() { return check_run(topo_suite(), CK_NORMAL, CK_FORK_GETENV); }
