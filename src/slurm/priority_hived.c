/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * priority_hived.c - priority/hived: priority/multifactor plus HiveD's order.
 *
 * Everything multifactor computes stays (age, fair-share, job size, partition,
 * QOS, TRES, sprio). On top, every job gets HiveD's band (priority_order.h):
 * guaranteed jobs that fit their VC's free quota first, guaranteed jobs that do
 * not next, opportunistic jobs last, with the quota taken cumulatively per VC so
 * one VC flooding the queue cannot push another VC's in-quota jobs down.
 *
 * The band is added through the job's site factor (band x weight, the weight
 * exceeding the sum of the PriorityWeight* values), because multifactor adds the
 * site factor in every one of its computations, its decay thread's included, and
 * sprio shows it as SITE. An admin's SiteFactor stays underneath: we remember
 * what we added per job and only ever replace our own part.
 *
 * A job's class is select/hived's: priority/hived asks it in-process
 * (hived_verdict.h) for every job it bands, so both plugins follow the one
 * classification (hived_job_classify) and the one hived.conf in force. So are
 * the VCs' free quota (in leaf cells: a shard job counts as its fraction of a
 * GPU) and which running jobs HiveD holds as
 * opportunistic, asked when select/hived's engine changed (at most once a
 * second) by a thread of ours, which then re-bands the pending jobs and moves
 * running jobs that HiveD demoted (lazy preemption) to the opportunistic band,
 * so preempt/qos with PreemptMode WITHIN sees them as preemptable. Slurm loads
 * only the configured priority plugin, so multifactor is ours to init() and
 * fini() (its decay thread must stop before its code is
 * unmapped).
 */
#include "src/common/slurm_xlator.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "slurm_gen.h"
#include "src/common/list.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "hived_verdict.h"
#include "plugin_forward.h"
#include "priority_gen.h"
#include "priority_order.h"

const char plugin_name[] = "HiveD priority plugin (multifactor based)";
const char plugin_type[] = "priority/hived";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* slurmctld's; weak so that loading this plugin elsewhere cannot fail. */
extern list_t *job_list __attribute__((weak));
extern time_t last_job_update __attribute__((weak));


/*
 * What we added to a job's site factor, so that an admin's own SiteFactor (or
 * a site_factor plugin's) is kept underneath. Open addressing by job id.
 */
typedef struct {
	uint32_t job_id;	/* 0: empty slot */
	uint32_t site_set;	/* site_factor as we left it */
	uint32_t added;		/* our part of it */
	uint8_t seen;		/* in job_list during the last pass */
} applied_t;

/* Guards everything below; taken after slurmctld's job lock, never before. */
static pthread_mutex_t po_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t po_cond = PTHREAD_COND_INITIALIZER;
static applied_t *applied;
static size_t applied_cap, applied_used;
static bool applied_dirty;	/* changed since last written */
static hived_po_status status;
static bool have_status;
static int64_t *vc_left;		/* per status.vcs: leaf cells not yet promised */
static uint32_t band_weight = 1;
static pthread_t po_thread;
static bool po_running, po_stop, po_force;

static applied_t *_applied(uint32_t job_id, bool create)
{
	size_t mask, i;

	if (!applied_cap) {
		if (!create)
			return NULL;
		applied_cap = 1024;
		applied = xcalloc(applied_cap, sizeof(applied_t));
	}
	if (create && (applied_used + 1) * 2 > applied_cap) {
		applied_t *old = applied;
		size_t old_cap = applied_cap;

		applied_cap *= 2;
		applied = xcalloc(applied_cap, sizeof(applied_t));
		applied_used = 0;
		for (size_t k = 0; k < old_cap; k++)
			if (old[k].job_id)
				*_applied(old[k].job_id, true) = old[k];
		xfree(old);
	}
	mask = applied_cap - 1;
	for (i = (job_id * 2654435761u) & mask; applied[i].job_id;
	     i = (i + 1) & mask)
		if (applied[i].job_id == job_id)
			return &applied[i];
	if (!create)
		return NULL;
	applied[i].job_id = job_id;
	applied_used++;
	return &applied[i];
}

/* Keep only the jobs seen in the last pass (the table is rebuilt). */
static void _applied_prune(void)
{
	applied_t *old = applied;
	size_t old_cap = applied_cap;

	applied = NULL;
	applied_cap = applied_used = 0;
	for (size_t k = 0; k < old_cap; k++)
		if (old[k].job_id && old[k].seen) {
			applied_t *e = _applied(old[k].job_id, true);
			*e = old[k];
			e->seen = 0;
		}
	xfree(old);
}

