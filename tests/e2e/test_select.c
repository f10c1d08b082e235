/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_select.c - select/hived decisions in a real slurmctld.
 *
 * One local cluster (scripts/hived-cluster: 4 nodes x 8 fake GPUs, 2 sockets,
 * 2 racks of 2 nodes, MariaDB + slurmdbd, preempt/qos) and the hived.conf the
 * script writes: vc1 owns 2 node cells, vc2 1 node cell, vc3 2 socket cells;
 * QOS scavenger is opportunistic; QOS high preempts normal preempts scavenger.
 * Each test starts from an empty queue and cancels what it submitted.
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

#define NODES 4
#define GPUS 8
#define MAXJ 64


static int running_gpus_of(const char *account)
{
	char *out = NULL;
	int total = 0, id;
	char *p, *save = NULL;

	ck_assert_int_eq(run(&out, "squeue -h -t R -A %s -o %%i", account), 0);
	for (p = strtok_r(out, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		alloc_t a;

		id = atoi(p);
		job_alloc(id, &a);
		for (int i = 0; i < a.n; i++)
			total += a.cnt[i];
	}
	free(out);
	return total;
}

/* Before each test: an empty queue, if a cluster is up at all. */
static void clean_queue(void)
{
	if (run(NULL, "scontrol ping 2>/dev/null | grep -q 'is UP'") == 0)
		cancel_all();
	e2e_mark_log();
}

START_TEST(test_up)
{
	e2e_cluster_up(NODES, GPUS, "--fresh --priority multifactor --sched-params bf_interval=5");
	e2e_log_from_start();	/* "up" may have started a new log */
	ck_assert(e2e_log_has("select/hived: loaded"));
}
END_TEST

/*
 * The sharing anomaly: vc3 (8 GPUs of quota as two socket cells) floods the
 * queue first; vc1's 8-GPU job still starts at once on a whole node, and vc3
 * holds exactly its two sockets.
 */
START_TEST(test_vc_guarantee)
{
	int flood[12], big, i;
	alloc_t a;
	int socket_seen[NODES * 2] = { 0 }, sockets = 0;
	char *out = NULL;

	for (i = 0; i < 12; i++)
		flood[i] = submit("-A vc3 -N1 --gres=gpu:1");
	big = submit("-A vc1 -N1 --gres=gpu:8");
	ck_assert_msg(wait_job(big, "JobState=RUNNING", 180),
		      "vc1's 8-GPU job did not start behind vc3's flood");
	job_alloc(big, &a);
	ck_assert_int_eq(a.n, 1);
	ck_assert_int_eq(a.cnt[0], 8);
	sleep(2);
	ck_assert_int_eq(running_gpus_of("vc3"), 8);
	for (i = 0; i < 12; i++) {
		if (!job_has(flood[i], "JobState=RUNNING"))
			continue;
		job_alloc(flood[i], &a);
		int s = (atoi(a.node[0] + 4) - 1) * 2 + a.gpus[0][0] / 4;
		ck_assert_msg(strcmp(a.node[0], "") && s < NODES * 2, "bad node");
		if (!socket_seen[s]++)
			sockets++;
	}
	ck_assert_msg(sockets == 2, "vc3's 1-GPU jobs span %d sockets, its cells are 2 sockets",
		      sockets);
	/* The jobs over quota say why they wait. */
	ck_assert_int_eq(run(&out, "squeue -h -t PD -A vc3 -o %%i | head -1"), 0);
	ck_assert_msg(out && atoi(out) > 0, "no vc3 job pending");
	ck_assert_msg(job_has(atoi(out), "SystemComment=hived: VC 'vc3' quota is in use"),
		      "pending vc3 job %d does not say its quota is in use", atoi(out));
	free(out);
	cancel_all();
}
END_TEST

/*
 * A job larger than its VC's cells (vc3 has 8 GPUs) is accepted and waits,
 * saying so in SystemComment: sacctmgr may raise the VC's quota. With
 * "jobsLargerThanVc": "reject" in hived.conf, sbatch refuses it instead.
 */
START_TEST(test_vc_too_small)
{
	char conf[2400], *out = NULL;
	int big = submit("-A vc3 -N2 --gres=gpu:8"), rc = 0;

	ck_assert_msg(wait_job(big, "SystemComment=hived: VC 'vc3' is too small for the job", 60),
		      "vc3's 16-GPU job %d does not say its VC is too small", big);
	ck_assert(job_has(big, "JobState=PENDING"));
	cancel_all();
	snprintf(conf, sizeof(conf), "%s/etc/hived.conf", e2e_clusterdir);
	ck_assert_int_eq(run(NULL, "cp '%s' '%s.orig' && sed -i 's/\"slurm\": {/\"slurm\": "
			     "{\"jobsLargerThanVc\": \"reject\", /' '%s' && grep -q jobsLargerThanVc '%s' "
			     "&& scontrol reconfigure", conf, conf, conf, conf), 0);
	for (int i = 0; i < 60 && rc == 0; i++) {
		free(out);
		out = NULL;
		rc = run(&out, "sbatch --parsable -o /dev/null -A vc3 -N2 --gres=gpu:8 --wrap 'sleep 1' 2>&1");
		if (rc == 0) {
			run(NULL, "scancel %d", atoi(out));
			sleep(1);
		}
	}
	ck_assert_msg(rc != 0 && strstr(out, "Requested node configuration is not available"),
		      "with jobsLargerThanVc: reject, sbatch said: %s", out);
	free(out);
	ck_assert_int_eq(run(NULL, "mv '%s.orig' '%s' && scontrol reconfigure", conf, conf), 0);
}
END_TEST

/* Idle cells run opportunistic jobs; the owner's job preempts one. */
START_TEST(test_opportunistic_preempted)
{
	int opp[NODES], own, i, requeued = 0;

	for (i = 0; i < NODES; i++)
		opp[i] = submit("-A vc3 --qos=scavenger -N1 --gres=gpu:8");
	for (i = 0; i < NODES; i++)
		ck_assert_msg(wait_job(opp[i], "JobState=RUNNING", 180),
			      "opportunistic job %d did not start on idle cells", opp[i]);
	own = submit("-A vc2 -N1 --gres=gpu:8");
	ck_assert_msg(wait_job(own, "JobState=RUNNING", 90),
		      "vc2's guaranteed job did not preempt an opportunistic one");
	for (i = 0; i < NODES; i++)
		if (!job_has(opp[i], "JobState=RUNNING"))
			requeued++;
	ck_assert_int_eq(requeued, 1);
	ck_assert(e2e_log_has("preempts 1 job(s) for its cells"));
	cancel_all();
}
END_TEST

/* Inside one VC, a higher-priority job preempts a lower-priority one. */
START_TEST(test_priority_preemption)
{
	int low[2], high, i, gone = 0;

	for (i = 0; i < 2; i++)
		low[i] = submit("-A vc1 -N1 --gres=gpu:8");
	for (i = 0; i < 2; i++)
		ck_assert(wait_job(low[i], "JobState=RUNNING", 180));
	high = submit("-A vc1 --qos=high -N1 --gres=gpu:8");
	ck_assert_msg(wait_job(high, "JobState=RUNNING", 90),
		      "vc1's high-priority job did not preempt its own normal job");
	for (i = 0; i < 2; i++)
		if (!job_has(low[i], "JobState=RUNNING"))
			gone++;
	ck_assert_int_eq(gone, 1);
	cancel_all();
}
END_TEST

/* A "key":number of hived_status.json's text, or -1 if absent. */
static double status_number(const char *text, const char *key)
{
	char want[64];
	const char *p;

	snprintf(want, sizeof(want), "\"%s\":", key);
	if (!text || !(p = strstr(text, want)))
		return -1;
	return atof(p + strlen(want));
}

/* A "<name>{P50,P99,Max}<unit>" triple in order, or fails. */
static void status_triple(const char *text, const char *name,
			  const char *unit, double v[3])
{
	static const char *const q[3] = { "P50", "P99", "Max" };
	char key[64];

	for (int i = 0; i < 3; i++) {
		snprintf(key, sizeof(key), "%s%s%s", name, q[i], unit);
		v[i] = status_number(text, key);
		ck_assert_msg(v[i] >= 0, "hived_status.json: no %s", key);
	}
	ck_assert_msg((v[0] <= v[1]) && (v[1] <= v[2]),
		      "%s: p50 %.0f p99 %.0f max %.0f", name, v[0], v[1], v[2]);
}

/*
 * CPU time beside wall time (issue 18 item 3: a slow call on a loaded host may
 * be the thread waiting to run). The engine runs inside the call, so its CPU
 * time is at most the call's, on the same clock: 12 us of slack cover the two
 * reads and microsecond truncation. Against wall time only a unit or plumbing
 * error is asserted (CPU within 4x + 200 us of wall): on this VM under load the
 * thread's CPU clock was seen 26 us ahead of the monotonic clock over one
 * engine phase (97 vs 71 us), so "CPU <= wall" is a fact of the clocks, not of
 * the plugin, and would make the verdict depend on the machine's load.
 */
static void check_cpu_timing(const char *text, double own_p99, double own_max)
{
	static const char *const phase[] = {
		"Lock", "Sync", "Build", "Engine", "Steer", "Rest"
	};
	double cpu[3], engine_cpu[3], engine[3], ivcsw[3], over, by = 0;
	char key[64];

	status_triple(text, "jobTestOwnCpu", "Us", cpu);
	status_triple(text, "phaseEngineCpu", "Us", engine_cpu);
	status_triple(text, "phaseEngine", "Us", engine);
	status_triple(text, "jobTestIvcsw", "", ivcsw);
	ck_assert_msg((cpu[1] <= own_p99 * 4 + 200) &&
		      (cpu[2] <= own_max * 4 + 200),
		      "own CPU p99 %.0f max %.0f far above wall p99 %.0f max %.0f",
		      cpu[1], cpu[2], own_p99, own_max);
	ck_assert_msg((engine_cpu[2] <= engine[2] * 4 + 200) &&
		      (engine_cpu[2] <= cpu[2] + 12),
		      "engine CPU max %.0f: engine wall max %.0f, own CPU max %.0f",
		      engine_cpu[2], engine[2], cpu[2]);
	/* Every call over 1 ms has exactly one longest phase. */
	over = status_number(text, "jobTestOwnOver1msCalls");
	for (int i = 0; i < 6; i++) {
		double n;

		snprintf(key, sizeof(key), "phase%sOver1msCalls", phase[i]);
		n = status_number(text, key);
		ck_assert_msg(n >= 0, "hived_status.json: no %s", key);
		by += n;
	}
	ck_assert_msg((over >= 0) && (by == over),
		      "calls over 1 ms: %.0f, by longest phase: %.0f", over, by);
	ck_assert_msg(strstr(text, "\"slowJobTests\":["),
		      "hived_status.json has no slowJobTests");
}

/*
 * The plugin times its job_test calls over slurmctld's whole life, with and
 * without cons_tres's share (issue 18: a recent-window p99 hid slow phases).
 */
static void check_job_test_timing(void)
{
	char path[2400], *text;
	double calls, p50, p99, own_p50, own_p99, own_max, max;

	snprintf(path, sizeof(path), "%s/state/hived_status.json", e2e_clusterdir);
	/* Written at most once a second after a change. */
	for (int i = 0; i < 60; i++) {
		text = read_file(path);
		if (status_number(text, "jobTestOwnMaxUs") >= 0)
			break;
		free(text);
		text = NULL;
		sleep(1);
	}
	ck_assert_msg(text, "hived_status.json has no jobTestOwn timing");
	calls = status_number(text, "jobTestCalls");
	p50 = status_number(text, "jobTestP50Us");
	p99 = status_number(text, "jobTestP99Us");
	max = status_number(text, "jobTestMaxUs");
	own_p50 = status_number(text, "jobTestOwnP50Us");
	own_p99 = status_number(text, "jobTestOwnP99Us");
	own_max = status_number(text, "jobTestOwnMaxUs");
	/* Each phase is a part of one call's own share: never longer. */
	for (int i = 0; i < 6; i++) {
		static const char *const phase[] = {
			"Lock", "Sync", "Build", "Engine", "Steer", "Rest"
		};
		char key[64];
		double p99_i, max_i;

		snprintf(key, sizeof(key), "phase%sP99Us", phase[i]);
		p99_i = status_number(text, key);
		snprintf(key, sizeof(key), "phase%sMaxUs", phase[i]);
		max_i = status_number(text, key);
		ck_assert_msg((p99_i >= 0) && (max_i >= 0) && (max_i <= own_max),
			      "phase %s: p99 %.0f max %.0f (own max %.0f)",
			      phase[i], p99_i, max_i, own_max);
	}
	check_cpu_timing(text, own_p99, own_max);
	free(text);
	ck_assert_msg(calls >= 3, "job_test calls counted: %.0f", calls);
	ck_assert_msg((p50 >= 0) && (p50 <= p99) && (p99 <= max),
		      "job_test p50 %.0f, p99 %.0f, max %.0f", p50, p99, max);
	ck_assert_msg((own_p50 >= 0) && (own_p50 <= p50) && (own_p99 <= p99) &&
		      (own_max <= max),
		      "HiveD's share p50 %.0f p99 %.0f max %.0f exceeds the whole calls' %.0f %.0f %.0f",
		      own_p50, own_p99, own_max, p50, p99, max);
}

/*
 * Backfill plans with the cells: vc1's next job can start only when one of its
 * own jobs ends (time limit 10 min), although half the cluster is idle now.
 */
START_TEST(test_backfill_estimate)
{
	int run1 = submit("-A vc1 -N1 --gres=gpu:8 -t 10");
	int run2 = submit("-A vc1 -N1 --gres=gpu:8 -t 10");
	int next;
	char *out = NULL;
	long start = 0, now;

	ck_assert(wait_job(run1, "JobState=RUNNING", 180));
	ck_assert(wait_job(run2, "JobState=RUNNING", 180));
	next = submit("-A vc1 -N1 --gres=gpu:8 -t 5");
	/* Until backfill has planned it (bf_interval=5): the main scheduler may
	 * show a provisional start time first. */
	for (int i = 0; i < 120 && start < time(NULL) + 8 * 60; i++) {
		sleep(1);
		free(out);
		out = NULL;
		if (run(&out, "date -d \"$(squeue -h -j %d -o %%S)\" +%%s 2>/dev/null", next) == 0 && out)
			start = atol(out);
	}
	free(out);
	now = time(NULL);
	ck_assert_msg(!job_has(next, "JobState=RUNNING"), "vc1 ran a third node's worth of GPUs");
	ck_assert_msg(start >= now + 8 * 60,
		      "backfill expects vc1's job to start in %ld s; its cells free in about 10 min",
		      start - now);
	/* The end times backfill reads are kept between calls: a shorter time
	 * limit must reach the next estimate. */
	ck_assert_int_eq(run(NULL, "scontrol update JobId=%d TimeLimit=3", run1), 0);
	for (int i = 0; i < 120 && start >= time(NULL) + 4 * 60; i++) {
		sleep(1);
		out = NULL;
		if (run(&out, "date -d \"$(squeue -h -j %d -o %%S)\" +%%s 2>/dev/null", next) == 0 && out)
			start = atol(out);
		free(out);
	}
	now = time(NULL);
	ck_assert_msg(start < now + 4 * 60,
		      "after job %d's limit became 3 min backfill still expects vc1's job in %ld s",
		      run1, start - now);
	check_job_test_timing();
	cancel_all();
}
END_TEST

/* --switches=1: a 2-node job stays in one rack cell. */
START_TEST(test_rack_job)
{
	int id = submit("-A vc1 -N2 --gres=gpu:8 --switches=1");
	alloc_t a;

	ck_assert(wait_job(id, "JobState=RUNNING", 180));
	job_alloc(id, &a);
	ck_assert_int_eq(a.n, 2);
	ck_assert_msg(rack_of(a.node[0]) == rack_of(a.node[1]),
		      "2-node job on %s and %s: two racks", a.node[0], a.node[1]);
	ck_assert_int_eq(a.cnt[0] + a.cnt[1], 16);
	cancel_all();
}
END_TEST

/*
 * hived-cluster's gres.conf puts GPUs 0-3 next to cores 0-7 (socket 0) and
 * GPUs 4-7 next to cores 8-15 (socket 1).
 */
#define GPU_SOCKET(g) ((g) / (GPUS / 2))
#define CPU_SOCKET(c) ((c) / GPUS)

static void assert_cores_near_gpus(int id)
{
	alloc_t a;

	job_alloc(id, &a);
	ck_assert_int_eq(a.n, 1);
	ck_assert_msg(a.ncpus[0] > 0, "job %d: no CPU_IDs", id);
	for (int c = 0; c < a.ncpus[0]; c++)
		for (int g = 0; g < a.cnt[0]; g++)
			ck_assert_msg(CPU_SOCKET(a.cpus[0][c]) == GPU_SOCKET(a.gpus[0][g]),
				      "job %d: CPU %d is on socket %d, its GPU %d on socket %d",
				      id, a.cpus[0][c], CPU_SOCKET(a.cpus[0][c]),
				      a.gpus[0][g], GPU_SOCKET(a.gpus[0][g]));
}

/*
 * Cores come from the socket of the GPUs HiveD chose, and
 * --gres-flags=enforce-binding keeps a node's GPUs on one socket: the job
 * waits rather than straddle two (issue 4).
 */
START_TEST(test_cores_and_enforce_binding)
{
	int one_a, one_b, three, bound3, bound2;
	alloc_t a;

	/* Socket 0 of node1 keeps 2 free GPUs, socket 1 one. */
	one_a = submit("-A vc1 -w node1 -c 2 --gres=gpu:1");
	ck_assert(wait_job(one_a, "JobState=RUNNING", 30));
	one_b = submit("-A vc1 -w node1 -c 2 --gres=gpu:1");
	ck_assert(wait_job(one_b, "JobState=RUNNING", 30));
	three = submit("-A vc1 -w node1 -c 2 --gres=gpu:3");
	ck_assert(wait_job(three, "JobState=RUNNING", 30));
	job_alloc(three, &a);
	ck_assert_msg(GPU_SOCKET(a.gpus[0][0]) == 1,
		      "the 3-GPU job is on socket 0 (GPU %d), expected the empty socket 1",
		      a.gpus[0][0]);
	/* cons_tres alone hands out the lowest free cores: socket 0's. */
	assert_cores_near_gpus(one_a);
	assert_cores_near_gpus(one_b);
	assert_cores_near_gpus(three);

	bound3 = submit("-A vc1 -w node1 -c 2 --gres=gpu:3 --gres-flags=enforce-binding");
	if (!wait_job(bound3, "SystemComment=hived: VC 'vc1'", 20)) {
		char *l = job_line(bound3);
		ck_abort_msg("the enforce-binding 3-GPU job does not wait for a socket: %s", l);
	}
	ck_assert_msg(job_has(bound3, "JobState=PENDING"),
		      "enforce-binding 3-GPU job runs though no socket of node1 has 3 free GPUs");
	run(NULL, "scancel %d", bound3);

	bound2 = submit("-A vc1 -w node1 -c 2 --gres=gpu:2 --gres-flags=enforce-binding");
	ck_assert(wait_job(bound2, "JobState=RUNNING", 30));
	job_alloc(bound2, &a);
	ck_assert_int_eq(a.cnt[0], 2);
	ck_assert_int_eq(GPU_SOCKET(a.gpus[0][0]), GPU_SOCKET(a.gpus[0][1]));
	assert_cores_near_gpus(bound2);
	cancel_all();
}
END_TEST

/* A DOWN node's cells are bad; RESUME makes them healthy again. */
START_TEST(test_node_down_and_back)
{
	int id[NODES], i;
	alloc_t a;

	ck_assert_int_eq(run(NULL, "scontrol update nodename=node4 state=down reason=hived-test"), 0);
	for (i = 0; i < NODES; i++)
		id[i] = submit("-A vc2 --qos=scavenger -N1 --gres=gpu:8");
	for (i = 0; i < NODES - 1; i++)
		ck_assert(wait_job(id[i], "JobState=RUNNING", 180));
	sleep(3);
	ck_assert_msg(!job_has(id[NODES - 1], "JobState=RUNNING"),
		      "a job ran while only 3 nodes were healthy");
	for (i = 0; i < NODES - 1; i++) {
		job_alloc(id[i], &a);
		ck_assert_msg(strcmp(a.node[0], "node4"), "job %d placed on DOWN node4", id[i]);
	}
	ck_assert(e2e_log_has("node node4 is DOWN"));
	ck_assert_int_eq(run(NULL, "scontrol update nodename=node4 state=resume"), 0);
	ck_assert_msg(wait_job(id[NODES - 1], "JobState=RUNNING", 90),
		      "node4's cells did not come back after RESUME");
	job_alloc(id[NODES - 1], &a);
	ck_assert_str_eq(a.node[0], "node4");
	cancel_all();
}
END_TEST

/* hived_status.json lists job id with a pod on node (within `seconds`). */
static bool status_has_job_on(int id, const char *node, int seconds)
{
	char path[2400], key[64], want[96];

	snprintf(path, sizeof(path), "%s/state/hived_status.json", e2e_clusterdir);
	snprintf(key, sizeof(key), "{\"job\":\"%d\"", id);
	snprintf(want, sizeof(want), "\"node\":\"%s\"", node);
	for (int i = 0; i < seconds * 2; i++) {
		char *text = read_file(path), *j, *end, *hit;
		bool ok = false;

		if (text && (j = strstr(text, key))) {
			end = strstr(j + 1, "{\"job\":");
			hit = strstr(j, want);
			ok = hit && (!end || hit < end);
		}
		free(text);
		if (ok)
			return true;
		usleep(500 * 1000);
	}
	return false;
}

/* kill -9 slurmctld: running jobs keep their GPUs, and nothing is double-booked. */
START_TEST(test_restart_keeps_cells)
{
	int a1 = submit("-A vc1 -N1 --gres=gpu:8");
	int c1 = submit("-A vc3 -N1 --gres=gpu:4");
	int later;
	alloc_t before_a, before_c, after, l;

	ck_assert(wait_job(a1, "JobState=RUNNING", 180));
	ck_assert(wait_job(c1, "JobState=RUNNING", 180));
	job_alloc(a1, &before_a);
	job_alloc(c1, &before_c);
	/* A kill -9 before Slurm saved the jobs' start would lose it (Slurm's, not ours). */
	ck_assert_msg(e2e_wait_jobs_saved(c1), "slurmctld did not save its job state in 2 min");
	e2e_ctld_kill9();
	e2e_ctld_start();
	ck_assert(wait_job(a1, "JobState=RUNNING", 120));
	job_alloc(a1, &after);
	ck_assert_str_eq(after.node[0], before_a.node[0]);
	/*
	 * The restarted engine holds the job on the same node: rebuilt from
	 * Slurm's record, or kept from the state file if a periodic save came
	 * after the job started. Either way hived_status.json shows it.
	 */
	ck_assert_msg(status_has_job_on(a1, before_a.node[0], 20),
		      "after restart the engine does not hold job %d on %s", a1,
		      before_a.node[0]);
	/* vc3 has one socket left: a new 4-GPU job must not land on c1's GPUs. */
	later = submit("-A vc3 -N1 --gres=gpu:4");
	ck_assert(wait_job(later, "JobState=RUNNING", 180));
	job_alloc(later, &l);
	if (!strcmp(l.node[0], before_c.node[0]))
		for (int i = 0; i < l.cnt[0]; i++)
			for (int k = 0; k < before_c.cnt[0]; k++)
				ck_assert_msg(l.gpus[0][i] != before_c.gpus[0][k],
					      "GPU %d of %s given twice after restart",
					      l.gpus[0][i], l.node[0]);
	/* and vc3's quota is full: a third 4-GPU job waits. */
	int third = submit("-A vc3 -N1 --gres=gpu:4");
	sleep(4);
	ck_assert(!job_has(third, "JobState=RUNNING"));
	cancel_all();
}
END_TEST

/*
 * --gpus=8 without -N (a GPU count only, hived.conf's "splitCountOnlyJobs" on by
 * default): vc1's two node cells each half held by its own 4-GPU jobs. A -N1
 * --gpus=8 job waits for a whole node cell; the count-only job starts at once as
 * 4 + 4 GPUs on vc1's two nodes, on the GPUs its jobs left, and a slurmctld
 * restart keeps it on both. An opportunistic count-only job splits the same way
 * over idle GPUs when no node is idle.
 */
START_TEST(test_count_only_split)
{
	int small[4], one_node, count, i, k;
	char freed[2][32] = { "", "" };
	int freed_gpu[2] = { -1, -1 };
	alloc_t a, s;

	for (i = 0; i < 4; i++)
		small[i] = submit("-A vc1 -N1 --gres=gpu:4");
	for (i = 0; i < 4; i++)
		ck_assert(wait_job(small[i], "JobState=RUNNING", 180));
	/* One 4-GPU job off each of vc1's two nodes. */
	for (i = 0, k = 0; i < 4 && k < 2; i++) {
		job_alloc(small[i], &s);
		if (k && !strcmp(s.node[0], freed[0]))
			continue;
		snprintf(freed[k], sizeof(freed[k]), "%s", s.node[0]);
		freed_gpu[k++] = s.gpus[0][0];
		ck_assert_int_eq(run(NULL, "scancel %d", small[i]), 0);
		ck_assert(wait_job(small[i], "JobState=CANCELLED", 60));
	}
	ck_assert_msg(k == 2, "vc1's four 4-GPU jobs are not on two nodes");
	one_node = submit("-A vc1 -N1 --gpus=8");
	ck_assert_msg(wait_job(one_node, "not in cells of that shape", 60),
		      "-N1 --gpus=8 job %d does not wait for a whole node cell", one_node);
	ck_assert_int_eq(run(NULL, "scancel %d", one_node), 0);
	count = submit("-A vc1 --gpus=8");
	ck_assert_msg(wait_job(count, "JobState=RUNNING", 120),
		      "--gpus=8 job %d did not start on vc1's 4 + 4 free GPUs", count);
	job_alloc(count, &a);
	ck_assert_int_eq(a.n, 2);
	ck_assert_int_eq(a.cnt[0], 4);
	ck_assert_int_eq(a.cnt[1], 4);
	for (i = 0; i < 2; i++) {
		bool ours = !strcmp(a.node[i], freed[0]) || !strcmp(a.node[i], freed[1]);
		int want = !strcmp(a.node[i], freed[0]) ? freed_gpu[0] : freed_gpu[1];

		ck_assert_msg(ours, "--gpus=8 job on %s, not on vc1's nodes %s, %s", a.node[i],
			      freed[0], freed[1]);
		ck_assert_msg(a.gpus[i][0] == want, "on %s GPUs from %d, the freed ones are from %d",
			      a.node[i], a.gpus[i][0], want);
	}
	ck_assert_msg(e2e_wait_jobs_saved(count), "slurmctld did not save its job state in 2 min");
	e2e_ctld_kill9();
	e2e_ctld_start();
	ck_assert(wait_job(count, "JobState=RUNNING", 120));
	for (i = 0; i < 2; i++)
		ck_assert_msg(status_has_job_on(count, a.node[i], 20),
			      "after restart the engine does not hold job %d on %s", count, a.node[i]);
	/*
	 * Opportunistic too: with the two other nodes taken whole, an 8-GPU
	 * count-only scavenger job runs on the 4 + 4 GPUs vc1's jobs leave idle.
	 */
	ck_assert_int_eq(run(NULL, "scancel %d", count), 0);
	ck_assert(wait_job(count, "JobState=CANCELLED", 60));
	for (i = 0; i < 2; i++) {
		int whole = submit("-A vc3 --qos=scavenger -N1 --gres=gpu:8");

		ck_assert_msg(wait_job(whole, "JobState=RUNNING", 120),
			      "opportunistic job %d did not start on an idle node", whole);
	}
	count = submit("-A vc3 --qos=scavenger --gpus=8");
	ck_assert_msg(wait_job(count, "JobState=RUNNING", 120),
		      "opportunistic --gpus=8 job %d did not start on the 4 + 4 idle GPUs", count);
	job_alloc(count, &a);
	ck_assert_int_eq(a.n, 2);
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(a.cnt[i], 4);
		ck_assert_msg(!strcmp(a.node[i], freed[0]) || !strcmp(a.node[i], freed[1]),
			      "opportunistic --gpus=8 job on %s, not beside vc1's jobs on %s, %s",
			      a.node[i], freed[0], freed[1]);
	}
	cancel_all();
}
END_TEST

