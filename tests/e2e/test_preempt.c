/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_preempt.c - an owner's job preempts opportunistic work only when no
 * free cell of its VC's shape can be bound (issue 18, item 2).
 *
 * Its own cluster (scripts/hived-cluster: 4 nodes x 8 fake GPUs, 2 sockets,
 * 2 racks of 2 nodes, preempt/qos with QOS scavenger opportunistic): account
 * "own" has 2 node cells, "other" 1 node cell, so one node is nobody's. Jobs
 * of both accounts run opportunistically beside guaranteed ones; guaranteed
 * jobs then arrive while idle nodes remain, and must start without requeueing
 * anyone. Before the fix they bound their VC cells to the nodes the
 * opportunistic jobs ran on and preempted them. Then the wait for preempted
 * jobs to leave has a cause of its own and holds back no other VC's job, and
 * the node its victims free is kept for it.
 * Needs root (exit 77 otherwise).
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e_main.h"
#include "run.h"
#include "slurm_jobs.h"

#define NODES 4
#define GPUS 8

/* The single node a running job is on. */
static void node_of(int id, char *node, size_t len)
{
	alloc_t a;

	job_alloc(id, &a);
	ck_assert_msg(a.n == 1, "job %d is on %d nodes, expected 1", id, a.n);
	snprintf(node, len, "%s", a.node[0]);
}

static void assert_untouched(int opp, const char *why)
{
	ck_assert_msg(job_has(opp, "JobState=RUNNING") && job_has(opp, "Restarts=0"),
		      "opportunistic job %d was preempted %s: %s", opp, why, job_line(opp));
}

/*
 * QOS scavenger's GraceTime. slurmdbd passes the change on to slurmctld as it
 * commits it; scontrol does not show the QOS's GraceTime to wait for.
 */
static void set_grace(int seconds)
{
	char *out = NULL, want[32];

	ck_assert_int_eq(run(NULL, "sacctmgr -i modify qos where name=scavenger set GraceTime=%d",
			     seconds), 0);
	ck_assert_int_eq(run(&out, "sacctmgr -n -P show qos where name=scavenger format=GraceTime"),
			 0);
	snprintf(want, sizeof(want), "%02d:%02d:%02d", seconds / 3600, seconds / 60 % 60,
		 seconds % 60);
	ck_assert_msg(out && strstr(out, want), "GraceTime: %s, not %s", out ? out : "", want);
	free(out);
	sleep(2);
}

/*
 * Epilog of the cluster: while the switch file exists, a job's node stays
 * COMPLETING for SLOW_EPILOG s after the job ends, longer than KillWait (5 s)
 * + MessageTimeout (10 s), Slurm's own pause between two preemptions of one
 * job.
 */
#define SLOW_EPILOG 40
static char epilog[2200], slow_switch[2200];

static void write_epilog(void)
{
	FILE *f;

	snprintf(epilog, sizeof(epilog), "%s/tests/e2e/preempt-epilog.sh", e2e_builddir);
	snprintf(slow_switch, sizeof(slow_switch), "%s/tests/e2e/preempt-epilog.slow",
		 e2e_builddir);
	unlink(slow_switch);
	f = fopen(epilog, "w");
	ck_assert_msg(f, "cannot write %s", epilog);
	fprintf(f, "#!/bin/sh\n[ -e '%s' ] && sleep %d\nexit 0\n", slow_switch, SLOW_EPILOG);
	fclose(f);
	ck_assert_int_eq(chmod(epilog, 0755), 0);
}

static void slow_epilog(bool on)
{
	if (on) {
		FILE *f = fopen(slow_switch, "w");

		ck_assert_msg(f, "cannot write %s", slow_switch);
		fclose(f);
	} else {
		unlink(slow_switch);
	}
}

START_TEST(test_up)
{
	char options[2600];

	write_epilog();
	/* Backfill would start what the main scheduler holds back (hides it). */
	snprintf(options, sizeof(options), "--fresh --priority multifactor "
		 "--vc-quotas own=16,other=8 --sched-params bf_interval=3600 --epilog '%s'",
		 epilog);
	e2e_cluster_up(NODES, GPUS, options);
	set_grace(0);	/* the database outlives --fresh: an aborted run's grace */
	e2e_log_from_start();
	ck_assert(e2e_log_has("select/hived: loaded"));
}
END_TEST

