/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_status.c - writing hived_status.json from a thread of its own.
 *
 * Lock order: hived_ctld_lock() before status_mutex, everywhere.
 */
#include "src/common/slurm_xlator.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "hived_ctld.h"
#include "slurm_gen.h"
#include "hived_status.h"
#include "latency_hist.h"
#include "wait_history.h"

#define MAX_PENDING 10000

typedef struct {
	uint32_t job_id;
	char *vc;
	const char *job_class;	/* a literal */
	char *reason;
	wait_history_t hist;
} pending_t;

static pthread_mutex_t status_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t status_cond = PTHREAD_COND_INITIALIZER;
static pthread_t writer;
static bool running = false, stopping = false, dirty = false;
/* Counts changes (each sets dirty): priority/hived's cue to look again. */
static uint64_t generation = 0;

static pending_t *pending = NULL;
static int n_pending = 0;

/*
 * Jobs refused outright: Slurm deletes a job refused at submit and tells sbatch
 * only "Requested node configuration is not available", so the reason lives
 * here (the last REFUSED_KEPT of them) for hivedctl job.
 */
#define REFUSED_KEPT 64
static struct {
	uint32_t job_id;
	char *vc, *reason;
	time_t when;
} refused[REFUSED_KEPT];
static int refused_next = 0;

/*
 * How long the last STARTED_KEPT jobs to start waited, by cause, for hivedctl
 * job (slurmctld.log has every one: hived_status_started).
 */
#define STARTED_KEPT 256
static struct {
	uint32_t job_id;
	time_t when;
	wait_history_t hist;
} started[STARTED_KEPT];
static int started_next = 0;

/* The last load of hived.conf (or of sacctmgr limits): refused, and why. */
static char *reload_refused = NULL;
static time_t reload_time = 0;
/* Every job_test since slurmctld started (a window hid slow phases). */
static latency_hist_t job_test_us;
/* The same calls less the time cons_tres took in them: HiveD's own share. */
static latency_hist_t job_test_own_us;
/* How long the writer held the plugin's lock (the engine copy) each time. */
static latency_hist_t writer_lock_us;
/* The own share by phase; names as in the file's timing keys. */
static latency_hist_t phase_us[HIVED_PHASE_N];
static const char *const phase_key[HIVED_PHASE_N] = {
	"Lock", "Sync", "Build", "Engine", "Steer", "Rest"
};
/* CPU time of the own share and of the engine; involuntary switches a call. */
static latency_hist_t job_test_own_cpu_us, engine_cpu_us, job_test_ivcsw;
/*
 * Backfill's WILL_RUN questions: answered by a trial on the engine (running
 * jobs ended and put back; what a slow one costs) or from its memo.
 */
static uint64_t n_trials, n_memo_answers, n_trial_ended, n_by_guarantee;
static latency_hist_t trial_ended;
/*
 * Calls whose own share passed the 1 ms target, and for each phase those in
 * which it was the longest: a p99 of the sum above every phase's p99 means
 * the phases' slow calls are different calls.
 */
#define OVER_US 1000
static uint64_t n_over, n_over_by[HIVED_PHASE_N];
/* The last slow calls, as logged. */
#define SLOW_KEPT 16
static char *slow[SLOW_KEPT];
static int slow_next = 0;
static uint64_t n_killed = 0, n_lazy = 0, n_borrowed = 0, n_promoted = 0;
static bool borrowing = false;	/* hived_status_set_borrowing() */
static char *settings = NULL;	/* hived_status_set_settings(): a JSON object */

/* 25.05+: no state_save hook, the writer keeps the state file current too. */
static bool save_state = false;

extern void hived_status_save_state(bool on)
{
	slurm_mutex_lock(&status_mutex);
	save_state = on;
	slurm_mutex_unlock(&status_mutex);
}

extern uint64_t hived_status_generation(void)
{
	uint64_t g;

	slurm_mutex_lock(&status_mutex);
	g = generation;
	slurm_mutex_unlock(&status_mutex);
	return g;
}

extern void hived_status_dirty(void)
{
	slurm_mutex_lock(&status_mutex);
	dirty = true;
	generation++;
	slurm_mutex_unlock(&status_mutex);
}

