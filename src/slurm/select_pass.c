/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * select_pass.c - the select_p_* entry points that are the same in every
 * interface generation (select_pass.h): straight to cons_tres, or around the
 * same hooks. 22.05 to 24.11 also share the step, nodeinfo and jobinfo
 * operations that 25.05 dropped. Which operation is whose: select_ops.h.
 */
#include "src/common/slurm_xlator.h"

#include <stddef.h>
#include <string.h>

#include "slurm_gen.h"
#include "src/slurmctld/slurmctld.h"

#include "select_hooks.h"
#include "select_pass.h"

/* cons_tres' operations select_pass.c forwards; any field order (select_ops.h). */
typedef struct {
	int (*job_begin)(job_record_t *job_ptr);
	int (*job_ready)(job_record_t *job_ptr);
	int (*job_expand)(job_record_t *from_job_ptr, job_record_t *to_job_ptr);
	int (*job_resized)(job_record_t *job_ptr, node_record_t *node_ptr);
	int (*job_fini)(job_record_t *job_ptr);
	int (*job_suspend)(job_record_t *job_ptr, bool indf_susp);
	int (*job_resume)(job_record_t *job_ptr, bool indf_susp);
	int (*nodeinfo_set_all)(void);
	int (*nodeinfo_set)(job_record_t *job_ptr);
	int (*reconfigure)(void);
#if HIVED_SELECT_GEN < 2505
	bitstr_t *(*step_pick_nodes)(job_record_t *job_ptr,
				     select_jobinfo_t *step_jobinfo,
				     uint32_t node_count,
				     bitstr_t **avail_nodes);
	int (*step_start)(step_record_t *step_ptr);
	int (*step_finish)(step_record_t *step_ptr, bool killing_step);
	int (*nodeinfo_pack)(select_nodeinfo_t *nodeinfo, buf_t *buffer,
			     uint16_t protocol_version);
	int (*nodeinfo_unpack)(select_nodeinfo_t **nodeinfo, buf_t *buffer,
			       uint16_t protocol_version);
	select_nodeinfo_t *(*nodeinfo_alloc)(void);
	int (*nodeinfo_free)(select_nodeinfo_t *nodeinfo);
	int (*nodeinfo_get)(select_nodeinfo_t *nodeinfo,
			    enum select_nodedata_type dinfo,
			    enum node_states state, void *data);
	select_jobinfo_t *(*jobinfo_alloc)(void);
	int (*jobinfo_free)(select_jobinfo_t *jobinfo);
	int (*jobinfo_set)(select_jobinfo_t *jobinfo,
			   enum select_jobdata_type data_type, void *data);
	int (*jobinfo_get)(select_jobinfo_t *jobinfo,
			   enum select_jobdata_type data_type, void *data);
	select_jobinfo_t *(*jobinfo_copy)(select_jobinfo_t *jobinfo);
	int (*jobinfo_pack)(select_jobinfo_t *jobinfo, buf_t *buffer,
			    uint16_t protocol_version);
	int (*jobinfo_unpack)(select_jobinfo_t **jobinfo_pptr, buf_t *buffer,
			      uint16_t protocol_version);
	int (*get_info_from_plugin)(enum select_plugindata_info dinfo,
				    job_record_t *job_ptr, void *data);
#endif
} pass_t;

static pass_t pass;

static const hived_fwd_op_t pass_ops[] = {
#define HIVED_OPS_PASS_OF pass_t
#include "select_ops.h"
};

/*
 * Every operation of this release, in Slurm's order: what configure compares
 * with node_select_syms[] (scripts/slurm-ops-check).
 */
static const char *cons_tres_syms[] = {
#define HIVED_OPS_NAMES
#include "select_ops.h"
};

extern int hived_select_forward_open(hived_fwd_t *cons_tres_so,
				     const hived_fwd_op_t *own, size_t n_own,
				     void *own_table, size_t own_size)
{
	/* A field without its line in select_ops.h would stay NULL. */
	if ((own_size != n_own * sizeof(void *)) ||
	    (sizeof(pass) != ARRAY_SIZE(pass_ops) * sizeof(void *))) {
		error("select/hived: the forwarding tables and select_ops.h disagree");
		return SLURM_ERROR;
	}
	if (hived_fwd_open(cons_tres_so, "select_cons_tres.so"))
		return SLURM_ERROR;
	debug("select/hived: %zu operations, %zu of them passed straight to %s",
	      ARRAY_SIZE(cons_tres_syms), ARRAY_SIZE(pass_ops),
	      cons_tres_so->path);
	return (hived_fwd_resolve_ops(cons_tres_so, own, n_own, own_table) ||
		hived_fwd_resolve_ops(cons_tres_so, pass_ops,
				      ARRAY_SIZE(pass_ops), &pass)) ?
	       SLURM_ERROR : SLURM_SUCCESS;
}

extern void hived_select_pass_clear(void)
{
	memset(&pass, 0, sizeof(pass));
}

