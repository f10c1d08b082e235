/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_security.c - what an ordinary user can and cannot get from select/hived,
 * on a real local cluster, every attempt made as an unprivileged user:
 * another account's (VC's) cells, a higher class or priority through the
 * --hived-* options, the environment or a hand-made libslurm client, another
 * VC's pinned cell, and the plugin's files (state, status, PrivateData).
 *
 * Cluster (scripts/hived-cluster): 4 nodes x 8 fake GPUs, 2 sockets, racks
 * node1-2 / node3-4; hived.conf rewritten so that vc1 owns a node cell and the
 * pinned cell VC1-PIN (node4), vc2 a node cell and vc3 2 socket cells. Users: hivedtest
 * (vc1..vc3, QOS normal/scavenger/high, made by hived-cluster) and hivedsec,
 * made here: accounts vc2 and nocells (a Slurm account without HiveD cells),
 * QOS normal and scavenger only.
 * Needs root (exit 77 otherwise).
 */
#define _GNU_SOURCE
#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <grp.h>
#include <stdarg.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "e2e_main.h"
#include "run.h"
#include "slurm_jobs.h"

#define NODES 4
#define GPUS 8
#define USER "hivedsec"

static char statedir[2400];
static char tooldir[64];	/* hivedctl copied where the test users can run it */

static void cancel_everything(void)
{
	if (run(NULL, "scontrol ping 2>/dev/null | grep -q 'is UP'") != 0)
		return;
	run(NULL, "scancel -u " USER " 2>/dev/null");
	cancel_all();
}