static int _pending_find(uint32_t job_id)
{
	for (int i = 0; i < n_pending; i++)
		if (pending[i].job_id == job_id)
			return i;
	return -1;
}

static void _pending_drop(int i)
{
	xfree(pending[i].vc);
	xfree(pending[i].reason);
	pending[i] = pending[--n_pending];
}

extern void hived_status_pending(uint32_t job_id, const char *vc,
				 const char *job_class, const char *reason,
				 wait_cause_t cause)
{
	time_t now = time(NULL);
	int i;

	slurm_mutex_lock(&status_mutex);
	i = _pending_find(job_id);
	if ((i >= 0) && reason) {
		/* The history goes on whatever the words say now. */
		wait_history_note(&pending[i].hist, cause, now);
		if (!xstrcmp(pending[i].reason, reason)) {
			slurm_mutex_unlock(&status_mutex);
			return;
		}
		xfree(pending[i].vc);
		xfree(pending[i].reason);
		pending[i].vc = xstrdup(vc);
		pending[i].job_class = job_class;
		pending[i].reason = xstrdup(reason);
	} else if (i >= 0) {
		_pending_drop(i);
	} else if (reason && n_pending < MAX_PENDING) {
		xrecalloc(pending, n_pending + 1, sizeof(pending_t));
		/*
		 * xrecalloc zeroes only memory it adds: a slot _pending_drop()
		 * freed still holds the moved entry, whose history the next
		 * waiting job would go on from.
		 */
		memset(&pending[n_pending], 0, sizeof(pending[n_pending]));
		pending[n_pending].job_id = job_id;
		pending[n_pending].vc = xstrdup(vc);
		pending[n_pending].job_class = job_class;
		pending[n_pending].reason = xstrdup(reason);
		wait_history_note(&pending[n_pending].hist, cause, now);
		n_pending++;
	}
	dirty = true;
	generation++;
	slurm_mutex_unlock(&status_mutex);
}

extern bool hived_status_started(uint32_t job_id, uint32_t array_job_id,
				 char *buf, size_t size)
{
	time_t now = time(NULL);
	wait_history_t hist;
	int i, k;

	if (size)
		buf[0] = '\0';
	slurm_mutex_lock(&status_mutex);
	/* An array task waited as its array did; the array's entry stays. */
	if (((i = _pending_find(job_id)) < 0) && array_job_id &&
	    (array_job_id != job_id))
		i = _pending_find(array_job_id);
	if ((i < 0) || !pending[i].hist.first) {
		slurm_mutex_unlock(&status_mutex);
		return false;
	}
	hist = pending[i].hist;
	if (pending[i].job_id == job_id)
		_pending_drop(i);
	for (k = 0; k < STARTED_KEPT; k++)
		if (started[k].job_id == job_id)
			break;
	if (k == STARTED_KEPT) {
		k = started_next;
		started_next = (started_next + 1) % STARTED_KEPT;
	}
	started[k].job_id = job_id;
	started[k].when = now;
	started[k].hist = hist;
	dirty = true;
	generation++;
	slurm_mutex_unlock(&status_mutex);
	wait_history_text(&hist, now, buf, size);
	return true;
}

extern bool hived_status_refused(uint32_t job_id, const char *vc,
				 const char *reason)
{
	int i;

	if (!reason)
		reason = "refused";
	slurm_mutex_lock(&status_mutex);
	for (i = 0; i < REFUSED_KEPT; i++)
		if (refused[i].job_id == job_id && refused[i].reason)
			break;
	if (i < REFUSED_KEPT && !xstrcmp(refused[i].reason, reason)) {
		slurm_mutex_unlock(&status_mutex);
		return false;
	}
	if (i == REFUSED_KEPT) {
		i = refused_next;
		refused_next = (refused_next + 1) % REFUSED_KEPT;
	}
	xfree(refused[i].vc);
	xfree(refused[i].reason);
	refused[i].job_id = job_id;
	refused[i].vc = xstrdup(vc);
	refused[i].reason = xstrdup(reason);
	refused[i].when = time(NULL);
	dirty = true;
	generation++;
	slurm_mutex_unlock(&status_mutex);
	return true;
}

