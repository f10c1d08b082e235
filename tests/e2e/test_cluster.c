/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_cluster.c - end to end on a real Slurm cluster running this tree's plugins.
 *
 * scripts/hived-cluster starts munge, MariaDB + slurmdbd, slurmctld with
 * SelectType=select/hived and PriorityType=priority/hived, and 8 slurmd with 8 fake
 * GPUs each. Jobs print the CUDA_VISIBLE_DEVICES every node gave them; the test
 * checks those against what slurmctld says it allocated, then stops the cluster
 * and checks that nothing it started is left. Needs root (exit 77 otherwise).
 *
 * The cluster directory's path is longer than a Unix socket path may be (108
 * bytes): hived-cluster must keep munged's and MariaDB's sockets and slurmd's
 * spool (slurmstepd's sockets) in its short runtime directory, and remove that
 * directory on "down". A listener on the first port of the directory's slot
 * makes hived-cluster move to the next free slot.
 */
#define _GNU_SOURCE
#include <check.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hived.h"
#include "run.h"
#include "../check_run.h"

#define NODES 8
#define GPUS 8
#define MAX_PIDS 64

/* Below tests/e2e/cluster: longer than any sun_path whatever the build dir. */
#define LONG_DIR "cluster-in-a-directory-whose-path-is-longer-than-the-108-bytes-of-a-unix-socket-path"
#define SUN_PATH_MAX 108

static char srcdir[2048], builddir[2048], clusterdir[2200], jobdir[2300];

typedef struct {
	char node[64];
	int idx[GPUS];
	int n;
} placement;

static bool cluster_up(void)
{
	return run(NULL, "scontrol ping | grep -q 'is UP'") == 0;
}

static void require_cluster(void)
{
	ck_assert_msg(cluster_up(), "the cluster is not up (see %s/log)",
		      clusterdir);
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Wait until the job's output file has `lines` lines; RET the text. */
static char *wait_output(const char *job, int lines, int seconds)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s.out", jobdir, job);
	for (int i = 0; i < seconds * 2; i++) {
		char *text = read_file(path);
		int n = 0;

		for (char *p = text; p && *p; p++)
			n += *p == '\n';
		if (n >= lines)
			return text;
		free(text);
		usleep(500 * 1000);
	}
	return read_file(path);
}

/* "node3 4,5" lines -> placements; RET count. */
static int parse_printed(char *text, placement *pl, int max)
{
	int n = 0;

	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char node[64], list[256];

		ck_assert_msg(n < max, "more output lines than nodes: '%s'", line);
		ck_assert_msg(sscanf(line, "%63s %255s", node, list) == 2,
			      "job printed '%s', expected '<node> <gpu list>'",
			      line);
		snprintf(pl[n].node, sizeof(pl[n].node), "%s", node);
		pl[n].n = parse_index_list(list, pl[n].idx, GPUS);
		ck_assert_msg(pl[n].n > 0,
			      "CUDA_VISIBLE_DEVICES '%s' on %s is not a GPU list",
			      list, node);
		qsort(pl[n].idx, pl[n].n, sizeof(int), cmp_int);
		n++;
	}
	return n;
}

/*
 * "scontrol -d -o show job" lists per-node details as
 * "Nodes=node[1-2] CPU_IDs=0 Mem=0 GRES=gpu:a100:2(IDX:0-1)"; nodes with the same
 * details share one entry.
 */
static int parse_allocated(const char *text, placement *pl, int max)
{
	int n = 0;
	const char *p = text;

	while ((p = strstr(p, " Nodes="))) {
		char nodes[256], *hosts = NULL;
		const char *gres;
		int idx[GPUS], cnt;

		ck_assert(sscanf(p, " Nodes=%255s", nodes) == 1);
		gres = strstr(p, "(IDX:");
		ck_assert_msg(gres, "no GRES IDX after Nodes=%s", nodes);
		char list[256];
		ck_assert(sscanf(gres, "(IDX:%255[0-9,-])", list) == 1);
		cnt = parse_index_list(list, idx, GPUS);
		ck_assert_msg(cnt > 0, "bad IDX list '%s'", list);
		ck_assert_int_eq(run(&hosts, "scontrol show hostnames '%s'", nodes), 0);
		for (char *save = NULL, *h = strtok_r(hosts, "\n", &save); h;
		     h = strtok_r(NULL, "\n", &save)) {
			ck_assert(n < max);
			snprintf(pl[n].node, sizeof(pl[n].node), "%s", h);
			memcpy(pl[n].idx, idx, sizeof(idx));
			pl[n].n = cnt;
			qsort(pl[n].idx, cnt, sizeof(int), cmp_int);
			n++;
		}
		free(hosts);
		p = gres;
	}
	return n;
}

