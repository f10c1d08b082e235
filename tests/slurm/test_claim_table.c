/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_claim_table - the bookkeeping of select/hived's claims (the nodes a
 * preemptor keeps until it starts): new victims counted once, a claim's age
 * kept when the same preemption is asked again, who is kept off which nodes,
 * and removal in any order without two slots owning the same memory (its
 * first version freed the moved claim's nodes when a new claim took the slot
 * the move left: slurmctld aborted in a churn run; ASan catches it here).
 */
#include <string.h>

#include "slurm/claim_table.h"
#include "../check_run.h"

#define NODES 6

static claim_table_t t;

static void reset(void)
{
	memset(&t, 0, sizeof(t));
}

static void teardown(void)
{
	claim_table_free(&t);
}

static size_t make(uint32_t job, uint32_t prio, int node, uint32_t v0,
		   uint32_t v1, time_t now)
{
	uint8_t nodes[NODES] = { 0 };
	uint32_t victims[2] = { v0, v1 };

	nodes[node] = 1;
	return claim_table_make(&t, job, prio, nodes, NODES, victims,
				v1 ? 2 : 1, now);
}

START_TEST(test_fresh_victims_and_age)
{
	claim_t *c;

	ck_assert_uint_eq(make(10, 100, 1, 7, 8, 1000), 2);
	/* The same preemption asked again: nothing new, its age kept. */
	ck_assert_uint_eq(make(10, 100, 1, 8, 7, 1005), 0);
	c = claim_table_find(&t, 10);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->made, 1000);
	/* One victim more: counted once, the claim starts again. */
	ck_assert_uint_eq(make(10, 100, 2, 7, 9, 1010), 1);
	c = claim_table_find(&t, 10);
	ck_assert_int_eq(c->made, 1010);
	ck_assert_uint_eq(c->nodes[1], 0);
	ck_assert_uint_eq(c->nodes[2], 1);
	ck_assert_uint_eq(t.n, 1);
	ck_assert_ptr_null(claim_table_find(&t, 11));
}
END_TEST

/* Lower or equal priority is kept off; a higher one and the claimant are not. */
START_TEST(test_against)
{
	uint8_t out[NODES];

	make(10, 100, 1, 7, 0, 1000);
	make(11, 50, 3, 8, 0, 1000);
	memset(out, 0, sizeof(out));
	ck_assert_uint_ne(claim_table_against(&t, 12, 50, out, NODES), 0);
	ck_assert_uint_eq(out[1], 1);
	ck_assert_uint_eq(out[3], 1);
	ck_assert_uint_eq(out[0] + out[2] + out[4] + out[5], 0);

	memset(out, 0, sizeof(out));
	ck_assert_uint_eq(claim_table_against(&t, 12, 100, out, NODES), 10);
	ck_assert_uint_eq(out[1], 1);
	ck_assert_uint_eq(out[3], 0);	/* 12 outranks 11 */

	memset(out, 0, sizeof(out));
	ck_assert_uint_eq(claim_table_against(&t, 10, 100, out, NODES), 0);
	ck_assert_uint_eq(out[1], 0);	/* its own claim */

	memset(out, 0, sizeof(out));
	ck_assert_uint_eq(claim_table_against(&t, 12, 101, out, NODES), 0);
	/* Claims over another node count (the node list changed) are skipped. */
	memset(out, 0, sizeof(out));
	ck_assert_uint_eq(claim_table_against(&t, 12, 0, out, NODES - 1), 0);
}
END_TEST

static bool keep_even(uint32_t job_id, uint32_t *priority, void *arg)
{
	int *calls = arg;

	(*calls)++;
	*priority = 500;
	return job_id % 2 == 0;
}

START_TEST(test_expire)
{
	int calls = 0;

	make(10, 100, 0, 1, 0, 1000);
	make(11, 100, 1, 2, 0, 1050);
	make(12, 100, 2, 3, 0, 1050);
	make(13, 100, 3, 4, 0, 1050);
	claim_table_expire(&t, 1070, 60, keep_even, &calls);
	/* 10 is too old (keep() not asked), 11 and 13 no longer pend. */
	ck_assert_uint_eq(t.n, 1);
	ck_assert_ptr_nonnull(claim_table_find(&t, 12));
	ck_assert_uint_eq(claim_table_find(&t, 12)->priority, 500);
	ck_assert_int_eq(calls, 3);
	claim_table_expire(&t, 1111, 60, NULL, NULL);
	ck_assert_uint_eq(t.n, 0);
}
END_TEST

/*
 * Remove the first of three (the last moves into its slot), then claim anew in
 * the slot the move left: the moved claim keeps its nodes and victims.
 */
START_TEST(test_remove_then_make)
{
	claim_t *c;

	for (uint32_t j = 10; j < 13; j++)
		make(j, 100, j - 10, j + 100, 0, 1000);
	claim_table_remove(&t, 10);
	ck_assert_uint_eq(t.n, 2);
	make(20, 100, 5, 200, 0, 1001);
	claim_table_remove(&t, 11);
	make(21, 100, 4, 201, 0, 1002);
	c = claim_table_find(&t, 12);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->n_victims, 1);
	ck_assert_uint_eq(c->victims[0], 112);
	ck_assert_uint_eq(c->nodes[2], 1);
	c = claim_table_find(&t, 20);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->victims[0], 200);
	ck_assert_uint_eq(c->nodes[5], 1);
	claim_table_remove(&t, 99);	/* not there: nothing happens */
	ck_assert_uint_eq(t.n, 3);
	/* Many claims: the array grows, every claim stays found. */
	for (uint32_t j = 30; j < 60; j++)
		make(j, 100, j % NODES, j, 0, 1003);
	for (uint32_t j = 30; j < 60; j += 2)
		claim_table_remove(&t, j);
	for (uint32_t j = 31; j < 60; j += 2)
		ck_assert_uint_eq(claim_table_find(&t, j)->victims[0], j);
	ck_assert_uint_eq(t.n, 18);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("claim_table");
	TCase *tc = tcase_create("claims");

	tcase_add_checked_fixture(tc, reset, teardown);
	tcase_add_test(tc, test_fresh_victims_and_age);
	tcase_add_test(tc, test_against);
	tcase_add_test(tc, test_expire);
	tcase_add_test(tc, test_remove_then_make);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL, CK_FORK_GETENV);
}
