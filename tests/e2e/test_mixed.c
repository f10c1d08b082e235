/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_mixed.c - nodes of two sizes: an exclusive job (Slurm gives it every GPU
 * of its nodes) is placed as whole nodes of the size its partition has, in its
 * VC's cells when it is guaranteed.
 *
 * Its own cluster (scripts/hived-cluster --small-nodes 2: node1-2 with 8 fake
 * GPUs, node3-4 with 4, partition "small" of node3-4 besides "gpu" of all;
 * cells derived from slurm.conf and gres.conf): account "own" has 20 GPUs of
 * GrpTRES, which HiveD makes the rack of 8-GPU nodes and one 4-GPU node.
 * Before, a whole node was of the largest node in the job's VC's chains (or
 * anywhere when opportunistic): 8 GPUs, which no node of partition "small"
 * has, so such a job never started.
 * Needs root (exit 77 otherwise).
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e_main.h"
#include "run.h"
#include "slurm_jobs.h"

#define NODES 4
#define GPUS 8

/* Up to 30 s until hivedctl (hived_status.json, written after a change) says so. */
static bool own_cells_of_both_sizes(char **out)
{
	for (int i = 0; i < 30; i++) {
		free(*out);
		*out = NULL;
		if (!run(out, "'%s/hivedctl' vc own", e2e_builddir) && *out &&
		    strstr(*out, "A100-RACK-8G") && strstr(*out, "A100-NODE-4G"))
			return true;
		sleep(1);
	}
	return false;
}

/*
 * cancel_all(), then up to 30 s until hived_status.json (whatif's view, written
 * within a second of a change) lists no running job either.
 */
static void cancel_all_seen_by_whatif(void)
{
	char *out = NULL;
	bool idle = false;

	cancel_all();
	for (int i = 0; i < 60 && !idle; i++) {
		free(out);
		out = NULL;
		idle = !run(&out, "'%s/hivedctl' status", e2e_builddir) && out &&
		       strstr(out, "Jobs: 0 running");
		if (!idle)
			usleep(500 * 1000);
	}
	ck_assert_msg(idle, "hived_status.json still lists jobs 30 s after they ended: %s",
		      out ? out : "");
	free(out);
}

START_TEST(test_up)
{
	char *out = NULL;

	e2e_cluster_up(NODES, GPUS, "--fresh --small-nodes 2 --vc-quotas own=20");
	e2e_log_from_start();
	ck_assert(e2e_log_has("select/hived: loaded"));
	ck_assert_int_eq(run(&out, "sinfo -h -p small -o '%%N %%G'"), 0);
	ck_assert_msg(out && strstr(out, "node[3-4]") && strstr(out, "gpu:a100:4"),
		      "partition small is not node3-4 with 4 GPUs: %s", out ? out : "");
	free(out);
	out = NULL;
	/*
	 * The quota is sacctmgr's, compared at a job_test (at most every 5 s):
	 * short jobs until HiveD has turned it into cells.
	 */
	for (int i = 0; i < 60 && !e2e_log_has(".conf: 4 nodes, 1 VCs"); i++) {
		run(NULL, "sbatch -A own --gres=gpu:1 -o /dev/null --wrap true >/dev/null 2>&1");
		sleep(2);
	}
	ck_assert_msg(e2e_log_has(".conf: 4 nodes, 1 VCs"), "own's sacctmgr quota did not become a VC");
	/* 20 GPUs: the rack of 8-GPU nodes and a 4-GPU node, cells of both sizes. */
	ck_assert_msg(own_cells_of_both_sizes(&out),
		      "own's cells are not an 8-GPU rack and a 4-GPU node: %s", out ? out : "");
	free(out);
	ck_assert_msg(!e2e_log_has("cannot be given cells"), "a sacctmgr quota was refused");
	cancel_all();
}
END_TEST

/*
 * On an empty queue, an exclusive job (sbatch args) runs on node `first` or
 * `second`, all `gpus` GPUs of it its own, in the class hivedctl names.
 */
static void exclusive_runs_on(const char *args, int gpus, const char *class,
			      const char *first, const char *second)
{
	char *out = NULL;
	alloc_t a;
	int id;

	cancel_all();
	id = submit(args);
	ck_assert_msg(wait_job(id, "JobState=RUNNING", 120),
		      "exclusive job %d (%s) did not start: %s", id, args, job_line(id));
	job_alloc(id, &a);
	ck_assert_msg(a.n == 1 && a.cnt[0] == gpus,
		      "job %d (%s) holds %d GPUs on %d nodes, not %d on one: %s", id, args,
		      a.n ? a.cnt[0] : 0, a.n, gpus, job_line(id));
	ck_assert_msg(!strcmp(a.node[0], first) || !strcmp(a.node[0], second),
		      "job %d (%s) runs on %s, not on %s or %s", id, args, a.node[0], first, second);
	ck_assert_msg(hivedctl_job_says(id, class, 30, &out), "job %d (%s) is not %s to HiveD: %s",
		      id, args, class, out ? out : "");
	free(out);
}

START_TEST(test_guaranteed_exclusive_in_partition_of_small_nodes)
{
	exclusive_runs_on("-A own -p small -N1 --exclusive --gres=gpu:1", 4, "guaranteed", "node3",
			  "node4");
}
END_TEST

START_TEST(test_opportunistic_exclusive_in_partition_of_small_nodes)
{
	exclusive_runs_on("-A own --qos=scavenger -p small -N1 --exclusive --gres=gpu:1", 4,
			  "opportunistic", "node3", "node4");
}
END_TEST

/*
 * No GPUs asked: cons_tres places it, Slurm gives it the node's every GPU, and
 * HiveD counts them as its VC's (a 4-GPU node cell of own's).
 */
START_TEST(test_exclusive_without_gpus_in_partition_of_small_nodes)
{
	exclusive_runs_on("-A own -p small -N1 --exclusive", 4, "guaranteed", "node3", "node4");
}
END_TEST

/* In partition gpu (all nodes) a whole node is the largest of the VC's. */
START_TEST(test_exclusive_takes_the_largest_node_it_may)
{
	exclusive_runs_on("-A own -N1 --exclusive --gres=gpu:1", 8, "guaranteed", "node1", "node2");
}
END_TEST

