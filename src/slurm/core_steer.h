/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * core_steer.h - cores next to the GPUs HiveD chose (gres.conf Cores=).
 */
#ifndef HIVED_CORE_STEER_H
#define HIVED_CORE_STEER_H

#include "src/common/bitstring.h"
#include "src/common/node_conf.h"

#include "hived.h"
#include "slurm_gen.h"

/*
 * job_test's exclusions (in the release's own layout, see slurm_gen.h): exc's
 * cores plus, on every node of the decision, the cores that gres.conf does not
 * place next to any of the GPUs HiveD chose there. NULL when there is nothing
 * to steer (no Cores= in gres.conf, or the chosen GPUs are close to every core).
 * Free with hived_core_steer_free().
 */
extern hived_exc_t *hived_core_steer(const hived_decision *d, hived_exc_t *exc);
extern void hived_core_steer_free(hived_exc_t *steer);

/* The node's gpu GRES state if Slurm knows its topology (gres.conf lines). */
extern gres_node_state_t *hived_gpu_topo(node_record_t *node_ptr);

#endif
