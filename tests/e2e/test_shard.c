/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_shard.c - --gres=shard:k jobs placed by HiveD inside slurmctld (issue 15,
 * item 4): fractions of a GPU as cells, packed and guaranteed per VC, and a GPU
 * holding shards never given out whole (Slurm 22.05 itself would: fixed only in
 * 23.11.5).
 *
 * Its own cluster (scripts/hived-cluster: 2 nodes x 4 fake GPUs, 2 sockets, 2
 * racks, 4 shards per GPU from gres.conf File= lines): accounts "vca" and "vcb"
 * own 2 shards each (one HALF cell), "vcc" one node cell. Needs root (exit 77
 * otherwise).
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e_main.h"
#include "run.h"
#include "slurm_jobs.h"

#define NODES 2
#define GPUS 4

/* The node and GPU of the shard job on the GPU HiveD packs the shards on. */
static char shard_node[32];
static int shard_gpu = -1;

/* A running job's single node and its GPU indices there. */
static int gpus_of(int id, char *node, size_t len, int *gpus)
{
	alloc_t a;

	job_alloc(id, &a);
	ck_assert_msg(a.n == 1, "job %d: %d nodes with GPU indices, expected 1: %s", id, a.n,
		      job_line(id));
	snprintf(node, len, "%s", a.node[0]);
	memcpy(gpus, a.gpus[0], sizeof(int) * a.cnt[0]);
	return a.cnt[0];
}

/*
 * A running shard job: its node and its one GPU, from "GRES=shard:k(IDX:g)"
 * (22.05) or "GRES=shard:k(0/4,k/4,...)", one used/total per GPU (23.11+).
 */
static int shard_gpu_of(int id, char *node, size_t len)
{
	char *l = job_line(id), *p, *q, *end, list[256];
	int g = -1, n = 0, used, total, idx[E2E_MAX_GPUS];

	ck_assert_msg(l && (p = strstr(l, " Nodes=")) && (q = strstr(p, " GRES=shard:")) &&
			      (q = strchr(q, '(')),
		      "job %d: no shard GRES in: %s", id, l ? l : "");
	ck_assert_int_eq(sscanf(p, " Nodes=%255s", list), 1);
	snprintf(node, len, "%.*s", (int) len - 1, list);
	if ((end = strchr(q, ')')))
		*end = '\0';
	if (!strncmp(q, "(IDX:", 5)) {
		ck_assert_int_eq(sscanf(q, "(IDX:%255[0-9,-])", list), 1);
		n = parse_index_list(list, idx, E2E_MAX_GPUS);
		g = (n == 1) ? idx[0] : -1;
	} else {
		for (int k = 0; q && sscanf(q + 1, "%d/%d", &used, &total) == 2; k++) {
			if (used) {
				n++;
				g = k;
			}
			q = strchr(q + 1, ',');
		}
	}
	ck_assert_msg(n == 1, "shard job %d is not on exactly one GPU: %s", id, l);
	free(l);
	return g;
}

static void assert_on_shard_gpu(int id)
{
	char node[32];
	int g;

	ck_assert_msg(wait_job(id, "JobState=RUNNING", 120), "job %d did not start: %s", id,
		      job_line(id));
	g = shard_gpu_of(id, node, sizeof(node));
	ck_assert_msg(!strcmp(node, shard_node) && (g == shard_gpu),
		      "shard job %d is on %s GPU %d, not packed with the others on %s GPU %d", id,
		      node, g, shard_node, shard_gpu);
}

START_TEST(test_up)
{
	e2e_cluster_up(NODES, GPUS,
		       "--fresh --priority multifactor --shards 4 --vc-quotas vcc=4 "
		       "--shard-quotas vca=2,vcb=2");
	e2e_log_from_start();
	ck_assert(e2e_log_has("select/hived: loaded"));
}
END_TEST

/* Two VCs' shard jobs, each VC owning half a GPU: all four on one GPU. */
START_TEST(test_packed)
{
	int a1 = submit("-A vca --gres=shard:1");
	int a2, b1, b2;

	ck_assert_msg(wait_job(a1, "JobState=RUNNING", 120), "vca's shard job %d did not start: %s",
		      a1, job_line(a1));
	shard_gpu = shard_gpu_of(a1, shard_node, sizeof(shard_node));
	ck_assert_msg(job_has(a1, "SystemComment=hived: given") &&
			      job_has(a1, "fractions") && job_has(a1, "guaranteed"),
		      "job %d: no guaranteed fractional placement in its comment: %s", a1,
		      job_line(a1));
	a2 = submit("-A vca --gres=shard:1");
	b1 = submit("-A vcb --gres=shard:1");
	b2 = submit("-A vcb --gres=shard:1");
	assert_on_shard_gpu(a2);
	assert_on_shard_gpu(b1);
	assert_on_shard_gpu(b2);
	ck_assert(job_has(b2, "guaranteed"));
}
END_TEST

