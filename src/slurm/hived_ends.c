/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_ends.c - the running jobs' expected ends, as backfill reads them.
 *
 * Backfill asks about every job of its queue in one pass: WILL_RUN wants every
 * running job's end, a quota-blocked job its own VC's. Listing the engine's jobs
 * and looking each up in Slurm for every question made each call O(running
 * jobs), i.e. O(cluster). Both lists are built once and kept while nothing they
 * were built from can have changed: the same engine and hived.conf, no change
 * the status file counts (job start and end, health, reload), and Slurm's
 * last_job_update (end times) older than the second they were built in, since
 * that clock counts seconds.
 */
#include "src/common/slurm_xlator.h"

#include <stdbool.h>
#include <stdlib.h>

#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "ctld_symbols.h"
#include "hived_ctld.h"
#include "hived_ends.h"
#include "hived_status.h"

typedef struct {
	char *vc;
	hived_release_t *rel;
	size_t n;
} vc_releases_t;

typedef struct {
	time_t end;
	size_t at;	/* place in the engine's job list: equal ends keep it */
	char *job;
} end_t;

static struct {
	bool valid;
	hived_engine *engine;
	uint64_t accepted, status;
	time_t job_update;
	end_t *ends;	/* every job Slurm expects to end, by (end, at) */
	hived_job_end *view;	/* the same, as hived_will_run reads it */
	size_t n_ends;
	uint64_t gen;	/* view's number for hived_will_run_kept: new per build */
	vc_releases_t *vcs;
	size_t n_vcs;
} kept;

static void _free_ends(end_t *ends, size_t n)
{
	for (size_t i = 0; i < n; i++)
		xfree(ends[i].job);
	xfree(ends);
}

extern void hived_ends_free(void)
{
	for (size_t i = 0; i < kept.n_vcs; i++) {
		xfree(kept.vcs[i].vc);
		xfree(kept.vcs[i].rel);
	}
	xfree(kept.vcs);
	kept.n_vcs = 0;
	_free_ends(kept.ends, kept.n_ends);
	kept.ends = NULL;
	xfree(kept.view);
	kept.n_ends = 0;
	kept.valid = false;
}

static vc_releases_t *_vc(const char *vc)
{
	vc_releases_t *v;

	for (size_t i = 0; i < kept.n_vcs; i++)
		if (!xstrcmp(kept.vcs[i].vc, vc))
			return &kept.vcs[i];
	xrecalloc(kept.vcs, kept.n_vcs + 1, sizeof(vc_releases_t));
	v = &kept.vcs[kept.n_vcs++];
	v->vc = xstrdup(vc);
	return v;
}

static int _cmp_release(const void *a, const void *b)
{
	time_t x = ((const hived_release_t *) a)->end;
	time_t y = ((const hived_release_t *) b)->end;

	return (x > y) - (x < y);
}

static int _cmp_end(const void *a, const void *b)
{
	const end_t *x = a, *y = b;

	if (x->end != y->end)
		return (x->end > y->end) - (x->end < y->end);
	return (x->at > y->at) - (x->at < y->at);
}

/* One job: its end for WILL_RUN, and what it gives back to its VC's quota. */
static void _add(hived_engine *e, const char *name, size_t at)
{
	job_record_t *j = find_job_record(strtoul(name, NULL, 10));
	const char *jvc = NULL;
	int64_t held;

	if (!j || !j->end_time)
		return;
	if (j->end_time != INFINITE) {	/* else never ends, as backfill sees it */
		xrecalloc(kept.ends, kept.n_ends + 1, sizeof(end_t));
		kept.ends[kept.n_ends].end = j->end_time;
		kept.ends[kept.n_ends].at = at;
		kept.ends[kept.n_ends++].job = xstrdup(name);
	}
	held = hived_job_quota_leaves(e, name, &jvc);
	if (held && jvc) {
		vc_releases_t *v = _vc(jvc);

		xrecalloc(v->rel, v->n + 1, sizeof(hived_release_t));
		v->rel[v->n].end = j->end_time;
		v->rel[v->n++].leaves = held;
	}
}

static bool _same_ends(const end_t *a, size_t na, const end_t *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if ((a[i].end != b[i].end) || xstrcmp(a[i].job, b[i].job))
			return false;
	return true;
}

static void _build(hived_engine *e, bool same_engine)
{
	const char *const *names = NULL;
	end_t *old = kept.ends;
	size_t n, n_old = kept.n_ends;
	uint64_t old_gen = kept.gen;

	static uint64_t builds;

	kept.ends = NULL;
	kept.n_ends = 0;
	hived_ends_free();
	n = hived_job_list(e, &names);
	for (size_t k = 0; k < n; k++)
		_add(e, names[k], k);
	qsort(kept.ends, kept.n_ends, sizeof(end_t), _cmp_end);
	/*
	 * The engine knows the list by its number alone and keeps its answers while
	 * the number stays: an equal list (Slurm's job clock moves on every submit,
	 * not only when an end changes) keeps it. Numbers are never reused, so no
	 * other list passes for this one.
	 */
	if (same_engine && old_gen && _same_ends(old, n_old, kept.ends, kept.n_ends))
		kept.gen = old_gen;
	else
		kept.gen = ++builds;
	_free_ends(old, n_old);
	kept.view = xcalloc(kept.n_ends ? kept.n_ends : 1,
			    sizeof(hived_job_end));
	for (size_t k = 0; k < kept.n_ends; k++) {
		kept.view[k].job = kept.ends[k].job;
		kept.view[k].end = kept.ends[k].end;
	}
	for (size_t i = 0; i < kept.n_vcs; i++)
		qsort(kept.vcs[i].rel, kept.vcs[i].n, sizeof(hived_release_t),
		      _cmp_release);
}

static void _refresh(hived_engine *e)
{
	uint64_t accepted = hived_ctld_accepted_generation();
	uint64_t status = hived_status_generation();
	time_t job_update = last_job_update;

	if (kept.valid && (kept.engine == e) && (kept.accepted == accepted) &&
	    (kept.status == status) && (kept.job_update == job_update))
		return;
	_build(e, kept.engine == e);
	kept.engine = e;
	kept.accepted = accepted;
	kept.status = status;
	kept.job_update = job_update;
	/* A change later in this second would leave the clock as is. */
	kept.valid = (time(NULL) > job_update);
}

extern const hived_job_end *hived_ends_by(hived_engine *e, time_t horizon,
					  size_t *n, uint64_t *gen)
{
	size_t lo = 0, hi;

	*n = 0;
	*gen = 0;
	if (!find_job_record)
		return NULL;
	_refresh(e);
	*gen = kept.gen;
	hi = kept.n_ends;
	if (!horizon)
		lo = hi;
	while (lo < hi) {	/* the first end after horizon */
		size_t mid = lo + (hi - lo) / 2;

		if (kept.ends[mid].end <= horizon)
			lo = mid + 1;
		else
			hi = mid;
	}
	*n = lo;
	return kept.view;
}

extern const hived_release_t *hived_ends_releases(hived_engine *e,
						  const char *vc, size_t *n)
{
	*n = 0;
	if (!find_job_record || !vc)
		return NULL;
	_refresh(e);
	for (size_t i = 0; i < kept.n_vcs; i++)
		if (!xstrcmp(kept.vcs[i].vc, vc)) {
			*n = kept.vcs[i].n;
			return kept.vcs[i].rel;
		}
	return NULL;
}
