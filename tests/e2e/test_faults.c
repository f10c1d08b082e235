/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_faults.c - select/hived under load and faults on a real local cluster
 * (issue 9): floods of array and single jobs across VCs and classes, kill -9
 * of slurmctld at random moments, a slurmd killed and brought back, a corrupt
 * and a truncated state file, a hived.conf that no longer fits running jobs.
 *
 * Long-running "anchor" jobs (one per VC) span every fault: after each, they
 * must still run on the same GPUs, Slurm's GPUs and the plugin's
 * (hived_status.json) must agree, no GPU may be held by two jobs (sampled
 * every 2 s throughout), and checkInvariants must never have logged a
 * violation. Every flood job must run to its end (it leaves a marker file).
 *
 * After each kill -9 the test takes an admin's steps against Slurm's own
 * fallout (drained nodes, held jobs, jobs recovered as running that are not,
 * launches refused for a reused job id's revoked credential; see
 * resume_duplicate_drains(), phantoms_requeued() and requeue_unstartable()).
 *
 * HIVED_LOAD_JOBS (default 80) sets the flood size, HIVED_LOAD_KILLS
 * (default 2) the kill -9s, HIVED_LOAD_SEED the random kill moments;
 * "make check-load" runs it with thousands of jobs and ten kills.
 *
 * The verdict does not depend on the machine's speed: every wait polls a
 * condition with a deadline of minutes, and a flood may take as long
 * as it takes while jobs keep ending or starting; it fails only after
 * HIVED_LOAD_STALL_S (default 300) seconds without any job ending or leaving
 * the queue, or when the queue is empty but jobs ended without their marker,
 * and then says who holds each job (Slurm's reason, select/hived's
 * SystemComment, sacct's end state).
 * Runs in CK_NOFORK mode: the anchors carry from one step to the next.
 * Needs root (exit 77 otherwise).
 */
#define _GNU_SOURCE
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "e2e_main.h"
#include "run.h"
#include "slurm_jobs.h"

#define NODES 4
#define GPUS 8
#define ANCHORS 3

static int n_jobs = 80, n_kills = 2, stall_s = 300;
static unsigned seed, seed0;
static int anchor[ANCHORS];
static alloc_t anchor_alloc[ANCHORS];
/* Figures for the summary line. */
static int kills_done, samples, max_running, flood_total, violations, dup_drains, released,
	reregistrations, gpus_kept, restarted_by_slurm, unstartable_requeued;
static double max_squeue_s, max_sdiag_s;
static long engine_bytes[2], ctld_rss_kb[2];
static double flood_s;	/* monotonic time spent in drain() */

typedef struct {
	int job[NODES][GPUS];	/* 0 = free */
} owners_t;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* "node3" or "node[1-2,4]" -> node numbers (1-based). */
static int expand_nodes(const char *s, int *out, int max)
{
	const char *b = strchr(s, '[');
	int n = 0;

	if (strncmp(s, "node", 4))
		return 0;
	if (!b) {
		out[0] = atoi(s + 4);
		return 1;
	}
	for (const char *p = b + 1; *p && *p != ']' && n < max;) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (long i = lo; i <= hi && n < max; i++)
			out[n++] = (int) i;
		p = (*end == ',') ? end + 1 : end;
	}
	return n;
}

/*
 * Who holds each GPU according to Slurm (scontrol -d show job, all jobs).
 * A GPU held by two running jobs is a violation; returns running jobs.
 */
static int slurm_owners(owners_t *o, char *why, size_t len)
{
	char *out = NULL, *line, *save = NULL;
	int running = 0;

	memset(o, 0, sizeof(*o));
	why[0] = '\0';
	if (run(&out, "scontrol -d -o show job 2>/dev/null") != 0) {
		free(out);
		return -1;
	}
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int id;

		if (!strstr(line, "JobState=RUNNING") || sscanf(line, "JobId=%d", &id) != 1)
			continue;
		running++;
		for (char *p = strstr(line, " Nodes="); p; p = strstr(p + 1, " Nodes=")) {
			char nodes[256], list[256];
			char *gres = strstr(p, "(IDX:");
			int nn[NODES + 8], k, idx[GPUS * 2], cnt;

			if (!gres || sscanf(p, " Nodes=%255s", nodes) != 1 ||
			    sscanf(gres, "(IDX:%255[0-9,-])", list) != 1)
				continue;
			k = expand_nodes(nodes, nn, NODES + 8);
			cnt = parse_index_list(list, idx, GPUS * 2);
			for (int a = 0; a < k; a++)
				for (int g = 0; g < cnt; g++) {
					int n = nn[a] - 1;

					if (n < 0 || n >= NODES || idx[g] < 0 || idx[g] >= GPUS)
						continue;
					if (o->job[n][idx[g]] && o->job[n][idx[g]] != id && !why[0])
						snprintf(why, len, "node%d GPU %d held by jobs %d and %d",
							 n + 1, idx[g], o->job[n][idx[g]], id);
					o->job[n][idx[g]] = id;
				}
		}
	}
	free(out);
	return running;
}