/*
 * The table above outlives this slurmctld: a new one (a restart, or from 24.05
 * "scontrol reconfigure") recovers the jobs' site factors with our part in
 * them, and without the table would add the band a second time. The thread
 * writes the whole table after it changed (at most a second later) and at
 * fini; every change in between is also appended to a journal at once, so
 * that a new slurmctld forked within that second (a reconfigure right after a
 * submit, whose parent exits without fini) still knows it. The page cache
 * keeps an append across exec and kill -9 alike: no fsync on that path.
 * Read at start: the table, then the journal (its lines are whole entries,
 * the last one for a job wins).
 */
static int journal_fd = -1;
static bool journal_failed;

static char *_applied_path(const char *suffix)
{
	return xstrdup_printf("%s/hived_priority_bands%s",
			      slurm_conf.state_save_location ?
			      slurm_conf.state_save_location : ".", suffix);
}

/* Caller holds po_mutex. */
static void _journal_note(const applied_t *e)
{
	char line[64];
	int len;

	if (journal_fd < 0) {
		char *path = _applied_path(".journal");

		journal_fd = open(path, O_WRONLY | O_APPEND | O_CREAT |
				  O_NOFOLLOW | O_CLOEXEC, 0600);
		if ((journal_fd < 0) && !journal_failed) {
			error("%s: cannot open %s: %m; a band set in the last second before a new slurmctld starts may be added twice",
			      plugin_type, path);
			journal_failed = true;
		}
		xfree(path);
		if (journal_fd < 0)
			return;
	}
	len = snprintf(line, sizeof(line), "%u %u %u\n", e->job_id,
		       e->site_set, e->added);
	if ((write(journal_fd, line, len) != len) && !journal_failed) {
		error("%s: cannot append to the bands journal: %m",
		      plugin_type);
		journal_failed = true;
	}
}

/* Caller holds po_mutex. The table now has all the journal said. */
static void _journal_clear(void)
{
	if (journal_fd >= 0) {
		if (ftruncate(journal_fd, 0))
			error("%s: cannot empty the bands journal: %m",
			      plugin_type);
	} else {
		char *path = _applied_path(".journal");

		(void) unlink(path);
		xfree(path);
	}
}

/* Caller holds po_mutex. */
static void _applied_save(void)
{
	char *path = _applied_path(""), *tmp = _applied_path(".new");
	FILE *f;
	int fd;

	(void) unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if ((fd < 0) || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			(void) close(fd);
		error("%s: cannot write %s: %m", plugin_type, tmp);
		goto out;
	}
	for (size_t k = 0; k < applied_cap; k++)
		if (applied[k].job_id)
			fprintf(f, "%u %u %u\n", applied[k].job_id,
				applied[k].site_set, applied[k].added);
	if (fflush(f) || fsync(fileno(f)) || fclose(f) || rename(tmp, path)) {
		error("%s: cannot write %s: %m", plugin_type, path);
		(void) unlink(tmp);
	} else
		_journal_clear();
out:
	xfree(tmp);
	xfree(path);
}

/* Caller holds po_mutex. Entries "job site_set added", one per line. */
static void _applied_read(const char *suffix)
{
	char *path = _applied_path(suffix);
	FILE *f = fopen(path, "r");
	unsigned job_id, site_set, added;

	if (f) {
		while (fscanf(f, "%u %u %u", &job_id, &site_set, &added) == 3) {
			applied_t *e;

			if (!job_id || (added > site_set))
				continue;
			e = _applied(job_id, true);
			e->site_set = site_set;
			e->added = added;
			e->seen = 1;	/* kept until the first pass */
		}
		fclose(f);
	}
	xfree(path);
}

/* Caller holds po_mutex. */
static void _applied_load(void)
{
	_applied_read("");
	_applied_read(".journal");
}

/* Set our part of the site factor to `add`. RET true if it changed. */
static bool _apply(job_record_t *job_ptr, uint32_t add)
{
	applied_t *e = _applied(job_ptr->job_id, true);
	uint32_t base = job_ptr->site_factor;
	uint64_t want;

	/* Unchanged since we set it: our part comes off; else it is all the admin's. */
	if (e->site_set && job_ptr->site_factor == e->site_set)
		base = e->site_set - e->added;
	want = (uint64_t) base + add;
	if (want > UINT32_MAX)
		want = UINT32_MAX;
	e->seen = 1;
	if (e->site_set && (job_ptr->site_factor == e->site_set) &&
	    (e->added == (uint32_t) (want - base)))
		return false;
	e->added = (uint32_t) (want - base);
	e->site_set = (uint32_t) want;
	applied_dirty = true;
	job_ptr->site_factor = (uint32_t) want;
	_journal_note(e);
	return true;
}

