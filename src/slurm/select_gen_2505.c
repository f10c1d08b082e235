/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * select_gen_2505.c - select/hived's entry points for Slurm 25.05 and later.
 *
 * From 25.05 Slurm loads only the SelectType plugin, so cons_tres is ours to
 * load, init and fini; a select plugin gets cons_tres semantics (CR_Core, shared
 * GRES such as shard and MPS) only with plugin_id 109; and there is no
 * state_save, state_restore or job_init. node_init runs with Slurm's job list
 * already loaded, so the state file is restored and reconciled there, and the
 * status writer keeps the state file current (there is no save hook, and
 * "scontrol reconfigure" replaces slurmctld without calling fini).
 */
#include "src/common/slurm_xlator.h"

#include <stddef.h>
#include <string.h>

#include "src/common/read_config.h"
#include "src/slurmctld/slurmctld.h"

#include "hived_status.h"
#include "plugin_forward.h"
#include "select_hooks.h"
#include "select_pass.h"
#include "slurm_gen.h"

#if HIVED_SELECT_GEN != 2505
#error "select_gen_2505.c is for Slurm 25.05 and later"
#endif

const char plugin_name[] = "HiveD virtual-cluster GPU cell selection plugin";
const char plugin_type[] = "select/hived";
/* SELECT_PLUGIN_CONS_TRES: running_cons_tres() tests the id, not the name. */
const uint32_t plugin_id = 109;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* cons_tres' operations this file forwards itself (HIVED_OWN in select_ops.h). */
typedef struct {
	int (*node_init)(void);
	/* cons_tres' own signature here: hived_exc_t and hived_will_run_t are Slurm's. */
	hived_job_test_f job_test;
#if HIVED_JOB_MEM_REDUCE
	void (*job_mem_reduce)(job_record_t *job_ptr);
#endif
} own_t;

static own_t cons_tres;

static const hived_fwd_op_t own_ops[] = {
#define HIVED_OPS_OWN_OF own_t
#include "select_ops.h"
};

static hived_fwd_t cons_tres_so;

extern int init(void)
{
	/* Slurm never loads cons_tres itself here: init and fini are ours. */
	if (hived_select_forward_open(&cons_tres_so, own_ops,
				      ARRAY_SIZE(own_ops), &cons_tres,
				      sizeof(cons_tres)) ||
	    hived_fwd_call_init(&cons_tres_so)) {
		hived_fwd_close(&cons_tres_so);
		return SLURM_ERROR;
	}
	hived_status_save_state(true);
	return hived_hook_init();
}

extern int fini(void)
{
	/* Bindings as they are now: no state_save hook runs at shutdown. */
	hived_hook_state_save(slurm_conf.state_save_location);
	hived_hook_fini();
	(void) hived_fwd_call_fini(&cons_tres_so);
	hived_fwd_close(&cons_tres_so);
	memset(&cons_tres, 0, sizeof(cons_tres));
	hived_select_pass_clear();
	return SLURM_SUCCESS;
}

/*
 * Start and every node table rebuild: hived.conf (re)loaded, then what 22.05's
 * state_restore and job_init did: the state file (only while the engine holds
 * no job, i.e. at start) and the release of engine jobs Slurm does not run.
 */
extern int select_p_node_init(void)
{
	int rc = cons_tres.node_init();

	hived_hook_node_init();
	hived_hook_state_restore(slurm_conf.state_save_location);
	hived_hook_job_init(job_list);
	return rc;
}

extern int select_p_job_test(job_record_t *job_ptr, bitstr_t *bitmap,
			     uint32_t min_nodes, uint32_t max_nodes,
			     uint32_t req_nodes, uint16_t mode,
			     list_t *preemptee_candidates,
			     list_t **preemptee_job_list,
			     resv_exc_t *resv_exc_ptr,
			     will_run_data_t *will_run_ptr)
{
	return hived_hook_job_test(job_ptr, bitmap, min_nodes, max_nodes,
				   req_nodes, mode, preemptee_candidates,
				   preemptee_job_list, resv_exc_ptr,
				   will_run_ptr, cons_tres.job_test);
}

#if HIVED_JOB_MEM_REDUCE
extern void select_p_job_mem_reduce(job_record_t *job_ptr)
{
	cons_tres.job_mem_reduce(job_ptr);
}
#endif
