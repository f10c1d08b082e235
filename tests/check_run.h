/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_run.h - the one main() body every Check program shares: run a suite,
 * free the runner, and turn the failure count into automake's exit status.
 */
#ifndef HIVED_TESTS_CHECK_RUN_H
#define HIVED_TESTS_CHECK_RUN_H

#include <check.h>

/*
 * Runs s (printing at `mode`; forking per test as `fork` says, CK_FORK_GETENV
 * for Check's default) and frees it. Returns 0 if every test passed, else 1.
 */
static inline int check_run(Suite *s, enum print_output mode, enum fork_status fork) {
  SRunner *sr = srunner_create(s);
  int n;

  if (fork != CK_FORK_GETENV) srunner_set_fork_status(sr, fork);
  srunner_run_all(sr, mode);
  n = srunner_ntests_failed(sr);
  srunner_free(sr);
  return n ? 1 : 0;
}

#endif
