/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_conf_load.c - hived.conf and the sacctmgr GPU limits into the engine:
 * the first load, reloads on reconfigure, limits that change under it, and the
 * hived.conf a restored state file can accept. A refused load leaves what was
 * in force, and says why (log, hived_status.json).
 */
#include "src/common/slurm_xlator.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "src/common/assoc_mgr.h"
#include "slurm_gen.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "ctld_symbols.h"
#include "hived_ctld.h"
#include "hived_job.h"
#include "hived_paths.h"
#include "hived_status.h"

static char *quota_key = NULL;		/* the sacctmgr limits in force */
static size_t quota_refused = 0;	/* limits that gave no cells */
static time_t quota_checked = 0;
static char *kept_before = NULL;	/* the kept copy this process found */

/* gres/gpu, gres/shard and their typed forms (gres/gpu:a100_3g.20gb): HiveD's. */
static bool _quota_tres(const char *name)
{
	static const char *const prefixes[] = { "gres/gpu", "gres/shard" };

	for (size_t i = 0; name && (i < ARRAY_SIZE(prefixes)); i++) {
		size_t len = strlen(prefixes[i]);

		if (!xstrncasecmp(name, prefixes[i], len) &&
		    ((name[len] == '\0') || (name[len] == ':')))
			return true;
	}
	return false;
}

/*
 * Accounts' GPU limits (GrpTRES gres/gpu=N, gres/gpu:<type>=N for GPU models
 * and MIG profiles, gres/shard[:<type>]=N) as "account=tres=N,...;" for change
 * detection, and as quota entries. Needs no slurmctld lock; takes assoc_mgr's.
 */
static char *_account_quotas(hived_account_quota **q, size_t *n)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK, .tres = READ_LOCK };
	slurmdb_assoc_rec_t *a;
	list_itr_t *it;
	char *key = NULL;
	int *pos = NULL, n_pos = 0;

	*q = NULL;
	*n = 0;
	if (!assoc_mgr_assoc_list)
		return NULL;
	assoc_mgr_lock(&locks);
	for (uint32_t i = 0; assoc_mgr_tres_name_array && (i < g_tres_count);
	     i++) {
		if (!_quota_tres(assoc_mgr_tres_name_array[i]))
			continue;
		xrecalloc(pos, n_pos + 1, sizeof(int));
		pos[n_pos++] = i;
	}
	if (!n_pos) {
		assoc_mgr_unlock(&locks);
		return NULL;
	}
	it = list_iterator_create(assoc_mgr_assoc_list);
	while ((a = list_next(it))) {
		char *tres = NULL;

		/* The account's own association, not a user's or a partition's. */
		if (a->user || a->partition || !a->acct || !a->grp_tres_ctld ||
		    !xstrcmp(a->acct, "root"))
			continue;
		for (int k = 0; k < n_pos; k++) {
			uint64_t v = a->grp_tres_ctld[pos[k]];

			if ((v == INFINITE64) || (v == NO_VAL64))
				continue;
			xstrfmtcat(tres, "%s%s=%"PRIu64, tres ? "," : "",
				   assoc_mgr_tres_name_array[pos[k]], v);
		}
		if (!tres)
			continue;
		xrecalloc(*q, *n + 1, sizeof(hived_account_quota));
		(*q)[*n].account = xstrdup(a->acct);
		(*q)[*n].grptres = tres;
		(*n)++;
		/* "acct=N;" for a plain gres/gpu=N, as the log has always said. */
		if (!xstrncmp(tres, "gres/gpu=", 9) && !strchr(tres, ','))
			xstrfmtcat(key, "%s=%s;", a->acct, tres + 9);
		else
			xstrfmtcat(key, "%s=%s;", a->acct, tres);
	}
	list_iterator_destroy(it);
	assoc_mgr_unlock(&locks);
	xfree(pos);
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
		if (!xstrncmp(l, "warning: ", 9) ||
		    !xstrncmp(l, "quota refused: ", 15))
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

/* The first account limit that gave no cells, for the status. */
static char quota_why[512];

/* What a refresh logs once it knows whether it applies the new cells. */
typedef struct {
	char *summary;	/* the cells, refused limits among them */
	char *refused;	/* the refused limits' lines alone */
} effective_log_t;

/*
 * hived.conf + slurm.conf/gres.conf/topology.conf + sacctmgr limits → the JSON
 * the engine is built from (NULL on error, logged). *refused: how many account
 * limits could not be given cells. With later (a refresh nobody asked for),
 * nothing is logged here: the cells' summary and the refused limits alone are
 * handed back, for the caller to log the first if it applies the cells, else
 * the second, so that the admin who ran sacctmgr learns why it had no effect
 * and reads each refusal once.
 */
