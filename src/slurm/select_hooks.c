/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * select_hooks.c - the HiveD side of select/hived: which select calls ask the
 * engine, and what Slurm is told back.
 */
#define _GNU_SOURCE	/* RUSAGE_THREAD */
#include "src/common/slurm_xlator.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "core_steer.h"
#include "ctld_symbols.h"
#include "hived_ctld.h"
#include "hived_ends.h"
#include "hived_fractions.h"
#include "hived_job.h"
#include "hived_status.h"
#include "hived_vc_head.h"
#include "node_claims.h"
#include "victim_log.h"
#include "select_hooks.h"

/*
 * A job_test(RUN_NOW) that HiveD approved, kept until job_begin repeats the
 * decision for real. Slurm holds the job and node write locks from one to the
 * other, so the engine sees the same state twice.
 */
typedef struct {
	uint32_t job_id;
	hived_job_ask_t ask;
} pending_t;

static list_t *pending = NULL;

/*
 * Jobs whose last RUN_NOW HiveD held (waiting for their VC's cells, for idle
 * cells, or for the jobs they preempted to leave). The next TEST_ONLY on
 * available nodes fails for them, so _pick_best_nodes() answers
 * ESLURM_NODE_NOT_AVAIL rather than ESLURM_NODES_BUSY and the main scheduler does
 * not stop the whole partition behind one VC's job (job_scheduler.c skips a
 * partition only after ESLURM_NODES_BUSY).
 */
#define HELD_SLOTS 64
static uint32_t held[HELD_SLOTS];
static int held_next = 0;

static void _pending_free(void *x)
{
	pending_t *p = x;

	hived_job_ask_free(&p->ask);
	xfree(p);
}

static int _pending_match(void *x, void *key)
{
	return ((pending_t *) x)->job_id == *(uint32_t *) key;
}

static pending_t *_pending_take(uint32_t job_id)
{
	if (!pending)
		return NULL;
	return list_remove_first(pending, _pending_match, &job_id);
}

static void _held_mark(uint32_t job_id)
{
	for (int i = 0; i < HELD_SLOTS; i++)
		if (held[i] == job_id)
			return;
	held[held_next] = job_id;
	held_next = (held_next + 1) % HELD_SLOTS;
}

static bool _held_take(uint32_t job_id)
{
	for (int i = 0; i < HELD_SLOTS; i++)
		if (held[i] == job_id) {
			held[i] = 0;
			return true;
		}
	return false;
}

/*
 * Fails a RUN_NOW the way that holds back no other job: marks the job for the
 * TEST_ONLY on available nodes that follows (see held[]). avail: the nodes
 * Slurm offered, counted before any were taken from its bitmap. Releases the
 * ctld lock.
 */
static int _hold_without_blocking(job_record_t *job_ptr, int avail,
				  uint32_t min_nodes)
{
	/*
	 * _pick_best_nodes() runs the TEST_ONLY on available nodes only if
	 * they are at least min_nodes; else the next TEST_ONLY is the one on
	 * all nodes, and failing that one would mark the job never runnable.
	 */
	if (avail >= (int) min_nodes)
		_held_mark(job_ptr->job_id);
	hived_ctld_unlock();
	return ESLURM_NODES_BUSY;
}

/* The victims each preemptor has been logged and counted for. */
static victim_log_t victims_named;

/*
 * Whole nodes each preemptor is freeing (node_claims.h). A claim lasts this
 * long after the last pass that saw its victims leaving: past it, a preemptor
 * Slurm has not tested again gives the nodes back.
 */
#define CLAIM_SECS 60
static node_claims_t claims;

/*
 * Claims name the engine's node indexes: a new engine (hived.conf or sacctmgr
 * change) may number the nodes otherwise, so its claims start afresh.
 */
static void _claims_follow(hived_engine *e)
{
	static hived_engine *claims_engine;

	if (e != claims_engine)
		memset(&claims, 0, sizeof(claims));
	claims_engine = e;
}

/* The decision's pods that take every GPU of their node are claimed. */
static void _claim_nodes(hived_engine *e, job_record_t *job_ptr,
			 const hived_decision *d)
{
	int32_t nodes[NODE_CLAIMS_NODES];
	size_t n = 0;

	for (size_t p = 0; (p < d->n_pods) && (n < NODE_CLAIMS_NODES); p++) {
		if (hived_job_pod_whole_node(e, &d->pods[p]))
			nodes[n++] = d->pods[p].node;
	}
	node_claims_set(&claims, job_ptr->job_id, nodes, n,
			(int64_t) time(NULL) + CLAIM_SECS);
}

static bool _verbose(void)
{
	const hived_settings *s = hived_ctld_settings();

	return s && s->verbose_cell_trace;
}

/*
 * A job its VC's cells can never hold waits (sacctmgr may raise the quota;
 * SystemComment says the VC is too small) unless hived.conf's
 * "jobsLargerThanVc": "reject" asks for refusal at submit.
 */
static bool _refuse_larger_than_vc(const hived_decision *d)
{
	const hived_settings *s = hived_ctld_settings();

	return (d->outcome == HIVED_WAITING) &&
	       (d->wait_kind == HIVED_WAIT_VC_TOO_SMALL) && s &&
	       s->larger_than_vc_reject;
}

static char *_pods_str(const hived_decision *d)
{
	char *s = NULL;

	for (size_t p = 0; p < d->n_pods; p++) {
		xstrfmtcat(s, "%s%s:", p ? " " : "", d->pods[p].node_name);
		for (int32_t k = 0; k < d->pods[p].n_leaves; k++)
			xstrfmtcat(s, "%s%d", k ? "," : "",
				   d->pods[p].leaves[k]);
		for (int32_t k = 0; k < d->pods[p].n_fractions; k++)
			xstrfmtcat(s, "%s%d", k ? "," : " fractions ",
				   d->pods[p].fractions[k]);
	}
	return s;
}

/*
 * Backfill counts a job against bf_max_job_test only after its association's
 * bf_max_job_assoc, so that cap lets it reach past one VC's flood.
 */
static void _say_queue_depth(void)
{
	const char *prio = slurm_conf.priority_type ?
			   slurm_conf.priority_type : "(none)";
	char *p = xstrcasestr(slurm_conf.sched_params, "bf_max_job_assoc=");
	int per_assoc = p ? atoi(p + strlen("bf_max_job_assoc=")) : 0;

	if (per_assoc > 0)
		info("select/hived: PriorityType=%s, not priority/hived: backfill tests at most %d jobs of each association (bf_max_job_assoc), so it reaches a job that fits its VC's free cells behind another VC's queued jobs; the main scheduler's event passes may not (default_queue_depth)",
		     prio, per_assoc);
	else
		info("select/hived: PriorityType=%s, not priority/hived: a job that fits its VC's free cells may wait behind another VC's queued jobs until the main scheduler's full pass (sched_interval); SchedulerParameters=bf_max_job_assoc=N lets backfill reach it",
		     prio);
}

extern int hived_hook_init(void)
{
	if (!running_in_slurmctld())
		return SLURM_SUCCESS;
	/*
	 * Under another priority plugin a flood from one VC deeper than
	 * default_queue_depth and bf_max_job_test holds every other VC's
	 * fitting job until the main scheduler's full pass, unless
	 * bf_max_job_assoc lets backfill past it (doc/compare.md, "Past every
	 * depth limit"): say which, once, where an admin looks.
	 */
	if (xstrcmp(slurm_conf.priority_type, "priority/hived"))
		_say_queue_depth();
	hived_ctld_lock();
	if (!pending)
		pending = list_create(_pending_free);
	hived_ctld_unlock();
	hived_status_start();
	return SLURM_SUCCESS;
}

extern void hived_hook_fini(void)
{
	if (!running_in_slurmctld())
		return;
	hived_status_stop();	/* before our lock: the writer takes it */
	hived_ctld_lock();
	FREE_NULL_LIST(pending);
	hived_ends_free();
	hived_vc_head_free();
	hived_ctld_unload();
	hived_ctld_unlock();
}

extern void hived_hook_node_init(void)
{
	if (!running_in_slurmctld())
		return;
	hived_ctld_lock();
	(void) hived_ctld_load();
	hived_ctld_unlock();
	hived_status_dirty();
}

extern void hived_hook_state_save(const char *dir_name)
{
	if (!running_in_slurmctld())
		return;
	hived_ctld_lock();
	hived_ctld_state_save(dir_name);
	hived_ctld_unlock();
}

extern void hived_hook_state_restore(const char *dir_name)
{
	if (!running_in_slurmctld())
		return;
	hived_ctld_lock();
	hived_ctld_state_restore(dir_name);
	hived_ctld_unlock();
}