/*
 * select/hived in this slurmctld, reached through our own handle on its loaded
 * select_hived.so (Slurm dlopen()s plugins RTLD_LOCAL). Guards the five below;
 * taken before po_mutex and select/hived's own lock, never after.
 */
static pthread_mutex_t select_mutex = PTHREAD_MUTEX_INITIALIZER;
static hived_fwd_t select_so;
static hived_select_verdict_f select_verdict;
static hived_select_view_f select_view;
static bool select_failed;

static bool _find_select_hived(void)
{
	if (select_verdict)
		return true;
	if (select_failed)
		return false;
	if (xstrcmp(slurm_conf.select_type, "select/hived")) {
		error("%s: SelectType is %s, not select/hived: there is no HiveD config, so every job gets the same band",
		      plugin_type, slurm_conf.select_type);
		select_failed = true;
		return false;
	}
	if (hived_fwd_open(&select_so, "select_hived.so"))
		return false;
	if (select_so.loaded_here) {
		/* Not slurmctld's copy: its engine would be none. */
		hived_fwd_close(&select_so);
		return false;
	}
	select_verdict = dlsym(select_so.handle, "hived_select_verdict");
	select_view = dlsym(select_so.handle, "hived_select_view");
	if (!select_verdict || !select_view) {
		error("%s: %s has no hived_select_verdict/hived_select_view (an older select/hived?); every job gets the same band",
		      plugin_type, select_so.path);
		hived_fwd_close(&select_so);
		select_verdict = NULL;
		select_view = NULL;
		select_failed = true;
		return false;
	}
	return true;
}

/*
 * Caller holds po_mutex and the job lock. The job as select/hived classifies
 * it; j->vc points into status (valid while it is).
 */
static void _describe(job_record_t *job_ptr, hived_po_job *j)
{
	hived_verdict_t v = { 0 };
	const hived_po_vc *vc;

	memset(j, 0, sizeof(*j));
	j->job_id = job_ptr->job_id;
	j->guaranteed = 1;
	if (select_verdict)
		select_verdict(job_ptr, &v);
	switch (v.kind) {
	case HIVED_VERDICT_NOT_HIVED:
		break;	/* gpus 0: not HiveD's, band FITS */
	case HIVED_VERDICT_GUARANTEED:
		vc = hived_po_find_vc(&status, v.vc);
		j->gpus = v.gpus;
		j->fractions = v.fractions;
		j->vc = vc ? vc->name : NULL;
		break;
	case HIVED_VERDICT_OPPORTUNISTIC:
	case HIVED_VERDICT_REFUSED:
		/* Refused: it never runs; last, with opportunistic work. */
		j->gpus = v.gpus;
		j->fractions = v.fractions;
		j->guaranteed = 0;
		break;
	}
	xfree(v.vc);
}

/* Caller holds po_mutex. A job's band when placed alone (at submit). */
static hived_band_t _band_now(job_record_t *job_ptr)
{
	hived_po_job j;

	_describe(job_ptr, &j);
	if (!j.gpus && !j.fractions)
		return HIVED_BAND_FITS;
	if (!j.guaranteed)
		return HIVED_BAND_OPPORTUNISTIC;
	if (!j.vc)
		return HIVED_BAND_FITS;
	for (size_t i = 0; i < status.n_vcs; i++)
		if (!xstrcasecmp(status.vcs[i].name, j.vc))
			return (hived_po_demand(&status.vcs[i], &j) <=
				vc_left[i]) ? HIVED_BAND_FITS :
			       HIVED_BAND_WAITS;
	return HIVED_BAND_FITS;
}

/*
 * Caller holds po_mutex. A running job stays in the FITS band unless HiveD holds
 * it as opportunistic (asked so, or lazy-preempted): then guaranteed jobs of the
 * same QOS outrank it, which preempt/qos with WITHIN needs to offer it as a victim.
 */