static json_t *status_json(void)
{
	char path[2600];

	snprintf(path, sizeof(path), "%s/state/hived_status.json", e2e_clusterdir);
	return json_load_file(path, 0, NULL);
}

/* Who holds each GPU according to the plugin (hived_status.json). */
static bool plugin_owners(owners_t *o)
{
	json_t *root = status_json(), *jobs, *j;
	size_t i;

	memset(o, 0, sizeof(*o));
	if (!root)
		return false;
	jobs = json_object_get(root, "jobs");
	json_array_foreach(jobs, i, j) {
		int id = atoi(json_string_value(json_object_get(j, "job")) ?: "0");
		json_t *pl = json_object_get(j, "placement"), *pod, *leaf;
		size_t k, m;

		json_array_foreach(pl, k, pod) {
			const char *node = json_string_value(json_object_get(pod, "node"));
			int n = node ? atoi(node + 4) - 1 : -1;

			json_array_foreach(json_object_get(pod, "leaves"), m, leaf) {
				int g = (int) json_integer_value(leaf);

				if (n >= 0 && n < NODES && g >= 0 && g < GPUS)
					o->job[n][g] = id;
			}
		}
	}
	json_decref(root);
	return true;
}

static long status_engine_bytes(void)
{
	json_t *root = status_json();
	long b = -1;

	if (root) {
		b = (long) json_integer_value(json_object_get(json_object_get(root, "memory"),
							      "engineBytes"));
		json_decref(root);
	}
	return b;
}

static long rss_kb(int pid)
{
	char *out = NULL;
	long kb = -1;

	if (run(&out, "awk '/^VmRSS:/ {print $2}' /proc/%d/status", pid) == 0 && out)
		kb = atol(out);
	free(out);
	return kb;
}

/*
 * Slurm and the plugin agree GPU by GPU (call when nothing changes). The
 * status file trails a change (a second when idle, longer on a loaded
 * machine): poll for up to 2 minutes; a double booking fails at once.
 */
static void assert_views_agree(const char *when)
{
	owners_t s, p;
	char why[256], diff[256] = "";

	for (int i = 0; i < 240; i++) {
		usleep(500 * 1000);
		ck_assert_msg(slurm_owners(&s, why, sizeof(why)) >= 0, "%s: scontrol failed", when);
		ck_assert_msg(!why[0], "%s: %s", when, why);
		if (!plugin_owners(&p)) {
			snprintf(diff, sizeof(diff), "no hived_status.json");
			continue;
		}
		diff[0] = '\0';
		for (int n = 0; n < NODES && !diff[0]; n++)
			for (int g = 0; g < GPUS && !diff[0]; g++)
				if (s.job[n][g] != p.job[n][g])
					snprintf(diff, sizeof(diff),
						 "node%d GPU %d: Slurm says job %d, select/hived says job %d",
						 n + 1, g, s.job[n][g], p.job[n][g]);
		if (!diff[0])
			return;
	}
	ck_abort_msg("%s: after 2 minutes still %s", when, diff);
}

/* The anchors run, each on the GPUs it had at the start. */
static void assert_anchors_kept(const char *when)
{
	for (int i = 0; i < ANCHORS; i++) {
		alloc_t now;

		ck_assert_msg(wait_job(anchor[i], "JobState=RUNNING", 120),
			      "%s: anchor job %d no longer runs", when, anchor[i]);
		job_alloc(anchor[i], &now);
		ck_assert_msg(now.n == anchor_alloc[i].n &&
			      !strcmp(now.node[0], anchor_alloc[i].node[0]) &&
			      now.cnt[0] == anchor_alloc[i].cnt[0] &&
			      !memcmp(now.gpus[0], anchor_alloc[i].gpus[0],
				      sizeof(int) * now.cnt[0]),
			      "%s: anchor job %d moved (%s GPU %d.. -> %s GPU %d..)", when,
			      anchor[i], anchor_alloc[i].node[0], anchor_alloc[i].gpus[0][0],
			      now.node[0], now.gpus[0][0]);
	}
}

/*
 * Jobs select/hived placed in its cells (job_begin's log line), over the
 * whole log: a job Slurm started without HiveD's decision has none.
 */
static int placements_logged(void)
{
	char *out = NULL;
	int n = -1;

	if (run(&out, "grep -c 'select/hived: JobId=.* class=.* GPUs=' '%s/log/slurmctld.log'",
		e2e_clusterdir) == 0 && out)
		n = atoi(out);
	free(out);
	return n;
}

static void assert_no_violation_logged(void)
{
	char *out = NULL;

	run(&out, "grep -c 'invariant violated' '%s/log/slurmctld.log'", e2e_clusterdir);
	ck_assert_msg(out && atoi(out) == 0, "slurmctld logged %d invariant violation(s)",
		      out ? atoi(out) : -1);
	free(out);
}

