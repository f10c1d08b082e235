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
 * GPUs left to others. So a preemptor claims the nodes of its placement: it
 * waits while its victims are leaving, and jobs that do not outrank it (lower
 * or equal Slurm priority) are placed off those nodes, until it starts, stops
 * pending, or HIVED_CLAIM_SECONDS pass.
 *
 * Called under the plugin's lock (hived_ctld_lock) with slurmctld's job read
 * lock held, as select_p_job_test is.
 */
#include "src/common/slurm_xlator.h"

#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "hived_claims.h"

typedef struct {
	uint32_t job_id;
	uint32_t priority;
	time_t made;
	bitstr_t *nodes;
	uint32_t *victims;
	size_t n_victims;
} claim_t;

static claim_t *claims = NULL;
static size_t n_claims = 0;
static bitstr_t *against = NULL;	/* hived_claims_against's answer */

static void _clear(claim_t *c)
{
	FREE_NULL_BITMAP(c->nodes);
	xfree(c->victims);
	memset(c, 0, sizeof(*c));
}

static void _remove(size_t i)
{
	_clear(&claims[i]);
	claims[i] = claims[n_claims - 1];
	n_claims--;
}

/*
 * Drop claims that lapsed: the claimant started, was cancelled, held or
 * purged, or the claim is older than HIVED_CLAIM_SECONDS.
 */
static void _expire(time_t now)
{
	for (size_t i = 0; i < n_claims;) {
		job_record_t *j = find_job_record ?
				  find_job_record(claims[i].job_id) : NULL;

		if (!j || !IS_JOB_PENDING(j) || !j->priority ||
		    (now - claims[i].made > HIVED_CLAIM_SECONDS)) {
			_remove(i);
			continue;
		}
		claims[i].priority = j->priority;  /* it ages, or is moved */
		i++;
	}
}

static claim_t *_find(uint32_t job_id)
{
	for (size_t i = 0; i < n_claims; i++)
		if (claims[i].job_id == job_id)
			return &claims[i];
	return NULL;
}

static bool _has_victim(const claim_t *c, uint32_t id)
{
	for (size_t k = 0; k < c->n_victims; k++)
		if (c->victims[k] == id)
			return true;
	return false;
}

extern size_t hived_claim_make(job_record_t *job, bitstr_t *nodes,
			       const char *const *ids, size_t n)
{
	claim_t *c;
	size_t fresh = 0;
	uint32_t *victims;

	if (!job || !nodes)
		return n;
	_expire(time(NULL));
	if (!(c = _find(job->job_id))) {
		xrecalloc(claims, n_claims + 1, sizeof(*claims));
		c = &claims[n_claims++];
		c->job_id = job->job_id;
	}
	victims = xcalloc(n ? n : 1, sizeof(*victims));
	for (size_t k = 0; k < n; k++) {
		victims[k] = strtoul(ids[k], NULL, 10);
		if (!_has_victim(c, victims[k]))
			fresh++;
	}
	/* The same victims asked again keep the claim's age. */
	if (fresh || !c->made || (c->n_victims != n))
		c->made = time(NULL);
	xfree(c->victims);
	c->victims = victims;
	c->n_victims = n;
	c->priority = job->priority;
	FREE_NULL_BITMAP(c->nodes);
	c->nodes = bit_copy(nodes);
	return fresh;
}

extern bool hived_claim_victims_leaving(job_record_t *job, char **ids)
{
	claim_t *c;
	bool leaving = false;

	if (!job || !find_job_record)
		return false;
	_expire(time(NULL));
	if (!(c = _find(job->job_id)))
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

extern bitstr_t *hived_claim_nodes(job_record_t *job)
{
	claim_t *c = job ? _find(job->job_id) : NULL;

	return c ? c->nodes : NULL;
}

extern bitstr_t *hived_claims_against(job_record_t *job, uint32_t *owner)
{
	bool any = false;

	if (!job || !n_claims)
		return NULL;
	_expire(time(NULL));
	for (size_t i = 0; i < n_claims; i++) {
		claim_t *c = &claims[i];

		if ((c->job_id == job->job_id) || (job->priority > c->priority))
			continue;
		if (!any) {
			if (!against ||
			    (bit_size(against) != bit_size(c->nodes))) {
				FREE_NULL_BITMAP(against);
				against = bit_alloc(bit_size(c->nodes));
			} else {
				bit_clear_all(against);
			}
		} else if (bit_size(against) != bit_size(c->nodes)) {
			continue;	/* made before the node list changed */
		}
		bit_or(against, c->nodes);
		*owner = c->job_id;
		any = true;
	}
	return any ? against : NULL;
}

extern void hived_claim_drop(uint32_t job_id)
{
	for (size_t i = 0; i < n_claims; i++)
		if (claims[i].job_id == job_id) {
			_remove(i);
			return;
		}
}

extern void hived_claims_free(void)
{
	for (size_t i = 0; i < n_claims; i++)
		_clear(&claims[i]);
	xfree(claims);
	n_claims = 0;
	FREE_NULL_BITMAP(against);
}
