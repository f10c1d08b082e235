/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_admin.c - doc/quickstart-admin.md and doc/quickstart-user.md followed
 * literally on a fresh cluster (issue 17): the slurm.conf lines they give are
 * the ones the example files and the test cluster use; the hived.conf and the
 * sacctmgr commands are taken from the quickstart itself (accounts renamed
 * qs1..qs3 so that they are new, user alice played by hivedtest), then a user
 * submits what the user guide shows: QOS scavenger, jobs without --mem, and
 * opportunistic jobs beyond the quota an account's GrpTRES gives its VC.
 *
 * One cluster (scripts/hived-cluster: 4 nodes x 8 fake GPUs, 2 sockets, racks
 * of 2 nodes, select/hived + priority/hived). Needs root (exit 77 otherwise).
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

#define NODES 4
#define GPUS 8

/* The quickstart's sacctmgr and hived.conf with its accounts made new. */
#define RENAME "sed -e 's/\\bvc\\([0-9]\\)/qs\\1/g' -e 's/\\balice\\b/hivedtest/g'"

static void clean_queue(void)
{
	if (run(NULL, "scontrol ping 2>/dev/null | grep -q 'is UP'") == 0)
		cancel_all();
	e2e_mark_log();
}

/* A command as user hivedtest (the quickstart's alice). */
static int as_user(char **out, const char *cmd)
{
	return run(out, "runuser -u hivedtest -- env SLURM_CONF='%s' PATH=\"$PATH\" sh -c '%s'",
		   e2e_conf, cmd);
}

static int user_submit(const char *args)
{
	char cmd[512], *out = NULL;
	int id;

	snprintf(cmd, sizeof(cmd), "sbatch --parsable %s -o /dev/null --wrap \"sleep 600\"",
		 args);
	ck_assert_msg(as_user(&out, cmd) == 0, "sbatch %s: %s", args, out ? out : "");
	id = atoi(out);
	free(out);
	ck_assert_int_gt(id, 0);
	return id;
}

/* Lines "    Key=Value" of the quickstart's section 3 block, comments cut. */
static char *quickstart_conf_lines(void)
{
	char *out = NULL;

	ck_assert_int_eq(run(&out, "sed -n '/^## 3\\./,/^## 4\\./p' '%s/doc/quickstart-admin.md' | "
			     "grep -E '^    [A-Za-z]+=' | sed -e 's/ *#.*//' -e 's/^ *//'",
			     e2e_srcdir), 0);
	ck_assert_msg(out && strstr(out, "SelectType=select/hived"),
		      "no slurm.conf lines in the quickstart's section 3");
	return out;
}

START_TEST(test_up)
{
	e2e_cluster_up(NODES, GPUS, "--fresh --priority hived");
	e2e_log_from_start();
	ck_assert(e2e_log_has("select/hived: loaded"));
}
END_TEST

/*
 * README, the quickstart and slurm_conf_examples/ give the same slurm.conf
 * settings, and the test cluster runs with them.
 */
START_TEST(test_same_settings)
{
	char *lines = quickstart_conf_lines(), *save = NULL;
	const char *files[] = { "%s/slurm_conf_examples/slurm.conf.hived", "%s/README.md" };

	for (char *l = strtok_r(lines, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char path[2400];

		ck_assert_msg(run(NULL, "grep -qx '%s' '%s'", l, e2e_conf) == 0,
			      "the test cluster's slurm.conf lacks the quickstart's %s", l);
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			snprintf(path, sizeof(path), files[i], e2e_srcdir);
			ck_assert_msg(run(NULL, "sed -e 's/ *#.*//' -e 's/^ *//' '%s' | grep -qx '%s'",
					  path, l) == 0,
				      "%s lacks the quickstart's %s", path, l);
		}
	}
	free(lines);
	/* Every man page carries the same footer (date and source). */
	ck_assert_int_eq(run(&lines, "for f in '%s'/doc/man/*.[158]; do "
			     "sed -n 's/^\\.TH [^ ]* [0-9] \\(\"[^\"]*\" \"[^\"]*\"\\).*/\\1/p' \"$f\"; "
			     "done | sort -u", e2e_srcdir), 0);
	ck_assert_msg(lines && strchr(lines, '\n') == lines + strlen(lines) - 1,
		      "man pages disagree on their footer: %s", lines ? lines : "");
	free(lines);
}
END_TEST

