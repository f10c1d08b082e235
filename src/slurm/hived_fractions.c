/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_fractions.c - a job's demand in the engine's leaf cells (hived_fractions.h).
 */
#include "src/common/slurm_xlator.h"

#include <jansson.h>
#include <stdlib.h>

#include "hived_ctld.h"
#include "hived_fractions.h"

static char *lpg_json;
static int64_t lpg_max = 1;
static hived_engine *lpg_engine;
static uint64_t lpg_gen;

extern int64_t hived_member_fraction_leaves(const hived_member *m)
{
	int64_t cell = 1;

	if (m->fraction_number <= 0)
		return 0;
	while (cell < m->fraction_number)
		cell *= 2;
	return cell * m->pod_number;
}

/* Only chains with cell levels below the GPU are listed: a reader takes 1 for the rest. */
static void _rebuild(hived_engine *e)
{
	json_t *per = json_object();
	size_t n = hived_chain_count(e);

	lpg_max = 1;
	for (size_t i = 0; i < n; i++) {
		int64_t lpg = hived_chain_leaves_per_gpu(e, i);

		if (lpg <= 1)
			continue;
		json_object_set_new(per, hived_chain_name(e, i),
				    json_integer(lpg));
		if (lpg > lpg_max)
			lpg_max = lpg;
	}
	free(lpg_json);
	lpg_json = json_dumps(per, JSON_COMPACT);
	json_decref(per);
}

static void _fresh(hived_engine *e)
{
	uint64_t gen = hived_ctld_accepted_generation();

	if (lpg_json && (lpg_engine == e) && (lpg_gen == gen))
		return;
	_rebuild(e);
	lpg_engine = e;
	lpg_gen = gen;
}

extern const char *hived_leaves_per_gpu_json(hived_engine *e)
{
	_fresh(e);
	return lpg_json ? lpg_json : "{}";
}

extern int64_t hived_leaves_per_gpu_max(hived_engine *e)
{
	_fresh(e);
	return lpg_max;
}

extern int64_t hived_request_leaves(hived_engine *e, const hived_job_request *r)
{
	int64_t n = 0;
	int64_t per_gpu = hived_is_mig_profile(e, r->leaf_cell_type) ?
			  1 : hived_leaves_per_gpu_max(e);

	for (size_t i = 0; i < r->n_members; i++) {
		const hived_member *m = &r->members[i];

		n += m->fraction_number ? hived_member_fraction_leaves(m) :
		     (int64_t) m->pod_number * m->leaf_cell_number * per_gpu;
	}
	return n;
}
