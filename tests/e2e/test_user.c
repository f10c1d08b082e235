/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_user.c - what users and admins touch, on a real local cluster:
 * the --hived-* sbatch options (SPANK), priority/hived's bands in sprio and
 * squeue, and hivedctl (status, vc, job, map, metrics) as an ordinary user.
 *
 * One cluster (scripts/hived-cluster: 4 nodes x 8 fake GPUs, 2 sockets, racks
 * rack0 = node1-2 and rack1 = node3-4, select/hived + priority/hived, preempt/qos
 * with WITHIN): vc1 owns 2 node cells, vc2 1 node cell, vc3 2 socket cells; QOS
 * high preempts normal. Each test starts from an empty queue.
 * Needs root (exit 77 otherwise).
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e_main.h"
#include "run.h"
#include "slurm_jobs.h"

#define NODES 4
#define GPUS 8

static char tooldir[64];	/* hivedctl copied where user hivedtest can run it */

static void clean_queue(void)
{
	if (run(NULL, "scontrol ping 2>/dev/null | grep -q 'is UP'") != 0)
		return;
	cancel_all();
	/* A test that changed hived.conf and failed: the cluster's own back. */
	(void) run(NULL, "f='%s/etc/hived.conf'; ! [ -f \"$f.good\" ] || cmp -s \"$f.good\" \"$f\" || { cp \"$f.good\" \"$f\" && scontrol reconfigure; }",
		   e2e_clusterdir);
}

/* A command as user hivedtest, with the cluster's slurm.conf. */
static int as_user(char **out, const char *cmd)
{
	return run(out, "runuser -u hivedtest -- env SLURM_CONF='%s' PATH=\"$PATH\" sh -c '%s'",
		   e2e_conf, cmd);
}

/* hived_status.json is rewritten at most once a second after a change. */
static void settle(void)
{
	sleep(2);
}

typedef enum { WANT_FITS, WANT_OPPORTUNISTIC } hived_band_want_t;

/* The priority squeue shows for a job. */
static long priority_of(int id)
{
	char *out = NULL;
	long p;

	ck_assert_int_eq(run(&out, "squeue -h -j %d -o %%Q", id), 0);
	p = atol(out);
	free(out);
	return p;
}

START_TEST(test_up)
{
	char *out = NULL;

	e2e_cluster_up(NODES, GPUS, "--fresh --priority hived");
	ck_assert_int_eq(run(&out, "cat '%s/etc/plugstack.conf'", e2e_clusterdir), 0);
	ck_assert_msg(strstr(out, "hived_spank.so"), "plugstack.conf: %s", out);
	free(out);
	ck_assert_int_eq(run(&out, "sbatch --help"), 0);
	ck_assert_msg(strstr(out, "--hived-within=CELLTYPE") &&
		      strstr(out, "--hived-opportunistic"),
		      "sbatch --help lacks the --hived-* options");
	free(out);
}
END_TEST

/*
 * priority/hived passes multifactor's thread_start on (23.11+ start the
 * fair-share decay thread there, not in init): the thread's first pass writes
 * priority_last_decay_ran into StateSaveLocation, which "up --fresh" emptied.
 */
START_TEST(test_fairshare_decay_runs)
{
	char path[2400];
	struct stat st;
	int tries;

	snprintf(path, sizeof(path), "%s/state/priority_last_decay_ran",
		 e2e_clusterdir);
	for (tries = 0; tries < 240 && stat(path, &st) != 0; tries++)
		usleep(250 * 1000);
	ck_assert_msg(stat(path, &st) == 0,
		      "multifactor's decay thread never ran under priority/hived (no %s after 60 s)",
		      path);
}
END_TEST

/* --hived-within=A100-RACK: a 2-node job stays in one rack even when that costs
 * an opportunistic job its node. */
