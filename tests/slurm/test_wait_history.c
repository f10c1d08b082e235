/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_wait_history - the seconds a job waited for each cause select/hived
 * gave: a cause's stretch ends when another starts, the current one counts up
 * to now, and the texts name every cause with a second or more.
 */
#include <string.h>

#include "slurm/wait_history.h"
#include "../check_run.h"

static wait_history_t w;

static void reset(void)
{
	memset(&w, 0, sizeof(w));
}

START_TEST(test_never_waited)
{
	char buf[64];

	ck_assert_uint_eq(wait_history_total(&w, 1000), 0);
	ck_assert_uint_eq(wait_history_secs(&w, WAIT_CAUSE_VC_QUOTA, 1000), 0);
	wait_history_json(&w, 1000, buf, sizeof(buf));
	ck_assert_str_eq(buf, "{}");
}
END_TEST

/* Quota 40 s, then cells 45 s: the stretches split where the cause changed. */
START_TEST(test_stretches)
{
	char buf[160];

	wait_history_note(&w, WAIT_CAUSE_VC_QUOTA, 1000);
	wait_history_note(&w, WAIT_CAUSE_VC_QUOTA, 1030);	/* same cause again */
	wait_history_note(&w, WAIT_CAUSE_CELLS, 1040);
	ck_assert_uint_eq(wait_history_secs(&w, WAIT_CAUSE_VC_QUOTA, 1085), 40);
	ck_assert_uint_eq(wait_history_secs(&w, WAIT_CAUSE_CELLS, 1085), 45);
	ck_assert_uint_eq(wait_history_total(&w, 1085), 85);
	wait_history_text(&w, 1085, buf, sizeof(buf));
	ck_assert_str_eq(buf, "85 s: its VC's quota in use 40 s, no free cells of its shape 45 s");
	wait_history_json(&w, 1085, buf, sizeof(buf));
	ck_assert_str_eq(buf, "{\"vcQuota\":40,\"cells\":45}");
}
END_TEST

/* A cause that comes back adds to its earlier stretch. */
START_TEST(test_cause_returns)
{
	wait_history_note(&w, WAIT_CAUSE_CELLS, 100);
	wait_history_note(&w, WAIT_CAUSE_BEHIND_HEAD, 110);
	wait_history_note(&w, WAIT_CAUSE_CELLS, 130);
	ck_assert_uint_eq(wait_history_secs(&w, WAIT_CAUSE_CELLS, 135), 15);
	ck_assert_uint_eq(wait_history_secs(&w, WAIT_CAUSE_BEHIND_HEAD, 135), 20);
	ck_assert_uint_eq(wait_history_total(&w, 135), 35);
}
END_TEST

/*
 * Bound cells whose opportunistic jobs are still being requeued: the seconds
 * after the preemption are the victims', not fragmentation's.
 */
START_TEST(test_victims_leaving)
{
	char buf[160];

	wait_history_note(&w, WAIT_CAUSE_CELLS, 100);
	wait_history_note(&w, WAIT_CAUSE_VICTIMS, 110);
	wait_history_note(&w, WAIT_CAUSE_VICTIMS, 114);
	ck_assert_int_eq(wait_history_current(&w, 118), WAIT_CAUSE_VICTIMS);
	wait_history_text(&w, 118, buf, sizeof(buf));
	ck_assert_str_eq(buf, "18 s: no free cells of its shape 10 s, its preempted jobs leaving 8 s");
	wait_history_json(&w, 118, buf, sizeof(buf));
	ck_assert_str_eq(buf, "{\"cells\":10,\"victimsLeaving\":8}");
}
END_TEST

/*
 * Past WAIT_HISTORY_GAP seconds without a job_test, Slurm did not ask: that
 * time is "not asked", for the stretch that goes on and for one still open.
 */
