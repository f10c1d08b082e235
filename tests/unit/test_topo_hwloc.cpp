// SPDX-License-Identifier: GPL-2.0-or-later
// Check unit tests for hwloc discovery (src/topo/hwloc_facts) and hived-topo on the
// hand-written hwloc XML fixtures in tests/topo/hwloc: an 8-GPU two-socket box with a
// PCIe switch per GPU pair, a 4-GPU one-socket box, a 16-GPU box with 4-GPU switches,
// and a node without GPUs (whose BMC display device must not count as one).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "topo/derive.h"
#include "topo/gres_lines.h"
#include "topo/hwloc_facts.h"
#include "topo_test_util.h"
#include "../check_run.h"

using namespace hived::topo;
using topo_test::build_engine;
using topo_test::read_fixture;

namespace {

HwlocNode read_xml(const std::string& name) {
  HwlocOptions o;
  o.xml_path = topo_test::fixture_path("tests/topo/hwloc/" + name);
  HwlocNode n;
  hived::Status err = read_hwloc_node(o, &n);
  ck_assert_msg(err.ok(), "%s", err.msg.c_str());
  return n;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

std::string types_text(const hived::ClusterSpec& s) {
  std::string o;
  for (const auto& t : s.cell_types)
    o += (o.empty() ? "" : " ") + t.name + "=" + t.child_type + "*" +
         std::to_string(t.child_count) + (t.is_node_level ? "[n]" : "");
  return o;
}

std::string derived_types(const HwlocNode& n) {
  hived::ClusterSpec spec;
  DeriveReport rep;
  hived::Status err = derive_cluster({n.facts}, TopologyFacts(), hived::ClusterSpec(), &spec, &rep);
  ck_assert_msg(err.ok(), "%s", err.msg.c_str());
  if (!spec.physical_cells.empty()) {
    std::string eng = build_engine(spec);
    ck_assert_msg(eng.empty(), "%s", eng.c_str());
  }
  return types_text(spec);
}

// Runs hived-topo in the fixture directory (so file names in its output are short).
std::string run_topo(const std::string& args, int* status) {
  const char* b = getenv("HIVED_BUILDDIR");
  std::string builddir = b && *b ? b : HIVED_TOP_BUILDDIR;
  std::string cmd = "cd '" + topo_test::fixture_path("tests/topo/hwloc") + "' && '" + builddir +
                    "/hived-topo' " + args + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  ck_assert_ptr_nonnull(p);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int rc = pclose(p);
  *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return out;
}

// hived-topo --check tells MIG slices, shards and quota warnings from the derived
// config's data (not by reading them back out of the summary text).
START_TEST(hived_topo_check_fractions_and_quota_warnings) {
  const std::string mig = topo_test::fixture_path("tests/topo/mig/slurm.conf");
  const std::string shard = topo_test::fixture_path("tests/topo/shard/slurm.conf");
  int rc = -1;
  std::string out = run_topo("--check --slurm-conf '" + mig + "'", &rc);
  ck_assert_int_eq(rc, 0);
  ck_assert_msg(
      out.find("hived-topo: MIG slices: 6 slices on 2 GPUs (no GPU cell for such a "
               "GPU: each slice is a leaf cell of its profile's chain)\nhived-topo: OK: ") == 0,
      "%s", out.c_str());
  out = run_topo("--check --slurm-conf '" + shard + "'", &rc);
  ck_assert_int_eq(rc, 0);
  ck_assert_msg(
      out.find("hived-topo: shards: a100: 8 shards per GPU on s[1-2,4]: ") == 0 &&
          out.find("\nhived-topo: shards: l40s: 4 shards per GPU on s3: ") != std::string::npos,
      "%s", out.c_str());
  // A MIG typed limit gives slice cells of its profile (one VC, OK); a profile that no
  // cell has is a problem for --check (stderr), with no OK line.
  run_topo("--check --slurm-conf '" + mig + "' --quota A=gres/gpu:a100_1g.5gb=2,gres/gpu=3", &rc);
  ck_assert_int_eq(rc, 0);
  const std::string quota = " --quota A=gres/gpu:a100_7g.80gb=1,gres/gpu=2";
  run_topo("--check --slurm-conf '" + mig + "'" + quota, &rc);
  ck_assert_int_eq(rc, 1);
  out = run_topo("--check --slurm-conf '" + mig + "'" + quota + " 2>&1 | cat", &rc);
  ck_assert_msg(out.find("hived-topo: sacctmgr quota refused: account 'A': GrpTRES "
                         "gres/gpu:a100_7g.80gb: no cells are MIG slices") != std::string::npos &&
                    out.find("1 problem(s)") != std::string::npos &&
                    out.find("OK:") == std::string::npos,
                "%s", out.c_str());
}
END_TEST

// With slurm.quotaFromSacctmgr false the plugin makes no VCs from account limits:
// --check ignores --quota and --sacctmgr (sacctmgr is not run) and says so on stderr.
START_TEST(hived_topo_check_quota_off_note) {
  const std::string mig = topo_test::fixture_path("tests/topo/mig/slurm.conf");
  char path[] = "/tmp/test_topo_hwloc_XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  const char conf[] = "{\"slurm\": {\"quotaFromSacctmgr\": false}}\n";
  ck_assert_int_eq(write(fd, conf, sizeof(conf) - 1), sizeof(conf) - 1);
  close(fd);
  const std::string base = "--check --slurm-conf '" + mig + "' --hived-conf '" + path + "'";
  // A limit --check refuses when it is used (see above).
  const std::string quota = " --quota A=gres/gpu:a100_7g.80gb=1,gres/gpu=2";
  int rc = -1;
  std::string out = run_topo(base + quota, &rc);
  ck_assert_int_eq(rc, 0);
  ck_assert_msg(out.find("hived-topo: OK: ") != std::string::npos, "%s", out.c_str());
  out = run_topo(base + quota + " 2>&1 | cat", &rc);
  ck_assert_msg(out.find("hived-topo: note: " + std::string(path) +
                         " sets slurm.quotaFromSacctmgr=false, so select/hived makes no VCs from "
                         "account limits: --quota is ignored\n") != std::string::npos,
                "%s", out.c_str());
  run_topo(base + " --sacctmgr" + quota, &rc);
  ck_assert_int_eq(rc, 0);
  out = run_topo(base + " --sacctmgr" + quota + " 2>&1 | cat", &rc);
  ck_assert_msg(out.find(": --sacctmgr and --quota are ignored\n") != std::string::npos, "%s",
                out.c_str());
  out = run_topo(base + " 2>&1 | cat", &rc);
  ck_assert_msg(out.find("note:") == std::string::npos, "%s", out.c_str());
  unlink(path);
}
END_TEST

START_TEST(hwloc_a100_8gpu_pcie_pairs) {
  HwlocNode n = read_xml("a100-8gpu-2socket.xml");
  const NodeFacts& f = n.facts;
  ck_assert_sstr_eq(f.name, "gpu8");
  ck_assert_int_eq(f.sockets, 2);
  ck_assert_int_eq(f.cores_per_socket, 4);
  ck_assert_int_eq(f.threads_per_core, 2);
  ck_assert_uint_eq(f.gpus.size(), 8);  // the BMC's VGA card0 is not a GPU
  for (int i = 0; i < 8; i++) {
    ck_assert_int_eq(f.gpus[i].index, i);
    ck_assert_sstr_eq(f.gpus[i].type, "a100");
    ck_assert_sstr_eq(f.gpus[i].file, "/dev/nvidia" + std::to_string(i));
    ck_assert_uint_eq(f.gpus[i].cores.size(), 4);
    ck_assert_int_eq(f.gpus[i].cores[0], i < 4 ? 0 : 4);
    ck_assert_uint_eq(f.gpus[i].pcie_path.size(), 3);  // root port, switch up, switch down
  }
  ck_assert_sstr_eq(f.gpus[0].pcie_path[0], f.gpus[1].pcie_path[0]);
  ck_assert(f.gpus[1].pcie_path[0] != f.gpus[2].pcie_path[0]);
  ck_assert(f.gpus[0].pcie_path[2] != f.gpus[1].pcie_path[2]);
  ck_assert(f.gpus[0].links.empty());
  ck_assert(!n.have_links);
  ck_assert_has(joined(n.notes), "no NVML data: Links= is omitted");
  ck_assert_sstr_eq(joined(gres_conf_lines(f)),
                    "NodeName=gpu8 Name=gpu Type=a100 File=/dev/nvidia[0-3] Cores=0-3\n"
                    "NodeName=gpu8 Name=gpu Type=a100 File=/dev/nvidia[4-7] Cores=4-7\n");
  ck_assert_sstr_eq(slurm_conf_node_line(f),
                    "NodeName=gpu8 Sockets=2 CoresPerSocket=4 ThreadsPerCore=2 Gres=gpu:a100:8");
  ck_assert_sstr_eq(derived_types(n),
                    "A100-PAIR=a100*2 A100-SOCKET=A100-PAIR*2 A100-NODE=A100-SOCKET*2[n]");
}
END_TEST

START_TEST(hwloc_v100_4gpu_one_socket) {
  HwlocNode n = read_xml("v100-4gpu-1socket.xml");
  const NodeFacts& f = n.facts;
  ck_assert_sstr_eq(f.name, "gpu4");
  ck_assert_int_eq(f.sockets, 1);
  ck_assert_uint_eq(f.gpus.size(), 4);
  ck_assert_sstr_eq(f.gpus[3].type, "v100");  // "Tesla V100-PCIE-16GB"
  ck_assert_uint_eq(f.gpus[3].cores.size(), 8);
  ck_assert_uint_eq(f.gpus[3].pcie_path.size(), 1);  // each GPU on its own root port
  ck_assert_sstr_eq(joined(gres_conf_lines(f)),
                    "NodeName=gpu4 Name=gpu Type=v100 File=/dev/nvidia[0-3] Cores=0-7\n");
  ck_assert_sstr_eq(derived_types(n), "V100-NODE=v100*4[n]");
}
END_TEST

START_TEST(hwloc_h100_16gpu_quads) {
  HwlocNode n = read_xml("h100-16gpu-2socket.xml");
  const NodeFacts& f = n.facts;
  ck_assert_uint_eq(f.gpus.size(), 16);  // nvmlN and cudaN are one GPU each
  ck_assert_sstr_eq(f.gpus[15].type, "h100");
  ck_assert_sstr_eq(f.gpus[15].file, "/dev/nvidia15");
  ck_assert_int_eq(f.gpus[8].cores[0], 8);
  ck_assert_sstr_eq(derived_types(n),
                    "H100-QUAD=h100*4 H100-SOCKET=H100-QUAD*2 H100-NODE=H100-SOCKET*2[n]");
}
END_TEST

START_TEST(hwloc_no_gpu_node) {
  HwlocNode n = read_xml("cpu-only.xml");
  ck_assert_sstr_eq(n.facts.name, "cpu1");
  ck_assert_uint_eq(n.facts.gpus.size(), 0);
  ck_assert(n.notes.empty());
  ck_assert(gres_conf_lines(n.facts).empty());
  ck_assert_sstr_eq(slurm_conf_node_line(n.facts),
                    "NodeName=cpu1 Sockets=1 CoresPerSocket=4 ThreadsPerCore=2");
  ck_assert_sstr_eq(derived_types(n), "");
}
END_TEST

START_TEST(hwloc_options_live_and_errors) {
  HwlocOptions o;
  o.xml_path = topo_test::fixture_path("tests/topo/hwloc/v100-4gpu-1socket.xml");
  o.node_name = "n7";
  o.gpu_type = "v100s";
  HwlocNode n;
  ck_assert_ok(read_hwloc_node(o, &n));
  ck_assert_sstr_eq(n.facts.name, "n7");
  ck_assert_sstr_eq(n.facts.gpus[0].type, "v100s");
  o.xml_path = "/nonexistent/topo.xml";
  ck_assert_has(read_hwloc_node(o, &n), "/nonexistent/topo.xml: hwloc cannot read it");
  // The machine running the test: whatever it has, it loads. Without hwloc's PCI
  // component, whose libpciaccess leaks 1 KB per load (lstopo too) and would fail the
  // sanitizer build.
  setenv("HWLOC_COMPONENTS", "-pci", 1);
  HwlocNode live;
  hived::Status live_err = read_hwloc_node(HwlocOptions(), &live);
  unsetenv("HWLOC_COMPONENTS");
  ck_assert_ok(live_err);
  ck_assert_int_ge(live.facts.sockets, 1);
  ck_assert(!live.facts.name.empty());
}
END_TEST

START_TEST(gpu_type_names) {
  ck_assert_sstr_eq(gpu_type_from_model("NVIDIA A100-SXM4-40GB"), "a100");
  ck_assert_sstr_eq(gpu_type_from_model("Tesla V100-PCIE-16GB"), "v100");
  ck_assert_sstr_eq(gpu_type_from_model("NVIDIA H100 80GB HBM3"), "h100");
  ck_assert_sstr_eq(gpu_type_from_model("NVIDIA GeForce RTX 3090"), "rtx_3090");
  ck_assert_sstr_eq(gpu_type_from_model("NVIDIA RTX A6000"), "rtx_a6000");
  ck_assert_sstr_eq(gpu_type_from_model("AMD Instinct MI250X"), "mi250x");
  ck_assert_sstr_eq(gpu_type_from_model(""), "gpu");
}
END_TEST

START_TEST(gres_lines_with_links) {
  NodeFacts n;
  n.name = "x";
  for (int i = 0; i < 2; i++) {
    GpuFact g;
    g.type = "a100";
    g.index = i;
    g.file = "/dev/nvidia" + std::to_string(i);
    g.cores = {0, 1};
    g.links = i == 0 ? std::vector<int>{-1, 12} : std::vector<int>{12, -1};
    n.gpus.push_back(g);
  }
  ck_assert_sstr_eq(joined(gres_conf_lines(n)),
                    "NodeName=x Name=gpu Type=a100 File=/dev/nvidia0 Cores=0-1 Links=-1,12\n"
                    "NodeName=x Name=gpu Type=a100 File=/dev/nvidia1 Cores=0-1 Links=12,-1\n");
}
END_TEST

// hived-topo's output on each fixture is kept next to it (FIXTURE.out, FIXTURE.json).
START_TEST(hived_topo_outputs) {
  const char* const fixtures[] = {"a100-8gpu-2socket", "v100-4gpu-1socket", "h100-16gpu-2socket",
                                  "cpu-only"};
  for (const char* f : fixtures) {
    int st = -1;
    std::string out = run_topo(std::string("--xml ") + f + ".xml", &st);
    ck_assert_int_eq(st, 0);
    ck_assert_sstr_eq(out, read_fixture(std::string("tests/topo/hwloc/") + f + ".out"));
    out = run_topo(std::string("--json --xml ") + f + ".xml", &st);
    if (std::string(f) == "cpu-only") {
      ck_assert_int_eq(st, 1);  // no GPUs, no cell types
      ck_assert_sstr_eq(out, "");
      continue;
    }
    ck_assert_int_eq(st, 0);
    ck_assert_sstr_eq(out, read_fixture(std::string("tests/topo/hwloc/") + f + ".json"));
  }
  int st = -1;
  run_topo("--bogus", &st);
  ck_assert_int_eq(st, 2);
  run_topo("--xml missing.xml", &st);
  ck_assert_int_eq(st, 1);
  run_topo("--xml a.xml --slurm-conf b", &st);
  ck_assert_int_eq(st, 2);
}
END_TEST

Suite* hwloc_suite() {
  Suite* s = suite_create("topo_hwloc");
  TCase* t = tcase_create("hwloc");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, hwloc_a100_8gpu_pcie_pairs);
  tcase_add_test(t, hwloc_v100_4gpu_one_socket);
  tcase_add_test(t, hwloc_h100_16gpu_quads);
  tcase_add_test(t, hwloc_no_gpu_node);
  tcase_add_test(t, hwloc_options_live_and_errors);
  tcase_add_test(t, gpu_type_names);
  tcase_add_test(t, gres_lines_with_links);
  tcase_add_test(t, hived_topo_outputs);
  tcase_add_test(t, hived_topo_check_fractions_and_quota_warnings);
  tcase_add_test(t, hived_topo_check_quota_off_note);
  suite_add_tcase(s, t);
  return s;
}

}  // namespace

int main() { return check_run(hwloc_suite(), CK_NORMAL, CK_FORK_GETENV); }