START_TEST(test_free_cells_before_preemption)
{
	char n_a1[32], n_o1[32], n_b1[32], n_o2[32], n_a2[32], n_a3[32], n_a4[32];
	int a1, o1, b1, o2, a2, a3, a4;

	/* own's first node cell binds a node; opportunistic work spreads to a
	 * node without guaranteed work, and one job is sent beside a1. */
	a1 = submit("-A own -N1 --gres=gpu:4");
	ck_assert(wait_job(a1, "JobState=RUNNING", 120));
	node_of(a1, n_a1, sizeof(n_a1));
	o1 = submit("-A other --qos=scavenger -N1 --gres=gpu:1");
	ck_assert(wait_job(o1, "JobState=RUNNING", 120));
	node_of(o1, n_o1, sizeof(n_o1));
	ck_assert_msg(strcmp(n_o1, n_a1) != 0, "opportunistic job %d went beside guaranteed work on %s",
		      o1, n_o1);
	{
		char args[96];

		snprintf(args, sizeof(args), "-A own --qos=scavenger -N1 --gres=gpu:4 -w %s", n_a1);
		o2 = submit(args);
	}
	ck_assert(wait_job(o2, "JobState=RUNNING", 120));
	node_of(o2, n_o2, sizeof(n_o2));
	e2e_mark_log();

	/* A whole node for "other": two nodes are idle, o1's node is not. */
	b1 = submit("-A other -N1 --gres=gpu:8");
	ck_assert_msg(wait_job(b1, "JobState=RUNNING", 120), "other's job %d did not start", b1);
	node_of(b1, n_b1, sizeof(n_b1));
	assert_untouched(o1, "for a whole node while idle nodes remained");
	ck_assert_str_ne(n_b1, n_o1);

	/* 4 GPUs for "own": its bound node has 4 free GPUs, all under o2; its
	 * second node cell binds the idle node instead. */
	a2 = submit("-A own -N1 --gres=gpu:4");
	ck_assert_msg(wait_job(a2, "JobState=RUNNING", 120), "own's job %d did not start", a2);
	node_of(a2, n_a2, sizeof(n_a2));
	assert_untouched(o2, "for 4 GPUs while an idle node remained");
	ck_assert_str_ne(n_a2, n_a1);
	a3 = submit("-A own -N1 --gres=gpu:4");
	ck_assert_msg(wait_job(a3, "JobState=RUNNING", 120), "own's job %d did not start", a3);
	node_of(a3, n_a3, sizeof(n_a3));
	assert_untouched(o2, "for 4 GPUs while own's second node had 4 idle");
	ck_assert_str_eq(n_a3, n_a2);
	assert_untouched(o1, "by own's jobs");
	ck_assert_msg(!e2e_log_has("preempts"), "slurmctld.log shows a preemption");

	/* own's last free GPUs are those o2 borrowed: now the owner takes them. */
	a4 = submit("-A own -N1 --gres=gpu:4");
	ck_assert_msg(wait_job(o2, "Restarts=1", 120),
		      "own's job %d did not take back the GPUs of opportunistic job %d", a4, o2);
	ck_assert(wait_job(a4, "JobState=RUNNING", 120));
	node_of(a4, n_a4, sizeof(n_a4));
	ck_assert_str_eq(n_a4, n_o2);
	assert_untouched(o1, "when own took back its own node");
	cancel_all();
}
END_TEST

/*
 * n jobs whose batch scripts leave only at SIGKILL, KillWait (5 s) after
 * SIGTERM. Slurm shows a job RUNNING before slurmd has started its script; a
 * script preempted before it set its trap leaves at once (seen in CI on a busy
 * machine), so each script writes a file once trapped and we wait for it.
 */
static void start_slow_to_leave(const char *args, int n, int *ids)
{
	char script[2600], marker[2300];

	snprintf(script, sizeof(script),
		 "trap 'sleep 600' TERM; touch '%s/log/trapped.'\\$SLURM_JOB_ID; sleep 1000 & wait",
		 e2e_clusterdir);
	for (int i = 0; i < n; i++)
		ids[i] = submit_wrap(args, script);
	for (int i = 0; i < n; i++) {
		ck_assert(wait_job(ids[i], "JobState=RUNNING", 120));
		snprintf(marker, sizeof(marker), "%s/log/trapped.%d", e2e_clusterdir, ids[i]);
		for (int t = 0; (t < 240) && access(marker, F_OK); t++)
			usleep(500 * 1000);
		ck_assert_msg(!access(marker, F_OK), "job %d's script never set its trap (%s)",
			      ids[i], marker);
	}
}

