/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_status.h - the live, world-readable view of select/hived for hivedctl,
 * priority/hived and monitoring: <StateSaveLocation>/hived_status.json.
 *
 * It holds only what squeue shows anyway (job ids, accounts, nodes, GPUs) and is
 * written by a thread of its own, at most once a second after a change, so no
 * scheduling call ever waits for the disk. Unlike the 0600 state file it is not
 * read back by the plugin.
 */
#ifndef HIVED_STATUS_H
#define HIVED_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hived.h"
#include "wait_history.h"

extern void hived_status_start(void);
extern void hived_status_stop(void);

/* Also write the state file (hived_ctld_state_save) whenever the status is. */
extern void hived_status_save_state(bool on);

/* Something changed: write the file again soon. */
extern void hived_status_dirty(void);
/* Counts those changes (priority/hived re-bands when it moves). */
extern uint64_t hived_status_generation(void);

/*
 * Why a job waits (NULL: it no longer waits), and the cause for its wait
 * history: the seconds under each cause accumulate while it stays listed.
 */
extern void hived_status_pending(uint32_t job_id, const char *vc,
				 const char *job_class, const char *reason,
				 wait_cause_t cause);

/*
 * The job starts: it leaves the waiting list, its wait history joins the last
 * started jobs' (hivedctl job) and is written to buf as wait_history_text does.
 * An array task without an entry of its own takes its array's (array_job_id;
 * 0: none), which stays listed. False, buf empty, if HiveD never made it wait.
 */
extern bool hived_status_started(uint32_t job_id, uint32_t array_job_id,
				 char *buf, size_t size);

/* A job select/hived refused outright, and why (kept for hivedctl job);
 * false if that was already known. */
extern bool hived_status_refused(uint32_t job_id, const char *vc,
				 const char *reason);

/* The last (re)load of hived.conf or sacctmgr limits: NULL if it was applied,
 * else why it was refused (the previous configuration stays in force). */
extern void hived_status_reload(const char *refused_reason);

/*
 * Phases of HiveD's own share of a job_test call (issue 18 item 3: which one
 * grows with the cluster). REST is the own share less the others.
 */
typedef enum {
	HIVED_PHASE_LOCK,	/* waiting for the plugin's lock */
	HIVED_PHASE_SYNC,	/* quota refresh and node sync */
	HIVED_PHASE_BUILD,	/* the request: classify, allowed nodes */
	HIVED_PHASE_ENGINE,	/* hived_submit, WILL_RUN trials, quota end */
	HIVED_PHASE_STEER,	/* core steering (22.05) */
	HIVED_PHASE_REST,
	HIVED_PHASE_N
} hived_phase_t;

/*
 * One select_p_job_test call handled by HiveD. Wall clock (CLOCK_MONOTONIC)
 * and the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID): on a loaded
 * host a long wall time with little CPU is the thread waiting to run, not work.
 */
typedef struct {
	uint64_t usec;		/* the whole call, cons_tres's share included */
	uint64_t own_usec;	/* HiveD's own share: less cons_tres's */
	uint64_t own_cpu_usec;	/* the thread's CPU time in that share */
	uint64_t phase_usec[HIVED_PHASE_N];	/* wall; REST: own less the rest */
	uint64_t engine_cpu_usec;	/* the thread's CPU time in the engine */
	uint64_t ivcsw;		/* involuntary context switches in the call */
	/* WILL_RUN questions in the call: trials, memo answers, jobs ended */
	uint64_t trials, memo_answers, trial_ended;
	/* of the trials: those the VC's guarantee answered (hived_will_run_counts) */
	uint64_t by_guarantee;
} hived_job_test_time_t;

extern void hived_status_job_test(const hived_job_test_time_t *t);

/* One line on a slow call (the last few are kept in the file). */
extern void hived_status_slow_job_test(const char *text);

extern void hived_status_count_preempt(int killed, int lazy);
/* Whether borrowIdleCells is in force (written for hivedctl whatif). */
extern void hived_status_set_borrowing(bool on);
/*
 * hived.conf's "slurm" settings that decide a job's class, priority and shape
 * (written for hivedctl whatif: the file's config is the engine's, without them).
 */
extern void hived_status_set_settings(const hived_settings *s);
/* A guaranteed job started on idle GPUs outside its VC's cells (borrowIdleCells). */
extern void hived_status_count_borrowed(void);
/* Demoted jobs the engine bound to their VC's cells where they run (promotion). */
extern void hived_status_count_promoted(int n);

#endif
