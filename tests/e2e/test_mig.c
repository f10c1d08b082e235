/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_mig.c - --gres=gpu:<MIG profile>:n jobs placed by HiveD inside slurmctld
 * (issue 15, item 4): MIG slices are leaf cells of their profile, guaranteed per
 * VC, addressed by their Slurm GRES index; a whole-GPU job never gets a slice.
 *
 * Its own cluster (scripts/hived-cluster --mig 1: 2 nodes x 4 fake GPUs, GPU 3 of
 * each in MIG mode split a100_3g.20gb + 2 x a100_2g.10gb, gres.conf
 * MultipleFiles= lines; every cell derived, every quota from sacctmgr): "vca"
 * owns both 3g slices (GrpTRES=gres/gpu:a100_3g.20gb=2: one on each node), "vcb"
 * two 2g slices (one node's),
 * "vcc" two whole GPUs (gres/gpu=2, two single-GPU cells), "vcd" one node's 3
 * (gres/gpu=3, a node cell). In gres.conf order a node's GRES indices are
 * 0-2 for its whole GPUs, 3 for the 3g slice and 4-5 for the 2g slices; the test
 * checks every index against Slurm's own per-type view of the node (scontrol
 * show node -d, GresUsed), so an index of the wrong type fails. Needs root (exit
 * 77 otherwise).
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
#define P3G "a100_3g.20gb"
#define P2G "a100_2g.10gb"

/* The GRES indices of the cluster's layout (see the header). */
static const int whole_idx[] = {0, 1, 2};
static const int idx_3g = 3;
static const int idx_2g[] = {4, 5};

/* The vca job holding its guaranteed 3g slice, and where. */
static int vca_job;
static char vca_node[32];

static int one_node_gpus(int id, char *node, size_t len, int *gpus)
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
 * Slurm's own count of used GRES of `type` on `node` and their indices, from
 * "GresUsed=gpu:a100:1(IDX:0),gpu:a100_3g.20gb:1(IDX:3),..." (scontrol -d show
 * node): Slurm files an index under a type by its gres.conf line, so this says
 * which type Slurm holds an index as.
 */
static int used_of_type(const char *node, const char *type, int *idx)
{
	char *out = NULL, *p, key[96], list[256];
	int n = 0;

	ck_assert_int_eq(run(&out, "scontrol -d -o show node %s", node), 0);
	snprintf(key, sizeof(key), "gpu:%s:", type);
	ck_assert_msg(out && (p = strstr(out, "GresUsed=")), "no GresUsed for %s: %s", node,
		      out ? out : "");
	for (p = strstr(p, key); p; p = strstr(p + 1, key)) {
		/* "gpu:a100:" must not match inside "gpu:a100_3g.20gb:". */
		if (p[-1] != '=' && p[-1] != ',')
			continue;
		if (sscanf(p + strlen(key), "%*d(IDX:%255[0-9,-])", list) == 1)
			n = parse_index_list(list, idx, E2E_MAX_GPUS);
		break;
	}
	free(out);
	return n;
}

static bool in(int x, const int *set, int n)
{
	for (int i = 0; i < n; i++)
		if (set[i] == x)
			return true;
	return false;
}

/* Every index of the job is one Slurm holds as a used GRES of `type`. */
static void assert_slurm_type(int id, const char *node, const int *g, int n, const char *type)
{
	int used[E2E_MAX_GPUS], u = used_of_type(node, type, used);

	for (int k = 0; k < n; k++)
		ck_assert_msg(in(g[k], used, u),
			      "job %d's GRES index %d on %s is not a used %s GRES in Slurm's view of the node (%d used)",
			      id, g[k], node, type, u);
}

/* A running slice job: on one node, n indices, all slices of the expected set. */
static void assert_slices(int id, const char *type, const int *expect, int n_expect, int n,
			  char *node, size_t len)
{
	int g[E2E_MAX_GPUS], got;

	ck_assert_msg(wait_job(id, "JobState=RUNNING", 120), "slice job %d did not start: %s", id,
		      job_line(id));
	got = one_node_gpus(id, node, len, g);
	ck_assert_msg(got == n, "slice job %d holds %d GRES, asked %d: %s", id, got, n,
		      job_line(id));
	for (int k = 0; k < got; k++)
		ck_assert_msg(in(g[k], expect, n_expect),
			      "%s job %d was given GRES index %d on %s, which is no %s slice: %s", type,
			      id, g[k], node, type, job_line(id));
	assert_slurm_type(id, node, g, got, type);
	/* HiveD's choice is what Slurm allocated: "given node1:3 (vca, guaranteed)". */
	{
		char given[64];

		snprintf(given, sizeof(given), "given %s:%d", node, g[0]);
		ck_assert_msg(job_has(id, given), "job %d: Slurm's index %d is not HiveD's: %s", id,
			      g[0], job_line(id));
	}
}

