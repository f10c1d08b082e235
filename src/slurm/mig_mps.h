/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mig_mps.h - nodes with MIG slices and gres/mps side by side, which Slurm
 * 22.05 mishandles (mig_mps.c); nothing to do on later releases.
 */
#ifndef HIVED_MIG_MPS_H
#define HIVED_MIG_MPS_H

#include <stddef.h>
#include <stdint.h>

#include "src/common/bitstring.h"
#include "src/common/node_conf.h"

/*
 * An error line for the node if it has both, once from each load on (the node
 * sync calls it: Slurm knows a node's GRES types once its slurmd registered).
 */
extern void hived_mig_mps_note(node_record_t *node_ptr);
extern void hived_mig_mps_forget(void);
/*
 * A slice job of `type` is refused (*why) when every node in bitmap (NULL: all)
 * with MIG slices also has gres/mps.
 */
extern bool hived_mig_mps_refused(bitstr_t *bitmap, const char *type,
				  char **why);
/* Takes the nodes with both out of a slice job's allowed engine nodes. */
extern void hived_mig_mps_disallow(uint8_t *allowed, size_t n_nodes);

#endif