START_TEST(test_within_rack)
{
	int opp2 = submit("-A vc2 -N1 --gres=gpu:8 --hived-opportunistic -w node2");
	int opp4 = submit("-A vc2 -N1 --gres=gpu:8 --hived-opportunistic -w node4");
	int id, i, still = 0;
	alloc_t a;

	ck_assert(wait_job(opp2, "JobState=RUNNING", 60));
	ck_assert(wait_job(opp4, "JobState=RUNNING", 60));
	/* node1 and node3 are free, but in two racks. */
	id = submit("-A vc1 -N2 --gres=gpu:8 --hived-within=A100-RACK --hived-lazy-preempt");
	ck_assert_msg(wait_job(id, "JobState=RUNNING", 90),
		      "the rack job did not start (preempting an opportunistic job)");
	job_alloc(id, &a);
	ck_assert_int_eq(a.n, 2);
	ck_assert_msg(rack_of(a.node[0]) == rack_of(a.node[1]),
		      "--hived-within=A100-RACK job on %s and %s", a.node[0], a.node[1]);
	ck_assert_msg(job_has(id, "SystemComment=hived: asked within=A100-RACK lazy; given node"),
		      "scontrol show job does not show what was asked");
	ck_assert(job_has(id, "(vc1, guaranteed)"));
	for (i = 0; i < 2; i++)
		still += job_has(i ? opp4 : opp2, "JobState=RUNNING");
	ck_assert_int_eq(still, 1);
	cancel_all();
}
END_TEST

/* --hived-within=A100-SOCKET keeps 4 GPUs on one socket; a job larger than
 * the cell is refused at submit. */
START_TEST(test_within_socket)
{
	int id = submit("-A vc3 -N1 --gres=gpu:4 --hived-within=A100-SOCKET");
	alloc_t a;
	char *out = NULL;

	ck_assert(wait_job(id, "JobState=RUNNING", 60));
	job_alloc(id, &a);
	ck_assert_int_eq(a.cnt[0], 4);
	for (int k = 1; k < 4; k++)
		ck_assert_msg(a.gpus[0][k] / 4 == a.gpus[0][0] / 4,
			      "GPUs %d and %d on two sockets", a.gpus[0][0], a.gpus[0][k]);
	ck_assert(job_has(id, "SystemComment=hived: asked within=A100-SOCKET; given "));
	ck_assert_int_ne(run(&out, "sbatch -A vc1 --gres=gpu:4 --hived-within=A100-PAIR --wrap true"), 0);
	free(out);
	cancel_all();
}
END_TEST

/* --hived-opportunistic: runs outside the quota, shown as such; ranked last. */
START_TEST(test_opportunistic)
{
	int id = submit("-A vc3 -N1 --gres=gpu:8 --hived-opportunistic");
	char *out = NULL, cmd[4200];

	ck_assert(wait_job(id, "JobState=RUNNING", 60));
	ck_assert(job_has(id, "SystemComment=hived: asked opportunistic; given "));
	ck_assert(job_has(id, "(vc3, opportunistic)"));
	settle();
	snprintf(cmd, sizeof(cmd), "'%s/hivedctl' job %d", e2e_builddir, id);
	ck_assert_int_eq(run(&out, "%s", cmd), 0);
	ck_assert_msg(strstr(out, "VC vc3, opportunistic"), "hivedctl job: %s", out);
	free(out);
	cancel_all();
}
END_TEST

/* --hived-lazy-preempt: a higher-priority job of the VC (vc2: one node cell)
 * takes the cell, the lazy job keeps running as opportunistic and says so. */