/* The seconds job id's start line gives its preempted jobs; -1: none named. */
static int victims_secs(int id)
{
	char *out = NULL;
	int secs = -1;

	if (!run(&out, "grep -E 'select/hived: JobId=%d VC=.* GPUs=.*; waited [0-9]+ s: ' '%s/log/slurmctld.log' | grep -oE 'its preempted jobs leaving [0-9]+ s' | tail -1 | grep -oE '[0-9]+'",
		 id, e2e_clusterdir) && out && *out)
		secs = atoi(out);
	free(out);
	return secs;
}

/*
 * A guaranteed job whose cells are bound waits while the jobs it preempted are
 * requeued; those seconds are the victims', not fragmentation's, and its start
 * line and hivedctl say so. Every GPU runs opportunistic work that leaves only
 * at KillWait, so own's whole-node job preempts one of them and waits >= 5 s.
 */
START_TEST(test_wait_for_victims_named)
{
	int opp[NODES], g, secs, victims = 0;
	char *out = NULL, *waiting;

	cancel_all();
	start_slow_to_leave("-A other --qos=scavenger -N1 --gres=gpu:8", NODES, opp);
	g = submit("-A own -N1 --gres=gpu:8");
	/* While its victim leaves, the job names it. */
	ck_assert_msg(wait_job(g, "waiting for the jobs it preempted to end: JobId=", 120),
		      "job %d: %s", g, job_line(g));
	waiting = job_line(g);
	ck_assert_msg(wait_job(g, "JobState=RUNNING", 180), "own's job %d did not start: %s",
		      g, job_line(g));
	for (int i = 0; i < NODES; i++) {
		char text[64];

		if (!job_has(opp[i], "Restarts=1"))
			continue;
		victims++;
		snprintf(text, sizeof(text), "to end: JobId=%d", opp[i]);
		ck_assert_msg(strstr(waiting, text), "job %d preempted %d but said: %s", g,
			      opp[i], waiting);
	}
	ck_assert_int_eq(victims, 1);
	free(waiting);
	secs = victims_secs(g);
	ck_assert_msg(secs >= 3, "job %d's start line gives its victims %d s (KillWait is 5 s)",
		      g, secs);
	ck_assert_msg(hivedctl_job_says(g, "Waited before it started: ", 30, &out) &&
		      strstr(out, "its preempted jobs leaving"), "hivedctl job %d: %s", g,
		      out ? out : "");
	free(out);
	cancel_all();
}
END_TEST

/*
 * While a job's victims leave (here a 45 s GraceTime), other VCs' jobs that fit
 * their own cells start. Slurm answers a job that hands it victims still leaving
 * with ESLURM_NODES_BUSY, and its main scheduler then holds back every
 * lower-priority job of the partition; select/hived waits instead, as for cells.
 * Before, "other"'s job below stayed pending with reason Priority until own's
 * job started.
 */
START_TEST(test_victims_hold_back_no_other_vc)
{
	int b, opp[NODES - 1], g, c;
	char *line;

	cancel_all();
	set_grace(45);
	/* other's node cell binds one node; 4 of its GPUs stay free. */
	b = submit("-A other -N1 --gres=gpu:4");
	ck_assert(wait_job(b, "JobState=RUNNING", 120));
	start_slow_to_leave("-A own --qos=scavenger -N1 --gres=gpu:8", NODES - 1, opp);
	g = submit("-A own -N1 --gres=gpu:8");
	ck_assert_msg(wait_job(g, "waiting for the jobs it preempted to end: JobId=", 120),
		      "job %d: %s", g, job_line(g));
	/* Of lower priority than g, in other's free cell. */
	c = submit("-A other -N1 --gres=gpu:2 --nice=10000");
	ck_assert_msg(wait_job(c, "JobState=RUNNING", 35),
		      "other's job %d waited behind own's job %d, whose victims leave: %s", c, g,
		      job_line(c));
	line = job_line(g);
	ck_assert_msg(line && strstr(line, "JobState=PENDING"),
		      "own's job %d started before other's job %d: the victims left too soon (%s)",
		      g, c, line ? line : "");
	free(line);
	ck_assert_msg(wait_job(g, "JobState=RUNNING", 180), "own's job %d did not start: %s",
		      g, job_line(g));
	cancel_all();
	set_grace(0);
}
END_TEST

/* counters.preemptions in hived_status.json (-1: not there). */
static long preemptions_counted(void)
{
	char *out = NULL;
	long n = -1;

	if (!run(&out, "grep -oE '\"preemptions\":[0-9]+' '%s/state/hived_status.json' | "
		 "cut -d: -f2", e2e_clusterdir) && out && *out)
		n = atol(out);
	free(out);
	return n;
}