extern void hived_status_reload(const char *refused_reason)
{
	slurm_mutex_lock(&status_mutex);
	xfree(reload_refused);
	reload_refused = xstrdup(refused_reason);
	reload_time = time(NULL);
	dirty = true;
	generation++;
	slurm_mutex_unlock(&status_mutex);
}

extern void hived_status_job_test(const hived_job_test_time_t *t)
{
	slurm_mutex_lock(&status_mutex);
	latency_hist_add(&job_test_us, t->usec);
	latency_hist_add(&job_test_own_us, t->own_usec);
	latency_hist_add(&job_test_own_cpu_us, t->own_cpu_usec);
	latency_hist_add(&engine_cpu_us, t->engine_cpu_usec);
	latency_hist_add(&job_test_ivcsw, t->ivcsw);
	n_trials += t->trials;
	n_by_guarantee += t->by_guarantee;
	n_memo_answers += t->memo_answers;
	n_trial_ended += t->trial_ended;
	if (t->trials)	/* a call asks about one job: one trial at most */
		latency_hist_add(&trial_ended, t->trial_ended);
	for (int i = 0; i < HIVED_PHASE_N; i++)
		latency_hist_add(&phase_us[i], t->phase_usec[i]);
	if (t->own_usec > OVER_US) {
		int top = 0;

		for (int i = 1; i < HIVED_PHASE_N; i++)
			if (t->phase_usec[i] > t->phase_usec[top])
				top = i;
		n_over++;
		n_over_by[top]++;
	}
	slurm_mutex_unlock(&status_mutex);
}

extern void hived_status_slow_job_test(const char *text)
{
	slurm_mutex_lock(&status_mutex);
	xfree(slow[slow_next]);
	slow[slow_next] = xstrdup(text);
	slow_next = (slow_next + 1) % SLOW_KEPT;
	slurm_mutex_unlock(&status_mutex);
}

extern void hived_status_set_borrowing(bool on)
{
	slurm_mutex_lock(&status_mutex);
	borrowing = on;
	dirty = true;
	slurm_mutex_unlock(&status_mutex);
}

extern void hived_status_count_borrowed(void)
{
	slurm_mutex_lock(&status_mutex);
	n_borrowed++;
	dirty = true;
	generation++;
	slurm_mutex_unlock(&status_mutex);
}

extern void hived_status_count_promoted(int n)
{
	slurm_mutex_lock(&status_mutex);
	n_promoted += n;
	dirty = true;
	generation++;
	slurm_mutex_unlock(&status_mutex);
}

extern void hived_status_count_preempt(int killed, int lazy)
{
	slurm_mutex_lock(&status_mutex);
	n_killed += killed;
	n_lazy += lazy;
	dirty = true;
	generation++;
	slurm_mutex_unlock(&status_mutex);
}

/*
 * The engine's part of the file, from a copy of the engine: no lock held, so
 * the O(cluster) JSON costs no scheduling call any wait. xstrcatat keeps the
 * appends linear (xstrcat measures the whole string at each one).
 */
