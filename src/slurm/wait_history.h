/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wait_history.h - how long a job waited for each cause select/hived gave.
 *
 * squeue shows one reason, the current one; after the job starts nothing says
 * that it waited 40 s for its VC's quota and then 45 s for a whole node cell.
 * Telling those apart took a debug build in the contended-nodes runs (issue 18).
 * A history is the seconds spent under each cause before the current one, the
 * current cause and since when. Time between two job_test calls counts toward
 * the cause given last, since Slurm does not ask about every job in every pass,
 * but only for WAIT_HISTORY_GAP seconds: longer than that Slurm did not ask at
 * all (its own priority order, depth limits, association limits, a hold), and
 * the rest counts as WAIT_CAUSE_NOT_ASKED.
 * No Slurm headers, no allocation: tested alone (tests/slurm).
 */
#ifndef HIVED_WAIT_HISTORY_H
#define HIVED_WAIT_HISTORY_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
	WAIT_CAUSE_VC_QUOTA,	/* its VC's free cells hold too few GPUs */
	WAIT_CAUSE_CELLS,	/* enough GPUs, not in cells of its shape */
	WAIT_CAUSE_PINNED,	/* its pinned cell is held by equal/higher priority */
	WAIT_CAUSE_VC_TOO_SMALL,	/* its VC's cells can never hold it */
	WAIT_CAUSE_BEHIND_HEAD,	/* left its VC's head job's nodes */
	WAIT_CAUSE_VICTIMS,	/* placed; its preempted jobs still leaving */
	WAIT_CAUSE_OTHER,	/* e.g. a start that found its GPUs gone */
	WAIT_CAUSE_NOT_ASKED,	/* no job_test for over WAIT_HISTORY_GAP s */
	WAIT_CAUSES
} wait_cause_t;

/* Twice sched_interval's default: the main scheduler's full pass asks sooner. */
#define WAIT_HISTORY_GAP 120

typedef struct {
	time_t first;		/* first time it was made to wait; 0: never */
	time_t since;		/* the current stretch's start */
	time_t last;		/* the last note */
	wait_cause_t cause;	/* the current cause */
	uint32_t secs[WAIT_CAUSES];	/* before `since`, by cause */
} wait_history_t;

/* The job waits for `cause` at `now` (the first call starts the history). */
extern void wait_history_note(wait_history_t *w, wait_cause_t cause,
			      time_t now);

/* Seconds under `cause` up to `now`, the current stretch included. */
extern uint32_t wait_history_secs(const wait_history_t *w, wait_cause_t cause,
				  time_t now);

/* The cause the seconds after `now` go to (not asked, past the gap). */
extern wait_cause_t wait_history_current(const wait_history_t *w, time_t now);

/* Seconds from the first wait to `now` (0 for a job that never waited). */
extern uint32_t wait_history_total(const wait_history_t *w, time_t now);

/* The status file's key for a cause. */
extern const char *wait_cause_key(wait_cause_t cause);

/*
 * The log's words for a cause. hivedctl links this file for them, so the
 * plugin's start line and hivedctl's "Waited ..." lines cannot drift apart.
 */
extern const char *wait_cause_text(wait_cause_t cause);

/* The cause of a status file key; WAIT_CAUSES for a key this build lacks. */
extern wait_cause_t wait_cause_from_key(const char *k);

/*
 * "85 s: its VC's quota in use 40 s, no free cells of its shape 45 s", causes
 * in enum order, those under a second left out; truncated to fit `size`.
 * Returns the length snprintf would have written.
 */
extern int wait_history_text(const wait_history_t *w, time_t now, char *buf,
			     size_t size);

/* {"vcQuota":40,"cells":45}: every cause with a second or more. */
extern int wait_history_json(const wait_history_t *w, time_t now, char *buf,
			     size_t size);

#ifdef __cplusplus
}
#endif

#endif