/*
 * A job Slurm cannot give the GPUs HiveD chose is not started without them
 * (issue 17): here hived.conf numbers node4's GPUs 8-15 while its slurmd has
 * 0-7, so the GPU indices of a job HiveD puts there do not exist in Slurm's
 * allocation. job_begin refuses it: it stays pending, saying why.
 */
START_TEST(test_no_gpus_stays_pending)
{
	char conf[2400];
	int id;

	snprintf(conf, sizeof(conf), "%s/etc/hived.conf", e2e_clusterdir);
	ck_assert_int_eq(run(NULL, "cp '%s' '%s.orig' && sed -i 's|{\"cellAddress\": \"node4\"}|"
			     "{\"cellAddress\": \"node4\", \"cellChildren\": ["
			     "{\"cellChildren\": [{\"cellChildren\": [{\"cellAddress\": 8}, {\"cellAddress\": 9}]}, "
			     "{\"cellChildren\": [{\"cellAddress\": 10}, {\"cellAddress\": 11}]}]}, "
			     "{\"cellChildren\": [{\"cellChildren\": [{\"cellAddress\": 12}, {\"cellAddress\": 13}]}, "
			     "{\"cellChildren\": [{\"cellAddress\": 14}, {\"cellAddress\": 15}]}]}]}|' '%s' "
			     "&& grep -q '\"cellAddress\": 15' '%s'", conf, conf, conf, conf), 0);
	e2e_mark_log();
	ck_assert_int_eq(run(NULL, "scontrol reconfigure"), 0);
	for (int i = 0; i < 120 && !e2e_log_has("select/hived: loaded"); i++)
		usleep(250 * 1000);
	ck_assert_msg(e2e_log_has("select/hived: loaded"), "hived.conf with node4's GPUs 8-15 not loaded");
	id = submit("-A vc1 -N1 --gres=gpu:8 -w node4");
	ck_assert_msg(wait_job(id, "SystemComment=hived: Slurm gave this job no usable GPUs", 90),
		      "job %d does not say it got no usable GPUs", id);
	ck_assert_msg(job_has(id, "JobState=PENDING"), "job %d was started without its GPUs", id);
	ck_assert(e2e_log_has("could not set the GPU indices HiveD chose"));
	cancel_all();
	ck_assert_int_eq(run(NULL, "mv '%s.orig' '%s' && scontrol reconfigure", conf, conf), 0);
}
END_TEST