static int queued(void)
{
	char *out = NULL;
	int n = -1;

	if (run(&out, "squeue -h -o %%i | wc -l") == 0 && out)
		n = atoi(out);
	free(out);
	return n;
}

static int markers(void)
{
	char *out = NULL;
	int n = -1;

	if (run(&out, "ls '%s/done' 2>/dev/null | wc -l", e2e_clusterdir) == 0 && out)
		n = atoi(out);
	free(out);
	return n;
}

static void timed(const char *cmd, double *max)
{
	double t = now_s();

	run(NULL, "%s >/dev/null", cmd);
	t = now_s() - t;
	if (t > *max)
		*max = t;
}

/*
 * jobs flood jobs at once, as arrays of up to 50: 1-GPU jobs of vc1 and vc3,
 * 2-GPU jobs of vc2, opportunistic 1-GPU jobs, and whole-node jobs of vc1.
 */
static void submit_flood(int jobs, bool longer)
{
	static const char *const kinds[] = {
		"-A vc1 --gres=gpu:1", "-A vc3 --gres=gpu:1", "-A vc2 --gres=gpu:2",
		"-A vc1 --qos=scavenger --gres=gpu:1", "-A vc3 --gres=gpu:1",
		"-A vc1 --gres=gpu:1", "-A vc2 --gres=gpu:1", "-A vc1 -N1 --gres=gpu:8",
	};
	int left = jobs, k = 0;
	char *out = NULL;

	while (left > 0) {
		const char *kind = kinds[k++ % (sizeof(kinds) / sizeof(kinds[0]))];
		int n = strstr(kind, "gpu:8") ? 2 : (left < 50 ? left : 50);

		if (n > left)
			n = left;
		ck_assert_msg(run(&out, "sbatch --parsable -J flood %s --array=0-%d -t 2 -o /dev/null "
				  "--wrap 'sleep %s; touch %s/done/${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}'",
				  kind, n - 1,
				  longer ? "$((SLURM_ARRAY_TASK_ID % 10 == 0 ? 20 : SLURM_ARRAY_TASK_ID % 4 + 1))" : "1",
				  e2e_clusterdir) == 0,
			      "sbatch %s failed: %s", kind, out);
		free(out);
		out = NULL;
		left -= n;
	}
	flood_total += jobs;
}

/*
 * For each "name|why" line of list whose why contains needle, run fix (a
 * format with one %s, the name); returns how many fixes succeeded.
 */
static int fix_each(const char *list, const char *needle, const char *fix)
{
	char *out = NULL, *line, *save = NULL;
	int n = 0;

	if (run(&out, "%s", list) != 0 || !out) {
		free(out);
		return 0;
	}
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *bar = strchr(line, '|');

		if (!bar || !strcasestr(bar, needle))
			continue;
		*bar = '\0';
		if (run(NULL, fix, line) == 0)
			n++;
	}
	free(out);
	return n;
}

/*
 * slurmctld hands out job ids again that it gave before a kill -9 but had not
 * saved; a slurmd still running such a job drains its node ("Duplicate jobid")
 * and Slurm requeues and holds the job. That is Slurm's own kill -9 fallout,
 * not select/hived's: resume the node and release the job as an admin would,
 * and count them.
 */
static void resume_duplicate_drains(void)
{
	dup_drains += fix_each("sinfo -h -R -o '%N|%E'", "Duplicate jobid",
			       "scontrol update nodename='%s' state=resume");
}

/*
 * slurmctld recovers from its last save a job as running that, before the
 * kill -9, had ended or been preempted: nothing runs it, and it would hold its
 * GPUs until its time limit and never be requeued. Slurm purges (and
 * requeues) such a job when the node registers at least BatchStartTimeout +
 * MessageTimeout after the recovery, but nodes register only at the restart
 * and then every 20 pings (about 400 s here). "scontrol reconfigure" makes
 * every slurmd register: an admin's step after a crash, counted as
 * "missing from batch node" lines.
 */
static int phantoms_requeued(void)
{
	char *out = NULL;
	int n = 0;

	if (run(&out, "grep -c 'missing from batch node' '%s/log/slurmctld.log'",
		e2e_clusterdir) == 0 && out)
		n = atoi(out);
	free(out);
	return n;
}

/*
 * Slurm kills a batch job whose launch a slurmd refused ("Killing non-startable
 * batch JobId=N: <error>"): the job ends FAILED 1:0 without running. After a
 * kill -9 the slurmd refuses for a credential reason: slurmctld reused the id
 * of a job it had forgotten, and the slurmd had revoked that id's credentials
 * when the old job ended (or a launch queued behind a restart outlived
 * the short credential lifetime). Select plugins have no part in credentials:
 * requeue such a job as an admin would, count it, and let it run to its end.
 * A launch refused for any other reason is left alone, and its missing
 * marker fails the test.
 */