/*
 * Once the 8-GPU nodes are taken, an exclusive job in partition gpu (both
 * sizes) starts on a whole 4-GPU node, as cons_tres would start it: own's
 * 4-GPU node cell when guaranteed (its quota has 4 GPUs left, not 8), any idle
 * 4-GPU node when opportunistic. Before, it waited for an 8-GPU node.
 */
static void smaller_node_when_large_ones_are_taken(const char *args, const char *class)
{
	char *out = NULL;
	int big[2], small;
	alloc_t a;

	cancel_all();
	for (int i = 0; i < 2; i++) {
		big[i] = submit(args);
		ck_assert_msg(wait_job(big[i], "JobState=RUNNING", 120),
			      "exclusive job %d (%s) did not start: %s", big[i], args,
			      job_line(big[i]));
		job_alloc(big[i], &a);
		ck_assert_msg(a.n == 1 && a.cnt[0] == 8, "job %d (%s) is not on a whole 8-GPU node: %s",
			      big[i], args, job_line(big[i]));
	}
	small = submit(args);
	ck_assert_msg(wait_job(small, "JobState=RUNNING", 120),
		      "exclusive job %d (%s) waits while a 4-GPU node is idle: %s", small, args,
		      job_line(small));
	job_alloc(small, &a);
	ck_assert_msg(a.n == 1 && a.cnt[0] == 4 &&
		      (!strcmp(a.node[0], "node3") || !strcmp(a.node[0], "node4")),
		      "job %d (%s) holds %d GPUs on %s, not a whole 4-GPU node: %s", small, args,
		      a.n ? a.cnt[0] : 0, a.n ? a.node[0] : "no node", job_line(small));
	ck_assert_msg(hivedctl_job_says(small, class, 30, &out), "job %d (%s) is not %s to HiveD: %s",
		      small, args, class, out ? out : "");
	free(out);
	cancel_all();
}

START_TEST(test_guaranteed_exclusive_takes_a_smaller_node)
{
	smaller_node_when_large_ones_are_taken("-A own -N1 --exclusive --gres=gpu:1", "guaranteed");
}
END_TEST

START_TEST(test_opportunistic_exclusive_takes_a_smaller_node)
{
	smaller_node_when_large_ones_are_taken("-A own --qos=scavenger -N1 --exclusive --gres=gpu:1",
					       "opportunistic");
}
END_TEST

/*
 * A guaranteed exclusive job whose VC's 8-GPU nodes run opportunistic work
 * takes the VC's free 4-GPU node rather than preempt, as cons_tres takes a free
 * node before it preempts. Before, it preempted an opportunistic job.
 */
START_TEST(test_exclusive_takes_a_free_smaller_node_before_preempting)
{
	const char *opp = "-A own --qos=scavenger -N1 --exclusive --gres=gpu:1";
	int job[2], own;
	alloc_t a;

	cancel_all();
	for (int i = 0; i < 2; i++) {
		job[i] = submit(opp);
		ck_assert_msg(wait_job(job[i], "JobState=RUNNING", 120),
			      "opportunistic exclusive job %d did not start: %s",
			      job[i], job_line(job[i]));
		job_alloc(job[i], &a);
		ck_assert_msg(a.n == 1 && a.cnt[0] == 8,
			      "job %d is not on a whole 8-GPU node: %s", job[i],
			      job_line(job[i]));
	}
	own = submit("-A own -N1 --exclusive --gres=gpu:1");
	ck_assert_msg(wait_job(own, "JobState=RUNNING", 120),
		      "guaranteed exclusive job %d did not start: %s", own,
		      job_line(own));
	job_alloc(own, &a);
	ck_assert_msg(a.n == 1 && a.cnt[0] == 4 &&
		      (!strcmp(a.node[0], "node3") || !strcmp(a.node[0], "node4")),
		      "job %d holds %d GPUs on %s, not own's free 4-GPU node: %s",
		      own, a.n ? a.cnt[0] : 0, a.n ? a.node[0] : "no node",
		      job_line(own));
	for (int i = 0; i < 2; i++)
		ck_assert_msg(job_has(job[i], "JobState=RUNNING"),
			      "opportunistic job %d was preempted though a "
			      "4-GPU node of own's was free: %s", job[i],
			      job_line(job[i]));
	cancel_all();
}
END_TEST

/*
 * Backfill's estimate for an exclusive job that may take a smaller node: the
 * size whose nodes free first. The 8-GPU nodes run own's jobs of an hour, the
 * 4-GPU nodes jobs of ten minutes (own's last 4 GPUs, and an opportunistic
 * one: QOS scavenger's GPU limit is below the cluster's 24): the waiting
 * opportunistic job is planned on a 4-GPU node. Before, it was estimated at
 * the largest size only: on an 8-GPU node, in an hour.
 */
START_TEST(test_exclusive_estimate_takes_a_smaller_node)
{
	static const struct {
		const char *args;
		int gpus;
	} fill[] = {
		{ "-A own -t 60", 8 },
		{ "-A own -t 60", 8 },
		{ "-A own -t 10", 4 },
		{ "-A own --qos=scavenger -t 10", 4 },
	};
	const char *args = "-N1 --exclusive --gres=gpu:1";
	char more[160], *line = NULL;
	int job[4], waits;
	bool planned = false;
	alloc_t a;

	cancel_all();
	for (int i = 0; i < 4; i++) {
		snprintf(more, sizeof(more), "%s %s", fill[i].args, args);
		job[i] = submit(more);
		ck_assert_msg(wait_job(job[i], "JobState=RUNNING", 120),
			      "exclusive job %d (%s) did not start: %s", job[i],
			      more, job_line(job[i]));
		job_alloc(job[i], &a);
		ck_assert_msg(a.n == 1 && a.cnt[0] == fill[i].gpus,
			      "job %d (%s) is not on a whole %d-GPU node: %s",
			      job[i], more, fill[i].gpus, job_line(job[i]));
	}
	snprintf(more, sizeof(more), "-A own --qos=scavenger -t 5 %s", args);
	waits = submit(more);
	for (int i = 0; i < 120 && !planned; i++) {
		free(line);
		line = job_line(waits);
		planned = line && (strstr(line, "SchedNodeList=node3") ||
				   strstr(line, "SchedNodeList=node4"));
		if (!planned)
			sleep(1);
	}
	ck_assert_msg(planned && strstr(line, "JobState=PENDING"),
		      "job %d is not planned on a 4-GPU node, which frees first: %s",
		      waits, line ? line : "");
	free(line);
	cancel_all();
}
END_TEST

