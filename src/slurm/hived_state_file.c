/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_state_file.c - the engine's state file in StateSaveLocation: written
 * atomically (0600: it names every job's account and GPUs), restored once at
 * start.
 */
#include "src/common/slurm_xlator.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "hived_ctld.h"
#include "hived_paths.h"

static char *_state_path(const char *dir)
{
	const hived_settings *s = hived_ctld_settings();

	return hived_path_state(dir, s ? s->state_file : NULL);
}

extern char *hived_ctld_state_path(const char *dir)
{
	return _state_path(dir);
}

extern int hived_ctld_state_snapshot_of(const hived_engine *engine,
					char **json)
{
	char *text = NULL;

	*json = NULL;
	if (!engine || hived_snapshot(engine, &text) != HIVED_OK)
		return SLURM_ERROR;
	*json = xstrdup(text);
	free(text);
	return SLURM_SUCCESS;
}

extern int hived_ctld_state_snapshot(const char *dir, char **path,
				     char **json)
{
	*path = NULL;
	if (hived_ctld_state_snapshot_of(hived_ctld_engine(), json) !=
	    SLURM_SUCCESS)
		return SLURM_ERROR;
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
 * The state file keeps bindings exactly (which VC cell each job's GPUs serve);
 * Slurm's own job records are reconciled with it afterwards (job_init).
 */
extern void hived_ctld_state_restore(const char *dir)
{
	char *path, *text, err[1024] = "", *demoted = NULL;
	hived_engine *restored = NULL, *engine = hived_ctld_engine();
	const char *const *names = NULL;

	if (!engine || hived_job_list(engine, &names)) {
		hived_ctld_forget_kept();
		return;	/* only at start, before any job is known */
	}
	path = _state_path(dir);
	text = hived_path_read(path);
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
	if (hived_ctld_fit_state(restored, &demoted) != HIVED_OK) {
		error("select/hived: state file %s does not fit hived.conf (%s); rebuilding from Slurm's jobs",
		      path, hived_last_error(restored));
		hived_engine_free(restored);
		goto out;
	}
	hived_ctld_accept_engine(restored, NULL);
	engine = restored;
	info("select/hived: restored cell bindings from %s", path);
	if (hived_last_error(engine)[0])
		error("select/hived: state file %s: %s", path,
		      hived_last_error(engine));
	hived_ctld_log_report("hived.conf applied to the state file", demoted);
out:
	free(demoted);
	xfree(text);
	xfree(path);
	hived_ctld_forget_kept();	/* the next load is a reload */
}
