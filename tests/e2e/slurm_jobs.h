/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurm_jobs.h - submit, wait for and read jobs on the local test cluster
 * (SLURM_CONF in the environment), for the end-to-end tests. Failures are
 * Check assertions.
 */
#ifndef HIVED_E2E_SLURM_JOBS_H
#define HIVED_E2E_SLURM_JOBS_H

#include <stdbool.h>

#define E2E_MAX_NODES 16
#define E2E_MAX_GPUS 16

/* A running job's GPUs per node, from "scontrol -d show job". */
typedef struct {
	int n;			/* nodes */
	char node[E2E_MAX_NODES][32];
	int gpus[E2E_MAX_NODES][E2E_MAX_GPUS];
	int cnt[E2E_MAX_NODES];
	int cpus[E2E_MAX_NODES][64];	/* CPU_IDs */
	int ncpus[E2E_MAX_NODES];
} alloc_t;

/* "scontrol -d -o show job ID" (malloc()ed), NULL if unknown. */
char *job_line(int id);
bool job_has(int id, const char *text);
bool wait_job(int id, const char *text, int seconds);
/* sbatch --parsable ARGS --wrap 'sleep 600'; the job id. */
int submit(const char *args);
/* The same with another script (no '"' or '$' in it). */
int submit_wrap(const char *args, const char *script);
void job_alloc(int id, alloc_t *a);
/*
 * Up to `seconds` until "hivedctl job ID" prints text (hived_status.json is
 * written after the change that shows, not with it); *out: its last output.
 */
bool hivedctl_job_says(int id, const char *text, int seconds, char **out);
/*
 * sbatch -A ACCOUNT ARGS must be refused. When slurmctld refuses it for a
 * plugin ("Requested node configuration is not available"), its log must name
 * `why`. RET true if so, false if Slurm refused it itself first (a GRES no node
 * has, an option this sbatch lacks). `who` prefixes the line logged.
 */
bool e2e_expect_refused(const char *who, const char *account, const char *args,
			const char *why);
/* scancel every job of root and hivedtest, wait for an empty queue. */
void cancel_all(void);
/* node1,node2 -> 0; node3,node4 -> 1 (the test clusters' racks of 2). */
int rack_of(const char *node);

#endif
