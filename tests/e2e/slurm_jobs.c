/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurm_jobs.c - job helpers shared by the end-to-end tests.
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

char *job_line(int id)
{
	char *out = NULL;

	if (run(&out, "scontrol -d -o show job %d", id) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

bool job_has(int id, const char *text)
{
	char *l = job_line(id);
	bool yes = l && strstr(l, text);

	free(l);
	return yes;
}

bool wait_job(int id, const char *text, int seconds)
{
	for (int i = 0; i < seconds * 2; i++) {
		if (job_has(id, text))
			return true;
		usleep(500 * 1000);
	}
	return false;
}

int submit_wrap(const char *args, const char *script)
{
	char *out = NULL;
	int id = -1;

	if (run(&out, "sbatch --parsable -o /dev/null %s --wrap \"%s\"", args,
		script) == 0)
		id = atoi(out);
	ck_assert_msg(id > 0, "sbatch %s failed: %s", args, out ? out : "");
	free(out);
	return id;
}

int submit(const char *args)
{
	return submit_wrap(args, "sleep 600");
}

/* GPUs per node from "Nodes=x ... GRES=gpu:a100:n(IDX:a-b,c)". */
/* Up to `seconds` until `hivedctl job id` prints text; its last output. */
bool hivedctl_job_says(int id, const char *text, int seconds, char **out)
{
	time_t end = time(NULL) + seconds;

	do {
		free(*out);
		*out = NULL;
		if (!run(out, "'%s/hivedctl' job %d", e2e_builddir, id) && *out &&
		    strstr(*out, text))
			return true;
		sleep(1);
	} while (time(NULL) < end);
	return false;
}

void job_alloc(int id, alloc_t *a)
{
	char *l = job_line(id), *p;

	memset(a, 0, sizeof(*a));
	ck_assert_msg(l, "job %d unknown", id);
	for (p = strstr(l, " Nodes="); p; p = strstr(p + 1, " Nodes=")) {
		char nodes[256], list[256], *hosts = NULL, *h, *save = NULL;
		char *gres = strstr(p, "(IDX:"), cpu_list[256] = "";
		int idx[E2E_MAX_GPUS], cnt, cpus[64], ncpus = 0;

		if (!gres || sscanf(p, " Nodes=%255s", nodes) != 1 ||
		    sscanf(gres, "(IDX:%255[0-9,-])", list) != 1)
			continue;
		cnt = parse_index_list(list, idx, E2E_MAX_GPUS);
		if (sscanf(p, " Nodes=%*s CPU_IDs=%255[0-9,-]", cpu_list) == 1)
			ncpus = parse_index_list(cpu_list, cpus, 64);
		ck_assert_int_eq(run(&hosts, "scontrol show hostnames '%s'",
				     nodes), 0);
		for (h = strtok_r(hosts, "\n", &save); h;
		     h = strtok_r(NULL, "\n", &save)) {
			ck_assert(a->n < E2E_MAX_NODES);
			snprintf(a->node[a->n], sizeof(a->node[0]), "%s", h);
			memcpy(a->gpus[a->n], idx, sizeof(int) * cnt);
			memcpy(a->cpus[a->n], cpus, sizeof(int) * ncpus);
			a->ncpus[a->n] = ncpus;
			a->cnt[a->n++] = cnt;
		}
		free(hosts);
	}
	free(l);
}

bool e2e_expect_refused(const char *who, const char *account, const char *args,
			const char *why)
{
	char *out = NULL;
	bool by_plugin;
	int rc = run(&out, "sbatch --parsable -o /dev/null -A %s %s --wrap 'sleep 1' 2>&1",
		     account, args);

	ck_assert_msg(rc != 0, "sbatch %s was accepted: job %s", args, out ? out : "");
	fprintf(stderr, "%s: sbatch %s refused: %s", who, args, out ? out : "\n");
	by_plugin = out && strstr(out, "Requested node configuration is not available");
	free(out);
	if (by_plugin)
		ck_assert_msg(e2e_log_has(why), "no '%s' in slurmctld's log", why);
	return by_plugin;
}

void cancel_all(void)
{
	run(NULL, "scancel -u root; scancel -u hivedtest 2>/dev/null");
	for (int i = 0; i < 120; i++) {
		char *out = NULL;
		run(&out, "squeue -h -o %%i");
		bool empty = !out || !out[0];
		free(out);
		if (empty)
			return;
		usleep(500 * 1000);
	}
	ck_abort_msg("jobs still queued 60 s after scancel");
}

int rack_of(const char *node)
{
	return (atoi(node + 4) - 1) / 2;
}
