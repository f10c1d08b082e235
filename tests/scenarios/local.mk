# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario tests: every directory under tests/scenarios/ replayed through the built
# hived-replay by one Check program (see doc/replay.md).

check_PROGRAMS += tests/unit/test_scenarios
TESTS += tests/unit/test_scenarios
tests_unit_test_scenarios_SOURCES = tests/unit/test_scenarios.c
tests_unit_test_scenarios_CPPFLAGS = $(AM_CPPFLAGS) \
	-DHIVED_REPLAY_PATH='"$(abs_top_builddir)/hived-replay$(EXEEXT)"' \
	-DHIVED_SCENARIO_PATH='"$(abs_top_srcdir)/tests/scenarios"'
tests_unit_test_scenarios_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS)
tests_unit_test_scenarios_LDADD = $(CHECK_LIBS) $(JANSSON_LIBS)
# hived-replay is a bin_PROGRAM: "make check" builds "all" first, so it is there.

EXTRA_DIST += tests/scenarios
