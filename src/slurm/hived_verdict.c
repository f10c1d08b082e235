/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_verdict.c - select/hived answers priority/hived (hived_verdict.h).
 */
#include "src/common/slurm_xlator.h"

#include <stdlib.h>
#include <string.h>

#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "hived_ctld.h"
#include "hived_fractions.h"
#include "hived_job.h"
#include "hived_status.h"
#include "hived_verdict.h"

extern void hived_select_verdict(job_record_t *job_ptr, hived_verdict_t *v)
{
	hived_job_class_t c;
	char *why = NULL;

	memset(v, 0, sizeof(*v));
	hived_ctld_lock();
	if (!hived_ctld_engine()) {
		hived_ctld_unlock();
		return;
	}
	switch (hived_job_classify(job_ptr, &c, &why)) {
	case HIVED_JOB_ASK:
		v->kind = c.opportunistic ? HIVED_VERDICT_OPPORTUNISTIC :
			  HIVED_VERDICT_GUARANTEED;
		break;
	case HIVED_JOB_REFUSE:
		v->kind = HIVED_VERDICT_REFUSED;
		break;
	default:
		break;
	}
	if (v->kind != HIVED_VERDICT_NOT_HIVED) {
		v->gpus = c.gpus;
		for (size_t m = 0; c.shards && m < c.n_members; m++)
			v->fractions += hived_member_fraction_leaves(&c.members[m]);
		v->vc = xstrdup(c.vc);
	}
	hived_ctld_unlock();
	xfree(why);
}

extern int hived_select_view(uint64_t *generation, hived_po_status *out)
{
	hived_engine *e;
	const char *const *names = NULL;
	char *cluster = NULL, err[256];
	uint64_t gen;
	size_t n;

	hived_ctld_lock();
	e = hived_ctld_engine();
	if (!e) {
		hived_ctld_unlock();
		hived_po_status_free(out);
		return -1;
	}
	gen = hived_status_generation() + hived_ctld_accepted_generation();
	if (gen == *generation) {
		hived_ctld_unlock();
		return 0;
	}
	hived_po_status_free(out);
	/*
	 * The VCs' free leaf cells as hived_status.json has them (doomed cells
	 * are not free), from the engine's cluster view.
	 */
	if (hived_inspect(e, NULL, &cluster) == HIVED_OK) {
		char *doc = xstrdup_printf("{\"cluster\":%s,\"leavesPerGpu\":%s}",
					   cluster, hived_leaves_per_gpu_json(e));

		if (hived_po_parse(doc, out, err, sizeof(err)))
			error("select/hived: quota view for priority/hived: %s",
			      err);
		xfree(doc);
	}
	free(cluster);
	n = hived_opportunistic_job_list(e, &names);
	free(out->opportunistic_jobs);
	out->n_opportunistic_jobs = 0;
	out->opportunistic_jobs = calloc(n + 1, sizeof(char *));
	for (size_t i = 0; out->opportunistic_jobs && i < n; i++)
		if ((out->opportunistic_jobs[out->n_opportunistic_jobs] =
		     strdup(names[i])))
			out->n_opportunistic_jobs++;
	*generation = gen;
	hived_ctld_unlock();
	return 1;
}