/*
 * What this call's WILL_RUN questions cost the engine (hived_will_run_last): the
 * slow-call log and the status file's timing say so. Reset per job_test call;
 * slurmctld's locks serialise those.
 */
static __thread uint64_t wr_trials, wr_memo, wr_own, wr_guaranteed,
	wr_opportunistic, wr_decisions, wr_by_guarantee;

static void _count_will_run(const hived_engine *e)
{
	hived_will_run_counts c;

	hived_will_run_last(e, &c);
	if (c.from_memo) {
		wr_memo++;
		return;
	}
	wr_trials++;
	if (c.by_guarantee)
		wr_by_guarantee++;
	wr_own += c.ended_own;
	wr_guaranteed += c.ended_guaranteed;
	wr_opportunistic += c.ended_opportunistic;
	wr_decisions += c.decisions;
}

/*
 * Where and when the ask fits once running jobs end (hived_will_run_kept); the
 * nodes of that placement into *out (replacing it) when it fits earlier than
 * *start (-1: not yet).
 */
static void _will_run_earliest(hived_engine *e, hived_job_ask_t *ask,
			       const hived_job_end *ends, size_t m,
			       uint64_t gen, bitstr_t *bitmap, bitstr_t **out,
			       int64_t *start)
{
	const hived_decision *d = NULL;
	int64_t at = -1;
	hived_rc rc = hived_will_run_kept(e, &ask->req, ends, m, gen, &at, &d);

	if (rc == HIVED_OK)
		_count_will_run(e);
	if ((rc != HIVED_OK) || (d->outcome != HIVED_PLACED) ||
	    ((*start >= 0) && (at >= *start)))
		return;
	*start = at;
	if (*out)
		bit_clear_all(*out);
	else
		*out = bit_alloc(bit_size(bitmap));
	for (size_t p = 0; p < d->n_pods; p++) {
		int idx = hived_ctld_slurm_index(d->pods[p].node);

		if (idx >= 0 && idx < bit_size(*out))
			bit_set(*out, idx);
	}
}

/*
 * Backfill's question "when, and where?" for a job that waits: the engine ends the
 * running jobs in the order Slurm expects them to end until the job fits, as a
 * trial it undoes (hived_will_run: no copy of the engine); the nodes it then gets
 * are where cons_tres should look. horizon (0: none): jobs ending later do not
 * count, as cons_tres counts none after the end of backfill's window (24.11+).
 * An exclusive job that may start on a smaller whole node (_smaller_whole_nodes)
 * is estimated at each size its nodes have: the earliest wins.
 */
static bitstr_t *_will_run_nodes(hived_engine *e, job_record_t *job_ptr,
				 bitstr_t *bitmap, time_t horizon)
{
	hived_job_ask_t ask;
	const hived_job_end *ends;
	bitstr_t *out = NULL;
	char *why = NULL;
	size_t m = 0;
	uint64_t gen = 0;
	int64_t start = -1;
	int32_t size;

	if (!find_job_record ||
	    hived_job_build(job_ptr, bitmap, &ask, &why) != HIVED_JOB_ASK) {
		xfree(why);
		hived_job_ask_free(&ask);
		return NULL;
	}
	ends = hived_ends_by(e, horizon, &m, &gen);
	_will_run_earliest(e, &ask, ends, m, gen, bitmap, &out, &start);
	size = ask.whole_node_leaves;
	if (size && ask.usable && (ask.req.n_members == 1) &&
	    (ask.members[0].leaf_cell_number == size)) {
		const char *vc = (ask.req.priority >= 0) ? ask.vc : NULL;

		while ((size = hived_next_whole_node_leaves(
				e, vc, ask.req.leaf_cell_type, ask.usable, size,
				ask.allowed)) > 0) {
			ask.members[0].leaf_cell_number = size;
			_will_run_earliest(e, &ask, ends, m, gen, bitmap, &out,
					   &start);
		}
	}
	hived_job_ask_free(&ask);
	return out;
}

/*
 * Backfill's "when?" for a job whose VC quota is in use: when enough of its own
 * VC's jobs have ended, at the end times Slurm expects, to free the leaf cells
 * (GPUs, or fractions of one) it lacks. HiveD guarantees a VC its cells once
 * its quota is free, wherever other VCs run, so no placement is tried and no
 * node is named: backfill reserves nothing for the job (as for one over its
 * association's GrpTRES) and plans other VCs' jobs on the free cells their own
 * quotas guarantee. Costs a walk over the VC's jobs by end time
 * (hived_ends_releases), not a copy of the engine.
 * RET the time, or 0 if the VC's jobs never free enough.
 */
static time_t _quota_free_time(hived_engine *e, const hived_job_ask_t *ask)
{
	const hived_release_t *rel;
	int64_t lack = 0, got = 0, free_leaves;
	time_t when = 0;
	size_t n;

	/* In leaf cells, as the engine counts quota: a shard job lacks its fraction. */
	lack = hived_request_leaves(e, &ask->req);
	free_leaves = hived_vc_free_leaves(e, ask->vc);
	if (!find_job_record || !ask->vc || (free_leaves < 0))
		return 0;
	lack -= free_leaves;
	if (!(rel = hived_ends_releases(e, ask->vc, &n)))
		return 0;
	for (size_t k = 0; (k < n) && (got < lack); k++) {
		got += rel[k].leaves;
		when = rel[k].end;
	}
	return (got >= lack) ? when : 0;
}

/* Victims by Slurm job id, all of which must be preemptable candidates. */
static list_t *_victims(const hived_decision *d, list_t *candidates, char **why)
{
	list_t *out = list_create(NULL);

	for (size_t i = 0; i < d->n_preempted; i++) {
		uint32_t id = strtoul(d->preempted[i], NULL, 10);
		job_record_t *v = NULL;

		if (candidates) {
			list_itr_t *it = list_iterator_create(candidates);
			while ((v = list_next(it)) && (v->job_id != id))
				;
			list_iterator_destroy(it);
		}
		if (!v) {
			*why = xstrdup_printf("needs job %s preempted, which PreemptType does not allow",
					      d->preempted[i]);
			FREE_NULL_LIST(out);
			return NULL;
		}
		list_append(out, v);
	}
	return out;
}

/*
 * Slurm has preempted every victim already: a requeued or killed job is no
 * longer RUNNING, and one in its GraceTime has preempt_time and an end_time
 * ahead. Past its grace a victim needs the preemptor's next test to be
 * requeued (else only slurmctld's periodic time-limit check does it).
 */
static bool _victims_leaving(const hived_decision *d)
{
	time_t now = time(NULL);

	if (!find_job_record)
		return false;
	for (size_t i = 0; i < d->n_preempted; i++) {
		job_record_t *v = find_job_record(
			strtoul(d->preempted[i], NULL, 10));

		if (v && IS_JOB_RUNNING(v) &&
		    (!v->preempt_time || (now >= v->end_time)))
			return false;
	}
	return true;
}

/* The class hived_status.json and the log name a job by. */
static const char *_job_class(const hived_job_ask_t *ask)
{
	return (ask->req.priority < 0) ? "opportunistic" : "guaranteed";
}

/* "3,4": the decision's victims (xfree it). */
static char *_victim_ids(const hived_decision *d)
{
	char *ids = NULL;

	for (size_t i = 0; i < d->n_preempted; i++)
		xstrfmtcat(ids, "%s%s", i ? "," : "", d->preempted[i]);
	return ids;
}

/*
 * A placed job waits for its victims to leave: a requeue under a loaded
 * slurmctld takes seconds, which is neither fragmentation nor quota.
 */
static void _note_victims_wait_ids(job_record_t *job_ptr,
				   const hived_job_ask_t *ask, char *ids)
{
	char *why = xstrdup_printf("its cells are bound; waiting for the jobs it preempted to end: JobId=%s",
				   ids);

	hived_job_set_comment(job_ptr, why);
	hived_status_pending(job_ptr->job_id, ask->vc, _job_class(ask), why,
			     WAIT_CAUSE_VICTIMS);
	xfree(why);
	xfree(ids);
}

static void _note_victims_wait(job_record_t *job_ptr,
			       const hived_job_ask_t *ask,
			       const hived_decision *d)
{
	_note_victims_wait_ids(job_ptr, ask, _victim_ids(d));
}

static bool _named_now(const hived_decision *d, uint32_t id)
{
	for (size_t i = 0; i < d->n_preempted; i++)
		if (strtoul(d->preempted[i], NULL, 10) == id)
			return true;
	return false;
}

