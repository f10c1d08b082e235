/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * select_hooks.h - where select/hived hands Slurm's events to the HiveD engine.
 *
 * select_hived.c forwards every select_p_* call to cons_tres and calls these hooks
 * around the calls that matter to HiveD. Each hook does work only in slurmctld (the
 * plugin is also loaded by slurmd, slurmstepd and every client). A hook that fails
 * logs and lets cons_tres decide: HiveD must never take slurmctld down.
 */
#ifndef HIVED_SELECT_HOOKS_H
#define HIVED_SELECT_HOOKS_H

#include "src/slurmctld/slurmctld.h"

#include "slurm_gen.h"

/*
 * cons_tres' job_test, with the exclusions of every generation (select_gen_*.c
 * adapts it to the release's own signature; will_run is NULL before 24.11).
 */
typedef int (*hived_job_test_f)(job_record_t *job_ptr, bitstr_t *bitmap,
				uint32_t min_nodes, uint32_t max_nodes,
				uint32_t req_nodes, uint16_t mode,
				list_t *preemptee_candidates,
				list_t **preemptee_job_list,
				hived_exc_t *exc,
				hived_will_run_t *will_run);

/* Plugin load and unload. */
extern int hived_hook_init(void);
extern void hived_hook_fini(void);

/*
 * The whole of select_p_job_test: HiveD picks the nodes and GPUs (or the
 * victims), then cons_tres is called on just those nodes for cores and memory.
 */
extern int hived_hook_job_test(job_record_t *job_ptr, bitstr_t *bitmap,
			       uint32_t min_nodes, uint32_t max_nodes,
			       uint32_t req_nodes, uint16_t mode,
			       list_t *preemptee_candidates,
			       list_t **preemptee_job_list,
			       hived_exc_t *exc,
			       hived_will_run_t *will_run,
			       hived_job_test_f cons_tres_job_test);

/*
 * Before cons_tres commits the job: commit in HiveD, force the GPU indices.
 * SLURM_ERROR when Slurm's GPU allocation cannot carry them: the job stays pending.
 */
extern int hived_hook_job_begin(job_record_t *job_ptr);
/* After cons_tres committed: record jobs HiveD did not place itself. */
extern void hived_hook_job_begun(job_record_t *job_ptr);

/* The job's resources are being released. */
extern void hived_hook_job_fini(job_record_t *job_ptr);

/* slurmctld (re)start or reconfigure: reconcile with Slurm's running jobs. */
extern void hived_hook_job_init(list_t *job_list);
/* A running job whose node bitmap Slurm has (re)built (nodeinfo_set). */
extern void hived_hook_job_recovered(job_record_t *job_ptr);

/* Node table (re)built (start, reconfigure): (re)load hived.conf. */
extern void hived_hook_node_init(void);

/* State file in StateSaveLocation. */
extern void hived_hook_state_save(const char *dir_name);
extern void hived_hook_state_restore(const char *dir_name);

#endif