static void requeue_unstartable(void)
{
	static int seen;
	char *out = NULL, *line, *save = NULL;

	if (run(&out, "grep -o 'Killing non-startable batch JobId=[0-9]*: .*' '%s/log/slurmctld.log' "
		"| tail -n +%d", e2e_clusterdir, seen + 1) != 0 || !out) {
		free(out);
		return;
	}
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int id = atoi(strchr(line, '=') + 1);

		seen++;
		if (strcasestr(line, "credential") && run(NULL, "scontrol requeue %d", id) == 0)
			unstartable_requeued++;
	}
	free(out);
}

static void release_held(void)
{
	released += fix_each("squeue -h -t PD -n flood -o '%i|%r'", "held",
			     "scontrol release '%s'");
}

/*
 * Polls sinfo's state of node<n> up to tries times, pause seconds apart,
 * until it contains a or b; returns the last state (free it).
 */
static char *wait_node_state(int n, const char *a, const char *b, int tries, int pause)
{
	char *out = NULL;

	for (int i = 0; i < tries; i++) {
		free(out);
		out = NULL;
		run(&out, "sinfo -h -n node%d -o %%t", n);
		if (out && (strstr(out, a) || strstr(out, b)))
			break;
		sleep(pause);
	}
	return out;
}

/* Whether Slurm (re)started job id at or after since ("YYYY-MM-DDTHH:MM:SS"). */
static bool started_since(int id, const char *since)
{
	char *out = NULL;
	bool yes;

	run(&out, "scontrol -o show job %d | grep -o 'StartTime=[^ ]*'", id);
	/* ISO times of one time zone compare as strings. */
	yes = out && strlen(out) > 10 && strncmp(out + 10, since, strlen(since)) >= 0;
	free(out);
	return yes;
}

/*
 * A job running both before and after a kill -9 must hold the same GPUs:
 * neither Slurm's recovery nor select/hived's may move it. The exception is
 * Slurm's: a job whose start it had not saved is pending again after the
 * restart and may start anew elsewhere (its StartTime is then after the
 * kill); counted in *restarted. Returns the GPUs kept by their job.
 */
static int assert_kept_across(const owners_t *before, const owners_t *after, const char *killed,
			      const char *when, int *restarted)
{
	int kept = 0, seen[NODES * GPUS], n_seen = 0;

	for (int n = 0; n < NODES; n++)
		for (int g = 0; g < GPUS; g++) {
			int j = before->job[n][g], k = after->job[n][g], moved = 0;
			bool j_after = false, k_before = false, dup = false;

			for (int m = 0; m < NODES; m++)
				for (int h = 0; h < GPUS; h++) {
					j_after |= j && after->job[m][h] == j;
					k_before |= k && before->job[m][h] == k;
				}
			if (j_after && k != j)
				moved = j;
			else if (k_before && j != k)
				moved = k;
			if (!moved) {
				kept += j && j == k;
				continue;
			}
			for (int i = 0; i < n_seen; i++)
				dup |= seen[i] == moved;
			if (dup)
				continue;
			seen[n_seen++] = moved;
			ck_assert_msg(started_since(moved, killed),
				      "%s: job %d holds other GPUs than before (node%d GPU %d: %d before, %d after)",
				      when, moved, n + 1, g, j, k);
			(*restarted)++;
		}
	return kept;
}

/* wait_node_state(), and fail with "node<n> <what>: <state>" if it never got there. */
static void expect_node_state(int n, const char *a, const char *b, int tries, int pause,
			      const char *what)
{
	char *out = wait_node_state(n, a, b, tries, pause);

	ck_assert_msg(out && (strstr(out, a) || strstr(out, b)), "node%d %s: %s", n, what, out);
	free(out);
}

/*
 * Who holds the flood jobs that have not ended: every queued one with Slurm's
 * state and reason and select/hived's SystemComment (a "hived: ..." comment is
 * the plugin's wait reason, anything else is Slurm's), and every flood job
 * sacct saw end other than COMPLETED (those leave no marker), and the last
 * launches a slurmd refused.
 */
static void flood_diagnosis(char *buf, size_t len)
{
	char *out = NULL;

	run(&out, "squeue -h -n flood -o '%%i %%T %%r' | head -n 20 | while read -r id st why; do "
	    "echo \"$id $st $why $(scontrol -o show job \"$id\" 2>/dev/null | "
	    "grep -o 'SystemComment=.*' | cut -c1-160)\"; done; "
	    "echo '-- ended other than COMPLETED (sacct):'; "
	    "sacct -n -X -P --name flood -S now-2hours -o JobID,State,ExitCode,Reason 2>/dev/null | "
	    "grep -v '|COMPLETED|' | head -n 20; "
	    "echo '-- launches slurmds refused (slurmctld.log):'; "
	    "grep -o 'Killing non-startable batch JobId=.*' '%s/log/slurmctld.log' | tail -n 10",
	    e2e_clusterdir);
	snprintf(buf, len, "%s", out ? out : "(no squeue/sacct output)");
	free(out);
}