/*
 * hivedctl whatif asks scontrol for a partition's nodes: an exclusive job in
 * partition small is one whole 4-GPU node there, as slurmctld places it above.
 * Before, whatif knew no partition and answered with an 8-GPU node.
 */
START_TEST(test_whatif_in_partition_of_small_nodes)
{
	char *out = NULL;

	cancel_all_seen_by_whatif();
	/* The state file (the config whatif may read) is saved at a reconfigure. */
	ck_assert_int_eq(run(NULL, "scontrol reconfigure"), 0);
	ck_assert_msg(run(&out, "'%s/hivedctl' --json whatif -A own --qos=scavenger -p small "
			  "-N1 --exclusive --gres=gpu:1 2>&1", e2e_builddir) == 0,
		      "hivedctl whatif -p small: %s", out ? out : "");
	ck_assert_msg(strstr(out, "\"startsNow\":true") &&
		      (strstr(out, "\"node3\"") || strstr(out, "\"node4\"")) &&
		      !strstr(out, "\"node1\"") && !strstr(out, "\"node2\""),
		      "whatif -p small does not start on node3 or node4: %s", out);
	ck_assert_msg(strstr(out, "\"leaves\":[0,1,2,3]"),
		      "whatif -p small does not take a whole 4-GPU node: %s", out);
	free(out);
	out = NULL;
	ck_assert_msg(run(&out, "'%s/hivedctl' whatif -A own -p nosuch --gres=gpu:1 2>&1",
			  e2e_builddir) == 1 && out && strstr(out, "--partition=nosuch"),
		      "an unknown partition is not named: %s", out ? out : "");
	free(out);
}
END_TEST

/*
 * Without -p, whatif asks about the partition sbatch would use: slurmctld's
 * default, or SBATCH_PARTITION. With small made the default, the exclusive job
 * is a whole 4-GPU node of it; gpu is made the default again before any check.
 * A list is tried as Slurm does: by PriorityTier, the first that starts it.
 */
START_TEST(test_whatif_in_default_partition)
{
	const char *ask = "--json whatif -A own --qos=scavenger -N1 --exclusive "
			  "--gres=gpu:1 2>&1";
	char *dflt = NULL, *env = NULL, *tier = NULL, *bad = NULL;
	int rc_dflt, rc_env, rc_tier, rc_bad;

	cancel_all_seen_by_whatif();
	ck_assert_int_eq(run(NULL, "scontrol reconfigure"), 0);
	/* Hidden: sbatch may still name it, and so may whatif. */
	ck_assert_int_eq(run(NULL, "scontrol update PartitionName=small "
			     "Default=YES PriorityTier=2 Hidden=YES"), 0);
	rc_dflt = run(&dflt, "env -u SBATCH_PARTITION '%s/hivedctl' %s",
		      e2e_builddir, ask);
	/* gpu is listed first, small has the higher tier: small first. */
	rc_tier = run(&tier, "'%s/hivedctl' -p gpu,small %s", e2e_builddir,
		      ask);
	ck_assert_int_eq(run(NULL, "scontrol update PartitionName=gpu "
			     "Default=YES; scontrol update PartitionName=small "
			     "PriorityTier=1 Hidden=NO"), 0);
	rc_env = run(&env, "SBATCH_PARTITION=small,gpu '%s/hivedctl' %s",
		     e2e_builddir, ask);
	rc_bad = run(&bad, "SBATCH_PARTITION=gpu,nosuch '%s/hivedctl' %s",
		     e2e_builddir, ask);

	ck_assert_msg(rc_dflt == 0 && strstr(dflt, "\"partition\":\"small\"") &&
		      strstr(dflt, "\"partitionFrom\":\"default\"") &&
		      strstr(dflt, "\"leaves\":[0,1,2,3]") &&
		      (strstr(dflt, "\"node3\"") || strstr(dflt, "\"node4\"")),
		      "whatif in default partition small: %s", dflt ? dflt : "");
	ck_assert_msg(rc_tier == 0 && strstr(tier, "\"partition\":\"small\"") &&
		      strstr(tier, "\"partitionsAsked\":[\"small\",\"gpu\"]") &&
		      strstr(tier, "\"leaves\":[0,1,2,3]"),
		      "whatif -p gpu,small with small's higher PriorityTier: %s",
		      tier ? tier : "");
	ck_assert_msg(rc_env == 0 && strstr(env, "\"partition\":\"small\"") &&
		      strstr(env, "\"partitionFrom\":\"SBATCH_PARTITION\"") &&
		      strstr(env, "\"leaves\":[0,1,2,3]"),
		      "whatif with SBATCH_PARTITION=small,gpu: %s", env ? env : "");
	ck_assert_msg(rc_bad == 1 && strstr(bad, "SBATCH_PARTITION=gpu,nosuch") &&
		      strstr(bad, "show partition nosuch"),
		      "an unknown partition in SBATCH_PARTITION is not named: %s",
		      bad ? bad : "");
	free(dflt);
	free(tier);
	free(env);
	free(bad);
	/* gpu is the default again: the largest node, 8 GPUs. */
	ck_assert_msg(run(&dflt, "env -u SBATCH_PARTITION '%s/hivedctl' %s",
			  e2e_builddir, ask) == 0 &&
		      strstr(dflt, "\"partition\":\"gpu\"") &&
		      strstr(dflt, "\"leaves\":[0,1,2,3,4,5,6,7]"),
		      "whatif in default partition gpu: %s", dflt ? dflt : "");
	free(dflt);
}
END_TEST

/*
 * A partition that does not take the job's account or QOS: slurmctld never asks
 * select/hived to start it there, so whatif must not say "starts now" there.
 * Before, it answered from the cells alone. Partition small is restored before
 * the asserts.
 */