START_TEST(test_lazy_preempt)
{
	int low, high;
	char *out = NULL;
	alloc_t a, b;

	low = submit("-A vc2 -N1 --gres=gpu:8 --hived-lazy-preempt");
	ck_assert(wait_job(low, "JobState=RUNNING", 60));
	high = submit("-A vc2 --qos=high -N1 --gres=gpu:8");
	ck_assert_msg(wait_job(high, "JobState=RUNNING", 90),
		      "vc2's high-priority job did not start");
	ck_assert_msg(job_has(low, "JobState=RUNNING"),
		      "lazy job %d was not kept running", low);
	job_alloc(low, &a);
	job_alloc(high, &b);
	ck_assert_str_ne(a.node[0], b.node[0]);
	ck_assert_msg(job_has(low, "lazy-preempted by job"),
		      "job %d does not say it was lazy-preempted", low);
	settle();
	ck_assert_int_eq(run(&out, "'%s/hivedctl' job %d", e2e_builddir, low), 0);
	ck_assert_msg(strstr(out, "opportunistic (lazy-preempted)"), "hivedctl job: %s", out);
	free(out);
	/* priority/hived ranks it with opportunistic work now. */
	ck_assert_msg(priority_of(low) < priority_of(high),
		      "lazy-preempted job %d outranks job %d", low, high);
	cancel_all();
}
END_TEST

/*
 * hived.conf borrowIdleCells: vc1's own 4-GPU jobs hold half of each of its two
 * node cells, so its whole-node job has the free GPUs but not the shape. It
 * starts on an idle node outside vc1's cells, as opportunistic (the cluster runs
 * priority/hived and PreemptMode WITHIN); vc2's job that needs that node takes
 * it back: the borrower (same QOS) is requeued, vc2's job runs there.
 */
/* hived.conf with borrowIdleCells on (the file in force is kept as conf.good). */
static void borrowing_on(const char *conf)
{
	e2e_mark_log();
	ck_assert_int_eq(run(NULL, "cp '%s' '%s.good' && sed -i -e 's/\"slurm\": {/\"slurm\": {\"borrowIdleCells\": true, /' '%s' && grep -q borrowIdleCells '%s' && scontrol reconfigure",
			     conf, conf, conf, conf), 0);
	ck_assert_msg(e2e_wait_log("select/hived: borrowIdleCells: a guaranteed job", 60),
		      "slurmctld did not say borrowing is on");
}

/*
 * vc1's 4-GPU jobs a1 (node1) and a2 (node2) hold half of each of its node cells;
 * its whole-node job borrows an idle node (*node). Returns the borrower.
 */
static int borrower_beside(int *a1, int *a2, char *node, size_t len)
{
	alloc_t al;
	int b;

	*a1 = submit("-A vc1 -N1 --gres=gpu:4 -w node1");
	ck_assert(wait_job(*a1, "JobState=RUNNING", 60));
	*a2 = submit("-A vc1 -N1 --gres=gpu:4 -w node2");
	ck_assert(wait_job(*a2, "JobState=RUNNING", 60));
	b = submit("-A vc1 -N1 --gres=gpu:8");
	ck_assert_msg(wait_job(b, "JobState=RUNNING", 90),
		      "vc1's whole-node job %d did not borrow an idle node", b);
	ck_assert_msg(job_has(b, "on idle GPUs outside its cells: preemptible"),
		      "job %d's SystemComment does not say it borrowed", b);
	job_alloc(b, &al);
	ck_assert_msg(strcmp(al.node[0], "node1") && strcmp(al.node[0], "node2"),
		      "the borrower went to vc1's own node %s", al.node[0]);
	snprintf(node, len, "%s", al.node[0]);
	return b;
}

START_TEST(test_borrow_idle_cells)
{
	char conf[2400], *out = NULL, node[64], args[128];
	int a1, a2, b, c;
	alloc_t al;

	snprintf(conf, sizeof(conf), "%s/etc/hived.conf", e2e_clusterdir);
	borrowing_on(conf);
	b = borrower_beside(&a1, &a2, node, sizeof(node));
	ck_assert(e2e_log_has("; borrowed idle GPUs outside its VC"));
	ck_assert_msg(hivedctl_job_says(b, "(borrowed idle GPUs)", 30, &out),
		      "hivedctl job %d: %s", b, out ? out : "");
	free(out);
	/* vc2's job needs the borrower's node: it takes it back. */
	snprintf(args, sizeof(args), "-A vc2 -N1 --gres=gpu:8 -w %s", node);
	c = submit(args);
	ck_assert_msg(wait_job(c, "JobState=RUNNING", 120),
		      "vc2's job %d did not get node %s back from the borrower", c, node);
	ck_assert_msg(job_has(b, "Restarts=1"), "the borrower %d was not requeued", b);
	job_alloc(c, &al);
	ck_assert_str_eq(al.node[0], node);
	ck_assert_int_eq(run(NULL, "cp '%s.good' '%s' && scontrol reconfigure", conf, conf), 0);
	cancel_all();
}
END_TEST

