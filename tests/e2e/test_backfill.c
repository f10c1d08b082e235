/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_backfill.c - no VC waits behind another VC's queue (issue 18, item 0).
 *
 * Its own cluster (scripts/hived-cluster: 8 nodes x 8 fake GPUs, four accounts
 * with quotas of 40/30/20/10 % as hived.conf VCs, priority/multifactor). The
 * biggest VC fills its quota and then floods the queue with jobs that can only
 * wait for its own cells; each other VC then submits one job that fits its free
 * cells, at a lower priority than the whole flood. The main scheduler's event
 * passes test only the first 100 queued jobs (default_queue_depth), so those
 * jobs start only if backfill reaches them: sched_interval is set to an hour so
 * that the main scheduler's full pass cannot hide what backfill does. Then the
 * same under priority/hived with a flood deeper than both schedulers' limits,
 * and under priority/multifactor with bf_max_job_assoc.
 * Needs root (exit 77 otherwise).
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "e2e_main.h"
#include "run.h"
#include "slurm_jobs.h"

#define NODES 8
#define GPUS 8
/* Three times default_queue_depth, under bf_max_job_test (500). */
#define FLOOD 300

static int pending_count(const char *account)
{
	char *out = NULL;
	int n;

	ck_assert_int_eq(run(&out, "squeue -h -t PD -A %s -o %%i | wc -l", account), 0);
	n = atoi(out);
	free(out);
	return n;
}

START_TEST(test_up)
{
	e2e_cluster_up(NODES, GPUS, "--fresh --priority multifactor "
		       "--vc-quotas big=26,mid=18,small=12,tiny=8 "
		       "--sched-params bf_interval=5,sched_interval=3600");
	e2e_log_from_start();
	ck_assert(e2e_log_has("select/hived: loaded"));
	/* The admin is told what multifactor costs the other VCs. */
	ck_assert(e2e_log_has("PriorityType=priority/multifactor, not priority/hived"));
}
END_TEST

static int submit_sleep(const char *args, int seconds)
{
	char script[32];

	snprintf(script, sizeof(script), "sleep %d", seconds);
	return submit_wrap(args, script);
}

/*
 * A VC's whole-node job waits while the VC's own jobs hold a part of each of its
 * node cells; the VC's later, smaller jobs must not take the cell that empties
 * first. mid owns two node cells and a pair (18 GPUs). Without the head rule the
 * third small job took the 4 GPUs left in the node cell that empties first, and
 * the whole-node job waited for it (600 s) instead of for the 45 s job.
 */
/* job_begin's line for job id names the cause it waited for, with seconds. */
static bool _start_logged_waiting_for(int id, const char *cause)
{
	char *out = NULL;
	bool ok;

	ok = !run(&out, "grep -E 'select/hived: JobId=%d VC=.* GPUs=.*; waited [0-9]+ s: .*%s [0-9]+ s' '%s/log/slurmctld.log'",
		  id, cause, e2e_clusterdir);
	free(out);
	return ok;
}

/* A count in hived_status.json's timing (-1: not there yet). */
static long _status_count(const char *key)
{
	char *out = NULL;
	long n = -1;

	if (!run(&out, "grep -oE '\"%s\":[0-9]+' '%s/state/hived_status.json' | cut -d: -f2",
		 key, e2e_clusterdir) && out && *out)
		n = atol(out);
	free(out);
	return n;
}

