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
#include <stdint.h>

extern void hived_status_start(void);
extern void hived_status_stop(void);

/* Also write the state file (hived_ctld_state_save) whenever the status is. */
extern void hived_status_save_state(bool on);

/* Something changed: write the file again soon. */
extern void hived_status_dirty(void);
/* Counts those changes (priority/hived re-bands when it moves). */
extern uint64_t hived_status_generation(void);

/* Why a job waits (NULL: it no longer waits). */
extern void hived_status_pending(uint32_t job_id, const char *vc,
				 const char *job_class, const char *reason);

/* A job select/hived refused outright, and why (kept for hivedctl job);
 * false if that was already known. */
extern bool hived_status_refused(uint32_t job_id, const char *vc,
				 const char *reason);

/* The last (re)load of hived.conf or sacctmgr limits: NULL if it was applied,
 * else why it was refused (the previous configuration stays in force). */
extern void hived_status_reload(const char *refused_reason);

/*
 * One select_p_job_test call handled by HiveD took `usec`, of which own_usec
 * outside cons_tres (the rest is what cons_tres would take anyway).
 */
extern void hived_status_job_test_time(uint64_t usec, uint64_t own_usec);
extern void hived_status_count_preempt(int killed, int lazy);

#endif