/*
 * A borrower is promoted once its VC's cells can hold it where it runs: a2 ends,
 * vc1 has a free node cell, and the engine binds it to the borrower's node. The
 * borrower is then guaranteed: vc2's job that asks for that node waits for it
 * instead of requeueing it.
 */
START_TEST(test_borrower_promoted)
{
	char conf[2400], *out = NULL, node[64], args[128], want[160], *p;
	int a1, a2, b, c;

	snprintf(conf, sizeof(conf), "%s/etc/hived.conf", e2e_clusterdir);
	borrowing_on(conf);
	b = borrower_beside(&a1, &a2, node, sizeof(node));
	ck_assert_int_eq(run(NULL, "scancel %d", a2), 0);
	snprintf(want, sizeof(want), "select/hived: job %d is guaranteed again: job %d ended",
		 b, a2);
	ck_assert_msg(e2e_wait_log(want, 60), "slurmctld did not log: %s", want);
	snprintf(want, sizeof(want), "guaranteed again in its VC's cells after job %d ended", a2);
	ck_assert_msg(job_has(b, want), "job %d's SystemComment does not say: %s", b, want);
	ck_assert_msg(hivedctl_job_says(b, "VC vc1, guaranteed,", 30, &out),
		      "hivedctl job %d: %s", b, out ? out : "");
	free(out);
	out = NULL;
	/* At least this one (a lazy-preempted job may have been promoted before). */
	ck_assert_int_eq(run(&out, "'%s/hivedctl' metrics", e2e_builddir), 0);
	p = out ? strstr(out, "\nhived_promotions_total ") : NULL;
	ck_assert_msg(p && strtol(p + 24, NULL, 10) >= 1,
		      "hivedctl metrics: no hived_promotions_total of 1 or more");
	free(out);
	/* vc2's job that needs the node now waits: vc1's cells hold it. */
	snprintf(args, sizeof(args), "-A vc2 -N1 --gres=gpu:8 -w %s", node);
	c = submit(args);
	ck_assert_msg(wait_job(c, "SystemComment=hived: ", 60),
		      "vc2's job %d got no decision", c);
	ck_assert_msg(job_has(c, "JobState=PENDING"), "vc2's job %d left pending", c);
	ck_assert_msg(job_has(b, "JobState=RUNNING") && job_has(b, "Restarts=0"),
		      "the promoted job %d was preempted", b);
	ck_assert_int_eq(run(NULL, "cp '%s.good' '%s' && scontrol reconfigure", conf, conf), 0);
	cancel_all();
}
END_TEST

/*
 * A job cancelled while it waits holds no promotion back. Slurm calls no select
 * hook for it, so select/hived drops the waiting marks of jobs that no longer
 * pend; before, the mark of vc1's cancelled job of higher priority (QOS high)
 * kept the borrower demoted when a2 ended.
 */
START_TEST(test_cancelled_waiter_holds_no_promotion)
{
	char conf[2400], node[64], want[160];
	int a1, a2, b, w;

	snprintf(conf, sizeof(conf), "%s/etc/hived.conf", e2e_clusterdir);
	borrowing_on(conf);
	b = borrower_beside(&a1, &a2, node, sizeof(node));
	w = submit("-A vc1 --qos=high -N3 --gres=gpu:8");
	ck_assert_msg(wait_job(w, "is too small for the job", 60), "job %d: %s", w, job_line(w));
	ck_assert_int_eq(run(NULL, "scancel %d", w), 0);
	sleep(2);	/* marks are looked over at most once a second */
	ck_assert_int_eq(run(NULL, "scancel %d", a2), 0);
	snprintf(want, sizeof(want), "select/hived: job %d is guaranteed again: job %d ended",
		 b, a2);
	ck_assert_msg(e2e_wait_log(want, 60), "slurmctld did not log: %s", want);
	ck_assert_int_eq(run(NULL, "cp '%s.good' '%s' && scontrol reconfigure", conf, conf), 0);
	cancel_all();
}
END_TEST

