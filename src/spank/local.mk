# SPDX-License-Identifier: GPL-2.0-or-later
# hived_spank.so: the --hived-within/--hived-pinned/--hived-lazy-preempt/
# --hived-opportunistic options of sbatch, salloc and srun. Uses only Slurm's
# public <slurm/spank.h>; listed in plugstack.conf (scripts/hived-cluster writes
# the line for this build tree). Installed next to the other plugins.

if HAVE_SLURM
slurmplugin_LTLIBRARIES += src/spank/hived_spank.la
endif
src_spank_hived_spank_la_SOURCES = \
	src/spank/hived_spank.c \
	src/spank/hived_options.c src/spank/hived_options.h
# SLURM_INCLUDE: <slurm/spank.h> of the Slurm built for (--with-slurm=PREFIX).
src_spank_hived_spank_la_CPPFLAGS = $(SLURM_INCLUDE) $(AM_CPPFLAGS) $(JANSSON_CFLAGS)
# Loads into uninstrumented Slurm commands: never sanitizer flags here.
src_spank_hived_spank_la_CFLAGS = -Wall
src_spank_hived_spank_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--version-script=$(top_srcdir)/src/spank/spank.map
# hived.conf is read by the engine's reader (hived_config_names): C++, so link
# with the C++ driver for libstdc++.
src_spank_hived_spank_la_LIBADD = libhived.la $(JANSSON_LIBS)
nodist_EXTRA_src_spank_hived_spank_la_SOURCES = src/spank/cxx_link.cxx
src_spank_hived_spank_la_DEPENDENCIES = libhived.la src/spank/spank.map
EXTRA_DIST += src/spank/spank.map

# The option checks on their own (no Slurm needed).
check_PROGRAMS += tests/spank/test_spank_options
TESTS += tests/spank/test_spank_options
tests_spank_test_spank_options_SOURCES = tests/spank/test_spank_options.c \
	src/spank/hived_options.c src/spank/hived_options.h
tests_spank_test_spank_options_CPPFLAGS = $(AM_CPPFLAGS) $(JANSSON_CFLAGS) \
	-I$(top_srcdir)/src/spank \
	-DHIVED_STATUS_FIXTURE='"$(abs_top_srcdir)/tests/hivedctl/status.json"'
tests_spank_test_spank_options_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_spank_test_spank_options_LDADD = libhived.la $(CHECK_LIBS) $(JANSSON_LIBS)
nodist_EXTRA_tests_spank_test_spank_options_SOURCES = src/spank/cxx_link.cxx
