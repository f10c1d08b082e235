// SPDX-License-Identifier: GPL-2.0-or-later
// Check tests for the engine soak (tools/soak.cpp): a few fixed seeds on a small
// cluster with the invariant checker after every step, and proof that the soak fails
// (with the step and the operation) when the engine and its record disagree. The long
// run is "make soak" (doc/reliability.md).
// soak.h brings <ostream>, whose fail() Check's fail macro would rewrite: it goes first.
#include "soak.h"

#include <check.h>

#include <cstdlib>
#include <string>
#include "../check_run.h"

using hived_tools::RunSoak;
using hived_tools::SoakOptions;
using hived_tools::SoakResult;

namespace {

// Fewer steps under a sanitizer keep "make check-sanitize" within its budget; the
// build sets nothing, so the environment decides (HIVED_SOAK_STEPS).
long Steps(long normal) {
  const char *s = std::getenv("HIVED_SOAK_STEPS");
  return s && std::atol(s) > 0 ? std::atol(s) : normal;
}

SoakOptions Small(uint64_t seed) {
  SoakOptions o;
  o.seed = seed;
  o.gpus = 1600;  // 8 racks of 25 nodes: whole-rack VC cells and 4 pinned nodes
  o.steps = Steps(3000);
  o.sweep_every = 25;
  return o;
}

void ExpectOk(const SoakOptions &o) {
  SoakResult r = RunSoak(o, nullptr);
  ck_assert_msg(r.ok, "seed %llu step %ld op %s: %s", static_cast<unsigned long long>(o.seed),
                r.failed_step, r.failed_op.c_str(), r.message.c_str());
  ck_assert_int_eq(r.steps_done, o.steps);
  ck_assert_int_eq(r.invariant_checks, o.steps + 1);
  // The mix reached every kind of operation that matters.
  for (const char *op : {"finish", "submit-guaranteed", "submit-opportunistic",
                         "submit-high-priority", "submit-pinned", "submit-rack-gang", "node-bad",
                         "readd", "dry-run", "invalid-submit", "will-run"})
    ck_assert_msg(r.ops.count(op) && r.ops.at(op) > 0, "no %s in %ld steps", op, r.steps_done);
  ck_assert_msg(r.outcomes.count("placed") && r.outcomes.at("placed") > 100, "few placements");
  // WILL_RUN's trial was compared with a copy's answer where it matters: jobs that
  // fit only after others end.
  ck_assert_msg(r.outcomes.count("will-run-later") && r.outcomes.at("will-run-later") > 5,
                "few will_run answers with a later start");
}

}  // namespace

START_TEST(soak_seed_1) { ExpectOk(Small(1)); }
END_TEST

START_TEST(soak_seed_2) { ExpectOk(Small(2)); }
END_TEST

// Cell levels below the GPU: fractional VC cells and jobs beside whole-GPU ones.
START_TEST(soak_fractions) {
  SoakOptions o = Small(5);
  o.fractions = true;
  ExpectOk(o);
  SoakResult r = RunSoak(o, nullptr);
  ck_assert_msg(r.ops.count("submit-fraction") && r.ops.at("submit-fraction") > 100,
                "few fractional submissions");
}
END_TEST

// MIG slices as cells of their profile's own chains beside whole GPUs, and with
// fractions of the whole GPUs too.
START_TEST(soak_mig) {
  for (bool fractions : {false, true}) {
    SoakOptions o = Small(fractions ? 7 : 6);
    o.mig = true;
    o.fractions = fractions;
    ExpectOk(o);
    SoakResult r = RunSoak(o, nullptr);
    ck_assert_msg(r.ops.count("submit-slice") && r.ops.at("submit-slice") > 100,
                  "few slice submissions");
  }
}
END_TEST

START_TEST(soak_seed_3_other_shape) {
  SoakOptions o = Small(3);
  o.gpus = 400;  // 2 racks: no whole-rack cells, 2 pinned nodes
  o.vcs = 3;
  ExpectOk(o);
}
END_TEST

// Rarer operations (reconfigure, snapshot/restore, clone) need more steps to come up;
// one seed at 10k GPUs with a sparser job sweep covers them.
START_TEST(soak_10k_gpus) {
  SoakOptions o = Small(4);
  o.gpus = 10000;
  o.steps = Steps(1500);
  o.sweep_every = 100;
  SoakResult r = RunSoak(o, nullptr);
  ck_assert_msg(r.ok, "step %ld op %s: %s", r.failed_step, r.failed_op.c_str(), r.message.c_str());
  ck_assert_int_eq(r.gpus, 10000);
  ck_assert_int_eq(r.nodes, 1250);
}
END_TEST

START_TEST(soak_same_seed_same_run) {
  SoakOptions o = Small(5);
  o.steps = Steps(3000) / 3;
  SoakResult a = RunSoak(o, nullptr), b = RunSoak(o, nullptr);
  ck_assert(a.ok && b.ok);
  ck_assert(a.ops == b.ops);
  ck_assert(a.outcomes == b.outcomes);
  ck_assert_int_eq(a.max_jobs, b.max_jobs);
}
END_TEST

// The soak must be able to fail: its record loses a job at step 200.
START_TEST(soak_detects_lost_job) {
  SoakOptions o = Small(1);
  o.steps = 400;
  o.fault = "drop-job";
  o.fault_step = 200;
  SoakResult r = RunSoak(o, nullptr);
  ck_assert(!r.ok);
  ck_assert_int_eq(r.failed_step, 200);
  ck_assert_msg(r.failed_op.find("drop-job") != std::string::npos, "op: %s", r.failed_op.c_str());
  ck_assert_msg(r.message.find("jobs, the soak's record") != std::string::npos, "%s",
                r.message.c_str());
}
END_TEST

// A restore from a snapshot in which one job sits on another's GPUs: the engine must
// refuse it or the soak must see the difference; either way the run fails there.
START_TEST(soak_detects_corrupt_snapshot) {
  SoakOptions o = Small(2);
  o.steps = 400;
  o.fault = "corrupt-snapshot";
  o.fault_step = 300;
  SoakResult r = RunSoak(o, nullptr);
  ck_assert(!r.ok);
  ck_assert_int_eq(r.failed_step, 300);
  ck_assert_str_eq(r.failed_op.c_str(), "snapshot-restore");
}
END_TEST

Suite *soak_suite() {
  Suite *s = suite_create("soak");
  TCase *tc = tcase_create("soak");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, soak_seed_1);
  tcase_add_test(tc, soak_seed_2);
  tcase_add_test(tc, soak_fractions);
  tcase_add_test(tc, soak_mig);
  tcase_add_test(tc, soak_seed_3_other_shape);
  tcase_add_test(tc, soak_10k_gpus);
  tcase_add_test(tc, soak_same_seed_same_run);
  tcase_add_test(tc, soak_detects_lost_job);
  tcase_add_test(tc, soak_detects_corrupt_snapshot);
  suite_add_tcase(s, tc);
  return s;
}

int main() { return check_run(soak_suite(), CK_NORMAL, CK_FORK_GETENV); }
