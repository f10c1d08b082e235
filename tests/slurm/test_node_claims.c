/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_node_claims - a preemptor's claimed nodes are kept off every other
 * job's placement, never its own, and only while the preemptor pends and its
 * claim has not lapsed.
 */
#include <string.h>

#include "slurm/node_claims.h"
#include "../check_run.h"

#define N 8

static node_claims_t claims;
static uint8_t allowed[N];
static uint32_t gone;	/* a job that no longer pends */

static void reset(void)
{
	memset(&claims, 0, sizeof(claims));
	memset(allowed, 1, sizeof(allowed));
	gone = 0;
}

static bool pends(uint32_t job)
{
	return job != gone;
}

static int n_allowed(void)
{
	int n = 0;

	for (int i = 0; i < N; i++)
		n += allowed[i];
	return n;
}

START_TEST(test_others_kept_off)
{
	int32_t nodes[] = { 2, 5 };

	node_claims_set(&claims, 7, nodes, 2, 100);
	ck_assert_uint_eq(node_claims_keep_off(&claims, 9, 10, allowed, N, pends), 7);
	ck_assert_int_eq(allowed[2], 0);
	ck_assert_int_eq(allowed[5], 0);
	ck_assert_int_eq(n_allowed(), N - 2);
}
END_TEST

START_TEST(test_own_nodes_stay)
{
	int32_t nodes[] = { 2, 5 };
	const int32_t *held;

	node_claims_set(&claims, 7, nodes, 2, 100);
	ck_assert_uint_eq(node_claims_keep_off(&claims, 7, 10, allowed, N, pends), 0);
	ck_assert_int_eq(n_allowed(), N);
	ck_assert_uint_eq(node_claims_of(&claims, 7, 10, &held), 2);
	ck_assert_int_eq(held[1], 5);
	ck_assert_uint_eq(node_claims_of(&claims, 9, 10, &held), 0);
	ck_assert_ptr_null(held);
	/* Lapsed: gone for good. */
	ck_assert_uint_eq(node_claims_of(&claims, 7, 100, &held), 0);
	ck_assert_uint_eq(node_claims_of(&claims, 7, 10, &held), 0);
}
END_TEST

/* A node the job may not use anyway is not the claim's doing. */
START_TEST(test_already_disallowed_not_counted)
{
	int32_t nodes[] = { 3 };

	allowed[3] = 0;
	node_claims_set(&claims, 7, nodes, 1, 100);
	ck_assert_uint_eq(node_claims_keep_off(&claims, 9, 10, allowed, N, pends), 0);
}
END_TEST

START_TEST(test_lapses)
{
	int32_t nodes[] = { 1 };

	node_claims_set(&claims, 7, nodes, 1, 100);
	ck_assert_uint_eq(node_claims_keep_off(&claims, 9, 100, allowed, N, pends), 0);
	ck_assert_int_eq(n_allowed(), N);
	/* Dropped, not merely skipped: an earlier "now" does not bring it back. */
	ck_assert_uint_eq(node_claims_keep_off(&claims, 9, 10, allowed, N, pends), 0);
}
END_TEST

START_TEST(test_preemptor_gone)
{
	int32_t nodes[] = { 1 };

	node_claims_set(&claims, 7, nodes, 1, 100);
	gone = 7;
	ck_assert_uint_eq(node_claims_keep_off(&claims, 9, 10, allowed, N, pends), 0);
	ck_assert_int_eq(n_allowed(), N);
}
END_TEST

START_TEST(test_drop_and_replace)
{
	int32_t first[] = { 1 }, later[] = { 4 };

	node_claims_set(&claims, 7, first, 1, 100);
	node_claims_set(&claims, 7, later, 1, 100);
	ck_assert_uint_eq(node_claims_keep_off(&claims, 9, 10, allowed, N, pends), 7);
	ck_assert_int_eq(allowed[1], 1);
	ck_assert_int_eq(allowed[4], 0);
	memset(allowed, 1, sizeof(allowed));
	node_claims_drop(&claims, 7);
	ck_assert_uint_eq(node_claims_keep_off(&claims, 9, 10, allowed, N, pends), 0);
	/* No nodes: the same as a drop. */
	node_claims_set(&claims, 7, later, 1, 100);
	node_claims_set(&claims, 7, later, 0, 100);
	ck_assert_uint_eq(node_claims_keep_off(&claims, 9, 10, allowed, N, pends), 0);
}
END_TEST

/* Nodes outside the engine's range are ignored, not written. */
START_TEST(test_out_of_range)
{
	int32_t nodes[] = { -1, N, 0 };

	node_claims_set(&claims, 7, nodes, 3, 100);
	ck_assert_uint_eq(node_claims_keep_off(&claims, 9, 10, allowed, N, pends), 7);
	ck_assert_int_eq(n_allowed(), N - 1);
}
END_TEST

