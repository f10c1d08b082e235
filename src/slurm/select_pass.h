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

/*
 * The select_gen_*.c init: open cons_tres, resolve that file's own operations
 * (n_own of them into own_table, own_size bytes) and select_pass.c's. Which is
 * whose, and the table configure checks: select_ops.h. RET SLURM_SUCCESS or
 * SLURM_ERROR (logged).
 */
extern int hived_select_forward_open(hived_fwd_t *cons_tres_so,
				     const hived_fwd_op_t *own, size_t n_own,
				     void *own_table, size_t own_size);
extern void hived_select_pass_clear(void);

#endif
