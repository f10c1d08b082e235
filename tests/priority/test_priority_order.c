/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_priority_order.c - priority/hived's bands on the status fixture of
 * tests/hivedctl (vc1: 16 quota GPUs, all used; vc2: its one node cell doomed;
 * vc3: 8 quota GPUs, 2 used; jobs 9 and 11 run opportunistically).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "priority_order.h"
#include "../check_run.h"

static hived_po_status st;

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(n + 1, 1);
	ck_assert_int_eq(fread(buf, 1, n, f), n);
	fclose(f);
	return buf;
}

static void setup(void)
{
	char err[256], *text = slurp(HIVED_STATUS_FIXTURE);

	ck_assert_msg(!hived_po_parse(text, &st, err, sizeof(err)), "%s", err);
	free(text);
}

static void teardown(void)
{
	hived_po_status_free(&st);
}

START_TEST(test_parse)
{
	ck_assert_int_eq(st.n_vcs, 3);
	ck_assert_int_eq(hived_po_find_vc(&st, "vc1")->free_leaves, 0);
	/* Doomed cells are not free quota. */
	ck_assert_int_eq(hived_po_find_vc(&st, "VC2")->free_leaves, 0);
	ck_assert_int_eq(hived_po_find_vc(&st, "vc3")->free_leaves, 6);
	ck_assert_ptr_null(hived_po_find_vc(&st, "vc4"));
	ck_assert(hived_po_job_opportunistic(&st, "9"));
	ck_assert(hived_po_job_opportunistic(&st, "11"));
	ck_assert(!hived_po_job_opportunistic(&st, "15"));
	ck_assert_int_gt(st.written, 0);
}
END_TEST

START_TEST(test_parse_errors)
{
	hived_po_status s;
	char err[256];

	ck_assert_int_eq(hived_po_parse("{", &s, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "not JSON"));
	ck_assert_int_eq(hived_po_parse("{\"cluster\":null}", &s, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "cluster.vcs"));
}
END_TEST

/* vc3 has 6 free GPUs: 4 fit, the next 4 do not, a later 2 still fit. */
START_TEST(test_first_fit_in_priority_order)
{
	hived_po_job j[] = {
		{ .job_id = 20, .vc = "vc3", .gpus = 4, .guaranteed = 1, .base = 100 },
		{ .job_id = 21, .vc = "vc3", .gpus = 4, .guaranteed = 1, .base = 90 },
		{ .job_id = 22, .vc = "vc3", .gpus = 2, .guaranteed = 1, .base = 80 },
		{ .job_id = 23, .vc = "vc1", .gpus = 8, .guaranteed = 1, .base = 500 },
		{ .job_id = 24, .vc = "vc1", .gpus = 1, .guaranteed = 0, .base = 900 },
		{ .job_id = 25, .vc = NULL, .gpus = 0, .guaranteed = 1, .base = 1 },
		{ .job_id = 26, .vc = "vc2", .gpus = 1, .guaranteed = 1, .base = 1 },
	};

	hived_po_order(&st, j, 7);
	ck_assert_int_eq(j[0].band, HIVED_BAND_FITS);
	ck_assert_int_eq(j[1].band, HIVED_BAND_WAITS);
	ck_assert_int_eq(j[2].band, HIVED_BAND_FITS);
	ck_assert_int_eq(j[3].band, HIVED_BAND_WAITS);	/* vc1's quota is in use */
	ck_assert_int_eq(j[4].band, HIVED_BAND_OPPORTUNISTIC);
	ck_assert_int_eq(j[5].band, HIVED_BAND_FITS);	/* no GPUs: not HiveD's */
	ck_assert_int_eq(j[6].band, HIVED_BAND_WAITS);	/* vc2's cell is doomed */
}
END_TEST

/* A flood of vc3 jobs with high priority takes only vc3's free GPUs into FITS. */
START_TEST(test_flood_cannot_starve_other_vc)
{
	hived_po_job j[41];
	int fits = 0;

	for (int i = 0; i < 40; i++)
		j[i] = (hived_po_job) { .job_id = 100 + i, .vc = "vc3", .gpus = 1,
					.guaranteed = 1, .base = 10000 - i };
	/* vc3 jobs are named by account case: Slurm lower-cases accounts. */
	j[3].vc = "VC3";
	hived_po_status more = st;
	hived_po_vc vcs[4];
	memcpy(vcs, st.vcs, sizeof(hived_po_vc) * 3);
	vcs[3] = (hived_po_vc) { .name = "vc4", .free_leaves = 8 };
	more.vcs = vcs;
	more.n_vcs = 4;
	j[40] = (hived_po_job) { .job_id = 99, .vc = "vc4", .gpus = 8,
				 .guaranteed = 1, .base = 1 };
	hived_po_order(&more, j, 41);
	for (int i = 0; i < 40; i++)
		fits += j[i].band == HIVED_BAND_FITS;
	ck_assert_int_eq(fits, 6);
	/* The six with the highest priority. */
	for (int i = 0; i < 6; i++)
		ck_assert_int_eq(j[i].band, HIVED_BAND_FITS);
	ck_assert_int_eq(j[40].band, HIVED_BAND_FITS);
}
END_TEST