/* A command as an unprivileged user, with the cluster's slurm.conf. */
static int as(const char *user, char **out, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int as(const char *user, char **out, const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return run(out, "cd /tmp && runuser -u %s -- env SLURM_CONF='%s' PATH=\"$PATH\" sh -c '%s'",
		   user, e2e_conf, cmd);
}

/* sbatch as USER; the job id, or -1 when sbatch refused (*out has why). */
static int submit_as(const char *user, char **out, const char *args)
{
	int rc = as(user, out, "sbatch --parsable -o /dev/null %s --wrap \"sleep 600\"", args);

	return rc ? -1 : atoi(*out);
}

/* The job's SystemComment (malloc()ed, "" when none). */
static char *comment_of(int id)
{
	char *line = job_line(id), *c, *end;

	if (!line)
		return strdup("");
	c = strstr(line, "SystemComment=");
	if (!c) {
		free(line);
		return strdup("");
	}
	c += 14;
	end = strstr(c, " StdErr=");
	if (!end)
		end = strstr(c, " Comment=");
	c = strndup(c, end ? (size_t) (end - c) : strlen(c));
	free(line);
	return c;
}

/* Wait until the job has a SystemComment from select/hived. */
static char *wait_comment(int id, int seconds)
{
	for (int i = 0; i < seconds * 2; i++) {
		char *c = comment_of(id);

		if (strstr(c, "hived: "))
			return c;
		free(c);
		usleep(500 * 1000);
	}
	return comment_of(id);
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
 * Slurm's full library, from the system PluginDir (the last entry of the
 * cluster's PluginDir): libslurm.so lacks the symbols select_hived.so needs when
 * a client loads it, libslurmfull.so has them (sbatch links it).
 */
static void *_slurmfull(void)
{
	char *text = read_file(e2e_conf), *p, *end, path[4096];
	void *h;

	if (!text || !(p = strstr(text, "\nPluginDir=")))
		return NULL;
	p += 11;
	end = strchr(p, '\n');
	if (end)
		*end = '\0';
	if (strrchr(p, ':'))
		p = strrchr(p, ':') + 1;
	snprintf(path, sizeof(path), "%s/libslurmfull.so", p);
	free(text);
	h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (!h)
		fprintf(stderr, "test_security: %s\n", dlerror());
	return h;
}

/*
 * A user's own client: Slurm's submit RPC straight from a process running as
 * `user`, with a SPANK environment no sbatch option would make. RET the job id,
 * or minus the Slurm error code.
 */
static int crafted_submit(const char *user, const char *account,
			  char **spank_env, int n_env)
{
	struct passwd *pw = getpwnam(user);
	int fd[2], result = -SLURM_ERROR;
	pid_t pid;

	ck_assert_ptr_nonnull(pw);
	ck_assert_int_eq(pipe(fd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		job_desc_msg_t desc;
		submit_response_msg_t *resp = NULL;
		char *env[] = { "PATH=/usr/bin:/bin", NULL };
		int r;
		void *h = _slurmfull();
		void (*init)(const char *);
		void (*init_desc)(job_desc_msg_t *);
		int (*submit_batch)(job_desc_msg_t *, submit_response_msg_t **);
		int (*get_errno)(void);

		close(fd[0]);
		if (!h || !(init = dlsym(h, "slurm_init")) ||
		    !(init_desc = dlsym(h, "slurm_init_job_desc_msg")) ||
		    !(submit_batch = dlsym(h, "slurm_submit_batch_job")))
			_exit(1);
		/* Gone in 24.11: libslurm's calls set errno themselves. */
		get_errno = dlsym(h, "slurm_get_errno");
		if (setgroups(0, NULL) || setgid(pw->pw_gid) || setuid(pw->pw_uid))
			_exit(1);
		init(e2e_conf);
		init_desc(&desc);
		desc.name = "crafted";
		desc.account = (char *) account;
		desc.script = "#!/bin/sh\nsleep 600\n";
		desc.environment = env;
		desc.env_size = 1;
		desc.work_dir = "/tmp";
		desc.std_out = "/dev/null";
		desc.user_id = pw->pw_uid;
		desc.group_id = pw->pw_gid;
		desc.min_nodes = 1;
		desc.tres_per_node = "gres:gpu:8";
		desc.spank_job_env = spank_env;
		desc.spank_job_env_size = n_env;
		if (submit_batch(&desc, &resp) == SLURM_SUCCESS && resp)
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 0)
			r = (int) resp->step_id.job_id;
#else
			r = (int) resp->job_id;
#endif
		else
			r = -(get_errno ? get_errno() : errno);
		if (write(fd[1], &r, sizeof(r)) != sizeof(r))
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	if (read(fd[0], &result, sizeof(result)) != sizeof(result))
		result = -SLURM_ERROR;
	close(fd[0]);
	waitpid(pid, NULL, 0);
	return result;
}

/* vc1: a node cell and the pinned node4; vc2: a node cell; vc3: 2 sockets. */
static void write_pinned_conf(void)
{
	char path[2600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/etc/hived.conf", e2e_clusterdir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("{\n"
	      " \"physicalCluster\": {\n"
	      "  \"cellTypes\": {\n"
	      "   \"A100-PAIR\": {\"childCellType\": \"a100\", \"childCellNumber\": 2},\n"
	      "   \"A100-SOCKET\": {\"childCellType\": \"A100-PAIR\", \"childCellNumber\": 2},\n"
	      "   \"A100-NODE\": {\"childCellType\": \"A100-SOCKET\", \"childCellNumber\": 2, \"isNodeLevel\": true},\n"
	      "   \"A100-RACK\": {\"childCellType\": \"A100-NODE\", \"childCellNumber\": 2}\n"
	      "  },\n"
	      "  \"physicalCells\": [\n"
	      "   {\"cellType\": \"A100-RACK\", \"cellAddress\": \"rack0\", \"cellChildren\": [\n"
	      "    {\"cellAddress\": \"node1\"}, {\"cellAddress\": \"node2\"}]},\n"
	      "   {\"cellType\": \"A100-RACK\", \"cellAddress\": \"rack1\", \"cellChildren\": [\n"
	      "    {\"cellAddress\": \"node3\"},\n"
	      "    {\"cellAddress\": \"node4\", \"pinnedCellId\": \"VC1-PIN\"}]}\n"
	      "  ]\n"
	      " },\n"
	      " \"slurm\": {\"opportunisticQos\": [\"scavenger\"]},\n"
	      " \"virtualClusters\": {\n"
	      "  \"vc1\": {\"virtualCells\": [{\"cellType\": \"A100-RACK.A100-NODE\", \"cellNumber\": 1}],\n"
	      "          \"pinnedCells\": [{\"pinnedCellId\": \"VC1-PIN\"}]},\n"
	      "  \"vc2\": {\"virtualCells\": [{\"cellType\": \"A100-RACK.A100-NODE\", \"cellNumber\": 1}]},\n"
	      "  \"vc3\": {\"virtualCells\": [{\"cellType\": \"A100-RACK.A100-NODE.A100-SOCKET\", \"cellNumber\": 2}]}\n"
	      " }\n"
	      "}\n", f);
	ck_assert_int_eq(fclose(f), 0);
}

/* hived_status.json is rewritten at most once a second after a change. */
static bool wait_status(const char *text, int seconds)
{
	char path[2600];

	snprintf(path, sizeof(path), "%s/hived_status.json", statedir);
	for (int i = 0; i < seconds * 2; i++) {
		char *s = read_file(path);
		bool ok = s && strstr(s, text);

		free(s);
		if (ok)
			return true;
		usleep(500 * 1000);
	}
	return false;
}

START_TEST(test_up)
{
	char *out = NULL;
	int rc;

	e2e_cluster_up(NODES, GPUS, "--fresh --priority hived");
	write_pinned_conf();
	ck_assert_int_eq(run(NULL, "scontrol reconfigure"), 0);
	ck_assert_msg(wait_status("VC1-PIN", 20),
		      "select/hived did not load the hived.conf with VC1-PIN");

	/* The second user: vc2 and an account without cells, no QOS high. */
	run(NULL, "id -u " USER " >/dev/null 2>&1 || useradd --system --no-create-home --shell /bin/sh " USER);
	run(NULL, "sacctmgr -i add account nocells cluster=hived Description=none Organization=none >/dev/null 2>&1");
	run(NULL, "sacctmgr -i add user " USER " account=vc2,nocells cluster=hived defaultaccount=vc2 >/dev/null 2>&1");
	ck_assert_int_eq(run(&out, "sacctmgr -i modify user where name=" USER " cluster=hived set qos=normal,scavenger defaultqos=normal 2>&1; "
			     "sacctmgr -nP show assoc user=" USER " format=account,qos"), 0);
	ck_assert_msg(strstr(out, "vc2|normal,scavenger") && strstr(out, "nocells|normal,scavenger") &&
		      !strstr(out, "high"), "associations of " USER ": %s", out);
	free(out);
	/* slurmdbd pushes the new associations to slurmctld. */
	for (int i = 0; i < 40; i++) {
		rc = run(&out, "scontrol show assoc_mgr users=" USER " flags=assoc | grep -c 'Account=nocells'");
		free(out);
		if (rc == 0)
			break;
		usleep(500 * 1000);
	}
	ck_assert_msg(rc == 0, "slurmctld does not know " USER "'s associations");
	ck_assert_int_eq(run(NULL, "cp '%s/hivedctl' '%s/' && chmod 755 '%s'",
			     e2e_builddir, tooldir, tooldir), 0);
}
END_TEST

/* Another account's cells: Slurm's association check refuses, however asked. */
START_TEST(test_foreign_account)
{
	char *out = NULL;
	int id;

	id = submit_as(USER, &out, "-A vc1 -N1 --gres=gpu:8");
	ck_assert_msg(id < 0 && strstr(out, "Invalid account"),
		      USER " got a job in vc1: %s", out);
	free(out);
	ck_assert_int_ne(as(USER, &out, "SBATCH_ACCOUNT=vc1 sbatch -o /dev/null -N1 --gres=gpu:8 --wrap true"), 0);
	ck_assert_msg(strstr(out, "Invalid account"), "SBATCH_ACCOUNT=vc1: %s", out);
	free(out);
	id = crafted_submit(USER, "vc1", NULL, 0);
	ck_assert_msg(id == -ESLURM_INVALID_ACCOUNT,
		      "libslurm submit to vc1 as " USER ": %d", id);
	/* Moving an own pending job into vc1 afterwards. */
	id = submit_as(USER, &out, "-A vc2 -N1 --gres=gpu:8 --hold");
	ck_assert_msg(id > 0, "sbatch -A vc2: %s", out);
	free(out);
	ck_assert_int_ne(as(USER, &out, "scontrol update jobid=%d account=vc1", id), 0);
	free(out);
	ck_assert(job_has(id, "Account=vc2 "));
	ck_assert_int_eq(run(&out, "squeue -h -u " USER " -A vc1 -o %%i"), 0);
	ck_assert_msg(!out || !out[0], USER " has jobs in vc1: %s", out);
	free(out);
	cancel_everything();
}
END_TEST

/*
 * Class and priority: no QOS above the user's, no --priority or negative nice,
 * no guaranteed class in an account without cells, whatever the environment
 * or the options say.
 */
START_TEST(test_no_raise)
{
	char *out = NULL, *c;
	int id, base, opp;

	ck_assert_int_eq(submit_as(USER, &out, "-A vc2 --qos=high -N1 --gres=gpu:8"), -1);
	ck_assert_msg(strstr(out, "Invalid qos"), "--qos=high: %s", out);
	free(out);
	base = submit_as(USER, &out, "-A vc2 -N1 --gres=gpu:8 --begin=now+3600");
	ck_assert(base > 0);
	free(out);
	id = submit_as(USER, &out, "-A vc2 -N1 --gres=gpu:8 --begin=now+3600 --priority=4000000");
	if (id > 0)
		ck_assert_msg(priority_of(id) < 4000000, "--priority as a user was applied");
	free(out);
	ck_assert_int_ne(as(USER, &out, "scontrol update jobid=%d priority=4000000", base), 0);
	free(out);
	ck_assert_int_ne(as(USER, &out, "scontrol update jobid=%d qos=high", base), 0);
	free(out);
	ck_assert_int_ne(as(USER, &out, "scontrol update jobid=%d nice=-10000", base), 0);
	free(out);
	ck_assert_msg(priority_of(base) < 4000000, "job %d priority %ld", base, priority_of(base));
	ck_assert(job_has(base, "QOS=normal "));

	/* An account without cells, with every key a client could send. */
	id = submit_as(USER, &out,
		       "-A nocells -N1 --gres=gpu:8 "
		       "--export=ALL,HIVED_OPPORTUNISTIC=0,SPANK_HIVED_OPPORTUNISTIC=0,SPANK_HIVED_PINNED=VC1-PIN");
	ck_assert_msg(id > 0, "sbatch -A nocells: %s", out);
	free(out);
	ck_assert(wait_job(id, "JobState=RUNNING", 60));
	c = wait_comment(id, 10);
	fprintf(stderr, "test_security: no-cell account job %d: %s\n", id, c);
	ck_assert_msg(strstr(c, "(no VC, opportunistic)"),
		      "job of an account without cells: %s", c);
	free(c);
	{
		char *env[] = { "SPANK_HIVED_OPPORTUNISTIC=0", "HIVED_OPPORTUNISTIC=0",
				"SPANK_HIVED_LAZY_PREEMPT=1" };
		int cid = crafted_submit(USER, "nocells", env, 3);

		ck_assert_msg(cid > 0, "libslurm submit to nocells: %d", cid);
		c = wait_comment(cid, 20);
		ck_assert_msg(!strstr(c, "guaranteed"), "crafted job %d: %s", cid, c);
		free(c);
	}
	/* priority/hived ranks the no-cell account's work below vc2's own. */
	opp = submit_as(USER, &out,
			"-A nocells -N1 --gres=gpu:8 --begin=now+3600 --export=ALL,SPANK_HIVED_OPPORTUNISTIC=0");
	ck_assert(opp > 0);
	free(out);
	sleep(3);
	fprintf(stderr, "test_security: priority of vc2's job %ld, of the no-cell account's %ld\n",
		priority_of(base), priority_of(opp));
	ck_assert_msg(priority_of(opp) < priority_of(base),
		      "no-cell account job %d (%ld) outranks vc2's job %d (%ld)",
		      opp, priority_of(opp), base, priority_of(base));
	cancel_everything();
}
END_TEST

/*
 * An attempt on vc1's pinned cell by someone else: refused at submit (id <= 0,
 * Slurm says "Requested node configuration is not available"), or pending with
 * select/hived's reason; never running, never on node4.
 */
static void assert_kept_off(int id, const char *sbatch_out, const char *what)
{
	char *c;

	if (id <= 0) {
		fprintf(stderr, "test_security: %s: refused at submit (%d) %s", what,
			id, sbatch_out ? sbatch_out : "\n");
		ck_assert_msg(!sbatch_out || strstr(sbatch_out, "not available") ||
			      strstr(sbatch_out, "VC1-PIN"),
			      "%s: refused for another reason: %s", what, sbatch_out);
		return;
	}
	c = wait_comment(id, 20);
	fprintf(stderr, "test_security: %s: job %d pending: %s\n", what, id, c);
	ck_assert_msg(strstr(c, "pinned") && !job_has(id, "JobState=RUNNING") &&
		      !job_has(id, "NodeList=node4"), "%s: job %d: %s", what, id, c);
	free(c);
}

/* Another VC's pinned cell: refused, never placed there. */
START_TEST(test_pinned_other_vc)
{
	char *out = NULL;
	int own, id;
	alloc_t a;

	id = submit_as(USER, &out, "-A vc2 -N1 --gres=gpu:8 --hived-pinned=VC1-PIN");
	assert_kept_off(id, out, "sbatch --hived-pinned");
	free(out);
	/* The option's environment variable, read by sbatch. */
	id = as(USER, &out, "SLURM_SPANK__SLURM_SPANK_OPTION_hived_hived_pinned=VC1-PIN "
		"sbatch --parsable -o /dev/null -A vc2 -N1 --gres=gpu:8 --wrap \"sleep 600\"") ? -1 : atoi(out);
	assert_kept_off(id, out, "SLURM_SPANK_..._hived_pinned");
	free(out);
	/* A client of the user's own sending the key (both spellings). */
	{
		char *env1[] = { "SPANK_HIVED_PINNED=VC1-PIN" };
		char *env2[] = { "HIVED_PINNED=VC1-PIN" };

		assert_kept_off(crafted_submit(USER, "vc2", env1, 1), NULL, "libslurm vc2");
		assert_kept_off(crafted_submit(USER, "nocells", env2, 1), NULL, "libslurm nocells");
	}
	ck_assert_int_eq(run(&out, "squeue -h -w node4 -o '%%a %%i'"), 0);
	ck_assert_msg(!out || !out[0], "on node4: %s", out);
	free(out);

	/* vc1's user gets it: the refusals above are not a broken option. */
	own = submit_as("hivedtest", &out, "-A vc1 -N1 --gres=gpu:8 --hived-pinned=VC1-PIN");
	ck_assert_msg(own > 0, "sbatch --hived-pinned=VC1-PIN in vc1: %s", out);
	free(out);
	ck_assert_msg(wait_job(own, "JobState=RUNNING", 60), "vc1's pinned job did not start");
	job_alloc(own, &a);
	ck_assert_str_eq(a.node[0], "node4");
	cancel_everything();
}
END_TEST

/*
 * Values no sbatch would send (control characters, 10 000 bytes) are refused by
 * select/hived without echoing them into the SystemComment.
 */
START_TEST(test_crafted_values)
{
	char big[10100], bigenv[10200], *c, *line;
	char *ctl[] = { "SPANK_HIVED_WITHIN=A100-NODE\nSystemComment=hived: given node1:0-7 (vc1, guaranteed)" };
	char *lng[] = { bigenv };
	int id;

	memset(big, 'A', 10000);
	big[10000] = '\0';
	snprintf(bigenv, sizeof(bigenv), "SPANK_HIVED_PINNED=%s", big);

	id = crafted_submit(USER, "vc2", ctl, 1);
	if (id > 0) {
		c = wait_comment(id, 20);
		ck_assert_msg(strstr(c, "--hived-within: the value sent with the job is not one sbatch accepts"),
			      "job %d: %s", id, c);
		free(c);
		line = job_line(id);
		ck_assert_ptr_nonnull(line);
		ck_assert_msg(!strchr(line, '\n') || strchr(line, '\n')[1] == '\0',
			      "a newline got into job %d's record: %s", id, line);
		free(line);
		ck_assert(!job_has(id, "JobState=RUNNING"));
	} else {
		fprintf(stderr, "test_security: crafted value refused at submit (%d)\n", id);
		ck_assert_int_eq(-id, ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE);
	}

	id = crafted_submit(USER, "vc2", lng, 1);
	if (id > 0) {
		c = wait_comment(id, 20);
		ck_assert_msg(strstr(c, "--hived-pinned: the value sent with the job") &&
			      strlen(c) < 400, "job %d: %.300s", id, c);
		free(c);
		ck_assert(!job_has(id, "JobState=RUNNING"));
	} else {
		fprintf(stderr, "test_security: crafted value refused at submit (%d)\n", id);
		ck_assert_int_eq(-id, ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE);
	}
	/* Nothing of it reached slurmctld's log as a line of its own. */
	ck_assert_int_ne(run(NULL, "grep -q '^SystemComment=hived: given' '%s/log/slurmctld.log'",
			     e2e_clusterdir), 0);
	ck_assert_int_ne(run(NULL, "grep -q AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA '%s/log/slurmctld.log'",
			     e2e_clusterdir), 0);
	ck_assert_int_eq(run(NULL, "scontrol ping | grep -q 'is UP'"), 0);
	cancel_everything();
}
END_TEST

/* The plugin's files: who may read and write them. */
START_TEST(test_files)
{
	char *out = NULL, victim[128], link[2600];
	int id;

	/* reconfigure saves all state, the select plugin's state file included. */
	id = submit_as(USER, &out, "-A vc2 -N1 --gres=gpu:2");
	ck_assert(id > 0);
	free(out);
	ck_assert(wait_job(id, "JobState=RUNNING", 60));
	ck_assert_int_eq(run(NULL, "scontrol reconfigure"), 0);
	sleep(2);
	ck_assert_int_eq(run(&out, "stat -c '%%a %%U' '%s' '%s/hived_state.json' '%s/hived_status.json'",
			     statedir, statedir, statedir), 0);
	ck_assert_msg(!strncmp(out, "755 root\n600 root\n644 root\n", 27),
		      "state dir, state file, status file: %s", out);
	free(out);
	/*
	 * slurmctld and the status writer rename their *.new files while find
	 * walks the directory; one that vanishes makes find exit 1 (a fresh-clone
	 * CI run failed so). What find prints is the verdict; the stat above
	 * showed the directory is there.
	 */
	ck_assert_int_eq(run(&out, "find '%s' \\( -perm -o+w -o -perm -g+w \\) -print 2>/dev/null; true",
			     statedir), 0);
	ck_assert_msg(!out || !out[0], "group/world-writable in StateSaveLocation: %s", out);
	free(out);
	ck_assert_int_ne(as(USER, &out, "cat %s/hived_state.json", statedir), 0);
	ck_assert_msg(strstr(out, "Permission denied"), USER " read the state file: %.200s", out);
	free(out);
	ck_assert_int_ne(as(USER, &out, "echo {} >> %s/hived_state.json", statedir), 0);
	free(out);
	ck_assert_int_ne(as(USER, &out, "echo {} >> %s/hived_status.json", statedir), 0);
	free(out);
	ck_assert_int_ne(as(USER, &out, "mv %s/hived_status.json %s/x", statedir, statedir), 0);
	free(out);
	ck_assert_int_ne(as(USER, &out, "ln -s /tmp/x %s/hived_status.json.new", statedir), 0);
	free(out);
	ck_assert_int_eq(as(USER, &out, "%s/hivedctl job %d", tooldir, id), 0);
	free(out);

	/*
	 * Defence in depth: even a symlink where the status file's temporary goes
	 * (only SlurmUser could plant one here) is not followed.
	 */
	snprintf(victim, sizeof(victim), "%s/victim", tooldir);
	snprintf(link, sizeof(link), "%s/hived_status.json.new", statedir);
	ck_assert_int_eq(run(NULL, "echo untouched > '%s' && ln -sfn '%s' '%s'", victim, victim, link), 0);
	run(NULL, "scancel %d", id);	/* a change: the status file is rewritten */
	id = submit_as(USER, &out, "-A vc2 -N1 --gres=gpu:1");
	free(out);
	ck_assert(wait_job(id, "JobState=RUNNING", 60));
	{
		char want[64];

		snprintf(want, sizeof(want), "\"%d\"", id);
		ck_assert_msg(wait_status(want, 20), "hived_status.json not rewritten");
	}
	out = read_file(victim);
	ck_assert_msg(out && !strcmp(out, "untouched\n"),
		      "the status writer followed a symlink: %.100s", out);
	free(out);
	ck_assert_int_eq(run(&out, "stat -c %%F '%s/hived_status.json'", statedir), 0);
	ck_assert_msg(strstr(out, "regular file"), "hived_status.json: %s", out);
	free(out);
	run(NULL, "rm -f '%s'", link);

	/* hivedctl's own output files: new, the umask's mode. */
	ck_assert_int_eq(run(&out, "umask 022; '%s/hivedctl' map --html '%s/m.html' && stat -c %%a '%s/m.html' && ls '%s'",
			     e2e_builddir, tooldir, tooldir, tooldir), 0);
	ck_assert_msg(!strncmp(out, "644\n", 4) && !strstr(out, "m.html."),
		      "hivedctl map: %s", out);
	free(out);
	cancel_everything();
}
END_TEST

/*
 * PrivateData=jobs: squeue shows a user only their own jobs, and so does
 * HiveD: hived_status.json becomes SlurmUser's; hivedctl says why.
 */
START_TEST(test_private_data)
{
	char *out = NULL;
	int mine, other;

	e2e_cluster_up(NODES, GPUS, "--priority hived --private-data jobs");
	other = submit("-A vc1 -N1 --gres=gpu:8");
	mine = submit_as(USER, &out, "-A vc2 -N1 --gres=gpu:1");
	ck_assert(mine > 0);
	free(out);
	ck_assert(wait_job(other, "JobState=RUNNING", 60));
	ck_assert(wait_job(mine, "JobState=RUNNING", 60));
	{
		char want[64];

		snprintf(want, sizeof(want), "\"%d\"", mine);
		ck_assert(wait_status(want, 20));
	}
	/* Slurm's own view first: the other job is hidden. */
	ck_assert_int_eq(as(USER, &out, "squeue -h -o %%i"), 0);
	ck_assert_msg(out && atoi(out) == mine && !strchr(out, ' ') &&
		      strlen(out) < 12, "squeue as " USER " with PrivateData=jobs: %s", out);
	free(out);
	ck_assert_int_eq(run(&out, "stat -c %%a '%s/hived_status.json'", statedir), 0);
	ck_assert_msg(!strncmp(out, "600", 3), "status file mode %s with PrivateData=jobs", out);
	free(out);
	ck_assert_int_ne(as(USER, &out, "cat %s/hived_status.json", statedir), 0);
	ck_assert_msg(strstr(out, "Permission denied"), "read with PrivateData=jobs: %.200s", out);
	free(out);
	ck_assert_int_eq(as(USER, &out, "%s/hivedctl status", tooldir), 2);
	ck_assert_msg(strstr(out, "PrivateData"), "hivedctl as " USER ": %s", out);
	fprintf(stderr, "test_security: hivedctl as " USER ": %s", out);
	free(out);
	ck_assert_int_eq(run(&out, "'%s/hivedctl' job %d", e2e_builddir, other), 0);
	ck_assert_msg(strstr(out, "VC vc1"), "hivedctl as root: %s", out);
	free(out);
	/* sbatch still checks --hived-* names (from hived.conf now). */
	ck_assert_int_ne(as(USER, &out, "sbatch -A vc2 --gres=gpu:1 --hived-within=NOPE --wrap true"), 0);
	ck_assert_msg(strstr(out, "unknown cell type"), "sbatch: %s", out);
	free(out);

	/* Back to public when the admin drops PrivateData. */
	ck_assert_int_eq(run(NULL, "sed -i '/^PrivateData=/d' '%s' && scontrol reconfigure", e2e_conf), 0);
	run(NULL, "scancel %d", other);
	for (int i = 0; i < 40; i++) {
		run(&out, "stat -c %%a '%s/hived_status.json'", statedir);
		if (!strncmp(out, "644", 3))
			break;
		free(out);
		out = NULL;
		usleep(500 * 1000);
	}
	ck_assert_msg(out && !strncmp(out, "644", 3), "status file mode %s without PrivateData", out);
	free(out);
	ck_assert_int_eq(as(USER, &out, "%s/hivedctl job %d", tooldir, mine), 0);
	free(out);
	cancel_everything();
}
END_TEST

int main(void)
{
	TCase *tc;
	int rc = e2e_init("security");

	if (rc)
		return rc;
	snprintf(statedir, sizeof(statedir), "%s/state", e2e_clusterdir);
	snprintf(tooldir, sizeof(tooldir), "/tmp/hived-e2e-sec-XXXXXX");
	if (!mkdtemp(tooldir) || chmod(tooldir, 0755)) {
		fprintf(stderr, "test_security: cannot prepare %s\n", tooldir);
		return 1;
	}
	tc = tcase_create("security");
	tcase_set_timeout(tc, 600);
	tcase_add_checked_fixture(tc, cancel_everything, NULL);
	tcase_add_test(tc, test_up);
	tcase_add_test(tc, test_foreign_account);
	tcase_add_test(tc, test_no_raise);
	tcase_add_test(tc, test_pinned_other_vc);
	tcase_add_test(tc, test_crafted_values);
	tcase_add_test(tc, test_files);
	tcase_add_test(tc, test_private_data);
	rc = e2e_run("security", tc, NULL);
	run(NULL, "rm -rf '%s'", tooldir);
	return rc;
}
