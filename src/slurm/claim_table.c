/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * claim_table.c - claims kept in an array; a removed claim's slot takes the
 * last one, and the slot that one leaves owns nothing.
 */
#include "claim_table.h"

#include <stdlib.h>
#include <string.h>

static void _clear(claim_t *c)
{
	free(c->nodes);
	free(c->victims);
	memset(c, 0, sizeof(*c));
}

static void _remove_at(claim_table_t *t, size_t i)
{
	_clear(&t->v[i]);
	t->n--;
	if (i != t->n) {
		t->v[i] = t->v[t->n];
		memset(&t->v[t->n], 0, sizeof(t->v[t->n]));
	}
}

extern claim_t *claim_table_find(claim_table_t *t, uint32_t job_id)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].job_id == job_id)
			return &t->v[i];
	return NULL;
}

static bool _had_victim(const claim_t *c, uint32_t id)
{
	for (size_t k = 0; k < c->n_victims; k++)
		if (c->victims[k] == id)
			return true;
	return false;
}

extern size_t claim_table_make(claim_table_t *t, uint32_t job_id,
			       uint32_t priority, const uint8_t *nodes,
			       size_t n_nodes, const uint32_t *victims,
			       size_t n_victims, time_t now)
{
	claim_t *c = claim_table_find(t, job_id);
	uint8_t *n_copy = malloc(n_nodes ? n_nodes : 1);
	uint32_t *v_copy = malloc((n_victims ? n_victims : 1) *
				  sizeof(*v_copy));
	size_t fresh = 0;

	if (!n_copy || !v_copy)
		goto no_memory;
	if (!c) {
		if (t->n == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 8;
			claim_t *v = realloc(t->v, cap * sizeof(*v));

			if (!v)
				goto no_memory;
			t->v = v;
			t->cap = cap;
		}
		c = &t->v[t->n++];
		memset(c, 0, sizeof(*c));
		c->job_id = job_id;
	}
	for (size_t k = 0; k < n_victims; k++)
		if (!_had_victim(c, victims[k]))
			fresh++;
	if (fresh || !c->made || (c->n_victims != n_victims))
		c->made = now;
	memcpy(n_copy, nodes, n_nodes);
	memcpy(v_copy, victims, n_victims * sizeof(*v_copy));
	free(c->nodes);
	free(c->victims);
	c->nodes = n_copy;
	c->n_nodes = n_nodes;
	c->victims = v_copy;
	c->n_victims = n_victims;
	c->priority = priority;
	return fresh;

no_memory:
	free(n_copy);
	free(v_copy);
	return n_victims;
}

extern void claim_table_remove(claim_table_t *t, uint32_t job_id)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].job_id == job_id) {
			_remove_at(t, i);
			return;
		}
}

extern void claim_table_expire(claim_table_t *t, time_t now, time_t max_age,
			       claim_keep_f keep, void *arg)
{
	for (size_t i = 0; i < t->n;) {
		claim_t *c = &t->v[i];

		if ((now - c->made > max_age) ||
		    (keep && !keep(c->job_id, &c->priority, arg))) {
			_remove_at(t, i);
			continue;
		}
		i++;
	}
}

extern uint32_t claim_table_against(const claim_table_t *t, uint32_t job_id,
				    uint32_t priority, uint8_t *out,
				    size_t n_nodes)
{
	uint32_t owner = 0;

	for (size_t i = 0; i < t->n; i++) {
		const claim_t *c = &t->v[i];

		if ((c->job_id == job_id) || (priority > c->priority) ||
		    (c->n_nodes != n_nodes))
			continue;
		for (size_t k = 0; k < n_nodes; k++)
			out[k] |= c->nodes[k];
		owner = c->job_id;
	}
	return owner;
}

extern void claim_table_free(claim_table_t *t)
{
	for (size_t i = 0; i < t->n; i++)
		_clear(&t->v[i]);
	free(t->v);
	memset(t, 0, sizeof(*t));
}