static char *_compose_engine(hived_engine *e, const char *config_text)
{
	char *out = NULL, *pos = NULL, *part = NULL;
	const char *const *names = NULL;
	size_t n;
	bool borrow;
	char *slurm = NULL;

	/* The writer thread calls this unlocked; a reload sets both. */
	slurm_mutex_lock(&status_mutex);
	borrow = borrowing;
	slurm = xstrdup(settings);
	slurm_mutex_unlock(&status_mutex);
	/* The release the plugin runs under (plugins are built for exactly one). */
	/* Whether guaranteed jobs may borrow idle GPUs: hivedctl whatif asks the same. */
	xstrfmtcatat(out, &pos, "{\"version\":1,\"written\":%ld,\"slurmVersion\":\"%s\",\"borrowIdleCells\":%s,",
		     (long) time(NULL), HIVED_SLURM_VERSION_STRING,
		     borrow ? "true" : "false");
	/* The "slurm" settings whatif needs beside the engine's config. */
	if (slurm)
		xstrfmtcatat(out, &pos, "\"slurm\":%s,", slurm);
	xfree(slurm);
	xstrcatat(out, &pos, "\"cluster\":");
	if (hived_inspect(e, NULL, &part) == HIVED_OK)
		xstrcatat(out, &pos, part);
	else
		xstrcatat(out, &pos, "null");
	free(part);
	part = NULL;
	/*
	 * The effective config, so that hivedctl whatif can rebuild the engine
	 * as any user (the state file is SlurmUser's) and sees a reload at once.
	 */
	if (config_text) {
		xstrcatat(out, &pos, ",\"config\":");
		xstrcatat(out, &pos, config_text);
	}
	xstrcatat(out, &pos, ",\"topology\":");
	if (hived_inspect_topology(e, &part) == HIVED_OK)
		xstrcatat(out, &pos, part);
	else
		xstrcatat(out, &pos, "null");
	free(part);
	part = NULL;
	xstrcatat(out, &pos, ",\"jobs\":[");
	n = hived_job_list(e, &names);
	for (size_t i = 0; i < n; i++) {
		if (hived_inspect_job(e, names[i], &part) != HIVED_OK)
			continue;
		if (i)
			xstrcatat(out, &pos, ",");
		xstrcatat(out, &pos, part);
		free(part);
		part = NULL;
	}
	xstrcatat(out, &pos, "]");
	return out;
}

/* A JSON string at *pos (appends stay linear in the file's length). */
static void _json_str_at(char **out, char **pos, const char *s)
{
	char c[8];

	xstrcatat(*out, pos, "\"");
	for (; s && *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			snprintf(c, sizeof(c), "\\%c", ch);
		else if (ch < 0x20)
			snprintf(c, sizeof(c), "\\u%04x", ch);
		else
			snprintf(c, sizeof(c), "%c", ch);
		xstrcatat(*out, pos, c);
	}
	xstrcatat(*out, pos, "\"");
}

extern void hived_status_set_settings(const hived_settings *s)
{
	char *out = NULL, *pos = NULL;

	if (s) {
		xstrcatat(out, &pos, "{\"opportunisticQos\":[");
		for (size_t i = 0; i < s->n_opportunistic_qos; i++) {
			if (i)
				xstrcatat(out, &pos, ",");
			_json_str_at(&out, &pos, s->opportunistic_qos[i]);
		}
		xstrfmtcatat(out, &pos, "],\"accountsWithoutCells\":\"%s\",\"jobsLargerThanVc\":\"%s\",\"splitCountOnlyJobs\":%s,\"priorityScale\":%d}",
			     s->accounts_without_cells_reject ?
			     "reject" : "opportunistic",
			     s->larger_than_vc_reject ? "reject" : "wait",
			     s->split_count_only_jobs ? "true" : "false",
			     s->priority_scale);
	}
	slurm_mutex_lock(&status_mutex);
	xfree(settings);
	settings = out;
	dirty = true;
	slurm_mutex_unlock(&status_mutex);
}

/* ,"<name>P50<unit>":..,"<name>P99<unit>":..,"<name>Max<unit>":.. */
static void _hist_at(char **out, char **pos, const char *name,
		     const latency_hist_t *h, const char *unit)
{
	xstrfmtcatat(*out, pos, ",\"%sP50%s\":%"PRIu64",\"%sP99%s\":%"PRIu64
		     ",\"%sMax%s\":%"PRIu64,
		     name, unit, latency_hist_quantile(h, 0.5),
		     name, unit, latency_hist_quantile(h, 0.99),
		     name, unit, h->max);
}

/*
 * ,"waitingSince":T,"waitedSecs":N,"waited":{"vcQuota":40,...}, and for a job
 * still waiting ,"waitingFor":"cells": the file is written on changes only, so
 * hivedctl adds the time since it was written to that cause.
 */
static void _history_json_at(char **out, char **pos, const wait_history_t *h,
			     time_t now, bool waiting)
{
	char buf[256];

	wait_history_json(h, now, buf, sizeof(buf));
	xstrfmtcatat(*out, pos, ",\"waitingSince\":%ld,\"waitedSecs\":%u,\"waited\":%s",
		     (long) h->first, wait_history_total(h, now), buf);
	if (waiting)
		xstrfmtcatat(*out, pos, ",\"waitingFor\":\"%s\"",
			     wait_cause_key(wait_history_current(h, now)));
}

