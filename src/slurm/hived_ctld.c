/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_ctld.c - the HiveD engine's life inside slurmctld.
 */
#include "src/common/slurm_xlator.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "src/common/assoc_mgr.h"
#include "slurm_gen.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "ctld_symbols.h"
#include "hived_ctld.h"
#include "hived_job.h"
#include "hived_status.h"
#include "read_file.h"

#define HIVED_MAX_FILE (64 * 1024 * 1024)

static pthread_mutex_t engine_mutex = PTHREAD_MUTEX_INITIALIZER;
static hived_engine *engine = NULL;
static hived_settings *settings = NULL;
static char *config_text = NULL;	/* what the engine was built from */
static char *quota_key = NULL;		/* the sacctmgr limits it reflects */
static int quota_refused = 0;		/* limits that gave no cells */
static time_t quota_checked = 0;
static int *to_slurm = NULL;		/* engine node -> Slurm node index */
static int32_t *to_engine = NULL;	/* Slurm node index -> engine node */
static int to_engine_len = 0;
static uint8_t *node_bad = NULL;	/* last health given to the engine */
static time_t synced_node_update = 0;
static uint64_t accepted_gen = 0;	/* hived.conf loads accepted so far */
static char *kept_before = NULL;	/* the kept copy this process found */

extern void hived_ctld_lock(void)
{
	slurm_mutex_lock(&engine_mutex);
}

extern void hived_ctld_unlock(void)
{
	slurm_mutex_unlock(&engine_mutex);
}

/* hived.conf, gres.conf and topology.conf sit next to slurm.conf. */
static const char *_slurm_conf_path(void)
{
	const char *conf = slurm_conf.slurm_conf;

	if (!conf || !conf[0])
		conf = getenv("SLURM_CONF");
	if (!conf || !conf[0])
		conf = "/etc/slurm/slurm.conf";
	return conf;
}

static char *_conf_path(const char *name)
{
	char *copy = xstrdup(_slurm_conf_path()), *path;

	path = xstrdup_printf("%s/%s", dirname(copy), name);
	xfree(copy);
	return path;
}

static char *_read_file(const char *path)
{
	return hived_read_file(path, HIVED_MAX_FILE, NULL);
}

static void _map_nodes(void)
{
	size_t n = hived_node_count(engine);
	int missing = 0;

	xfree(to_slurm);
	xfree(to_engine);
	xfree(node_bad);
	to_slurm = xcalloc(n ? n : 1, sizeof(int));
	node_bad = xcalloc(n ? n : 1, sizeof(uint8_t));
	to_engine_len = node_record_count;
	to_engine = xcalloc(to_engine_len ? to_engine_len : 1,
			    sizeof(int32_t));
	for (int i = 0; i < to_engine_len; i++)
		to_engine[i] = -1;
	for (size_t i = 0; i < n; i++) {
		node_record_t *node_ptr =
			find_node_record((char *) hived_node_name(engine, i));
		to_slurm[i] = node_ptr ? node_ptr->index : -1;
		if (node_ptr)
			to_engine[node_ptr->index] = i;
		else
			missing++;
	}
	if (missing)
		error("select/hived: %d node(s) of hived.conf are not in slurm.conf; their cells stay bad",
		      missing);
	synced_node_update = 0;
}

/*
 * Accounts' GPU limits (GrpTRES gres/gpu=N) as "account=N;..." for change
 * detection, and as quota entries. Needs no slurmctld lock; takes assoc_mgr's.
 */