/* Where the next kill -9 falls: a random point of its share of the flood. */
static int kill_point(int base, int jobs, int kills, int k)
{
	int share = jobs / (kills + 1);

	return base + (k + 1) * share - (int) (rand_r(&seed) % (share / 2 + 1));
}

/*
 * Wait for the flood (`jobs` jobs after `base` markers) to end, sampling GPU
 * owners twice a second; kill -9 slurmctld `kills` times at random points
 * spread over the flood, and check the anchors after each restart.
 */
static void drain(int kills, int base, int jobs)
{
	int expect_markers = base + jobs, k = 0;
	int next_kill = kills ? kill_point(base, jobs, kills, 0) : 0;
	double reregister_at = 0, progress_at = now_s(), empty_since = 0, t0 = now_s();
	double last_reregister = 0;
	int last_done = markers(), fewest_queued = queued();
	char why[256], when[64], diag[4096];

	e2e_wait_jobs_saved(0);	/* a kill -9 must not lose the submitted jobs */
	while (markers() < expect_markers || queued() > ANCHORS) {
		owners_t o;
		int r, done = markers(), q = queued();

		/* Progress: a job ended, or one more left the queue (it started). */
		if (done > last_done || (q >= 0 && q < fewest_queued)) {
			progress_at = now_s();
			last_done = done;
			fewest_queued = q;
		}
		if (now_s() - progress_at > stall_s || (empty_since && now_s() - empty_since > 60)) {
			flood_diagnosis(diag, sizeof(diag));
			ck_abort_msg("flood stuck: %d of %d jobs ended, %d queued (%d anchors), "
				     "%s for %.0f s; the flood jobs:\n%s",
				     done, expect_markers, q, ANCHORS,
				     empty_since ? "queue empty but markers missing" :
				     "no job ended or started", now_s() - (empty_since ?: progress_at),
				     diag);
		}
		/* Markers are written before a job leaves the queue: 60 s is plenty. */
		if (q >= 0 && q <= ANCHORS && done < expect_markers) {
			if (!empty_since)
				empty_since = now_s();
		} else {
			empty_since = 0;
		}
		timed("squeue -h", &max_squeue_s);
		timed("sdiag", &max_sdiag_s);
		resume_duplicate_drains();
		release_held();
		requeue_unstartable();
		/*
		 * After a restart, a job Slurm recovered as running but that no
		 * longer runs is purged only when its node registers late enough
		 * (see phantoms_requeued()). On a slow machine the first
		 * reconfigure may come too early: reconfigure again after each
		 * minute without progress, as an admin would.
		 */
		if (k > 0 && !reregister_at && now_s() - progress_at > 60 &&
		    now_s() - last_reregister > 60)
			reregister_at = now_s();
		if (reregister_at && now_s() >= reregister_at) {
			run(NULL, "scontrol reconfigure");
			reregister_at = 0;
			last_reregister = now_s();
			reregistrations++;
		}
		r = slurm_owners(&o, why, sizeof(why));
		samples++;
		if (why[0])
			violations++;
		ck_assert_msg(!why[0], "double booking: %s", why);
		if (r > max_running)
			max_running = r;
		if (k < kills && done >= next_kill) {
			owners_t after;

			char killed[32];
			time_t t;

			r = slurm_owners(&o, why, sizeof(why));
			t = time(NULL);
			strftime(killed, sizeof(killed), "%Y-%m-%dT%H:%M:%S", localtime(&t));
			e2e_ctld_kill9();
			e2e_ctld_start();
			snprintf(when, sizeof(when), "kill -9 #%d", kills_done + 1);
			slurm_owners(&after, why, sizeof(why));
			ck_assert_msg(!why[0], "%s: double booking: %s", when, why);
			gpus_kept += assert_kept_across(&o, &after, killed, when, &restarted_by_slurm);
			/* BatchStartTimeout (10) + MessageTimeout (10) and a margin. */
			reregister_at = now_s() + 25;
			k++;
			kills_done++;
			snprintf(when, sizeof(when), "after kill -9 #%d (%d of %d jobs ended)",
				 kills_done, done - base, jobs);
			assert_anchors_kept(when);
			if (k < kills)
				next_kill = kill_point(base, jobs, kills, k);
		}
		usleep(500 * 1000);
	}
	flood_s += now_s() - t0;
}

/* A job that outlives the whole test (submit() jobs end after 10 minutes). */
static int submit_anchor(const char *args)
{
	char *out = NULL;
	int id;

	ck_assert_msg(run(&out, "sbatch --parsable -J anchor %s -o /dev/null --wrap 'sleep 100000'",
			  args) == 0, "sbatch %s: %s", args, out);
	id = atoi(out);
	free(out);
	return id;
}