/*
 * Jobs this preemptor had requeued earlier that are still leaving, other than
 * the decision's own victims ("3,4", xfree it; NULL: none). While a victim is
 * COMPLETING, Slurm leaves its nodes out of the preemptor's test, so HiveD
 * binds the job elsewhere and would name more victims: work lost for seconds
 * of waiting. Past KillWait + MessageTimeout Slurm would requeue them.
 */
static char *_earlier_victims_leaving(job_record_t *job_ptr,
				      const hived_decision *d)
{
	const uint32_t *named;
	size_t n = victim_log_named(&victims_named, job_ptr->job_id, &named);
	time_t now = time(NULL);
	char *ids = NULL;

	for (size_t i = 0; find_job_record && (i < n); i++) {
		job_record_t *v;

		if (_named_now(d, named[i]) || !(v = find_job_record(named[i])))
			continue;
		if (IS_JOB_COMPLETING(v) ||
		    (IS_JOB_RUNNING(v) && v->preempt_time &&
		     (now < v->end_time)))
			xstrfmtcat(ids, "%s%u", ids ? "," : "", named[i]);
	}
	return ids;
}

/*
 * The nodes this preemptor claims that Slurm leaves out of its test now and its
 * decision does not use ("node3,node4", xfree it; NULL: none). A victim's node
 * stays COMPLETING for a moment after the victim's requeue is logged, and a
 * decision taken then binds the job elsewhere and names more victims: the
 * e2e test_freed_node_kept_for_preemptor saw it happen 1 ms after the requeue.
 */
static char *_claimed_nodes_away(hived_engine *e, job_record_t *job_ptr,
				 const hived_decision *d, bitstr_t *bitmap)
{
	const int32_t *nodes;
	size_t n = node_claims_of(&claims, job_ptr->job_id, time(NULL),
				  &nodes);
	char *names = NULL;

	for (size_t i = 0; i < n; i++) {
		int idx = hived_ctld_slurm_index(nodes[i]);
		bool used = false;

		for (size_t p = 0; p < d->n_pods; p++)
			used |= (d->pods[p].node == nodes[i]);
		if (used || (idx < 0) || (idx >= bit_size(bitmap)) ||
		    bit_test(bitmap, idx))
			continue;
		xstrfmtcat(names, "%s%s", names ? "," : "",
			   hived_node_name(e, nodes[i]));
	}
	return names;
}

/* Victims say who preempted them until they are placed again. */
static void _victims_comment(job_record_t *job_ptr, const char *vc,
			     const uint32_t *ids, size_t n)
{
	for (size_t i = 0; find_job_record && (i < n); i++) {
		job_record_t *v = find_job_record(ids[i]);
		char *text;

		if (!v)
			continue;
		text = xstrdup_printf("preempted by job %u (%s %s needs these cells); requeued",
				      job_ptr->job_id, vc ? "VC" : "a job of",
				      vc ? vc : "no VC");
		hived_job_set_comment(v, text);
		xfree(text);
	}
}

/*
 * select_nodes() requeues no more jobs for a preemptor within KillWait +
 * MessageTimeout of its last preemption (the same test in 22.05 to 26.05):
 * victims named then are not preempted, so they are not announced yet.
 */
static bool _slurm_preempts_now(job_record_t *job_ptr)
{
	time_t start = job_ptr->details ?
		job_ptr->details->preempt_start_time : 0;

	return !start || (start <= (time(NULL) - (time_t) slurm_conf.kill_wait -
				    (time_t) slurm_conf.msg_timeout));
}

/*
 * Slurm asks again until the victims are gone: each victim is logged once per
 * preemptor, including those of a later binding elsewhere, and counted once
 * per run however many preemptors name it.
 */
static void _announce_victims(job_record_t *job_ptr, const char *vc,
			      const hived_decision *d)
{
	uint32_t *ids;
	size_t before, fresh;
	char *list = NULL;

	if (!_slurm_preempts_now(job_ptr))
		return;
	ids = xcalloc(d->n_preempted ? d->n_preempted : 1, sizeof(*ids));
	for (size_t i = 0; i < d->n_preempted; i++)
		ids[i] = strtoul(d->preempted[i], NULL, 10);
	fresh = victim_log_new(&victims_named, job_ptr->job_id, ids,
			       d->n_preempted, &before);
	for (size_t i = 0; i < fresh; i++)
		xstrfmtcat(list, "%s%u", i ? "," : "", ids[i]);
	if (fresh && !before)
		info("select/hived: %pJ preempts %zu job(s) for its cells: JobId=%s",
		     job_ptr, fresh, list);
	else if (fresh)
		info("select/hived: %pJ preempts %zu more job(s) for its cells (%zu before): JobId=%s",
		     job_ptr, fresh, before, list);
	if (fresh) {
		size_t runs = 0;

		_victims_comment(job_ptr, vc, ids, fresh);
		for (size_t i = 0; i < fresh; i++) {
			job_record_t *v = find_job_record ?
				find_job_record(ids[i]) : NULL;

			runs += victim_log_run_new(&victims_named, ids[i],
						   v ? (int64_t) v->start_time :
						   0);
		}
		hived_status_count_preempt(runs, 0);
	}
	xfree(list);
	xfree(ids);
}

/*
 * A job HiveD can never place. Slurm answers sbatch with its own words only
 * and deletes the job, so the reason goes to the log, the job's SystemComment
 * (while it exists) and hived_status.json, where hivedctl job finds it.
 */
static void _refuse(job_record_t *job_ptr, const char *vc, const char *why)
{
	hived_job_set_comment(job_ptr, why);
	if (hived_status_refused(job_ptr->job_id, vc, why))
		info("select/hived: %pJ refused: %s", job_ptr, why ? why : "-");
}

/*
 * The nodes a job could use once running jobs end: RUN_NOW's bitmap holds only
 * the nodes free enough now, and the cells a waiting job waits for are on busy
 * ones. Its partition's nodes, less those it excludes (-x); -w stays in
 * hived_job_build. The caller frees it.
 */
static bitstr_t *_usable_later(job_record_t *job_ptr, bitstr_t *bitmap)
{
	bitstr_t *out;

	if (!job_ptr->part_ptr || !job_ptr->part_ptr->node_bitmap ||
	    (bit_size(job_ptr->part_ptr->node_bitmap) != bit_size(bitmap)))
		return bit_copy(bitmap);
	out = bit_copy(job_ptr->part_ptr->node_bitmap);
	if (job_ptr->details && job_ptr->details->exc_node_bitmap &&
	    (bit_size(job_ptr->details->exc_node_bitmap) == bit_size(out)))
		bit_and_not(out, job_ptr->details->exc_node_bitmap);
	return out;
}

/*
 * A guaranteed job of a VC whose waiting head (hived_vc_head.c) is of higher
 * priority may not take the nodes the head's cells free on first: they leave
 * its allowed nodes (*left: those nodes, owned by hived_vc_head.c). RET the
 * head's job id, 0 if the job is not held back.
 */
static uint32_t _leave_to_head(job_record_t *job_ptr, bitstr_t *bitmap,
			       hived_job_ask_t *ask, bitstr_t **left)
{
	bitstr_t *head;
	hived_engine *e = hived_ctld_engine();
	uint32_t head_id = 0;
	size_t n_nodes = hived_node_count(e);
	bool held = false;

	if ((ask->req.priority < 0) ||
	    !(head = hived_vc_head_nodes(ask->vc, job_ptr, &head_id)) ||
	    (bit_size(head) != bit_size(bitmap)))
		return 0;
	for (size_t i = 0; i < n_nodes; i++) {
		int idx = hived_ctld_slurm_index(i);

		if ((idx >= 0) && ask->usable && bit_test(head, idx))
			ask->usable[i] = 0;
		if ((idx >= 0) && ask->allowed[i] && bit_test(head, idx)) {
			ask->allowed[i] = 0;
			held = true;
		}
	}
	*left = held ? head : NULL;
	return held ? head_id : 0;
}

/*
 * Nodes a running job has exclusively (--exclusive; Slurm's no_share_job_cnt)
 * are a placement's last resort. Slurm offers them to a job that may preempt,
 * and HiveD may see free cells there: a node's MIG slices (or another GPU
 * model) beside the whole GPUs it counts for that job. Placed there, the job
 * would make Slurm preempt the holder while cells elsewhere were free, or be
 * refused by cons_tres pass after pass if the holder may not be preempted.
 * Placed without them, the job keeps the narrowed mask for job_begin's commit.
 */
