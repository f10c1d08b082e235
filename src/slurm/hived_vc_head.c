/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_vc_head.c - keep a VC's later jobs off the cells its waiting head needs.
 *
 * A VC's job that waits for the shape of its cells (a whole node, while the VC's
 * own small jobs hold a part of each of its node cells) is passed over by the
 * scheduler, on purpose: its wait is no reason to hold back other VCs (the
 * head-of-line guard in select_hooks.c). That also lets its own VC's later, lower
 * priority jobs start before it, in the very cells it waits to see empty: as each
 * small job ends another takes its GPUs, and the whole-node job can wait for as
 * long as its VC keeps submitting. In a cluster of its own, the main scheduler
 * would stop at it and backfill would reserve its nodes. Here the VC's highest
 * priority such job is its head: the engine's WILL_RUN answer names the nodes it
 * will get once the running jobs end as Slurm expects, and the VC's
 * lower-priority guaranteed jobs are placed off those nodes until the head
 * starts or leaves the queue. Other VCs' jobs and opportunistic jobs are never
 * held: the head's nodes are cells of its own VC.
 *
 * Called under the plugin's lock (hived_ctld_lock) with slurmctld's job read
 * lock held, as select_p_job_test is.
 */
#include "src/common/slurm_xlator.h"

#include <stdbool.h>

#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "hived_job.h"
#include "hived_vc_head.h"

typedef struct {
	char *vc;
	uint32_t job_id;
	uint32_t priority;
	bitstr_t *nodes;
} vc_head_t;

static vc_head_t *heads = NULL;
static size_t n_heads = 0;

static vc_head_t *_find(const char *vc)
{
	for (size_t i = 0; i < n_heads; i++)
		if (!xstrcmp(heads[i].vc, vc))
			return &heads[i];
	return NULL;
}

/* Slurm's order: higher priority first, then the older (lower) job id. */
static bool _ahead_of(uint32_t prio_a, uint32_t id_a, uint32_t prio_b,
		      uint32_t id_b)
{
	return (prio_a > prio_b) || ((prio_a == prio_b) && (id_a < id_b));
}

/* The head's job still pends (not started, cancelled, held or purged). */
static bool _pends(vc_head_t *h)
{
	job_record_t *j;

	if (!h->job_id)
		return false;
	if (!(j = hived_job_waiting(h->job_id))) {
		h->job_id = 0;
		FREE_NULL_BITMAP(h->nodes);
		return false;
	}
	h->priority = j->priority;	/* it ages, or an admin moves it */
	return true;
}

extern void hived_vc_head_offer(const char *vc, job_record_t *job,
				bitstr_t *nodes)
{
	vc_head_t *h;

	if (!vc || !job)
		return;
	if (!nodes || !bit_set_count(nodes)) {
		/* No placement at any end time: nothing to keep for it. */
		if ((h = _find(vc)) && (h->job_id == job->job_id)) {
			h->job_id = 0;
			FREE_NULL_BITMAP(h->nodes);
		}
		return;
	}
	if (!(h = _find(vc))) {
		xrecalloc(heads, n_heads + 1, sizeof(*heads));
		h = &heads[n_heads++];
		h->vc = xstrdup(vc);
	}
	if ((h->job_id != job->job_id) && _pends(h) &&
	    !_ahead_of(job->priority, job->job_id, h->priority, h->job_id))
		return;
	if (h->job_id != job->job_id) {
		char *names = bitmap2node_name(nodes);

		info("select/hived: %pJ heads VC '%s': it waits for whole cells of its VC, which its VC's jobs of lower priority leave alone on %s",
		     job, vc, names);
		xfree(names);
	}
	h->job_id = job->job_id;
	h->priority = job->priority;
	FREE_NULL_BITMAP(h->nodes);
	h->nodes = bit_copy(nodes);
}

extern bool hived_vc_head_live(const char *vc)
{
	vc_head_t *h = vc ? _find(vc) : NULL;

	return h && _pends(h);
}

extern bitstr_t *hived_vc_head_nodes(const char *vc, job_record_t *job,
					   uint32_t *head_id)
{
	vc_head_t *h = vc ? _find(vc) : NULL;

	if (!h || !job || (h->job_id == job->job_id) || !_pends(h))
		return NULL;
	if (_ahead_of(job->priority, job->job_id, h->priority, h->job_id))
		return NULL;
	*head_id = h->job_id;
	return h->nodes;
}

extern void hived_vc_head_free(void)
{
	for (size_t i = 0; i < n_heads; i++) {
		xfree(heads[i].vc);
		FREE_NULL_BITMAP(heads[i].nodes);
	}
	xfree(heads);
	n_heads = 0;
}
