/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * node_claims.c - whole nodes a preemptor freed stay its own until it starts.
 */
#include <string.h>

#include "node_claims.h"

static node_claim_t *_slot(node_claims_t *c, uint32_t job)
{
	node_claim_t *s;

	for (size_t i = 0; i < NODE_CLAIMS_JOBS; i++)
		if (c->claim[i].job == job)
			return &c->claim[i];
	for (size_t i = 0; i < NODE_CLAIMS_JOBS; i++)
		if (!c->claim[i].job)
			return &c->claim[i];
	s = &c->claim[c->next];
	c->next = (c->next + 1) % NODE_CLAIMS_JOBS;
	return s;
}

extern void node_claims_set(node_claims_t *c, uint32_t job,
			    const int32_t *nodes, size_t n, int64_t until)
{
	node_claim_t *s;

	if (!c || !job)
		return;
	if (!n) {
		node_claims_drop(c, job);
		return;
	}
	s = _slot(c, job);
	memset(s, 0, sizeof(*s));
	s->job = job;
	s->until = until;
	for (size_t i = 0; (i < n) && (s->n < NODE_CLAIMS_NODES); i++)
		s->node[s->n++] = nodes[i];
}

extern size_t node_claims_of(node_claims_t *c, uint32_t job, int64_t now,
			     const int32_t **nodes)
{
	*nodes = NULL;
	if (!c || !job)
		return 0;
	for (size_t i = 0; i < NODE_CLAIMS_JOBS; i++) {
		node_claim_t *s = &c->claim[i];

		if (s->job != job)
			continue;
		if (now >= s->until) {
			memset(s, 0, sizeof(*s));
			return 0;
		}
		*nodes = s->node;
		return s->n;
	}
	return 0;
}

extern void node_claims_drop(node_claims_t *c, uint32_t job)
{
	if (!c || !job)
		return;
	for (size_t i = 0; i < NODE_CLAIMS_JOBS; i++)
		if (c->claim[i].job == job)
			memset(&c->claim[i], 0, sizeof(c->claim[i]));
}

extern uint32_t node_claims_keep_off_each(node_claims_t *c, uint32_t job,
					  int64_t now,
					  node_claims_pends_f pends,
					  node_claims_take_f take, void *arg)
{
	uint32_t by = 0;

	if (!c || !take)
		return 0;
	for (size_t i = 0; i < NODE_CLAIMS_JOBS; i++) {
		node_claim_t *s = &c->claim[i];

		if (!s->job || (s->job == job))
			continue;
		if ((now >= s->until) || (pends && !pends(s->job))) {
			memset(s, 0, sizeof(*s));
			continue;
		}
		for (uint32_t k = 0; k < s->n; k++)
			if (take(s->node[k], arg) && !by)
				by = s->job;
	}
	return by;
}

typedef struct {
	uint8_t *allowed;
	uint8_t *usable;
	size_t n_nodes;
} allowed_t;

static bool _take_allowed(int32_t node, void *arg)
{
	allowed_t *a = arg;
	bool took;

	if ((node < 0) || ((size_t) node >= a->n_nodes))
		return false;
	took = a->allowed[node];
	a->allowed[node] = 0;
	if (a->usable)
		a->usable[node] = 0;
	return took;
}

extern uint32_t node_claims_keep_off_both(node_claims_t *c, uint32_t job,
					  int64_t now, uint8_t *allowed,
					  uint8_t *usable, size_t n_nodes,
					  node_claims_pends_f pends)
{
	allowed_t a = { allowed, usable, n_nodes };

	if (!allowed)
		return 0;
	return node_claims_keep_off_each(c, job, now, pends, _take_allowed,
					 &a);
}

extern uint32_t node_claims_keep_off(node_claims_t *c, uint32_t job,
				     int64_t now, uint8_t *allowed,
				     size_t n_nodes, node_claims_pends_f pends)
{
	return node_claims_keep_off_both(c, job, now, allowed, NULL, n_nodes,
					 pends);
}