static hived_rc _submit_unshared_last(hived_engine *e, hived_job_ask_t *ask,
				      uint16_t mode, const hived_decision **d)
{
	size_t n = hived_node_count(e);
	uint8_t *off = NULL;
	hived_rc rc;

	if ((mode != SELECT_MODE_RUN_NOW) || !ask->allowed)
		return hived_submit(e, &ask->req, 1, d);
	for (size_t i = 0; i < n; i++) {
		int idx = hived_ctld_slurm_index(i);

		if (!ask->allowed[i] || (idx < 0) ||
		    (idx >= node_record_count) ||
		    !node_record_table_ptr[idx] ||
		    !node_record_table_ptr[idx]->no_share_job_cnt)
			continue;
		if (!off)
			off = xcalloc(n, 1);
		off[i] = 1;
		ask->allowed[i] = 0;
	}
	rc = hived_submit(e, &ask->req, 1, d);
	if (off && ((rc != HIVED_OK) || ((*d)->outcome != HIVED_PLACED))) {
		for (size_t i = 0; i < n; i++)
			if (off[i])
				ask->allowed[i] = 1;
		rc = hived_submit(e, &ask->req, 1, d);
	}
	xfree(off);
	return rc;
}

static bool _preempts(const hived_decision *d)
{
	return d->n_preempted || d->n_lazy_preempted;
}

/*
 * An exclusive job's whole nodes are of the largest size it may use. Where
 * none can be had now, or only by preempting, but smaller nodes it may use can
 * (a partition, or a VC, of two node sizes), cons_tres would give it those,
 * and so does HiveD: each smaller size in turn, largest first, each pod a
 * whole node of that size and its VC charged for it; when the largest size
 * preempts, only a size that preempts no one is taken. When none does, the
 * largest size's decision is made again, so that the job waits (or preempts),
 * and is estimated, as for it.
 */
static hived_rc _smaller_whole_nodes(hived_engine *e, hived_job_ask_t *ask,
				     uint16_t mode, const hived_decision **d)
{
	size_t n = hived_node_count(e);
	const char *vc = (ask->req.priority >= 0) ? ask->vc : NULL;
	const char *type = ask->req.leaf_cell_type;
	int32_t largest = ask->whole_node_leaves, size = largest;
	bool tried = false, spare = ((*d)->outcome == HIVED_PLACED);

	if (!largest || !ask->usable || (ask->req.n_members != 1) ||
	    (ask->members[0].leaf_cell_number != largest))
		return HIVED_OK;
	while ((size = hived_next_whole_node_leaves(e, vc, type, ask->usable,
						    size, ask->allowed)) > 0) {
		hived_rc rc;

		ask->members[0].leaf_cell_number = size;
		tried = true;
		rc = _submit_unshared_last(e, ask, mode, d);
		if ((rc == HIVED_OK) && ((*d)->outcome == HIVED_PLACED) &&
		    !(spare && _preempts(*d))) {
			ask->whole_node_leaves = size;
			return rc;
		}
	}
	if (!tried)	/* nodes of one size: *d is still the largest's */
		return HIVED_OK;
	ask->members[0].leaf_cell_number = largest;
	for (size_t i = 0; i < n; i++)
		ask->allowed[i] = ask->usable[i] &&
			hived_is_node_cell_size(e, i, largest, type);
	return _submit_unshared_last(e, ask, mode, d);
}

static int _job_test(job_record_t *job_ptr, bitstr_t *bitmap,
		     uint32_t min_nodes, uint32_t max_nodes,
		     uint32_t req_nodes, uint16_t mode,
		     list_t *preemptee_candidates, list_t **preemptee_job_list,
		     hived_exc_t *exc, hived_will_run_t *will_run,
		     hived_job_test_f fwd,
		     bool *asked);