static const placement *find_node(const placement *pl, int n, const char *node)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(pl[i].node, node))
			return &pl[i];
	return NULL;
}

/* Submit gpus.sh on `nodes` nodes with `gpus` GPUs each and check placement. */
static void check_gpu_job(const char *account, int nodes, int gpus)
{
	char *out = NULL, job[32], *text, *detail = NULL;
	placement printed[NODES], allocated[NODES];
	int np, na;

	require_cluster();
	ck_assert_msg(run(&out,
			  "sbatch --parsable -A %s -N%d --gres=gpu:%d --chdir=%s "
			  "-o '%s/%%j.out' %s/gpus.sh",
			  account, nodes, gpus, jobdir, jobdir, jobdir) == 0,
		      "sbatch failed: %s", out);
	ck_assert(sscanf(out, "%31[0-9]", job) == 1);
	free(out);

	text = wait_output(job, nodes, 90);
	ck_assert_msg(text, "job %s wrote no output in 90 s", job);
	np = parse_printed(text, printed, NODES);
	free(text);
	ck_assert_msg(np == nodes, "job %s printed %d node lines, expected %d",
		      job, np, nodes);

	ck_assert_int_eq(run(&detail, "scontrol -d -o show job %s", job), 0);
	ck_assert_msg(strstr(detail, "JobState=RUNNING"),
		      "job %s is not running: %s", job, detail);
	char acct[64];
	snprintf(acct, sizeof(acct), " Account=%s ", account);
	ck_assert_msg(strstr(detail, acct), "job %s not charged to %s", job,
		      account);
	na = parse_allocated(detail, allocated, NODES);
	free(detail);
	ck_assert_msg(na == nodes, "scontrol shows %d nodes for job %s, expected %d",
		      na, job, nodes);

	for (int i = 0; i < np; i++) {
		const placement *a = find_node(allocated, na, printed[i].node);

		for (int j = 0; j < i; j++)
			ck_assert_msg(strcmp(printed[j].node, printed[i].node),
				      "job %s printed node %s twice", job,
				      printed[i].node);
		ck_assert_msg(printed[i].n == gpus,
			      "job %s on %s saw %d GPUs, asked for %d", job,
			      printed[i].node, printed[i].n, gpus);
		for (int k = 0; k < printed[i].n; k++) {
			ck_assert_msg(printed[i].idx[k] >= 0 &&
					      printed[i].idx[k] < GPUS,
				      "GPU index %d out of 0..%d",
				      printed[i].idx[k], GPUS - 1);
			ck_assert_msg(k == 0 ||
					      printed[i].idx[k] != printed[i].idx[k - 1],
				      "GPU %d listed twice on %s",
				      printed[i].idx[k], printed[i].node);
		}
		ck_assert_msg(a, "job %s ran on %s, which slurmctld did not allocate",
			      job, printed[i].node);
		ck_assert_msg(a->n == printed[i].n &&
				      !memcmp(a->idx, printed[i].idx,
					      sizeof(int) * a->n),
			      "job %s on %s: CUDA_VISIBLE_DEVICES differs from the GRES IDX slurmctld allocated",
			      job, printed[i].node);
	}
	ck_assert_int_eq(run(NULL, "scancel %s", job), 0);
}

