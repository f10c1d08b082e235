/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * victim_log.c - which of a preemptor's victims select/hived has named.
 */
#include <string.h>

#include "victim_log.h"

static victim_log_entry_t *_entry(victim_log_t *log, uint32_t preemptor)
{
	victim_log_entry_t *e;

	for (size_t i = 0; i < VICTIM_LOG_PREEMPTORS; i++)
		if (log->entry[i].preemptor == preemptor)
			return &log->entry[i];
	for (size_t i = 0; i < VICTIM_LOG_PREEMPTORS; i++)
		if (!log->entry[i].preemptor) {
			log->entry[i].preemptor = preemptor;
			return &log->entry[i];
		}
	/* Full: the preemptor that took its slot longest ago goes. */
	e = &log->entry[log->next];
	log->next = (log->next + 1) % VICTIM_LOG_PREEMPTORS;
	memset(e, 0, sizeof(*e));
	e->preemptor = preemptor;
	return e;
}

static int _named(const victim_log_entry_t *e, uint32_t victim)
{
	for (uint32_t i = 0; i < e->n; i++)
		if (e->victims[i] == victim)
			return 1;
	return 0;
}

static void _remember(victim_log_entry_t *e, uint32_t victim)
{
	if (e->n < VICTIM_LOG_VICTIMS) {
		e->victims[e->n++] = victim;
		return;
	}
	e->victims[e->next] = victim;
	e->next = (e->next + 1) % VICTIM_LOG_VICTIMS;
}

extern size_t victim_log_new(victim_log_t *log, uint32_t preemptor,
			     uint32_t *victims, size_t n,
			     size_t *named_before)
{
	victim_log_entry_t *e;
	size_t fresh = 0;

	if (named_before)
		*named_before = 0;
	if (!log || !preemptor)
		return 0;
	e = _entry(log, preemptor);
	if (named_before)
		*named_before = e->n;
	for (size_t i = 0; i < n; i++) {
		uint32_t v = victims[i];

		if (_named(e, v))
			continue;
		_remember(e, v);
		/* Stable: the new ones keep their order at the front. */
		memmove(&victims[fresh + 1], &victims[fresh],
			(i - fresh) * sizeof(*victims));
		victims[fresh++] = v;
	}
	return fresh;
}

extern size_t victim_log_named(const victim_log_t *log, uint32_t preemptor,
			       const uint32_t **victims)
{
	*victims = NULL;
	if (!log || !preemptor)
		return 0;
	for (size_t i = 0; i < VICTIM_LOG_PREEMPTORS; i++)
		if (log->entry[i].preemptor == preemptor) {
			*victims = log->entry[i].victims;
			return log->entry[i].n;
		}
	return 0;
}

extern int victim_log_run_new(victim_log_t *log, uint32_t victim,
			      int64_t start)
{
	if (!log || !victim)
		return 0;
	for (uint32_t i = 0; i < log->n_runs; i++)
		if ((log->run[i].job == victim) && (log->run[i].start == start))
			return 0;
	if (log->n_runs < VICTIM_LOG_RUNS) {
		log->run[log->n_runs].job = victim;
		log->run[log->n_runs++].start = start;
	} else {
		log->run[log->next_run].job = victim;
		log->run[log->next_run].start = start;
		log->next_run = (log->next_run + 1) % VICTIM_LOG_RUNS;
	}
	return 1;
}
