// SPDX-License-Identifier: GPL-2.0-or-later
// Check unit tests for fractions of a GPU in src/topo: MIG slices (one slice per
// gres.conf line, a part of the GPU its first device file names), shards (per-GPU
// counts, powers of two, the fractional cell levels they give) and quotas in shards.

#include <string>
#include <vector>

#include "topo/cluster.h"
#include "topo/derive.h"
#include "topo/mig.h"
#include "topo/parse.h"
#include "topo/quota.h"
#include "topo/spec_json.h"
#include "topo/summary.h"
#include "topo_test_util.h"

using hived::ClusterSpec;
using namespace hived::topo;
using topo_test::build_engine;
using topo_test::Fixture;
using topo_test::load;

namespace {

std::string types_text(const ClusterSpec& s) {
  std::string o;
  for (const auto& t : s.cell_types)
    o += (o.empty() ? "" : " ") + t.name + "=" + t.child_type + "*" +
         std::to_string(t.child_count) + (t.is_node_level ? "[n]" : "");
  return o;
}

const NodeFacts* node(const Fixture& f, const std::string& name) {
  for (const auto& n : f.nodes)
    if (n.name == name) return &n;
  ck_abort_msg("no node %s", name.c_str());
  return nullptr;
}

// facts_from_conf on inline texts: "" or the error.
std::string facts(const std::string& slurm, const std::string& gres,
                  std::vector<NodeFacts>* out = nullptr) {
  ConfTexts t;
  t.slurm_conf = slurm;
  t.gres_conf = gres;
  std::vector<NodeFacts> nodes;
  TopologyFacts topo;
  std::vector<std::string> notes;
  std::string err = facts_from_conf(t, &nodes, &topo, &notes);
  if (out) *out = nodes;
  return err;
}

// ---------------------------------------------------------------- MIG

// A MultipleFiles= line is one slice of the GPU its first file names: six slice lines
// over two GPUs are two GPUs, not eighteen (three files each).
START_TEST(mig_slices_are_parts_of_one_gpu) {
  Fixture f = load("mig");
  const NodeFacts* n = node(f, "mig1");
  ck_assert_uint_eq(n->gpus.size(), 4);
  for (int i = 0; i < 4; i++) {
    ck_assert_int_eq(n->gpus[i].index, i);
    ck_assert_sstr_eq(n->gpus[i].file, "/dev/nvidia" + std::to_string(i));
    ck_assert_sstr_eq(n->gpus[i].type, "a100");
  }
  ClusterSpec spec;
  DeriveReport rep;
  ck_assert_ok(derive_cluster(f.nodes, f.topology, ClusterSpec(), &spec, &rep));
  ck_assert_msg(rep.problems.empty() && rep.mismatches.empty(), "%s",
                hierarchy_summary(spec, &rep).c_str());
  // The GPU in MIG mode stays one leaf: four A100 leaves, two per socket.
  ck_assert_sstr_eq(types_text(spec), "A100-SOCKET=a100*2 A100-NODE=A100-SOCKET*2[n]");
  ck_assert_ok(build_engine(spec));
  ck_assert_int_eq(rep.mig_slices, 6);
  std::string sum = hierarchy_summary(spec, &rep);
  ck_assert_has(sum, "cell hierarchy: 1 chain, 1 node, 4 GPUs\n");
  ck_assert_has(sum, "MIG slices: 6 slices on 2 GPUs (each such GPU is one cell");
  ck_assert_has(sum,
                "  mig1 GPU 2 (/dev/nvidia2): 3g.20gb + 2g.10gb + 1g.5gb + 1g.5gb = 7 of 7 "
                "compute slots\n");
  ck_assert_has(sum, "  mig1 GPU 3 (/dev/nvidia3): 4g.20gb + 3g.20gb = 7 of 7 compute slots\n");
  // slurm.conf's slice counts agree with gres.conf's lines.
  for (const auto& note : f.notes) ck_assert_msg(!topo_test::has(note, "MIG"), "%s", note.c_str());
}
END_TEST

START_TEST(mig_profiles) {
  MigProfile p;
  ck_assert(is_mig_type("a100_3g.20gb") && is_mig_type("1g.5gb") && is_mig_type("h100_7G.80gb"));
  ck_assert(!is_mig_type("a100") && !is_mig_type("rtx_a6000") && !is_mig_type("a100_80g"));
  ck_assert_ok(parse_mig_type("nvidia_h100_80gb_hbm3_1g.10gb+me", &p));
  ck_assert_sstr_eq(p.model, "nvidia_h100_80gb_hbm3");
  ck_assert_sstr_eq(p.profile, "1g.10gb+me");
  ck_assert_int_eq(p.slots, 1);
  ck_assert_ok(parse_mig_type("4g.40gb", &p));
  ck_assert_sstr_eq(p.model, "");
  ck_assert_int_eq(p.slots, 4);
  for (const char* bad : {"a100_5g.20gb", "a100_3g.20", "a100_3g.20gb+x", "a100_6g.30gb"})
    ck_assert_has(parse_mig_type(bad, &p), "is not a MIG profile select/hived knows");
}
END_TEST

START_TEST(mig_errors_name_the_line) {
  const std::string slurm = "NodeName=n1 Sockets=1 CoresPerSocket=8\n";
  const std::string cap = ",/dev/nvidia-caps/nvidia-cap";
  ck_assert_sstr_eq(
      facts(slurm, "\nName=gpu Type=a100_5g.20gb MultipleFiles=/dev/nvidia0" + cap + "1\n"),
      "gres.conf:2: Type: 'a100_5g.20gb' is not a MIG profile select/hived knows (1g, 2g, 3g, "
      "4g or 7g of 7 compute slots, then the memory: e.g. a100_3g.20gb or 1g.10gb+me)");
  // Capability files make a line a slice whatever its Type= says.
  ck_assert_has(facts(slurm, "Name=gpu Type=a100 MultipleFiles=/dev/nvidia0" + cap + "1\n"),
                "gres.conf:1: Type: 'a100' is not a MIG profile");
  ck_assert_has(facts(slurm, "Name=gpu Type=a100_3g.20gb File=/dev/nvidia0\n"),
                "gres.conf:1: MultipleFiles: the MIG slice a100_3g.20gb needs MultipleFiles=");
  ck_assert_sstr_eq(
      facts(slurm, "Name=gpu Type=a100_4g.20gb MultipleFiles=/dev/nvidia0" + cap +
                       "1\nName=gpu Type=a100_4g.20gb MultipleFiles=/dev/nvidia0" + cap + "2\n"),
      "gres.conf:2: Type: the MIG slices of /dev/nvidia0 of node 'n1' take 8 "
      "compute slots, but a GPU has 7");
  ck_assert_has(facts(slurm,
                      "Name=gpu Type=a100 File=/dev/nvidia0\nName=gpu Type=a100_1g.5gb "
                      "MultipleFiles=/dev/nvidia0" +
                          cap + "1\n"),
                "gres.conf:2: MultipleFiles: /dev/nvidia0 of node 'n1' is a whole GPU at "
                "gres.conf:1");
  ck_assert_has(facts(slurm, "Name=gpu Type=a100_1g.5gb MultipleFiles=/dev/nvidia0" + cap +
                                 "1\nName=gpu Type=a100 File=/dev/nvidia0\n"),
                "gres.conf:2: File: /dev/nvidia0 of node 'n1' is in MIG mode");
  ck_assert_has(
      facts(slurm, "Name=gpu Type=a100_1g.5gb MultipleFiles=/dev/nvidia0" + cap +
                       "1\nName=gpu Type=h100_1g.10gb MultipleFiles=/dev/nvidia0" + cap + "2\n"),
      "gres.conf:2: Type: h100_1g.10gb is a slice of /dev/nvidia0");
  ck_assert_has(facts("NodeName=n1 Gres=gpu:a100_5g.20gb:1\n", ""),
                "slurm.conf:1: Gres: 'a100_5g.20gb' is not a MIG profile");
  // MultipleFiles= without MIG: still one GPU.
  std::vector<NodeFacts> nodes;
  ck_assert_ok(facts(
      slurm, "Name=gpu Type=mi250 MultipleFiles=/dev/dri/card0,/dev/dri/renderD128\n", &nodes));
  ck_assert_uint_eq(nodes[0].gpus.size(), 1);
  ck_assert_sstr_eq(nodes[0].gpus[0].file, "/dev/dri/card0");
  ck_assert_has(facts(slurm, "Name=gpu MultipleFiles=/dev/a,/dev/b Count=2\n"),
                "gres.conf:1: Count: MultipleFiles= describes one GRES, got Count=2");
}
END_TEST

}  // namespace

int main() {
  Suite* s = suite_create("topo_frac");
  TCase* mig = tcase_create("mig");
  tcase_add_test(mig, mig_slices_are_parts_of_one_gpu);
  tcase_add_test(mig, mig_profiles);
  tcase_add_test(mig, mig_errors_name_the_line);
  suite_add_tcase(s, mig);
  SRunner* sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
