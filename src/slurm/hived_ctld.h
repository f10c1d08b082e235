/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_ctld.h - the HiveD engine's life inside slurmctld, one concern a file:
 *   hived_ctld.c        the lock, the engine and settings in force, their end;
 *   hived_conf_load.c   hived.conf and sacctmgr limits into the engine;
 *   hived_nodes.c       engine nodes <-> Slurm's node table, node health;
 *   hived_state_file.c  the state file;
 *   hived_paths.c       where those files are (hived_paths.h).
 *
 * All functions expect hived_ctld_lock() held, except the lock calls themselves.
 * slurmctld already serialises select calls through its job/node locks; this
 * mutex covers the state-save thread and keeps the engine consistent if that
 * ever changes.
 */
#ifndef HIVED_CTLD_H
#define HIVED_CTLD_H

#include <stdbool.h>
#include <stdint.h>

#include "hived.h"

extern void hived_ctld_lock(void);
extern void hived_ctld_unlock(void);

/* --- hived_ctld.c ------------------------------------------------------ */

/* NULL until a valid hived.conf was loaded. */
extern hived_engine *hived_ctld_engine(void);
extern const hived_settings *hived_ctld_settings(void);
/* The effective config JSON the engine was built from (NULL before). */
extern const char *hived_ctld_config_text(void);
/* Counts accepted loads of hived.conf (a new value: new settings). */
extern uint64_t hived_ctld_accepted_generation(void);
/* Settings of a hived.conf now in force (taken over). */
extern void hived_ctld_accept_settings(hived_settings *new_settings);
/*
 * The engine now in force, e (NULL: the same one), built from text (NULL: the
 * same); both taken over. The node maps are rebuilt.
 */
extern void hived_ctld_accept_engine(hived_engine *e, char *text);
extern void hived_ctld_unload(void);
/* Run the invariant checker when hived.conf asks for it; logs violations. */
extern void hived_ctld_check(const char *where);

/* --- hived_conf_load.c ------------------------------------------------- */

/*
 * Read hived.conf and build the engine, or (when one exists) reconfigure it
 * keeping running jobs. A bad config leaves the old engine in force.
 */
extern int hived_ctld_load(void);
/* Pick up sacctmgr GrpTRES gres/gpu changes (checked every few seconds). */
extern void hived_ctld_refresh_quotas(void);
/*
 * A restored engine meets the hived.conf in force (see hived_conf_load.c);
 * *report as hived_reconfigure_ex's. HIVED_OK: restored may replace the engine.
 */
extern hived_rc hived_ctld_fit_state(hived_engine *restored, char **report);
/* What a reload (`where`) did to running jobs: log and SystemComment. */
extern void hived_ctld_log_report(const char *where, const char *report);
/* The copy of hived.conf found at start is no longer needed. */
extern void hived_ctld_forget_kept(void);
extern void hived_ctld_conf_unload(void);

/* --- hived_nodes.c ----------------------------------------------------- */

/* (Re)build the node index maps for the engine in force. */
extern void hived_ctld_map_nodes(void);
extern void hived_ctld_nodes_free(void);
/* Node index maps; -1 when the node is unknown on the other side. */
extern int hived_ctld_slurm_index(int32_t engine_node);
extern int32_t hived_ctld_engine_node(int slurm_index);

/* Mark DOWN/DRAIN/FAIL nodes bad and others healthy, if nodes changed. */
extern void hived_ctld_sync_nodes(void);

/*
 * For the status thread, which holds no lock: whether Slurm's nodes changed
 * since the last sync (a hint read without locks), and the sync itself under
 * slurmctld's node read lock, then ours.
 */
extern bool hived_ctld_nodes_stale(void);
extern void hived_ctld_sync_nodes_unlocked(void);

/* --- hived_state_file.c ------------------------------------------------ */

/* The state file in StateSaveLocation. */
extern void hived_ctld_state_save(const char *dir);
/*
 * The same in two steps, so that the slow write (fsync) runs without our lock:
 * the snapshot (under the lock; xfree both) and the write (without it).
 */
extern int hived_ctld_state_snapshot(const char *dir, char **path, char **json);
/*
 * The same from any engine (a copy: no lock needed) and the file's path (under
 * the lock: the settings name it); xfree both.
 */
extern int hived_ctld_state_snapshot_of(const hived_engine *engine,
					char **json);
extern char *hived_ctld_state_path(const char *dir);
extern void hived_ctld_state_write(const char *path, const char *json);
extern void hived_ctld_state_restore(const char *dir);

#endif
