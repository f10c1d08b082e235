/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * node_claims.h - whole nodes a preemptor freed stay its own until it starts.
 *
 * A decision names victims but reserves nothing: once they have left, the node
 * goes to the first job Slurm tests, and that is often not the preemptor (a job
 * of higher priority, or another preemptor whose own node was taken the same
 * way). The preemptor then binds elsewhere and requeues more jobs. In a
 * contended-nodes run of issue 18 three whole-node preemptors took each
 * other's freed nodes within 4 ms, and one of them requeued 8 jobs for one
 * node. A claim keeps other jobs' placements off the nodes whose every GPU the
 * preemptor's decision takes, for as long as it pends, up to a deadline.
 * No Slurm headers, no allocation: tested alone (tests/slurm).
 */
#ifndef HIVED_NODE_CLAIMS_H
#define HIVED_NODE_CLAIMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Preemptors with a claim at once; the one claimed longest ago goes first. */
#define NODE_CLAIMS_JOBS 64
/* Nodes one claim holds (a gang of more whole nodes claims its first ones). */
#define NODE_CLAIMS_NODES 32

typedef struct {
	uint32_t job;		/* 0: a free slot */
	int64_t until;		/* the claim lapses at this time */
	uint32_t n;
	int32_t node[NODE_CLAIMS_NODES];	/* engine node indexes */
} node_claim_t;

typedef struct {
	node_claim_t claim[NODE_CLAIMS_JOBS];
	uint32_t next;		/* the slot a new claim takes when full */
} node_claims_t;

/* job claims nodes[0..n) until `until` (replacing its earlier claim). */
extern void node_claims_set(node_claims_t *c, uint32_t job,
			    const int32_t *nodes, size_t n, int64_t until);

/*
 * The nodes job claims at `now` (*nodes: NULL if none; a lapsed claim is
 * dropped), valid until the next change.
 */
extern size_t node_claims_of(node_claims_t *c, uint32_t job, int64_t now,
			     const int32_t **nodes);

/* job started or left the queue: its claim goes. */
extern void node_claims_drop(node_claims_t *c, uint32_t job);

/* Whether job still pends: a claim of a job that does not is dropped. */
typedef bool (*node_claims_pends_f)(uint32_t job);

/*
 * Takes node away from the job being placed if it may use it now: RET whether
 * it could (a node it could not use was kept from no one).
 */
typedef bool (*node_claims_take_f)(int32_t node, void *arg);

/*
 * Calls take(node, arg) for each node another job's live claim holds at `now`;
 * lapsed claims and those of jobs `pends` says no longer pend are dropped. RET
 * the job whose claim took the first node take() took (0: none took any).
 */
extern uint32_t node_claims_keep_off_each(node_claims_t *c, uint32_t job,
					  int64_t now,
					  node_claims_pends_f pends,
					  node_claims_take_f take, void *arg);

/*
 * Clears allowed[i] (i < n_nodes) for each node another job's live claim holds
 * at `now`; lapsed claims and those of jobs `pends` says no longer pend are
 * dropped. RET the job whose claim took the first node job was allowed (0:
 * none took any).
 */
extern uint32_t node_claims_keep_off(node_claims_t *c, uint32_t job,
				     int64_t now, uint8_t *allowed,
				     size_t n_nodes, node_claims_pends_f pends);

/*
 * node_claims_keep_off() for an exclusive job's two masks: clears the claimed
 * nodes from allowed (its nodes of one size; RET as there) and from usable (its
 * nodes of any size, may be NULL) in one pass over the claims.
 */
extern uint32_t node_claims_keep_off_both(node_claims_t *c, uint32_t job,
					  int64_t now, uint8_t *allowed,
					  uint8_t *usable, size_t n_nodes,
					  node_claims_pends_f pends);

#ifdef __cplusplus
}
#endif

#endif
