/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plugin_forward.c - dlopen()/dlsym() of a Slurm plugin found in PluginDir.
 */
#include "src/common/slurm_xlator.h"

#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "plugin_forward.h"

/*
 * RTLD_LOCAL on purpose: with RTLD_GLOBAL the target's plugin_id/plugin_type
 * would become visible to every later dlopen() and could shadow another
 * plugin's symbols of the same name.
 */
static void *_open_one(const char *path, bool *loaded_here)
{
	void *h = dlopen(path, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);

	if (h) {
		*loaded_here = false;
		return h;
	}
	if (access(path, R_OK) != 0)
		return NULL;
	h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
	if (!h)
		error("hived: dlopen(%s): %s", path, dlerror());
	*loaded_here = (h != NULL);
	return h;
}

extern int hived_fwd_open(hived_fwd_t *fwd, const char *so_name)
{
	char *dirs, *dir, *save = NULL;
	const char *plugindir = slurm_conf.plugindir;

	memset(fwd, 0, sizeof(*fwd));
	if (!plugindir || !plugindir[0]) {
		error("hived: PluginDir is not set; cannot find %s", so_name);
		return SLURM_ERROR;
	}

	dirs = xstrdup(plugindir);
	for (dir = strtok_r(dirs, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		char *path = xstrdup_printf("%s/%s", dir, so_name);

		fwd->handle = _open_one(path, &fwd->loaded_here);
		if (fwd->handle) {
			fwd->path = path;
			break;
		}
		xfree(path);
	}
	xfree(dirs);

	if (!fwd->handle) {
		error("hived: %s not found in PluginDir=%s", so_name, plugindir);
		return SLURM_ERROR;
	}
	debug("hived: using %s (%s)", fwd->path,
	      fwd->loaded_here ? "loaded by us" : "already loaded");
	return SLURM_SUCCESS;
}

extern int hived_fwd_resolve(hived_fwd_t *fwd, const char **names, void **ptrs,
			     size_t n)
{
	for (size_t i = 0; i < n; i++) {
		ptrs[i] = dlsym(fwd->handle, names[i]);
		if (!ptrs[i]) {
			error("hived: %s has no symbol %s", fwd->path, names[i]);
			return SLURM_ERROR;
		}
	}
	return SLURM_SUCCESS;
}

extern int hived_fwd_resolve_ops(hived_fwd_t *fwd, const hived_fwd_op_t *ops,
				 size_t n, void *table)
{
	for (size_t i = 0; i < n; i++) {
		void **slot = (void **) ((char *) table + ops[i].offset);

		*slot = dlsym(fwd->handle, ops[i].name);
		if (!*slot) {
			error("hived: %s has no symbol %s", fwd->path,
			      ops[i].name);
			return SLURM_ERROR;
		}
	}
	return SLURM_SUCCESS;
}

extern int hived_fwd_call_init(hived_fwd_t *fwd)
{
	int (*init_fn)(void) = dlsym(fwd->handle, "init");

	if (!init_fn)
		return SLURM_SUCCESS;
	if (init_fn() != SLURM_SUCCESS) {
		error("hived: init() of %s failed", fwd->path);
		return SLURM_ERROR;
	}
	return SLURM_SUCCESS;
}

extern int hived_fwd_call_fini(hived_fwd_t *fwd)
{
	int (*fini_fn)(void) = dlsym(fwd->handle, "fini");

	if (!fini_fn)
		return SLURM_SUCCESS;
	return fini_fn();
}

extern void hived_fwd_close(hived_fwd_t *fwd)
{
	if (fwd->handle)
		dlclose(fwd->handle);
	xfree(fwd->path);
	memset(fwd, 0, sizeof(*fwd));
}