static char *_account_quotas(hived_account_quota **q, size_t *n)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK, .tres = READ_LOCK };
	slurmdb_tres_rec_t tres_rec = { .type = "gres", .name = "gpu" };
	slurmdb_assoc_rec_t *a;
	list_itr_t *it;
	char *key = NULL;
	int pos;

	*q = NULL;
	*n = 0;
	if (!assoc_mgr_assoc_list)
		return NULL;
	assoc_mgr_lock(&locks);
	pos = assoc_mgr_find_tres_pos(&tres_rec, true);
	if (pos < 0) {
		assoc_mgr_unlock(&locks);
		return NULL;
	}
	it = list_iterator_create(assoc_mgr_assoc_list);
	while ((a = list_next(it))) {
		uint64_t gpus;

		/* The account's own association, not a user's or a partition's. */
		if (a->user || a->partition || !a->acct || !a->grp_tres_ctld ||
		    !xstrcmp(a->acct, "root"))
			continue;
		gpus = a->grp_tres_ctld[pos];
		if ((gpus == INFINITE64) || (gpus == NO_VAL64))
			continue;
		xrecalloc(*q, *n + 1, sizeof(hived_account_quota));
		(*q)[*n].account = xstrdup(a->acct);
		(*q)[*n].grptres = xstrdup_printf("gres/gpu=%"PRIu64, gpus);
		(*n)++;
		xstrfmtcat(key, "%s=%"PRIu64";", a->acct, gpus);
	}
	list_iterator_destroy(it);
	assoc_mgr_unlock(&locks);
	return key;
}

static void _quotas_free(hived_account_quota *q, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		xfree(q[i].account);
		xfree(q[i].grptres);
	}
	xfree(q);
}

static void _log_lines(const char *prefix, const char *text)
{
	char *copy = xstrdup(text), *save = NULL;

	for (char *l = strtok_r(copy, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		if (!xstrncmp(l, "warning: ", 9))
			error("%s%s", prefix, l);
		else
			info("%s%s", prefix, l);
	}
	xfree(copy);
}

/* Why the load in progress was refused, for hived_status.json (hivedctl). */
static char refusal[1024];

__attribute__((format(printf, 1, 2)))
static void _refusal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(refusal, sizeof(refusal), fmt, ap);
	va_end(ap);
	error("select/hived: %s", refusal);
}

/*
 * The summary's "quota refused: <account>: <why>" lines, for a refresh that is
 * otherwise quiet: the admin who ran sacctmgr learns why it had no effect.
 */
static char quota_why[512];	/* the first of them, for the status */