static char *_effective(const char *hived_text, char **key, size_t *refused,
			effective_log_t *later)
{
	bool quiet = (later != NULL);
	const char *slurm_path = hived_path_slurm_conf();
	char *slurm_text = hived_path_read(slurm_path);
	char *gres_path = hived_path_beside_slurm_conf("gres.conf");
	char *topo_path = hived_path_beside_slurm_conf("topology.conf");
	char *gres_text = hived_path_read(gres_path);
	char *topo_text = hived_path_read(topo_path);
	hived_account_quota *q = NULL;
	size_t n = 0;
	char *json = NULL, *summary = NULL, **why = NULL, err[1024] = "";
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
		_refusal("cannot read %s: %m", slurm_path);
	} else if (hived_effective_config(hived_text, slurm_text, gres_text,
					  topo_text, q, n, &json, &summary,
					  &why, refused, err, sizeof(err)) !=
		   HIVED_OK) {
		_refusal("%s", err);
	} else {
		if (!quiet)
			_log_lines("select/hived: ", summary);
		else
			later->summary = xstrdup(summary);
		quota_why[0] = '\0';
		for (size_t i = 0; i < *refused; i++) {
			if (quiet)
				xstrfmtcat(later->refused,
					   "quota refused: %s\n", why[i]);
			if (!i)
				snprintf(quota_why, sizeof(quota_why),
					 "quota refused: %s", why[i]);
		}
	}
	hived_strings_free(why, *refused);
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

extern void hived_ctld_log_report(const char *where, const char *report)
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
	hived_engine *engine = hived_ctld_engine();
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
		hived_ctld_log_report("reconfigure", report);
		free(report);
	}
	hived_ctld_accept_settings(new_settings);
	hived_ctld_accept_engine(engine, text);
	info("select/hived: loaded %s: %zu nodes, %zu VCs",
	     path, hived_node_count(engine), hived_vc_count(engine));
	hived_job_say_borrowing(hived_ctld_settings());
	hived_status_set_settings(hived_ctld_settings());
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
	hived_ctld_accept_settings(new_settings);
	hived_job_say_borrowing(hived_ctld_settings());
	hived_status_set_settings(hived_ctld_settings());
	return SLURM_SUCCESS;
}

