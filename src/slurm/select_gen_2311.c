/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * select_gen_2311.c - select/hived's entry points for Slurm 23.11 to 24.11.
 *
 * One of the select_gen_*.c files (the one for the release configure found) is
 * built into select_hived.so; the decisions are in select_hooks.c.
 *
 * Cores, memory, steps and job_resources stay with select/cons_tres: every
 * select_p_* entry point forwards to the cons_tres copy slurmctld already loaded
 * (select_g_init() loads every select_*.so in PluginDir). The calls HiveD cares
 * about pass through select_hooks.c first.
 */
#include "src/common/slurm_xlator.h"

#include <string.h>

#include "src/slurmctld/slurmctld.h"

#include "plugin_forward.h"
#include "select_hooks.h"
#include "select_pass.h"
#include "slurm_gen.h"

#if HIVED_SELECT_GEN != 2311
#error "select_gen_2311.c is for Slurm 23.11 to 24.11"
#endif

/*
 * As in 22.05: plugin_id unique among every select_*.so in PluginDir (Slurm
 * still loads them all; a second 109 is fatal).
 */
const char plugin_name[] = "HiveD virtual-cluster GPU cell selection plugin";
const char plugin_type[] = "select/hived";
const uint32_t plugin_id = 190;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/*
 * This release's operations: Slurm's node_select_syms minus "plugin_id", in
 * its order, checked by configure (scripts/slurm-ops-check).
 */
static const char *cons_tres_syms[] = {
	"select_p_state_save",
	"select_p_state_restore",
	"select_p_job_init",
	"select_p_node_init",
	"select_p_job_test",
	"select_p_job_begin",
	"select_p_job_ready",
	"select_p_job_expand",
	"select_p_job_resized",
	"select_p_job_fini",
	"select_p_job_suspend",
	"select_p_job_resume",
	"select_p_step_pick_nodes",
	"select_p_step_start",
	"select_p_step_finish",
	"select_p_select_nodeinfo_pack",
	"select_p_select_nodeinfo_unpack",
	"select_p_select_nodeinfo_alloc",
	"select_p_select_nodeinfo_free",
	"select_p_select_nodeinfo_set_all",
	"select_p_select_nodeinfo_set",
	"select_p_select_nodeinfo_get",
	"select_p_select_jobinfo_alloc",
	"select_p_select_jobinfo_free",
	"select_p_select_jobinfo_set",
	"select_p_select_jobinfo_get",
	"select_p_select_jobinfo_copy",
	"select_p_select_jobinfo_pack",
	"select_p_select_jobinfo_unpack",
	"select_p_get_info_from_plugin",
	"select_p_reconfigure",
};

/*
 * What this file forwards itself (select_pass.c has the rest of
 * cons_tres_syms). Field order must match own_syms.
 */
static const char *own_syms[] = {
	"select_p_state_save",
	"select_p_state_restore",
	"select_p_job_init",
	"select_p_node_init",
	"select_p_job_test",
};

static struct {
	int (*state_save)(char *dir_name);
	int (*state_restore)(char *dir_name);
	int (*job_init)(list_t *job_list);
	int (*node_init)(void);
	int (*job_test)(job_record_t *job_ptr, bitstr_t *bitmap,
			uint32_t min_nodes, uint32_t max_nodes,
			uint32_t req_nodes, uint16_t mode,
			list_t *preemptee_candidates,
			list_t **preemptee_job_list,
			resv_exc_t *resv_exc_ptr
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
			, will_run_data_t *will_run_ptr
#endif
			);
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
				  preemptee_job_list, exc
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
				  , will_run
#endif
				  );
}

extern int init(void)
{
	static const size_t n = ARRAY_SIZE(own_syms);

	if ((sizeof(cons_tres) != n * sizeof(void *)) ||
	    (n + hived_select_pass_count() != ARRAY_SIZE(cons_tres_syms))) {
		error("%s: forwarding tables out of sync with the operation table",
		      plugin_type);
		return SLURM_ERROR;
	}
	if (hived_fwd_open(&cons_tres_so, "select_cons_tres.so") ||
	    hived_fwd_resolve(&cons_tres_so, own_syms, (void **) &cons_tres,
			      n) ||
	    hived_select_pass_resolve(&cons_tres_so))
		return SLURM_ERROR;
	/*
	 * Loaded before select_g_init() reached cons_tres: run its init now. When
	 * Slurm loads it later it gets the same handle and runs init() again,
	 * which cons_tres tolerates (it only reads slurm_conf).
	 */
	if (cons_tres_so.loaded_here && hived_fwd_call_init(&cons_tres_so))
		return SLURM_ERROR;

	return hived_hook_init();
}

extern int fini(void)
{
	hived_hook_fini();
	/* cons_tres' fini() is Slurm's to call on its own copy. */
	hived_fwd_close(&cons_tres_so);
	memset(&cons_tres, 0, sizeof(cons_tres));
	hived_select_pass_clear();
	return SLURM_SUCCESS;
}

extern int select_p_state_save(char *dir_name)
{
	hived_hook_state_save(dir_name);
	return cons_tres.state_save(dir_name);
}

extern int select_p_state_restore(char *dir_name)
{
	int rc = cons_tres.state_restore(dir_name);

	hived_hook_state_restore(dir_name);
	return rc;
}

extern int select_p_job_init(list_t *job_list)
{
	int rc = cons_tres.job_init(job_list);

	hived_hook_job_init(job_list);
	return rc;
}

extern int select_p_node_init(void)
{
	int rc = cons_tres.node_init();

	hived_hook_node_init();
	return rc;
}

extern int select_p_job_test(job_record_t *job_ptr, bitstr_t *bitmap,
			     uint32_t min_nodes, uint32_t max_nodes,
			     uint32_t req_nodes, uint16_t mode,
			     list_t *preemptee_candidates,
			     list_t **preemptee_job_list,
			     resv_exc_t *resv_exc_ptr
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
			     , will_run_data_t *will_run_ptr
#endif
			     )
{
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(24, 11, 0)
	hived_will_run_t *will_run_ptr = NULL;
#endif
	return hived_hook_job_test(job_ptr, bitmap, min_nodes, max_nodes,
				   req_nodes, mode, preemptee_candidates,
				   preemptee_job_list, resv_exc_ptr,
				   will_run_ptr, _cons_tres_job_test);
}