/* A broken hived.conf on reconfigure: the old one stays, the log says why. */
START_TEST(test_reconfigure_bad_conf)
{
	char conf[2400];
	int id;

	snprintf(conf, sizeof(conf), "%s/etc/hived.conf", e2e_clusterdir);
	ck_assert_int_eq(run(NULL, "cp '%s' '%s.good' && echo '{\"virtualClusters\": [' > '%s'",
			     conf, conf, conf), 0);
	ck_assert_int_eq(run(NULL, "scontrol reconfigure"), 0);
	sleep(2);
	ck_assert_int_eq(run(NULL, "mv '%s.good' '%s'", conf, conf), 0);
	ck_assert_msg(e2e_log_has("the previous hived.conf stays in force"),
		      "no log line about the refused hived.conf");
	ck_assert(run(NULL, "scontrol ping | grep -q 'is UP'") == 0);
	id = submit("-A vc2 -N1 --gres=gpu:2");
	ck_assert(wait_job(id, "JobState=RUNNING", 180));
	ck_assert_msg(e2e_log_has("VC=vc2 class=guaranteed"),
		      "vc2's job was not placed by HiveD after the refused reload");
	cancel_all();
	ck_assert_int_eq(run(NULL, "scontrol reconfigure"), 0);
}
END_TEST

