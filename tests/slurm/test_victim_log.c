/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_victim_log - a preemptor's victims are named once each: the same
 * victims asked again are nothing new, new ones on a later ask are, and a
 * full table forgets its oldest preemptor first.
 */
#include <string.h>

#include "slurm/victim_log.h"
#include "../check_run.h"

static victim_log_t log_;

static void reset(void)
{
	memset(&log_, 0, sizeof(log_));
}

START_TEST(test_first_ask_names_all)
{
	uint32_t v[] = { 11, 12, 13 };
	size_t before = 99;

	ck_assert_uint_eq(victim_log_new(&log_, 7, v, 3, &before), 3);
	ck_assert_uint_eq(before, 0);
	ck_assert_uint_eq(v[0], 11);
	ck_assert_uint_eq(v[2], 13);
}
END_TEST

/* Slurm asks again while the victims leave: nothing new to say. */
START_TEST(test_same_victims_again)
{
	uint32_t v[] = { 11, 12 }, again[] = { 12, 11 };
	size_t before;

	victim_log_new(&log_, 7, v, 2, NULL);
	ck_assert_uint_eq(victim_log_new(&log_, 7, again, 2, &before), 0);
	ck_assert_uint_eq(before, 2);
}
END_TEST

/*
 * Bound elsewhere on a later ask: the new victims come first, in their order,
 * and only they are counted.
 */
START_TEST(test_new_victims_later)
{
	uint32_t v[] = { 11, 12 }, later[] = { 12, 21, 11, 22 };
	size_t before;

	victim_log_new(&log_, 7, v, 2, NULL);
	ck_assert_uint_eq(victim_log_new(&log_, 7, later, 4, &before), 2);
	ck_assert_uint_eq(before, 2);
	ck_assert_uint_eq(later[0], 21);
	ck_assert_uint_eq(later[1], 22);
	ck_assert_uint_eq(victim_log_new(&log_, 7, later, 2, &before), 0);
	ck_assert_uint_eq(before, 4);
}
END_TEST

/* What was named stays listed; an unknown preemptor has none. */
START_TEST(test_named_list)
{
	uint32_t v[] = { 11, 12 }, later[] = { 21 };
	const uint32_t *named;

	ck_assert_uint_eq(victim_log_named(&log_, 7, &named), 0);
	ck_assert_ptr_null(named);
	victim_log_new(&log_, 7, v, 2, NULL);
	victim_log_new(&log_, 7, later, 1, NULL);
	ck_assert_uint_eq(victim_log_named(&log_, 7, &named), 3);
	ck_assert_uint_eq(named[0], 11);
	ck_assert_uint_eq(named[2], 21);
	ck_assert_uint_eq(victim_log_named(&log_, 8, &named), 0);
	ck_assert_uint_eq(victim_log_named(&log_, 0, &named), 0);
}
END_TEST

/*
 * Many preemptors naming one running job count it once; its next run, after a
 * requeue, is a new victim.
 */
START_TEST(test_runs_counted_once)
{
	ck_assert_int_eq(victim_log_run_new(&log_, 131, 1000), 1);
	ck_assert_int_eq(victim_log_run_new(&log_, 131, 1000), 0);
	ck_assert_int_eq(victim_log_run_new(&log_, 131, 1050), 1);
	ck_assert_int_eq(victim_log_run_new(&log_, 132, 1000), 1);
	ck_assert_int_eq(victim_log_run_new(&log_, 0, 1000), 0);
	ck_assert_int_eq(victim_log_run_new(NULL, 133, 1000), 0);
}
END_TEST

/* Full: the oldest run is forgotten, the newest are kept. */
START_TEST(test_runs_full)
{
	for (uint32_t j = 1; j <= VICTIM_LOG_RUNS + 1; j++)
		ck_assert_int_eq(victim_log_run_new(&log_, j, 7), 1);
	ck_assert_int_eq(victim_log_run_new(&log_, VICTIM_LOG_RUNS + 1, 7), 0);
	ck_assert_int_eq(victim_log_run_new(&log_, 2, 7), 0);
	ck_assert_int_eq(victim_log_run_new(&log_, 1, 7), 1);
}
END_TEST

/* Another preemptor naming the same job is its own news. */
START_TEST(test_preemptors_apart)
{
	uint32_t a[] = { 11 }, b[] = { 11 };

	ck_assert_uint_eq(victim_log_new(&log_, 7, a, 1, NULL), 1);
	ck_assert_uint_eq(victim_log_new(&log_, 8, b, 1, NULL), 1);
}
END_TEST

/* A victim named twice in one ask counts once. */
START_TEST(test_duplicate_in_one_ask)
{
	uint32_t v[] = { 11, 11, 12 };

	ck_assert_uint_eq(victim_log_new(&log_, 7, v, 3, NULL), 2);
	ck_assert_uint_eq(v[0], 11);
	ck_assert_uint_eq(v[1], 12);
}
END_TEST

/* Full: the oldest preemptor is forgotten, the newer ones are kept. */
START_TEST(test_full_forgets_oldest)
{
	uint32_t v = 5;
	size_t before;

	for (uint32_t p = 1; p <= VICTIM_LOG_PREEMPTORS + 1; p++) {
		v = 1000 + p;
		victim_log_new(&log_, p, &v, 1, NULL);
	}
	v = 1000 + VICTIM_LOG_PREEMPTORS;
	ck_assert_uint_eq(victim_log_new(&log_, VICTIM_LOG_PREEMPTORS, &v, 1,
					 &before), 0);
	v = 1001;
	ck_assert_uint_eq(victim_log_new(&log_, 1, &v, 1, &before), 1);
	ck_assert_uint_eq(before, 0);
}
END_TEST

/* More victims than a slot holds: the newest stay known. */
START_TEST(test_many_victims)
{
	uint32_t v[VICTIM_LOG_VICTIMS + 4], last;

	for (uint32_t i = 0; i < VICTIM_LOG_VICTIMS + 4; i++)
		v[i] = 100 + i;
	ck_assert_uint_eq(victim_log_new(&log_, 7, v, VICTIM_LOG_VICTIMS + 4,
					 NULL), VICTIM_LOG_VICTIMS + 4);
	last = 100 + VICTIM_LOG_VICTIMS + 3;
	ck_assert_uint_eq(victim_log_new(&log_, 7, &last, 1, NULL), 0);
}
END_TEST

/* No preemptor id or no table: nothing is remembered or counted. */
START_TEST(test_no_preemptor)
{
	uint32_t v[] = { 11 };
	size_t before = 5;

	ck_assert_uint_eq(victim_log_new(&log_, 0, v, 1, &before), 0);
	ck_assert_uint_eq(before, 0);
	ck_assert_uint_eq(victim_log_new(NULL, 7, v, 1, NULL), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("victim_log");
	TCase *tc = tcase_create("named once");

	tcase_add_checked_fixture(tc, reset, NULL);
	tcase_add_test(tc, test_first_ask_names_all);
	tcase_add_test(tc, test_same_victims_again);
	tcase_add_test(tc, test_new_victims_later);
	tcase_add_test(tc, test_named_list);
	tcase_add_test(tc, test_runs_counted_once);
	tcase_add_test(tc, test_runs_full);
	tcase_add_test(tc, test_preemptors_apart);
	tcase_add_test(tc, test_duplicate_in_one_ask);
	tcase_add_test(tc, test_full_forgets_oldest);
	tcase_add_test(tc, test_many_victims);
	tcase_add_test(tc, test_no_preemptor);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL, CK_FORK_GETENV);
}