START_TEST(test_vc_head_keeps_its_cells)
{
	alloc_t js, jw;
	int l, s, w, k[3];
	char text[64], *out = NULL;

	cancel_all();
	l = submit("-A mid -N1 --gres=gpu:6 -t 30");	/* node cell 1: 6 of 8 */
	ck_assert(wait_job(l, "JobState=RUNNING", 120));
	s = submit_sleep("-A mid -N1 --gres=gpu:4 -t 1", 45);	/* node cell 2: 4 */
	ck_assert(wait_job(s, "JobState=RUNNING", 120));
	/* 8 GPUs free (2 + 4 + the pair), no node cell whole. */
	w = submit("-A mid -N1 --gres=gpu:8 -t 30");
	ck_assert(wait_job(w, "not in cells of that shape", 60));
	/*
	 * Asked when it could start (it heads its VC), the engine tried it on the
	 * live state: at least one trial, which ended the 45 s job before the
	 * whole-node job fit. The file is written at most once a second.
	 */
	for (int i = 0; i < 30 && _status_count("willRunTrialEndedMax") < 1; i++)
		sleep(1);
	ck_assert_msg(_status_count("willRunTrials") >= 1,
		      "hived_status.json counts %ld WILL_RUN trials",
		      _status_count("willRunTrials"));
	ck_assert_msg(_status_count("willRunTrialEndedMax") >= 1,
		      "no WILL_RUN trial ended a running job (most: %ld)",
		      _status_count("willRunTrialEndedMax"));
	/*
	 * Every node healthy and in the partition: its VC's guarantee gives the
	 * start, and other VCs' work is left running in the trial.
	 */
	ck_assert_msg(_status_count("willRunByGuarantee") >= 1,
		      "no WILL_RUN trial was answered by the VC's guarantee (%ld of %ld)",
		      _status_count("willRunByGuarantee"),
		      _status_count("willRunTrials"));
	for (int i = 0; i < 3; i++)
		k[i] = submit("-A mid -N1 --gres=gpu:2 -t 30");
	/* Two fit beside it: the pair, and node cell 1's last two GPUs. */
	ck_assert(wait_job(k[0], "JobState=RUNNING", 120));
	ck_assert(wait_job(k[1], "JobState=RUNNING", 120));
	snprintf(text, sizeof(text), "waits behind JobId=%d", w);
	ck_assert_msg(wait_job(k[2], text, 60), "job %d does not say it waits behind %d: %s",
		      k[2], w, job_line(k[2]));
	/* How long each waited, and why, while they wait. */
	ck_assert_msg(hivedctl_job_says(w, "Waited so far: ", 30, &out) &&
		      strstr(out, "no free cells of its shape"),
		      "hivedctl job %d: %s", w, out);
	ck_assert_msg(hivedctl_job_says(k[2], "behind its VC's head job", 30, &out),
		      "hivedctl job %d: %s", k[2], out);
	job_alloc(s, &js);
	ck_assert_msg(wait_job(w, "JobState=RUNNING", 150),
		      "the whole-node job %d did not start when job %d (45 s) ended: %s",
		      w, s, job_line(w));
	job_alloc(w, &jw);
	ck_assert_str_eq(jw.node[0], js.node[0]);
	ck_assert(job_has(k[2], "JobState=PENDING"));
	/* Its start says how long it waited for its shape; hivedctl too. */
	ck_assert_msg(_start_logged_waiting_for(w, "no free cells of its shape"),
		      "no start line with its wait for job %d", w);
	ck_assert_msg(hivedctl_job_says(w, "Waited before it started: ", 30, &out),
		      "hivedctl job %d: %s", w, out);
	free(out);
	cancel_all();
}
END_TEST

/* The seconds job id's start line says it waited; -1 without one. */
static int _logged_wait(int id)
{
	char *out = NULL;
	int secs = -1;

	if (!run(&out, "grep -oE 'select/hived: JobId=%d VC=.*; waited [0-9]+ s' '%s/log/slurmctld.log' | "
		 "tail -n 1 | sed -E 's/.*waited ([0-9]+) s$/\\1/'", id, e2e_clusterdir) && out)
		secs = atoi(out);
	free(out);
	return secs;
}

/*
 * A job's wait history is its own. The plugin keeps waiting jobs in an array; a
 * job that starts leaves its slot, and the next job to wait took that slot with
 * the history still in it (xrecalloc zeroes only what it adds): c, held for a few
 * seconds, logged that it had waited since a's first wait, 25 s before c existed.
 */
