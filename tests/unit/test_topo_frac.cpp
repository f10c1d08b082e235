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
#include "../check_run.h"

using hived::ClusterSpec;
using namespace hived::topo;
using topo_test::build_engine;
using topo_test::Fixture;
using topo_test::load;
using topo_test::types_text;

namespace {

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
  std::string err = facts_from_conf(t, &nodes, &topo, &notes).msg;
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
  // Slurm's GRES indices: one per whole GPU and one per slice, in gres.conf order; a GPU
  // in MIG mode has its first slice's.
  const int first[] = {0, 1, 2, 6};
  for (int i = 0; i < 4; i++) {
    ck_assert_int_eq(n->gpus[i].index, first[i]);
    ck_assert_sstr_eq(n->gpus[i].file, "/dev/nvidia" + std::to_string(i));
    ck_assert_sstr_eq(n->gpus[i].type, "a100");
  }
  ck_assert_uint_eq(n->gpus[2].mig.size(), 4);
  for (int k = 0; k < 4; k++) ck_assert_int_eq(n->gpus[2].mig[k].index, 2 + k);
  ck_assert_int_eq(n->gpus[3].mig[1].index, 7);
  ClusterSpec spec;
  DeriveReport rep;
  ck_assert_ok(derive_cluster(f.nodes, f.topology, ClusterSpec(), &spec, &rep));
  ck_assert_msg(rep.problems.empty() && rep.mismatches.empty(), "%s",
                hierarchy_summary(spec, &rep).c_str());
  // A GPU in MIG mode is no cell: its slices are leaves of one chain per profile,
  // addressed by their GRES index; the two whole A100s keep their chain.
  ck_assert_sstr_eq(types_text(spec),
                    "A100-NODE=a100*2[n] A100_3G-20GB-NODE=a100_3g.20gb*2[n] "
                    "A100_2G-10GB-NODE=a100_2g.10gb*1[n] A100_1G-5GB-NODE=a100_1g.5gb*2[n] "
                    "A100_4G-20GB-NODE=a100_4g.20gb*1[n]");
  for (const auto& t : spec.cell_types)
    ck_assert_int_eq(t.child_is_mig_slice, t.name != "A100-NODE");
  std::string addrs;
  for (const auto& pc : spec.physical_cells) {
    addrs += pc.cell_type + ":";
    for (const auto& c : pc.children) addrs += c.address + ",";
    addrs += " ";
  }
  ck_assert_sstr_eq(addrs,
                    "A100-NODE: A100_3G-20GB-NODE:2,7, A100_2G-10GB-NODE:3, "
                    "A100_1G-5GB-NODE:4,5, A100_4G-20GB-NODE:6, ");
  hived_engine* e = nullptr;
  ck_assert_ok(build_engine(spec, &e));
  // What select/hived asks to tell a slice job (and a type without cells) apart.
  char profiles[256];
  ck_assert_uint_eq(hived_mig_profiles(e, profiles, sizeof profiles), 4);
  ck_assert_str_eq(profiles, "a100_1g.5gb, a100_2g.10gb, a100_3g.20gb, a100_4g.20gb");
  ck_assert_int_eq(hived_is_mig_profile(e, "a100_3g.20gb"), 1);
  ck_assert_int_eq(hived_is_mig_profile(e, "a100"), 0);
  ck_assert_int_eq(hived_is_mig_profile(e, "a100_7g.40gb"), 0);
  ck_assert_int_eq(hived_is_mig_profile(e, nullptr), 0);
  // A slice is a leaf of its own: no chain has cells below the GPU.
  ck_assert_uint_eq(hived_chain_count(e), 5);
  for (size_t i = 0; i < hived_chain_count(e); i++)
    ck_assert_int_eq(hived_chain_leaves_per_gpu(e, i), 1);
  hived_engine_free(e);
  ck_assert_int_eq(rep.mig_slices, 6);
  std::string sum = hierarchy_summary(spec, &rep);
  ck_assert_has(sum, "cell hierarchy: 5 chains, 1 node, 2 GPUs, 6 MIG slices\n");
  ck_assert_has(sum, "chain A100_3G-20GB-NODE: 2 a100_3g.20gb MIG slices on mig1\n");
  ck_assert_has(sum, "MIG slices: 6 slices on 2 GPUs (no GPU cell for such a GPU");
  ck_assert_has(sum,
                "  mig1 GPU 2 (/dev/nvidia2): 3g.20gb + 2g.10gb + 1g.5gb + 1g.5gb = 7 of 7 "
                "compute slots\n");
  ck_assert_has(sum, "  mig1 GPU 6 (/dev/nvidia3): 4g.20gb + 3g.20gb = 7 of 7 compute slots\n");
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

// ---------------------------------------------------------------- shards

// Until the engine reads isGpuLevel (branch frac-engine), its refusal of that one key is
// the only error tolerated; any other refusal fails.
void engine_takes(const ClusterSpec& spec) {
  std::string e = build_engine(spec);
  ck_assert_msg(e.empty(), "the engine refused the derived config: %s", e.c_str());
}

ClusterSpec derive_ok(const std::vector<NodeFacts>& nodes, DeriveReport* rep) {
  ClusterSpec spec;
  ck_assert_ok(derive_cluster(nodes, TopologyFacts(), ClusterSpec(), &spec, rep));
  return spec;
}

START_TEST(shard_levels_under_the_gpu) {
  Fixture f = load("shard");
  for (const char* name : {"s1", "s2", "s4"})  // s4: from slurm.conf Gres=shard:32 alone
    for (const auto& g : node(f, name)->gpus) ck_assert_int_eq(g.shards, 8);
  for (const auto& g : node(f, "s3")->gpus) ck_assert_int_eq(g.shards, 4);
  DeriveReport rep;
  ClusterSpec spec = derive_ok(f.nodes, &rep);
  ck_assert_msg(rep.problems.empty() && rep.mismatches.empty(), "%s",
                hierarchy_summary(spec, &rep).c_str());
  ck_assert_sstr_eq(types_text(spec),
                    "A100-QUARTER=A100-EIGHTH*2 A100-HALF=A100-QUARTER*2 a100=A100-HALF*2 "
                    "A100-NODE=a100*4[n] L40S-HALF=L40S-QUARTER*2 l40s=L40S-HALF*2 "
                    "L40S-NODE=l40s*2[n]");
  for (const auto& t : spec.cell_types)
    ck_assert_int_eq(t.is_gpu_level, t.name == "a100" || t.name == "l40s");
  // The hived.conf format fixed with the engine.
  std::string json = spec_to_hived_conf(spec);
  ck_assert_has(
      json, "\"A100-QUARTER\": {\"childCellType\": \"A100-EIGHTH\", \"childCellNumber\": 2},\n");
  ck_assert_has(json,
                "\"A100-HALF\": {\"childCellType\": \"A100-QUARTER\", \"childCellNumber\": 2},\n");
  ck_assert_has(json,
                "\"a100\": {\"childCellType\": \"A100-HALF\", \"childCellNumber\": 2, "
                "\"isGpuLevel\": true},\n");
  ck_assert_has(json,
                "\"A100-NODE\": {\"childCellType\": \"a100\", \"childCellNumber\": 4, "
                "\"isNodeLevel\": true}");
  std::string sum = hierarchy_summary(spec, &rep);
  ck_assert_has(sum, "cell hierarchy: 2 chains, 4 nodes, 14 GPUs\n");
  ck_assert_has(sum, "chain A100-NODE: 12 a100 GPUs on s[1-2,4]\n");
  ck_assert_has(sum, "      1  A100-EIGHTH      96                          1/8\n");
  ck_assert_has(sum,
                "shards:\n  a100: 8 shards per GPU on s[1-2,4]: a100 > A100-HALF > "
                "A100-QUARTER > A100-EIGHTH (leaf)\n  l40s: 4 shards per GPU on s3: l40s > "
                "L40S-HALF > L40S-QUARTER (leaf)\n");
  engine_takes(spec);
  // What select/hived counts a whole-GPU job as, in each chain's leaf cells.
  hived_engine* e = nullptr;
  ck_assert_ok(build_engine(spec, &e));
  std::string per;
  for (size_t i = 0; i < hived_chain_count(e); i++)
    per += std::string(hived_chain_name(e, i)) + "=" +
           std::to_string(hived_chain_leaves_per_gpu(e, i)) + " ";
  ck_assert_sstr_eq(per, "A100-NODE=8 L40S-NODE=4 ");
  ck_assert_ptr_null(hived_chain_name(e, 2));
  ck_assert_int_eq(hived_chain_leaves_per_gpu(e, 2), 0);
  hived_engine_free(e);
}
END_TEST

START_TEST(shard_counts_not_a_power_of_two_are_refused) {
  const std::string slurm = "NodeName=n1 Sockets=1 CoresPerSocket=8 Gres=gpu:a100:4\n";
  const std::string gpus = "Name=gpu Type=a100 File=/dev/nvidia[0-3]\n";
  ck_assert_sstr_eq(facts(slurm, gpus + "Name=shard Count=24\n"),
                    "gres.conf:2: Count: 24 shards over the 4 GPUs of node 'n1' give 6 to GPU 0 "
                    "(Slurm spreads them evenly), which is not a power of two: a GPU splits into "
                    "halves, quarters, eighths, ...");
  // Slurm's spread: 10 over 4 is 2, 2, 3, 3.
  ck_assert_has(facts(slurm, gpus + "Name=shard Count=10\n"), "give 3 to GPU 2 ");
  ck_assert_sstr_eq(facts(slurm, gpus + "Name=shard Count=6 File=/dev/nvidia0\n"),
                    "gres.conf:2: Count: 6 shards on /dev/nvidia0 of node 'n1' is not a power of "
                    "two: a GPU splits into halves, quarters, eighths, ...");
  ck_assert_has(facts(slurm, gpus + "Name=shard Count=8 File=/dev/nvidia9\n"),
                "gres.conf:2: File: /dev/nvidia9 is not a GPU of node 'n1'");
  ck_assert_has(facts(slurm, gpus + "Name=shard Count=8 File=/dev/nvidia[0-1]\n"),
                "gres.conf:2: File: a shard line with File= gives the shards of one GPU");
  ck_assert_has(facts(slurm, gpus + "Name=shard File=/dev/nvidia0\n"),
                "gres.conf:2: Count: a shard line needs Count=");
  ck_assert_sstr_eq(facts("NodeName=n1 Gres=gpu:a100:4,shard:12\n", gpus),
                    "slurm.conf:1: Gres: 12 shards over the 4 GPUs of node 'n1' give 3 to GPU 0 "
                    "(Slurm spreads them evenly), which is not a power of two: a GPU splits into "
                    "halves, quarters, eighths, ...");
  ck_assert_has(facts(slurm,
                      "Name=gpu Type=a100_7g.40gb MultipleFiles=/dev/nvidia0,"
                      "/dev/nvidia-caps/nvidia-cap1\nName=shard Count=8\n"),
                "gres.conf:2: Count: node 'n1' has GPUs in MIG mode (/dev/nvidia0): shards and "
                "MIG slices on one node are not supported");
  std::vector<NodeFacts> nodes;
  ck_assert_ok(facts("NodeName=n1 Gres=gpu:a100:3\n",
                     "Name=gpu Type=a100 File=/dev/nvidia[0-2]\n"
                     "Name=shard Count=12\n",
                     &nodes));
  for (const auto& g : nodes[0].gpus) ck_assert_int_eq(g.shards, 4);
}
END_TEST

START_TEST(shard_counts_shape_one_cell_type_per_model) {
  const std::string gpus = "Name=gpu Type=a100 File=/dev/nvidia[0-1]\n";
  std::vector<NodeFacts> nodes;
  DeriveReport rep;
  // Within a node.
  ck_assert_ok(facts("NodeName=n1 Gres=gpu:a100:2\n",
                     gpus + "Name=shard Count=8 File=/dev/nvidia0\n"
                            "Name=shard Count=4 File=/dev/nvidia1\n",
                     &nodes));
  derive_ok(nodes, &rep);
  ck_assert_uint_eq(rep.problems.size(), 1);
  ck_assert_sstr_eq(rep.problems[0],
                    "node n1: its a100 GPUs have different shard counts (8 on GPU 0, 4 on GPU 1): "
                    "one count per GPU model shapes its cells; no cells for them");
  // Across nodes: the first node's count stands.
  ck_assert_ok(facts("NodeName=n[1-2] Gres=gpu:a100:2\n",
                     gpus + "NodeName=n1 Name=shard Count=16\nNodeName=n2 Name=shard Count=8\n",
                     &nodes));
  rep = DeriveReport();
  ClusterSpec spec = derive_ok(nodes, &rep);
  ck_assert_uint_eq(rep.problems.size(), 1);
  ck_assert_sstr_eq(rep.problems[0],
                    "node n2: its a100 GPUs have 4 shards each but those of node n1 have 8: one "
                    "count per GPU model shapes its cells; no cells for them");
  ck_assert_sstr_eq(types_text(spec),
                    "A100-QUARTER=A100-EIGHTH*2 A100-HALF=A100-QUARTER*2 a100=A100-HALF*2 "
                    "A100-NODE=a100*2[n]");
  engine_takes(spec);
  // Sixteen per GPU: the leaf is the 16th.
  ck_assert_ok(facts("NodeName=n1 Gres=gpu:a100:2,shard:32\n", gpus, &nodes));
  ck_assert_has(types_text(derive_ok(nodes, &rep)), "A100-EIGHTH=A100-16TH*2 ");
  // A hived.conf node type down to whole GPUs wins, and says what it costs.
  ck_assert_ok(facts("NodeName=n1 Gres=gpu:a100:2,shard:16\n", gpus, &nodes));
  ClusterSpec expl;
  expl.cell_types.push_back({"x", "A100-BOX", "a100", 2, true, false});
  rep = DeriveReport();
  ck_assert_ok(derive_cluster(nodes, TopologyFacts(), expl, &spec, &rep));
  ck_assert_sstr_eq(types_text(spec), "A100-BOX=a100*2[n]");
  ck_assert_uint_eq(rep.notes.size(), 1);
  ck_assert_sstr_eq(rep.notes[0],
                    "n1: hived.conf node type A100-BOX has whole a100 GPUs as leaves: their "
                    "shards get no fractional cells");
  // GPUs known only from slurm.conf (AutoDetect): whole cells, and a note.
  ConfTexts t;
  t.slurm_conf = "NodeName=n1 Gres=gpu:a100:2,shard:16\n";
  t.gres_conf = "AutoDetect=nvml\n";
  TopologyFacts topo;
  std::vector<std::string> notes;
  ck_assert_ok(facts_from_conf(t, &nodes, &topo, &notes).msg);
  ck_assert_has(notes[0],
                "node n1: slurm.conf Gres= gives it shards but gres.conf lists none "
                "of its GPUs: its GPUs stay whole cells");
  ck_assert_sstr_eq(types_text(derive_ok(nodes, &rep)), "A100-NODE=a100*2[n]");
  // One shard per GPU shares nothing: the same cells as without shards, byte for byte.
  ck_assert_ok(facts("NodeName=n1 Gres=gpu:a100:2\n", gpus, &nodes));
  std::string plain = spec_to_hived_conf(derive_ok(nodes, &rep));
  ck_assert_ok(facts("NodeName=n1 Gres=gpu:a100:2,shard:2\n", gpus, &nodes));
  ck_assert_sstr_eq(spec_to_hived_conf(derive_ok(nodes, &rep)), plain);
}
END_TEST

// ---------------------------------------------------------------- quotas

std::string quota(const ClusterSpec& s, const std::string& tres, std::string* err,
                  std::vector<std::string>* warnings = nullptr) {
  hived::VcSpec vc;
  *err = quota_to_vc(s, "acct", tres, &vc, warnings).msg;
  if (!err->empty()) return "ERR";
  std::string o;
  for (const auto& v : vc.virtual_cells)
    o += (o.empty() ? "" : " ") + std::to_string(v.count) + "x" + v.cell_type;
  return o;
}

START_TEST(quota_shards_become_fractional_cells) {
  Fixture f = load("shard");
  std::vector<NodeFacts> a100;
  for (const auto& n : f.nodes)
    if (n.name != "s3") a100.push_back(n);
  DeriveReport rep;
  ClusterSpec spec = derive_ok(a100, &rep);
  std::string err;
  const std::string half = "A100-NODE.a100.A100-HALF";
  ck_assert_sstr_eq(quota(spec, "gres/shard=12", &err), "3x" + half);
  ck_assert_sstr_eq(
      quota(spec, "gres/shard=7", &err),
      "1x" + half + " 1x" + half + ".A100-QUARTER 1x" + half + ".A100-QUARTER.A100-EIGHTH");
  ck_assert_sstr_eq(quota(spec, "cpu=8,gres/gpu:a100=2,gres/shard=20", &err),
                    "2xA100-NODE.a100 5x" + half);
  ck_assert_sstr_eq(quota(spec, "gres/shard=1000", &err), "ERR");
  ck_assert_sstr_eq(err,
                    "account 'acct': GrpTRES asks for 1000 a100 shards but only 96 of the "
                    "cluster's 96 are not yet promised to other VCs (over-commit)");
  // Shards and GPUs share the GPUs: 11 whole GPUs leave 8 shards.
  spec.vcs.push_back(hived::VcSpec());
  spec.vcs.back().name = "other";
  spec.vcs.back().virtual_cells.push_back({"x", "A100-NODE.a100", 11});
  ck_assert_sstr_eq(quota(spec, "gres/shard=8", &err), "2x" + half);
  ck_assert_sstr_eq(quota(spec, "gres/shard=9", &err), "ERR");
  ck_assert_has(err, "asks for 9 a100 shards but only 8 of the cluster's 96");
  spec.vcs.clear();
  // A MIG type limit on a cluster without slices of that profile.
  ck_assert_sstr_eq(quota(spec, "gres/gpu=6,gres/gpu:a100_3g.20gb=2", &err), "ERR");
  ck_assert_sstr_eq(err,
                    "account 'acct': GrpTRES gres/gpu:a100_3g.20gb: no cells are MIG slices of "
                    "profile 'a100_3g.20gb' (profiles: none)");
  // Which model: shards need exactly one model with fractional levels.
  ClusterSpec both = derive_ok(f.nodes, &rep);
  ck_assert_sstr_eq(quota(both, "gres/shard=4", &err), "ERR");
  ck_assert_has(err,
                "GrpTRES gres/shard=4: several GPU models have shards (a100, l40s): give "
                "gres/shard:<model>=N for each");
  // A typed shard limit names the model; the untyped one then covers the other.
  ck_assert_sstr_eq(quota(both, "gres/shard:L40S=2,gres/shard=6", &err),
                    "1xL40S-NODE.l40s.L40S-HALF 1x" + half);
  ck_assert_sstr_eq(quota(both, "gres/shard:a100=1", &err),
                    "1x" + half + ".A100-QUARTER.A100-EIGHTH");
  ck_assert_sstr_eq(quota(both, "gres/shard:v100=1", &err), "ERR");
  ck_assert_has(err,
                "GrpTRES gres/shard:v100: GPU model 'v100' has no shards (fractional cells); "
                "models with shards: a100, l40s");
  ck_assert_sstr_eq(quota(both, "gres/shard:a100=4,gres/shard=2", &err), "ERR");
  ck_assert_has(err, "GrpTRES gres/shard=2 is less than its typed limits (4)");
  ClusterSpec none = derive_ok(load("mig").nodes, &rep);
  ck_assert_sstr_eq(quota(none, "gres/shard=4", &err), "ERR");
  ck_assert_has(err, "GrpTRES gres/shard=4: no GPU model has shards");
  ck_assert_sstr_eq(quota(none, "gres/shard=0,gres/gpu=2", &err), "1xA100-NODE");
  ck_assert_sstr_eq(quota(none, "gres/shard=x", &err), "ERR");
  ck_assert_has(err, "GrpTRES: gres/shard: 'x' is not a shard count");
}
END_TEST

// GrpTRES gres/gpu:<MIG type>=n: n slice cells of that profile, counted in gres/gpu=N
// as Slurm counts them; an untyped limit never goes to slices.
START_TEST(cluster_config_mig_quotas_become_slice_cells) {
  Fixture f = load("mig");
  ClusterConfig cc;
  ck_assert_ok(
      build_cluster_config(
          f.nodes, f.topology, ClusterSpec(),
          {{"ml", "gres/gpu=3,gres/gpu:a100_1g.5gb=1"}, {"vis", "gres/gpu:a100_3g.20gb=2"}}, &cc)
          .msg);
  ck_assert_msg(cc.quota_errors.empty(), "%s", cc.quota_errors[0].c_str());
  ck_assert(cc.quota_warnings.empty());
  ck_assert_has(cc.summary,
                "  ml: 1 x A100_1G-5GB-NODE.a100_1g.5gb (1) + 1 x A100-NODE (2) = 3 GPUs");
  ck_assert_has(cc.summary, "  vis: 1 x A100_3G-20GB-NODE (2) = 2 a100_3g.20gb MIG slices");
  ck_assert_ok(build_engine(cc.spec));
  std::string err;
  DeriveReport rep;
  ClusterSpec spec = derive_ok(f.nodes, &rep);
  ck_assert_sstr_eq(quota(spec, "gres/gpu:A100_1G.5GB=2", &err), "1xA100_1G-5GB-NODE");
  // Two whole A100s only: a third untyped GPU is never a slice.
  ck_assert_sstr_eq(quota(spec, "gres/gpu=3", &err), "ERR");
  ck_assert_sstr_eq(quota(spec, "gres/gpu:a100_1g.5gb=3", &err), "ERR");
  ck_assert_sstr_eq(quota(spec, "gres/gpu=1,gres/gpu:a100_3g.20gb=2", &err), "ERR");
  ck_assert_has(err, "gres/gpu=1 is less than its typed limits (2)");
  ck_assert_sstr_eq(quota(spec, "gres/gpu:a100_7g.80gb=1", &err), "ERR");
  ck_assert_has(err,
                "no cells are MIG slices of profile 'a100_7g.80gb' (profiles: "
                "a100_3g.20gb, a100_2g.10gb, a100_1g.5gb, a100_4g.20gb)");
}
END_TEST

Suite* frac_suite() {
  Suite* s = suite_create("topo_frac");
  TCase* mig = tcase_create("mig");
  tcase_add_test(mig, mig_slices_are_parts_of_one_gpu);
  tcase_add_test(mig, mig_profiles);
  tcase_add_test(mig, mig_errors_name_the_line);
  suite_add_tcase(s, mig);
  TCase* sh = tcase_create("shards");
  tcase_add_test(sh, shard_levels_under_the_gpu);
  tcase_add_test(sh, shard_counts_not_a_power_of_two_are_refused);
  tcase_add_test(sh, shard_counts_shape_one_cell_type_per_model);
  suite_add_tcase(s, sh);
  TCase* q = tcase_create("quota");
  tcase_add_test(q, quota_shards_become_fractional_cells);
  tcase_add_test(q, cluster_config_mig_quotas_become_slice_cells);
  suite_add_tcase(s, q);
  return s;
}

}  // namespace

int main() { return check_run(frac_suite(), CK_NORMAL, CK_FORK_GETENV); }