START_TEST(test_whatif_partition_access)
{
	const char *ask = "--json whatif -A own -N1 --gres=gpu:1 2>&1";
	char *deny = NULL, *list = NULL, *qos = NULL, *root = NULL;
	int rc_deny, rc_list, rc_qos, rc_root, job, major = 0, minor = 0;
	int release;
	char *version = NULL;
	bool pends;

	/* The Slurm running: "slurm 23.11.11", Debian's "slurm-wlm 22.05.8". */
	ck_assert_int_eq(run(&version, "scontrol --version"), 0);
	ck_assert_msg(version && strchr(version, ' ') &&
		      sscanf(strchr(version, ' '), "%d.%d", &major, &minor) == 2,
		      "scontrol --version: %s", version ? version : "");
	free(version);
	release = major * 100 + minor;

	cancel_all_seen_by_whatif();
	ck_assert_int_eq(run(NULL, "scontrol update PartitionName=small "
			     "DenyAccounts=own"), 0);
	rc_deny = run(&deny, "'%s/hivedctl' -p small %s", e2e_builddir, ask);
	rc_list = run(&list, "'%s/hivedctl' -p small,gpu %s", e2e_builddir,
		      ask);
	/* Slurm agrees: such a job pends there, with the partition's reason. */
	job = submit("-A own -p small --gres=gpu:1");
	pends = false;
	for (int i = 0; i < 120 && !pends; i++) {
		/* 22.05 shows its message; later releases a reason word. */
		pends = job_has(job, "account_not_permitted") ||
			job_has(job, "Reason=AccountNotAllowed") ||
			job_has(job, "Reason=PartitionConfig");
		if (!pends)
			usleep(500 * 1000);
	}
	pends = pends && job_has(job, "JobState=PENDING");
	run(NULL, "scancel %d", job);
	/* Slurm 23.11 and later let an account in through its parent (root). */
	ck_assert_int_eq(run(NULL, "scontrol update PartitionName=small "
			     "DenyAccounts= AllowAccounts=root"), 0);
	rc_root = run(&root, "'%s/hivedctl' -p small %s", e2e_builddir, ask);
	ck_assert_int_eq(run(NULL, "scontrol update PartitionName=small "
			     "AllowAccounts=ALL AllowQos=normal,high"), 0);
	rc_qos = run(&qos, "'%s/hivedctl' -p small --qos=scavenger %s",
		     e2e_builddir, ask);
	ck_assert_int_eq(run(NULL, "scontrol update PartitionName=small "
			     "AllowQos=ALL"), 0);

	ck_assert_msg(rc_deny == 0 &&
		      strstr(deny, "\"cause\":\"partitionRefuses\"") &&
		      strstr(deny, "\"startsNow\":false") &&
		      strstr(deny, "DenyAccounts=own") &&
		      !strstr(deny, "\"placement\""),
		      "whatif in a partition denying own: %s", deny ? deny : "");
	ck_assert_msg(rc_list == 0 && strstr(list, "\"partition\":\"gpu\"") &&
		      strstr(list, "\"startsNow\":true"),
		      "whatif -p small,gpu with small denying own: %s",
		      list ? list : "");
	ck_assert_msg(pends, "job %d in a partition denying its account: %s",
		      job, job_line(job));
	if (release >= 2311)
		ck_assert_msg(rc_root == 0 &&
			      strstr(root, "\"startsNow\":true"),
			      "whatif in a partition allowing own's parent: %s",
			      root ? root : "");
	else
		ck_assert_msg(rc_root == 0 &&
			      strstr(root, "\"cause\":\"partitionRefuses\"") &&
			      strstr(root, "allows accounts root, not own"),
			      "22.05 matches the account alone: %s",
			      root ? root : "");
	ck_assert_msg(rc_qos == 0 &&
		      strstr(qos, "\"cause\":\"partitionRefuses\"") &&
		      strstr(qos, "allows QOS normal,high, not scavenger"),
		      "whatif with a QOS partition small does not allow: %s",
		      qos ? qos : "");
	free(deny);
	free(list);
	free(root);
	free(qos);
}
END_TEST

/* hivedctl copied into dir (a mkdtemp template), where hivedtest may run it. */
static void hivedctl_for_hivedtest(char *dir)
{
	ck_assert_msg(mkdtemp(dir) &&
		      run(NULL, "cp '%s/hivedctl' '%s/' && chmod 755 '%s'",
			  e2e_builddir, dir, dir) == 0,
		      "cannot copy hivedctl to %s", dir);
}

/* That copy run as hivedtest with args; its exit status, its output in *out. */
static int hivedctl_as_hivedtest(char **out, const char *dir, const char *args)
{
	return run(out, "runuser -u hivedtest -- env SLURM_CONF='%s' "
		   "PATH=\"$PATH\" '%s/hivedctl' %s", e2e_conf, dir, args);
}

/*
 * AllowGroups: a user in none of the groups is refused there; root, whom
 * slurmctld lets run anywhere, is not. Partition small is restored before the
 * asserts.
 */
START_TEST(test_whatif_partition_groups)
{
	const char *ask = "--json whatif -A own -p small -N1 --gres=gpu:1 2>&1";
	char dir[] = "/tmp/hived-e2e-mixed-XXXXXX";
	char *user = NULL, *root = NULL;
	int rc_user, rc_root;

	hivedctl_for_hivedtest(dir);
	cancel_all_seen_by_whatif();
	ck_assert_int_eq(run(NULL, "scontrol update PartitionName=small "
			     "AllowGroups=daemon"), 0);
	rc_user = hivedctl_as_hivedtest(&user, dir, ask);
	rc_root = run(&root, "'%s/hivedctl' %s", e2e_builddir, ask);
	ck_assert_int_eq(run(NULL, "scontrol update PartitionName=small "
			     "AllowGroups=ALL"), 0);
	run(NULL, "rm -rf '%s'", dir);

	ck_assert_msg(rc_user == 0 &&
		      strstr(user, "\"cause\":\"partitionRefuses\"") &&
		      strstr(user, "allows groups daemon"),
		      "whatif as hivedtest in a partition of group daemon: %s",
		      user ? user : "");
	ck_assert_msg(rc_root == 0 && strstr(root, "\"startsNow\":true"),
		      "whatif as root in a partition of group daemon: %s",
		      root ? root : "");
	free(user);
	free(root);
}
END_TEST

/*
 * A job without --qos gets its association's default QOS, and whatif must ask
 * with it: own's default QOS for root is made scavenger (opportunistic in
 * hived.conf), so whatif without -q answers for an opportunistic job, Slurm gives
 * a real job that QOS, and a partition denying it refuses. Before, whatif asked as
 * for a guaranteed job of no QOS. Restored before the asserts.
 */