static hived_band_t _band_running(job_record_t *job_ptr)
{
	char id[16];

	snprintf(id, sizeof(id), "%u", job_ptr->job_id);
	return hived_po_job_opportunistic(&status, id) ?
	       HIVED_BAND_OPPORTUNISTIC : HIVED_BAND_FITS;
}

static uint32_t _weight_sum(void)
{
	uint64_t sum = (uint64_t) slurm_conf.priority_weight_age +
		       slurm_conf.priority_weight_assoc +
		       slurm_conf.priority_weight_fs +
		       slurm_conf.priority_weight_js +
		       slurm_conf.priority_weight_part +
		       slurm_conf.priority_weight_qos;
	const char *t = slurm_conf.priority_weight_tres;

	/* "CPU=1000,Mem=2000,GRES/gpu=3000" */
	while (t && (t = strchr(t, '='))) {
		sum += (uint64_t) strtod(t + 1, NULL);
		t++;
	}
	return (sum > UINT32_MAX) ? UINT32_MAX : (uint32_t) sum;
}

/* At start and on reconfigure: PriorityWeight* (and a new look at select/hived). */
static void _load_conf(void)
{
	slurm_mutex_lock(&po_mutex);
	band_weight = hived_po_weight(_weight_sum());
	po_force = true;
	slurm_mutex_unlock(&po_mutex);
	slurm_mutex_lock(&select_mutex);
	(void) _find_select_hived();
	slurm_mutex_unlock(&select_mutex);
}

/*
 * select/hived's quota view, if its engine changed since *gen (or its
 * hived.conf: a reload changes classes too). RET true if it did.
 */
static bool _refresh_view(uint64_t *gen)
{
	hived_po_status fresh = { 0 };
	int rc;

	slurm_mutex_lock(&select_mutex);
	if (!_find_select_hived()) {
		slurm_mutex_unlock(&select_mutex);
		return false;
	}
	rc = select_view(gen, &fresh);
	slurm_mutex_unlock(&select_mutex);
	if (!rc || ((rc < 0) && !have_status))
		return false;
	slurm_mutex_lock(&po_mutex);
	hived_po_status_free(&status);
	status = fresh;
	have_status = (rc > 0);
	xfree(vc_left);
	vc_left = xcalloc(status.n_vcs + 1, sizeof(int64_t));
	for (size_t i = 0; i < status.n_vcs; i++)
		vc_left[i] = status.vcs[i].free_leaves;
	slurm_mutex_unlock(&po_mutex);
	return true;
}

/* Recompute a job's priority the way slurmctld would, with its new factor. */
static void _reprioritize(job_record_t *job_ptr)
{
	if (!job_ptr->priority || job_ptr->direct_set_prio)
		return;	/* held, or set by an admin: leave it */
	job_ptr->priority = hived_multifactor_set(job_ptr->priority, job_ptr);
}

/* Caller holds the job write lock and po_mutex. RET jobs changed. */
static int _pass(void)
{
	list_itr_t *it;
	job_record_t *job_ptr;
	hived_po_job *jobs;
	job_record_t **recs;
	size_t n = 0, cap = list_count(job_list) + 1;
	int changed = 0;

	jobs = xcalloc(cap, sizeof(*jobs));
	recs = xcalloc(cap, sizeof(*recs));
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it)) && n < cap) {
		applied_t *e;

		if (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)) {
			if (have_status &&
			    _apply(job_ptr, band_weight * _band_running(job_ptr))) {
				_reprioritize(job_ptr);
				changed++;
			} else if ((e = _applied(job_ptr->job_id, false))) {
				e->seen = 1;
			}
			continue;
		}
		if (!IS_JOB_PENDING(job_ptr))
			continue;
		_describe(job_ptr, &jobs[n]);
		e = _applied(job_ptr->job_id, false);
		jobs[n].base = (double) job_ptr->priority -
			       (e && job_ptr->site_factor == e->site_set ?
				e->added : 0);
		recs[n++] = job_ptr;
	}
	list_iterator_destroy(it);

	hived_po_order(have_status ? &status : NULL, jobs, n);
	for (size_t i = 0; i < status.n_vcs; i++)
		vc_left[i] = status.vcs[i].free_leaves;
	for (size_t k = 0; k < n; k++) {
		if (jobs[k].band == HIVED_BAND_FITS && jobs[k].vc &&
		    jobs[k].guaranteed)
			for (size_t i = 0; i < status.n_vcs; i++)
				if (!xstrcasecmp(status.vcs[i].name, jobs[k].vc))
					vc_left[i] -= hived_po_demand(
						&status.vcs[i], &jobs[k]);
		if (_apply(recs[k], band_weight * jobs[k].band)) {
			_reprioritize(recs[k]);
			changed++;
		}
	}
	xfree(jobs);
	xfree(recs);
	_applied_prune();
	return changed;
}