/*
 * hived.conf with no cells and no VCs: cells come from slurm.conf, gres.conf and
 * topology.conf (sockets, nodes, racks), vc1's cells from its sacctmgr GrpTRES,
 * picked up while slurmctld runs; an impossible limit is refused.
 */
START_TEST(test_derived_cells_and_sacctmgr)
{
	char conf[2400];
	int small, pair, spare;
	alloc_t a;

	snprintf(conf, sizeof(conf), "%s/etc/hived.conf", e2e_clusterdir);
	/* The accounting database outlives the cluster: start with no limits. */
	run(NULL, "sacctmgr -i modify account vc1,vc2 set GrpTRES=gres/gpu=-1");
	ck_assert_int_eq(run(NULL, "cp '%s' '%s.orig' && "
			     "echo '{\"slurm\": {\"opportunisticQos\": [\"scavenger\"]}}' > '%s'",
			     conf, conf, conf), 0);
	ck_assert_int_eq(run(NULL, "scontrol reconfigure"), 0);
	sleep(2);
	ck_assert_msg(e2e_log_has("derived cell types: A100-SOCKET, A100-NODE, A100-RACK"),
		      "no derived hierarchy in the log");
	e2e_mark_log();
	ck_assert_int_eq(run(NULL, "sacctmgr -i modify account vc1 set GrpTRES=gres/gpu=24"), 0);
	sleep(6);	/* limits are compared every 5 s, at a job_test */
	small = submit("-A vc1 -N1 --gres=gpu:4");
	ck_assert(wait_job(small, "JobState=RUNNING", 180));
	ck_assert_msg(e2e_log_has("sacctmgr GPU limits changed (vc1=24;): applying"),
		      "vc1's GrpTRES was not turned into cells");
	/* The admin reads the new cells in the log, not only at load. */
	ck_assert_msg(e2e_log_has("select/hived: virtual clusters:") &&
		      e2e_log_has("= 24 a100 GPUs"), "the log does not show vc1's new cells");
	job_alloc(small, &a);
	ck_assert_int_eq(a.cnt[0], 4);
	ck_assert_msg(a.gpus[0][0] / 4 == a.gpus[0][3] / 4,
		      "4-GPU job got GPUs %d..%d: not one socket", a.gpus[0][0], a.gpus[0][3]);
	ck_assert_msg(e2e_log_has("VC=vc1 class=guaranteed GPUs="),
		      "vc1's job did not run in its derived cells");
	pair = submit("-A vc1 -N2 --gres=gpu:8 --switches=1");
	ck_assert_msg(wait_job(pair, "JobState=RUNNING", 180),
		      "2-node job of vc1 did not start inside one rack");
	job_alloc(pair, &a);
	ck_assert_int_eq(a.n, 2);
	ck_assert_msg(rack_of(a.node[0]) == rack_of(a.node[1]),
		      "2-node job on %s and %s: two racks", a.node[0], a.node[1]);
	/* More GPUs than the cluster has: refused, vc1 keeps its 24. */
	ck_assert_int_eq(run(NULL, "sacctmgr -i modify account vc2 set GrpTRES=gres/gpu=1000"), 0);
	sleep(6);
	spare = submit("-A vc2 -N1 --gres=gpu:1");
	sleep(3);
	ck_assert_msg(e2e_log_has("cannot be given cells; the previous cells stay"),
		      "an impossible GrpTRES was not refused in the log");
	(void) spare;
	cancel_all();
	run(NULL, "sacctmgr -i modify account vc1,vc2 set GrpTRES=gres/gpu=-1");
	ck_assert_int_eq(run(NULL, "mv '%s.orig' '%s' && scontrol reconfigure", conf, conf), 0);
}
END_TEST

int main(void)
{
	TCase *tc;
	int rc = e2e_init("select");

	if (rc)
		return rc;
	tc = tcase_create("select");
	tcase_set_timeout(tc, 900);
	tcase_add_checked_fixture(tc, clean_queue, NULL);
	tcase_add_test(tc, test_up);
	tcase_add_test(tc, test_vc_guarantee);
	tcase_add_test(tc, test_vc_too_small);
	tcase_add_test(tc, test_opportunistic_preempted);
	tcase_add_test(tc, test_priority_preemption);
	tcase_add_test(tc, test_backfill_estimate);
	tcase_add_test(tc, test_rack_job);
	tcase_add_test(tc, test_cores_and_enforce_binding);
	tcase_add_test(tc, test_node_down_and_back);
	tcase_add_test(tc, test_restart_keeps_cells);
	tcase_add_test(tc, test_count_only_split);
	tcase_add_test(tc, test_no_gpus_stays_pending);
	tcase_add_test(tc, test_reconfigure_bad_conf);
	tcase_add_test(tc, test_derived_cells_and_sacctmgr);
	return e2e_run("select", tc, NULL);
}
