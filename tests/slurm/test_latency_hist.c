/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_latency_hist - whole-run percentiles of job_test durations: exact below
 * 16, within 1/16 above, never above the largest value, by nearest rank.
 */
#include <stdlib.h>
#include <string.h>

#include "slurm/latency_hist.h"
#include "../check_run.h"

static latency_hist_t h;

static void reset(void)
{
	memset(&h, 0, sizeof(h));
}

START_TEST(test_empty)
{
	ck_assert_uint_eq(latency_hist_quantile(&h, 0.5), 0);
	ck_assert_uint_eq(latency_hist_quantile(&h, 0.99), 0);
}
END_TEST

START_TEST(test_small_values_exact)
{
	for (uint64_t v = 1; v <= 10; v++)
		latency_hist_add(&h, v);
	ck_assert_uint_eq(latency_hist_quantile(&h, 0.5), 5);
	ck_assert_uint_eq(latency_hist_quantile(&h, 0.9), 9);
	ck_assert_uint_eq(latency_hist_quantile(&h, 1.0), 10);
	ck_assert_uint_eq(h.n, 10);
	ck_assert_uint_eq(h.sum, 55);
	ck_assert_uint_eq(h.max, 10);
}
END_TEST

/* 1..100000: every percentile within 1/16 above the true nearest rank. */
START_TEST(test_relative_error)
{
	static const double qs[] = {0.01, 0.25, 0.5, 0.9, 0.99, 0.999};

	for (uint64_t v = 1; v <= 100000; v++)
		latency_hist_add(&h, v);
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		uint64_t truth = (uint64_t) (qs[i] * 100000 + 0.5), got;

		got = latency_hist_quantile(&h, qs[i]);
		ck_assert_msg(got >= truth && got <= truth + truth / 16,
			      "q=%g: got %lu, true %lu", qs[i], (unsigned long) got,
			      (unsigned long) truth);
	}
}
END_TEST

/*
 * The case that made a window useless: a slow phase early in the run, then
 * thousands of fast calls. The whole run's p99 still sees the slow phase.
 */
START_TEST(test_whole_run_not_window)
{
	for (int i = 0; i < 200; i++)
		latency_hist_add(&h, 18000);
	for (int i = 0; i < 9800; i++)
		latency_hist_add(&h, 120);
	ck_assert_uint_ge(latency_hist_quantile(&h, 0.99), 18000);
	ck_assert_uint_le(latency_hist_quantile(&h, 0.99), 18000);
	ck_assert_uint_le(latency_hist_quantile(&h, 0.5), 120 + 120 / 16);
	ck_assert_uint_ge(latency_hist_quantile(&h, 0.5), 120);
}
END_TEST

START_TEST(test_huge_values)
{
	latency_hist_add(&h, UINT64_MAX);
	latency_hist_add(&h, (uint64_t) 1 << 63);
	ck_assert_uint_eq(latency_hist_quantile(&h, 1.0), UINT64_MAX);
	ck_assert_uint_ge(latency_hist_quantile(&h, 0.5), (uint64_t) 1 << 63);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("latency_hist");
	TCase *tc = tcase_create("quantiles");

	tcase_add_checked_fixture(tc, reset, NULL);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_small_values_exact);
	tcase_add_test(tc, test_relative_error);
	tcase_add_test(tc, test_whole_run_not_window);
	tcase_add_test(tc, test_huge_values);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL, CK_FORK_GETENV);
}