/* Effective config from hived_text, applied; RET SLURM_SUCCESS if in force. */
static int _load_text(const char *hived_text, const char *path)
{
	const char *config_text = hived_ctld_config_text();
	char *text, *key = NULL;
	size_t refused = 0;
	int rc;

	text = _effective(hived_text, &key, &refused, NULL);
	if (!text) {
		error("select/hived: %s not applied%s", path,
		      hived_ctld_engine() ?
		      "; the previous hived.conf stays in force" :
		      "; GPU jobs are placed by cons_tres alone");
		xfree(key);
		return SLURM_ERROR;
	}
	if (config_text && !xstrcmp(text, config_text)) {
		xfree(text);	/* same cells: keep bindings as they are */
		hived_ctld_accept_engine(NULL, NULL);
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
	char *kpath = hived_path_kept_conf(), *kept = hived_path_read(kpath);

	if (kept && (_load_text(kept, kpath) == SLURM_SUCCESS))
		error("select/hived: the previous hived.conf stays in force (the copy accepted last, %s) until hived.conf is fixed",
		      kpath);
	xfree(kept);
	xfree(kpath);
}

extern int hived_ctld_load(void)
{
	char *path = hived_path_beside_slurm_conf("hived.conf");
	char *hived_text = hived_path_read(path);
	bool fresh = (hived_ctld_engine() == NULL);
	int rc;

	refusal[0] = '\0';
	if (fresh) {
		/* The state file may refuse this hived.conf (a VC removed). */
		char *kpath = hived_path_kept_conf();

		xfree(kept_before);
		kept_before = hived_path_read(kpath);
		xfree(kpath);
	}
	if (!hived_text) {
		if (errno != ENOENT) {
			_refusal("cannot read %s: %m%s", path,
				 hived_ctld_engine() ?
				 "; the previous hived.conf stays in force" :
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
		char *kpath = hived_path_kept_conf();

		hived_ctld_state_write(kpath, hived_text);
		xfree(kpath);
	}
	/* The refusal is about hived.conf, whatever stands in for it. */
	hived_status_reload((rc == SLURM_SUCCESS) ? NULL :
			    refusal[0] ? refusal : "see slurmctld.log");
	if ((rc != SLURM_SUCCESS) && fresh && !hived_ctld_engine())
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
	const hived_settings *settings = hived_ctld_settings();
	const char *config_text = hived_ctld_config_text();
	hived_account_quota *q = NULL;
	size_t n = 0, refused = 0;
	char *key, *path, *hived_text, *text;
	effective_log_t later = { NULL, NULL };
	time_t now = time(NULL);

	if (!hived_ctld_engine() || !settings ||
	    !settings->quota_from_sacctmgr || (now - quota_checked < 5))
		return;
	quota_checked = now;
	key = _account_quotas(&q, &n);
	_quotas_free(q, n);
	if (!xstrcmp(key, quota_key)) {
		xfree(key);
		return;
	}
	xfree(key);
	path = hived_path_beside_slurm_conf("hived.conf");
	hived_text = hived_path_read(path);
	if (!hived_text)
		hived_text = xstrdup("");
	refusal[0] = '\0';
	text = _effective(hived_text, &key, &refused, &later);
	if (text && refused > quota_refused) {
		if (later.refused)
			_log_lines("select/hived: sacctmgr ", later.refused);
		_refusal("sacctmgr GPU limits changed (%s) but %zu account limit(s) cannot be given cells; the previous cells stay (%s)",
			 key, refused - quota_refused, quota_why);
		hived_status_reload(refusal);
		xfree(text);
	} else if (text && (!config_text || xstrcmp(text, config_text))) {
		info("select/hived: sacctmgr GPU limits changed (%s): applying",
		     key);
		/* Else the new cells are in no log; they were only at load.
		 * The summary names the limits still refused. */
		if (later.summary)
			_log_lines("select/hived: ", later.summary);
		if (_apply(hived_text, text, path) != SLURM_SUCCESS) {
			xfree(text);
			hived_status_reload(refusal);
		} else {
			hived_status_reload(NULL);
		}
	} else {
		/* Unchanged cells, or an error _effective() logged. */
		if (later.refused)
			_log_lines("select/hived: sacctmgr ", later.refused);
		hived_status_reload(text ? NULL : refusal);
		xfree(text);
	}
	/* Remember this state either way: a refused change is not retried. */
	xfree(quota_key);
	quota_key = key;
	xfree(later.summary);
	xfree(later.refused);
	xfree(hived_text);
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
extern hived_rc hived_ctld_fit_state(hived_engine *restored, char **report)
{
	const hived_settings *settings = hived_ctld_settings();
	hived_engine *scratch = NULL;
	char *why, *path, *kpath;
	hived_rc rc;

	rc = hived_reconfigure_ex(restored, hived_ctld_config_text(), 0,
		settings ? (const char *const *) settings->allow_removing_vcs :
		NULL, settings ? settings->n_allow_removing_vcs : 0, report);
	if (rc == HIVED_OK)
		return rc;
	/* Only a VC removal is let through by the flag: find out on a copy. */
	if (hived_engine_clone(restored, &scratch) != HIVED_OK)
		return rc;
	rc = hived_reconfigure_ex(scratch, hived_ctld_config_text(),
				  HIVED_RECONF_ALLOW_VC_REMOVAL, NULL, 0, NULL);
	hived_engine_free(scratch);
	if (rc != HIVED_OK)
		return rc;	/* the state file does not fit at all */
	why = xstrdup(hived_last_error(restored));
	kpath = hived_path_kept_conf();
	path = hived_path_beside_slurm_conf("hived.conf");
	if (kept_before && (_load_text(kept_before, kpath) == SLURM_SUCCESS)) {
		refusal[0] = '\0';
		_refusal("%s: %s; the previous hived.conf stays in force",
			 path, why);
		error("select/hived: the previous hived.conf stays in force (the copy accepted last, %s) until hived.conf is fixed",
		      kpath);
		hived_ctld_state_write(kpath, kept_before);
		hived_status_reload(refusal);
		settings = hived_ctld_settings();
		rc = hived_reconfigure_ex(restored, hived_ctld_config_text(), 0,
			settings ?
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
	return hived_reconfigure_ex(restored, hived_ctld_config_text(),
				    HIVED_RECONF_ALLOW_VC_REMOVAL, NULL, 0,
				    report);
}

extern void hived_ctld_forget_kept(void)
{
	xfree(kept_before);
}

extern void hived_ctld_conf_unload(void)
{
	xfree(quota_key);
	xfree(kept_before);
	quota_refused = 0;
	quota_checked = 0;
}
