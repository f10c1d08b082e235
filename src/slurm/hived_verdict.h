/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_verdict.h - what priority/hived asks select/hived in the same
 * slurmctld: a job's class, from the one classification select/hived decides
 * with (hived_job_classify), and the engine's quota view. Exported by
 * plugin.map; priority/hived reaches them with dlsym() on slurmctld's own copy
 * of select_hived.so (Slurm dlopen()s plugins RTLD_LOCAL). Both take
 * select/hived's lock: call them after slurmctld's locks, never under
 * anything select/hived might wait for.
 */
#ifndef HIVED_VERDICT_H
#define HIVED_VERDICT_H

#include <stdint.h>

#include "src/slurmctld/slurmctld.h"

#include "priority_order.h"

typedef enum {
	/* no GPUs, a GPU shape cons_tres places alone, or no hived.conf in force */
	HIVED_VERDICT_NOT_HIVED,
	HIVED_VERDICT_GUARANTEED,
	HIVED_VERDICT_OPPORTUNISTIC,
	/* select/hived refuses it (an account without cells, accountsWithoutCells=reject) */
	HIVED_VERDICT_REFUSED
} hived_verdict_kind_t;

typedef struct {
	hived_verdict_kind_t kind;
	int64_t gpus;		/* GPUs it asks (GUARANTEED, OPPORTUNISTIC, REFUSED) */
	/* shard jobs: smallest fractions taken, each pod's rounded up to its buddy cell */
	int64_t fractions;
	char *vc;		/* its VC (xmalloc()ed), NULL if none */
} hived_verdict_t;

/* Caller holds the job read (or write) lock. xfree(v->vc) after. */
extern void hived_select_verdict(job_record_t *job_ptr, hived_verdict_t *v);
typedef void (*hived_select_verdict_f)(job_record_t *job_ptr,
				       hived_verdict_t *v);

/*
 * Each VC's quota leaf cells no job holds and that can be had (doomed cells are
 * not free), each chain's leaf cells per GPU ("leavesPerGpu") and the running jobs the engine holds as opportunistic, into
 * *out (malloc()ed; hived_po_status_free), when the engine changed since
 * *generation. RET 1 filled (and *generation updated), 0 unchanged, -1 no
 * hived.conf in force (*out emptied).
 */
extern int hived_select_view(uint64_t *generation, hived_po_status *out);
typedef int (*hived_select_view_f)(uint64_t *generation, hived_po_status *out);

#endif