static void _log_refusals(const char *summary)
{
	char *copy = xstrdup(summary), *save = NULL;

	quota_why[0] = '\0';
	for (char *l = strtok_r(copy, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		if (!strstr(l, "quota refused:"))
			continue;
		error("select/hived: sacctmgr %s", l);
		if (!quota_why[0])
			snprintf(quota_why, sizeof(quota_why), "%s", l);
	}
	xfree(copy);
}

/*
 * hived.conf + slurm.conf/gres.conf/topology.conf + sacctmgr limits → the JSON
 * the engine is built from (NULL on error, logged).
 */
static char *_effective(const char *hived_text, char **key, int *refused,
			bool quiet)
{
	char *slurm_text = _read_file(_slurm_conf_path());
	char *gres_path = _conf_path("gres.conf");
	char *topo_path = _conf_path("topology.conf");
	char *gres_text = _read_file(gres_path);
	char *topo_text = _read_file(topo_path);
	hived_account_quota *q = NULL;
	size_t n = 0;
	char *json = NULL, *summary = NULL, err[1024] = "";
	hived_settings *probe = NULL;
	bool quotas = true;

	if (hived_settings_load(hived_text, &probe, err, sizeof(err)) ==
	    HIVED_OK) {
		quotas = probe->quota_from_sacctmgr;
		hived_settings_free(probe);
	}
	*key = quotas ? _account_quotas(&q, &n) : NULL;
	*refused = 0;
	if (!slurm_text) {
		_refusal("cannot read %s: %m", _slurm_conf_path());
	} else if (hived_effective_config(hived_text, slurm_text, gres_text,
					  topo_text, q, n, &json, &summary,
					  err, sizeof(err)) != HIVED_OK) {
		_refusal("%s", err);
	} else {
		for (char *p = summary; p && (p = strstr(p, "quota refused:"));
		     p++)
			(*refused)++;
		if (!quiet)
			_log_lines("select/hived: ", summary);
		else if (*refused)
			_log_refusals(summary);
	}
	free(summary);
	_quotas_free(q, n);
	xfree(slurm_text);
	xfree(gres_text);
	xfree(topo_text);
	xfree(gres_path);
	xfree(topo_path);
	if (!json)
		return NULL;
	{
		char *x = xstrdup(json);
		free(json);
		return x;
	}
}

/* The settings of a hived.conf now in force; priority/hived follows them. */
static void _accept_settings(hived_settings *new_settings)
{
	hived_settings_free(settings);
	settings = new_settings;
	accepted_gen++;
}

/* What a reload (`where`) did to running jobs, one log line each kind. */
static void _log_report(const char *where, const char *report)
{
	json_t *root = report ? json_loads(report, 0, NULL) : NULL;
	static const struct {
		const char *key, *what;
	} kinds[] = {
		{ "demoted", "demoted: their VC's cells no longer hold them, they run on as opportunistic" },
		{ "promoted", "promoted back to guaranteed: their VC's cells hold them again" },
	};

	for (size_t k = 0; root && k < ARRAY_SIZE(kinds); k++) {
		json_t *list = json_object_get(root, kinds[k].key), *v;
		char *names = NULL;
		size_t i;

		json_array_foreach(list, i, v) {
			const char *name = json_string_value(v);
			job_record_t *job_ptr = (find_job_record && name) ?
				find_job_record(strtoul(name, NULL, 10)) : NULL;

			xstrfmtcat(names, "%s%s", names ? " " : "", name);
			if (job_ptr)
				hived_job_class_comment(job_ptr, k ?
					"guaranteed again (its VC's cells hold it again)" :
					"now opportunistic (its VC's cells in the new hived.conf do not hold it)");
		}
		if (names)
			info("select/hived: %s: jobs %s: %s", where,
			     kinds[k].what, names);
		xfree(names);
	}
	json_decref(root);
}

/* Build a new engine, or reconfigure the running one keeping its jobs. */
static int _apply(const char *hived_text, char *text, const char *path)
{
	char err[1024] = "";
	hived_settings *new_settings = NULL;
	hived_rc rc;

	rc = hived_settings_load(hived_text, &new_settings, err, sizeof(err));
	if (rc != HIVED_OK) {
		_refusal("%s: %s%s", path, err, engine ?
			 "; the previous hived.conf stays in force" :
			 "; GPU jobs are placed by cons_tres alone");
		return SLURM_ERROR;
	}
	if (!engine) {
		rc = hived_engine_new(text, &engine, err, sizeof(err));
		if (rc != HIVED_OK) {
			_refusal("%s: %s; GPU jobs are placed by cons_tres alone",
				 path, err);
			hived_settings_free(new_settings);
			return SLURM_ERROR;
		}
	} else {
		char *report = NULL;

		rc = hived_reconfigure_ex(engine, text, 0,
			(const char *const *) new_settings->allow_removing_vcs,
			new_settings->n_allow_removing_vcs, &report);
		if (rc != HIVED_OK) {
			_refusal("%s: %s; the previous hived.conf stays in force",
				 path, hived_last_error(engine));
			hived_settings_free(new_settings);
			return SLURM_ERROR;
		}
		if (hived_last_error(engine)[0])
			error("select/hived: reconfigure: %s",
			      hived_last_error(engine));
		_log_report("reconfigure", report);
		free(report);
	}
	_accept_settings(new_settings);
	xfree(config_text);
	config_text = text;
	_map_nodes();
	info("select/hived: loaded %s: %zu nodes, %zu VCs",
	     path, hived_node_count(engine), hived_vc_count(engine));
	hived_status_dirty();
	return SLURM_SUCCESS;
}

/*
 * The cells did not change, but hived.conf's "slurm" section may have
 * (jobsLargerThanVc, checkInvariants, ...): those apply at once.
 */
static int _reload_settings(const char *hived_text, const char *path)
{
	char err[1024] = "";
	hived_settings *new_settings = NULL;

	if (hived_settings_load(hived_text, &new_settings, err, sizeof(err)) !=
	    HIVED_OK) {
		error("select/hived: %s: %s; the previous hived.conf stays in force",
		      path, err);
		return SLURM_ERROR;
	}
	_accept_settings(new_settings);
	return SLURM_SUCCESS;
}

/*
 * The hived.conf text last accepted, kept beside the state file. From 24.05
 * "scontrol reconfigure" replaces slurmctld with a new process, where a refused
 * hived.conf meets no engine to keep: this copy stands in for it.
 */
static char *_kept_path(void)
{
	return xstrdup_printf("%s/hived.conf.in-force",
			      slurm_conf.state_save_location ?
			      slurm_conf.state_save_location : ".");
}

/* Effective config from hived_text, applied; RET SLURM_SUCCESS if in force. */
static int _load_text(const char *hived_text, const char *path)
{
	char *text, *key = NULL;
	int rc, refused = 0;

	text = _effective(hived_text, &key, &refused, false);
	if (!text) {
		error("select/hived: %s not applied%s", path,
		      engine ? "; the previous hived.conf stays in force" :
		      "; GPU jobs are placed by cons_tres alone");
		xfree(key);
		return SLURM_ERROR;
	}
	if (config_text && !xstrcmp(text, config_text)) {
		xfree(text);	/* same cells: keep bindings as they are */
		_map_nodes();
		rc = _reload_settings(hived_text, path);
	} else {
		rc = _apply(hived_text, text, path);
		if (rc != SLURM_SUCCESS)
			xfree(text);
	}
	if (rc == SLURM_SUCCESS) {
		xfree(quota_key);
		quota_key = key;
		key = NULL;
		quota_refused = refused;
		quota_checked = time(NULL);
	}
	xfree(key);
	return rc;
}

/* A new slurmctld whose hived.conf was refused: the copy accepted last. */
static void _load_kept(void)
{
	char *kpath = _kept_path(), *kept = _read_file(kpath);

	if (kept && (_load_text(kept, kpath) == SLURM_SUCCESS))
		error("select/hived: the previous hived.conf stays in force (the copy accepted last, %s) until hived.conf is fixed",
		      kpath);
	xfree(kept);
	xfree(kpath);
}

extern int hived_ctld_load(void)
{
	char *path = _conf_path("hived.conf");
	char *hived_text = _read_file(path);
	bool fresh = (engine == NULL);
	int rc;

	refusal[0] = '\0';
	if (fresh) {
		/* The state file may refuse this hived.conf (a VC removed). */
		char *kpath = _kept_path();

		xfree(kept_before);
		kept_before = _read_file(kpath);
		xfree(kpath);
	}
	if (!hived_text) {
		if (errno != ENOENT) {
			_refusal("cannot read %s: %m%s", path,
				 engine ? "; the previous hived.conf stays in force" :
				 "; GPU jobs are placed by cons_tres alone");
			if (fresh)
				_load_kept();
			hived_status_reload(refusal);
			xfree(path);
			return SLURM_ERROR;
		}
		/* No hived.conf: cells from Slurm's files, VCs from sacctmgr. */
		info("select/hived: no %s: deriving cells from slurm.conf, gres.conf and topology.conf",
		     path);
		hived_text = xstrdup("");
	}
	rc = _load_text(hived_text, path);
	if (rc == SLURM_SUCCESS) {
		char *kpath = _kept_path();

		hived_ctld_state_write(kpath, hived_text);
		xfree(kpath);
	}
	/* The refusal is about hived.conf, whatever stands in for it. */
	hived_status_reload((rc == SLURM_SUCCESS) ? NULL :
			    refusal[0] ? refusal : "see slurmctld.log");
	if ((rc != SLURM_SUCCESS) && fresh && !engine)
		_load_kept();
	xfree(hived_text);
	xfree(path);
	return rc;
}

/*
 * sacctmgr changes reach slurmctld without any select call: compare the limits
 * every few seconds and apply a change with the reconfiguration rules. A change
 * some account's limit cannot be given cells for is refused; the old cells stay.
 */
extern void hived_ctld_refresh_quotas(void)
{
	hived_account_quota *q = NULL;
	size_t n = 0;
	char *key, *path, *hived_text, *text;
	int refused = 0;
	time_t now = time(NULL);

	if (!engine || !settings || !settings->quota_from_sacctmgr ||
	    (now - quota_checked < 5))
		return;
	quota_checked = now;
	key = _account_quotas(&q, &n);
	_quotas_free(q, n);
	if (!xstrcmp(key, quota_key)) {
		xfree(key);
		return;
	}
	xfree(key);
	path = _conf_path("hived.conf");
	hived_text = _read_file(path);
	if (!hived_text)
		hived_text = xstrdup("");
	refusal[0] = '\0';
	text = _effective(hived_text, &key, &refused, true);
	if (text && refused > quota_refused) {
		_refusal("sacctmgr GPU limits changed (%s) but %d account limit(s) cannot be given cells; the previous cells stay (%s)",
			 key, refused - quota_refused, quota_why);
		hived_status_reload(refusal);
		xfree(text);
	} else if (text && (!config_text || xstrcmp(text, config_text))) {
		info("select/hived: sacctmgr GPU limits changed (%s): applying",
		     key);
		if (_apply(hived_text, text, path) != SLURM_SUCCESS) {
			xfree(text);
			hived_status_reload(refusal);
		} else {
			hived_status_reload(NULL);
		}
	} else {
		/* Unchanged cells, or an error _effective() logged. */
		hived_status_reload(text ? NULL : refusal);
		xfree(text);
	}
	/* Remember this state either way: a refused change is not retried. */
	xfree(quota_key);
	quota_key = key;
	xfree(hived_text);
	xfree(path);
}

extern void hived_ctld_unload(void)
{
	hived_engine_free(engine);
	engine = NULL;
	hived_settings_free(settings);
	settings = NULL;
	xfree(config_text);
	xfree(quota_key);
	xfree(kept_before);
	xfree(to_slurm);
	xfree(to_engine);
	xfree(node_bad);
	to_engine_len = 0;
}

extern char *hived_select_opportunistic_qos(uint64_t *generation)
{
	char *qos = NULL;

	hived_ctld_lock();
	*generation = accepted_gen;
	if (settings) {
		qos = xstrdup("");
		for (size_t i = 0; i < settings->n_opportunistic_qos; i++)
			xstrfmtcat(qos, "%s%s", i ? "," : "",
				   settings->opportunistic_qos[i]);
	}
	hived_ctld_unlock();
	return qos;
}

extern hived_engine *hived_ctld_engine(void)
{
	return engine;
}

extern const hived_settings *hived_ctld_settings(void)
{
	return settings;
}

extern int hived_ctld_slurm_index(int32_t engine_node)
{
	if (!engine || engine_node < 0 ||
	    (size_t) engine_node >= hived_node_count(engine))
		return -1;
	return to_slurm[engine_node];
}

extern int32_t hived_ctld_engine_node(int slurm_index)
{
	if (!engine || slurm_index < 0 || slurm_index >= to_engine_len)
		return -1;
	return to_engine[slurm_index];
}

/*
 * GPUs the node's slurmd found, or -1 before it registered. A node that comes
 * back from a reboot with fewer GPUs than its cells is a bad cell, not a crash.
 */
static int64_t _gpus_found(node_record_t *node_ptr)
{
	list_itr_t *it;
	gres_state_t *gs;
	int64_t found = -1;

	if (!node_ptr->gres_list)
		return -1;
	it = list_iterator_create(node_ptr->gres_list);
	while ((gs = list_next(it))) {
		gres_node_state_t *ns = gs->gres_data;

		if (xstrcmp(gs->gres_name, "gpu") || !ns)
			continue;
		if (ns->gres_cnt_found == NO_VAL64)
			continue;
		found = (found < 0 ? 0 : found) + ns->gres_cnt_found;
	}
	list_iterator_destroy(it);
	return found;
}

extern void hived_ctld_sync_nodes(void)
{
	size_t n;

	if (!engine || synced_node_update == last_node_update)
		return;
	/*
	 * last_node_update counts seconds: a node change later in this same
	 * second (a node returned to service right after another update) would
	 * leave it equal and go unseen, so stay stale until the second is over.
	 */
	synced_node_update = last_node_update;
	if (time(NULL) <= last_node_update)
		synced_node_update--;
	n = hived_node_count(engine);
	for (size_t i = 0; i < n; i++) {
		node_record_t *node_ptr = NULL;
		uint8_t bad;

		if (to_slurm[i] >= 0 && to_slurm[i] < node_record_count)
			node_ptr = node_record_table_ptr[to_slurm[i]];
		bad = !node_ptr || IS_NODE_DOWN(node_ptr) ||
		      IS_NODE_DRAIN(node_ptr) || IS_NODE_FAIL(node_ptr);
		if (!bad) {
			int64_t found = _gpus_found(node_ptr);

			if ((found >= 0) &&
			    (found < hived_node_leaf_count(engine, i))) {
				bad = 2;
				if (node_bad[i] != 2)
					error("select/hived: node %s reports %"PRId64" GPUs, its cells have %d: its cells are bad until it has them all",
					      node_ptr->name, found,
					      hived_node_leaf_count(engine, i));
			}
		}
		if (bad == node_bad[i])
			continue;
		node_bad[i] = bad;
		if (hived_set_node_health(engine, hived_node_name(engine, i),
					  !bad) != HIVED_OK) {
			node_bad[i] = 0;
			error("select/hived: node %s: %s",
			      hived_node_name(engine, i),
			      hived_last_error(engine));
			continue;
		}
		hived_status_dirty();
		info("select/hived: node %s is %s: its cells are %s",
		     hived_node_name(engine, i),
		     node_ptr ? node_state_string(node_ptr->node_state) :
		     "not in slurm.conf", bad ? "bad" : "healthy");
	}
}

extern bool hived_ctld_nodes_stale(void)
{
	/*
	 * Unlocked reads of two time_t: a torn or stale read only moves the
	 * sync by one tick of the status thread, and the sync itself rechecks
	 * under the locks.
	 */
	return synced_node_update != last_node_update;
}

/*
 * Without this a node that goes DOWN or DRAIN, or comes back, while no job is
 * pending reaches the engine, and hived_status.json, only at the next
 * scheduling decision. Lock order as in the hooks: slurmctld's, then ours.
 */
extern void hived_ctld_sync_nodes_unlocked(void)
{
	slurmctld_lock_t node_read = { .node = READ_LOCK };

	if (!lock_slurmctld || !unlock_slurmctld)
		return;
	lock_slurmctld(node_read);
	hived_ctld_lock();
	if (node_record_count > 0)
		hived_ctld_sync_nodes();
	hived_ctld_unlock();
	unlock_slurmctld(node_read);
}

extern void hived_ctld_check(const char *where)
{
	char err[1024];

	if (!engine || !settings || !settings->check_invariants)
		return;
	if (hived_check_invariants(engine, err, sizeof(err)) != HIVED_OK)
		error("select/hived: invariant violated after %s: %s",
		      where, err);
}

static char *_state_path(const char *dir)
{
	const char *file = (settings && settings->state_file) ?
			   settings->state_file : "hived_state.json";

	if (file[0] == '/')
		return xstrdup(file);
	return xstrdup_printf("%s/%s", dir ? dir : ".", file);
}

extern int hived_ctld_state_snapshot(const char *dir, char **path,
				     char **json)
{
	char *text = NULL;

	*path = *json = NULL;
	if (!engine || hived_snapshot(engine, &text) != HIVED_OK)
		return SLURM_ERROR;
	*json = xstrdup(text);
	free(text);
	*path = _state_path(dir);
	return SLURM_SUCCESS;
}

extern void hived_ctld_state_write(const char *path, const char *json)
{
	char *tmp = xstrdup_printf("%s.new", path);
	int fd;
	size_t len, done = 0;

	/*
	 * 0600: the state names every job's account and GPUs. A fresh file, never
	 * a leftover (wider mode) or a symlink someone planted.
	 */
	(void) unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0) {
		error("select/hived: cannot write %s: %m", tmp);
		goto out;
	}
	len = strlen(json);
	while (done < len) {
		ssize_t n = write(fd, json + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += n;
	}
	if ((done != len) || fsync(fd)) {
		error("select/hived: cannot write %s: %m", tmp);
		(void) close(fd);
		unlink(tmp);
		goto out;
	}
	if (close(fd)) {
		error("select/hived: cannot write %s: %m", tmp);
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path))
		error("select/hived: cannot rename %s to %s: %m", tmp, path);
out:
	xfree(tmp);
}