/* Bad values are refused by sbatch itself, with the reason (as an ordinary user). */
START_TEST(test_invalid_options)
{
	char *out = NULL;

	ck_assert_int_ne(as_user(&out, "sbatch -A vc1 --gres=gpu:1 --hived-within=NOPE --wrap true"), 0);
	ck_assert_msg(strstr(out, "--hived-within=NOPE: unknown cell type") &&
		      strstr(out, "A100-PAIR, A100-SOCKET, A100-NODE, A100-RACK"),
		      "sbatch said: %s", out);
	free(out);
	ck_assert_int_ne(as_user(&out, "sbatch -A vc1 --gres=gpu:1 --hived-within=a100-socket --wrap true"), 0);
	ck_assert_msg(strstr(out, "did you mean A100-SOCKET?"), "sbatch said: %s", out);
	free(out);
	ck_assert_int_ne(as_user(&out, "sbatch -A vc1 --gres=gpu:1 --hived-pinned=\"a;b\" --wrap true"), 0);
	ck_assert_msg(strstr(out, "--hived-pinned=a;b: the pinned cell id has a character that is not allowed"),
		      "sbatch said: %s", out);
	free(out);
	ck_assert_int_ne(as_user(&out, "sbatch -A vc1 --gres=gpu:1 --hived-lazy-preempt --hived-opportunistic --wrap true"), 0);
	ck_assert_msg(strstr(out, "--hived-lazy-preempt and --hived-opportunistic together"),
		      "sbatch said: %s", out);
	free(out);
	ck_assert_int_eq(run(&out, "squeue -h -u hivedtest"), 0);
	ck_assert_msg(!out || !out[0], "a refused submission left a job: %s", out);
	free(out);
}
END_TEST

/*
 * priority/hived: vc3 floods (12 x 1 GPU, its quota is 8): the jobs over quota
 * rank below vc2's later in-quota job, opportunistic work ranks last, and sprio
 * shows the factor in SITE.
 */
START_TEST(test_priority_bands)
{
	int flood[12], over = -1, inquota, opp, i;
	long p_over, p_in, p_opp;
	char *out = NULL;

	for (i = 0; i < 12; i++)
		flood[i] = submit("-A vc3 -N1 --gres=gpu:1");
	for (i = 0; i < 60 && over < 0; i++) {
		for (int k = 11; k >= 0 && over < 0; k--)
			if (job_has(flood[k], "JobState=PENDING") &&
			    job_has(flood[k], "quota is in use"))
				over = flood[k];
		if (over < 0)
			usleep(500 * 1000);
	}
	ck_assert_msg(over > 0, "no vc3 job waits for its quota");
	/* Not eligible for an hour: stays pending, still gets its band. */
	inquota = submit("-A vc2 -N1 --gres=gpu:8 --begin=now+3600");
	opp = submit("-A vc1 -N1 --gres=gpu:8 --hived-opportunistic --begin=now+3600");
	sleep(3);	/* the status file, then priority/hived's pass */
	p_over = priority_of(over);
	p_in = priority_of(inquota);
	p_opp = priority_of(opp);
	ck_assert_msg(p_in > p_over && p_over > p_opp,
		      "priorities: vc2 in quota %ld, vc3 over quota %ld, opportunistic %ld",
		      p_in, p_over, p_opp);
	ck_assert_int_eq(run(&out, "sprio -h -j %d -o '%%i %%S'", over), 0);
	ck_assert_msg(out && atol(strchr(out, ' ') ? strchr(out, ' ') + 1 : "0") > 0,
		      "sprio shows no HiveD factor in SITE: %s", out);
	free(out);
	/* hivedctl's metrics see vc3's full quota and its waiting jobs. */
	ck_assert_int_eq(run(&out, "'%s/hivedctl' metrics", e2e_builddir), 0);
	ck_assert_msg(strstr(out, "hived_vc_used_gpus{vc=\"vc3\"} 8\n"), "metrics: %s", out);
	ck_assert(strstr(out, "hived_vc_pending_guaranteed_jobs{vc=\"vc3\"} "));
	ck_assert(!strstr(out, "hived_vc_pending_guaranteed_jobs{vc=\"vc3\"} 0\n"));
	free(out);
	cancel_all();
}
END_TEST