/* The plugin's own part of the file. Caller holds status_mutex. */
static char *_compose_plugin(size_t engine_bytes)
{
	char *out = NULL, *pos = NULL;
	time_t now = time(NULL);
	const latency_hist_t *jt = &job_test_us, *own = &job_test_own_us;

	xstrcatat(out, &pos, ",\"pending\":[");
	for (int i = 0; i < n_pending; i++) {
		xstrfmtcatat(out, &pos, "%s{\"job\":\"%u\",\"vc\":",
			     i ? "," : "", pending[i].job_id);
		_json_str_at(&out, &pos, pending[i].vc);
		xstrcatat(out, &pos, ",\"class\":");
		_json_str_at(&out, &pos, pending[i].job_class);
		xstrcatat(out, &pos, ",\"reason\":");
		_json_str_at(&out, &pos, pending[i].reason);
		_history_json_at(&out, &pos, &pending[i].hist, now, true);
		xstrcatat(out, &pos, "}");
	}
	xstrcatat(out, &pos, "],\"started\":[");
	/* Oldest first, as refused below. */
	for (int k = 0, first = 1; k < STARTED_KEPT; k++) {
		int i = (started_next + k) % STARTED_KEPT;

		if (!started[i].job_id)
			continue;
		xstrfmtcatat(out, &pos, "%s{\"job\":\"%u\",\"time\":%ld",
			     first ? "" : ",", started[i].job_id,
			     (long) started[i].when);
		_history_json_at(&out, &pos, &started[i].hist, started[i].when,
				 false);
		xstrcatat(out, &pos, "}");
		first = 0;
	}
	xstrcatat(out, &pos, "],\"refused\":[");
	/* Oldest first: the ring from the slot written next. */
	for (int k = 0, first = 1; k < REFUSED_KEPT; k++) {
		int i = (refused_next + k) % REFUSED_KEPT;

		if (!refused[i].reason)
			continue;
		xstrfmtcatat(out, &pos, "%s{\"job\":\"%u\",\"time\":%ld,\"vc\":",
			     first ? "" : ",", refused[i].job_id,
			     (long) refused[i].when);
		_json_str_at(&out, &pos, refused[i].vc);
		xstrcatat(out, &pos, ",\"reason\":");
		_json_str_at(&out, &pos, refused[i].reason);
		xstrcatat(out, &pos, "}");
		first = 0;
	}
	xstrfmtcatat(out, &pos, "],\"lastReload\":{\"time\":%ld,\"refused\":%s",
		     (long) reload_time, reload_refused ? "true" : "false");
	if (reload_refused) {
		xstrcatat(out, &pos, ",\"reason\":");
		_json_str_at(&out, &pos, reload_refused);
	}
	xstrcatat(out, &pos, "}");
	xstrfmtcatat(out, &pos, ",\"timing\":{\"jobTestCalls\":%"PRIu64
		     ",\"jobTestMeanUs\":%.1f,\"jobTestP50Us\":%"PRIu64
		     ",\"jobTestP99Us\":%"PRIu64",\"jobTestMaxUs\":%"PRIu64
		     ",\"jobTestOwnMeanUs\":%.1f,\"jobTestOwnP50Us\":%"PRIu64
		     ",\"jobTestOwnP99Us\":%"PRIu64",\"jobTestOwnMaxUs\":%"PRIu64
		     ",\"statusLockMeanUs\":%.1f,\"statusLockMaxUs\":%"PRIu64,
		     jt->n, jt->n ? (double) jt->sum / jt->n : 0.0,
		     latency_hist_quantile(jt, 0.5),
		     latency_hist_quantile(jt, 0.99), jt->max,
		     own->n ? (double) own->sum / own->n : 0.0,
		     latency_hist_quantile(own, 0.5),
		     latency_hist_quantile(own, 0.99), own->max,
		     writer_lock_us.n ?
		     (double) writer_lock_us.sum / writer_lock_us.n : 0.0,
		     writer_lock_us.max);
	_hist_at(&out, &pos, "jobTestOwnCpu", &job_test_own_cpu_us, "Us");
	_hist_at(&out, &pos, "jobTestIvcsw", &job_test_ivcsw, "");
	xstrfmtcatat(out, &pos, ",\"jobTestOwnOver1msCalls\":%"PRIu64, n_over);
	for (int i = 0; i < HIVED_PHASE_N; i++) {
		char name[32];

		snprintf(name, sizeof(name), "phase%s", phase_key[i]);
		_hist_at(&out, &pos, name, &phase_us[i], "Us");
		xstrfmtcatat(out, &pos, ",\"%sOver1msCalls\":%"PRIu64, name,
			     n_over_by[i]);
	}
	_hist_at(&out, &pos, "phaseEngineCpu", &engine_cpu_us, "Us");
	xstrfmtcatat(out, &pos, ",\"willRunTrials\":%"PRIu64
		     ",\"willRunByGuarantee\":%"PRIu64
		     ",\"willRunMemoAnswers\":%"PRIu64
		     ",\"willRunTrialEndedJobs\":%"PRIu64,
		     n_trials, n_by_guarantee, n_memo_answers, n_trial_ended);
	_hist_at(&out, &pos, "willRunTrialEnded", &trial_ended, "");
	xstrcatat(out, &pos, "},\"slowJobTests\":[");
	/* Oldest first, as in refused. */
	for (int k = 0, first = 1; k < SLOW_KEPT; k++) {
		int i = (slow_next + k) % SLOW_KEPT;

		if (!slow[i])
			continue;
		xstrcatat(out, &pos, first ? "" : ",");
		_json_str_at(&out, &pos, slow[i]);
		first = 0;
	}
	xstrcatat(out, &pos, "]");
	xstrfmtcatat(out, &pos, ",\"counters\":{\"preemptions\":%"
		     PRIu64",\"lazyPreemptions\":%"PRIu64","
		     "\"borrowedStarts\":%"PRIu64",\"promotions\":%"PRIu64"},"
		     "\"memory\":{\"engineBytes\":%zu}}\n",
		     n_killed, n_lazy, n_borrowed, n_promoted, engine_bytes);
	return out;
}