START_TEST(test_not_asked)
{
	char buf[160];

	wait_history_note(&w, WAIT_CAUSE_VC_QUOTA, 1000);
	wait_history_note(&w, WAIT_CAUSE_VC_QUOTA, 1000 + WAIT_HISTORY_GAP + 380);
	ck_assert_uint_eq(wait_history_secs(&w, WAIT_CAUSE_VC_QUOTA, 1510), WAIT_HISTORY_GAP + 10);
	ck_assert_uint_eq(wait_history_secs(&w, WAIT_CAUSE_NOT_ASKED, 1510), 380);
	/* Asked for cells, then nothing until it starts 300 s later. */
	wait_history_note(&w, WAIT_CAUSE_CELLS, 2000);
	ck_assert_uint_eq(wait_history_secs(&w, WAIT_CAUSE_CELLS, 2300), WAIT_HISTORY_GAP);
	ck_assert_uint_eq(wait_history_secs(&w, WAIT_CAUSE_NOT_ASKED, 2300),
			  380 + (2000 - 1500 - WAIT_HISTORY_GAP) +
			  (300 - WAIT_HISTORY_GAP));
	ck_assert_uint_eq(wait_history_total(&w, 2300), 1300);
	wait_history_json(&w, 2300, buf, sizeof(buf));
	ck_assert_str_eq(buf, "{\"vcQuota\":240,\"cells\":120,\"notAsked\":940}");
}
END_TEST

/* A clock stepping back counts as no time; an unknown cause as "other". */
START_TEST(test_clock_back_and_bad_cause)
{
	char buf[64];

	wait_history_note(&w, WAIT_CAUSE_VC_QUOTA, 500);
	wait_history_note(&w, (wait_cause_t) 99, 490);
	ck_assert_uint_eq(wait_history_secs(&w, WAIT_CAUSE_VC_QUOTA, 490), 0);
	ck_assert_uint_eq(wait_history_secs(&w, WAIT_CAUSE_OTHER, 495), 5);
	ck_assert_uint_eq(wait_history_total(&w, 480), 0);
	ck_assert_str_eq(wait_cause_key((wait_cause_t) -1), "other");
	wait_history_json(&w, 495, buf, sizeof(buf));
	ck_assert_str_eq(buf, "{\"other\":5}");
}
END_TEST

/* Truncated output stays a terminated string; the length is the full one. */
START_TEST(test_truncation)
{
	char small[12], big[160];
	int n;

	wait_history_note(&w, WAIT_CAUSE_VC_QUOTA, 100);
	wait_history_note(&w, WAIT_CAUSE_PINNED, 107);
	n = wait_history_text(&w, 110, small, sizeof(small));
	ck_assert_int_eq(wait_history_text(&w, 110, big, sizeof(big)), n);
	ck_assert_int_eq((int) strlen(big), n);
	ck_assert_uint_eq(strlen(small), sizeof(small) - 1);
	ck_assert(!strncmp(small, big, sizeof(small) - 1));
	ck_assert_str_eq(big, "10 s: its VC's quota in use 7 s, its pinned cell held 3 s");
}
END_TEST

/* hivedctl reads the status file's keys back into the log's words. */
START_TEST(test_keys_and_words)
{
	for (int c = 0; c < WAIT_CAUSES; c++) {
		ck_assert_int_eq(wait_cause_from_key(wait_cause_key(c)), c);
		ck_assert(strlen(wait_cause_text(c)) > 0);
		for (int d = 0; d < c; d++) {
			ck_assert_str_ne(wait_cause_key(c), wait_cause_key(d));
			ck_assert_str_ne(wait_cause_text(c), wait_cause_text(d));
		}
	}
	ck_assert_int_eq(wait_cause_from_key("cell"), WAIT_CAUSES);
	ck_assert_int_eq(wait_cause_from_key(NULL), WAIT_CAUSES);
	ck_assert_str_eq(wait_cause_text(WAIT_CAUSES), "other");
	ck_assert_str_eq(wait_cause_text(WAIT_CAUSE_CELLS),
			 "no free cells of its shape");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("wait_history");
	TCase *tc = tcase_create("causes");

	tcase_add_checked_fixture(tc, reset, NULL);
	tcase_add_test(tc, test_never_waited);
	tcase_add_test(tc, test_stretches);
	tcase_add_test(tc, test_cause_returns);
	tcase_add_test(tc, test_victims_leaving);
	tcase_add_test(tc, test_not_asked);
	tcase_add_test(tc, test_clock_back_and_bad_cause);
	tcase_add_test(tc, test_truncation);
	tcase_add_test(tc, test_keys_and_words);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL, CK_FORK_GETENV);
}
