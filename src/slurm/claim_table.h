/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * claim_table.h - the bookkeeping of hived_claims.c without Slurm: which job
 * claimed which nodes, for which victims, since when.
 */
#ifndef HIVED_CLAIM_TABLE_H
#define HIVED_CLAIM_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

typedef struct {
	uint32_t job_id;
	uint32_t priority;	/* Slurm's, of the claimant */
	time_t made;
	uint8_t *nodes;		/* n_nodes bytes, 1: claimed */
	size_t n_nodes;
	uint32_t *victims;
	size_t n_victims;
} claim_t;

typedef struct {
	claim_t *v;
	size_t n, cap;
} claim_table_t;

/*
 * job_id (of priority) claims nodes[0..n_nodes) for victims[0..n_victims).
 * A claim asked again with the same victims keeps its age. RET how many of
 * the victims it had not claimed before (all of them when memory ran out and
 * the claim was not recorded).
 */
extern size_t claim_table_make(claim_table_t *t, uint32_t job_id,
			       uint32_t priority, const uint8_t *nodes,
			       size_t n_nodes, const uint32_t *victims,
			       size_t n_victims, time_t now);

extern claim_t *claim_table_find(claim_table_t *t, uint32_t job_id);

extern void claim_table_remove(claim_table_t *t, uint32_t job_id);

/*
 * Drops the claims older than max_age seconds and those for which keep()
 * answers false; keep() may update *priority (the claimant's current one).
 */
typedef bool (*claim_keep_f)(uint32_t job_id, uint32_t *priority, void *arg);
extern void claim_table_expire(claim_table_t *t, time_t now, time_t max_age,
			       claim_keep_f keep, void *arg);

/*
 * out[0..n_nodes) gets 1 on every node claimed by another job than job_id
 * whose priority is at least priority (job_id does not outrank it); claims
 * made over another node count are skipped. RET one such claimant, 0: none.
 */
extern uint32_t claim_table_against(const claim_table_t *t, uint32_t job_id,
				    uint32_t priority, uint8_t *out,
				    size_t n_nodes);

extern void claim_table_free(claim_table_t *t);

#endif