START_TEST(test_up)
{
	e2e_cluster_up(NODES, GPUS,
		       "--fresh --priority multifactor --sched-params bf_interval=5 --cred-expire 10");
	/* The accounting database outlives the cluster: no GrpTRES left over. */
	run(NULL, "sacctmgr -i modify account vc1,vc2,vc3 set GrpTRES=gres/gpu=-1");
	/* The invariant checker after every decision (hived.conf's debug switch). */
	ck_assert_int_eq(run(NULL, "sed -i 's/\"slurm\": {/\"slurm\": {\"checkInvariants\": true, /' "
			     "'%s/etc/hived.conf' && grep -q checkInvariants '%s/etc/hived.conf'",
			     e2e_clusterdir, e2e_clusterdir), 0);
	e2e_mark_log();
	ck_assert_int_eq(run(NULL, "rm -rf '%s/done' && mkdir -p '%s/done' && scontrol reconfigure",
			     e2e_clusterdir, e2e_clusterdir), 0);
	ck_assert_msg(e2e_wait_log("nodes from hived.conf:", 120), "hived.conf not reloaded");
	e2e_mark_log();
	anchor[0] = submit_anchor("-A vc1 -N1 --gres=gpu:2");
	anchor[1] = submit_anchor("-A vc2 -N1 --gres=gpu:1");
	anchor[2] = submit_anchor("-A vc3 -N1 --gres=gpu:1");
	for (int i = 0; i < ANCHORS; i++) {
		ck_assert(wait_job(anchor[i], "JobState=RUNNING", 180));
		job_alloc(anchor[i], &anchor_alloc[i]);
		ck_assert_int_eq(anchor_alloc[i].n, 1);
	}
	assert_views_agree("anchors started");
}
END_TEST

/*
 * Two floods of the same size without faults: every job ends, no GPU is ever
 * held twice, and the engine's memory after the second equals the first's.
 */
START_TEST(test_flood_memory)
{
	int half = n_jobs / 2;

	submit_flood(half, false);
	drain(0, 0, half);
	assert_views_agree("after flood 1");
	engine_bytes[0] = status_engine_bytes();
	ctld_rss_kb[0] = rss_kb(e2e_ctld_pid());
	submit_flood(half, false);
	drain(0, half, half);
	assert_views_agree("after flood 2");
	engine_bytes[1] = status_engine_bytes();
	ctld_rss_kb[1] = rss_kb(e2e_ctld_pid());
	ck_assert_msg(engine_bytes[0] > 0, "no engineBytes in hived_status.json");
	ck_assert_msg(engine_bytes[1] <= engine_bytes[0] + engine_bytes[0] / 50,
		      "engine memory grew from %ld to %ld bytes over a flood of %d jobs",
		      engine_bytes[0], engine_bytes[1], half);
	assert_anchors_kept("after the floods");
	/* Array tasks too (they get their own job id between job_test and job_begin). */
	ck_assert_msg(placements_logged() >= ANCHORS + 2 * half,
		      "%d jobs placed by select/hived for %d started", placements_logged(),
		      ANCHORS + 2 * half);
	assert_no_violation_logged();
}
END_TEST

/* A flood with kill -9 of slurmctld at random moments. */
START_TEST(test_flood_kill9)
{
	int before = markers();

	submit_flood(n_jobs, true);
	drain(n_kills, before, n_jobs);
	ck_assert_int_eq(kills_done, n_kills);
	ck_assert_int_eq(markers(), before + n_jobs);
	assert_views_agree("after the kill -9 flood");
	assert_anchors_kept("after the kill -9 flood");
	assert_no_violation_logged();
}
END_TEST

/*
 * Polls hived_status.json's badNodes for up to 2 minutes (the plugin syncs nodes
 * within a second or two; the margin is for a loaded machine) until node<n>
 * is in it (bad) or not (!bad); returns the last badNodes text then (free
 * it), or NULL if it never got there.
 */
static char *wait_bad_node(int n, bool bad)
{
	char want[24], *out = NULL;

	snprintf(want, sizeof(want), "\"node%d\"", n);
	for (int i = 0; i < 240; i++) {
		free(out);
		out = NULL;
		if (run(&out, "grep -o '\"badNodes\": *\\[[^]]*\\]' '%s/state/hived_status.json'",
			e2e_clusterdir) == 0 && out && (strstr(out, want) != NULL) == bad)
			return out;
		usleep(500 * 1000);
	}
	free(out);
	return NULL;
}

