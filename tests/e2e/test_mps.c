/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_mps.c - gres/mps beside select/hived (issue 15, item 6): MPS shares are
 * no cells, and left to cons_tres they could land on a GPU HiveD gave another
 * VC's job whole, so select/hived refuses --gres=mps jobs at submission with its
 * reason; whole-GPU jobs on nodes that also offer gres/mps are placed as usual.
 *
 * Its own cluster (scripts/hived-cluster --mps 100: 2 nodes x 4 fake GPUs,
 * gres.conf Name=mps Count=100 per GPU device): account "vca" owns one node
 * cell. Then the same nodes with their last GPU in MIG mode as well (--mig 1):
 * slice jobs there are refused, since Slurm would start them without their
 * slices. Needs root (exit 77 otherwise).
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e_main.h"
#include "run.h"
#include "slurm_jobs.h"

#define NODES 2
#define GPUS 4
#define WHY "gres/mps: HiveD gives no MPS shares"
#define P2G "a100_2g.10gb"
#define MIG_WHY "gres/mps beside MIG slices (node node"

START_TEST(test_up)
{
	e2e_cluster_up(NODES, GPUS, "--fresh --mps 100 --vc-quotas vca=4");
	e2e_log_from_start();
	ck_assert(e2e_log_has("select/hived: loaded"));
}
END_TEST

START_TEST(test_mps_refused)
{
	ck_assert_msg(e2e_expect_refused("test_mps", "vca", "--gres=mps:50", WHY),
		      "a gres/mps job was refused by Slurm, not by HiveD");
	ck_assert_msg(e2e_expect_refused("test_mps", "vca", "-N2 --gres=mps:100", WHY),
		      "a 2-node gres/mps job was refused by Slurm, not by HiveD");
}
END_TEST

/*
 * Submits a job of two GPUs (or slices) on one node and waits until it runs with
 * two; *given is HiveD's word for them ("given node1:4-5").
 */
static int run_two(const char *args, alloc_t *a, char *given, size_t len)
{
	int id = submit(args);

	ck_assert_msg(wait_job(id, "JobState=RUNNING", 120), "job %d did not start: %s", id,
		      job_line(id));
	job_alloc(id, a);
	ck_assert_msg(a->n == 1 && a->cnt[0] == 2, "job %d holds %d GPUs on %d nodes: %s", id,
		      a->n ? a->cnt[0] : 0, a->n, job_line(id));
	snprintf(given, len, "given %s:%d-%d", a->node[0], a->gpus[0][0], a->gpus[0][1]);
	return id;
}

/* Whole GPUs on nodes with gres/mps: placed by HiveD, at the indices it chose. */
START_TEST(test_whole_gpus_beside_mps)
{
	alloc_t a;
	char given[64];
	int id = run_two("-A vca --gres=gpu:2", &a, given, sizeof(given));

	ck_assert_msg(job_has(id, given) && job_has(id, "guaranteed"),
		      "job %d: Slurm's GPUs are not HiveD's guaranteed ones (%s): %s", id, given,
		      job_line(id));
}
END_TEST

/* Slurm's major release (22 for 22.05), from `slurmctld -V`. */
static int slurm_major(void)
{
	char *v = NULL;
	int major = 0;

	ck_assert_int_eq(run(&v, "slurmctld -V | awk '{print $NF}'"), 0);
	ck_assert_msg(v && sscanf(v, "%d.", &major) == 1, "slurmctld -V: %s", v ? v : "");
	free(v);
	return major;
}

/*
 * Slurm 22.05 splits a MIG slice's MultipleFiles= list beside gres/mps and
 * books the slices under the wrong types: a slice job given HiveD's slices 4-5
 * ran with "GRES=gpu:a100_2g.10gb:0(IDX:)". There it is refused, each such node
 * named in the log; from 23.11 on Slurm keeps the slices apart, and the job
 * runs on the two slices HiveD chose.
 */
START_TEST(test_mig_beside_mps)
{
	int id;
	alloc_t a;
	char given[64];

	cancel_all();
	e2e_cluster_up(NODES, GPUS, "--fresh --mps 100 --mig 1 --mig-quotas vcb=" P2G ":2");
	e2e_log_from_start();
	if (slurm_major() < 23) {
		ck_assert_msg(e2e_expect_refused("test_mps", "vcb", "--gres=gpu:" P2G ":2", MIG_WHY),
			      "a slice job beside gres/mps was refused by Slurm, not by HiveD");
		ck_assert_msg(e2e_expect_refused("test_mps", "vcb", "--gres=gpu:" P2G ":1", MIG_WHY),
			      "a 1-slice job beside gres/mps was refused by Slurm, not by HiveD");
		ck_assert(e2e_wait_log("node node1 has gres/mps beside MIG slices", 60));
		ck_assert(e2e_wait_log("node node2 has gres/mps beside MIG slices", 60));
		return;
	}
	ck_assert(!e2e_log_has("has gres/mps beside MIG slices"));
	id = run_two("-A vcb --gres=gpu:" P2G ":2", &a, given, sizeof(given));
	ck_assert_msg(a.gpus[0][0] == 4 && a.gpus[0][1] == 5 && job_has(id, given),
		      "job %d: Slurm's slices are not HiveD's (%s): %s", id, given, job_line(id));
}
END_TEST

int main(void)
{
	TCase *tc;
	int rc = e2e_init("mps");

	if (rc)
		return rc;
	tc = tcase_create("mps");
	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, test_up);
	tcase_add_test(tc, test_mps_refused);
	tcase_add_test(tc, test_whole_gpus_beside_mps);
	tcase_add_test(tc, test_mig_beside_mps);
	return e2e_run("mps", tc, cancel_all);
}