/* The port base hived-cluster derives from the cluster directory. */
static int derived_port_base(void)
{
	char *out = NULL;
	unsigned long sum = 0;

	ck_assert_int_eq(run(&out, "mkdir -p '%s' && cd '%s' && pwd | cksum | cut -d' ' -f1",
			     clusterdir, clusterdir),
			 0);
	sum = strtoul(out ? out : "0", NULL, 10);
	free(out);
	return 10000 + (int) (sum % 226) * 100;
}

/* A listener on 127.0.0.1:port (-1 if another program has it already). */
static int hold_port(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	ck_assert_int_ge(fd, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *) &a, sizeof(a)) || listen(fd, 1)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The number after "key=" in file, -1 if absent. */
static int conf_number(const char *file, const char *key)
{
	char *out = NULL;
	int v = -1;

	if (!run(&out, "sed -n 's/^%s=//p' '%s' | head -1", key, file) && out && *out)
		v = atoi(out);
	free(out);
	return v;
}

/*
 * Another program listens on the first port of this directory's slot (as a
 * second cluster whose directory hashes to the same slot would): the cluster
 * comes up on the next free slot instead of failing.
 */
START_TEST(test_up)
{
	char *out = NULL, env[2400], conf[2400];
	int base = derived_port_base(), held = hold_port(base), rc;

	rc = run(&out,
		 "'%s/scripts/hived-cluster' up --dir '%s' --fresh -q "
		 "--nodes %d --gpus %d --sockets 2 --racks 2 "
		 "--select hived --priority hived "
		 "--plugin-dir '%s/src/slurm/.libs'",
		 srcdir, clusterdir, NODES, GPUS, builddir);
	if (held >= 0)
		close(held);
	ck_assert_msg(rc == 0, "hived-cluster up failed (%d):\n%s", rc, out);
	free(out);
	snprintf(env, sizeof(env), "%s/cluster.env", clusterdir);
	snprintf(conf, sizeof(conf), "%s/etc/slurm.conf", clusterdir);
	ck_assert_msg(conf_number(env, "port_base") != base,
		      "port %d was in use, yet the cluster took port base %d", base,
		      conf_number(env, "port_base"));
	ck_assert_int_eq(conf_number(conf, "SlurmctldPort"), conf_number(env, "port_base"));
	ck_assert(cluster_up());
}
END_TEST

/* The runtime directory hived-cluster recorded, "" if none; free it. */
static char *runtime_dir(void)
{
	char path[4200], *text;

	snprintf(path, sizeof(path), "%s/runtime-dir", clusterdir);
	text = read_file(path);
	if (!text)
		return strdup("");
	text[strcspn(text, "\n")] = '\0';
	return text;
}

START_TEST(test_long_dir_sockets)
{
	char *rt = runtime_dir(), sock[4300];
	struct stat st;

	ck_assert_msg(strlen(clusterdir) + strlen("/munge.socket.2") > SUN_PATH_MAX,
		      "the cluster dir %s is too short to test long paths", clusterdir);
	ck_assert_msg(*rt, "no %s/runtime-dir", clusterdir);
	snprintf(sock, sizeof(sock), "%s/munge.socket.2", rt);
	ck_assert_msg(strlen(sock) < SUN_PATH_MAX, "munge socket path %s too long", sock);
	ck_assert_msg(stat(sock, &st) == 0 && S_ISSOCK(st.st_mode),
		      "munged's socket is not at %s", sock);
	free(rt);
}
END_TEST

START_TEST(test_plugins_configured)
{
	char *out = NULL, val[256];

	require_cluster();
	ck_assert_int_eq(run(&out, "scontrol show config"), 0);
	ck_assert_msg(config_value(out, "SelectType", val, sizeof(val)),
		      "no SelectType in scontrol show config");
	ck_assert_str_eq(val, "select/hived");
	ck_assert(config_value(out, "PriorityType", val, sizeof(val)));
	ck_assert_str_eq(val, "priority/hived");
	free(out);
	ck_assert_int_eq(run(&out, "sinfo -h -o '%%D %%t'"), 0);
	ck_assert_msg(strstr(out, "8 idle"), "expected 8 idle nodes, sinfo: %s", out);
	free(out);
}
END_TEST