/* hived_status.json was written while job id ran (its "jobs" entry has a class). */
static bool status_shows_running(int id)
{
	return run(NULL, "grep -q '\"job\":\"%d\",\"vc\":\"[^\"]*\",\"priority\"' "
		   "'%s/state/hived_status.json'", id, e2e_clusterdir) == 0;
}

/*
 * While its victim's node stays COMPLETING (a slow epilog), Slurm leaves that
 * node out of the preemptor's tests; HiveD then bound the job to another node
 * and, once Slurm's own pause (KillWait + MessageTimeout) was over, requeued a
 * second job for the one it had already preempted for. Now the preemptor waits
 * for its victim's node, and the only victim is the first.
 */
START_TEST(test_no_second_victim_while_node_completes)
{
	int opp[NODES], g, victims = 0, n_victim = -1;
	char node_g[32], node_v[32];
	char *line;
	long counted;

	cancel_all();
	for (int i = 0; i < NODES; i++)
		opp[i] = submit_wrap("-A other --qos=scavenger -N1 --gres=gpu:8", "sleep 1000");
	for (int i = 0; i < NODES; i++)
		ck_assert(wait_job(opp[i], "JobState=RUNNING", 120));
	slow_epilog(true);
	e2e_mark_log();
	/* Written at most a second after a change: the earlier tests' count is in. */
	counted = preemptions_counted();
	ck_assert_msg(counted >= 0, "no preemptions counter in hived_status.json");
	g = submit("-A own -N1 --gres=gpu:8");
	for (int t = 0; (t < 120) && (n_victim < 0); t++) {
		for (int i = 0; i < NODES; i++)
			if (job_has(opp[i], "Restarts=1"))
				n_victim = i;
		if (n_victim < 0)
			sleep(1);
	}
	ck_assert_msg(n_victim >= 0, "own's job %d preempted nothing: %s", g, job_line(g));
	/*
	 * The scheduler runs at each submission: ask about g often while the
	 * victim's epilog runs, past Slurm's own pause.
	 */
	for (int t = 0; t < SLOW_EPILOG - 5; t += 3) {
		int nudge = submit("-A other -N1 --gres=gpu:8 --hold");

		sleep(3);
		(void) run(NULL, "scancel %d", nudge);
		line = job_line(g);
		ck_assert_msg(line && (strstr(line, "JobState=RUNNING") ||
				       strstr(line, "waiting for the jobs it preempted to end")),
			      "own's job %d does not say it waits for its victim: %s", g,
			      line ? line : "");
		free(line);
	}
	ck_assert_msg(wait_job(g, "JobState=RUNNING", 180), "own's job %d did not start: %s",
		      g, job_line(g));
	slow_epilog(false);
	for (int i = 0; i < NODES; i++)
		if (!job_has(opp[i], "Restarts=0"))
			victims++;
	ck_assert_msg(victims == 1, "own's job %d requeued %d jobs for one node", g, victims);
	node_of(g, node_g, sizeof(node_g));
	{
		char *out = NULL;

		ck_assert_int_eq(run(&out, "sacct -n -X -P -D -j %d -o NodeList | head -1",
				     opp[n_victim]), 0);
		snprintf(node_v, sizeof(node_v), "%s", out ? strtok(out, "\n") : "");
		free(out);
	}
	ck_assert_msg(!strcmp(node_g, node_v), "own's job %d started on %s, its victim %d was on %s",
		      g, node_g, opp[n_victim], node_v);
	ck_assert_msg(!e2e_log_has("more job(s) for its cells"),
		      "slurmctld.log names more victims for job %d", g);
	/* The status file written once g ran counts every victim it had. */
	for (int t = 0; (t < 120) && !status_shows_running(g); t++)
		sleep(1);
	ck_assert_msg(status_shows_running(g), "hived_status.json never showed job %d running", g);
	ck_assert_int_eq(preemptions_counted(), counted + 1);
	cancel_all();
}
END_TEST

/*
 * What a preemptor's victims free is its own until it starts. Another VC's job
 * of higher priority that may use only that node is tested first once the
 * victim is gone; before, it named the same victim, took the node, and the
 * preemptor bound elsewhere and requeued a second job for one node (in the
 * contended-nodes runs of issue 18, whole-node preemptors took each other's
 * freed nodes that way). `competitor`: the sbatch options of a job of
 * another VC that Slurm tests first, placed only on the victim's node.
 */
