/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plugin_forward.h - borrow the entry points of one of Slurm's own plugins.
 *
 * select/hived and priority/hived let Slurm's plugins (cons_tres, multifactor) do
 * everything HiveD does not decide. They reach those plugins with dlopen()/dlsym()
 * rather than Slurm's plugin API because the plugin API would run the target's
 * init()/fini() again on a copy slurmctld already owns.
 */
#ifndef HIVED_PLUGIN_FORWARD_H
#define HIVED_PLUGIN_FORWARD_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
	void *handle;
	bool loaded_here;	/* false: slurmctld had it loaded already */
	char *path;		/* xmalloc()ed full path it came from */
} hived_fwd_t;

/*
 * Find so_name (e.g. "select_cons_tres.so") in the colon-separated PluginDir and
 * dlopen() it, reusing the copy already in the process when there is one.
 * RET SLURM_SUCCESS or SLURM_ERROR (logged).
 */
extern int hived_fwd_open(hived_fwd_t *fwd, const char *so_name);

/*
 * Resolve n symbol names into ptrs[]. Every name must resolve.
 * RET SLURM_SUCCESS or SLURM_ERROR naming the first missing symbol.
 */
extern int hived_fwd_resolve(hived_fwd_t *fwd, const char **names, void **ptrs,
			     size_t n);

/* A symbol and where its pointer goes in a table of function pointers. */
typedef struct {
	const char *name;
	size_t offset;
} hived_fwd_op_t;

/*
 * Resolve n operations into the table at `table` (each at its offset), so that a
 * table's field order need not follow any list. Every name must resolve.
 * RET SLURM_SUCCESS or SLURM_ERROR naming the first missing symbol.
 */
extern int hived_fwd_resolve_ops(hived_fwd_t *fwd, const hived_fwd_op_t *ops,
				 size_t n, void *table);

/* Run the target's init() (only meaningful when loaded_here). */
extern int hived_fwd_call_init(hived_fwd_t *fwd);

/* Run the target's fini(): only for a plugin Slurm itself never loads. */
extern int hived_fwd_call_fini(hived_fwd_t *fwd);

/* Drop our reference; does not run the target's fini(). */
extern void hived_fwd_close(hived_fwd_t *fwd);

#endif