/*
 * The quickstart's hived.conf and sacctmgr commands, as written; then the user
 * guide's jobs.
 */
START_TEST(test_quickstart)
{
	char *cmds = NULL, *out = NULL, *save = NULL;
	int scav, small[8], opp[3], own, i;

	/* The accounting database outlives the cluster: no accounts of a previous run. */
	run(NULL, "sacctmgr -i delete account where name=qs1,qs2,qs3,qs4 >/dev/null 2>&1");
	/* The quickstart's hived.conf. */
	ck_assert_int_eq(run(NULL, "sed -n '/^```json/,/^```/p' '%s/doc/quickstart-admin.md' | "
			     "grep -v '^```' | " RENAME " > '%s/etc/hived.conf'",
			     e2e_srcdir, e2e_clusterdir), 0);
	ck_assert_int_eq(run(NULL, "scontrol reconfigure"), 0);
	for (i = 0; i < 60 && !e2e_log_has("select/hived: loaded"); i++)
		sleep(1);
	ck_assert_msg(e2e_log_has("hived.conf: 4 nodes, 2 VCs"),
		      "the quickstart's hived.conf was not loaded");

	/* What the quickstart does to the QOS, not what the cluster script did. */
	ck_assert_int_eq(run(NULL, "sacctmgr -i modify qos where name=normal,high,scavenger "
			     "set GrpTRES=gres/gpu=-1"), 0);
	ck_assert_int_eq(run(&cmds, "sed -n '/^## 3\\./,/^## 4\\./p' '%s/doc/quickstart-admin.md' | "
			     "grep '^    sacctmgr ' | sed 's/^ *sacctmgr /sacctmgr -i /' | " RENAME,
			     e2e_srcdir), 0);
	ck_assert_msg(cmds && strstr(cmds, "sacctmgr -i add account qs1,qs2,qs3"),
		      "no sacctmgr commands in the quickstart: %s", cmds ? cmds : "");
	for (char *c = strtok_r(cmds, "\n", &save); c; c = strtok_r(NULL, "\n", &save)) {
		int rc = run(&out, "%s", c);

		/* The cluster script made QOS scavenger and high already. */
		ck_assert_msg(rc == 0 || (out && strstr(out, "Nothing new added")),
			      "%s: %s", c, out ? out : "");
		free(out);
		out = NULL;
	}
	free(cmds);

	/* The user guide's opportunistic job: QOS scavenger is granted. */
	ck_assert_msg(as_user(&out, "sbatch --parsable -A qs1 --qos=scavenger --gres=gpu:4 "
			      "-o /dev/null --wrap \"sleep 600\"") == 0,
		      "--qos=scavenger refused after the quickstart: %s", out ? out : "");
	scav = atoi(out);
	free(out);
	out = NULL;
	ck_assert_msg(wait_job(scav, "JobState=RUNNING", 60), "the scavenger job did not start");
	cancel_all();
	/* Limits are compared at a job_test (at most every 5 s): the job above was one. */
	for (i = 0; i < 30 && !e2e_log_has("sacctmgr GPU limits changed (qs2=8;): applying"); i++) {
		as_user(NULL, "sbatch -A qs1 --gres=gpu:1 -o /dev/null --wrap true >/dev/null 2>&1");
		sleep(2);
	}
	ck_assert_msg(e2e_log_has("sacctmgr GPU limits changed (qs2=8;): applying"),
		      "qs2's GrpTRES=gres/gpu=8 did not become its VC");
	cancel_all();

	/* Jobs without --mem share a node (CR_Core_Memory with DefMemPerCPU). */
	for (i = 0; i < 8; i++)
		small[i] = user_submit("-A qs1 --gres=gpu:1");
	for (i = 0; i < 8; i++)
		ck_assert_msg(wait_job(small[i], "JobState=RUNNING", 60),
			      "1-GPU job %d without --mem did not start on idle GPUs", small[i]);
	cancel_all();

	/*
	 * Opportunistic beyond the quota: qs2's GrpTRES is 8 GPUs, its
	 * scavenger jobs take 24 idle ones; its guaranteed job still starts.
	 */
	for (i = 0; i < 3; i++)
		opp[i] = user_submit("-A qs2 --qos=scavenger -N1 --gres=gpu:8");
	for (i = 0; i < 3; i++) {
		char *l;

		if (wait_job(opp[i], "JobState=RUNNING", 60))
			continue;
		l = job_line(opp[i]);
		ck_abort_msg("opportunistic job %d of qs2 (GrpTRES 8 GPUs) waits on idle GPUs: %s",
			     opp[i], l ? l : "");
	}
	own = user_submit("-A qs2 -N1 --gres=gpu:8");
	ck_assert_msg(wait_job(own, "JobState=RUNNING", 90),
		      "qs2's guaranteed job waits behind its own opportunistic jobs: %s",
		      job_line(own));
	cancel_all();

	/* It is the QOS limit that lets them through: without it Slurm holds them. */
	ck_assert_int_eq(run(NULL, "sacctmgr -i modify qos scavenger set GrpTRES=gres/gpu=-1"), 0);
	opp[0] = user_submit("-A qs2 --qos=scavenger -N1 --gres=gpu:8");
	ck_assert(wait_job(opp[0], "JobState=RUNNING", 60));
	opp[1] = user_submit("-A qs2 --qos=scavenger -N1 --gres=gpu:8");
	ck_assert_msg(wait_job(opp[1], "Reason=AssocGrpGRES", 60),
		      "without the QOS limit the account's GrpTRES did not hold job %d: %s",
		      opp[1], job_line(opp[1]));
	cancel_all();
	ck_assert_int_eq(run(NULL, "sacctmgr -i modify qos scavenger set GrpTRES=gres/gpu=32"), 0);
}
END_TEST

