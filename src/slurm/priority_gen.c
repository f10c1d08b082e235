/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * priority_gen.c - the multifactor entry points priority/hived passes on, for the
 * Slurm release configure found. The table is checked against the release's
 * priority syms[] by configure (scripts/slurm-ops-check).
 */
#include "src/common/slurm_xlator.h"

#include <string.h>

#include "slurm_gen.h"
#include "src/common/xmalloc.h"

#include "plugin_forward.h"
#include "priority_gen.h"

#define HIVED_PRIO_RECOVER (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0))
#define HIVED_PRIO_THREAD_START \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0))
#define HIVED_PRIO_FACTORS_BY_UID \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 5, 0))
#define HIVED_PRIO_CALC_FS (SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(25, 11, 0))

/* Same order as Slurm's priority syms[]. */
static const char *multifactor_syms[] = {
	"priority_p_set",
	"priority_p_reconfig",
	"priority_p_set_assoc_usage",
#if HIVED_PRIO_CALC_FS
	"priority_p_calc_fs_factor",
#endif
	"priority_p_get_priority_factors_list",
	"priority_p_job_end",
#if HIVED_PRIO_RECOVER
	"priority_p_recover",
#endif
#if HIVED_PRIO_THREAD_START
	"priority_p_thread_start",
#endif
};

/* Field order must match multifactor_syms. */
static struct {
	uint32_t (*set)(uint32_t last_prio, job_record_t *job_ptr);
	void (*reconfig)(bool assoc_clear);
	void (*set_assoc_usage)(slurmdb_assoc_rec_t *assoc);
#if HIVED_PRIO_CALC_FS
	double (*calc_fs_factor)(long double usage_efctv,
				 long double shares_norm);
#endif
#if HIVED_PRIO_FACTORS_BY_UID
	list_t *(*get_priority_factors)(uid_t uid);
#else
	list_t *(*get_priority_factors)(priority_factors_request_msg_t *req_msg,
					uid_t uid);
#endif
	void (*job_end)(job_record_t *job_ptr);
#if HIVED_PRIO_RECOVER
	uint32_t (*recover)(uint32_t prio_boost);
#endif
#if HIVED_PRIO_THREAD_START
	void (*thread_start)(void);
#endif
} multifactor;

static hived_fwd_t multifactor_so;

extern int hived_multifactor_open(void)
{
	static const size_t n =
		sizeof(multifactor_syms) / sizeof(multifactor_syms[0]);

	if (sizeof(multifactor) != n * sizeof(void *)) {
		error("priority/hived: forwarding table out of sync with its symbol list");
		return SLURM_ERROR;
	}
	if (hived_fwd_open(&multifactor_so, "priority_multifactor.so") ||
	    hived_fwd_resolve(&multifactor_so, multifactor_syms,
			      (void **) &multifactor, n))
		return SLURM_ERROR;
	if (multifactor_so.loaded_here &&
	    hived_fwd_call_init(&multifactor_so))
		return SLURM_ERROR;
	return SLURM_SUCCESS;
}

extern void hived_multifactor_close(void)
{
	if (multifactor_so.loaded_here)
		hived_fwd_call_fini(&multifactor_so);
	hived_fwd_close(&multifactor_so);
	memset(&multifactor, 0, sizeof(multifactor));
}

extern uint32_t hived_multifactor_set(uint32_t last_prio, job_record_t *job_ptr)
{
	return multifactor.set(last_prio, job_ptr);
}

extern void hived_multifactor_reconfig(bool assoc_clear)
{
	multifactor.reconfig(assoc_clear);
}

extern void priority_p_set_assoc_usage(slurmdb_assoc_rec_t *assoc)
{
	multifactor.set_assoc_usage(assoc);
}

#if HIVED_PRIO_CALC_FS
extern double priority_p_calc_fs_factor(long double usage_efctv,
					long double shares_norm)
{
	return multifactor.calc_fs_factor(usage_efctv, shares_norm);
}
#endif

/* sprio: multifactor's factors; HiveD's band is in the SITE column. */
#if HIVED_PRIO_FACTORS_BY_UID
extern list_t *priority_p_get_priority_factors_list(uid_t uid)
{
	return multifactor.get_priority_factors(uid);
}
#else
extern list_t *priority_p_get_priority_factors_list(
	priority_factors_request_msg_t *req_msg, uid_t uid)
{
	return multifactor.get_priority_factors(req_msg, uid);
}
#endif

extern void priority_p_job_end(job_record_t *job_ptr)
{
	multifactor.job_end(job_ptr);
}

#if HIVED_PRIO_RECOVER
extern uint32_t priority_p_recover(uint32_t prio_boost)
{
	return multifactor.recover(prio_boost);
}
#endif

#if HIVED_PRIO_THREAD_START
/* multifactor's fair-share decay thread starts here, not in its init(). */
extern void priority_p_thread_start(void)
{
	multifactor.thread_start();
}
#endif
