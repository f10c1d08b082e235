/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2e_main.c - see e2e_main.h.
 */
#define _GNU_SOURCE
#include "e2e_main.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run.h"
#include "../check_run.h"

char e2e_srcdir[2048], e2e_builddir[2048], e2e_clusterdir[2200], e2e_conf[2400];
static long log_mark;

int e2e_init(const char *name)
{
	const char *s = getenv("HIVED_SRCDIR"), *b = getenv("HIVED_BUILDDIR");

	if (geteuid() != 0) {
		fprintf(stderr, "test_%s: needs root for a local Slurm cluster; skipped\n", name);
		return 77;
	}
	snprintf(e2e_srcdir, sizeof(e2e_srcdir), "%s", s ? s : HIVED_SRCDIR_DEFAULT);
	snprintf(e2e_builddir, sizeof(e2e_builddir), "%s", b ? b : HIVED_BUILDDIR_DEFAULT);
	snprintf(e2e_clusterdir, sizeof(e2e_clusterdir), "%s/tests/e2e/cluster-%s",
		 e2e_builddir, name);
	snprintf(e2e_conf, sizeof(e2e_conf), "%s/etc/slurm.conf", e2e_clusterdir);
	setenv("SLURM_CONF", e2e_conf, 1);
	return 0;
}

static void (*down_hook)(void);

START_TEST(test_down)
{
	if (down_hook)
		down_hook();
	e2e_cluster_down();
}
END_TEST

int e2e_run(const char *name, TCase *tc, void (*before_down)(void))
{
	Suite *suite = suite_create(name);
	int rc;

	down_hook = before_down;
	tcase_add_test(tc, test_down);
	suite_add_tcase(suite, tc);
	/* One cluster for all: the tests build on each other's state. */
	rc = check_run(suite, CK_NORMAL, CK_NOFORK);
	/* Never leave daemons behind, whatever failed. */
	run(NULL, "'%s/scripts/hived-cluster' down --dir '%s' -q >/dev/null 2>&1",
	    e2e_srcdir, e2e_clusterdir);
	return rc;
}

void e2e_mark_log(void)
{
	char *out = NULL;

	log_mark = 0;
	if (run(&out, "stat -c %%s '%s/log/slurmctld.log' 2>/dev/null", e2e_clusterdir) == 0 && out)
		log_mark = atol(out);
	free(out);
}

void e2e_log_from_start(void)
{
	log_mark = 0;
}

/*
 * grep's 1 is "not there"; anything else (a text the shell could not parse
 * made every "not in the log" check pass) fails the test.
 */
bool e2e_log_has(const char *text)
{
	char *q = shell_quote(text);
	int rc;

	ck_assert(q);
	rc = run(NULL, "tail -c +%ld '%s/log/slurmctld.log' | grep -qF -- %s",
		 log_mark + 1, e2e_clusterdir, q);
	free(q);
	ck_assert_msg((rc == 0) || (rc == 1), "grep for \"%s\" in slurmctld.log: exit %d",
		      text, rc);
	return rc == 0;
}

int e2e_log_count(const char *text)
{
	char *q = shell_quote(text), *out = NULL;
	int rc, n;

	ck_assert(q);
	/* grep -c prints 0 and exits 1 when no line holds it. */
	rc = run(&out, "tail -c +%ld '%s/log/slurmctld.log' | grep -cF -- %s",
		 log_mark + 1, e2e_clusterdir, q);
	free(q);
	ck_assert_msg(((rc == 0) || (rc == 1)) && out,
		      "grep -c for \"%s\" in slurmctld.log: exit %d", text, rc);
	n = atoi(out);
	free(out);
	return n;
}

bool e2e_wait_log(const char *text, int seconds)
{
	for (int i = 0; i < 4 * seconds; i++) {
		if (e2e_log_has(text))
			return true;
		usleep(250 * 1000);
	}
	return false;
}

int e2e_ctld_pid(void)
{
	char path[2600], *pid;
	int p;

	snprintf(path, sizeof(path), "%s/run/slurmctld.pid", e2e_clusterdir);
	pid = read_file(path);
	p = pid ? atoi(pid) : 0;
	free(pid);
	return p;
}

