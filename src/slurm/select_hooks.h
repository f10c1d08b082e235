/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * select_hooks.h - where select/hived hands Slurm's events to the HiveD engine.
 *
 * select_hived.c forwards every select_p_* call to cons_tres and calls these hooks
 * around the calls that matter to HiveD. Each hook runs in slurmctld only (the
 * plugin is also loaded by slurmd, slurmstepd and every client) with the locks the
 * corresponding select_g_* caller holds. A hook returning an error is logged and the
 * forwarded call still decides: HiveD must never take slurmctld down.
 */
#ifndef HIVED_SELECT_HOOKS_H
#define HIVED_SELECT_HOOKS_H

#include "src/slurmctld/slurmctld.h"

/* Plugin load (slurmctld start and "scontrol reconfigure" reload). */
extern int hived_hook_init(void);
extern void hived_hook_fini(void);

/* hived.conf path: the directory of SLURM_CONF + "/hived.conf"; xfree() it. */
extern char *hived_hook_config_path(void);

/*
 * Before cons_tres picks nodes: the engine may clear bits of node_bitmap to keep
 * the job inside the cells it chose, or return ESLURM_NODES_BUSY itself.
 * RET SLURM_SUCCESS to let cons_tres proceed.
 */
extern int hived_hook_job_test(job_record_t *job_ptr, bitstr_t *node_bitmap,
			       uint32_t min_nodes, uint32_t max_nodes,
			       uint32_t req_nodes, uint16_t mode);

/* After cons_tres answered (rc) for the same call: node_bitmap is its choice. */
extern void hived_hook_job_test_done(job_record_t *job_ptr,
				     bitstr_t *node_bitmap, uint16_t mode,
				     int rc);

/* Before cons_tres commits the job: the place to rewrite gres_bit_select. */
extern int hived_hook_job_begin(job_record_t *job_ptr);

/* The job's resources are being released. */
extern void hived_hook_job_fini(job_record_t *job_ptr);

/* slurmctld (re)start: the running jobs to rebuild bindings from. */
extern void hived_hook_job_init(List job_list);

/* Node table (re)built, or one node's configuration changed. */
extern void hived_hook_node_init(void);
extern void hived_hook_node_update(int node_index);

/* "scontrol reconfigure" or a partition change. */
extern void hived_hook_reconfigure(void);

/* State file in StateSaveLocation. */
extern void hived_hook_state_save(const char *dir_name);
extern void hived_hook_state_restore(const char *dir_name);

#endif