/*
 * HiveD has made VCs of all four accounts' limits: at load if slurmdbd had them
 * already (a cluster directory used before), else when they changed.
 */
static bool quotas_applied(void)
{
	return e2e_log_has(".conf: 2 nodes, 4 VCs");
}

START_TEST(test_up)
{
	e2e_cluster_up(NODES, GPUS,
		       "--fresh --priority multifactor --mig 1 --vc-quotas vcc=2,vcd=3 "
		       "--mig-quotas vca=" P3G ":2,vcb=" P2G ":2");
	e2e_log_from_start();
	ck_assert(e2e_log_has("select/hived: loaded"));
	/*
	 * The quotas are sacctmgr's, compared at a job_test (at most every 5 s):
	 * short jobs until HiveD has turned all three into cells.
	 */
	for (int i = 0; i < 60 && !quotas_applied(); i++) {
		run(NULL, "sbatch -A vcc --gres=gpu:1 -o /dev/null --wrap true >/dev/null 2>&1");
		sleep(2);
	}
	ck_assert_msg(quotas_applied(), "the sacctmgr quotas did not become VCs");
	ck_assert_msg(!e2e_log_has("cannot be given cells"), "a sacctmgr quota was refused");
	cancel_all();
}
END_TEST

/*
 * Each VC's slice job runs on a slice of its profile, guaranteed, on the index
 * HiveD chose; the job sees that device.
 */
START_TEST(test_slices_guaranteed)
{
	char node[32], *out = NULL, path[2400 + 32], args[2600];
	int b;

	snprintf(path, sizeof(path), "%s/vca-env.out", e2e_clusterdir);
	unlink(path);
	snprintf(args, sizeof(args),
		 "sbatch --parsable -A vca --gres=gpu:" P3G ":1 -o %s --wrap "
		 "'echo CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES SLURM_JOB_GPUS=$SLURM_JOB_GPUS; "
		 "sleep 600'",
		 path);
	ck_assert_int_eq(run(&out, "%s", args), 0);
	vca_job = atoi(out);
	free(out);
	ck_assert(vca_job > 0);
	assert_slices(vca_job, P3G, &idx_3g, 1, 1, vca_node, sizeof(vca_node));
	ck_assert_msg(job_has(vca_job, "guaranteed") && job_has(vca_job, "(vca,"),
		      "vca's slice job %d is not guaranteed in its VC: %s", vca_job,
		      job_line(vca_job));

	b = submit("-A vcb --gres=gpu:" P2G ":2");
	assert_slices(b, P2G, idx_2g, 2, 2, node, sizeof(node));
	ck_assert_msg(job_has(b, "guaranteed") && job_has(b, "(vcb,"),
		      "vcb's slice job %d is not guaranteed in its VC: %s", b, job_line(b));

	/* The job's device environment names its slice's index. */
	for (int i = 0; i < 240; i++) {
		char *text = read_file(path);
		bool done = text && strstr(text, "SLURM_JOB_GPUS=");

		if (done) {
			fprintf(stderr, "test_mig: vca's slice job sees %s", text);
			ck_assert_msg(strstr(text, "SLURM_JOB_GPUS=3\n"),
				      "vca's job does not see GRES index 3: %s", text);
			ck_assert_msg(strstr(text, "CUDA_VISIBLE_DEVICES=") &&
					      !strstr(text, "CUDA_VISIBLE_DEVICES= "),
				      "vca's job has no CUDA_VISIBLE_DEVICES: %s", text);
			free(text);
			return;
		}
		free(text);
		usleep(500 * 1000);
	}
	ck_abort_msg("vca's slice job %d wrote no environment to %s", vca_job, path);
}
END_TEST

/*
 * Untyped GPU jobs get whole GPUs only: on a node whose whole GPUs are busy, one
 * more waits although slices there are free.
 */