/*
 * A preemption names its victims in the log, and a victim's SystemComment says
 * who took its cells instead of the placement it no longer has.
 */
START_TEST(test_preemption_named)
{
	int opp[NODES], own, victim = 0, i;
	char text[128];

	for (i = 0; i < NODES; i++)
		opp[i] = user_submit("-A qs1 --qos=scavenger -N1 --gres=gpu:8");
	for (i = 0; i < NODES; i++)
		ck_assert_msg(wait_job(opp[i], "JobState=RUNNING", 60),
			      "opportunistic job %d did not start", opp[i]);
	own = user_submit("-A qs2 -N1 --gres=gpu:8");
	ck_assert_msg(wait_job(own, "JobState=RUNNING", 120), "qs2's job did not preempt");
	for (i = 0; i < NODES && !victim; i++)
		if (!job_has(opp[i], "JobState=RUNNING"))
			victim = opp[i];
	ck_assert_msg(victim, "no opportunistic job was preempted");
	snprintf(text, sizeof(text), "preempts 1 job(s) for its cells: JobId=%d", victim);
	ck_assert_msg(e2e_log_has(text), "the preemption log line does not name job %d", victim);
	ck_assert(wait_job(victim, "JobState=PENDING", 60));
	snprintf(text, sizeof(text), "SystemComment=hived: preempted by job %d (VC qs2", own);
	ck_assert_msg(job_has(victim, text), "requeued job %d: %s", victim, job_line(victim));
	/* Requeued by hand: the comment no longer claims its GPUs. */
	ck_assert_int_eq(run(NULL, "scontrol requeue %d", own), 0);
	ck_assert(wait_job(own, "JobState=PENDING", 60));
	ck_assert_msg(job_has(own, "SystemComment=hived: requeued (was: given "),
		      "requeued job %d: %s", own, job_line(own));
	cancel_all();
}
END_TEST

/* `hivedctl --json whatif ARGS` once the status holds job `id` (0: none); its output. */
static char *whatif(int id, const char *args)
{
	char *out = NULL;

	/* The status is rewritten within a second of a change: wait for it. */
	for (int i = 0; id && i < 60; i++) {
		if (run(NULL, "'%s/hivedctl' job %d", e2e_builddir, id) == 0)
			break;
		sleep(1);
	}
	ck_assert_msg(run(&out, "'%s/hivedctl' --json whatif %s 2>&1", e2e_builddir, args) == 0,
		      "hivedctl whatif %s: %s", args, out ? out : "");
	return out;
}

