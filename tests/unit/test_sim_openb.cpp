// SPDX-License-Identifier: GPL-2.0-or-later
// Check unit tests for hived-sim's openb loader and saturation study (tools/sim,
// fixtures in tests/sim/openb): counts, rounding to eighths, QoS and VC mapping,
// errors naming the column, and a small replay through the engine.
#include <check.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "openb.h"
#include "openb_study.h"
#include "../check_run.h"

using namespace hivedsim;

namespace {

std::string Fixture(const std::string& rel) {
  const char* src = getenv("HIVED_SRCDIR");
  std::string base = src && *src ? src : HIVED_SIM_SRCDIR;
  return base + "/tests/sim/openb/" + rel;
}

const OpenbPod* ById(const OpenbTrace& t, const std::string& id) {
  for (const auto& p : t.pods)
    if (p.id == id) return &p;
  return nullptr;
}

START_TEST(loads_counts_rounding_qos) {
  OpenbTrace t;
  std::string err;
  ck_assert_msg(LoadOpenb(Fixture("nodes.csv"), Fixture("pods.csv"), OpenbOptions(), &t, &err),
                "%s", err.c_str());
  ck_assert_uint_eq(t.nodes.size(), 3);  // the CPU-only node is skipped
  ck_assert_str_eq(t.nodes[2].model.c_str(), "G2");
  ck_assert_int_eq(t.nodes[2].gpus, 8);
  ck_assert_uint_eq(t.rows, 8);
  ck_assert_uint_eq(t.cpu_only, 2);
  ck_assert_uint_eq(t.pods.size(), 6);
  ck_assert_uint_eq(t.vcs.size(), 4);
  struct {
    const char* id;
    int gpus, eighths, cells;
    bool guaranteed;
  } want[] = {{"fx-pod-0", 1, 0, 8, true},  {"fx-pod-1", 0, 4, 4, false},
              {"fx-pod-2", 0, 7, 8, true},  {"fx-pod-4", 8, 0, 64, true},
              {"fx-pod-5", 0, 1, 1, false}, {"fx-pod-6", 0, 2, 2, true}};
  for (const auto& w : want) {
    const OpenbPod* p = ById(t, w.id);
    ck_assert_msg(p != nullptr, "%s missing", w.id);
    ck_assert_int_eq(p->gpus, w.gpus);
    ck_assert_int_eq(p->eighths, w.eighths);
    ck_assert_int_eq(p->Cells(), w.cells);
    ck_assert_int_eq(p->guaranteed, w.guaranteed);
    ck_assert_int_eq(p->vc, OpenbVcOf(w.id, 4));
  }
  // Sorted by creation_time: pod 5 (t=5) and 6 (t=6) come before pod 4 (t=10).
  ck_assert_str_eq(t.pods.back().id.c_str(), "fx-pod-4");
  OpenbOptions o;
  o.max_pods = 2;
  OpenbTrace t2;
  ck_assert(LoadOpenb(Fixture("nodes.csv"), Fixture("pods.csv"), o, &t2, &err));
  ck_assert_uint_eq(t2.pods.size(), 2);
}
END_TEST

START_TEST(vc_hash_proportions) {
  int n[4] = {0, 0, 0, 0};
  const int total = 20000;
  for (int i = 0; i < total; i++) n[OpenbVcOf("openb-pod-" + std::to_string(i), 4)]++;
  const double want[4] = {0.4, 0.3, 0.2, 0.1};
  for (int v = 0; v < 4; v++)
    ck_assert_msg(std::fabs(static_cast<double>(n[v]) / total - want[v]) < 0.02,
                  "VC %d got %d of %d", v, n[v], total);
  ck_assert_int_eq(OpenbVcOf("anything", 1), 0);
  ck_assert_int_eq(OpenbVcOf("openb-pod-0001", 4), OpenbVcOf("openb-pod-0001", 4));
}
END_TEST

START_TEST(bad_rows_name_the_column) {
  OpenbTrace t;
  std::string err;
  ck_assert(!LoadOpenb(Fixture("nodes.csv"), Fixture("bad-qos.csv"), OpenbOptions(), &t, &err));
  ck_assert_msg(err.find("bad-qos.csv:3:") != std::string::npos &&
                    err.find("column 'qos'") != std::string::npos,
                "%s", err.c_str());
  OpenbTrace t2;
  ck_assert(!LoadOpenb(Fixture("nodes.csv"), Fixture("bad-milli.csv"), OpenbOptions(), &t2, &err));
  ck_assert_msg(err.find("bad-milli.csv:2:") != std::string::npos &&
                    err.find("column 'gpu_milli'") != std::string::npos,
                "%s", err.c_str());
  OpenbTrace t3;
  ck_assert(!LoadOpenb(Fixture("pods.csv"), Fixture("pods.csv"), OpenbOptions(), &t3, &err));
  ck_assert_msg(err.find("no column 'sn'") != std::string::npos, "%s", err.c_str());
}
END_TEST

START_TEST(saturation_replay_small) {
  OpenbTrace t;
  std::string err;
  OpenbOptions o;
  o.vcs = 2;
  ck_assert(LoadOpenb(Fixture("nodes.csv"), Fixture("pods.csv"), o, &t, &err));
  OpenbSetup s;
  ck_assert_msg(MakeOpenbSetup(t, &s, &err), "%s", err.c_str());
  ck_assert_int_eq(s.gpus, 12);
  int64_t quota = 0;
  for (auto q : s.quota_eighths) quota += q;
  ck_assert(quota <= 12 * 8 && quota > 12 * 8 - 8 * 4);  // rounded down per shape and VC
  OpenbResult r;
  ck_assert_msg(RunOpenbSaturation(t, s, 1.5, &r, &err), "%s", err.c_str());
  ck_assert_msg(r.error.empty(), "%s", r.error.c_str());
  // Requests: 1000 + 460 + 810 + 8000 + 125 + 126 = 10521 milli per pass.
  ck_assert_uint_eq(r.arrivals, 12);  // two passes reach 1.5 x 12 GPUs, the 12th pod tips it
  ck_assert_int_eq(r.req_milli_frac, 460 + 810 + 125 + 126);
  ck_assert_int_eq(r.eighths_frac, 4 + 7 + 1 + 2);
  ck_assert_int_eq(r.buddy_frac, 4 + 8 + 1 + 2);
  ck_assert_uint_eq(r.anomaly, 0);
  ck_assert(r.allocated > 0 && r.allocated <= 1);
  ck_assert(r.fragmented >= 0 && r.fragmented <= 1);
  ck_assert_uint_eq(r.g_arrived + r.o_arrived, 12);
  // Many VCs on a small cluster: some own no cells; their guaranteed pods never fit,
  // their opportunistic pods still run, and nothing stops the replay.
  OpenbTrace many;
  o.vcs = 26;
  ck_assert(LoadOpenb(Fixture("nodes.csv"), Fixture("pods.csv"), o, &many, &err));
  OpenbSetup ms;
  ck_assert(MakeOpenbSetup(many, &ms, &err));
  size_t without = 0;
  for (const auto& c : ms.private_conf) without += c.empty();
  ck_assert(without > 0);
  OpenbResult mr;
  ck_assert_msg(RunOpenbSaturation(many, ms, 1.5, &mr, &err), "%s", err.c_str());
  ck_assert_uint_eq(mr.g_placed + mr.g_waiting + mr.rejected, mr.g_arrived);
  ck_assert(mr.o_placed > 0);
}
END_TEST

}  // namespace

int main() {
  Suite* s = suite_create("hived-sim openb");
  TCase* c = tcase_create("openb");
  tcase_set_timeout(c, 120);
  tcase_add_test(c, loads_counts_rounding_qos);
  tcase_add_test(c, vc_hash_proportions);
  tcase_add_test(c, bad_rows_name_the_column);
  tcase_add_test(c, saturation_replay_small);
  suite_add_tcase(s, c);
  return check_run(s, CK_NORMAL, CK_FORK_GETENV);
}