START_TEST(test_wait_history_is_the_jobs_own)
{
	int f[3], a, c, logged;
	time_t c_submitted;

	cancel_all();
	f[0] = submit("-A mid -N1 --gres=gpu:8 -t 30");	/* mid's 18 GPUs: */
	f[1] = submit("-A mid -N1 --gres=gpu:8 -t 30");	/* two node cells */
	f[2] = submit("-A mid --gres=gpu:2 -t 30");	/* and the pair */
	for (int i = 0; i < 3; i++)
		ck_assert(wait_job(f[i], "JobState=RUNNING", 120));
	a = submit("-A mid --gres=gpu:2 -t 30");
	ck_assert(wait_job(a, "VC 'mid' quota is in use", 60));
	sleep(25);
	ck_assert_int_eq(run(NULL, "scancel %d", f[2]), 0);
	ck_assert(wait_job(a, "JobState=RUNNING", 120));
	ck_assert_msg(_logged_wait(a) >= 20, "job %d waited 25 s, its start line says %d s",
		      a, _logged_wait(a));
	c_submitted = time(NULL);
	c = submit("-A mid --gres=gpu:2 -t 30");
	ck_assert(wait_job(c, "VC 'mid' quota is in use", 60));
	ck_assert_int_eq(run(NULL, "scancel %d", a), 0);
	ck_assert(wait_job(c, "JobState=RUNNING", 120));
	logged = _logged_wait(c);
	ck_assert_msg(logged >= 0, "no start line with a wait for job %d", c);
	ck_assert_msg(logged <= time(NULL) - c_submitted + 1,
		      "job %d waited at most %ld s, its start line says %d s (job %d's history)",
		      c, (long) (time(NULL) - c_submitted), logged, a);
	cancel_all();
}
END_TEST

/*
 * big fills its quota (13 jobs of 2 GPUs, 26 GPUs), then queues `flood` more
 * that wait for its own cells, not for nodes. Returns the flood's last job.
 */
static int _fill_quota_then_flood(int flood)
{
	int first[13], flood1 = 0, last = 0;
	char *out = NULL;

	for (int i = 0; i < 13; i++)
		first[i] = submit("-A big --gres=gpu:2 -t 30");
	for (int i = 0; i < 13; i++)
		ck_assert_msg(wait_job(first[i], "JobState=RUNNING", 120),
			      "big's job %d (inside its quota) did not start", first[i]);
	ck_assert_int_eq(run(&out, "for i in $(seq %d); do sbatch --parsable -o /dev/null "
			     "-A big --gres=gpu:2 -t 30 --wrap 'sleep 600' || exit 1; done | "
			     "sed -n '1p;$p' | tr '\\n' ' '", flood), 0);
	ck_assert_msg(sscanf(out, "%d %d", &flood1, &last) == 2, "flood not submitted: %s", out);
	free(out);
	ck_assert(wait_job(flood1, "VC 'big' quota is in use", 120));
	return last;
}

/* mid, small and tiny each submit one whole-node job (fits their free cells): all start. */
static void _others_start(const char *extra, int flood)
{
	const char *others[] = { "mid", "small", "tiny" };
	time_t t0 = time(NULL);
	int id[3];

	for (int v = 0; v < 3; v++) {
		char args[128];

		snprintf(args, sizeof(args), "-A %s -N1 --gres=gpu:8 %s", others[v], extra);
		id[v] = submit(args);
	}
	for (int v = 0; v < 3; v++)
		ck_assert_msg(wait_job(id[v], "JobState=RUNNING", 180),
			      "%s's job %d, which fits its free cells, did not start within %ld s "
			      "behind %d queued jobs of big",
			      others[v], id[v], (long) (time(NULL) - t0), flood);
}

/*
 * Without the fix each of the flood's jobs cost a backfill test that planned
 * it onto free nodes (or, asked to start there, failed and reserved them), so
 * after a few of them backfill had no node left for the other VCs until the
 * flood's own jobs ended, 30 minutes later.
 */
