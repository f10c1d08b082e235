/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ctld_symbols.h - slurmctld-only symbols the plugin uses.
 *
 * slurmd, slurmstepd and every client also load select_hived.so (select_g_init
 * loads every select plugin), and there these symbols do not exist. Declared
 * weak, they resolve to NULL outside slurmctld, where the hooks never run.
 */
#ifndef HIVED_CTLD_SYMBOLS_H
#define HIVED_CTLD_SYMBOLS_H

#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

extern time_t last_job_update __attribute__((weak));
extern job_record_t *find_job_record(uint32_t job_id) __attribute__((weak));
extern void lock_slurmctld(slurmctld_lock_t lock_levels) __attribute__((weak));
extern void unlock_slurmctld(slurmctld_lock_t lock_levels) __attribute__((weak));

#endif