START_TEST(test_ties_and_no_status)
{
	hived_po_job j[] = {
		{ .job_id = 31, .vc = "vc3", .gpus = 4, .guaranteed = 1, .base = 5 },
		{ .job_id = 30, .vc = "vc3", .gpus = 4, .guaranteed = 1, .base = 5 },
	};

	hived_po_order(&st, j, 2);
	ck_assert_int_eq(j[1].band, HIVED_BAND_FITS);	/* lower id first */
	ck_assert_int_eq(j[0].band, HIVED_BAND_WAITS);
	hived_po_order(NULL, j, 2);
	ck_assert_int_eq(j[0].band, HIVED_BAND_FITS);
	ck_assert_int_eq(j[1].band, HIVED_BAND_FITS);
}
END_TEST

/*
 * A VC with fractional cells (one node of 2 A100s in eighths; VC A owns 2 HALF
 * and 2 EIGHTH cells, 10 eighths, 4 of them used): shard jobs count as their
 * fraction, rounded to the buddy cell (the verdict's "fractions"), and a whole
 * GPU as the 8 eighths it is, not as 1.
 */
START_TEST(test_fractions_count_as_fractions)
{
	const char *doc =
		"{\"cluster\":{\"chains\":[{\"chain\":\"A100-NODE\",\"levels\":["
		"{\"level\":1,\"cells\":16},{\"level\":2,\"cells\":8},{\"level\":3,\"cells\":4},"
		"{\"level\":4,\"cells\":2},{\"level\":5,\"cells\":1}]}],"
		"\"vcs\":[{\"vc\":\"A\",\"cells\":["
		"{\"chain\":\"A100-NODE\",\"level\":3,\"total\":2,\"doomed\":0},"
		"{\"chain\":\"A100-NODE\",\"level\":1,\"total\":2,\"doomed\":0}],\"usedLeaves\":4},"
		"{\"vc\":\"B\",\"cells\":[],\"usedLeaves\":0}]},"
		"\"leavesPerGpu\":{\"A100-NODE\":8}}";
	hived_po_status f;
	char err[256];
	hived_po_job j[] = {
		{ .job_id = 30, .vc = "A", .fractions = 4, .guaranteed = 1, .base = 100 },
		{ .job_id = 31, .vc = "A", .gpus = 1, .guaranteed = 1, .base = 90 },
		{ .job_id = 32, .vc = "A", .fractions = 2, .guaranteed = 1, .base = 80 },
		{ .job_id = 33, .vc = "A", .fractions = 1, .guaranteed = 1, .base = 70 },
	};

	ck_assert_msg(!hived_po_parse(doc, &f, err, sizeof(err)), "%s", err);
	ck_assert_int_eq(hived_po_find_vc(&f, "A")->free_leaves, 6);
	ck_assert_int_eq(hived_po_find_vc(&f, "A")->leaves_per_gpu, 8);
	ck_assert_int_eq(hived_po_find_vc(&f, "B")->leaves_per_gpu, 1);
	ck_assert_int_eq(hived_po_demand(hived_po_find_vc(&f, "A"), &j[1]), 8);
	hived_po_order(&f, j, 4);
	ck_assert_int_eq(j[0].band, HIVED_BAND_FITS);	/* 4 of 6 eighths */
	ck_assert_int_eq(j[1].band, HIVED_BAND_WAITS);	/* a whole GPU is 8 */
	ck_assert_int_eq(j[2].band, HIVED_BAND_FITS);	/* the last 2 */
	ck_assert_int_eq(j[3].band, HIVED_BAND_WAITS);	/* a shard job is not 0 GPUs */
	hived_po_status_free(&f);
	/* Without "leavesPerGpu" (an older select/hived) a GPU is one leaf. */
	ck_assert(!hived_po_parse("{\"cluster\":{\"chains\":[],\"vcs\":[{\"vc\":\"A\"}]}}", &f,
				  err, sizeof(err)));
	ck_assert_int_eq(hived_po_find_vc(&f, "A")->leaves_per_gpu, 1);
	hived_po_status_free(&f);
}
END_TEST

START_TEST(test_weight)
{
	ck_assert_uint_eq(hived_po_weight(0), 1);
	ck_assert_uint_eq(hived_po_weight(2000), 2001);
	ck_assert_uint_eq(hived_po_weight(4000000000U), 1000000000U);
	/* Three bands of the largest weight still fit in 32 bits above NICE_OFFSET's half. */
	ck_assert(2ULL * hived_po_weight(4000000000U) + 0x80000000ULL < 0xffffffffULL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("priority_order");
	TCase *tc = tcase_create("bands");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_parse_errors);
	tcase_add_test(tc, test_first_fit_in_priority_order);
	tcase_add_test(tc, test_flood_cannot_starve_other_vc);
	tcase_add_test(tc, test_ties_and_no_status);
	tcase_add_test(tc, test_fractions_count_as_fractions);
	tcase_add_test(tc, test_weight);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL, CK_FORK_GETENV);
}