START_TEST(test_whatif_default_qos)
{
	const char *ask = "--json whatif -A own -N1 --gres=gpu:1 2>&1";
	const char *assoc = "sacctmgr -i modify user where name=root account=own "
			    "cluster=hived set defaultqos=";
	char *plain = NULL, *denied = NULL;
	int rc_plain, rc_denied, job;
	bool given = false;

	cancel_all_seen_by_whatif();
	ck_assert_int_eq(run(NULL, "%sscavenger", assoc), 0);
	/* slurmctld has the new default once a job gets it. */
	job = submit("-A own -p small --gres=gpu:1 -t 1 --hold");
	for (int i = 0; i < 60 && !given; i++) {
		given = job_has(job, "QOS=scavenger");
		if (!given) {
			run(NULL, "scancel %d", job);
			usleep(500 * 1000);
			job = submit("-A own -p small --gres=gpu:1 -t 1 --hold");
		}
	}
	run(NULL, "scancel %d", job);
	rc_plain = run(&plain, "'%s/hivedctl' %s", e2e_builddir, ask);
	ck_assert_int_eq(run(NULL, "scontrol update PartitionName=small "
			     "DenyQos=scavenger"), 0);
	rc_denied = run(&denied, "'%s/hivedctl' -p small %s", e2e_builddir, ask);
	ck_assert_int_eq(run(NULL, "scontrol update PartitionName=small "
			     "DenyQos="), 0);
	ck_assert_int_eq(run(NULL, "%snormal", assoc), 0);

	ck_assert_msg(given, "a job of own without --qos never got QOS scavenger");
	ck_assert_msg(rc_plain == 0 &&
		      strstr(plain, "\"qos\":\"scavenger\"") &&
		      strstr(plain, "\"qosFrom\":\"association\"") &&
		      strstr(plain, "\"class\":\"opportunistic\""),
		      "whatif without -q, own's default QOS scavenger: %s",
		      plain ? plain : "");
	ck_assert_msg(rc_denied == 0 &&
		      strstr(denied, "\"cause\":\"partitionRefuses\"") &&
		      strstr(denied, "scavenger"),
		      "whatif without -q in a partition denying own's default "
		      "QOS: %s", denied ? denied : "");
	free(plain);
	free(denied);
}
END_TEST

/*
 * -q of a QOS the user's association may not use (AccountingStorageEnforce has
 * qos): sbatch refuses the job, and so does whatif, for a user who is not an
 * operator; root may. A QOS that does not exist is refused for anyone, and so is
 * one with RequiresReservation (whatif asks about no reservation). Before,
 * whatif answered "starts now" for all three.
 */
START_TEST(test_whatif_qos_access)
{
	const char *ask = "whatif -A own -q hivedx -N1 --gres=gpu:1 2>&1";
	char dir[] = "/tmp/hived-e2e-mixed-XXXXXX";
	char *user = NULL, *root = NULL, *none = NULL, *sbatch = NULL;
	char *resv = NULL, *resv_sbatch = NULL;
	int rc_user, rc_root, rc_none, rc_sbatch, rc_resv, rc_resv_sbatch = 0;

	hivedctl_for_hivedtest(dir);
	cancel_all_seen_by_whatif();
	ck_assert_int_eq(run(NULL, "sacctmgr -i add qos hivedx"), 0);
	rc_user = hivedctl_as_hivedtest(&user, dir, ask);
	rc_sbatch = run(&sbatch, "runuser -u hivedtest -- env SLURM_CONF='%s' "
			"sbatch -A own -q hivedx --gres=gpu:1 --chdir=/tmp "
			"-o /dev/null --wrap 'sleep 1' 2>&1", e2e_conf);
	rc_root = run(&root, "'%s/hivedctl' %s", e2e_builddir, ask);
	rc_none = run(&none, "'%s/hivedctl' whatif -A own -q hivednosuch "
		      "--gres=gpu:1 2>&1", e2e_builddir);
	run(NULL, "sacctmgr -i delete qos hivedx");
	run(NULL, "rm -rf '%s'", dir);

	ck_assert_int_eq(run(NULL, "sacctmgr -i add qos hivedr "
			     "flags=RequiresReservation"), 0);
	/* slurmctld knows the QOS once sbatch names its flag's refusal. */
	for (int i = 0; i < 20 && !rc_resv_sbatch; i++) {
		free(resv_sbatch);
		rc_resv_sbatch = run(&resv_sbatch, "sbatch -A own -q hivedr "
				     "--gres=gpu:1 -o /dev/null --wrap 'sleep 1' "
				     "2>&1");
		if (!rc_resv_sbatch) {
			run(NULL, "scancel %d",
			    atoi(strrchr(resv_sbatch, ' ') + 1));
			usleep(500 * 1000);
		}
	}
	rc_resv = run(&resv, "'%s/hivedctl' whatif -A own -q hivedr "
		      "--gres=gpu:1 2>&1", e2e_builddir);
	run(NULL, "sacctmgr -i delete qos hivedr");

	ck_assert_msg(rc_sbatch != 0 && strstr(sbatch, "Invalid qos"),
		      "sbatch -q hivedx as hivedtest: %s", sbatch ? sbatch : "");
	ck_assert_msg(rc_user == 1 && strstr(user, "not hivedx") &&
		      strstr(user, "Invalid qos specification"),
		      "whatif -q hivedx as hivedtest: %s", user ? user : "");
	ck_assert_msg(rc_root == 0 && strstr(root, "Starts now"),
		      "whatif -q hivedx as root (an operator): %s",
		      root ? root : "");
	ck_assert_msg(rc_none == 1 && strstr(none, "does not exist"),
		      "whatif -q of no QOS: %s", none ? none : "");
	ck_assert_msg(rc_resv_sbatch != 0 &&
		      strstr(resv_sbatch, "Invalid qos"),
		      "sbatch -q hivedr (RequiresReservation): %s",
		      resv_sbatch ? resv_sbatch : "");
	ck_assert_msg(rc_resv == 1 && strstr(resv, "RequiresReservation") &&
		      strstr(resv, "Invalid qos specification"),
		      "whatif -q hivedr (RequiresReservation): %s",
		      resv ? resv : "");
	free(resv);
	free(resv_sbatch);
	free(user);
	free(root);
	free(none);
	free(sbatch);
}
END_TEST

