/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * priority_hived.c - priority/hived: priority/multifactor plus HiveD's classes.
 *
 * For now every call goes to priority/multifactor; the guaranteed/opportunistic
 * ordering lands here later. Slurm loads only the configured priority plugin, so
 * multifactor is ours to init() and fini() (its decay thread must be stopped
 * before its code is unmapped).
 */
#include "src/common/slurm_xlator.h"

#include <string.h>

#include "src/common/list.h"
#include "src/common/slurm_priority.h"
#include "src/slurmctld/slurmctld.h"

#include "plugin_forward.h"

const char plugin_name[] = "HiveD priority plugin (multifactor based)";
const char plugin_type[] = "priority/hived";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

static const char *multifactor_syms[] = {
	"priority_p_set",
	"priority_p_reconfig",
	"priority_p_set_assoc_usage",
	"priority_p_calc_fs_factor",
	"priority_p_get_priority_factors_list",
	"priority_p_job_end",
};

/* Field order must match multifactor_syms. */
static struct {
	uint32_t (*set)(uint32_t last_prio, job_record_t *job_ptr);
	void (*reconfig)(bool assoc_clear);
	void (*set_assoc_usage)(slurmdb_assoc_rec_t *assoc);
	double (*calc_fs_factor)(long double usage_efctv,
				 long double shares_norm);
	List (*get_priority_factors)(priority_factors_request_msg_t *req_msg,
				     uid_t uid);
	void (*job_end)(job_record_t *job_ptr);
} multifactor;

static hived_fwd_t multifactor_so;

extern int init(void)
{
	static const size_t n =
		sizeof(multifactor_syms) / sizeof(multifactor_syms[0]);

	if (sizeof(multifactor) != n * sizeof(void *)) {
		error("%s: forwarding table out of sync with its symbol list",
		      plugin_type);
		return SLURM_ERROR;
	}
	if (hived_fwd_open(&multifactor_so, "priority_multifactor.so") ||
	    hived_fwd_resolve(&multifactor_so, multifactor_syms,
			      (void **) &multifactor, n))
		return SLURM_ERROR;
	if (multifactor_so.loaded_here &&
	    hived_fwd_call_init(&multifactor_so))
		return SLURM_ERROR;
	verbose("%s loaded (ordering by priority/multifactor)", plugin_type);
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	if (multifactor_so.loaded_here)
		hived_fwd_call_fini(&multifactor_so);
	hived_fwd_close(&multifactor_so);
	memset(&multifactor, 0, sizeof(multifactor));
	return SLURM_SUCCESS;
}

extern uint32_t priority_p_set(uint32_t last_prio, job_record_t *job_ptr)
{
	return multifactor.set(last_prio, job_ptr);
}

extern void priority_p_reconfig(bool assoc_clear)
{
	multifactor.reconfig(assoc_clear);
}

extern void priority_p_set_assoc_usage(slurmdb_assoc_rec_t *assoc)
{
	multifactor.set_assoc_usage(assoc);
}

extern double priority_p_calc_fs_factor(long double usage_efctv,
					long double shares_norm)
{
	return multifactor.calc_fs_factor(usage_efctv, shares_norm);
}

extern List priority_p_get_priority_factors_list(
	priority_factors_request_msg_t *req_msg, uid_t uid)
{
	return multifactor.get_priority_factors(req_msg, uid);
}

extern void priority_p_job_end(job_record_t *job_ptr)
{
	multifactor.job_end(job_ptr);
}
