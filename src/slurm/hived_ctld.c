/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_ctld.c - the HiveD engine's life inside slurmctld.
 */
#include "src/common/slurm_xlator.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "hived_ctld.h"
#include "hived_status.h"

#define HIVED_MAX_FILE (64 * 1024 * 1024)

static pthread_mutex_t engine_mutex = PTHREAD_MUTEX_INITIALIZER;
static hived_engine *engine = NULL;
static hived_settings *settings = NULL;
static char *config_text = NULL;	/* what the engine was built from */
static int *to_slurm = NULL;		/* engine node -> Slurm node index */
static int32_t *to_engine = NULL;	/* Slurm node index -> engine node */
static int to_engine_len = 0;
static uint8_t *node_bad = NULL;	/* last health given to the engine */
static time_t synced_node_update = 0;

extern void hived_ctld_lock(void)
{
	slurm_mutex_lock(&engine_mutex);
}

extern void hived_ctld_unlock(void)
{
	slurm_mutex_unlock(&engine_mutex);
}

/* hived.conf sits next to the slurm.conf slurmctld actually read. */
static char *_config_path(void)
{
	const char *conf = slurm_conf.slurm_conf;
	char *copy, *path;

	if (!conf || !conf[0])
		conf = getenv("SLURM_CONF");
	if (!conf || !conf[0])
		conf = "/etc/slurm/slurm.conf";
	copy = xstrdup(conf);
	path = xstrdup_printf("%s/hived.conf", dirname(copy));
	xfree(copy);
	return path;
}