/*
 * Per-job limits slurmctld applies before it asks select/hived
 * (AccountingStorageEnforce has limits). QOS normal's MaxTRESPerJob
 * gres/gpu=1 keeps a 2-GPU job pending with QOSMaxGRESPerJob, and whatif must
 * say so, with that reason; with DenyOnLimit sbatch refuses the job, and whatif
 * answers refused; root's association's MaxTRES gres/gpu=1 holds it where no
 * QOS sets a GPU limit (AssocMaxGRESPerJob); partition small's MaxNodes=1 holds
 * a 2-node job (PartitionNodeLimit); QOS normal's MaxTRESPerUser gres/gpu=2,
 * while root runs a 2-GPU job in it, holds a 1-GPU job (QOSMaxGRESPerUser) until
 * that job ends. Before, whatif answered "starts now" to all five. Restored
 * before the asserts.
 */
static int held_by(const char *args, const char *reason)
{
	int job = 0;

	/* slurmctld has the new limit once a job is held by it. */
	for (int i = 0; i < 20; i++) {
		job = submit(args);
		if (wait_job(job, reason, 5))
			return job;
		run(NULL, "scancel %d", job);
	}
	return -job;
}

START_TEST(test_whatif_limits)
{
	const char *args = "-A own -q normal -p small -N1 --gres=gpu:2 -t 5";
	const char *ask = "--json whatif -A own -q normal -p small -N1 "
			  "--gres=gpu:2 2>&1";
	const char *user = "sacctmgr -i modify user where name=root account=own "
			   "cluster=hived set MaxTRES=gres/gpu=";
	char *qos = NULL, *deny = NULL, *assoc = NULL, *sbatch = NULL;
	char *text = NULL, *part = NULL, *usage = NULL, *usage_text = NULL;
	char *held_job = NULL, frees[64], when[64];
	int held_qos, held_assoc, rc_qos, rc_deny, rc_assoc, rc_sbatch = 0;
	int rc_text, held_part, rc_part, running, held_usage, rc_usage;
	int rc_usage_text;

	cancel_all_seen_by_whatif();
	ck_assert_int_eq(run(NULL, "sacctmgr -i modify qos normal set "
			     "MaxTRESPerJob=gres/gpu=1"), 0);
	held_qos = held_by(args, "Reason=QOSMaxGRESPerJob");
	rc_qos = run(&qos, "'%s/hivedctl' %s", e2e_builddir, ask);
	rc_text = run(&text, "'%s/hivedctl' %s", e2e_builddir, ask + 7);
	run(NULL, "scancel %d", held_qos > 0 ? held_qos : -held_qos);

	ck_assert_int_eq(run(NULL, "sacctmgr -i modify qos normal set "
			     "flags+=DenyOnLimit"), 0);
	for (int i = 0; i < 20 && !rc_sbatch; i++) {
		free(sbatch);
		rc_sbatch = run(&sbatch, "sbatch %s -o /dev/null --wrap 'sleep 1' "
				"2>&1", args);
		if (!rc_sbatch) {
			run(NULL, "scancel %d", atoi(strrchr(sbatch, ' ') + 1));
			usleep(500 * 1000);
		}
	}
	rc_deny = run(&deny, "'%s/hivedctl' %s", e2e_builddir, ask);
	ck_assert_int_eq(run(NULL, "sacctmgr -i modify qos normal set "
			     "flags-=DenyOnLimit MaxTRESPerJob=gres/gpu=-1"), 0);

	ck_assert_int_eq(run(NULL, "%s1", user), 0);
	held_assoc = held_by(args, "Reason=AssocMaxGRESPerJob");
	rc_assoc = run(&assoc, "'%s/hivedctl' %s", e2e_builddir, ask);
	run(NULL, "scancel %d", held_assoc > 0 ? held_assoc : -held_assoc);
	ck_assert_int_eq(run(NULL, "%s-1", user), 0);

	ck_assert_int_eq(run(NULL, "scontrol update PartitionName=small "
			     "MaxNodes=1"), 0);
	held_part = held_by("-A own -p small -N2 --gres=gpu:1 -t 5",
			    "Reason=PartitionNodeLimit");
	rc_part = run(&part, "'%s/hivedctl' --json whatif -A own -p small -N2 "
		      "--gres=gpu:1 2>&1", e2e_builddir);
	run(NULL, "scancel %d", held_part > 0 ? held_part : -held_part);
	ck_assert_int_eq(run(NULL, "scontrol update PartitionName=small "
			     "MaxNodes=UNLIMITED"), 0);

	ck_assert_int_eq(run(NULL, "sacctmgr -i modify qos normal set "
			     "MaxTRESPerUser=gres/gpu=2"), 0);
	running = submit("-A own -q normal -p small -N1 --gres=gpu:2 -t 30");
	ck_assert_msg(wait_job(running, "JobState=RUNNING", 60),
		      "job %d of 2 GPUs did not start: %s", running,
		      job_line(running));
	held_usage = held_by("-A own -q normal -p small -N1 --gres=gpu:1 -t 5",
			     "Reason=QOSMaxGRESPerUser");
	rc_usage = run(&usage, "'%s/hivedctl' --json whatif -A own -q normal "
		       "-p small -N1 --gres=gpu:1 2>&1", e2e_builddir);
	rc_usage_text = run(&usage_text, "'%s/hivedctl' whatif -A own -q normal "
			    "-p small -N1 --gres=gpu:1 2>&1", e2e_builddir);
	run(&held_job, "'%s/hivedctl' job %d 2>&1", e2e_builddir,
	    held_usage > 0 ? held_usage : -held_usage);
	snprintf(frees, sizeof(frees), "\"afterJobs\":[\"%d\"]", running);
	snprintf(when, sizeof(when), "when job %d ends; cells permitting", running);
	run(NULL, "scancel %d %d", running,
	    held_usage > 0 ? held_usage : -held_usage);
	ck_assert_int_eq(run(NULL, "sacctmgr -i modify qos normal set "
			     "MaxTRESPerUser=gres/gpu=-1"), 0);

	ck_assert_msg(held_qos > 0, "job %d never held by QOSMaxGRESPerJob: %s",
		      -held_qos, job_line(-held_qos));
	ck_assert_msg(rc_qos == 0 && strstr(qos, "\"cause\":\"limit\"") &&
		      strstr(qos, "\"outcome\":\"waiting\"") &&
		      strstr(qos, "\"slurmReason\":\"QOSMaxGRESPerJob\"") &&
		      strstr(qos, "MaxTRESPerJob gres/gpu=1 of QOS normal"),
		      "whatif under QOS normal's MaxTRESPerJob: %s", qos ? qos : "");
	ck_assert_msg(rc_text == 0 &&
		      strstr(text, "Waits: a partition, QOS or association limit "
			     "keeps it out"),
		      "whatif's text under the limit: %s", text ? text : "");
	ck_assert_msg(rc_sbatch != 0 && strstr(sbatch, "policy"),
		      "sbatch under DenyOnLimit: %s", sbatch ? sbatch : "");
	ck_assert_msg(rc_deny == 0 && strstr(deny, "\"outcome\":\"rejected\"") &&
		      strstr(deny, "DenyOnLimit"),
		      "whatif under DenyOnLimit: %s", deny ? deny : "");
	ck_assert_msg(held_assoc > 0, "job %d never held by AssocMaxGRESPerJob: %s",
		      -held_assoc, job_line(-held_assoc));
	ck_assert_msg(rc_assoc == 0 &&
		      strstr(assoc, "\"slurmReason\":\"AssocMaxGRESPerJob\"") &&
		      strstr(assoc, "of the association of root in account own"),
		      "whatif under the association's MaxTRES: %s",
		      assoc ? assoc : "");
	ck_assert_msg(held_part > 0, "job %d never held by PartitionNodeLimit: %s",
		      -held_part, job_line(-held_part));
	ck_assert_msg(rc_part == 0 &&
		      strstr(part, "\"slurmReason\":\"PartitionNodeLimit\"") &&
		      strstr(part, "(MaxNodes=1)"),
		      "whatif -N2 in a partition of MaxNodes=1: %s", part ? part : "");
	ck_assert_msg(held_usage > 0, "job %d never held by QOSMaxGRESPerUser: %s",
		      -held_usage, job_line(-held_usage));
	ck_assert_msg(rc_usage == 0 &&
		      strstr(usage, "\"slurmReason\":\"QOSMaxGRESPerUser\"") &&
		      strstr(usage, "user root's jobs in it hold 2 GPUs") &&
		      strstr(usage, "\"limitFrees\":{\"at\":1") &&
		      strstr(usage, frees),
		      "whatif past QOS normal's MaxTRESPerUser: %s (want %s)",
		      usage ? usage : "", frees);
	ck_assert_msg(rc_usage_text == 0 &&
		      strstr(usage_text, "The limit frees: "),
		      "whatif's text past MaxTRESPerUser: %s",
		      usage_text ? usage_text : "");
	/* hivedctl job on the held job: the same limit, and when it frees. */
	ck_assert_msg(held_job &&
		      strstr(held_job, "pending in Slurm (reason QOSMaxGRESPerUser)") &&
		      strstr(held_job, "user root's jobs in it hold 2 GPUs") &&
		      strstr(held_job, "The limit frees: ") && strstr(held_job, when),
		      "hivedctl job on a job held by MaxTRESPerUser: %s (want %s)",
		      held_job ? held_job : "", when);
	free(held_job);
	free(usage);
	free(usage_text);
	free(part);
	free(qos);
	free(deny);
	free(assoc);
	free(sbatch);
	free(text);
}
END_TEST