/*
 * hivedctl whatif agrees with slurmctld: a shape that fits starts, and for one
 * that does not, the pending job's SystemComment gives the reason whatif gave
 * for the same shape before it was submitted.
 */
START_TEST(test_whatif)
{
	int held[2], late, i;
	char *out, *reason, *end, want[512];

	/* The state file (the config whatif reads) is saved at a reconfigure. */
	ck_assert_int_eq(run(NULL, "scontrol reconfigure"), 0);
	out = whatif(0, "-A qs1 --gres=gpu:8");
	ck_assert_msg(strstr(out, "\"startsNow\":true") && strstr(out, "\"cause\":\"none\""),
		      "an idle qs1 node does not start a job: %s", out);
	free(out);
	for (i = 0; i < 2; i++) {
		/* A time limit gives the job an end time (MaxTime is INFINITE). */
		held[i] = user_submit("-A qs1 -N1 --gres=gpu:8 -t 30");
		ck_assert(wait_job(held[i], "JobState=RUNNING", 60));
	}
	/* qs1's two node cells are in use: a third node waits for its quota. */
	out = whatif(held[1], "-A qs1 --gres=gpu:8");
	ck_assert_msg(strstr(out, "\"startsNow\":false") &&
		      strstr(out, "\"cause\":\"vcQuotaInUse\""),
		      "whatif with qs1's quota in use: %s", out);
	/* Their time limits give them end times: the estimate is the first one. */
	ck_assert_msg(strstr(out, "\"estimate\":{\"start\":1"),
		      "no start estimate from the running jobs' end times: %s", out);
	reason = strstr(out, "\"reason\":\"");
	ck_assert(reason);
	reason += strlen("\"reason\":\"");
	end = strchr(reason, '"');
	ck_assert(end);
	*end = '\0';
	snprintf(want, sizeof(want), "SystemComment=hived: %s", reason);
	late = user_submit("-A qs1 -N1 --gres=gpu:8");
	ck_assert_msg(wait_job(late, want, 60), "job %d waits for another reason than whatif's "
		      "\"%s\": %s", late, reason, job_line(late));
	free(out);
	cancel_all();
}
END_TEST

/* Wait up to `seconds` until `hivedctl status` shows text, or does not. */
static bool status_shows(const char *text, bool want, int seconds)
{
	for (int i = 0; i < seconds; i++) {
		char *out = NULL;
		bool has;

		run(&out, "'%s/hivedctl' status", e2e_builddir);
		has = out && strstr(out, text);
		free(out);
		if (has == want)
			return true;
		sleep(1);
	}
	return false;
}

/*
 * Refusals say what to do: a bad --hived-within names the file it checked; a
 * job its VC can never hold is refused and hivedctl job says why; a sacctmgr
 * limit that gets no cells logs why; a refused reload shows in hivedctl status
 * until a good one.
 */