extern void hived_ctld_state_save(const char *dir)
{
	char *path = NULL, *json = NULL;

	if (hived_ctld_state_snapshot(dir, &path, &json) == SLURM_SUCCESS)
		hived_ctld_state_write(path, json);
	xfree(json);
	xfree(path);
}

/*
 * The state file's jobs meet hived.conf, as a reload's would: a hived.conf that
 * removes a VC in which guaranteed jobs run (and allowRemovingVcs does not name)
 * is refused, the copy accepted before it comes back, and the restored jobs go
 * onto that. A new slurmctld (a restart, or "scontrol reconfigure" from 24.05)
 * loaded hived.conf into an engine without jobs, so hived_ctld_load could not
 * see this. With no kept copy the VC goes and its jobs are demoted, logged.
 */
static hived_rc _fit_state(hived_engine *restored, char **report)
{
	hived_engine *scratch = NULL;
	char *why, *path, *kpath;
	hived_rc rc;

	rc = hived_reconfigure_ex(restored, config_text, 0, settings ?
		(const char *const *) settings->allow_removing_vcs : NULL,
		settings ? settings->n_allow_removing_vcs : 0, report);
	if (rc == HIVED_OK)
		return rc;
	/* Only a VC removal is let through by the flag: find out on a copy. */
	if (hived_engine_clone(restored, &scratch) != HIVED_OK)
		return rc;
	rc = hived_reconfigure_ex(scratch, config_text,
				  HIVED_RECONF_ALLOW_VC_REMOVAL, NULL, 0, NULL);
	hived_engine_free(scratch);
	if (rc != HIVED_OK)
		return rc;	/* the state file does not fit at all */
	why = xstrdup(hived_last_error(restored));
	kpath = _kept_path();
	path = _conf_path("hived.conf");
	if (kept_before && (_load_text(kept_before, kpath) == SLURM_SUCCESS)) {
		refusal[0] = '\0';
		_refusal("%s: %s; the previous hived.conf stays in force",
			 path, why);
		error("select/hived: the previous hived.conf stays in force (the copy accepted last, %s) until hived.conf is fixed",
		      kpath);
		hived_ctld_state_write(kpath, kept_before);
		hived_status_reload(refusal);
		rc = hived_reconfigure_ex(restored, config_text, 0, settings ?
			(const char *const *) settings->allow_removing_vcs :
			NULL, settings ? settings->n_allow_removing_vcs : 0,
			report);
	} else {
		error("select/hived: %s: %s; no earlier hived.conf to keep (%s), so the VCs go and their jobs are demoted",
		      path, why, kpath);
		rc = HIVED_ECONFIG;
	}
	xfree(why);
	xfree(path);
	xfree(kpath);
	if (rc == HIVED_OK)
		return rc;
	/*
	 * hived.conf (or the copy standing in for it) is in force already: the
	 * engine was built from it, so a VC it lacks is gone whatever the state
	 * file says.
	 */
	return hived_reconfigure_ex(restored, config_text,
				    HIVED_RECONF_ALLOW_VC_REMOVAL, NULL, 0,
				    report);
}