static void *_po_thread(void *arg)
{
	/* Job write (priorities), node and partition read: as multifactor's decay. */
	slurmctld_lock_t job_write_lock = {
		NO_LOCK, WRITE_LOCK, READ_LOCK, READ_LOCK, NO_LOCK };
	time_t seen_update = 0;
	uint64_t view_gen = 0;

	for (;;) {
		struct timespec ts;
		bool status_changed, force;

		slurm_mutex_lock(&po_mutex);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		if (!po_stop)
			pthread_cond_timedwait(&po_cond, &po_mutex, &ts);
		if (po_stop) {
			slurm_mutex_unlock(&po_mutex);
			break;
		}
		slurm_mutex_unlock(&po_mutex);

		/* select/hived may load hived.conf after our init, or on a sacctmgr change. */
		status_changed = _refresh_view(&view_gen);
		slurm_mutex_lock(&po_mutex);
		force = po_force;
		po_force = false;
		slurm_mutex_unlock(&po_mutex);
		if (!status_changed && !force && (last_job_update == seen_update))
			continue;

		lock_slurmctld(job_write_lock);
		slurm_mutex_lock(&po_mutex);
		if (_pass()) {
			last_job_update = time(NULL);
			debug2("%s: HiveD bands updated", plugin_type);
		}
		if (applied_dirty) {
			_applied_save();
			applied_dirty = false;
		}
		slurm_mutex_unlock(&po_mutex);
		seen_update = last_job_update;
		unlock_slurmctld(job_write_lock);
	}
	return NULL;
}

extern int init(void)
{
	if (hived_multifactor_open())
		return SLURM_ERROR;
	if (running_in_slurmctld() && job_list && &last_job_update) {
		_load_conf();
		slurm_mutex_lock(&po_mutex);
		_applied_load();
		slurm_mutex_unlock(&po_mutex);
		po_stop = false;
		if (pthread_create(&po_thread, NULL, _po_thread, NULL))
			error("%s: no thread: %m; HiveD bands only at submit",
			      plugin_type);
		else
			po_running = true;
	}
	verbose("%s loaded (multifactor + HiveD bands, weight %u)",
		plugin_type, band_weight);
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	if (po_running) {
		slurm_mutex_lock(&po_mutex);
		po_stop = true;
		pthread_cond_broadcast(&po_cond);
		slurm_mutex_unlock(&po_mutex);
		pthread_join(po_thread, NULL);
		po_running = false;
		/* What priority_p_set changed since the thread's last write. */
		slurm_mutex_lock(&po_mutex);
		if (applied_dirty)
			_applied_save();
		applied_dirty = false;
		slurm_mutex_unlock(&po_mutex);
	}
	hived_multifactor_close();
	slurm_mutex_lock(&select_mutex);
	if (select_verdict)
		hived_fwd_close(&select_so);
	select_verdict = NULL;
	select_view = NULL;
	select_failed = false;
	slurm_mutex_unlock(&select_mutex);
	slurm_mutex_lock(&po_mutex);
	hived_po_status_free(&status);
	have_status = false;
	xfree(vc_left);
	xfree(applied);
	applied_cap = applied_used = 0;
	if (journal_fd >= 0)
		(void) close(journal_fd);
	journal_fd = -1;
	journal_failed = false;
	slurm_mutex_unlock(&po_mutex);
	return SLURM_SUCCESS;
}

/* Called with the job write lock held (submit, requeue, release, update). */
extern uint32_t priority_p_set(uint32_t last_prio, job_record_t *job_ptr)
{
	if (po_running) {
		hived_band_t band;

		slurm_mutex_lock(&po_mutex);
		band = (IS_JOB_PENDING(job_ptr)) ? _band_now(job_ptr) :
		       _band_running(job_ptr);
		(void) _apply(job_ptr, band_weight * band);
		slurm_mutex_unlock(&po_mutex);
	}
	return hived_multifactor_set(last_prio, job_ptr);
}

extern void priority_p_reconfig(bool assoc_clear)
{
	hived_multifactor_reconfig(assoc_clear);
	if (po_running)
		_load_conf();
}
