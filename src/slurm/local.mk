# SPDX-License-Identifier: GPL-2.0-or-later
# select/hived and priority/hived: the only code that includes Slurm's headers.
# Built as libtool modules; the .so files land in src/slurm/.libs/, which
# scripts/hived-cluster puts first in the test cluster's PluginDir.

if HAVE_SLURM
slurmplugin_LTLIBRARIES += src/slurm/select_hived.la src/slurm/priority_hived.la
endif

# Slurm's tree first: its headers include "config.h" and "src/common/...".
hived_plugin_cppflags = $(SLURM_CPPFLAGS) -I$(top_srcdir)/include
# Plugins load into uninstrumented Slurm daemons: never sanitizer flags here.
hived_plugin_cflags = -Wall -fno-strict-aliasing
# Slurm symbols (xmalloc, slurm_conf, ...) resolve when slurmctld loads the plugin.
# (libtool's -export-symbols-regex is ignored when linking with the C++ driver.)
hived_plugin_ldflags = -module -avoid-version -shared \
	-Wl,--version-script=$(top_srcdir)/src/slurm/plugin.map

# The entry points of the select interface generation configure found
# (slurm_gen.h); everything else is written once for every release.
src_slurm_select_hived_la_SOURCES = \
	src/slurm/slurm_gen.h \
	src/slurm/select_hooks.c src/slurm/select_hooks.h \
	src/slurm/select_pass.c src/slurm/select_pass.h src/slurm/select_ops.h \
	src/slurm/core_steer.c src/slurm/core_steer.h \
	src/slurm/hived_ctld.c src/slurm/hived_ctld.h \
	src/slurm/hived_ends.c src/slurm/hived_ends.h \
	src/slurm/hived_vc_head.c src/slurm/hived_vc_head.h \
	src/slurm/hived_conf_load.c \
	src/slurm/hived_nodes.c \
	src/slurm/mig_mps.c src/slurm/mig_mps.h \
	src/slurm/hived_state_file.c \
	src/slurm/hived_paths.c src/slurm/hived_paths.h \
	src/slurm/hived_verdict.c src/slurm/hived_verdict.h \
	src/slurm/hived_fractions.c src/slurm/hived_fractions.h \
	src/slurm/priority_order.c src/slurm/priority_order.h \
	src/slurm/hived_job.c src/slurm/hived_job.h \
	src/slurm/ctld_symbols.h \
	src/slurm/hived_status.c src/slurm/hived_status.h \
	src/slurm/latency_hist.c src/slurm/latency_hist.h \
	src/slurm/wait_history.c src/slurm/wait_history.h \
	src/slurm/victim_log.c src/slurm/victim_log.h \
	src/slurm/node_claims.c src/slurm/node_claims.h \
	src/slurm/read_file.c src/slurm/read_file.h \
	src/slurm/plugin_forward.c src/slurm/plugin_forward.h
# The engine is C++: link with the C++ driver so libstdc++ comes along.
nodist_EXTRA_src_slurm_select_hived_la_SOURCES = src/slurm/cxx_link.cxx
if SELECT_GEN_2505
src_slurm_select_hived_la_SOURCES += src/slurm/select_gen_2505.c
else
src_slurm_select_hived_la_SOURCES += src/slurm/select_gen_2205_2311.c
endif
EXTRA_DIST += src/slurm/select_gen_2205_2311.c src/slurm/select_gen_2505.c
src_slurm_select_hived_la_CPPFLAGS = $(hived_plugin_cppflags) $(JANSSON_CFLAGS)
src_slurm_select_hived_la_CFLAGS = $(hived_plugin_cflags)
src_slurm_select_hived_la_LDFLAGS = $(hived_plugin_ldflags)
src_slurm_select_hived_la_LIBADD = libhived.la $(JANSSON_LIBS)

src_slurm_priority_hived_la_SOURCES = \
	src/slurm/priority_hived.c \
	src/slurm/priority_gen.c src/slurm/priority_gen.h \
	src/slurm/hived_verdict.h \
	src/slurm/plugin_forward.c src/slurm/plugin_forward.h
src_slurm_priority_hived_la_CPPFLAGS = $(hived_plugin_cppflags)
src_slurm_priority_hived_la_CFLAGS = $(hived_plugin_cflags)
src_slurm_priority_hived_la_LDFLAGS = $(hived_plugin_ldflags)
src_slurm_select_hived_la_DEPENDENCIES = libhived.la src/slurm/plugin.map
src_slurm_priority_hived_la_DEPENDENCIES = src/slurm/plugin.map
EXTRA_DIST += src/slurm/plugin.map

# priority/hived: HiveD's bands (priority_order.c, no Slurm headers, unit-tested
# alone) from what select/hived answers in-process (hived_verdict.h).
src_slurm_priority_hived_la_SOURCES += src/slurm/priority_order.c src/slurm/priority_order.h
src_slurm_priority_hived_la_CPPFLAGS += $(JANSSON_CFLAGS)
src_slurm_priority_hived_la_LIBADD = $(JANSSON_LIBS)

check_PROGRAMS += tests/priority/test_priority_order
TESTS += tests/priority/test_priority_order
tests_priority_test_priority_order_SOURCES = tests/priority/test_priority_order.c \
	src/slurm/priority_order.c src/slurm/priority_order.h
tests_priority_test_priority_order_CPPFLAGS = $(AM_CPPFLAGS) $(JANSSON_CFLAGS) \
	-I$(top_srcdir)/src/slurm \
	-DHIVED_STATUS_FIXTURE='"$(abs_top_srcdir)/tests/hivedctl/status.json"'
tests_priority_test_priority_order_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_priority_test_priority_order_LDADD = $(CHECK_LIBS) $(JANSSON_LIBS)
