/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latency_hist.h - a fixed-size log histogram of call durations over a whole
 * slurmctld run, so that p50 and p99 describe every call since start and not
 * only a recent window (a 4,096-call window read 2.2 ms where the whole run's
 * p99 was 18 ms). Values within 1/16 of the truth; no allocation, O(1) add.
 */
#ifndef HIVED_LATENCY_HIST_H
#define HIVED_LATENCY_HIST_H

#include <stdint.h>

/* 16 exact buckets below 16, then 16 per power of two up to 2^64 (7.8 KB). */
#define LATENCY_HIST_BUCKETS (16 + 60 * 16)

typedef struct {
	uint64_t count[LATENCY_HIST_BUCKETS];
	uint64_t n, sum, max;
} latency_hist_t;

extern void latency_hist_add(latency_hist_t *h, uint64_t v);

/*
 * The q-quantile (0 < q <= 1) by nearest rank: the upper edge of the bucket
 * holding that rank, never above the largest value seen; 0 when empty.
 */
extern uint64_t latency_hist_quantile(const latency_hist_t *h, double q);

#endif