/*
 * One verdict (issue 14): priority/hived bands a job as select/hived classifies
 * it. Pending jobs not eligible for an hour keep the priority they were given
 * (no age, same account: only the band differs), so a band shows as the
 * distance to reference jobs of vc2: no GPUs (FITS) and opportunistic
 * (OPPORTUNISTIC); the band weight w is half the distance between them.
 */
typedef struct {
	long fits, opp, w;
} bands_t;

static void reference_bands(bands_t *b, int *ids)
{
	ids[0] = submit("-A vc2 -N1 --begin=now+3600");
	ids[1] = submit("-A vc2 -N1 --gres=gpu:1 --hived-opportunistic --begin=now+3600");
	b->fits = priority_of(ids[0]);
	b->opp = priority_of(ids[1]);
	b->w = (b->fits - b->opp) / 2;
	ck_assert_msg(b->w > 0, "no HiveD bands: no-GPU job %ld, opportunistic job %ld",
		      b->fits, b->opp);
}

/* Within a generous deadline, the job's priority is in the band wanted. */
static bool in_band(int id, const bands_t *b, hived_band_want_t want, long *p)
{
	for (int i = 0; i < 60; i++) {
		*p = priority_of(id);
		if ((want == WANT_FITS) ? (*p > b->fits - b->w / 2) :
		    (*p < b->opp + b->w))
			return true;
		usleep(500 * 1000);
	}
	return false;
}

/*
 * --gpus=9 -N 2 does not split evenly over the nodes: select/hived leaves it to
 * cons_tres (not HiveD's), so it is not a vc2 job over its 8-GPU quota either.
 */
START_TEST(test_one_verdict_indivisible_gpus)
{
	bands_t b;
	int ref[2], id;
	long p;

	reference_bands(&b, ref);
	id = submit("-A vc2 -N2 --gpus=9 --begin=now+3600");
	ck_assert_msg(in_band(id, &b, WANT_FITS, &p),
		      "--gpus=9 -N2 job %d: priority %ld, not in the band of jobs HiveD does not place (%ld; opportunistic %ld)",
		      id, p, b.fits, b.opp);
	/* select/hived's decision: cons_tres places it, HiveD gives no cells. */
	ck_assert_int_eq(run(NULL, "scontrol update jobid=%d starttime=now", id), 0);
	ck_assert_msg(wait_job(id, "JobState=RUNNING", 90), "job %d did not start", id);
	ck_assert_msg(!job_has(id, "SystemComment=hived:"),
		      "HiveD placed the --gpus=9 -N2 job %d", id);
	cancel_all();
}
END_TEST

/*
 * accountsWithoutCells=reject: select/hived refuses a GPU job of the account
 * root (no cells); one submitted before the reload ranks with opportunistic
 * work, never above it.
 */
