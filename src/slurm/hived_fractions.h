/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_fractions.h - a job's demand in the engine's leaf cells. The engine
 * counts a VC's quota and use in leaf cells: GPUs, or in a chain with cell
 * levels below the GPU (shards) its smallest fractions. A whole-GPU job and a
 * shard job are compared with that quota in the same unit: backfill's start
 * time for a job held at its VC's quota, and priority/hived's bands (through
 * the leaf cells per GPU it gets with the quota view).
 */
#ifndef HIVED_FRACTIONS_H
#define HIVED_FRACTIONS_H

#include <stdint.h>

#include "hived.h"

/* A member's fractions as the engine takes them: per pod, k rounded up to its buddy cell. */
extern int64_t hived_member_fraction_leaves(const hived_member *m);

/*
 * {"chain": leaf cells per GPU, ...} for the chains with levels below the GPU
 * (compact JSON, valid until the next call; "{}" if none). Caller holds
 * hived_ctld_lock(). Rebuilt only for a new engine or hived.conf.
 */
extern const char *hived_leaves_per_gpu_json(hived_engine *e);

/* The most leaf cells one GPU is in any chain (1: no levels below the GPU). */
extern int64_t hived_leaves_per_gpu_max(hived_engine *e);

/*
 * Leaf cells a request takes: its fractions, its MIG slices (one leaf each) and
 * its whole GPUs at hived_leaves_per_gpu_max each. Caller holds hived_ctld_lock().
 */
extern int64_t hived_request_leaves(hived_engine *e, const hived_job_request *r);

#endif
