/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * priority_order.h - HiveD's order of pending jobs, for priority/hived.
 *
 * priority/hived asks select/hived in the same slurmctld (hived_verdict.h) for
 * each job's class and for its quota view, the VCs' part of the engine's cluster
 * status (the "cluster" of hived_status.json): each VC's quota, doomed and used
 * leaf cells, and (optional "leavesPerGpu": {chain: n}) how many leaf cells one
 * GPU is in each chain, so that a whole-GPU job and a shard job are counted in
 * the same unit: a shard job counts as its fraction of a GPU, not as 0 GPUs.
 * From that it puts every job in one of three bands:
 *
 *   FITS   guaranteed jobs that fit their VC's free quota GPUs (and jobs HiveD
 *          does not place: no GPUs, or a GPU shape it leaves to cons_tres);
 *   WAITS  guaranteed jobs that do not fit (the VC's own jobs hold its quota);
 *   OPPORTUNISTIC  opportunistic jobs, and jobs select/hived refuses, last.
 *
 * "Fits" is cumulative per VC, in the VC's own priority order, so a VC that
 * floods the queue gets no more jobs into FITS than its free quota holds and
 * cannot push another VC's in-quota jobs down. No Slurm headers here: the unit
 * test links this file alone.
 */
#ifndef HIVED_PRIORITY_ORDER_H
#define HIVED_PRIORITY_ORDER_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
	HIVED_BAND_OPPORTUNISTIC = 0,
	HIVED_BAND_WAITS = 1,
	HIVED_BAND_FITS = 2
} hived_band_t;

/*
 * Per VC: what its guaranteed jobs may still take, in the engine's leaf cells:
 * GPUs, or in a chain with cell levels below the GPU its smallest fractions.
 */
typedef struct {
	char *name;
	int64_t free_leaves;
	/* leaf cells of one GPU in the VC's chains (the most of them), 1 if whole */
	int64_t leaves_per_gpu;
} hived_po_vc;

typedef struct {
	hived_po_vc *vcs;
	size_t n_vcs;
	char **opportunistic_jobs;	/* running jobs the engine holds as opportunistic */
	size_t n_opportunistic_jobs;
	int64_t written;
} hived_po_status;

/* Parse a status document ({"cluster": ...}). RET 0, or -1 with a reason in err. */
int hived_po_parse(const char *text, hived_po_status *out, char *err,
		   size_t errlen);
void hived_po_status_free(hived_po_status *s);

/* The VC named like an account (case-insensitive), or NULL. */
const hived_po_vc *hived_po_find_vc(const hived_po_status *s,
				    const char *account);
/* Does the engine hold this (running) job as opportunistic? */
int hived_po_job_opportunistic(const hived_po_status *s, const char *job);

typedef struct {
	uint32_t job_id;
	const char *vc;		/* NULL: not a VC's job */
	int64_t gpus;		/* whole GPUs (or MIG slices) asked */
	/* smallest fractions asked (shards), each pod's rounded up to its buddy cell */
	int64_t fractions;	/* gpus and fractions 0: not HiveD's (band FITS) */
	int guaranteed;		/* 0: opportunistic */
	double base;		/* priority without HiveD's factor */
	hived_band_t band;	/* out */
} hived_po_job;

/* Leaf cells job j takes of vc's quota: its GPUs in the VC's leaves, and its fractions. */
int64_t hived_po_demand(const hived_po_vc *vc, const hived_po_job *j);

/*
 * Bands for pending jobs. Guaranteed jobs of each VC take its free leaves in
 * base-priority order (ties: lower job id first); a job that does not fit
 * leaves them to later, smaller jobs. With s NULL (no status yet) every
 * guaranteed job FITS.
 */
void hived_po_order(const hived_po_status *s, hived_po_job *jobs, size_t n);

/*
 * The factor a band adds: band * weight. weight must exceed everything
 * multifactor can add (the sum of the PriorityWeight* values), so bands never
 * mix. RET weight = 1 + that sum, at most 1e9.
 */
uint32_t hived_po_weight(uint32_t sum_of_weights);

#endif