/* Whole file as a NUL-terminated xmalloc()ed string, or NULL with errno. */
static char *_read_file(const char *path)
{
	struct stat st;
	char *buf;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || st.st_size > HIVED_MAX_FILE) {
		close(fd);
		errno = EFBIG;
		return NULL;
	}
	buf = xmalloc(st.st_size + 1);
	while (got < (size_t) st.st_size) {
		ssize_t n = read(fd, buf + got, st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	return buf;
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

/* Build a new engine, or reconfigure the running one keeping its jobs. */
static int _apply(char *text, const char *path)
{
	char err[1024] = "";
	hived_settings *new_settings = NULL;
	hived_rc rc;

	rc = hived_settings_load(text, &new_settings, err, sizeof(err));
	if (rc != HIVED_OK) {
		error("select/hived: %s: %s%s", path, err, engine ?
		      "; the previous hived.conf stays in force" :
		      "; GPU jobs are placed by cons_tres alone");
		return SLURM_ERROR;
	}
	if (!engine) {
		rc = hived_engine_new(text, &engine, err, sizeof(err));
		if (rc != HIVED_OK) {
			error("select/hived: %s: %s; GPU jobs are placed by cons_tres alone",
			      path, err);
			hived_settings_free(new_settings);
			return SLURM_ERROR;
		}
	} else {
		char *demoted = NULL;
		rc = hived_reconfigure(engine, text, &demoted);
		if (rc != HIVED_OK) {
			error("select/hived: %s: %s; the previous hived.conf stays in force",
			      path, hived_last_error(engine));
			hived_settings_free(new_settings);
			return SLURM_ERROR;
		}
		if (hived_last_error(engine)[0])
			error("select/hived: reconfigure: %s",
			      hived_last_error(engine));
		if (demoted && xstrcmp(demoted, "[]"))
			info("select/hived: reconfigure demoted to opportunistic (jobs no longer fit their VC): %s",
			     demoted);
		free(demoted);
	}
	hived_settings_free(settings);
	settings = new_settings;
	xfree(config_text);
	config_text = text;
	_map_nodes();
	info("select/hived: loaded %s: %zu nodes, %zu VCs",
	     path, hived_node_count(engine), hived_vc_count(engine));
	return SLURM_SUCCESS;
}

extern int hived_ctld_load(void)
{
	char *path = _config_path();
	char *text = _read_file(path);
	int rc;

	if (!text) {
		error("select/hived: cannot read %s: %m%s", path,
		      engine ? "; the previous hived.conf stays in force" :
		      "; GPU jobs are placed by cons_tres alone");
		xfree(path);
		return SLURM_ERROR;
	}
	if (config_text && !xstrcmp(text, config_text)) {
		xfree(text);	/* unchanged: keep bindings as they are */
		_map_nodes();
		xfree(path);
		return SLURM_SUCCESS;
	}
	rc = _apply(text, path);
	if (rc != SLURM_SUCCESS)
		xfree(text);
	xfree(path);
	return rc;
}

extern void hived_ctld_unload(void)
{
	hived_engine_free(engine);
	engine = NULL;
	hived_settings_free(settings);
	settings = NULL;
	xfree(config_text);
	xfree(to_slurm);
	xfree(to_engine);
	xfree(node_bad);
	to_engine_len = 0;
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

extern void hived_ctld_sync_nodes(void)
{
	size_t n;

	if (!engine || synced_node_update == last_node_update)
		return;
	synced_node_update = last_node_update;
	n = hived_node_count(engine);
	for (size_t i = 0; i < n; i++) {
		node_record_t *node_ptr = NULL;
		uint8_t bad;

		if (to_slurm[i] >= 0 && to_slurm[i] < node_record_count)
			node_ptr = node_record_table_ptr[to_slurm[i]];
		bad = !node_ptr || IS_NODE_DOWN(node_ptr) ||
		      IS_NODE_DRAIN(node_ptr) || IS_NODE_FAIL(node_ptr);
		if (bad == node_bad[i])
			continue;
		node_bad[i] = bad;
		if (hived_set_node_health(engine, hived_node_name(engine, i),
					  !bad) != HIVED_OK) {
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

extern void hived_ctld_state_save(const char *dir)
{
	char *json = NULL, *path, *tmp;
	int fd;
	size_t len, done = 0;

	if (!engine || hived_snapshot(engine, &json) != HIVED_OK)
		return;
	path = _state_path(dir);
	tmp = xstrdup_printf("%s.new", path);
	/* 0600: the state names every job's account and GPUs. */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
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
	if (done != len || fsync(fd) || close(fd)) {
		error("select/hived: cannot write %s: %m", tmp);
		if (done != len)
			close(fd);
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path))
		error("select/hived: cannot rename %s to %s: %m", tmp, path);
out:
	free(json);
	xfree(tmp);
	xfree(path);
}

/*
 * The state file keeps bindings exactly (which VC cell each job's GPUs serve);
 * Slurm's own job records are reconciled with it afterwards (job_init).
 */
extern void hived_ctld_state_restore(const char *dir)
{
	char *path, *text, err[1024] = "";
	hived_engine *restored = NULL;
	const char *const *names = NULL;

	if (!engine || hived_job_list(engine, &names))
		return;	/* only at start, before any job is known */
	path = _state_path(dir);
	text = _read_file(path);
	if (!text) {
		if (errno != ENOENT)
			error("select/hived: cannot read state file %s: %m; rebuilding from Slurm's jobs",
			      path);
		xfree(path);
		return;
	}
	if (hived_engine_restore(text, &restored, err, sizeof(err)) !=
	    HIVED_OK) {
		error("select/hived: state file %s is unusable (%s); rebuilding from Slurm's jobs",
		      path, err);
		goto out;
	}
	/* The file may predate a hived.conf edit: apply the current one. */
	if (hived_reconfigure(restored, config_text, NULL) != HIVED_OK) {
		error("select/hived: state file %s does not fit hived.conf (%s); rebuilding from Slurm's jobs",
		      path, hived_last_error(restored));
		hived_engine_free(restored);
		goto out;
	}
	hived_engine_free(engine);
	engine = restored;
	_map_nodes();
	info("select/hived: restored cell bindings from %s", path);
out:
	xfree(text);
	xfree(path);
}
