/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latency_hist.c - see latency_hist.h.
 */
#include "latency_hist.h"

static int _floor_log2(uint64_t v)
{
	int e = 0;

	while (v >>= 1)
		e++;
	return e;
}

static int _bucket(uint64_t v)
{
	int e;

	if (v < 16)
		return (int) v;
	e = _floor_log2(v);
	/* The four bits after the leading one pick one of 16 sub-buckets. */
	return 16 + (e - 4) * 16 + (int) ((v >> (e - 4)) & 15);
}

/* The largest value that falls in bucket b. */
static uint64_t _upper(int b)
{
	int e, m;

	if (b < 16)
		return (uint64_t) b;
	e = (b - 16) / 16 + 4;
	m = (b - 16) % 16;
	if (e == 63 && m == 15)
		return UINT64_MAX;
	return ((uint64_t) (17 + m) << (e - 4)) - 1;
}

extern void latency_hist_add(latency_hist_t *h, uint64_t v)
{
	h->count[_bucket(v)]++;
	h->n++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
}

extern uint64_t latency_hist_quantile(const latency_hist_t *h, double q)
{
	double want = q * (double) h->n;
	uint64_t rank, seen = 0;

	if (!h->n)
		return 0;
	rank = (uint64_t) want;
	if ((double) rank < want)
		rank++;
	if (rank < 1)
		rank = 1;
	for (int b = 0; b < LATENCY_HIST_BUCKETS; b++) {
		seen += h->count[b];
		if (seen >= rank) {
			uint64_t up = _upper(b);

			return up < h->max ? up : h->max;
		}
	}
	return h->max;
}