START_TEST(test_one_verdict_account_without_cells)
{
	char conf[2400], *out = NULL;
	bands_t b;
	int ref[2], id, refused = 0;
	long p;

	snprintf(conf, sizeof(conf), "%s/etc/hived.conf", e2e_clusterdir);
	id = submit("-A root -N1 --gres=gpu:1 --begin=now+3600");
	ck_assert_int_eq(run(NULL, "cp '%s' '%s.good' && sed -i -e 's/\"slurm\": {/\"slurm\": {\"accountsWithoutCells\": \"reject\", /' '%s' && grep -q reject '%s' && scontrol reconfigure",
			     conf, conf, conf, conf), 0);
	/* select/hived's decision: refused at submit. */
	for (int i = 0; i < 60 && !refused; i++) {
		refused = run(&out, "sbatch -A root -N1 --gres=gpu:1 --wrap true 2>&1") != 0;
		if (!refused) {
			free(out);
			out = NULL;
			usleep(500 * 1000);
		}
	}
	ck_assert_msg(refused && strstr(out, "Requested node configuration is not available"),
		      "select/hived took a job of an account without cells: %s", out ? out : "");
	free(out);
	reference_bands(&b, ref);
	ck_assert_msg(in_band(id, &b, WANT_OPPORTUNISTIC, &p),
		      "job %d of an account without cells: priority %ld, above opportunistic work (%ld; no-GPU %ld)",
		      id, p, b.opp, b.fits);
	ck_assert_int_eq(run(NULL, "cp '%s.good' '%s' && scontrol reconfigure", conf, conf), 0);
	cancel_all();
}
END_TEST

/* hivedctl as an ordinary user: the live view yes, the plugin's state file no. */
START_TEST(test_hivedctl_unprivileged)
{
	int a = submit("-A vc1 -N1 --gres=gpu:8");
	int c = submit("-A vc3 -N1 --gres=gpu:2");
	char *out = NULL, cmd[512];
	alloc_t al;
	int gpus = 0;

	ck_assert(wait_job(a, "JobState=RUNNING", 60));
	ck_assert(wait_job(c, "JobState=RUNNING", 60));
	/* reconfigure saves all state, the select plugin's 0600 file included. */
	ck_assert_int_eq(run(NULL, "scontrol reconfigure"), 0);
	settle();
	ck_assert_int_eq(run(&out, "stat -c %%a '%s/state/hived_state.json'", e2e_clusterdir), 0);
	ck_assert_msg(!strncmp(out, "600", 3), "state file mode %s", out);
	free(out);
	ck_assert_int_ne(as_user(&out, "cat \"$(scontrol show config | sed -n \"s/^StateSaveLocation *= *//p\")/hived_state.json\""), 0);
	ck_assert_msg(strstr(out, "Permission denied"), "hivedtest read the state file: %.200s", out);
	free(out);

	snprintf(cmd, sizeof(cmd), "%s/hivedctl status", tooldir);
	ck_assert_int_eq(as_user(&out, cmd), 0);
	ck_assert_msg(strstr(out, "HiveD status as of") &&
		      strstr(out, "GPUs: 32 total, 10 guaranteed"),
		      "hivedctl status as hivedtest: %s", out);
	{
		/* The Slurm the plugin runs under: that of the cluster's daemons. */
		char *ver = NULL, want[80];

		ck_assert_int_eq(run(&ver, "scontrol version | awk '{print $2}'"), 0);
		ver[strcspn(ver, "\n")] = '\0';
		snprintf(want, sizeof(want), "\nSlurm: %s\n", ver);
		ck_assert_msg(strstr(out, want), "hivedctl status lacks \"%s\": %s",
			      want + 1, out);
		free(ver);
	}
	free(out);
	snprintf(cmd, sizeof(cmd), "%s/hivedctl vc", tooldir);
	ck_assert_int_eq(as_user(&out, cmd), 0);
	ck_assert_msg(strstr(out, "vc1  2 A100-NODE") && strstr(out, "vc3  2 A100-SOCKET"),
		      "hivedctl vc: %s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s/hivedctl vc vc3", tooldir);
	ck_assert_int_eq(as_user(&out, cmd), 0);
	ck_assert_msg(strstr(out, "In use: 2 GPUs guaranteed"), "hivedctl vc vc3: %s", out);
	free(out);

	/*
	 * whatif as that user: the config comes from the status file, not from
	 * the state file the user cannot read. vc3 has a socket left: 4 GPUs start.
	 */
	snprintf(cmd, sizeof(cmd), "%s/hivedctl whatif -A vc3 -N1 --gres=gpu:4 2>&1", tooldir);
	ck_assert_msg(as_user(&out, cmd) == 0, "hivedctl whatif as hivedtest failed: %s", out);
	ck_assert_msg(strstr(out, "Starts now on node"), "hivedctl whatif as hivedtest: %s", out);
	free(out);

	/* hivedctl job agrees with Slurm on the GPUs. */
	job_alloc(a, &al);
	snprintf(cmd, sizeof(cmd), "%s/hivedctl job %d", tooldir, a);
	ck_assert_int_eq(as_user(&out, cmd), 0);
	{
		char want[64];
		snprintf(want, sizeof(want), "%s  0-7", al.node[0]);
		ck_assert_msg(strstr(out, want), "hivedctl job %d: %s (Slurm: %s)", a, out, al.node[0]);
	}
	free(out);

	/* The map of the live cluster, written by the user. */
	snprintf(cmd, sizeof(cmd), "%s/hivedctl map --html %s/map.html --svg %s/map.svg",
		 tooldir, tooldir, tooldir);
	ck_assert_int_eq(as_user(&out, cmd), 0);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s/map.html", tooldir);
	out = read_file(cmd);
	ck_assert_ptr_nonnull(out);
	for (char *p = strstr(out, "class=\"gpu "); p; p = strstr(p + 1, "class=\"gpu "))
		gpus++;
	ck_assert_int_eq(gpus, NODES * GPUS);
	snprintf(cmd, sizeof(cmd), "data-job=\"%d\"", a);
	ck_assert_msg(strstr(out, cmd), "map does not show job %d", a);
	snprintf(cmd, sizeof(cmd), ": job %d (vc3, guaranteed)", c);
	ck_assert_msg(strstr(out, cmd), "map's hover text lacks job %d", c);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s/map.svg", tooldir);
	out = read_file(cmd);
	ck_assert_msg(out && !strncmp(out, "<svg xmlns=", 11), "map.svg is not SVG");
	free(out);
	cancel_all();
}
END_TEST

