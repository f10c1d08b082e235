/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * priority_order.c - HiveD's bands for pending jobs (see priority_order.h).
 */
#define _GNU_SOURCE
#include "priority_order.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int64_t _int(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? json_integer_value(v) : 0;
}

/* GPUs in one cell of `level` of a chain: leaves over cells at that level. */
static int64_t _leaves_per_cell(json_t *chains, const char *chain, int64_t level)
{
	size_t i, k;
	json_t *c, *l;

	json_array_foreach(chains, i, c) {
		int64_t leaves = 0, cells = 0;
		const char *name = json_string_value(json_object_get(c, "chain"));

		if (!name || strcmp(name, chain))
			continue;
		json_array_foreach(json_object_get(c, "levels"), k, l) {
			if (_int(l, "level") == 1)
				leaves = _int(l, "cells");
			if (_int(l, "level") == level)
				cells = _int(l, "cells");
		}
		return cells > 0 ? leaves / cells : 0;
	}
	return 0;
}

int hived_po_parse(const char *text, hived_po_status *out, char *err,
		   size_t errlen)
{
	json_error_t jerr;
	json_t *root, *cluster, *vcs, *chains, *v, *jobs, *j, *lpg;
	size_t i, k;

	memset(out, 0, sizeof(*out));
	root = json_loads(text, 0, &jerr);
	if (!root) {
		snprintf(err, errlen, "not JSON (line %d: %s)", jerr.line,
			 jerr.text);
		return -1;
	}
	cluster = json_object_get(root, "cluster");
	chains = json_object_get(cluster, "chains");
	vcs = json_object_get(cluster, "vcs");
	if (!json_is_array(vcs) || !json_is_array(chains)) {
		snprintf(err, errlen, "cluster.vcs or cluster.chains missing");
		json_decref(root);
		return -1;
	}
	lpg = json_object_get(root, "leavesPerGpu");
	out->written = _int(root, "written");
	out->vcs = calloc(json_array_size(vcs) + 1, sizeof(hived_po_vc));
	json_array_foreach(vcs, i, v) {
		const char *name = json_string_value(json_object_get(v, "vc"));
		int64_t usable = 0, per_gpu = 1;
		json_t *cell;

		if (!name)
			continue;
		/* Doomed cells cannot be had now: they are not free quota. */
		json_array_foreach(json_object_get(v, "cells"), k, cell) {
			const char *chain = json_string_value(
				json_object_get(cell, "chain"));
			int64_t per = chain ? _leaves_per_cell(
				chains, chain, _int(cell, "level")) : 0;

			usable += (_int(cell, "total") - _int(cell, "doomed")) *
				  per;
			if (chain && _int(lpg, chain) > per_gpu)
				per_gpu = _int(lpg, chain);
		}
		out->vcs[out->n_vcs].name = strdup(name);
		out->vcs[out->n_vcs].free_leaves = usable - _int(v, "usedLeaves");
		if (out->vcs[out->n_vcs].free_leaves < 0)
			out->vcs[out->n_vcs].free_leaves = 0;
		out->vcs[out->n_vcs].leaves_per_gpu = per_gpu;
		out->n_vcs++;
	}
	jobs = json_object_get(root, "jobs");
	if (json_is_array(jobs)) {
		out->opportunistic_jobs = calloc(json_array_size(jobs) + 1,
						 sizeof(char *));
		json_array_foreach(jobs, i, j) {
			const char *cls = json_string_value(
				json_object_get(j, "class"));
			const char *name = json_string_value(
				json_object_get(j, "job"));

			if (name && cls && !strcmp(cls, "opportunistic"))
				out->opportunistic_jobs
					[out->n_opportunistic_jobs++] =
					strdup(name);
		}
	}
	json_decref(root);
	return 0;
}

void hived_po_status_free(hived_po_status *s)
{
	for (size_t i = 0; i < s->n_vcs; i++)
		free(s->vcs[i].name);
	for (size_t i = 0; i < s->n_opportunistic_jobs; i++)
		free(s->opportunistic_jobs[i]);
	free(s->vcs);
	free(s->opportunistic_jobs);
	memset(s, 0, sizeof(*s));
}

const hived_po_vc *hived_po_find_vc(const hived_po_status *s,
				    const char *account)
{
	if (!s || !account)
		return NULL;
	for (size_t i = 0; i < s->n_vcs; i++)
		if (!strcasecmp(s->vcs[i].name, account))
			return &s->vcs[i];
	return NULL;
}

int hived_po_job_opportunistic(const hived_po_status *s, const char *job)
{
	if (!s || !job)
		return 0;
	for (size_t i = 0; i < s->n_opportunistic_jobs; i++)
		if (!strcmp(s->opportunistic_jobs[i], job))
			return 1;
	return 0;
}

int64_t hived_po_demand(const hived_po_vc *vc, const hived_po_job *j)
{
	return j->gpus * (vc && vc->leaves_per_gpu > 1 ? vc->leaves_per_gpu : 1) +
	       j->fractions;
}

static int _by_vc_then_priority(const void *a, const void *b)
{
	const hived_po_job *x = *(hived_po_job *const *) a;
	const hived_po_job *y = *(hived_po_job *const *) b;
	int c = strcasecmp(x->vc, y->vc);

	if (c)
		return c;
	if (x->base != y->base)
		return (x->base > y->base) ? -1 : 1;
	return (x->job_id > y->job_id) - (x->job_id < y->job_id);
}

void hived_po_order(const hived_po_status *s, hived_po_job *jobs, size_t n)
{
	hived_po_job **g = calloc(n + 1, sizeof(*g));
	size_t ng = 0;

	for (size_t i = 0; i < n; i++) {
		hived_po_job *j = &jobs[i];

		if (!j->guaranteed) {
			j->band = HIVED_BAND_OPPORTUNISTIC;
		} else if ((!j->gpus && !j->fractions) || !s || !j->vc ||
			   !hived_po_find_vc(s, j->vc)) {
			j->band = HIVED_BAND_FITS;
		} else {
			g[ng++] = j;
		}
	}
	qsort(g, ng, sizeof(*g), _by_vc_then_priority);
	for (size_t i = 0; i < ng;) {
		const hived_po_vc *vc = hived_po_find_vc(s, g[i]->vc);
		int64_t left = vc->free_leaves;
		size_t end = i;

		while (end < ng && !strcasecmp(g[end]->vc, g[i]->vc))
			end++;
		for (; i < end; i++) {
			int64_t need = hived_po_demand(vc, g[i]);

			if (need <= left) {
				g[i]->band = HIVED_BAND_FITS;
				left -= need;
			} else {
				g[i]->band = HIVED_BAND_WAITS;
			}
		}
	}
	free(g);
}

uint32_t hived_po_weight(uint32_t sum_of_weights)
{
	uint64_t w = (uint64_t) sum_of_weights + 1;

	return (w > 1000000000ULL) ? 1000000000U : (uint32_t) w;
}