static uint64_t _clock_us(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/*
 * A wall time long against its CPU time is the thread waiting: for a core on
 * a loaded host (involuntary switches), or for a lock or the disk. Reading
 * the thread's CPU clock is a system call (0.5-3 us on the 2-core test VM), so it
 * is read around the call, cons_tres's share and the engine only.
 */
typedef struct {
	uint64_t wall, cpu;
} stamp_t;

static stamp_t _stamp(void)
{
	stamp_t s = { _clock_us(CLOCK_MONOTONIC),
		      _clock_us(CLOCK_THREAD_CPUTIME_ID) };

	return s;
}

static void _thread_switches(uint64_t *ivcsw, uint64_t *vcsw)
{
	struct rusage ru;

	*ivcsw = *vcsw = 0;
	if (getrusage(RUSAGE_THREAD, &ru))
		return;
	*ivcsw = ru.ru_nivcsw;
	*vcsw = ru.ru_nvcsw;
}

/*
 * cons_tres's share of the call being timed: slurmctld's locks serialise
 * job_test calls, the thread-local keeps a stray concurrent one apart.
 */
static __thread hived_job_test_f fwd_real;
static __thread stamp_t fwd_spent;
/*
 * The own share by phase (issue 18 item 3), same serialisation as fwd_spent;
 * CPU time for the engine phase only.
 */
static __thread uint64_t phase_us[HIVED_PHASE_N], engine_cpu_us;
/* Of the engine phase, hived_submit's share (the rest: WILL_RUN's). */
static __thread uint64_t submit_us, submit_cpu_us;
static __thread stamp_t phase_t0;

static void _phase_start(void)
{
	phase_t0.wall = _clock_us(CLOCK_MONOTONIC);
}

static void _engine_start(void)
{
	phase_t0 = _stamp();
}

/* Adds the time since the phase's start or the last end to phase p. */
static void _phase_end(hived_phase_t p)
{
	uint64_t now = _clock_us(CLOCK_MONOTONIC);

	phase_us[p] += now - phase_t0.wall;
	if (p == HIVED_PHASE_ENGINE)
		engine_cpu_us += _clock_us(CLOCK_THREAD_CPUTIME_ID) -
				 phase_t0.cpu;
	phase_t0.wall = now;
}

static int _fwd_timed(job_record_t *job_ptr, bitstr_t *bitmap,
		      uint32_t min_nodes, uint32_t max_nodes,
		      uint32_t req_nodes, uint16_t mode,
		      list_t *preemptee_candidates,
		      list_t **preemptee_job_list, hived_exc_t *exc,
		      hived_will_run_t *will_run)
{
	stamp_t t0 = _stamp(), t1;
	int rc = fwd_real(job_ptr, bitmap, min_nodes, max_nodes, req_nodes,
			  mode, preemptee_candidates, preemptee_job_list,
			  exc, will_run);

	t1 = _stamp();
	fwd_spent.wall += t1.wall - t0.wall;
	fwd_spent.cpu += t1.cpu - t0.cpu;
	return rc;
}

static uint64_t _minus(uint64_t a, uint64_t b)
{
	return (a > b) ? a - b : 0;
}

static const char *_mode_str(uint16_t mode)
{
	switch (mode) {
	case SELECT_MODE_RUN_NOW:
		return "RUN_NOW";
	case SELECT_MODE_TEST_ONLY:
		return "TEST_ONLY";
	case SELECT_MODE_WILL_RUN:
		return "WILL_RUN";
	default:
		return "mode?";
	}
}

/* A call whose own share passes this goes to the log and the status file. */
#define SLOW_JOB_TEST_US 20000

static void _slow_job_test(job_record_t *job_ptr, uint16_t mode,
			   const hived_job_test_time_t *t, uint64_t vcsw)
{
	static const char *const phase[HIVED_PHASE_N] = {
		"lock", "sync", "build", "engine", "steer", "rest"
	};
	char *text = xstrdup_printf("JobId=%u %s: own share %"PRIu64" us wall, %"PRIu64" us CPU (engine %"PRIu64" us CPU); %"PRIu64" involuntary, %"PRIu64" voluntary switches; wall us:",
				    job_ptr->job_id, _mode_str(mode),
				    t->own_usec, t->own_cpu_usec,
				    t->engine_cpu_usec, t->ivcsw, vcsw);

	for (int i = 0; i < HIVED_PHASE_N; i++) {
		xstrfmtcat(text, " %s %"PRIu64, phase[i], t->phase_usec[i]);
		if (i == HIVED_PHASE_ENGINE)
			xstrfmtcat(text, " (hived_submit %"PRIu64", CPU %"PRIu64")",
				   submit_us, submit_cpu_us);
	}
	xstrfmtcat(text, "; cons_tres %"PRIu64" us wall, %"PRIu64" us CPU",
		   t->usec - t->own_usec, fwd_spent.cpu);
	if (wr_trials) {
		xstrfmtcat(text, "; WILL_RUN trial ended and put back %"PRIu64" running jobs (its VC's %"PRIu64", other VCs' guaranteed %"PRIu64", opportunistic %"PRIu64") and asked %"PRIu64" dry runs",
			   wr_own + wr_guaranteed + wr_opportunistic, wr_own,
			   wr_guaranteed, wr_opportunistic,
			   wr_decisions);
		if (wr_by_guarantee)
			xstrcat(text, "; its VC's guarantee gave the start time: other VCs' guaranteed jobs and opportunistic runs were left running");
	} else if (wr_memo)
		xstrcat(text, "; WILL_RUN answered from the memo");
	if (_verbose())
		info("select/hived: slow job_test: %s", text);
	else
		debug("select/hived: slow job_test: %s", text);
	hived_status_slow_job_test(text);
	xfree(text);
}

/* Timed: what the scheduler pays per call for jobs HiveD decides. */
extern int hived_hook_job_test(job_record_t *job_ptr, bitstr_t *bitmap,
			       uint32_t min_nodes, uint32_t max_nodes,
			       uint32_t req_nodes, uint16_t mode,
			       list_t *preemptee_candidates,
			       list_t **preemptee_job_list,
			       hived_exc_t *exc,
			       hived_will_run_t *will_run,
			       hived_job_test_f fwd)
{
	stamp_t t0, t1;
	uint64_t ivcsw0, vcsw0, ivcsw1, vcsw1, named = 0;
	hived_job_test_time_t t;
	bool asked = false;
	int rc;

	_thread_switches(&ivcsw0, &vcsw0);
	t0 = _stamp();
	fwd_real = fwd;
	memset(&fwd_spent, 0, sizeof(fwd_spent));
	memset(phase_us, 0, sizeof(phase_us));
	engine_cpu_us = submit_us = submit_cpu_us = 0;
	wr_trials = wr_memo = wr_own = wr_guaranteed = 0;
	wr_opportunistic = wr_decisions = wr_by_guarantee = 0;
	rc = _job_test(job_ptr, bitmap, min_nodes, max_nodes, req_nodes,
		       mode, preemptee_candidates, preemptee_job_list,
		       exc, will_run, _fwd_timed, &asked);
	if (!asked)
		return rc;
	t1 = _stamp();
	_thread_switches(&ivcsw1, &vcsw1);
	memset(&t, 0, sizeof(t));
	t.usec = t1.wall - t0.wall;
	t.own_usec = _minus(t.usec, fwd_spent.wall);
	t.own_cpu_usec = _minus(t1.cpu - t0.cpu, fwd_spent.cpu);
	t.ivcsw = _minus(ivcsw1, ivcsw0);
	/*
	 * The phases tile the own share: REST is whatever the named ones do
	 * not cover, so the own share is exactly their sum, call by call.
	 */
	for (int i = 0; i < HIVED_PHASE_REST; i++) {
		t.phase_usec[i] = phase_us[i];
		named += phase_us[i];
	}
	t.phase_usec[HIVED_PHASE_REST] = _minus(t.own_usec, named);
	t.engine_cpu_usec = engine_cpu_us;
	t.trials = wr_trials;
	t.by_guarantee = wr_by_guarantee;
	t.memo_answers = wr_memo;
	t.trial_ended = wr_own + wr_guaranteed + wr_opportunistic;
	hived_status_job_test(&t);
	if (t.own_usec > SLOW_JOB_TEST_US)
		_slow_job_test(job_ptr, mode, &t, _minus(vcsw1, vcsw0));
	return rc;
}

/* The engine's wait kind as a wait history cause. */
static wait_cause_t _wait_cause(int wait_kind)
{
	switch (wait_kind) {
	case HIVED_WAIT_VC_QUOTA:
		return WAIT_CAUSE_VC_QUOTA;
	case HIVED_WAIT_NO_CELL:
		return WAIT_CAUSE_CELLS;
	case HIVED_WAIT_PRIORITY:
		return WAIT_CAUSE_PINNED;
	case HIVED_WAIT_VC_TOO_SMALL:
		return WAIT_CAUSE_VC_TOO_SMALL;
	default:
		return WAIT_CAUSE_OTHER;
	}
}

static const char claim_note[] = "the nodes JobId=";

typedef struct {
	bitstr_t *bitmap;
	int taken;
} take_bits_t;

static bool _take_bit(int32_t node, void *arg)
{
	take_bits_t *t = arg;
	int idx = hived_ctld_slurm_index(node);

	if ((idx < 0) || (idx >= bit_size(t->bitmap)) ||
	    !bit_test(t->bitmap, idx))
		return false;
	bit_clear(t->bitmap, idx);
	t->taken++;
	return true;
}

/*
 * A job cons_tres places alone (no GPU, or GPUs in a shape HiveD does not
 * model) could take a node a preemptor's victims have just left, and the
 * preemptor would requeue more jobs elsewhere: its RUN_NOW goes off claimed
 * nodes too. Called with the ctld lock held; releases it.
 */
static int _forward_off_claims(job_record_t *job_ptr, bitstr_t *bitmap,
			       uint32_t min_nodes, uint32_t max_nodes,
			       uint32_t req_nodes, uint16_t mode,
			       list_t *preemptee_candidates,
			       list_t **preemptee_job_list, hived_exc_t *exc,
			       hived_will_run_t *will_run, hived_job_test_f fwd)
{
	take_bits_t t = { bitmap, 0 };
	char *why;
	uint32_t by;
	int rc, avail = 0;

	by = node_claims_keep_off_each(&claims, job_ptr->job_id, time(NULL),
				       hived_job_still_waits, _take_bit, &t);
	if (by)	/* cons_tres may change the bitmap it fails on */
		avail = bit_set_count(bitmap) + t.taken;
	hived_ctld_unlock();
	rc = fwd(job_ptr, bitmap, min_nodes, max_nodes, req_nodes, mode,
		 preemptee_candidates, preemptee_job_list, exc, will_run);
	if (!by || (rc == SLURM_SUCCESS)) {
		/* Our note only: a site's own SystemComment stays. */
		if (!xstrncmp(job_ptr->system_comment, "hived: ", 7) &&
		    !xstrncmp(job_ptr->system_comment + 7, claim_note,
			      strlen(claim_note)))
			hived_job_set_comment(job_ptr, NULL);
		return rc;
	}
	why = xstrdup_printf("%s%u preempted jobs on are kept for it until it starts",
			     claim_note, by);
	hived_job_set_comment(job_ptr, why);
	xfree(why);
	if (_verbose())
		info("select/hived: %pJ kept off the nodes JobId=%u preempted jobs on, until it starts",
		     job_ptr, by);
	/*
	 * Counting the claimed nodes: without the mark Slurm's main scheduler
	 * would hold back the partition, the preemptor too, and backfill would
	 * plan the claimed node for this job.
	 */
	hived_ctld_lock();
	return _hold_without_blocking(job_ptr, avail, min_nodes);
}

static int _job_test(job_record_t *job_ptr, bitstr_t *bitmap,
		     uint32_t min_nodes, uint32_t max_nodes,
		     uint32_t req_nodes, uint16_t mode,
		     list_t *preemptee_candidates, list_t **preemptee_job_list,
		     hived_exc_t *exc, hived_will_run_t *will_run,
		     hived_job_test_f fwd,
		     bool *asked)
{
	hived_job_ask_t ask;
	const hived_decision *d = NULL;
	hived_engine *e;
	char *why = NULL, *leaving = NULL;
	bitstr_t *chosen = NULL;
	hived_exc_t *near;
	int rc, cnt;
	hived_job_kind_t kind;
	hived_rc submitted;
	uint32_t held_by, claimed_by = 0;
	bitstr_t *left = NULL;
	bool shape_wait;

	/* job_id 0: a reservation's stand-in job (23.11+), not HiveD's to place. */
	if (!running_in_slurmctld() || !job_ptr->job_id)
		goto forward;
	_phase_start();
	hived_ctld_lock();
	_phase_end(HIVED_PHASE_LOCK);
	/*
	 * A mark speaks only for the job_test right after the RUN_NOW that set
	 * it; any later one (another pass, backfill) must not see it. Under the
	 * same locks the engine would only hold the job again.
	 */
	if (_held_take(job_ptr->job_id) && (mode == SELECT_MODE_TEST_ONLY)) {
		hived_ctld_unlock();
		return ESLURM_NODES_BUSY;
	}
	e = hived_ctld_engine();
	if (!e) {
		hived_ctld_unlock();
		goto forward;
	}
	_phase_start();
	hived_ctld_refresh_quotas();
	e = hived_ctld_engine();
	hived_ctld_sync_nodes();
	hived_job_forget_stale_waits(e, 10);
	_claims_follow(e);
	_phase_end(HIVED_PHASE_SYNC);
	kind = hived_job_build(job_ptr, bitmap, &ask, &why);
	_phase_end(HIVED_PHASE_BUILD);
	if (kind == HIVED_JOB_NO_GPU || kind == HIVED_JOB_UNMANAGED) {
		if (why && _verbose())
			info("select/hived: %pJ: %s", job_ptr, why);
		xfree(why);
		hived_job_ask_free(&ask);
		if (mode == SELECT_MODE_RUN_NOW)
			return _forward_off_claims(job_ptr, bitmap, min_nodes,
						   max_nodes, req_nodes, mode,
						   preemptee_candidates,
						   preemptee_job_list, exc,
						   will_run, fwd);
		hived_ctld_unlock();
		goto forward;
	}
	if (kind == HIVED_JOB_REFUSE) {
		_refuse(job_ptr, ask.vc, why);
		xfree(why);
		hived_job_ask_free(&ask);
		hived_ctld_unlock();
		return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	}
	held_by = _leave_to_head(job_ptr, bitmap, &ask, &left);
	/*
	 * Only where a job starts: a TEST_ONLY refused here could mark it
	 * never runnable, and backfill's plans outlive a claim's seconds.
	 */
	if (mode == SELECT_MODE_RUN_NOW) {
		claimed_by = node_claims_keep_off_both(&claims,
						       job_ptr->job_id,
						       time(NULL), ask.allowed,
						       ask.usable,
						       hived_node_count(e),
						       hived_job_still_waits);
	}
	*asked = true;
	_engine_start();
	submitted = _submit_unshared_last(e, &ask, mode, &d);
	if ((submitted == HIVED_OK) && ask.whole_node_leaves &&
	    ((d->outcome == HIVED_WAITING) ||
	     ((d->outcome == HIVED_PLACED) && _preempts(d))))
		submitted = _smaller_whole_nodes(e, &ask, mode, &d);
	_phase_end(HIVED_PHASE_ENGINE);
	submit_us = phase_us[HIVED_PHASE_ENGINE];
	submit_cpu_us = engine_cpu_us;
	if ((submitted != HIVED_OK) && (ask.members[0].fraction_number ||
					hived_is_mig_profile(e, ask.leaf_type))) {
		/*
		 * cons_tres could put the shards on a GPU HiveD gave out whole,
		 * or take another VC's slice.
		 */
		why = xstrdup_printf("%s: %s", ask.members[0].fraction_number ?
				     "shards" : ask.leaf_type,
				     hived_last_error(e));
		_refuse(job_ptr, ask.vc, why);
		xfree(why);
		hived_job_ask_free(&ask);
		hived_ctld_unlock();
		return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	} else if (submitted != HIVED_OK) {
		/* HIVED_EINTERNAL/ENOMEM too: the job still runs, unsteered. */
		error("select/hived: %pJ: %s: %s; leaving it to cons_tres",
		      job_ptr, hived_rc_str(submitted), hived_last_error(e));
		hived_job_ask_free(&ask);
		hived_ctld_unlock();
		goto forward;
	}
	if ((d->outcome == HIVED_REJECTED) || _refuse_larger_than_vc(d)) {
		_refuse(job_ptr, ask.vc, d->reason);
		hived_job_ask_free(&ask);
		hived_ctld_unlock();
		return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	}
	if (d->outcome == HIVED_WAITING) {
		char *behind = NULL;
		/* Waiting for its quota, it would wait without the head too. */
		bool for_cells = (d->wait_kind != HIVED_WAIT_VC_QUOTA) &&
				 (d->wait_kind != HIVED_WAIT_VC_TOO_SMALL);

		if (held_by && for_cells)
			behind = xstrdup_printf("waits behind JobId=%u of VC '%s', of higher priority, which waits for whole cells of that VC; its nodes are left to it (%s)",
						held_by, ask.vc, d->reason);
		else if (claimed_by && for_cells)
			behind = xstrdup_printf("%s; the nodes JobId=%u preempted jobs on are kept for it until it starts",
						d->reason, claimed_by);
		hived_job_set_comment(job_ptr, behind ? behind : d->reason);
		hived_status_pending(job_ptr->job_id, ask.vc, _job_class(&ask),
				     behind ? behind : d->reason,
				     (held_by && for_cells) ?
				     WAIT_CAUSE_BEHIND_HEAD :
				     _wait_cause(d->wait_kind));
		xfree(behind);
		/* Its VC has the GPUs, not in its shape: it may head its VC. */
		shape_wait = !held_by && (ask.req.priority >= 0) &&
			     (d->wait_kind == HIVED_WAIT_NO_CELL);
		if ((mode == SELECT_MODE_WILL_RUN) &&
		    (d->wait_kind == HIVED_WAIT_VC_QUOTA)) {
			time_t when, now = time(NULL);

			_engine_start();
			when = _quota_free_time(e, &ask);
			_phase_end(HIVED_PHASE_ENGINE);

			hived_job_ask_free(&ask);
			hived_ctld_unlock();
			if (!when)
				return ESLURM_NODES_BUSY;
			job_ptr->start_time = (when > now) ? when : now + 1;
			bit_clear_all(bitmap);
			return SLURM_SUCCESS;
		}
		/*
		 * The first question about a job that waits for shape makes
		 * it its VC's head: slurmctld asks TEST_ONLY at submission and
		 * when too few nodes are available for a RUN_NOW.
		 */
		if (((mode == SELECT_MODE_RUN_NOW) ||
		     (mode == SELECT_MODE_TEST_ONLY)) && shape_wait &&
		    !hived_vc_head_live(ask.vc)) {
			bitstr_t *later, *usable = _usable_later(job_ptr, bitmap);

			_engine_start();
			later = _will_run_nodes(e, job_ptr, usable, 0);
			_phase_end(HIVED_PHASE_ENGINE);
			hived_vc_head_offer(ask.vc, job_ptr, later);
			FREE_NULL_BITMAP(later);
			FREE_NULL_BITMAP(usable);
		}
		if (mode != SELECT_MODE_WILL_RUN)
			hived_job_ask_free(&ask);
		/*
		 * Whatever holds this job back (its VC's quota, its VC's
		 * doomed cells, no idle cells for opportunistic work) is no
		 * reason to hold back other VCs' jobs.
		 */
		if (mode == SELECT_MODE_RUN_NOW)
			return _hold_without_blocking(job_ptr,
						      bit_set_count(bitmap),
						      min_nodes);
		if (mode == SELECT_MODE_WILL_RUN) {
			/* No end of running jobs makes a VC bigger. */
			bitstr_t *later = NULL, *usable = bitmap;

			_engine_start();
			if (left) {	/* plan it off its VC head's nodes too */
				usable = bit_copy(bitmap);
				bit_and_not(usable, left);
			}
			if (d->wait_kind != HIVED_WAIT_VC_TOO_SMALL)
				later = _will_run_nodes(e, job_ptr, usable,
						HIVED_WILL_RUN_END(will_run));
			if (usable != bitmap)
				FREE_NULL_BITMAP(usable);
			_phase_end(HIVED_PHASE_ENGINE);
			if (shape_wait)
				hived_vc_head_offer(ask.vc, job_ptr, later);
			hived_job_ask_free(&ask);
			hived_ctld_unlock();
			if (later) {
				/*
				 * cons_tres then says when those nodes free the
				 * GPUs: the start time follows the cells.
				 */
				cnt = bit_set_count(later);
				bit_copybits(bitmap, later);
				FREE_NULL_BITMAP(later);
				return fwd(job_ptr, bitmap, cnt,
					   (max_nodes < (uint32_t) cnt) ?
					   (uint32_t) cnt : max_nodes, cnt, mode,
					   preemptee_candidates,
					   preemptee_job_list, exc, will_run);
			}
			goto forward;
		}
		hived_ctld_unlock();
		/* Could it ever run: cons_tres answers on all nodes. */
		goto forward;
	}

	/* Placed. */
	if (d->n_preempted && (mode == SELECT_MODE_RUN_NOW) &&
	    _victims_leaving(d)) {
		/*
		 * Handing Slurm the victims again would make select_nodes()
		 * answer ESLURM_NODES_BUSY, and the main scheduler would then
		 * hold back every lower-priority job of the partition, other
		 * VCs' too, until they are gone (seconds under load). Wait as
		 * for cells instead: what they free goes to the first job
		 * tested after they end, which is this one before any job of
		 * lower priority.
		 */
		_claim_nodes(e, job_ptr, d);
		_note_victims_wait(job_ptr, &ask, d);
		hived_job_ask_free(&ask);
		return _hold_without_blocking(job_ptr, bit_set_count(bitmap),
					      min_nodes);
	}
	if (d->n_preempted && (mode == SELECT_MODE_RUN_NOW) &&
	    (leaving = _earlier_victims_leaving(job_ptr, d))) {
		/* Its earlier victims' nodes come back first: wait for them. */
		_note_victims_wait_ids(job_ptr, &ask, leaving);
		hived_job_ask_free(&ask);
		return _hold_without_blocking(job_ptr, bit_set_count(bitmap),
					      min_nodes);
	}
	if (d->n_preempted && (mode == SELECT_MODE_RUN_NOW) &&
	    (leaving = _claimed_nodes_away(e, job_ptr, d, bitmap))) {
		char *text = xstrdup_printf("its cells are bound; waiting for %s, which the jobs it preempted are leaving",
					    leaving);

		hived_job_set_comment(job_ptr, text);
		hived_status_pending(job_ptr->job_id, ask.vc, _job_class(&ask),
				     text, WAIT_CAUSE_VICTIMS);
		xfree(text);
		xfree(leaving);
		hived_job_ask_free(&ask);
		return _hold_without_blocking(job_ptr, bit_set_count(bitmap),
					      min_nodes);
	}
	if (d->n_preempted && (mode == SELECT_MODE_RUN_NOW)) {
		list_t *victims = _victims(d, preemptee_candidates, &why);

		if (!victims || !preemptee_job_list) {
			hived_job_set_comment(job_ptr, why);
			hived_status_pending(job_ptr->job_id, ask.vc,
					     _job_class(&ask), why ? why :
					     "Slurm passed no list for victims",
					     WAIT_CAUSE_OTHER);
			xfree(why);
			FREE_NULL_LIST(victims);
			hived_job_ask_free(&ask);
			hived_ctld_unlock();
			return ESLURM_NODES_BUSY;
		}
		_announce_victims(job_ptr, ask.vc, d);
		_claim_nodes(e, job_ptr, d);
		*preemptee_job_list = victims;
	}
	chosen = bit_alloc(bit_size(bitmap));
	for (size_t p = 0; p < d->n_pods; p++) {
		int idx = hived_ctld_slurm_index(d->pods[p].node);
		if (idx >= 0 && idx < bit_size(chosen))
			bit_set(chosen, idx);
	}
	cnt = bit_set_count(chosen);
	if (d->n_preempted && (mode == SELECT_MODE_RUN_NOW)) {
		/* Slurm preempts, the job starts on a later pass. */
		bit_copybits(bitmap, chosen);
		FREE_NULL_BITMAP(chosen);
		_note_victims_wait(job_ptr, &ask, d);
		hived_job_ask_free(&ask);
		hived_ctld_unlock();
		return SLURM_SUCCESS;
	}
	if (d->n_preempted) {
		/* TEST_ONLY / WILL_RUN: runnable once victims go. */
		FREE_NULL_BITMAP(chosen);
		hived_job_ask_free(&ask);
		hived_ctld_unlock();
		goto forward;
	}
	bit_copybits(bitmap, chosen);
	rc = SLURM_ERROR;
	_phase_start();
	near = (mode == SELECT_MODE_RUN_NOW) ? hived_core_steer(d, exc) : NULL;
	_phase_end(HIVED_PHASE_STEER);
	if (near) {
		rc = fwd(job_ptr, bitmap, cnt, (max_nodes < (uint32_t) cnt) ?
			 (uint32_t) cnt : max_nodes, cnt, mode,
			 preemptee_candidates, preemptee_job_list, near,
			 will_run);
		hived_core_steer_free(near);
		if (rc != SLURM_SUCCESS) {
			/* job_test is destructive of the bitmap. */
			bit_copybits(bitmap, chosen);
			if (_verbose())
				info("select/hived: %pJ: no free cores next to its GPUs; cores from any socket",
				     job_ptr);
		}
	}
	if (rc != SLURM_SUCCESS)
		rc = fwd(job_ptr, bitmap, cnt, (max_nodes < (uint32_t) cnt) ?
			 (uint32_t) cnt : max_nodes, cnt, mode,
			 preemptee_candidates, preemptee_job_list,
			 exc, will_run);
	FREE_NULL_BITMAP(chosen);
	if ((rc == SLURM_SUCCESS) && (mode == SELECT_MODE_RUN_NOW)) {
		pending_t *p = xmalloc(sizeof(*p));
		pending_t *old = _pending_take(job_ptr->job_id);

		node_claims_drop(&claims, job_ptr->job_id);

		if (old)
			_pending_free(old);
		p->job_id = job_ptr->job_id;
		p->ask = ask;
		p->ask.req.job = p->ask.name;
		p->ask.req.members = p->ask.members;
		list_append(pending, p);
		if (_verbose()) {
			char *s = _pods_str(d);
			info("select/hived: %pJ fits its cells: %s", job_ptr, s);
			xfree(s);
		}
	} else {
		if (rc != SLURM_SUCCESS)
			debug("select/hived: %pJ: cons_tres refused the nodes HiveD chose (%s)",
			      job_ptr, slurm_strerror(rc));
		hived_job_ask_free(&ask);
	}
	hived_ctld_unlock();
	return rc;

forward:
	return fwd(job_ptr, bitmap, min_nodes, max_nodes, req_nodes, mode,
		   preemptee_candidates, preemptee_job_list, exc, will_run);
}

/*
 * Slurm 22.05, after a slurmctld restart just as a job ends, can hand the next
 * job a GPU allocation without GPUs (its GRES counts leak until the next
 * restart; cons_tres does the same). Started, the job would run with
 * CUDA_VISIBLE_DEVICES empty: it stays pending instead, saying why, once.
 */
static const char no_gpus_why[] = "Slurm gave this job no usable GPUs (its GPU counts are off after a slurmctld restart); not started, it stays pending. Restart slurmctld to repair them (select_hived(8), AFTER A SLURMCTLD CRASH)";

/* why: Slurm files a chosen GPU under another type (NULL: counts off). */
static void _no_gpus(job_record_t *job_ptr, const char *why)
{
	static uint32_t said = 0;

	hived_job_set_comment(job_ptr, why ? why : no_gpus_why);
	if (said == job_ptr->job_id)
		return;
	said = job_ptr->job_id;
	if (why)
		error("select/hived: %pJ: %s", job_ptr, why);
	else
		error("select/hived: %pJ: could not set the GPU indices HiveD chose (Slurm's GPU allocation for it is empty or does not fit); not starting it without GPUs: it stays pending. Restart slurmctld to repair Slurm's GPU counts",
		      job_ptr);
}

extern int hived_hook_job_begin(job_record_t *job_ptr)
{
	pending_t *p;
	const hived_decision *d = NULL;
	hived_engine *e;
	hived_rc hrc;
	int rc = SLURM_SUCCESS;
	char *why = NULL;

	if (!running_in_slurmctld())
		return SLURM_SUCCESS;
	hived_ctld_lock();
	e = hived_ctld_engine();
	p = _pending_take(job_ptr->job_id);
	if (!p && (job_ptr->array_task_id != NO_VAL) &&
	    (p = _pending_take(job_ptr->array_job_id))) {
		/*
		 * An array task was tested under the array's id; job_array_split()
		 * gave it its own id before job_begin. Same shape, same state: the
		 * decision stands, under the task's id.
		 */
		snprintf(p->ask.name, sizeof(p->ask.name), "%u",
			 job_ptr->job_id);
		p->job_id = job_ptr->job_id;
	}
	if (!e || !p) {
		if (p)
			_pending_free(p);
		hived_ctld_unlock();
		return SLURM_SUCCESS;
	}
	if (((hrc = hived_submit(e, &p->ask.req, 0, &d)) != HIVED_OK) ||
	    (d->outcome != HIVED_PLACED)) {
		error("select/hived: %pJ: HiveD changed its mind between job_test and job_begin (%s%s%s); recording what cons_tres allocates",
		      job_ptr, d ? "" : hived_rc_str(hrc), d ? "" : ": ",
		      d ? d->reason : hived_last_error(e));
	} else if (hived_job_set_gres_select(job_ptr, d, &why) !=
		   SLURM_SUCCESS) {
		_no_gpus(job_ptr, why);
		(void) hived_finish(e, p->ask.name);
		hived_job_say_promoted(e, p->ask.name);
		rc = SLURM_ERROR;
	} else {
		char *s = _pods_str(d), waited[320];
		bool held = hived_status_started(
			job_ptr->job_id,
			(job_ptr->array_task_id != NO_VAL) ?
			job_ptr->array_job_id : 0, waited, sizeof(waited));

		/* One line per start, with how long HiveD held it and why. */
		info("select/hived: %pJ VC=%s class=%s GPUs=%s%s%s%s",
		     job_ptr, p->ask.vc ? p->ask.vc : "-",
		     _job_class(&p->ask), s,
		     d->borrowed ? "; borrowed idle GPUs outside its VC's cells (its VC's free GPUs are not in its shape): runs as opportunistic until a guaranteed job needs them" : "",
		     held ? "; waited " : "", held ? waited : "");
		for (size_t i = 0; i < d->n_lazy_preempted; i++)
			info("select/hived: job %s lazy-preempted: now opportunistic, keeps running",
			     d->lazy_preempted[i]);
		xfree(s);
		hived_job_placed_comment(job_ptr, &p->ask, d);
		hived_status_count_preempt(0, d->n_lazy_preempted);
		if (d->borrowed)
			hived_status_count_borrowed();
	}
	if (rc == SLURM_SUCCESS)
		hived_status_pending(job_ptr->job_id, NULL, NULL, NULL, 0);
	else
		hived_status_pending(job_ptr->job_id, p->ask.vc,
				     _job_class(&p->ask),
				     why ? why : no_gpus_why, WAIT_CAUSE_OTHER);
	xfree(why);
	hived_ctld_check("job_begin");
	_pending_free(p);
	hived_ctld_unlock();
	return rc;
}

/* Record the job's GPUs as Slurm has them; returns false if not a GPU job. */
static bool _record_running(hived_engine *e, job_record_t *job_ptr)
{
	hived_job_ask_t ask;
	hived_pod *pods = NULL;
	size_t n = 0;
	char *why = NULL;
	int demoted = 0;
	bool done = false;
	hived_rc rc;

	if (hived_job_alloc_pods(job_ptr, &pods, &n) != SLURM_SUCCESS)
		return false;
	switch (hived_job_build(job_ptr, NULL, &ask, &why)) {
	case HIVED_JOB_NO_GPU:
		hived_job_ask_free(&ask);
		hived_job_pods_free(pods, n);
		xfree(why);
		return false;
	case HIVED_JOB_ASK:
		break;
	default:	/* a shape or account HiveD does not place: hold its GPUs */
		info("select/hived: %pJ: its GPUs are held as opportunistic (%s)",
		     job_ptr, why ? why : "not HiveD's shape");
		hived_job_ask_free(&ask);
		memset(&ask, 0, sizeof(ask));
		snprintf(ask.name, sizeof(ask.name), "%u", job_ptr->job_id);
		ask.req.job = ask.name;
		ask.req.priority = HIVED_PRIORITY_OPPORTUNISTIC;
	}
	if ((rc = hived_add_running(e, &ask.req, pods, n, &demoted)) != HIVED_OK)
		error("select/hived: %pJ: cannot record its GPUs: %s: %s",
		      job_ptr, hived_rc_str(rc), hived_last_error(e));
	else
		done = true;
	if (done && demoted)
		info("select/hived: %pJ no longer fits VC %s: runs on as opportunistic",
		     job_ptr, ask.vc ? ask.vc : "-");
	xfree(why);
	hived_job_ask_free(&ask);
	hived_job_pods_free(pods, n);
	return done;
}

/*
 * The job select_nodes() has just begun: its nodeinfo_set follows under the
 * same locks, and a difference found there is its start, not a recovery.
 */
static uint32_t begun_job_id;

extern void hived_hook_job_begun(job_record_t *job_ptr)
{
	char name[24];
	hived_engine *e;

	if (!running_in_slurmctld())
		return;
	hived_ctld_lock();
	begun_job_id = job_ptr->job_id;
	e = hived_ctld_engine();
	snprintf(name, sizeof(name), "%u", job_ptr->job_id);
	if (e && !hived_job_exists(e, name))
		(void) _record_running(e, job_ptr);
	hived_ctld_unlock();
}

/*
 * A requeued job (preempted, scontrol requeue, node failure) no longer has the
 * cells its SystemComment names: say so until it is placed again. A preempted
 * one already says who took them (_victims_comment).
 */
static void _requeued_comment(job_record_t *job_ptr)
{
	const char *old = job_ptr->system_comment;
	char *text;

	if (!(job_ptr->job_state & JOB_REQUEUE) ||
	    !xstrncmp(old, "hived: preempted", 16))
		return;
	if (old && !xstrncmp(old, "hived: ", 7))
		old += 7;
	text = xstrdup_printf("requeued (was: %s)", old ? old : "-");
	hived_job_set_comment(job_ptr, text);
	xfree(text);
}

extern void hived_hook_job_fini(job_record_t *job_ptr)
{
	char name[24];
	hived_engine *e;
	pending_t *p;

	if (!running_in_slurmctld())
		return;
	hived_ctld_lock();
	if ((p = _pending_take(job_ptr->job_id)))
		_pending_free(p);
	hived_status_pending(job_ptr->job_id, NULL, NULL, NULL, 0);
	e = hived_ctld_engine();
	snprintf(name, sizeof(name), "%u", job_ptr->job_id);
	if (e && hived_job_exists(e, name)) {
		(void) hived_finish(e, name);
		if (_verbose())
			info("select/hived: %pJ released its cells", job_ptr);
		hived_job_say_promoted(e, name);
		hived_ctld_check("job_fini");
		_requeued_comment(job_ptr);
	}
	hived_ctld_unlock();
}

/*
 * Slurm's record of running jobs wins. At (re)start, job_init releases engine
 * jobs Slurm does not run; once Slurm has rebuilt each running job's node
 * bitmap it calls nodeinfo_set, where a job the engine lacks, or holds on other
 * GPUs, is recorded again from Slurm's allocation.
 */
extern void hived_hook_job_init(list_t *job_list)
{
	hived_engine *e;
	const char *const *names = NULL;
	char **copy;
	size_t n;
	int released = 0;

	if (!running_in_slurmctld())
		return;
	hived_ctld_lock();
	e = hived_ctld_engine();
	if (!e) {
		hived_ctld_unlock();
		return;
	}
	hived_ctld_sync_nodes();
	/* Copy first: finishing jobs invalidates the name array. */
	n = hived_job_list(e, &names);
	copy = xcalloc(n ? n : 1, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		copy[i] = xstrdup(names[i]);
	for (size_t i = 0; i < n; i++) {
		job_record_t *j = find_job_record ?
			find_job_record(strtoul(copy[i], NULL, 10)) : NULL;
		if (!j || !(IS_JOB_RUNNING(j) || IS_JOB_SUSPENDED(j))) {
			info("select/hived: state file had job %s, which Slurm does not run: released",
			     copy[i]);
			(void) hived_finish(e, copy[i]);
			released++;
		}
		xfree(copy[i]);
	}
	xfree(copy);
	if (released) {
		hived_ctld_check("job_init");
		hived_status_dirty();
	}
	hived_ctld_unlock();
}

extern void hived_hook_job_recovered(job_record_t *job_ptr)
{
	hived_engine *e;
	hived_pod *pods = NULL;
	size_t np = 0;
	char name[24];
	bool starting;

	if (!running_in_slurmctld() || !job_ptr ||
	    !(IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)))
		return;
	hived_ctld_lock();
	/* Once: a reconfigure's nodeinfo_set of the same job is no start. */
	starting = (job_ptr->job_id == begun_job_id);
	if (starting)
		begun_job_id = 0;
	e = hived_ctld_engine();
	if (!e || (hived_job_alloc_pods(job_ptr, &pods, &np) != SLURM_SUCCESS)) {
		hived_ctld_unlock();
		return;
	}
	snprintf(name, sizeof(name), "%u", job_ptr->job_id);
	if (!hived_job_matches(e, name, pods, np)) {
		if (hived_job_exists(e, name)) {
			info("select/hived: %pJ: state file disagrees with Slurm's record of its GPUs; Slurm's record wins",
			     job_ptr);
			(void) hived_finish(e, name);
		}
		/*
		 * At a start only a job cons_tres placed gets here: Slurm
		 * gives one that has its nodes exclusively every GPU of
		 * them, asked for or not.
		 */
		if (!_record_running(e, job_ptr))
			starting = false;	/* nothing recorded: nothing to say */
		else if (!starting)
			info("select/hived: %pJ: cells rebuilt from Slurm's record",
			     job_ptr);
		if (starting && _verbose())
			info("select/hived: %pJ: GPUs Slurm gave it with its nodes recorded as held",
			     job_ptr);
		hived_ctld_check("recovery");
		hived_status_dirty();
	}
	hived_job_pods_free(pods, np);
	hived_ctld_unlock();
}