static void _freed_node_kept(const char *competitor)
{
	int opp[NODES], g, j, v = 0, victims = 0;
	char node_g[32], node_v[32], *line, *at;

	cancel_all();
	set_grace(20);	/* the victim leaves slowly: time to ask for its node */
	start_slow_to_leave("-A other --qos=scavenger -N1 --gres=gpu:8", NODES, opp);
	e2e_mark_log();
	g = submit("-A own -N1 --gres=gpu:8");
	ck_assert_msg(wait_job(g, "waiting for the jobs it preempted to end: JobId=", 120),
		      "job %d: %s", g, job_line(g));
	line = job_line(g);
	at = line ? strstr(line, "to end: JobId=") : NULL;
	if (at)
		v = atoi(at + strlen("to end: JobId="));
	free(line);
	ck_assert_msg(v > 0, "job %d names no victim", g);
	node_of(v, node_v, sizeof(node_v));
	{
		/*
		 * -x, not -w: slurmctld keeps a blocked job's required nodes
		 * from every job of lower priority in the pass.
		 */
		char args[256], others[120] = "";

		for (int i = 1; i <= NODES; i++) {
			char name[16];

			snprintf(name, sizeof(name), "node%d", i);
			if (strcmp(name, node_v))
				snprintf(others + strlen(others), sizeof(others) - strlen(others),
					 "%s%s", *others ? "," : "", name);
		}
		snprintf(args, sizeof(args), "%s -x %s", competitor, others);
		j = submit(args);
	}
	ck_assert_msg(wait_job(j, "are kept for it until it starts", 60),
		      "job %d does not say %s is kept for job %d: %s", j, node_v, g, job_line(j));
	ck_assert_msg(wait_job(g, "JobState=RUNNING", 180), "own's job %d did not start: %s",
		      g, job_line(g));
	node_of(g, node_g, sizeof(node_g));
	ck_assert_msg(!strcmp(node_g, node_v), "own's job %d started on %s, its victim %d was on %s",
		      g, node_g, v, node_v);
	for (int i = 0; i < NODES; i++)
		if (!job_has(opp[i], "Restarts=0"))
			victims++;
	ck_assert_msg(victims == 1, "own's job %d requeued %d jobs for one node", g, victims);
	ck_assert_msg(!e2e_log_has("more job(s) for its cells"),
		      "slurmctld.log names more victims for job %d", g);
	ck_assert_msg(job_has(j, "JobState=PENDING"), "job %d: %s", j, job_line(j));
	cancel_all();
	set_grace(0);
}

START_TEST(test_freed_node_kept_for_preemptor)
{
	_freed_node_kept("-A other -N1 --gres=gpu:8 --nice=-100000");
}
END_TEST

/* A job cons_tres places alone (no GPU) is kept off too. */
START_TEST(test_freed_node_kept_from_cpu_job)
{
	_freed_node_kept("-A other -N1 --exclusive --nice=-100000");
}
END_TEST

/*
 * Slurm gives a job that has its node exclusively every GPU of it, asked for or
 * not: HiveD counts them held while it runs, and free once it ends. It records
 * them when Slurm reports the job's allocation (nodeinfo_set), which before
 * logged "cells rebuilt from Slurm's record" as if slurmctld had restarted.
 * HiveD counts them against the job's VC on every release: 26.05 files the
 * swapped request with no GPU count, which HiveD read as GPUs per socket or
 * task and held as opportunistic.
 */
START_TEST(test_exclusive_job_holds_its_gpus)
{
	char *out = NULL;
	int j;

	cancel_all();
	e2e_mark_log();
	j = submit("-A other -N1 --exclusive");
	ck_assert_msg(wait_job(j, "JobState=RUNNING", 120), "job %d: %s", j, job_line(j));
	ck_assert_msg(hivedctl_job_says(j, "8 GPUs", 60, &out),
		      "hivedctl does not count the GPUs exclusive job %d holds: %s", j,
		      out ? out : "(no output)");
	ck_assert_msg(strstr(out, "guaranteed"), "exclusive job %d is not other's: %s", j, out);
	free(out);
	ck_assert_msg(!e2e_log_has("cells rebuilt from Slurm's record"),
		      "slurmctld.log calls job %d's start a rebuild", j);
	(void) run(NULL, "scancel %d", j);
	for (int t = 0; (t < 60) && status_shows_running(j); t++)
		sleep(1);
	ck_assert_msg(!status_shows_running(j), "job %d still holds GPUs after it ended", j);
}
END_TEST

