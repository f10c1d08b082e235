/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * core_steer.h - cores next to the GPUs HiveD chose (gres.conf Cores=).
 */
#ifndef HIVED_CORE_STEER_H
#define HIVED_CORE_STEER_H

#include "src/common/bitstring.h"

#include "hived.h"

/*
 * A system-wide core bitmap (the layout select_g_job_test's exc_core_bitmap
 * uses): exc_core_bitmap's cores plus, on every node of the decision, the cores
 * that gres.conf does not place next to any of the GPUs HiveD chose there.
 * NULL when there is nothing to steer (no Cores= in gres.conf, or the chosen
 * GPUs are close to every core).
 */
extern bitstr_t *hived_core_steer(const hived_decision *d,
				  bitstr_t *exc_core_bitmap);

#endif
