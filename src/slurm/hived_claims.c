/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_claims.c - the nodes a job preempted for are its until it starts.
 *
 * In the engine a preemption and the placement it makes room for are one step.
 * In slurmctld they are two: job_test names the victims, Slurm requeues them,
 * and the job is tested again once they are gone, seconds later under load.
 * In between, the freed GPUs are free to whichever job slurmctld tests first:
 * another job of the same VC and priority (an older one: Slurm's order), an
 * opportunistic job that backfill starts, and the preemptor then preempts
 * again elsewhere, or a gang loses the rack it preempted for. Also, while its
 * victims complete, Slurm leaves their nodes out of the preemptor's own
 * test, and the engine would place it anew, elsewhere, with the victims'
 * GPUs left to others. So a preemptor claims the nodes of its placement: jobs
 * that do not outrank it (lower or equal Slurm priority) are placed off those
 * nodes until it starts, stops pending, or HIVED_CLAIM_SECONDS pass, and
 * while its victims leave it is decided with those nodes in (select_hooks.c
 * makes it wait if it would land there or need more victims). The table
 * itself is claim_table.c, which needs no Slurm and is tested alone.
 *
 * Called under the plugin's lock (hived_ctld_lock) with slurmctld's job read
 * lock held, as select_p_job_test is.
 */
#include "src/common/slurm_xlator.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "claim_table.h"
#include "hived_claims.h"

static claim_table_t table;
static bitstr_t *against = NULL;	/* hived_claims_against's answer */
static bitstr_t *own = NULL;		/* hived_claim_nodes's answer */

/* The claimant still pends (not started, cancelled, held or purged). */
static bool _pends(uint32_t job_id, uint32_t *priority, void *arg)
{
	job_record_t *j = find_job_record ? find_job_record(job_id) : NULL;

	(void) arg;
	if (!j || !IS_JOB_PENDING(j) || !j->priority)
		return false;
	*priority = j->priority;	/* it ages, or an admin moves it */
	return true;
}

static void _expire(void)
{
	claim_table_expire(&table, time(NULL), HIVED_CLAIM_SECONDS, _pends,
			   NULL);
}

extern size_t hived_claim_make(job_record_t *job, bitstr_t *nodes,
			       const char *const *ids, size_t n)
{
	int64_t size;
	uint8_t *set;
	uint32_t *victims;
	size_t fresh;

	if (!job || !nodes)
		return n;
	_expire();
	size = bit_size(nodes);
	set = xcalloc(size ? size : 1, 1);
	for (int64_t i = 0; i < size; i++)
		set[i] = bit_test(nodes, i) ? 1 : 0;
	victims = xcalloc(n ? n : 1, sizeof(*victims));
	for (size_t k = 0; k < n; k++)
		victims[k] = strtoul(ids[k], NULL, 10);
	fresh = claim_table_make(&table, job->job_id, job->priority, set, size,
				 victims, n, time(NULL));
	xfree(set);
	xfree(victims);
	return fresh;
}

extern bool hived_claim_victims_leaving(job_record_t *job, char **ids)
{
	claim_t *c;
	bool leaving = false;

	if (!job || !find_job_record)
		return false;
	_expire();
	if (!(c = claim_table_find(&table, job->job_id)))
		return false;
	for (size_t k = 0; k < c->n_victims; k++) {
		job_record_t *v = find_job_record(c->victims[k]);

		/*
		 * A victim Slurm did not act on (still running, no preempt
		 * time) is not leaving: the next decision is the engine's.
		 */
		if (v && (IS_JOB_COMPLETING(v) ||
			  (IS_JOB_RUNNING(v) && v->preempt_time))) {
			if (ids)
				xstrfmtcat(*ids, "%s%u", leaving ? "," : "",
					   c->victims[k]);
			leaving = true;
		}
	}
	return leaving;
}

/* bm (reallocated to size bits if it has another size) from set. */
static bitstr_t *_to_bitmap(bitstr_t *bm, const uint8_t *set, size_t size)
{
	if (!bm || (bit_size(bm) != (int64_t) size)) {
		FREE_NULL_BITMAP(bm);
		bm = bit_alloc(size);
	} else {
		bit_clear_all(bm);
	}
	for (size_t i = 0; i < size; i++)
		if (set[i])
			bit_set(bm, i);
	return bm;
}

extern bitstr_t *hived_claim_nodes(job_record_t *job)
{
	claim_t *c = job ? claim_table_find(&table, job->job_id) : NULL;

	if (!c || !c->n_nodes)
		return NULL;
	own = _to_bitmap(own, c->nodes, c->n_nodes);
	return own;
}

extern bitstr_t *hived_claims_against(job_record_t *job, size_t size,
				      uint32_t *owner)
{
	uint8_t *set;
	uint32_t who;

	if (!job || !table.n || !size)
		return NULL;
	_expire();
	set = xcalloc(size, 1);
	who = claim_table_against(&table, job->job_id, job->priority, set,
				  size);
	if (who) {
		against = _to_bitmap(against, set, size);
		*owner = who;
	}
	xfree(set);
	return who ? against : NULL;
}

extern void hived_claim_drop(uint32_t job_id)
{
	claim_table_remove(&table, job_id);
}

extern void hived_claims_free(void)
{
	claim_table_free(&table);
	FREE_NULL_BITMAP(against);
	FREE_NULL_BITMAP(own);
}