int main(void)
{
	TCase *tc;
	int rc = e2e_init("user");

	if (rc)
		return rc;
	snprintf(tooldir, sizeof(tooldir), "/tmp/hived-e2e-user-XXXXXX");
	if (!mkdtemp(tooldir) ||
	    run(NULL, "cp '%s/hivedctl' '%s/' && chmod 755 '%s' && chown hivedtest '%s' 2>/dev/null; true",
		e2e_builddir, tooldir, tooldir, tooldir) != 0) {
		fprintf(stderr, "test_user: cannot prepare %s\n", tooldir);
		return 1;
	}
	tc = tcase_create("user");
	tcase_set_timeout(tc, 600);
	tcase_add_checked_fixture(tc, clean_queue, NULL);
	tcase_add_test(tc, test_up);
	tcase_add_test(tc, test_fairshare_decay_runs);
	tcase_add_test(tc, test_invalid_options);
	tcase_add_test(tc, test_within_rack);
	tcase_add_test(tc, test_within_socket);
	tcase_add_test(tc, test_opportunistic);
	tcase_add_test(tc, test_lazy_preempt);
	tcase_add_test(tc, test_borrow_idle_cells);
	tcase_add_test(tc, test_borrower_promoted);
	tcase_add_test(tc, test_cancelled_waiter_holds_no_promotion);
	tcase_add_test(tc, test_priority_bands);
	tcase_add_test(tc, test_one_verdict_indivisible_gpus);
	tcase_add_test(tc, test_one_verdict_account_without_cells);
	tcase_add_test(tc, test_hivedctl_unprivileged);
	rc = e2e_run("user", tc, NULL);
	run(NULL, "rm -rf '%s'", tooldir);
	return rc;
}