/*
 * The state file keeps bindings exactly (which VC cell each job's GPUs serve);
 * Slurm's own job records are reconciled with it afterwards (job_init).
 */
extern void hived_ctld_state_restore(const char *dir)
{
	char *path, *text, err[1024] = "", *demoted = NULL;
	hived_engine *restored = NULL;
	const char *const *names = NULL;

	if (!engine || hived_job_list(engine, &names)) {
		xfree(kept_before);
		return;	/* only at start, before any job is known */
	}
	path = _state_path(dir);
	text = _read_file(path);
	if (!text) {
		if (errno != ENOENT)
			error("select/hived: cannot read state file %s: %m; rebuilding from Slurm's jobs",
			      path);
		goto out;
	}
	if (hived_engine_restore(text, &restored, err, sizeof(err)) !=
	    HIVED_OK) {
		error("select/hived: state file %s is unusable (%s); rebuilding from Slurm's jobs",
		      path, err);
		goto out;
	}
	if (_fit_state(restored, &demoted) != HIVED_OK) {
		error("select/hived: state file %s does not fit hived.conf (%s); rebuilding from Slurm's jobs",
		      path, hived_last_error(restored));
		hived_engine_free(restored);
		goto out;
	}
	hived_engine_free(engine);
	engine = restored;
	_map_nodes();
	info("select/hived: restored cell bindings from %s", path);
	if (hived_last_error(engine)[0])
		error("select/hived: state file %s: %s", path,
		      hived_last_error(engine));
	_log_report("hived.conf applied to the state file", demoted);
out:
	free(demoted);
	xfree(text);
	xfree(path);
	xfree(kept_before);	/* the next load is a reload */
}