START_TEST(test_refusals)
{
	char *out = NULL, conf[2400];
	int id;

	ck_assert_int_ne(as_user(&out, "sbatch -A qs1 --gres=gpu:1 --hived-within=NOPE --wrap true"), 0);
	ck_assert_msg(out && strstr(out, "--hived-within=NOPE: unknown cell type") &&
		      !strstr(out, "(null)") && strstr(out, "cell types (/"),
		      "--hived-within=NOPE: %s", out ? out : "");
	free(out);
	out = NULL;

	/* A GPU job Slurm holds before HiveD is asked: hivedctl says why it waits. */
	id = user_submit("-A qs1 --gres=gpu:1 --begin=now+3600");
	ck_assert(wait_job(id, "Reason=BeginTime", 60));
	ck_assert_msg(run(&out, "'%s/hivedctl' job %d", e2e_builddir, id) == 0 &&
		      strstr(out, "pending in Slurm (reason BeginTime)"),
		      "hivedctl job %d (pending, BeginTime): %s", id, out ? out : "");
	free(out);
	out = NULL;
	cancel_all();

	/* Two nodes inside one node cell: no quota can make that fit. */
	ck_assert_int_ne(as_user(&out, "sbatch -A qs1 -N2 --gres=gpu:8 --hived-within=A100-NODE "
				 "-o /dev/null --wrap true"), 0);
	ck_assert_msg(out && strstr(out, "Requested node configuration is not available"),
		      "sbatch: %s", out ? out : "");
	free(out);
	out = NULL;
	ck_assert_int_eq(run(&out, "sed -n 's|.*select/hived: JobId=\\([0-9]*\\) refused: .*|\\1|p' "
			     "'%s/log/slurmctld.log' | tail -1", e2e_clusterdir), 0);
	id = out ? atoi(out) : 0;
	free(out);
	out = NULL;
	ck_assert_msg(id > 0, "no \"refused\" line with the job id in slurmctld.log");
	ck_assert_msg(status_shows("", true, 60), "no status");
	for (int i = 0; i < 30; i++) {
		free(out);
		out = NULL;
		if (run(&out, "'%s/hivedctl' job %d", e2e_builddir, id) == 0)
			break;
		sleep(1);
	}
	ck_assert_msg(out && strstr(out, "refused by HiveD (VC qs1)") && strstr(out, "Why: "),
		      "hivedctl job %d: %s", id, out ? out : "");
	free(out);
	out = NULL;

	/* All 32 GPUs are promised: a new account's limit gets no cells. */
	e2e_mark_log();
	ck_assert_int_eq(run(NULL, "sacctmgr -i add account qs4 cluster=hived >/dev/null 2>&1; "
			     "sacctmgr -i modify account qs4 set GrpTRES=gres/gpu=8"), 0);
	for (int i = 0; i < 60 && !e2e_log_has("cannot be given cells"); i++) {
		sleep(1);
		as_user(NULL, "sbatch -A qs1 --gres=gpu:1 -o /dev/null --wrap true >/dev/null 2>&1");
	}
	ck_assert_msg(e2e_log_has("quota refused: ") && e2e_log_has("not yet promised"),
		      "the refused GrpTRES of qs4 was logged without its reason");
	ck_assert_msg(status_shows("Last reload REFUSED", true, 60),
		      "hivedctl status does not show the refused sacctmgr limit");
	/*
	 * Refused at a load too, where the other limits apply; a later change
	 * that applies logs the new cells with that refusal among them, once.
	 * Before, the refusal was logged twice (an error, then the summary).
	 */
	ck_assert_int_eq(run(NULL, "scontrol reconfigure"), 0);
	ck_assert_msg(status_shows("Last reload REFUSED", false, 60),
		      "a load that leaves one limit without cells shows as refused");
	e2e_mark_log();
	ck_assert_int_eq(run(NULL, "sacctmgr -i modify account qs2 set GrpTRES=gres/gpu=4"), 0);
	for (int i = 0; i < 60 && !e2e_log_has("select/hived: loaded"); i++) {
		sleep(1);
		as_user(NULL, "sbatch -A qs1 --gres=gpu:1 -o /dev/null --wrap true >/dev/null 2>&1");
	}
	ck_assert_msg(e2e_log_has("): applying") && e2e_log_has("select/hived: loaded"),
		      "qs2's GrpTRES=gres/gpu=4 was not applied beside qs4's refused one");
	ck_assert_int_eq(e2e_log_count("quota refused: account 'qs4'"), 1);
	run(NULL, "sacctmgr -i modify account qs2 set GrpTRES=gres/gpu=8");
	run(NULL, "sacctmgr -i modify account qs4 set GrpTRES=gres/gpu=-1");
	/* Limits are compared at a job_test: the refusal goes with the limit. */
	for (int i = 0; i < 30 && !status_shows("Last reload REFUSED", false, 2); i++)
		as_user(NULL, "sbatch -A qs1 --gres=gpu:1 -o /dev/null --wrap true >/dev/null 2>&1");
	ck_assert_msg(status_shows("Last reload REFUSED", false, 60),
		      "hivedctl status still shows the refusal after the limit was removed");
	cancel_all();

	/* A broken hived.conf: scontrol reconfigure cannot say; hivedctl can. */
	snprintf(conf, sizeof(conf), "%s/etc/hived.conf", e2e_clusterdir);
	ck_assert_int_eq(run(NULL, "cp '%s' '%s.good' && echo '{\"virtualClusters\": [' > '%s'",
			     conf, conf, conf), 0);
	ck_assert_int_eq(run(NULL, "scontrol reconfigure"), 0);
	ck_assert_msg(status_shows("Last reload REFUSED", true, 60),
		      "hivedctl status does not show the refused reload");
	ck_assert_int_eq(run(&out, "'%s/hivedctl' status", e2e_builddir), 0);
	ck_assert_msg(strstr(out, "hived.conf"), "the refusal does not name the file: %s", out);
	free(out);
	out = NULL;
	ck_assert_int_eq(run(NULL, "mv '%s.good' '%s' && scontrol reconfigure", conf, conf), 0);
	ck_assert_msg(status_shows("Last reload REFUSED", false, 60),
		      "hivedctl status still shows a refusal after a good reload");
}
END_TEST