/*
 * whatif -t against the three time limits slurmctld checks before it asks
 * select/hived: the partition's MaxTime, the QOS's MaxWall and the
 * association's. In each, Slurm holds a real job with the reason whatif names;
 * the same job with a shorter -t is not held by whatif.
 */
static char *whatif_past(const char *time)
{
	char *out = NULL;

	run(&out, "'%s/hivedctl' --json whatif -A own -q normal -p small -N1 "
	    "--gres=gpu:1 -t %s 2>&1", e2e_builddir, time);
	return out;
}

START_TEST(test_whatif_time_limits)
{
	const char *args = "-A own -q normal -p small -N1 --gres=gpu:1 -t 20";
	const char *set[] = {
		"scontrol update PartitionName=small MaxTime=10",
		"sacctmgr -i modify qos normal set MaxWall=10",
		"sacctmgr -i modify user where name=root account=own "
		"cluster=hived set MaxWall=10",
	};
	const char *unset[] = {
		"scontrol update PartitionName=small MaxTime=UNLIMITED",
		"sacctmgr -i modify qos normal set MaxWall=-1",
		"sacctmgr -i modify user where name=root account=own "
		"cluster=hived set MaxWall=-1",
	};
	const char *reason[] = {"PartitionTimeLimit",
				"QOSMaxWallDurationPerJobLimit",
				"AssocMaxWallDurationPerJobLimit"};
	const char *limit[] = {"(MaxTime=00:10:00)",
			       "MaxWall 00:10:00 of QOS normal",
			       "MaxWall 00:10:00 of the association of root "
			       "in account own"};
	char *past[3], *within[3], *job_text[3], want[64];
	int held[3];

	cancel_all_seen_by_whatif();
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(run(NULL, "%s", set[i]), 0);
		snprintf(want, sizeof(want), "Reason=%s", reason[i]);
		held[i] = held_by(args, want);
		past[i] = whatif_past("20");
		within[i] = whatif_past("0:10:00");
		job_text[i] = NULL;
		run(&job_text[i], "'%s/hivedctl' job %d 2>&1", e2e_builddir,
		    held[i] > 0 ? held[i] : -held[i]);
		run(NULL, "scancel %d", held[i] > 0 ? held[i] : -held[i]);
		ck_assert_int_eq(run(NULL, "%s", unset[i]), 0);
	}
	for (int i = 0; i < 3; i++) {
		snprintf(want, sizeof(want), "\"slurmReason\":\"%s\"", reason[i]);
		ck_assert_msg(held[i] > 0, "job %d never held by %s: %s",
			      -held[i], reason[i], job_line(-held[i]));
		ck_assert_msg(past[i] && strstr(past[i], want) &&
			      strstr(past[i], limit[i]) &&
			      strstr(past[i], "\"outcome\":\"waiting\""),
			      "whatif -t 20 past %s: %s", limit[i],
			      past[i] ? past[i] : "");
		ck_assert_msg(within[i] && !strstr(within[i], "\"cause\":\"limit\"") &&
			      strstr(within[i], "\"startsNow\":true"),
			      "whatif -t 0:10:00 within %s: %s", limit[i],
			      within[i] ? within[i] : "");
		/* hivedctl job on the held job names the same limit. */
		ck_assert_msg(job_text[i] && strstr(job_text[i], reason[i]) &&
			      strstr(job_text[i], limit[i]),
			      "hivedctl job on a job held by %s: %s", reason[i],
			      job_text[i] ? job_text[i] : "");
		free(past[i]);
		free(within[i]);
		free(job_text[i]);
	}

	/* Without -t the job gets the partition's DefaultTime, past MaxWall. */
	ck_assert_int_eq(run(NULL, "scontrol update PartitionName=small "
			     "DefaultTime=20"), 0);
	ck_assert_int_eq(run(NULL, "%s", set[1]), 0);
	held[0] = held_by("-A own -q normal -p small -N1 --gres=gpu:1",
			  "Reason=QOSMaxWallDurationPerJobLimit");
	run(&past[0], "'%s/hivedctl' --json whatif -A own -q normal -p small "
	    "-N1 --gres=gpu:1 2>&1", e2e_builddir);
	run(NULL, "scancel %d", held[0] > 0 ? held[0] : -held[0]);
	ck_assert_int_eq(run(NULL, "%s", unset[1]), 0);
	/* NONE cannot be set again; UNLIMITED is what a job got without it. */
	ck_assert_int_eq(run(NULL, "scontrol update PartitionName=small "
			     "DefaultTime=UNLIMITED"), 0);
	ck_assert_msg(held[0] > 0, "job %d without -t never held by MaxWall: %s",
		      -held[0], job_line(-held[0]));
	ck_assert_msg(past[0] &&
		      strstr(past[0], "\"slurmReason\":\"QOSMaxWallDurationPerJobLimit\"") &&
		      strstr(past[0], "without -t the job gets partition small's "
			     "DefaultTime, 00:20:00"),
		      "whatif without -t past MaxWall by DefaultTime: %s",
		      past[0] ? past[0] : "");
	free(past[0]);
}
END_TEST