/*
 * With PrivateData hiding jobs, accounts or usage, squeue and sacctmgr show a
 * user only their own; the status file names every job, its VC and its GPUs,
 * so it is then kept to SlurmUser (and root), like the state file.
 */
static mode_t _status_mode(void)
{
	return (slurm_conf.private_data &
		(PRIVATE_DATA_JOBS | PRIVATE_DATA_ACCOUNTS |
		 PRIVATE_DATA_USAGE)) ? 0600 : 0644;
}

static void _write(const char *text)
{
	static mode_t last_mode = 0;
	char *path, *tmp;
	int fd;
	size_t len = strlen(text), done = 0;
	mode_t mode = _status_mode();

	path = xstrdup_printf("%s/hived_status.json",
			      slurm_conf.state_save_location ?
			      slurm_conf.state_save_location : ".");
	tmp = xstrdup_printf("%s.new", path);
	/*
	 * A fresh file, never one that is already there (a leftover with a wider
	 * mode, or a symlink planted by whoever can write the directory).
	 */
	(void) unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  mode);
	if (fd < 0) {
		error("select/hived: cannot write %s: %m", tmp);
		goto out;
	}
	(void) fchmod(fd, mode);	/* whatever the umask */
	if (mode != last_mode) {
		info("select/hived: %s is readable by %s",
		     path, (mode == 0600) ?
		     "SlurmUser only (PrivateData hides jobs, accounts or usage)" :
		     "every user");
		last_mode = mode;
	}
	while (done < len) {
		ssize_t w = write(fd, text + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += w;
	}
	if (close(fd) || done != len) {
		error("select/hived: cannot write %s: %m", tmp);
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path))
		error("select/hived: cannot rename %s: %m", tmp);
out:
	xfree(tmp);
	xfree(path);
}