START_TEST(test_untyped_never_slice)
{
	char args[128], node[32];
	int g[E2E_MAX_GPUS], n, x[3], z, free_slices = 0, used[E2E_MAX_GPUS];
	/*
	 * vcc's two GPUs are two single-GPU cells (a node's 3 whole GPUs have no
	 * level between GPU and node): two guaranteed 1-GPU jobs, then an
	 * opportunistic one on the third whole GPU.
	 */
	const char *how[] = {"", "", "--qos=scavenger "};
	char target[32] = "";

	/* A node with a free slice (the slice jobs above hold at most 3, on one node). */
	for (int k = 1; k <= NODES && !target[0]; k++) {
		char name[32];

		snprintf(name, sizeof(name), "node%d", k);
		if (used_of_type(name, P3G, used) + used_of_type(name, P2G, used) < 3)
			snprintf(target, sizeof(target), "%s", name);
	}
	ck_assert_msg(target[0], "no node with a free slice");
	for (int i = 0; i < 3; i++) {
		snprintf(args, sizeof(args), "-A vcc %s--gres=gpu:1 -w %s", how[i], target);
		x[i] = submit(args);
		ck_assert_msg(wait_job(x[i], "JobState=RUNNING", 120), "job %d did not start: %s",
			      x[i], job_line(x[i]));
		n = one_node_gpus(x[i], node, sizeof(node), g);
		ck_assert_int_eq(n, 1);
		ck_assert_msg(in(g[0], whole_idx, 3), "untyped job %d was given slice %d on %s: %s",
			      x[i], g[0], node, job_line(x[i]));
		assert_slurm_type(x[i], node, g, n, "a100");
	}

	/* Every whole GPU of the node is busy; some of its slices are not. */
	free_slices = 3 - used_of_type(target, P3G, used) - used_of_type(target, P2G, used);
	ck_assert_msg(free_slices > 0, "no free slice left on %s", target);
	snprintf(args, sizeof(args), "-A vcc --qos=scavenger --gres=gpu:1 -w %s", target);
	z = submit(args);
	ck_assert_msg(wait_job(z, "SystemComment=hived: ", 120),
		      "job %d: no word from HiveD on why it waits: %s", z, job_line(z));
	ck_assert_msg(job_has(z, "JobState=PENDING"),
		      "untyped job %d started on %s with its whole GPUs busy (%d slices free): %s", z,
		      target, free_slices, job_line(z));
	run(NULL, "scancel %d %d %d %d", x[0], x[1], x[2], z);
}
END_TEST

/*
 * vca frees its slice; opportunistic 3g jobs of vcb take both 3g slices; vca's
 * next 3g job takes one back at once, preempting the job on it.
 */
START_TEST(test_owner_preempts)
{
	char node[32], n1[32], n2[32];
	int o1, o2, a;

	run(NULL, "scancel %d", vca_job);
	for (int i = 0; i < 240 && !job_has(vca_job, "JobState=COMPLETED") &&
			!job_has(vca_job, "JobState=CANCELLED");
	     i++)
		usleep(500 * 1000);
	ck_assert(!job_has(vca_job, "JobState=RUNNING"));

	o1 = submit("-A vcb --qos=scavenger --gres=gpu:" P3G ":1");
	assert_slices(o1, P3G, &idx_3g, 1, 1, n1, sizeof(n1));
	ck_assert_msg(job_has(o1, "opportunistic"), "job %d: %s", o1, job_line(o1));
	o2 = submit("-A vcb --qos=scavenger --gres=gpu:" P3G ":1");
	assert_slices(o2, P3G, &idx_3g, 1, 1, n2, sizeof(n2));
	ck_assert_msg(strcmp(n1, n2) != 0, "two 3g jobs on %s's single 3g slice", n1);

	a = submit("-A vca --gres=gpu:" P3G ":1");
	ck_assert_msg(wait_job(o1, "Restarts=1", 120) || wait_job(o2, "Restarts=1", 5) ||
			      wait_job(o1, "JobState=PENDING", 5) ||
			      wait_job(o2, "JobState=PENDING", 5),
		      "vca's job %d did not take back a 3g slice from opportunistic jobs %d, %d: %s",
		      a, o1, o2, job_line(a));
	assert_slices(a, P3G, &idx_3g, 1, 1, node, sizeof(node));
	ck_assert_msg(job_has(a, "guaranteed"), "job %d: %s", a, job_line(a));
}
END_TEST

/*
 * Slice requests HiveD cannot place are refused at submission with its reason
 * in slurmctld's log (or by Slurm itself first), never left to cons_tres, which
 * could hand out another VC's slice.
 */
