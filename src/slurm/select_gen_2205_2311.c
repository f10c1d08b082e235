/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * select_gen_2205_2311.c - select/hived's entry points for Slurm 22.05 and
 * for 23.11 to 24.11: the generations in which slurmctld loads every
 * select_*.so, which differ only in five operations 23.11 dropped and in
 * job_test's exclusions (hived_exc_t, slurm_gen.h).
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

#include <stddef.h>
#include <string.h>

#include "src/slurmctld/slurmctld.h"

#include "plugin_forward.h"
#include "select_hooks.h"
#include "select_pass.h"
#include "slurm_gen.h"

#if HIVED_SELECT_GEN != 2205 && HIVED_SELECT_GEN != 2311
#error "select_gen_2205_2311.c is for Slurm 22.05 and 23.11 to 24.11"
#endif

/*
 * Slurm checks plugin_type's prefix and plugin_version; plugin_id must be unique
 * among every select_*.so in PluginDir (>= 100; 101-110 are Slurm's own) because
 * node and job info are packed with it on the wire (a second 109 is fatal).
 */
const char plugin_name[] = "HiveD virtual-cluster GPU cell selection plugin";
const char plugin_type[] = "select/hived";
const uint32_t plugin_id = 190;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* cons_tres' operations this file forwards itself (HIVED_OWN in select_ops.h). */
typedef struct {
	int (*state_save)(char *dir_name);
	int (*state_restore)(char *dir_name);
	int (*job_init)(list_t *job_list);
	int (*node_init)(void);
	int (*job_test)(job_record_t *job_ptr, bitstr_t *bitmap,
			uint32_t min_nodes, uint32_t max_nodes,
			uint32_t req_nodes, uint16_t mode,
			list_t *preemptee_candidates,
			list_t **preemptee_job_list,
			hived_exc_t *exc
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
			, will_run_data_t *will_run_ptr
#endif
			);
#if HIVED_SELECT_GEN == 2205
	int (*job_signal)(job_record_t *job_ptr, int signal);
	char *(*jobinfo_sprint)(select_jobinfo_t *jobinfo, char *buf,
				size_t size, int mode);
	char *(*jobinfo_xstrdup)(select_jobinfo_t *jobinfo, int mode);
	int (*update_node_config)(int index);
	bitstr_t *(*resv_test)(resv_desc_msg_t *resv_desc_ptr,
			       uint32_t node_cnt, bitstr_t *avail_bitmap,
			       bitstr_t **core_bitmap);
#endif
} own_t;

static own_t cons_tres;

static const hived_fwd_op_t own_ops[] = {
#define HIVED_OPS_OWN_OF own_t
#include "select_ops.h"
};

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
	if (hived_select_forward_open(&cons_tres_so, own_ops,
				      ARRAY_SIZE(own_ops), &cons_tres,
				      sizeof(cons_tres)))
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
			     hived_exc_t *exc
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
				   preemptee_job_list, exc, will_run_ptr,
				   _cons_tres_job_test);
}

#if HIVED_SELECT_GEN == 2205
extern int select_p_job_signal(job_record_t *job_ptr, int signal)
{
	return cons_tres.job_signal(job_ptr, signal);
}

extern char *select_p_select_jobinfo_sprint(select_jobinfo_t *jobinfo,
					    char *buf, size_t size, int mode)
{
	return cons_tres.jobinfo_sprint(jobinfo, buf, size, mode);
}

extern char *select_p_select_jobinfo_xstrdup(select_jobinfo_t *jobinfo,
					     int mode)
{
	return cons_tres.jobinfo_xstrdup(jobinfo, mode);
}

extern int select_p_update_node_config(int index)
{
	return cons_tres.update_node_config(index);
}

extern bitstr_t *select_p_resv_test(resv_desc_msg_t *resv_desc_ptr,
				    uint32_t node_cnt, bitstr_t *avail_bitmap,
				    bitstr_t **core_bitmap)
{
	return cons_tres.resv_test(resv_desc_ptr, node_cnt, avail_bitmap,
				   core_bitmap);
}
#endif

