/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_ends.h - the running jobs' expected ends, as backfill reads them, kept
 * between calls.
 */
#ifndef HIVED_ENDS_H
#define HIVED_ENDS_H

#include <time.h>

#include "hived.h"

typedef struct {
	time_t end;
	int64_t leaves;
} hived_release_t;

/*
 * Every running job of the engine that Slurm expects to end, in end order (equal
 * ends in the engine's job order), for hived_will_run: *n is how many end by
 * horizon (0: all of them). Valid until the next call here or hived_ends_free().
 * *gen: the list's number for hived_will_run_kept, new whenever the list is built
 * again (0: no list).
 */
extern const hived_job_end *hived_ends_by(hived_engine *e, time_t horizon,
					  size_t *n, uint64_t *gen);

/*
 * The GPUs (leaf cells) of vc's quota that its running jobs give back, in end
 * order; *n entries, NULL if none. Valid as above.
 */
extern const hived_release_t *hived_ends_releases(hived_engine *e,
						  const char *vc, size_t *n);

extern void hived_ends_free(void);

#endif