/*
 * An account's GrpJobs counts every running job under it: with one running,
 * Slurm holds a second with AssocGrpJobsLimit; whatif names it and when the
 * running one ends, and so does hivedctl job on the held one.
 */
START_TEST(test_whatif_group_jobs)
{
	const char *args = "-A own -q normal -p small -N1 --gres=gpu:1";
	char *ask = NULL, *held_text = NULL, frees[64], when[64];
	int running, held;

	cancel_all_seen_by_whatif();
	ck_assert_int_eq(run(NULL, "sacctmgr -i modify account where name=own "
			     "cluster=hived set GrpJobs=1"), 0);
	running = submit("-A own -q normal -p small -N1 --gres=gpu:1 -t 30");
	ck_assert_msg(wait_job(running, "JobState=RUNNING", 60),
		      "job %d did not start: %s", running, job_line(running));
	held = held_by("-A own -q normal -p small -N1 --gres=gpu:1 -t 5",
		       "Reason=AssocGrpJobsLimit");
	run(&ask, "'%s/hivedctl' --json whatif %s 2>&1", e2e_builddir, args);
	run(&held_text, "'%s/hivedctl' job %d 2>&1", e2e_builddir,
	    held > 0 ? held : -held);
	run(NULL, "scancel %d %d", running, held > 0 ? held : -held);
	ck_assert_int_eq(run(NULL, "sacctmgr -i modify account where name=own "
			     "cluster=hived set GrpJobs=-1"), 0);

	snprintf(frees, sizeof(frees), "\"afterJobs\":[\"%d\"]", running);
	snprintf(when, sizeof(when), "when job %d ends", running);
	ck_assert_msg(held > 0, "job %d never held by AssocGrpJobsLimit: %s",
		      -held, job_line(-held));
	ck_assert_msg(ask && strstr(ask, "\"slurmReason\":\"AssocGrpJobsLimit\"") &&
		      strstr(ask, "GrpJobs 1 of account own: 1 job runs under it") &&
		      strstr(ask, frees),
		      "whatif past account own's GrpJobs: %s (want %s)",
		      ask ? ask : "", frees);
	ck_assert_msg(held_text &&
		      strstr(held_text, "(reason AssocGrpJobsLimit)") &&
		      strstr(held_text, "GrpJobs 1 of account own") &&
		      strstr(held_text, when),
		      "hivedctl job on a job held by GrpJobs: %s",
		      held_text ? held_text : "");
	free(ask);
	free(held_text);
}
END_TEST

int main(void)
{
	int rc = e2e_init("mixed");
	TCase *tc;

	if (rc)
		return rc;
	tc = tcase_create("mixed");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_up);
	tcase_add_test(tc, test_guaranteed_exclusive_in_partition_of_small_nodes);
	tcase_add_test(tc, test_opportunistic_exclusive_in_partition_of_small_nodes);
	tcase_add_test(tc, test_exclusive_without_gpus_in_partition_of_small_nodes);
	tcase_add_test(tc, test_exclusive_takes_the_largest_node_it_may);
	tcase_add_test(tc, test_guaranteed_exclusive_takes_a_smaller_node);
	tcase_add_test(tc, test_opportunistic_exclusive_takes_a_smaller_node);
	tcase_add_test(tc, test_exclusive_takes_a_free_smaller_node_before_preempting);
	tcase_add_test(tc, test_exclusive_estimate_takes_a_smaller_node);
	tcase_add_test(tc, test_whatif_in_partition_of_small_nodes);
	tcase_add_test(tc, test_whatif_in_default_partition);
	tcase_add_test(tc, test_whatif_partition_access);
	tcase_add_test(tc, test_whatif_partition_groups);
	tcase_add_test(tc, test_whatif_default_qos);
	tcase_add_test(tc, test_whatif_qos_access);
	tcase_add_test(tc, test_whatif_limits);
	tcase_add_test(tc, test_whatif_time_limits);
	tcase_add_test(tc, test_whatif_group_jobs);
	return e2e_run("mixed", tc, cancel_all);
}