/*
 * hivedctl status names the Slurm release select/hived runs under, the one
 * `slurmctld -V` prints last ("slurm 24.11.5", Debian's "slurm-wlm 22.05.8").
 * The status thread writes the file within seconds; the deadline is generous.
 */
START_TEST(test_status_names_slurm)
{
	char *v = NULL, *out = NULL, want[96];
	bool has = false;

	require_cluster();
	ck_assert_int_eq(run(&v, "slurmctld -V | awk '{print $NF}'"), 0);
	ck_assert_msg(v && *v >= '0' && *v <= '9', "slurmctld -V: %s", v);
	v[strcspn(v, "\n")] = '\0';
	snprintf(want, sizeof(want), "Slurm: %s\n", v);
	for (int i = 0; i < 120 && !has; i++) {
		free(out);
		out = NULL;
		run(&out, "'%s/hivedctl' status", builddir);
		has = out && strstr(out, want);
		if (!has)
			sleep(1);
	}
	ck_assert_msg(has, "hivedctl status lacks \"%.*s\":\n%s", (int) strlen(want) - 1, want,
		      out);
	free(out);
	free(v);
}
END_TEST

START_TEST(test_hived_conf_loads)
{
	char path[4200], *conf, err[512], *names = NULL;
	hived_engine *e = NULL;

	snprintf(path, sizeof(path), "%s/etc/hived.conf", clusterdir);
	conf = read_file(path);
	ck_assert_msg(conf, "%s missing", path);
	ck_assert_msg(hived_engine_new(conf, &e, err, sizeof(err)) == HIVED_OK,
		      "engine rejects the generated hived.conf: %s", err);
	free(conf);
	ck_assert_int_eq(hived_node_count(e), NODES);
	require_cluster();
	ck_assert_int_eq(run(&names, "sinfo -h -N -o %%N"), 0);
	for (size_t i = 0; i < hived_node_count(e); i++) {
		char line[80];

		snprintf(line, sizeof(line), "%s\n", hived_node_name(e, i));
		ck_assert_msg(strstr(names, line),
			      "hived.conf node %s is not a Slurm node",
			      hived_node_name(e, i));
	}
	free(names);
	hived_engine_free(e);
}
END_TEST

START_TEST(test_one_node_two_gpus)
{
	check_gpu_job("vc1", 1, 2);
}
END_TEST

START_TEST(test_two_nodes)
{
	check_gpu_job("vc2", 2, 2);
}
END_TEST

