// SPDX-License-Identifier: GPL-2.0-or-later
// hived_gpu_shape_of: the one derivation of a gang from Slurm's GPU options, which
// select/hived (hived_job.c) and hivedctl whatif both ask.
#include <cstdint>
#include <cstring>

// After the C++ headers: check.h defines a fail() macro.
#include <check.h>

#include "../check_run.h"
#include "hived.h"

namespace {

// A cluster of 4 nodes, the largest with 8 GPUs, splitCountOnlyJobs on.
hived_gpu_ask Ask() {
  hived_gpu_ask a{};
  a.nodes = 1;
  a.split_count_only = 1;
  a.node_count = 4;
  a.max_node_leaves = 8;
  return a;
}

hived_gpu_shape Shape(const hived_gpu_ask& a) {
  hived_gpu_shape s{};
  char err[256] = "";
  ck_assert_msg(hived_gpu_shape_of(&a, &s, err, sizeof err) == HIVED_OK, "%s", err);
  return s;
}

void ck_member(const hived_gpu_shape& s, size_t m, int32_t pods, int32_t gpus) {
  ck_assert_uint_gt(s.n_members, m);
  ck_assert_int_eq(s.members[m].pod_number, pods);
  ck_assert_int_eq(s.members[m].leaf_cell_number, gpus);
  ck_assert_int_eq(s.members[m].fraction_number, 0);
}

}  // namespace

START_TEST(per_node_count_on_each_node) {
  hived_gpu_ask a = Ask();
  a.nodes = 3;
  a.max_nodes = 3;
  a.gpus_per_node = 2;
  hived_gpu_shape s = Shape(a);
  ck_assert_uint_eq(s.n_members, 1);
  ck_member(s, 0, 3, 2);
  ck_assert_int_eq(s.split_max_pods, 0);
}
END_TEST

START_TEST(job_count_over_nodes_evenly) {
  hived_gpu_ask a = Ask();
  a.nodes = 2;
  a.max_nodes = 2;
  a.gpus_per_job = 6;
  hived_gpu_shape s = Shape(a);
  ck_assert_uint_eq(s.n_members, 1);
  ck_member(s, 0, 2, 3);
  a.gpus_per_job = 5;
  char err[256] = "";
  ck_assert_int_eq(hived_gpu_shape_of(&a, &s, err, sizeof err), HIVED_EINVAL);
  ck_assert_msg(strstr(err, "--gpus=5 does not split evenly over 2 nodes"), "%s", err);
}
END_TEST

// --gpus=N alone: whole largest nodes first, then the rest on one more node; the
// engine may split it over -N's upper bound, or every node when none was given.
START_TEST(job_count_alone_fewest_nodes) {
  hived_gpu_ask a = Ask();
  a.gpus_per_job = 20;
  hived_gpu_shape s = Shape(a);
  ck_assert_uint_eq(s.n_members, 2);
  ck_member(s, 0, 2, 8);
  ck_member(s, 1, 1, 4);
  ck_assert_int_eq(s.split_max_pods, 4);
  a.max_nodes = 3;  // -N 1-3
  ck_assert_int_eq(Shape(a).split_max_pods, 3);
  a.max_nodes = 9;  // more than the cluster has
  ck_assert_int_eq(Shape(a).split_max_pods, 4);
  a.max_nodes = 1;  // -N 1: never split
  ck_assert_int_eq(Shape(a).split_max_pods, 0);
  a.max_nodes = 0;
  a.split_count_only = 0;
  ck_assert_int_eq(Shape(a).split_max_pods, 0);
  a.gpus_per_job = 8;
  s = Shape(a);
  ck_assert_uint_eq(s.n_members, 1);
  ck_member(s, 0, 1, 8);
}
END_TEST

// Slurm gives an exclusive job every GPU of its nodes: whole nodes, never split.
START_TEST(whole_node_pods) {
  hived_gpu_ask a = Ask();
  a.whole_node = 1;
  a.gpus_per_node = 4;
  a.nodes = 2;
  hived_gpu_shape s = Shape(a);
  ck_assert_uint_eq(s.n_members, 1);
  ck_member(s, 0, 2, 8);
  ck_assert_int_eq(s.whole_node_leaves, 8);
  a.whole_node = 0;
  ck_assert_int_eq(Shape(a).whole_node_leaves, 0);
  a.whole_node = 1;
  a.nodes = 1;
  a.gpus_per_node = 0;
  a.gpus_per_job = 12;  // 8 + 4: two whole nodes
  s = Shape(a);
  ck_assert_uint_eq(s.n_members, 1);
  ck_member(s, 0, 2, 8);
  ck_assert_int_eq(s.split_max_pods, 0);
  // A pod larger than any node stays as asked (the engine refuses it).
  a.gpus_per_job = 0;
  a.gpus_per_node = 16;
  s = Shape(a);
  ck_member(s, 0, 1, 16);
  ck_assert_int_eq(s.whole_node_leaves, 0);
}
END_TEST

START_TEST(bad_counts_name_the_option) {
  hived_gpu_ask a = Ask();
  hived_gpu_shape s{};
  char err[256] = "";
  ck_assert_int_eq(hived_gpu_shape_of(&a, &s, err, sizeof err), HIVED_EINVAL);
  ck_assert_msg(strstr(err, "no GPU count"), "%s", err);
  a.gpus_per_node = int64_t{1} << 40;
  ck_assert_int_eq(hived_gpu_shape_of(&a, &s, err, sizeof err), HIVED_EINVAL);
  ck_assert_msg(strstr(err, "more than a request can hold"), "%s", err);
  a.gpus_per_node = 0;
  a.gpus_per_job = 3;
  a.max_node_leaves = 0;
  ck_assert_int_eq(hived_gpu_shape_of(&a, &s, err, sizeof err), HIVED_EINVAL);
  ck_assert_msg(strstr(err, "--gpus=3: no node has GPUs"), "%s", err);
  ck_assert_int_eq(hived_gpu_shape_of(nullptr, &s, err, sizeof err), HIVED_EINVAL);
  ck_assert_int_eq(hived_gpu_shape_of(&a, nullptr, nullptr, 0), HIVED_EINVAL);
}
END_TEST

int main(void) {
  Suite* s = suite_create("gpu_shape");
  TCase* tc = tcase_create("shape");
  tcase_add_test(tc, per_node_count_on_each_node);
  tcase_add_test(tc, job_count_over_nodes_evenly);
  tcase_add_test(tc, job_count_alone_fewest_nodes);
  tcase_add_test(tc, whole_node_pods);
  tcase_add_test(tc, bad_counts_name_the_option);
  suite_add_tcase(s, tc);
  return check_run(s, CK_NORMAL, CK_FORK_GETENV);
}