void e2e_ctld_kill9(void)
{
	int pid = e2e_ctld_pid();

	ck_assert_msg(pid > 0, "no slurmctld pid file");
	ck_assert_int_eq(run(NULL, "kill -9 %d", pid), 0);
	for (int i = 0; i < 120 && pid_alive(pid); i++)
		usleep(250 * 1000);
	ck_assert_msg(!pid_alive(pid), "slurmctld %d survived kill -9", pid);
}

void e2e_ctld_shutdown(void)
{
	int pid = e2e_ctld_pid();

	ck_assert_msg(pid > 0, "no slurmctld pid file");
	ck_assert_int_eq(run(NULL, "scontrol shutdown slurmctld"), 0);
	/* Two controllers at once would both schedule: wait for the process. */
	for (int i = 0; i < 240 && pid_alive(pid); i++)
		usleep(500 * 1000);
	ck_assert_msg(!pid_alive(pid), "slurmctld %d did not shut down", pid);
}

/*
 * From 25.05 a slurmctld killed before it first saved its association usage
 * refuses to start ("No Assoc usage file") unless told to ignore state errors,
 * as an admin does after such a crash.
 */
static const char *_ctld_restart_flags(void)
{
	char *out = NULL;
	int major = 0;

	if (run(&out, "slurmctld -V") == 0 && out)
		(void) sscanf(out, "slurm %d", &major);
	free(out);
	return (major >= 25) ? "-i" : "";
}

void e2e_ctld_start(void)
{
	/* Marked the way hived-cluster marks its daemons, so "down" stops it. */
	ck_assert_int_eq(run(NULL, "env HIVED_CLUSTER_DIR='%s' setsid slurmctld %s -f '%s' "
			     "</dev/null >>'%s/log/slurmctld.out' 2>&1 &",
			     e2e_clusterdir, _ctld_restart_flags(), e2e_conf,
			     e2e_clusterdir), 0);
	/* A loaded machine and a big state to recover: minutes, not seconds. */
	for (int i = 0; i < 360; i++) {
		if (run(NULL, "scontrol ping | grep -q 'is UP'") == 0)
			return;
		usleep(500 * 1000);
	}
	ck_abort_msg("slurmctld did not come back");
}

bool e2e_wait_jobs_saved(int job)
{
	if (run(NULL, "touch '%s/.jobs-saved-ref'", e2e_clusterdir) != 0)
		return false;
	if (job > 0 &&
	    run(NULL, "scontrol update jobid=%d Comment=hived-e2e-saved", job) != 0)
		return false;
	for (int i = 0; i < 240; i++) {
		if (run(NULL, "find '%s/state/job_state' -newer '%s/.jobs-saved-ref' | grep -q .",
			e2e_clusterdir, e2e_clusterdir) == 0)
			return true;
		usleep(500 * 1000);
	}
	return false;
}

void e2e_cluster_up(int nodes, int gpus, const char *options)
{
	char *out = NULL;
	int rc = run(&out, "'%s/scripts/hived-cluster' up --dir '%s' -q "
		     "--nodes %d --gpus %d --sockets 2 --racks 2 --select hived "
		     "--plugin-dir '%s/src/slurm/.libs' %s",
		     e2e_srcdir, e2e_clusterdir, nodes, gpus, e2e_builddir, options);

	if (rc != 0) {
		char *logs = NULL;

		/* The teardown removes the cluster directory: keep its logs' ends. */
		(void) run(&logs, "for f in '%s'/log/*.log; do case $f in "
			   "*/slurmd-*) continue ;; esac; [ -f \"$f\" ] && "
			   "{ echo \"== $f\"; tail -n 15 \"$f\"; }; done; true",
			   e2e_clusterdir);
		ck_assert_msg(0, "hived-cluster up failed (%d):\n%s\n%s", rc, out,
			      logs ? logs : "");
	}
	free(out);
}

void e2e_cluster_down(void)
{
	char *out = NULL;

	ck_assert_msg(run(&out, "'%s/scripts/hived-cluster' down --dir '%s' -q",
			  e2e_srcdir, e2e_clusterdir) == 0, "down failed: %s", out);
	free(out);
	ck_assert(run(NULL, "scontrol ping >/dev/null 2>&1") != 0);
}
