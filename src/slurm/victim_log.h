/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * victim_log.h - which of a preemptor's victims select/hived has named.
 *
 * Slurm asks about a preemptor again until its victims are gone, so each
 * preemption must be logged and counted once. Saying it once per preemptor is
 * not enough: between two asks a node it preempted for may be left out of the
 * test (still completing), and HiveD then binds the job elsewhere and names
 * new victims. In a churn run of issue 18 a gang requeued nine more jobs that
 * way, and neither slurmctld.log nor hived_status.json's counter showed them.
 * No Slurm headers, no allocation: tested alone (tests/slurm).
 */
#ifndef HIVED_VICTIM_LOG_H
#define HIVED_VICTIM_LOG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Preemptors remembered at once; the oldest is forgotten first. */
#define VICTIM_LOG_PREEMPTORS 64
/* Victims remembered per preemptor (a 4-node gang over 1-GPU jobs: 32). */
#define VICTIM_LOG_VICTIMS 64

typedef struct {
	uint32_t preemptor;	/* 0: a free slot */
	uint32_t n;		/* victims held, at most VICTIM_LOG_VICTIMS */
	uint32_t next;		/* the slot the next victim overwrites when full */
	uint32_t victims[VICTIM_LOG_VICTIMS];
} victim_log_entry_t;

/*
 * Runs of victims counted (a job and the start of its run): in one pass many
 * preemptors can name the same running job, since a decision reserves nothing
 * until its job starts, and Slurm requeues that run once.
 */
#define VICTIM_LOG_RUNS 512

typedef struct {
	uint32_t job;
	int64_t start;
} victim_run_t;

typedef struct {
	victim_log_entry_t entry[VICTIM_LOG_PREEMPTORS];
	uint32_t next;		/* the entry a new preemptor takes when full */
	victim_run_t run[VICTIM_LOG_RUNS];
	uint32_t n_runs, next_run;
} victim_log_t;

/*
 * Moves the victims of `preemptor` that were not named for it before to the
 * front of victims[0..n), in their order, remembers them and returns their
 * count: 0 when every one was named already. *named_before (if not NULL) is
 * how many victims had been named for it until this call.
 */
extern size_t victim_log_new(victim_log_t *log, uint32_t preemptor,
			     uint32_t *victims, size_t n,
			     size_t *named_before);

/*
 * Is this the first time the run of `victim` that started at `start` is named
 * (by any preemptor)? RET 1 (and remembers it) or 0.
 */
extern int victim_log_run_new(victim_log_t *log, uint32_t victim,
			      int64_t start);

/*
 * The victims named for `preemptor` so far (*victims: NULL if none), valid
 * until the next victim_log_new(); RET their count.
 */
extern size_t victim_log_named(const victim_log_t *log, uint32_t preemptor,
			       const uint32_t **victims);

#ifdef __cplusplus
}
#endif

#endif