START_TEST(test_bad_profile_refused)
{
	const char *shapes[] = {"--gres=gpu:" P3G ":1,gpu:" P2G ":1", "--gres=gpu:a100_1g.5gb:1"};
	const char *why[] = {"several GPU types in one job", "neither a GPU model nor a MIG profile"};

	/* Slurm itself may refuse a type no node has ("Invalid generic resource"). */
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		if (!e2e_expect_refused("test_mig", "vca", shapes[i], why[i]))
			ck_assert_msg(i == 1, "sbatch %s: refused by Slurm, not HiveD", shapes[i]);
}
END_TEST


/* A running slice job holds, on every node, n slices of `type` within `expect`. */
static void assert_slices_per_node(int id, const char *type, const int *expect, int n_expect,
				   int nodes, int n, alloc_t *a)
{
	ck_assert_msg(wait_job(id, "JobState=RUNNING", 120), "slice job %d did not start: %s", id,
		      job_line(id));
	job_alloc(id, a);
	ck_assert_msg(a->n == nodes, "slice job %d has GRES on %d nodes, asked %d: %s", id, a->n,
		      nodes, job_line(id));
	for (int k = 0; k < a->n; k++) {
		ck_assert_msg(a->cnt[k] == n, "slice job %d holds %d GRES on %s, asked %d", id,
			      a->cnt[k], a->node[k], n);
		for (int i = 0; i < n; i++)
			ck_assert_msg(in(a->gpus[k][i], expect, n_expect),
				      "%s job %d was given GRES index %d on %s, which is no %s slice",
				      type, id, a->gpus[k][i], a->node[k], type);
		assert_slurm_type(id, a->node[k], a->gpus[k], n, type);
	}
}

/* After a restart, job id runs on the nodes and slices it had before. */
static void assert_kept(int id, const alloc_t *before, const char *when)
{
	alloc_t after;

	ck_assert_msg(wait_job(id, "JobState=RUNNING", 120), "%s: job %d no longer runs: %s",
		      when, id, job_line(id));
	job_alloc(id, &after);
	ck_assert_msg(after.n == before->n, "%s: job %d on %d nodes, before on %d", when, id,
		      after.n, before->n);
	for (int k = 0; k < after.n; k++) {
		ck_assert_str_eq(after.node[k], before->node[k]);
		ck_assert_int_eq(after.cnt[k], before->cnt[k]);
		for (int i = 0; i < after.cnt[k]; i++)
			ck_assert_msg(after.gpus[k][i] == before->gpus[k][i],
				      "%s: job %d's slice on %s moved from %d to %d", when, id,
				      after.node[k], before->gpus[k][i], after.gpus[k][i]);
	}
	ck_assert_msg(job_has(id, "guaranteed"), "%s: job %d: %s", when, id, job_line(id));
}

/*
 * The restarted engine holds the slice jobs where they run: vca's quota is
 * still in use (a guaranteed 3g job of vca waits with HiveD's reason), and an
 * opportunistic 2g job gets a free 2g slice, not one of `b`'s.
 */
static void assert_bindings_held(const alloc_t *b, const char *when)
{
	int w = submit("-A vca --gres=gpu:" P3G ":1");
	int o = submit("-A vcb --qos=scavenger --gres=gpu:" P2G ":1");
	alloc_t a;

	assert_slices_per_node(o, P2G, idx_2g, 2, 1, 1, &a);
	ck_assert_msg(strcmp(b->node[0], a.node[0]) != 0,
		      "%s: job %d was given a 2g slice on %s, where vcb's job holds both", when, o,
		      a.node[0]);
	ck_assert_msg(wait_job(w, "SystemComment=hived: ", 120),
		      "%s: job %d: no word from HiveD on why it waits: %s", when, w, job_line(w));
	ck_assert_msg(job_has(w, "JobState=PENDING") && job_has(w, "quota"),
		      "%s: vca's guaranteed job %d was not held at vca's quota: %s", when, w,
		      job_line(w));
	run(NULL, "scancel %d %d", w, o);
	for (int i = 0; i < 240 && (job_has(o, "JobState=RUNNING") || job_has(w, "JobState=PENDING"));
	     i++)
		usleep(500 * 1000);
}

/*
 * A slice job on two nodes (vca's two 3g cells, one on each) runs guaranteed
 * beside vcb's 2-slice job; with both running, slurmctld shuts down cleanly
 * and later is killed (-9): both times the jobs keep their slices, and the
 * engine holds them there (its state file, or Slurm's record by GRES index).
 */