/*
 * The third VC's whole node starts at once: on the node without shards, since
 * the other has a GPU holding shards and so only 3 whole GPUs.
 */
START_TEST(test_whole_node_beside)
{
	char node[32];
	int g[E2E_MAX_GPUS], n;
	int c1 = submit("-A vcc -N1 --gres=gpu:4");

	ck_assert_msg(wait_job(c1, "JobState=RUNNING", 120), "vcc's whole node job %d did not start: %s",
		      c1, job_line(c1));
	n = gpus_of(c1, node, sizeof(node), g);
	ck_assert_int_eq(n, GPUS);
	ck_assert_msg(strcmp(node, shard_node) != 0,
		      "whole node job %d was given %s, whose GPU %d holds shards", c1, node,
		      shard_gpu);
}
END_TEST

/* Whole GPUs beside the shards: never the GPU holding them. */
START_TEST(test_whole_gpu_excludes_shards)
{
	char args[128], node[32];
	int g[E2E_MAX_GPUS], n, x, y;

	snprintf(args, sizeof(args), "-A vcc --qos=scavenger --gres=gpu:3 -w %s", shard_node);
	x = submit(args);
	ck_assert_msg(wait_job(x, "JobState=RUNNING", 120), "job %d did not start: %s", x,
		      job_line(x));
	n = gpus_of(x, node, sizeof(node), g);
	ck_assert_int_eq(n, 3);
	for (int k = 0; k < n; k++)
		ck_assert_msg(g[k] != shard_gpu, "whole-GPU job %d was given GPU %d, which holds shards",
			      x, shard_gpu);

	/* Every GPU of that node is now busy: one holds shards, three job x. */
	snprintf(args, sizeof(args), "-A vcc --qos=scavenger --gres=gpu:1 -w %s", shard_node);
	y = submit(args);
	ck_assert_msg(wait_job(y, "SystemComment=hived: ", 120),
		      "job %d: no word from HiveD on why it waits: %s", y, job_line(y));
	ck_assert_msg(job_has(y, "JobState=PENDING"),
		      "whole-GPU job %d started beside shards on a full node: %s", y, job_line(y));
	run(NULL, "scancel %d", y);
}
END_TEST

/*
 * vca frees one of its shards; vcb's opportunistic shard job takes it (the only
 * free shard left); vca's next shard job takes it back at once.
 */
START_TEST(test_guaranteed_shard)
{
	int a2 = 0, o, a3;
	char *out = NULL;

	ck_assert_int_eq(run(&out, "squeue -h -A vca -o %%i"), 0);
	ck_assert_msg(out && sscanf(out, "%*d %d", &a2) == 1, "vca's two jobs: %s", out ? out : "");
	free(out);
	run(NULL, "scancel %d", a2);
	for (int i = 0; i < 240 && job_has(a2, "JobState=RUNNING"); i++)
		usleep(500 * 1000);
	ck_assert(!job_has(a2, "JobState=RUNNING"));

	o = submit("-A vcb --qos=scavenger --gres=shard:1");
	assert_on_shard_gpu(o);
	ck_assert_msg(job_has(o, "opportunistic"), "job %d: %s", o, job_line(o));

	a3 = submit("-A vca --gres=shard:1");
	ck_assert_msg(wait_job(o, "Restarts=1", 120) || wait_job(o, "JobState=PENDING", 5),
		      "vca's job %d did not take back its shard from opportunistic job %d: %s", a3,
		      o, job_line(o));
	assert_on_shard_gpu(a3);
	ck_assert(job_has(a3, "guaranteed"));
}
END_TEST

/*
 * Shard shapes HiveD does not place are refused at submission (by HiveD, or by
 * Slurm itself where it knows them invalid), never left to cons_tres, which on
 * 22.05 would put them on GPUs given out whole.
 */
START_TEST(test_other_shapes_refused)
{
	const char *shapes[] = {"--gres=gpu:1,shard:1", "-n1 --tres-per-task=gres/shard:1"};
	const char *why[] = {"whole GPUs and shards in one job",
			     "HiveD places shards per node only"};

	/* Slurm itself may refuse the shape first ("Invalid generic resource";
	 * 22.05's sbatch has no --tres-per-task): refused all the same. */
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		(void) e2e_expect_refused("test_shard", "vca", shapes[i], why[i]);
}
END_TEST

/* A job's StartTime or EndTime in seconds since the epoch; 0 if Unknown. */
static long job_time(int id, const char *key)
{
	char *out = NULL;
	long t = 0;

	if (run(&out, "t=$(scontrol -o show job %d | grep -o ' %s=[^ ]*' | cut -d= -f2) && "
		"[ \"$t\" != Unknown ] && date -d \"$t\" +%%s", id, key) == 0 && out)
		t = atol(out);
	free(out);
	return t;
}

/*
 * Backfill's start time for a shard job held at its VC's quota: when the VC's
 * own job holding its fractions ends (a shard job counts as its fraction, not
 * as 0 GPUs). vca's one HALF cell is taken by a 2-shard job with a time limit;
 * a 1-shard job of vca then waits, and backfill gives it that job's end.
 */
