# SPDX-License-Identifier: GPL-2.0-or-later
# Pieces of the Slurm plugins that need no Slurm, tested alone.

check_PROGRAMS += tests/slurm/test_latency_hist
TESTS += tests/slurm/test_latency_hist
tests_slurm_test_latency_hist_SOURCES = tests/slurm/test_latency_hist.c \
	src/slurm/latency_hist.c src/slurm/latency_hist.h
tests_slurm_test_latency_hist_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_slurm_test_latency_hist_LDADD = $(CHECK_LIBS)

check_PROGRAMS += tests/slurm/test_wait_history
TESTS += tests/slurm/test_wait_history
tests_slurm_test_wait_history_SOURCES = tests/slurm/test_wait_history.c \
	src/slurm/wait_history.c src/slurm/wait_history.h
tests_slurm_test_wait_history_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_slurm_test_wait_history_LDADD = $(CHECK_LIBS)

check_PROGRAMS += tests/slurm/test_victim_log
TESTS += tests/slurm/test_victim_log
tests_slurm_test_victim_log_SOURCES = tests/slurm/test_victim_log.c \
	src/slurm/victim_log.c src/slurm/victim_log.h
tests_slurm_test_victim_log_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_slurm_test_victim_log_LDADD = $(CHECK_LIBS)

check_PROGRAMS += tests/slurm/test_node_claims
TESTS += tests/slurm/test_node_claims
tests_slurm_test_node_claims_SOURCES = tests/slurm/test_node_claims.c \
	src/slurm/node_claims.c src/slurm/node_claims.h
tests_slurm_test_node_claims_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_slurm_test_node_claims_LDADD = $(CHECK_LIBS)

# configure's comparison of the plugins' operation tables with Slurm's (a script,
# no Slurm needed).
TESTS += tests/slurm/test_ops_check
EXTRA_DIST += tests/slurm/test_ops_check