extern int select_p_job_begin(job_record_t *job_ptr)
{
	int rc;

	/* An error leaves the job pending (node_scheduler.c) and cons_tres untouched. */
	rc = hived_hook_job_begin(job_ptr);
	if (rc != SLURM_SUCCESS)
		return rc;
	rc = pass.job_begin(job_ptr);
	if (rc == SLURM_SUCCESS)
		hived_hook_job_begun(job_ptr);
	return rc;
}

extern int select_p_job_ready(job_record_t *job_ptr)
{
	return pass.job_ready(job_ptr);
}

extern int select_p_job_expand(job_record_t *from_job_ptr,
			       job_record_t *to_job_ptr)
{
	return pass.job_expand(from_job_ptr, to_job_ptr);
}

extern int select_p_job_resized(job_record_t *job_ptr, node_record_t *node_ptr)
{
	return pass.job_resized(job_ptr, node_ptr);
}

extern int select_p_job_fini(job_record_t *job_ptr)
{
	hived_hook_job_fini(job_ptr);
	return pass.job_fini(job_ptr);
}

extern int select_p_job_suspend(job_record_t *job_ptr, bool indf_susp)
{
	return pass.job_suspend(job_ptr, indf_susp);
}

extern int select_p_job_resume(job_record_t *job_ptr, bool indf_susp)
{
	return pass.job_resume(job_ptr, indf_susp);
}

extern int select_p_select_nodeinfo_set_all(void)
{
	return pass.nodeinfo_set_all();
}

/* Also each recovered job at start: reconcile it with the engine. */
extern int select_p_select_nodeinfo_set(job_record_t *job_ptr)
{
	int rc = pass.nodeinfo_set(job_ptr);

	hived_hook_job_recovered(job_ptr);
	return rc;
}

extern int select_p_reconfigure(void)
{
	/*
	 * hived.conf is reloaded by node_init, which reconfigure runs first
	 * (from 24.05 in the new slurmctld reconfigure starts).
	 */
	return pass.reconfigure();
}

#if HIVED_SELECT_GEN < 2505
extern bitstr_t *select_p_step_pick_nodes(job_record_t *job_ptr,
					  select_jobinfo_t *jobinfo,
					  uint32_t node_count,
					  bitstr_t **avail_nodes)
{
	return pass.step_pick_nodes(job_ptr, jobinfo, node_count, avail_nodes);
}

extern int select_p_step_start(step_record_t *step_ptr)
{
	return pass.step_start(step_ptr);
}

extern int select_p_step_finish(step_record_t *step_ptr, bool killing_step)
{
	return pass.step_finish(step_ptr, killing_step);
}

extern int select_p_select_nodeinfo_pack(select_nodeinfo_t *nodeinfo,
					 buf_t *buffer,
					 uint16_t protocol_version)
{
	return pass.nodeinfo_pack(nodeinfo, buffer, protocol_version);
}

extern int select_p_select_nodeinfo_unpack(select_nodeinfo_t **nodeinfo,
					   buf_t *buffer,
					   uint16_t protocol_version)
{
	return pass.nodeinfo_unpack(nodeinfo, buffer, protocol_version);
}

extern select_nodeinfo_t *select_p_select_nodeinfo_alloc(void)
{
	return pass.nodeinfo_alloc();
}

extern int select_p_select_nodeinfo_free(select_nodeinfo_t *nodeinfo)
{
	return pass.nodeinfo_free(nodeinfo);
}

extern int select_p_select_nodeinfo_get(select_nodeinfo_t *nodeinfo,
					enum select_nodedata_type dinfo,
					enum node_states state, void *data)
{
	return pass.nodeinfo_get(nodeinfo, dinfo, state, data);
}

extern select_jobinfo_t *select_p_select_jobinfo_alloc(void)
{
	return pass.jobinfo_alloc();
}

extern int select_p_select_jobinfo_free(select_jobinfo_t *jobinfo)
{
	return pass.jobinfo_free(jobinfo);
}

extern int select_p_select_jobinfo_set(select_jobinfo_t *jobinfo,
				       enum select_jobdata_type data_type,
				       void *data)
{
	return pass.jobinfo_set(jobinfo, data_type, data);
}

extern int select_p_select_jobinfo_get(select_jobinfo_t *jobinfo,
				       enum select_jobdata_type data_type,
				       void *data)
{
	return pass.jobinfo_get(jobinfo, data_type, data);
}

extern select_jobinfo_t *select_p_select_jobinfo_copy(select_jobinfo_t *jobinfo)
{
	return pass.jobinfo_copy(jobinfo);
}

extern int select_p_select_jobinfo_pack(select_jobinfo_t *jobinfo,
					buf_t *buffer,
					uint16_t protocol_version)
{
	return pass.jobinfo_pack(jobinfo, buffer, protocol_version);
}

extern int select_p_select_jobinfo_unpack(select_jobinfo_t **jobinfo,
					  buf_t *buffer,
					  uint16_t protocol_version)
{
	return pass.jobinfo_unpack(jobinfo, buffer, protocol_version);
}

extern int select_p_get_info_from_plugin(enum select_plugindata_info dinfo,
					 job_record_t *job_ptr, void *data)
{
	return pass.get_info_from_plugin(dinfo, job_ptr, data);
}
#endif
