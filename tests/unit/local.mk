# SPDX-License-Identifier: GPL-2.0-or-later
# Check unit tests. Each owner appends its own block.

# --- src/config: hived.conf reader
check_PROGRAMS += tests/unit/test_config
TESTS += tests/unit/test_config
tests_unit_test_config_SOURCES = tests/unit/test_config.cpp
tests_unit_test_config_CPPFLAGS = $(AM_CPPFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS)
tests_unit_test_config_LDADD = libhived.la $(CHECK_LIBS) $(JANSSON_LIBS)
