/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_ctld.c - the HiveD engine's life inside slurmctld: the lock, the engine
 * and the settings in force, their replacement and their end. What builds them
 * is hived_conf_load.c; nodes are hived_nodes.c's, the state file
 * hived_state_file.c's.
 */
#include "src/common/slurm_xlator.h"

#include <pthread.h>

#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "hived_ctld.h"
#include "hived_fractions.h"
#include "hived_status.h"

static pthread_mutex_t engine_mutex = PTHREAD_MUTEX_INITIALIZER;
static hived_engine *engine = NULL;
static hived_settings *settings = NULL;
static char *config_text = NULL;	/* what the engine was built from */
static uint64_t accepted_gen = 0;	/* hived.conf loads accepted so far */

extern void hived_ctld_lock(void)
{
	slurm_mutex_lock(&engine_mutex);
}

extern void hived_ctld_unlock(void)
{
	slurm_mutex_unlock(&engine_mutex);
}

extern hived_engine *hived_ctld_engine(void)
{
	return engine;
}

extern const hived_settings *hived_ctld_settings(void)
{
	return settings;
}

extern const char *hived_ctld_config_text(void)
{
	return config_text;
}

extern uint64_t hived_ctld_accepted_generation(void)
{
	return accepted_gen;
}

extern void hived_ctld_accept_settings(hived_settings *new_settings)
{
	hived_settings_free(settings);
	settings = new_settings;
	accepted_gen++;
}

extern void hived_ctld_accept_engine(hived_engine *e, char *text)
{
	if (e && (e != engine)) {
		hived_engine_free(engine);
		engine = e;
	}
	if (text) {
		xfree(config_text);
		config_text = text;
	}
	hived_ctld_map_nodes();
	/* Per engine, not per job_test: the leaves-per-GPU table. */
	if (engine)
		(void) hived_leaves_per_gpu_max(engine);
}

extern void hived_ctld_unload(void)
{
	hived_engine_free(engine);
	engine = NULL;
	hived_settings_free(settings);
	settings = NULL;
	xfree(config_text);
	hived_ctld_conf_unload();
	hived_ctld_nodes_free();
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
