/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_claims.h - the nodes a job preempted for are its until it starts.
 */
#ifndef HIVED_CLAIMS_H
#define HIVED_CLAIMS_H

#include "src/common/bitstring.h"

#include "ctld_symbols.h"

/* A claim lapses this long after it was made (the victims had time to go). */
#define HIVED_CLAIM_SECONDS 60

/*
 * job preempts the jobs ids[0..n) for its cells on nodes (Slurm indices,
 * copied): it claims those nodes. RET how many of the victims it had not
 * claimed before (0: the same preemption asked again).
 */
extern size_t hived_claim_make(job_record_t *job, bitstr_t *nodes,
			       const char *const *ids, size_t n);

/*
 * Whether job holds a live claim some of whose victims are still leaving
 * (requeued or killed and completing, or in their GraceTime); *ids (if ids
 * is not NULL): them as "3,4" (xfree it), only when true.
 */
extern bool hived_claim_victims_leaving(job_record_t *job, char **ids);

/* The nodes of job's live claim (NULL: none; owned here). */
extern bitstr_t *hived_claim_nodes(job_record_t *job);

/*
 * The nodes other jobs claimed that job must leave alone: live claims of jobs
 * it does not outrank in Slurm's order (NULL: none; owned here, valid until
 * the next call); *owner: one of their job ids.
 */
extern bitstr_t *hived_claims_against(job_record_t *job, uint32_t *owner);

/* job_id started (or left): its claim ends. */
extern void hived_claim_drop(uint32_t job_id);

extern void hived_claims_free(void);

#endif
