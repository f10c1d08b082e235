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

#include <string.h>

#include "src/common/read_config.h"
#include "src/slurmctld/slurmctld.h"

#include "hived_status.h"
#include "plugin_forward.h"
#include "select_hooks.h"
#include "slurm_gen.h"

#if HIVED_SELECT_GEN != 2505
#error "select_gen_2505.c is for Slurm 25.05 and later"
#endif

#define HIVED_JOB_MEM_REDUCE \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0))

const char plugin_name[] = "HiveD virtual-cluster GPU cell selection plugin";
const char plugin_type[] = "select/hived";
/* SELECT_PLUGIN_CONS_TRES: running_cons_tres() tests the id, not the name. */
const uint32_t plugin_id = 109;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* Checked against node_select_syms[] by configure (scripts/slurm-ops-check). */
static const char *cons_tres_syms[] = {
	"select_p_node_init",
	"select_p_job_test",
	"select_p_job_begin",
	"select_p_job_ready",
	"select_p_job_expand",
	"select_p_job_resized",
#if HIVED_JOB_MEM_REDUCE
	"select_p_job_mem_reduce",
#endif
	"select_p_job_fini",
	"select_p_job_suspend",
	"select_p_job_resume",
	"select_p_select_nodeinfo_set_all",
	"select_p_select_nodeinfo_set",
	"select_p_reconfigure",
};

/* Field order must match cons_tres_syms. */
static struct {
	int (*node_init)(void);
	int (*job_test)(job_record_t *job_ptr, bitstr_t *bitmap,
			uint32_t min_nodes, uint32_t max_nodes,
			uint32_t req_nodes, uint16_t mode,
			list_t *preemptee_candidates,
			list_t **preemptee_job_list,
			resv_exc_t *resv_exc_ptr,
			will_run_data_t *will_run_ptr);
	int (*job_begin)(job_record_t *job_ptr);
	int (*job_ready)(job_record_t *job_ptr);
	int (*job_expand)(job_record_t *from_job_ptr, job_record_t *to_job_ptr);
	int (*job_resized)(job_record_t *job_ptr, node_record_t *node_ptr);
#if HIVED_JOB_MEM_REDUCE
	void (*job_mem_reduce)(job_record_t *job_ptr);
#endif
	int (*job_fini)(job_record_t *job_ptr);
	int (*job_suspend)(job_record_t *job_ptr, bool indf_susp);
	int (*job_resume)(job_record_t *job_ptr, bool indf_susp);
	int (*nodeinfo_set_all)(void);
	int (*nodeinfo_set)(job_record_t *job_ptr);
	int (*reconfigure)(void);
} cons_tres;

static hived_fwd_t cons_tres_so;

static int _cons_tres_job_test(job_record_t *job_ptr, bitstr_t *bitmap,
			       uint32_t min_nodes, uint32_t max_nodes,
			       uint32_t req_nodes, uint16_t mode,
			       list_t *preemptee_candidates,
			       list_t **preemptee_job_list, hived_exc_t *exc,
			       hived_will_run_t *will_run)
{
	return cons_tres.job_test(job_ptr, bitmap, min_nodes, max_nodes,
				  req_nodes, mode, preemptee_candidates,
				  preemptee_job_list, exc, will_run);
}

extern int init(void)
{
	static const size_t n = sizeof(cons_tres_syms) / sizeof(cons_tres_syms[0]);

	if (sizeof(cons_tres) != n * sizeof(void *)) {
		error("%s: forwarding table out of sync with its symbol list",
		      plugin_type);
		return SLURM_ERROR;
	}
	/* Slurm never loads cons_tres itself here: init and fini are ours. */
	if (hived_fwd_open(&cons_tres_so, "select_cons_tres.so") ||
	    hived_fwd_resolve(&cons_tres_so, cons_tres_syms,
			      (void **) &cons_tres, n) ||
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
				   will_run_ptr, _cons_tres_job_test);
}

extern int select_p_job_begin(job_record_t *job_ptr)
{
	int rc;

	/* An error leaves the job pending (node_scheduler.c) and cons_tres untouched. */
	rc = hived_hook_job_begin(job_ptr);
	if (rc != SLURM_SUCCESS)
		return rc;
	rc = cons_tres.job_begin(job_ptr);
	if (rc == SLURM_SUCCESS)
		hived_hook_job_begun(job_ptr);
	return rc;
}

extern int select_p_job_ready(job_record_t *job_ptr)
{
	return cons_tres.job_ready(job_ptr);
}

extern int select_p_job_expand(job_record_t *from_job_ptr,
			       job_record_t *to_job_ptr)
{
	return cons_tres.job_expand(from_job_ptr, to_job_ptr);
}

extern int select_p_job_resized(job_record_t *job_ptr, node_record_t *node_ptr)
{
	return cons_tres.job_resized(job_ptr, node_ptr);
}

extern int select_p_job_fini(job_record_t *job_ptr)
{
	hived_hook_job_fini(job_ptr);
	return cons_tres.job_fini(job_ptr);
}

extern int select_p_job_suspend(job_record_t *job_ptr, bool indf_susp)
{
	return cons_tres.job_suspend(job_ptr, indf_susp);
}

extern int select_p_job_resume(job_record_t *job_ptr, bool indf_susp)
{
	return cons_tres.job_resume(job_ptr, indf_susp);
}

extern int select_p_select_nodeinfo_set_all(void)
{
	return cons_tres.nodeinfo_set_all();
}

/* Still called for each recovered job after node_init: reconcile it. */
extern int select_p_select_nodeinfo_set(job_record_t *job_ptr)
{
	int rc = cons_tres.nodeinfo_set(job_ptr);

	hived_hook_job_recovered(job_ptr);
	return rc;
}

extern int select_p_reconfigure(void)
{
	return cons_tres.reconfigure();
}

#if HIVED_JOB_MEM_REDUCE
extern void select_p_job_mem_reduce(job_record_t *job_ptr)
{
	cons_tres.job_mem_reduce(job_ptr);
}
#endif
