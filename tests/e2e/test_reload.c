/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_reload - a hived.conf reload never silently undoes a VC guarantee
 * (issue 17): a misspelt section and a reload that would remove a VC with running
 * guaranteed jobs are refused; with slurm.allowRemovingVcs the VC goes and its
 * jobs are demoted, and a reload that gives it back promotes them (log,
 * SystemComment, hivedctl). A new slurmctld (a restart, or "scontrol
 * reconfigure" from 24.05) refuses the same file. A refused file changes no
 * priority either, since priority/hived takes select/hived's accepted config.
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

#include "e2e_main.h"
#include "run.h"
#include "slurm_jobs.h"

#define NODES 4
#define GPUS 8

static char conf[2400];	/* hived.conf; its good copy is conf.good */

/* Before each test: an empty queue and the good hived.conf in force. */
static void clean_queue(void)
{
	if (run(NULL, "scontrol ping 2>/dev/null | grep -q 'is UP'") != 0)
		return;
	cancel_all();
	if (conf[0] && run(NULL, "cmp -s '%s.good' '%s'", conf, conf) != 0)
		ck_assert_int_eq(run(NULL, "cp '%s.good' '%s' && scontrol reconfigure",
				     conf, conf), 0);
	e2e_mark_log();
}

/* slurmctld logs `text` within a generous deadline (no single quotes in it). */
static bool wait_log(const char *text)
{
	return e2e_wait_log(text, 60);
}

/* Edit hived.conf with a sed script (the good copy stays in .good), reload. */
static void reload_with(const char *sed_script)
{
	ck_assert_int_eq(run(NULL, "cp '%s.good' '%s' && sed -i -e '%s' '%s'",
			     conf, conf, sed_script, conf), 0);
	e2e_mark_log();
	ck_assert_int_eq(run(NULL, "scontrol reconfigure"), 0);
}

static void reload_good(void)
{
	ck_assert_int_eq(run(NULL, "cp '%s.good' '%s'", conf, conf), 0);
	e2e_mark_log();
	ck_assert_int_eq(run(NULL, "scontrol reconfigure"), 0);
}

/* `hivedctl <args>` prints `text` within a generous deadline. */
static bool hivedctl_has(const char *args, const char *text)
{
	char *out = NULL;
	bool has;

	for (int i = 0; i < 60; i++) {
		run(&out, "'%s/hivedctl' %s 2>&1", e2e_builddir, args);
		has = out && strstr(out, text);
		if (!has && i == 59)
			fprintf(stderr, "hivedctl %s: %s\n", args, out ? out : "");
		free(out);
		out = NULL;
		if (has)
			return true;
		usleep(500 * 1000);
	}
	return false;
}

/* hivedctl job's first lines, e.g. "Job 5: VC vc2, guaranteed, ..." */
static bool hivedctl_job_has(int id, const char *text)
{
	char args[32];

	snprintf(args, sizeof(args), "job %d", id);
	return hivedctl_has(args, text);
}

/* slurmctld stops (saving its state) and a new one starts, as after a crash fix. */
static void restart_ctld(void)
{
	int pid = e2e_ctld_pid();

	ck_assert_int_eq(run(NULL, "scontrol shutdown slurmctld"), 0);
	/* The process, not its pid file: two controllers would both schedule. */
	for (int i = 0; i < 120 && pid > 0 && kill(pid, 0) == 0; i++)
		usleep(500 * 1000);
	ck_assert_msg(pid <= 0 || kill(pid, 0) != 0, "slurmctld %d did not shut down", pid);
	e2e_mark_log();
	e2e_ctld_start();
}

static long priority_of(int id)
{
	char *out = NULL;
	long p;

	ck_assert_int_eq(run(&out, "squeue -h -j %d -o %%Q", id), 0);
	p = atol(out);
	free(out);
	return p;
}

/*
 * a's priority minus b's, read in one squeue while slurmctld answers (a new
 * one may be starting); false if it did not. Age can move them 1 apart.
 */
static bool lead_of(int a, int b, long *lead)
{
	char *out = NULL, *save = NULL;
	long pa = -1, pb = -1, id, p;

	if (run(&out, "squeue -h -j %d,%d -o '%%i %%Q' 2>/dev/null", a, b) == 0 && out)
		for (char *line = strtok_r(out, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			if (sscanf(line, "%ld %ld", &id, &p) == 2) {
				if (id == a)
					pa = p;
				else if (id == b)
					pb = p;
			}
	free(out);
	if (pa < 0 || pb < 0)
		return false;
	*lead = pa - pb;
	return true;
}

/*
 * a's lead over b once unchanged for 3 s (bands are redone each second), or
 * the last one read after 60 s; -1 if squeue never answered.
 */
static long steady_lead(int a, int b)
{
	long lead = -1;

	for (int i = 0, steady = 0; i < 120 && steady < 6; i++) {
		long now;

		if (!lead_of(a, b, &now))
			now = -1;
		steady = (now == lead && now > 0) ? steady + 1 : 0;
		lead = now;
		usleep(500 * 1000);
	}
	return lead;
}

START_TEST(test_up)
{
	e2e_cluster_up(NODES, GPUS, "--fresh --priority hived");
	snprintf(conf, sizeof(conf), "%s/etc/hived.conf", e2e_clusterdir);
	ck_assert_int_eq(run(NULL, "cp '%s' '%s.good'", conf, conf), 0);
}
END_TEST

/* A misspelt section and a removed VC with a running job: refused, job stays guaranteed. */
START_TEST(test_refused_reloads_keep_guarantee)
{
	int id = submit("-A vc2 -N1 --gres=gpu:8");
	char text[256];

	ck_assert(wait_job(id, "JobState=RUNNING", 60));
	ck_assert(hivedctl_job_has(id, "VC vc2, guaranteed"));

	reload_with("s/\"virtualClusters\"/\"virtualCluster\"/");
	ck_assert_msg(wait_log("virtualCluster: unknown top-level key (did you mean"),
		      "no did-you-mean for the misspelt section in the log");
	ck_assert(wait_log("the previous hived.conf stays in force"));
	ck_assert_msg(!e2e_log_has("0 VCs"), "the misspelt config was loaded");

	reload_with("/\"vc2\":/d");
	snprintf(text, sizeof(text), "the new config has no VC vc2 (guaranteed jobs %d)", id);
	ck_assert_msg(wait_log(text), "no refusal naming vc2 and job %d in the log", id);
	ck_assert(hivedctl_job_has(id, "VC vc2, guaranteed"));
	ck_assert(hivedctl_has("status", "Last reload REFUSED"));
	ck_assert(!job_has(id, "reload:"));
	reload_good();
	cancel_all();
}
END_TEST

/*
 * The same refusal when a new slurmctld meets the file (a restart; from 24.05
 * also "scontrol reconfigure"): the state file's jobs refuse it, the copy in
 * force before comes back.
 */
START_TEST(test_restart_keeps_guarantee)
{
	int id = submit("-A vc2 -N1 --gres=gpu:8");
	char text[256];

	ck_assert(wait_job(id, "JobState=RUNNING", 60));
	ck_assert(hivedctl_job_has(id, "VC vc2, guaranteed"));
	ck_assert_int_eq(run(NULL, "cp '%s.good' '%s' && sed -i -e '/\"vc2\":/d' '%s'",
			     conf, conf, conf), 0);
	restart_ctld();
	snprintf(text, sizeof(text), "the new config has no VC vc2 (guaranteed jobs %d)", id);
	ck_assert_msg(wait_log(text), "no refusal naming vc2 and job %d after a restart", id);
	ck_assert(wait_log("the previous hived.conf stays in force"));
	ck_assert(hivedctl_job_has(id, "VC vc2, guaranteed"));
	ck_assert(hivedctl_has("status", "Last reload REFUSED"));
	ck_assert(!job_has(id, "reload:"));
	ck_assert(job_has(id, "JobState=RUNNING"));
	reload_good();
	cancel_all();
}
END_TEST

/* allowRemovingVcs demotes; giving the VC back promotes; comment and hivedctl follow. */
START_TEST(test_restore_promotes)
{
	int id = submit("-A vc2 -N1 --gres=gpu:8");

	ck_assert(wait_job(id, "JobState=RUNNING", 60));
	/* From 25.05 the status writer keeps the state file: wait until it has the job. */
	ck_assert(hivedctl_job_has(id, "VC vc2, guaranteed"));
	reload_with("/\"vc2\":/d; s/\"slurm\": {/\"slurm\": {\"allowRemovingVcs\": [\"vc2\"], /");
	ck_assert_msg(wait_log("demoted: their VC"), "no demotion logged");
	ck_assert(wait_log("loaded"));
	ck_assert(wait_job(id, "reload: now opportunistic", 30));
	ck_assert(hivedctl_job_has(id, "Demoted by the config: hived.conf no longer has VC vc2"));

	reload_good();
	ck_assert_msg(wait_log("promoted back to guaranteed"), "no promotion logged");
	ck_assert(wait_job(id, "reload: guaranteed again", 30));
	ck_assert(hivedctl_job_has(id, "VC vc2, guaranteed"));
	ck_assert(job_has(id, "JobState=RUNNING"));
	cancel_all();
}
END_TEST

/*
 * A hived.conf select/hived refuses changes no priority: a scavenger job submitted
 * after the refused reload still ranks below a guaranteed one.
 */
START_TEST(test_refused_conf_keeps_priorities)
{
	int guar, opp_before, opp_after;

	guar = submit("-A vc2 -N1 --gres=gpu:8 --begin=now+3600");
	opp_before = submit("-A vc3 -N1 --gres=gpu:8 --qos=scavenger --begin=now+3600");
	ck_assert_msg(priority_of(guar) > priority_of(opp_before),
		      "scavenger job %ld does not rank below guaranteed %ld before any reload",
		      priority_of(opp_before), priority_of(guar));
	ck_assert_int_eq(run(NULL, "echo '{\"virtualClusters\": [' > '%s'", conf), 0);
	e2e_mark_log();
	ck_assert_int_eq(run(NULL, "scontrol reconfigure"), 0);
	ck_assert(wait_log("the previous hived.conf stays in force"));
	opp_after = submit("-A vc3 -N1 --gres=gpu:8 --qos=scavenger --begin=now+3600");
	ck_assert_msg(priority_of(guar) > priority_of(opp_after),
		      "after a refused hived.conf a scavenger job (%ld) no longer ranks below a guaranteed one (%ld)",
		      priority_of(opp_after), priority_of(guar));
	reload_good();
	cancel_all();
}
END_TEST

/*
 * A new slurmctld (a restart; from 24.05 also "scontrol reconfigure") recovers
 * the jobs' site factors with priority/hived's band in them: the band must not
 * be added a second time. The guaranteed job's lead over an opportunistic job
 * of the same account (no band, so nothing to add twice) is its band; it is
 * watched for 20 s after the restart, priority/hived re-bands within a second.
 */
START_TEST(test_restart_keeps_bands)
{
	int ref = submit("-A vc2 -N1 --begin=now+3600");
	int guar = submit("-A vc2 -N1 --gres=gpu:8 --begin=now+3600");
	int opp = submit("-A vc2 -N1 --gres=gpu:1 --hived-opportunistic --begin=now+3600");
	long lead = 0, after = 0;
	bool settled = false;

	/* Its band settled: the same as a job without GPUs (band FITS). */
	for (int i = 0; i < 60 && !settled; i++) {
		settled = priority_of(guar) == priority_of(ref);
		if (!settled)
			usleep(500 * 1000);
	}
	ck_assert_msg(settled, "job %d never reached the band of a job without GPUs", guar);
	lead = priority_of(guar) - priority_of(opp);
	ck_assert_msg(lead > 0, "no band: job %d %ld, opportunistic job %d %ld", guar,
		      priority_of(guar), opp, priority_of(opp));
	restart_ctld();
	for (int i = 0; i < 40; i++) {
		if (run(NULL, "scontrol ping | grep -q 'is UP'") == 0 &&
		    (after = priority_of(guar) - priority_of(opp)) != lead)
			break;
		usleep(500 * 1000);
	}
	ck_assert_msg(after == lead,
		      "job %d's lead over opportunistic job %d went from %ld to %ld across a slurmctld restart",
		      guar, opp, lead, after);
	cancel_all();
}
END_TEST

/*
 * The same when the new slurmctld comes within a second of the submit, before
 * priority/hived rewrote its table: from 24.05 "scontrol reconfigure" right
 * after sbatch (the old slurmctld exits without fini). The jobs' lead must be
 * that of a pair whose band had long settled.
 */
START_TEST(test_reconfigure_at_once_keeps_bands)
{
	int guar_a = submit("-A vc2 -N1 --gres=gpu:8 --begin=now+3600");
	int opp_a = submit("-A vc2 -N1 --gres=gpu:1 --hived-opportunistic --begin=now+3600");
	int guar_b, opp_b;
	long lead = steady_lead(guar_a, opp_a), after;

	ck_assert_msg(lead > 0, "no band: job %d leads opportunistic job %d by %ld", guar_a,
		      opp_a, lead);
	/* Pair b alone in vc2's queue, so in the same bands as pair a was. */
	cancel_all();
	guar_b = submit("-A vc2 -N1 --gres=gpu:8 --begin=now+3600");
	opp_b = submit("-A vc2 -N1 --gres=gpu:1 --hived-opportunistic --begin=now+3600");
	ck_assert_int_eq(run(NULL, "scontrol reconfigure"), 0);
	/*
	 * The new slurmctld's first passes may come before select/hived has its
	 * state, hence steady (a second band would be steady too: it stays in the
	 * site factor).
	 */
	after = steady_lead(guar_b, opp_b);
	ck_assert_msg(labs(after - lead) <= 2,
		      "job %d leads opportunistic job %d by %ld after a reconfigure right after their submit; a settled pair by %ld",
		      guar_b, opp_b, after, lead);
	cancel_all();
}
END_TEST

START_TEST(test_down)
{
	e2e_cluster_down();
}
END_TEST

int main(void)
{
	TCase *tc;
	int rc = e2e_init("reload");

	if (rc)
		return rc;
	tc = tcase_create("reload");
	tcase_set_timeout(tc, 900);
	tcase_add_checked_fixture(tc, clean_queue, NULL);
	tcase_add_test(tc, test_up);
	tcase_add_test(tc, test_refused_conf_keeps_priorities);
	tcase_add_test(tc, test_refused_reloads_keep_guarantee);
	tcase_add_test(tc, test_restart_keeps_guarantee);
	tcase_add_test(tc, test_restore_promotes);
	tcase_add_test(tc, test_restart_keeps_bands);
	tcase_add_test(tc, test_reconfigure_at_once_keeps_bands);
	tcase_add_test(tc, test_down);
	return e2e_run("reload", tc);
}