/* A dead slurmd: its node goes DOWN, its cells bad; back, they are healthy. */
START_TEST(test_slurmd_killed)
{
	char path[2600], *pid, *out = NULL;
	int victim = 0, big;
	alloc_t a;

	for (int n = NODES; n >= 1 && !victim; n--) {
		char name[16];
		bool used = false;

		snprintf(name, sizeof(name), "node%d", n);
		for (int i = 0; i < ANCHORS; i++)
			used |= !strcmp(anchor_alloc[i].node[0], name);
		if (!used)
			victim = n;
	}
	ck_assert(victim);
	/* Not a node Slurm drained after a kill -9 (see drain()). */
	resume_duplicate_drains();
	free(wait_node_state(victim, "idle", "mix", 120, 1));
	e2e_mark_log();
	snprintf(path, sizeof(path), "%s/run/slurmd-node%d.pid", e2e_clusterdir, victim);
	pid = read_file(path);
	ck_assert_msg(pid && atoi(pid) > 0, "no pid file %s", path);
	ck_assert_int_eq(run(NULL, "kill -9 %d", atoi(pid)), 0);
	free(pid);
	/*
	 * SlurmdTimeout=60: slurmctld notices within about 80 s. DOWN, or
	 * "drain*" if Slurm had drained it ("idle*" is not yet).
	 */
	expect_node_state(victim, "down", "drain", 90, 2, "not DOWN after its slurmd died");
	/* The status file says so with no job pending (its thread syncs nodes). */
	out = wait_bad_node(victim, true);
	ck_assert_msg(out, "the DOWN node%d is not a bad cell within 2 minutes", victim);
	free(out);
	out = NULL;
	/* New work goes elsewhere. */
	big = submit("-A vc1 -N1 --gres=gpu:4");
	ck_assert(wait_job(big, "JobState=RUNNING", 180));
	job_alloc(big, &a);
	ck_assert_msg(atoi(a.node[0] + 4) != victim, "a job started on the dead node%d", victim);
	run(NULL, "scancel %d", big);
	assert_anchors_kept("slurmd dead");
	ck_assert_int_eq(run(NULL, "env HIVED_CLUSTER_DIR='%s' SLURM_CONF='%s' setsid slurmd -N node%d "
			     "-f '%s' </dev/null >>'%s/log/slurmd-node%d.out' 2>&1",
			     e2e_clusterdir, e2e_conf, victim, e2e_conf, e2e_clusterdir, victim), 0);
	expect_node_state(victim, "idle", "mix", 180, 1, "did not come back");
	/* Healthy again in the status file, again with no job needed. */
	out = wait_bad_node(victim, false);
	ck_assert_msg(out, "node%d still a bad cell after 2 minutes", victim);
	free(out);
	assert_views_agree("slurmd back");
	assert_no_violation_logged();
}
END_TEST

/* A corrupt, then a truncated state file: rebuilt from Slurm's jobs, said so. */
START_TEST(test_bad_state_file)
{
	char path[2600], *text;
	int pid;

	snprintf(path, sizeof(path), "%s/state/hived_state.json", e2e_clusterdir);
	e2e_mark_log();
	ck_assert_int_eq(run(NULL, "printf '{\"version\": 1, \"jobs\": [garbage' > '%s'", path), 0);
	e2e_ctld_kill9();
	e2e_ctld_start();
	ck_assert_msg(e2e_wait_log("is unusable", 120), "a corrupt state file was not reported");
	assert_anchors_kept("corrupt state file");
	assert_views_agree("corrupt state file");

	/* A clean shutdown writes the state file; cut it in half. */
	pid = e2e_ctld_pid();
	ck_assert_int_eq(run(NULL, "scontrol shutdown slurmctld"), 0);
	for (int i = 0; i < 240 && pid_alive(pid); i++)
		usleep(500 * 1000);
	ck_assert(!pid_alive(pid));
	text = read_file(path);
	ck_assert_msg(text && strlen(text) > 20, "no state file after a clean shutdown");
	ck_assert_int_eq(run(NULL, "truncate -s %zu '%s'", strlen(text) / 2, path), 0);
	free(text);
	e2e_mark_log();
	e2e_ctld_start();
	ck_assert_msg(e2e_wait_log("is unusable", 120), "a truncated state file was not reported");
	assert_anchors_kept("truncated state file");
	assert_views_agree("truncated state file");
	assert_no_violation_logged();
}
END_TEST

/*
 * slurmctld restarts with a hived.conf in which vc2 has no cells and that lets
 * vc2 go (without slurm.allowRemovingVcs it would be refused, test_reload):
 * vc2's running job keeps its GPUs as an opportunistic job, and the log says so.
 */
