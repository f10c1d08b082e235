/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_spank_options.c - the --hived-* option checks against hived.conf text.
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hived_options.h"
#include "../check_run.h"

static const char *conf =
	"{\"physicalCluster\": {\"cellTypes\": {"
	"  \"A100-PAIR\": {\"childCellType\": \"a100\", \"childCellNumber\": 2},"
	"  \"A100-NODE\": {\"childCellType\": \"A100-PAIR\", \"childCellNumber\": 4, \"isNodeLevel\": true},"
	"  \"A100-RACK\": {\"childCellType\": \"A100-NODE\", \"childCellNumber\": 2}},"
	" \"physicalCells\": [{\"cellType\": \"A100-RACK\", \"cellAddress\": \"rack0\", \"cellChildren\": ["
	"   {\"cellAddress\": \"node1\", \"pinnedCellId\": \"fast-node\"},"
	"   {\"cellAddress\": \"node2\"}]}]},"
	" \"virtualClusters\": {\"vc1\": {\"virtualCells\": [{\"cellType\": \"A100-RACK.A100-NODE\", \"cellNumber\": 1}],"
	"   \"pinnedCells\": [{\"pinnedCellId\": \"fast-node\"}]}}}";

START_TEST(test_names)
{
	hived_conf_names n;
	char err[256];

	ck_assert_int_eq(hived_opt_names_parse(conf, &n, err, sizeof(err)), 0);
	ck_assert_int_eq(n.n_cell_types, 3);
	ck_assert_str_eq(n.cell_types[0], "A100-PAIR");
	ck_assert_str_eq(n.cell_types[2], "A100-RACK");
	/* Listed once although named on both sides. */
	ck_assert_int_eq(n.n_pinned_ids, 1);
	ck_assert_str_eq(n.pinned_ids[0], "fast-node");
	hived_opt_names_free(&n);
	ck_assert_int_eq(hived_opt_names_parse("{\"physicalCluster\": {}}", &n,
					       err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "cellTypes"));
	ck_assert_int_eq(hived_opt_names_parse("{", &n, err, sizeof(err)), -1);
}
END_TEST

/*
 * hived.conf is read by the engine's reader: what select/hived refuses is refused
 * here with the engine's words, not accepted by a second, looser parser.
 */
START_TEST(test_names_engine_reader)
{
	hived_conf_names n;
	char err[512], *typo;
	const char *at = strstr(conf, "\"virtualClusters\"");
	int rc;

	/* A misspelt section: the engine names it and the section meant. */
	ck_assert_int_ne(asprintf(&typo, "%.*s\"virtualCluster\"%s",
				  (int) (at - conf), conf,
				  at + strlen("\"virtualClusters\"")), -1);
	rc = hived_opt_names_parse(typo, &n, err, sizeof(err));
	free(typo);
	ck_assert_int_eq(rc, -1);
	ck_assert_msg(strstr(err, "virtualCluster"), "%s", err);
	/* Duplicate keys, which JSON parsers differ on. */
	ck_assert_int_eq(hived_opt_names_parse(
		"{\"physicalCluster\": {}, \"physicalCluster\": {}}", &n, err,
		sizeof(err)), -1);
	ck_assert_msg(strstr(err, "physicalCluster"), "%s", err);
	/* Everything derived from slurm.conf: valid, but no names to check. */
	ck_assert_int_eq(hived_opt_names_parse("", &n, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "hived_status.json"), "%s", err);
}
END_TEST