/*
 * An --exclusive GPU job gets every GPU of its nodes from Slurm, whatever it
 * asked for: they count against its VC's quota like any other, and HiveD looks
 * for a whole node cell. Before, HiveD placed the 4 GPUs asked beside b, on a
 * node an exclusive job cannot share: cons_tres said Resources, and HiveD chose
 * that node again at every pass.
 */
START_TEST(test_exclusive_gpu_job_counts_its_nodes)
{
	char *out = NULL;
	int o, b, x;

	cancel_all();
	e2e_mark_log();
	o = submit("-A own -N1 --gres=gpu:8");
	b = submit("-A own -N1 --gres=gpu:4");
	ck_assert_msg(wait_job(o, "JobState=RUNNING", 120), "job %d: %s", o, job_line(o));
	ck_assert_msg(wait_job(b, "JobState=RUNNING", 120), "job %d: %s", b, job_line(b));
	/* own (16 GPUs) has 4 free: not the whole node x would hold. */
	x = submit("-A own -N1 --gres=gpu:4 --exclusive");
	ck_assert_msg(wait_job(x, "quota is in use", 60) && job_has(x, "JobState=PENDING"),
		      "own's exclusive job %d did not wait for a whole node of its quota: %s", x,
		      job_line(x));
	(void) run(NULL, "scancel %d", b);
	ck_assert_msg(wait_job(x, "JobState=RUNNING", 120), "job %d: %s", x, job_line(x));
	ck_assert_msg(hivedctl_job_says(x, "8 GPUs", 60, &out),
		      "hivedctl does not count the 8 GPUs exclusive job %d holds: %s", x,
		      out ? out : "(no output)");
	ck_assert_msg(strstr(out, "guaranteed"), "exclusive job %d is not guaranteed: %s", x, out);
	free(out);
	ck_assert_msg(!e2e_log_has("disagrees with Slurm's record"),
		      "slurmctld.log: HiveD's record of job %d disagreed with Slurm's", x);
	cancel_all();
}
END_TEST

/*
 * A requeued exclusive job gets its own GRES request back from Slurm (in place
 * of every GPU of its nodes, which it held while it ran): HiveD places it
 * again, as a whole node cell of its VC, not cons_tres.
 */
START_TEST(test_requeued_exclusive_job_stays_whole_node)
{
	char *out = NULL;
	int x;

	cancel_all();
	x = submit("-A own -N1 --gres=gpu:4 --exclusive");
	ck_assert_msg(wait_job(x, "JobState=RUNNING", 120), "job %d: %s", x, job_line(x));
	ck_assert_int_eq(run(NULL, "scontrol requeue %d", x), 0);
	ck_assert_msg(wait_job(x, "JobState=PENDING", 120), "job %d: %s", x, job_line(x));
	/* Slurm holds a requeued job until its credential expires: not this one. */
	ck_assert_int_eq(run(NULL, "scontrol update JobId=%d StartTime=now", x), 0);
	ck_assert_msg(wait_job(x, "JobState=RUNNING", 120), "requeued job %d: %s", x,
		      job_line(x));
	ck_assert_msg(hivedctl_job_says(x, "8 GPUs", 60, &out),
		      "hivedctl does not count the 8 GPUs requeued exclusive job %d holds: %s", x,
		      out ? out : "(no output)");
	ck_assert_msg(strstr(out, "guaranteed"), "requeued exclusive job %d is not own's: %s", x,
		      out);
	free(out);
	cancel_all();
}
END_TEST

int main(void)
{
	TCase *tc;
	int rc = e2e_init("preempt");

	if (rc)
		return rc;
	tc = tcase_create("preempt");
	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, test_up);
	tcase_add_test(tc, test_free_cells_before_preemption);
	tcase_add_test(tc, test_wait_for_victims_named);
	tcase_add_test(tc, test_victims_hold_back_no_other_vc);
	tcase_add_test(tc, test_no_second_victim_while_node_completes);
	tcase_add_test(tc, test_freed_node_kept_for_preemptor);
	tcase_add_test(tc, test_freed_node_kept_from_cpu_job);
	tcase_add_test(tc, test_exclusive_job_holds_its_gpus);
	tcase_add_test(tc, test_exclusive_gpu_job_counts_its_nodes);
	tcase_add_test(tc, test_requeued_exclusive_job_stays_whole_node);
	return e2e_run("preempt", tc, cancel_all);
}
