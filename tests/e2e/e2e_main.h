/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2e_main.h - what every end-to-end test does around its tests: run as root
 * or skip, find the source and build trees, own one local cluster, stop it.
 */
#ifndef HIVED_E2E_MAIN_H
#define HIVED_E2E_MAIN_H

#include <check.h>
#include <stdbool.h>

/* Set by e2e_init(). */
extern char e2e_srcdir[2048], e2e_builddir[2048], e2e_clusterdir[2200], e2e_conf[2400];

/*
 * Root, or a message and 77 (automake's "skipped"); the trees from
 * HIVED_SRCDIR / HIVED_BUILDDIR (else the build's own); the cluster in
 * <builddir>/tests/e2e/cluster-<name> with SLURM_CONF pointing at it.
 * Returns 0 to go on, else the exit status.
 */
int e2e_init(const char *name);

/*
 * Runs tc's tests in order in this process (they share the cluster), then a
 * last test, test_down, that calls before_down (may be NULL: cancel_all, a
 * summary) and stops the cluster, failing if it does not stop; the cluster is
 * stopped whatever failed. Returns the exit status.
 */
int e2e_run(const char *name, TCase *tc, void (*before_down)(void));

/*
 * Start the test's cluster: hived-cluster up with nodes x gpus fake GPUs, 2
 * sockets, 2 racks, select/hived from this build, and the extra options; a
 * Check failure (with its output) if that fails.
 */
void e2e_cluster_up(int nodes, int gpus, const char *options);

/* Stop the cluster; a Check failure if that fails or slurmctld still answers. */
void e2e_cluster_down(void);

/* slurmctld.log: remember its size; then whether it logged text since (no quotes). */
void e2e_mark_log(void);
void e2e_log_from_start(void);
bool e2e_log_has(const char *text);
/* How many lines of slurmctld.log since e2e_mark_log() hold text. */
int e2e_log_count(const char *text);
/* e2e_log_has(text), polled for up to `seconds` (a generous deadline, not a pause). */
bool e2e_wait_log(const char *text, int seconds);

/* slurmctld's pid (0 if none); kill -9 it; start it the way hived-cluster does. */
int e2e_ctld_pid(void);
void e2e_ctld_kill9(void);
/* scontrol shutdown slurmctld, and wait for the process (not its pid file) to end. */
void e2e_ctld_shutdown(void);
void e2e_ctld_start(void);

/*
 * Waits until slurmctld has rewritten StateSaveLocation/job_state after this
 * call (compared at the file system's full timestamp precision), so that a
 * kill -9 cannot lose what the jobs were doing when it was called. With
 * job > 0 it first updates that job's Comment, which makes a write due even
 * if the last one came just before. Returns whether the write came within
 * 2 minutes.
 */
bool e2e_wait_jobs_saved(int job);

#endif