START_TEST(test_conf_no_longer_fits)
{
	char hc[2600];
	json_t *root;
	bool demoted = false;
	size_t i;
	json_t *j;
	char vc2[24];
	int pid;

	snprintf(hc, sizeof(hc), "%s/etc/hived.conf", e2e_clusterdir);
	snprintf(vc2, sizeof(vc2), "%d", anchor[1]);
	ck_assert_int_eq(run(NULL, "cp '%s' '%s.orig' && sed -i -e '/\"vc2\"/d' -e "
			     "'s/\"slurm\": {/\"slurm\": {\"allowRemovingVcs\": [\"vc2\"], /' '%s' && "
			     "! grep -q '\"vc2\":' '%s' && grep -q allowRemovingVcs '%s'",
			     hc, hc, hc, hc, hc), 0);
	/*
	 * The state file too is from before the edit: write one now. Wait for the
	 * process, not its pid file (removed before it is gone): two controllers
	 * at once would both schedule.
	 */
	pid = e2e_ctld_pid();
	ck_assert_int_eq(run(NULL, "scontrol shutdown slurmctld"), 0);
	for (int i = 0; i < 240 && pid_alive(pid); i++)
		usleep(500 * 1000);
	ck_assert_msg(!pid_alive(pid), "slurmctld %d did not shut down", pid);
	e2e_mark_log();
	e2e_ctld_start();
	ck_assert_msg(e2e_wait_log("run on as opportunistic", 120),
		      "no log line for the job that no longer fits");
	assert_anchors_kept("hived.conf shrunk");
	assert_views_agree("hived.conf shrunk");
	root = status_json();
	ck_assert(root);
	json_array_foreach(json_object_get(root, "jobs"), i, j)
		if (!strcmp(json_string_value(json_object_get(j, "job")) ?: "", vc2))
			demoted = !strcmp(json_string_value(json_object_get(j, "class")) ?: "",
					  "opportunistic");
	json_decref(root);
	ck_assert_msg(demoted, "vc2's job %s is not opportunistic after vc2 lost its cells", vc2);
	/* And the same once more through kill -9 (no fresh state file). */
	e2e_mark_log();
	e2e_ctld_kill9();
	e2e_ctld_start();
	assert_anchors_kept("hived.conf shrunk, kill -9");
	assert_views_agree("hived.conf shrunk, kill -9");
	ck_assert_int_eq(run(NULL, "mv '%s.orig' '%s' && scontrol reconfigure", hc, hc), 0);
	assert_no_violation_logged();
}
END_TEST

START_TEST(test_down)
{
	printf("load: %d flood jobs (arrays across vc1-vc3 and opportunistic) in %.0f s, "
	       "%d kill -9 of slurmctld, 1 slurmd killed, 2 bad state files, 1 shrunk hived.conf; "
	       "%d samples, max %d running, %d double bookings, %d nodes Slurm drained for a reused job id, "
	       "%d held jobs released, %d reconfigures after a restart, "
	       "%d jobs requeued after Slurm refused their launch credential, "
	       "%d GPUs whose running job kept them across a kill -9 "
	       "(%d jobs Slurm started anew after one), "
	       "%d jobs Slurm recovered as running but not running requeued; "
	       "squeue max %.2f s, sdiag max %.2f s; "
	       "engine %ld -> %ld bytes, slurmctld RSS %ld -> %ld KiB; seed %u\n",
	       flood_total, flood_s, kills_done, samples, max_running,
	       violations, dup_drains, released, reregistrations, unstartable_requeued, gpus_kept,
	       restarted_by_slurm,
	       phantoms_requeued(), max_squeue_s, max_sdiag_s, engine_bytes[0], engine_bytes[1],
	       ctld_rss_kb[0], ctld_rss_kb[1], seed0);
	cancel_all();
	e2e_cluster_down();
}
END_TEST

int main(void)
{
	TCase *tc;
	int rc = e2e_init("faults");

	if (rc)
		return rc;
	if (getenv("HIVED_LOAD_JOBS"))
		n_jobs = atoi(getenv("HIVED_LOAD_JOBS"));
	if (getenv("HIVED_LOAD_KILLS"))
		n_kills = atoi(getenv("HIVED_LOAD_KILLS"));
	if (getenv("HIVED_LOAD_STALL_S") && atoi(getenv("HIVED_LOAD_STALL_S")) > 0)
		stall_s = atoi(getenv("HIVED_LOAD_STALL_S"));
	if (n_jobs < 2)
		n_jobs = 2;
	seed = getenv("HIVED_LOAD_SEED") ? (unsigned) atol(getenv("HIVED_LOAD_SEED")) :
	       (unsigned) time(NULL);
	seed0 = seed;
	printf("test_faults: %d jobs, %d kills, seed %u (HIVED_LOAD_SEED)\n", n_jobs, n_kills, seed);
	fflush(stdout);
	tc = tcase_create("faults");
	tcase_set_timeout(tc, 0);	/* the drain loops have their own deadlines */
	tcase_add_test(tc, test_up);
	tcase_add_test(tc, test_flood_memory);
	tcase_add_test(tc, test_flood_kill9);
	tcase_add_test(tc, test_slurmd_killed);
	tcase_add_test(tc, test_bad_state_file);
	tcase_add_test(tc, test_conf_no_longer_fits);
	tcase_add_test(tc, test_down);
	return e2e_run("faults", tc);
}
