/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * priority_gen.h - priority/multifactor underneath priority/hived, per Slurm release.
 *
 * priority_gen.c holds the entry points that only pass a call on (they differ
 * between releases: recover 23.02+, thread_start 23.11+, the factors list by uid
 * 24.05+, no calc_fs_factor 25.11+) and the forwarding table behind them.
 * priority_hived.c keeps the two with HiveD's logic (set, reconfig).
 */
#ifndef HIVED_PRIORITY_GEN_H
#define HIVED_PRIORITY_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include "src/slurmctld/slurmctld.h"

/* Find priority_multifactor.so in PluginDir, resolve it, init it if we loaded it. */
extern int hived_multifactor_open(void);
/* fini it if we loaded it, drop our reference. */
extern void hived_multifactor_close(void);

extern uint32_t hived_multifactor_set(uint32_t last_prio, job_record_t *job_ptr);
extern void hived_multifactor_reconfig(bool assoc_clear);

#endif