START_TEST(test_flood_does_not_hold_other_vcs)
{
	char *out = NULL;
	int last;

	cancel_all();	/* nothing left by a test before, passed or failed */
	last = _fill_quota_then_flood(FLOOD);

	/* Lower priority than the flood (positive nice), no time limit. */
	_others_start("--nice=1000", FLOOD);
	/* In priority order the flood came first, and none of it could start. */
	ck_assert_int_eq(pending_count("big"), FLOOD);
	/* Backfill still says when the flood can start: when big's jobs end. */
	ck_assert_int_eq(run(&out, "date -d \"$(squeue -h -j %d -o %%S)\" +%%s", last), 0);
	ck_assert_msg(atol(out) >= time(NULL) + 20 * 60,
		      "flood job %d expected to start in %ld s; big's cells free in about 30 min",
		      last, atol(out) - (long) time(NULL));
	free(out);
	cancel_all();
}
END_TEST

/*
 * Backfill tests at most bf_max_job_test jobs a cycle and the main scheduler's
 * event passes at most default_queue_depth (100); a select plugin cannot make
 * either skip the flood the way they skip a job over its GrpTRES. Under
 * priority/multifactor the flood, older, comes first, so past both limits the
 * other VCs' jobs wait for the main scheduler's full pass (an hour here).
 * priority/hived queues guaranteed jobs that fit their VC's free quota first,
 * so either scheduler reaches them at once.
 */
#define DEEP_FLOOD 150
#define BF_TESTS "30"

/* A fresh cluster of the same accounts past both depth limits. */
static void _restart_deep(const char *priority, const char *sched_params)
{
	char options[256];

	cancel_all();
	e2e_cluster_down();
	snprintf(options, sizeof(options), "--fresh --priority %s "
		 "--vc-quotas big=26,mid=18,small=12,tiny=8 "
		 "--sched-params bf_interval=5,sched_interval=3600,"
		 "bf_max_job_test=" BF_TESTS "%s", priority, sched_params);
	e2e_cluster_up(NODES, GPUS, options);
	e2e_log_from_start();
	ck_assert(e2e_log_has("select/hived: loaded"));
}

START_TEST(test_up_priority_hived)
{
	char *out = NULL;

	_restart_deep("hived", "");
	ck_assert(!e2e_log_has("not priority/hived"));
	ck_assert_int_eq(run(&out, "scontrol show config | grep -c 'PriorityType *= priority/hived'"), 0);
	free(out);
}
END_TEST

START_TEST(test_flood_past_every_depth)
{
	_fill_quota_then_flood(DEEP_FLOOD);
	_others_start("", DEEP_FLOOD);
	ck_assert_int_eq(pending_count("big"), DEEP_FLOOD);
	cancel_all();
}
END_TEST

/*
 * A site that keeps priority/multifactor: bf_max_job_assoc caps the jobs of
 * one association that a backfill cycle tests, and Slurm counts a job against
 * bf_max_job_test only after that cap, so backfill reaches the other VCs'
 * fitting jobs behind the same deep flood (without it they wait for the full
 * pass, an hour here). The admin is told so at startup.
 */
#define BF_PER_ASSOC "10"

START_TEST(test_up_bf_max_job_assoc)
{
	_restart_deep("multifactor", ",bf_max_job_assoc=" BF_PER_ASSOC);
	ck_assert(e2e_log_has("backfill tests at most " BF_PER_ASSOC " jobs of each association"));
}
END_TEST

START_TEST(test_flood_past_every_depth_multifactor)
{
	_fill_quota_then_flood(DEEP_FLOOD);
	/* Behind the whole flood in multifactor's order too. */
	_others_start("--nice=1000", DEEP_FLOOD);
	ck_assert_int_eq(pending_count("big"), DEEP_FLOOD);
	cancel_all();
}
END_TEST

int main(void)
{
	TCase *tc;
	int rc = e2e_init("backfill");

	if (rc)
		return rc;
	tc = tcase_create("backfill");
	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, test_up);
	tcase_add_test(tc, test_vc_head_keeps_its_cells);
	tcase_add_test(tc, test_wait_history_is_the_jobs_own);
	tcase_add_test(tc, test_flood_does_not_hold_other_vcs);
	tcase_add_test(tc, test_up_priority_hived);
	tcase_add_test(tc, test_flood_past_every_depth);
	tcase_add_test(tc, test_up_bf_max_job_assoc);
	tcase_add_test(tc, test_flood_past_every_depth_multifactor);
	return e2e_run("backfill", tc, cancel_all);
}