static int read_pids(int *pids, int max)
{
	char rundir[4200];
	DIR *d;
	struct dirent *de;
	int n = 0;

	snprintf(rundir, sizeof(rundir), "%s/run", clusterdir);
	d = opendir(rundir);
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		char path[4500], *text;

		if (!strstr(de->d_name, ".pid"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", rundir, de->d_name);
		text = read_file(path);
		if (text && atoi(text) > 0)
			pids[n++] = atoi(text);
		free(text);
	}
	closedir(d);
	return n;
}

/* Processes carrying the marker hived-cluster puts in every daemon's environment. */
static int marked_processes(char *list, size_t len)
{
	char marker[4200];
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	snprintf(marker, sizeof(marker), "HIVED_CLUSTER_DIR=%s", clusterdir);
	list[0] = '\0';
	while (d && (de = readdir(d))) {
		char path[300];
		FILE *f;
		char *env = NULL;
		size_t cap = 0;
		ssize_t got;
		int pid = atoi(de->d_name);

		if (pid <= 0 || !pid_alive(pid))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/environ", pid);
		if (!(f = fopen(path, "r")))
			continue;
		while ((got = getdelim(&env, &cap, '\0', f)) > 0) {
			if (!strcmp(env, marker)) {
				size_t used = strlen(list);
				snprintf(list + used, len - used, " %d", pid);
				n++;
				break;
			}
		}
		free(env);
		fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

START_TEST(test_down_leaves_nothing)
{
	int pids[MAX_PIDS], n = read_pids(pids, MAX_PIDS);
	char *out = NULL, left[1024], *rt = runtime_dir(), rt_was[4200];

	ck_assert_msg(n >= NODES + 4, "expected pid files for munged, mariadb, slurmdbd, slurmctld and %d slurmd, found %d",
		      NODES, n);
	snprintf(rt_was, sizeof(rt_was), "%s", rt);
	ck_assert_msg(*rt_was, "no runtime directory recorded before down");
	free(rt);
	ck_assert_msg(run(&out, "'%s/scripts/hived-cluster' down --dir '%s' -q",
			  srcdir, clusterdir) == 0,
		      "hived-cluster down failed: %s", out);
	free(out);
	rt = runtime_dir();
	for (int i = 0; i < n; i++)
		ck_assert_msg(!pid_alive(pids[i]), "pid %d still runs after down",
			      pids[i]);
	ck_assert_msg(marked_processes(left, sizeof(left)) == 0,
		      "processes of the cluster still running:%s", left);
	ck_assert_msg(!*rt && access(rt_was, F_OK) != 0,
		      "the runtime directory %s (recorded: '%s') outlived down", rt_was, rt);
	free(rt);
}
END_TEST

static void write_job_script(void)
{
	char path[4200];
	FILE *f;

	/* Job ids restart with --fresh: outputs of an earlier run must not count. */
	run(NULL, "rm -rf '%s'", jobdir);
	run(NULL, "mkdir -p '%s'", clusterdir);
	mkdir(jobdir, 0755);
	snprintf(path, sizeof(path), "%s/gpus.sh", jobdir);
	f = fopen(path, "w");
	if (!f)
		return;
	fputs("#!/bin/bash\n"
	      "# One line per node: its name and the GPUs the step was given.\n"
	      "srun bash -c 'echo $SLURMD_NODENAME $CUDA_VISIBLE_DEVICES'\n"
	      "sleep 300\n",
	      f);
	fclose(f);
	chmod(path, 0755);
}

static Suite *e2e_suite(void)
{
	Suite *s = suite_create("e2e");
	TCase *up = tcase_create("up"), *jobs = tcase_create("jobs"),
	      *down = tcase_create("down");

	tcase_add_test(up, test_up);
	tcase_set_timeout(up, 300);
	tcase_add_test(jobs, test_long_dir_sockets);
	tcase_add_test(jobs, test_plugins_configured);
	tcase_add_test(jobs, test_status_names_slurm);
	tcase_add_test(jobs, test_hived_conf_loads);
	tcase_add_test(jobs, test_one_node_two_gpus);
	tcase_add_test(jobs, test_two_nodes);
	tcase_set_timeout(jobs, 150);
	tcase_add_test(down, test_down_leaves_nothing);
	tcase_set_timeout(down, 150);
	suite_add_tcase(s, up);
	suite_add_tcase(s, jobs);
	suite_add_tcase(s, down);
	return s;
}

static void path_from_env(char *dst, size_t len, const char *var,
			  const char *fallback)
{
	const char *v = getenv(var);

	snprintf(dst, len, "%s", v && *v ? v : fallback);
}

int main(void)
{
	int rc;
	char conf[4200];

	if (geteuid() != 0) {
		fprintf(stderr, "e2e: needs root (slurmd, mknod, munged); skipped\n");
		return 77;
	}
	path_from_env(srcdir, sizeof(srcdir), "HIVED_SRCDIR", HIVED_SRCDIR_DEFAULT);
	path_from_env(builddir, sizeof(builddir), "HIVED_BUILDDIR",
		      HIVED_BUILDDIR_DEFAULT);
	snprintf(clusterdir, sizeof(clusterdir), "%s/tests/e2e/cluster/" LONG_DIR, builddir);
	snprintf(jobdir, sizeof(jobdir), "%s/jobs", clusterdir);
	snprintf(conf, sizeof(conf), "%s/etc/slurm.conf", clusterdir);
	setenv("SLURM_CONF", conf, 1);
	write_job_script();

	rc = check_run(e2e_suite(), CK_NORMAL, CK_FORK_GETENV);

	/* Whatever happened above, leave nothing running. */
	run(NULL, "'%s/scripts/hived-cluster' down --dir '%s' -q", srcdir,
	    clusterdir);
	return rc;
}
