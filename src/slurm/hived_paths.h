/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_paths.h - where select/hived's files are: hived.conf, gres.conf and
 * topology.conf beside slurm.conf; the copy of the hived.conf in force and the
 * state file in StateSaveLocation. Strings returned are xmalloc()ed.
 */
#ifndef HIVED_PATHS_H
#define HIVED_PATHS_H

/* slurm.conf as slurmctld read it (SLURM_CONF, else the default). */
extern const char *hived_path_slurm_conf(void);
/* A file beside slurm.conf. */
extern char *hived_path_beside_slurm_conf(const char *name);
/*
 * The hived.conf text last accepted, kept beside the state file. From 24.05
 * "scontrol reconfigure" replaces slurmctld with a new process, where a refused
 * hived.conf meets no engine to keep: this copy stands in for it.
 */
extern char *hived_path_kept_conf(void);
/* The state file: hived.conf's stateFile (NULL: the default), absolute or in dir. */
extern char *hived_path_state(const char *dir, const char *state_file);
/* A config or state file, whole; NULL with errno set when it cannot be read. */
extern char *hived_path_read(const char *path);

#endif
