/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * select_pass.h - the select_p_* entry points every interface generation
 * forwards to cons_tres the same way (select_pass.c), so that a select_gen_*.c
 * holds only what its release does differently.
 */
#ifndef HIVED_SELECT_PASS_H
#define HIVED_SELECT_PASS_H

#include <stddef.h>

#include "plugin_forward.h"

/* Resolve them in cons_tres (the select_gen_*.c init). RET SLURM_SUCCESS or SLURM_ERROR. */
extern int hived_select_pass_resolve(hived_fwd_t *cons_tres_so);
extern void hived_select_pass_clear(void);
/* How many operations select_pass.c forwards in this generation. */
extern size_t hived_select_pass_count(void);

#endif