START_TEST(test_within)
{
	hived_conf_names n;
	char err[1024];

	ck_assert_int_eq(hived_opt_names_parse(conf, &n, err, sizeof(err)), 0);
	ck_assert_int_eq(hived_opt_check_within("A100-NODE", &n, "/x/hived.conf",
						err, sizeof(err)), 0);
	ck_assert_int_eq(hived_opt_check_within("A100-SOCKET", &n, "/x/hived.conf",
						err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "--hived-within=A100-SOCKET: unknown cell type"));
	ck_assert_ptr_nonnull(strstr(err, "this cluster's cell types (/x/hived.conf): A100-PAIR, A100-NODE, A100-RACK"));
	ck_assert_int_eq(hived_opt_check_within("a100-rack", &n, "/x/hived.conf",
						err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "did you mean A100-RACK?"));
	/* Without hived.conf: syntax only. */
	ck_assert_int_eq(hived_opt_check_within("ANY-TYPE", NULL, NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(hived_opt_check_within("A B", NULL, NULL, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "character that is not allowed"));
	ck_assert_int_eq(hived_opt_check_within("", NULL, NULL, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "empty"));
	ck_assert_int_eq(hived_opt_check_within("A100-RACK.A100-NODE", &n, "c",
						err, sizeof(err)), -1);
	hived_opt_names_free(&n);
}
END_TEST

START_TEST(test_pinned)
{
	hived_conf_names n, none;
	char err[1024], longid[80];

	ck_assert_int_eq(hived_opt_names_parse(conf, &n, err, sizeof(err)), 0);
	ck_assert_int_eq(hived_opt_check_pinned("fast-node", &n, "c", err, sizeof(err)), 0);
	ck_assert_int_eq(hived_opt_check_pinned("slow-node", &n, "c", err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "unknown pinned cell id; this cluster's pinned cells (c): fast-node"));
	memset(longid, 'x', 70);
	longid[70] = '\0';
	ck_assert_int_eq(hived_opt_check_pinned(longid, NULL, NULL, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "longer than 63"));
	ck_assert_int_eq(hived_opt_check_pinned("rack0/node1:a.b_c", NULL, NULL, err,
						sizeof(err)), 0);
	ck_assert_int_eq(hived_opt_check_pinned("x;rm", NULL, NULL, err, sizeof(err)), -1);
	hived_opt_names_free(&n);
	ck_assert_int_eq(hived_opt_names_parse(
		"{\"physicalCluster\": {\"cellTypes\": {\"N\": {\"childCellType\": \"g\", \"childCellNumber\": 1}}}}",
		&none, err, sizeof(err)), 0);
	ck_assert_int_eq(hived_opt_check_pinned("p", &none, "c", err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "this cluster has no pinned cells (c)"));
	hived_opt_names_free(&none);
}
END_TEST

START_TEST(test_combination)
{
	char err[512];

	ck_assert_int_eq(hived_opt_check_combination("A", NULL, 1, 0, err, sizeof(err)), 0);
	ck_assert_int_eq(hived_opt_check_combination("A", NULL, 0, 1, err, sizeof(err)), 0);
	ck_assert_int_eq(hived_opt_check_combination(NULL, "p", 0, 1, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "--hived-pinned and --hived-opportunistic"));
	ck_assert_int_eq(hived_opt_check_combination(NULL, NULL, 1, 1, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "--hived-lazy-preempt and --hived-opportunistic"));
}
END_TEST

/* The configuration in force, from select/hived's status file. */
START_TEST(test_status_names)
{
	hived_conf_names n;
	char err[256];

	ck_assert_int_eq(hived_opt_names_load(HIVED_STATUS_FIXTURE, 1, &n, err,
					      sizeof(err)), 0);
	ck_assert_int_eq(n.n_cell_types, 4);	/* GPUs themselves are not offered */
	ck_assert_str_eq(n.cell_types[0], "A100-PAIR");
	ck_assert_str_eq(n.cell_types[3], "A100-RACK");
	ck_assert_int_eq(n.n_pinned_ids, 0);
	hived_opt_names_free(&n);
	ck_assert_int_eq(hived_opt_names_parse_status(
		"{\"cluster\":{\"chains\":[],\"vcs\":[{\"vc\":\"a\",\"pinnedCells\":[{\"pinnedCellId\":\"p1\"}]}]}}",
		&n, err, sizeof(err)), 0);
	ck_assert_int_eq(n.n_pinned_ids, 1);
	ck_assert_str_eq(n.pinned_ids[0], "p1");
	hived_opt_names_free(&n);
	ck_assert_int_eq(hived_opt_names_parse_status("{}", &n, err, sizeof(err)), -1);
	ck_assert_int_eq(hived_opt_names_load("/nonexistent/x", 1, &n, err, sizeof(err)), -1);
}
END_TEST

START_TEST(test_status_path)
{
	char dir[] = "/tmp/hived-spank-XXXXXX", conf[64], *p;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(conf, sizeof(conf), "%s/slurm.conf", dir);
	f = fopen(conf, "w");
	fputs("# StateSaveLocation=/wrong\nClusterName=x\n  statesavelocation = /var/spool/ctld   # comment\n", f);
	fclose(f);
	setenv("SLURM_CONF", conf, 1);
	p = hived_opt_status_path();
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p, "/var/spool/ctld/hived_status.json");
	free(p);
	f = fopen(conf, "w");
	fputs("ClusterName=x\n", f);
	fclose(f);
	ck_assert_ptr_null(hived_opt_status_path());
	unlink(conf);
	rmdir(dir);
	unsetenv("SLURM_CONF");
}
END_TEST

START_TEST(test_conf_path)
{
	char *p;

	setenv("SLURM_CONF", "/srv/cluster/etc/slurm.conf", 1);
	p = hived_opt_conf_path();
	ck_assert_str_eq(p, "/srv/cluster/etc/hived.conf");
	free(p);
	unsetenv("SLURM_CONF");
	p = hived_opt_conf_path();
	ck_assert_str_eq(p, "/etc/slurm/hived.conf");
	free(p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("spank_options");
	TCase *tc = tcase_create("options");

	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_names_engine_reader);
	tcase_add_test(tc, test_within);
	tcase_add_test(tc, test_pinned);
	tcase_add_test(tc, test_combination);
	tcase_add_test(tc, test_conf_path);
	tcase_add_test(tc, test_status_names);
	tcase_add_test(tc, test_status_path);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL, CK_FORK_GETENV);
}