START_TEST(test_quota_wait_start_time)
{
	int w1, w2;
	long end1 = 0, start2 = 0;
	char *out = NULL;

	run(NULL, "scancel -A vca");
	for (int i = 0; i < 240; i++) {
		run(&out, "squeue -h -A vca -o %%i");
		bool none = !out || !out[0];

		free(out);
		out = NULL;
		if (none)
			break;
		usleep(500 * 1000);
	}
	w1 = submit("-A vca -t 5 --gres=shard:2");
	ck_assert_msg(wait_job(w1, "JobState=RUNNING", 120) && job_has(w1, "guaranteed"),
		      "vca's 2-shard job %d did not start guaranteed: %s", w1, job_line(w1));
	end1 = job_time(w1, "EndTime");
	ck_assert_msg(end1 > 0, "job %d has no end time: %s", w1, job_line(w1));
	w2 = submit("-A vca -t 5 --gres=shard:1");
	ck_assert_msg(wait_job(w2, "quota", 120) && job_has(w2, "JobState=PENDING"),
		      "vca's 1-shard job %d is not held at vca's quota: %s", w2, job_line(w2));
	/* Backfill runs every 30 s by default: a generous deadline. */
	for (int i = 0; i < 360 && !(start2 = job_time(w2, "StartTime")); i++)
		usleep(500 * 1000);
	fprintf(stderr, "test_shard: job %d ends at %ld; waiting shard job %d starts at %ld\n", w1,
		end1, w2, start2);
	ck_assert_msg(start2 > 0, "backfill gave shard job %d no start time: %s", w2, job_line(w2));
	ck_assert_msg(start2 >= end1 - 60 && start2 <= end1 + 120,
		      "shard job %d's start time %ld is not when job %d ends (%ld)", w2, start2, w1,
		      end1);
	run(NULL, "scancel %d %d", w1, w2);
}
END_TEST

/*
 * A shard quota from sacctmgr: account "vcd", unknown to hived.conf, gets
 * GrpTRES=gres/shard=2 and so one HALF cell; its 2-shard job runs guaranteed in
 * it (preempting opportunistic work if it must) and a third shard waits at its
 * quota.
 */
START_TEST(test_sacctmgr_shard_quota)
{
	int d1, d2;

	/* The database outlives --fresh: each step may have been done by an earlier run. */
	run(NULL, "sacctmgr -i add account vcd cluster=hived QOS=normal,scavenger,high "
	    "DefaultQOS=normal; sacctmgr -i add user root account=vcd cluster=hived; "
	    "sacctmgr -i modify account vcd set GrpTRES=gres/shard=2");
	ck_assert_int_eq(run(NULL, "sacctmgr -nP show assoc account=vcd user= format=grptres | "
			     "grep -q 'gres/shard=2' && sacctmgr -nP show assoc account=vcd "
			     "user=root format=user | grep -qx root"),
			 0);
	/* Limits are compared at a job_test: short jobs until vcd is a VC. */
	for (int i = 0; i < 60 && !e2e_log_has(".conf: 2 nodes, 4 VCs"); i++) {
		run(NULL, "sbatch -A vcc --gres=gpu:1 -o /dev/null --wrap true >/dev/null 2>&1");
		sleep(2);
	}
	ck_assert_msg(e2e_log_has(".conf: 2 nodes, 4 VCs"), "vcd's GrpTRES did not become a VC");
	d1 = submit("-A vcd --gres=shard:2");
	ck_assert_msg(wait_job(d1, "JobState=RUNNING", 180), "vcd's shard job %d did not start: %s",
		      d1, job_line(d1));
	ck_assert_msg(job_has(d1, "fractions") && job_has(d1, "(vcd, guaranteed)"),
		      "vcd's shard job %d is not guaranteed in its VC: %s", d1, job_line(d1));
	d2 = submit("-A vcd --gres=shard:1");
	ck_assert_msg(wait_job(d2, "quota", 120) && job_has(d2, "JobState=PENDING"),
		      "vcd's third shard job %d is not held at vcd's quota: %s", d2, job_line(d2));
	run(NULL, "scancel %d %d", d1, d2);
}
END_TEST

int main(void)
{
	TCase *tc;
	int rc = e2e_init("shard");

	if (rc)
		return rc;
	tc = tcase_create("shard");
	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, test_up);
	tcase_add_test(tc, test_packed);
	tcase_add_test(tc, test_whole_node_beside);
	tcase_add_test(tc, test_whole_gpu_excludes_shards);
	tcase_add_test(tc, test_guaranteed_shard);
	tcase_add_test(tc, test_other_shapes_refused);
	tcase_add_test(tc, test_quota_wait_start_time);
	tcase_add_test(tc, test_sacctmgr_shard_quota);
	return e2e_run("shard", tc, cancel_all);
}