START_TEST(test_multi_node_restart)
{
	int m, b;
	alloc_t ma, ba;

	cancel_all();
	m = submit("-A vca -N2 --gres=gpu:" P3G ":1");
	assert_slices_per_node(m, P3G, &idx_3g, 1, 2, 1, &ma);
	ck_assert_msg(strcmp(ma.node[0], ma.node[1]) != 0, "job %d: one node twice", m);
	ck_assert_msg(job_has(m, "guaranteed") && job_has(m, "(vca,"),
		      "vca's 2-node slice job %d is not guaranteed in its VC: %s", m, job_line(m));
	for (int k = 0; k < 2; k++) {
		char given[64];

		snprintf(given, sizeof(given), "%s:%d", ma.node[k], ma.gpus[k][0]);
		ck_assert_msg(job_has(m, given), "job %d: Slurm's %s is not HiveD's: %s", m, given,
			      job_line(m));
	}
	b = submit("-A vcb --gres=gpu:" P2G ":2");
	assert_slices_per_node(b, P2G, idx_2g, 2, 1, 2, &ba);

	e2e_ctld_shutdown();
	e2e_mark_log();
	e2e_ctld_start();
	assert_kept(m, &ma, "clean restart");
	assert_kept(b, &ba, "clean restart");
	assert_bindings_held(&ba, "clean restart");

	ck_assert_msg(e2e_wait_jobs_saved(m), "slurmctld did not save its job state in 2 min");
	e2e_ctld_kill9();
	e2e_mark_log();
	e2e_ctld_start();
	assert_kept(m, &ma, "kill -9");
	assert_kept(b, &ba, "kill -9");
	assert_bindings_held(&ba, "kill -9");
	e2e_log_from_start();
	ck_assert_msg(!e2e_log_has("invariant violated"), "an invariant violation was logged");
}
END_TEST

/*
 * Exclusive jobs on nodes with slices: the whole node is the node's GPU cell (3
 * GPUs here, vcd's node cell); Slurm gives the job the node's slices too.
 * Before, HiveD counted the slices into the pod, which no cell could hold:
 * refused at submit ("more GPUs per pod ... than the cluster has"); and a
 * no-GPU exclusive job, whose request Slurm 22.05 files once per type, slices
 * among them, was held as opportunistic. A slice job that may preempt runs on
 * the other node, not beside it (Slurm offers it that node and would preempt
 * an opportunistic holder for a slice HiveD sees free).
 */
static int exclusive_runs(const char *args)
{
	char *out = NULL;
	int x = submit(args);

	ck_assert_msg(wait_job(x, "JobState=RUNNING", 120), "exclusive job %d (%s) did not start: %s",
		      x, args, job_line(x));
	ck_assert_msg(hivedctl_job_says(x, "3 GPUs", 30, &out) && strstr(out, "guaranteed"),
		      "exclusive job %d (%s) does not hold vcd's node cell of 3 GPUs: %s", x, args,
		      out ? out : "");
	free(out);
	return x;
}

START_TEST(test_exclusive_beside_slices)
{
	char node[32], other[32];
	int x, s, gpus[E2E_MAX_GPUS];
	alloc_t a;

	cancel_all();
	x = exclusive_runs("-A vcd -N1 --exclusive --gres=gpu:1");
	job_alloc(x, &a);
	ck_assert_msg(a.n == 1, "exclusive job %d is on %d nodes: %s", x, a.n, job_line(x));
	snprintf(node, sizeof(node), "%s", a.node[0]);
	s = submit("-A vca --gres=gpu:" P3G ":1");
	ck_assert_msg(wait_job(s, "JobState=RUNNING", 120), "slice job %d did not start: %s", s,
		      job_line(s));
	one_node_gpus(s, other, sizeof(other), gpus);
	ck_assert_msg(strcmp(other, node) != 0, "slice job %d runs beside exclusive job %d on %s",
		      s, x, node);
	cancel_all();
	exclusive_runs("-A vcd -N1 --exclusive");
	cancel_all();
}
END_TEST

int main(void)
{
	TCase *tc;
	int rc = e2e_init("mig");

	if (rc)
		return rc;
	tc = tcase_create("mig");
	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, test_up);
	tcase_add_test(tc, test_slices_guaranteed);
	tcase_add_test(tc, test_untyped_never_slice);
	tcase_add_test(tc, test_owner_preempts);
	tcase_add_test(tc, test_bad_profile_refused);
	tcase_add_test(tc, test_multi_node_restart);
	tcase_add_test(tc, test_exclusive_beside_slices);
	return e2e_run("mig", tc, cancel_all);
}