static void *_writer(void *arg)
{
	for (;;) {
		struct timespec ts, t0, t1;
		char *text = NULL, *state = NULL, *state_path = NULL;
		char *config = NULL;
		hived_engine *e, *copy = NULL;
		size_t engine_bytes = 0;
		bool nodes_changed = false;

		slurm_mutex_lock(&status_mutex);
		while (!stopping && !dirty && !nodes_changed) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 1;
			pthread_cond_timedwait(&status_cond, &status_mutex, &ts);
			nodes_changed = hived_ctld_nodes_stale();
		}
		if (stopping) {
			slurm_mutex_unlock(&status_mutex);
			break;
		}
		slurm_mutex_unlock(&status_mutex);

		if (nodes_changed) {
			/* Takes slurmctld's lock and ours: not under status_mutex. */
			hived_ctld_sync_nodes_unlocked();
			slurm_mutex_lock(&status_mutex);
			nodes_changed = dirty;
			slurm_mutex_unlock(&status_mutex);
			if (!nodes_changed)
				continue;	/* no health changed: nothing to write */
		}

		/*
		 * Under our lock only a copy of the engine: its JSON, and the
		 * state file's, are built from the copy while job_test runs on.
		 */
		hived_ctld_lock();
		clock_gettime(CLOCK_MONOTONIC, &t0);
		e = hived_ctld_engine();
		if (e && (hived_engine_clone(e, &copy) != HIVED_OK))
			copy = NULL;
		config = xstrdup(hived_ctld_config_text());
		if (copy && save_state)
			state_path = hived_ctld_state_path(
				slurm_conf.state_save_location);
		/* A change from here on is after the copy: write again. */
		clock_gettime(CLOCK_MONOTONIC, &t1);
		slurm_mutex_lock(&status_mutex);
		dirty = false;
		latency_hist_add(&writer_lock_us,
				 (t1.tv_sec - t0.tv_sec) * 1000000 +
				 (t1.tv_nsec - t0.tv_nsec) / 1000);
		slurm_mutex_unlock(&status_mutex);
		hived_ctld_unlock();
		if (copy) {
			text = _compose_engine(copy, config);
			engine_bytes = hived_memory_bytes(copy);
			if (state_path)
				(void) hived_ctld_state_snapshot_of(copy,
								    &state);
			hived_engine_free(copy);
			copy = NULL;
		}
		slurm_mutex_lock(&status_mutex);
		if (text) {
			char *tail = _compose_plugin(engine_bytes);

			xstrcat(text, tail);
			xfree(tail);
		}
		slurm_mutex_unlock(&status_mutex);
		if (text)
			_write(text);
		if (state)
			hived_ctld_state_write(state_path, state);
		xfree(text);
		xfree(config);
		xfree(state);
		xfree(state_path);
		sleep(1);	/* at most one write a second */
	}
	return NULL;
}

extern void hived_status_start(void)
{
	slurm_mutex_lock(&status_mutex);
	if (running) {
		slurm_mutex_unlock(&status_mutex);
		return;
	}
	stopping = false;
	dirty = true;
	generation++;
	if (pthread_create(&writer, NULL, _writer, NULL))
		error("select/hived: no status thread: %m; hived_status.json is not written");
	else
		running = true;
	slurm_mutex_unlock(&status_mutex);
}

extern void hived_status_stop(void)
{
	slurm_mutex_lock(&status_mutex);
	if (!running) {
		slurm_mutex_unlock(&status_mutex);
		return;
	}
	stopping = true;
	pthread_cond_broadcast(&status_cond);
	slurm_mutex_unlock(&status_mutex);
	pthread_join(writer, NULL);
	slurm_mutex_lock(&status_mutex);
	running = false;
	for (int i = 0; i < n_pending; i++) {
		xfree(pending[i].vc);
		xfree(pending[i].reason);
	}
	xfree(pending);
	n_pending = 0;
	memset(started, 0, sizeof(started));
	started_next = 0;
	for (int i = 0; i < SLOW_KEPT; i++)
		xfree(slow[i]);
	slow_next = 0;
	for (int i = 0; i < REFUSED_KEPT; i++) {
		xfree(refused[i].vc);
		xfree(refused[i].reason);
		refused[i].job_id = 0;
	}
	xfree(reload_refused);
	xfree(settings);
	slurm_mutex_unlock(&status_mutex);
}