/*
 * The offline check: the running cluster's files pass with a one-line summary;
 * a misspelt section and a broken file fail with the reason.
 */
START_TEST(test_offline_check)
{
	char *out = NULL;

	ck_assert_msg(run(&out, "'%s/hived-topo' --check --sacctmgr", e2e_builddir) == 0,
		      "hived-topo --check refuses the files slurmctld runs with: %s", out ? out : "");
	ck_assert_msg(strstr(out, "hived-topo: OK: ") && strstr(out, "4 nodes, 3 VCs"),
		      "no one-line summary: %s", out);
	free(out);
	out = NULL;
	ck_assert_int_eq(run(NULL, "sed 's/virtualClusters/virtualCluster/' '%s/etc/hived.conf' "
			     "> '%s/etc/hived.conf.typo'", e2e_clusterdir, e2e_clusterdir), 0);
	ck_assert_msg(run(&out, "'%s/hived-topo' --check --hived-conf '%s/etc/hived.conf.typo'",
			  e2e_builddir, e2e_clusterdir) != 0,
		      "a misspelt section passes the check: %s", out ? out : "");
	ck_assert_msg(strstr(out, "virtualCluster"), "the typo is not named: %s", out);
	free(out);
	out = NULL;
	/* Only settings: cells derived from Slurm's files, VCs from sacctmgr (qs2). */
	ck_assert_int_eq(run(NULL, "echo '{\"slurm\": {\"opportunisticQos\": [\"scavenger\"]}}' "
			     "> '%s/etc/hived.conf.derived'", e2e_clusterdir), 0);
	ck_assert_msg(run(&out, "'%s/hived-topo' --check --sacctmgr --hived-conf '%s/etc/hived.conf.derived'",
			  e2e_builddir, e2e_clusterdir) == 0 && strstr(out, "4 nodes, 1 VCs"),
		      "a hived.conf of settings only: %s", out ? out : "");
	free(out);
	out = NULL;
	ck_assert_int_eq(run(NULL, "echo '{\"virtualClusters\": [' > '%s/etc/hived.conf.bad'",
			     e2e_clusterdir), 0);
	ck_assert_int_ne(run(&out, "'%s/hived-topo' --check --hived-conf '%s/etc/hived.conf.bad'",
			     e2e_builddir, e2e_clusterdir), 0);
	free(out);
}
END_TEST

int main(void)
{
	TCase *tc;
	int rc = e2e_init("admin");

	if (rc)
		return rc;
	tc = tcase_create("admin");
	tcase_set_timeout(tc, 900);
	tcase_add_checked_fixture(tc, clean_queue, NULL);
	tcase_add_test(tc, test_up);
	tcase_add_test(tc, test_same_settings);
	tcase_add_test(tc, test_quickstart);
	tcase_add_test(tc, test_preemption_named);
	tcase_add_test(tc, test_whatif);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_offline_check);
	return e2e_run("admin", tc, NULL);
}