START_TEST(test_full_forgets_oldest)
{
	int32_t first = 1, mid = 2, last = 3;

	node_claims_set(&claims, 1, &first, 1, 100);
	for (uint32_t j = 2; j <= NODE_CLAIMS_JOBS; j++)
		node_claims_set(&claims, j, &mid, 1, 100);
	node_claims_set(&claims, NODE_CLAIMS_JOBS + 1, &last, 1, 100);
	ck_assert_uint_ne(node_claims_keep_off(&claims, 1000, 10, allowed, N, pends), 0);
	ck_assert_int_eq(allowed[1], 1);	/* job 1 made room */
	ck_assert_int_eq(allowed[2], 0);
	ck_assert_int_eq(allowed[3], 0);
}
END_TEST

START_TEST(test_no_table)
{
	int32_t nodes[] = { 1 };

	node_claims_set(NULL, 7, nodes, 1, 100);
	node_claims_set(&claims, 0, nodes, 1, 100);
	ck_assert_uint_eq(node_claims_keep_off(&claims, 9, 10, allowed, N, pends), 0);
	ck_assert_uint_eq(node_claims_keep_off(NULL, 9, 10, allowed, N, pends), 0);
	ck_assert_int_eq(n_allowed(), N);
}
END_TEST

/*
 * The callback form (select/hived's jobs cons_tres places alone clear bits of
 * Slurm's node bitmap): every claimed node of others is offered, the claim
 * is named only for a node the taker took, and its own claim is never offered.
 */
static int offered[N];
static bool take_even(int32_t node, void *arg)
{
	int *taken = arg;

	offered[node]++;
	if (node % 2)
		return false;
	(*taken)++;
	return true;
}

START_TEST(test_each_offers_others_nodes)
{
	int32_t mine[] = { 0 }, odd[] = { 1, 3 }, even[] = { 4, 6 };
	int taken = 0;

	memset(offered, 0, sizeof(offered));
	node_claims_set(&claims, 9, mine, 1, 100);
	node_claims_set(&claims, 5, odd, 2, 100);
	node_claims_set(&claims, 6, even, 2, 100);
	ck_assert_uint_eq(node_claims_keep_off_each(&claims, 9, 10, pends, take_even, &taken), 6);
	ck_assert_int_eq(taken, 2);
	ck_assert_int_eq(offered[0], 0);
	ck_assert_int_eq(offered[1] + offered[3] + offered[4] + offered[6], 4);
	/* Only nodes the taker refuses: no claim kept it off anything. */
	node_claims_drop(&claims, 6);
	ck_assert_uint_eq(node_claims_keep_off_each(&claims, 9, 10, pends, take_even, &taken), 0);
	ck_assert_uint_eq(node_claims_keep_off_each(&claims, 9, 10, pends, NULL, NULL), 0);
}
END_TEST

/*
 * An exclusive job's nodes of any size lose the claimed nodes too, those of
 * other sizes included, though only a claim on a node of its size names who
 * kept it off.
 */
START_TEST(test_both_masks)
{
	int32_t nodes[] = { 2, 5 };
	uint8_t usable[N];

	memset(usable, 1, sizeof(usable));
	allowed[5] = 0;		/* node 5 is of another size */
	node_claims_set(&claims, 7, nodes, 2, 100);
	ck_assert_uint_eq(node_claims_keep_off_both(&claims, 9, 10, allowed,
						    usable, N, pends), 7);
	ck_assert_int_eq(allowed[2], 0);
	ck_assert_int_eq(usable[2], 0);
	ck_assert_int_eq(usable[5], 0);
	ck_assert_int_eq(usable[0] + usable[1] + usable[3] + usable[4], 4);
	/* Only the other size's node claimed: it goes, and no one is named. */
	memset(usable, 1, sizeof(usable));
	for (int i = 0; i < N; i++)
		allowed[i] = (i != 5);
	nodes[0] = 5;
	node_claims_set(&claims, 7, nodes, 1, 100);
	ck_assert_uint_eq(node_claims_keep_off_both(&claims, 9, 10, allowed,
						    usable, N, pends), 0);
	ck_assert_int_eq(usable[5], 0);
	ck_assert_int_eq(n_allowed(), N - 1);
	ck_assert_uint_eq(node_claims_keep_off_both(&claims, 9, 10, NULL,
						    usable, N, pends), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("node_claims");
	TCase *tc = tcase_create("claims");

	tcase_add_checked_fixture(tc, reset, NULL);
	tcase_add_test(tc, test_others_kept_off);
	tcase_add_test(tc, test_own_nodes_stay);
	tcase_add_test(tc, test_already_disallowed_not_counted);
	tcase_add_test(tc, test_lapses);
	tcase_add_test(tc, test_preemptor_gone);
	tcase_add_test(tc, test_drop_and_replace);
	tcase_add_test(tc, test_out_of_range);
	tcase_add_test(tc, test_full_forgets_oldest);
	tcase_add_test(tc, test_no_table);
	tcase_add_test(tc, test_each_offers_others_nodes);
	tcase_add_test(tc, test_both_masks);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL, CK_FORK_GETENV);
}
