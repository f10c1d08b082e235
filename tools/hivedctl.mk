# SPDX-License-Identifier: GPL-2.0-or-later
# hivedctl: cluster, VC and job views, the cell map and Prometheus metrics from
# select/hived's hived_status.json (jansson only), and whatif (the engine too).
# wait_history.c (no Slurm headers) gives it the plugin's words for wait causes.

noinst_LTLIBRARIES += tools/libhivedctl.la
tools_libhivedctl_la_SOURCES = \
	tools/hivedctl_model.cpp tools/hivedctl_model.h \
	tools/hivedctl_views.h tools/hivedctl_text.cpp \
	tools/hivedctl_metrics.cpp tools/hivedctl_map.cpp tools/xml_text.h \
	tools/hivedctl_output.cpp tools/hivedctl_output.h \
	tools/hivedctl_access.cpp tools/hivedctl_access.h \
	src/slurm/wait_history.c src/slurm/wait_history.h
tools_libhivedctl_la_CPPFLAGS = $(AM_CPPFLAGS) $(JANSSON_CFLAGS)
tools_libhivedctl_la_LIBADD = $(JANSSON_LIBS)

bin_PROGRAMS += hivedctl
# whatif rebuilds a private engine, so hivedctl links libhived too.
hivedctl_SOURCES = tools/hivedctl.cpp tools/hivedctl_whatif.cpp tools/hivedctl_whatif.h \
	tools/cli_args.h
hivedctl_CPPFLAGS = $(AM_CPPFLAGS) $(JANSSON_CFLAGS)
hivedctl_LDADD = tools/libhivedctl.la libhived.la $(JANSSON_LIBS)

# Formatting on a fixture status file (taken from a live select/hived).
check_PROGRAMS += tests/hivedctl/test_hivedctl
TESTS += tests/hivedctl/test_hivedctl
tests_hivedctl_test_hivedctl_SOURCES = tests/hivedctl/test_hivedctl.cpp
tests_hivedctl_test_hivedctl_CPPFLAGS = $(AM_CPPFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS) \
	-I$(top_srcdir)/tools -DHIVEDCTL_FIXTURES='"$(abs_top_srcdir)/tests/hivedctl"'
tests_hivedctl_test_hivedctl_LDADD = tools/libhivedctl.la $(CHECK_LIBS) $(JANSSON_LIBS)

# The HTML map rendered by headless Chromium (skips without chromium).
check_PROGRAMS += tests/hivedctl/test_map_render
TESTS += tests/hivedctl/test_map_render
tests_hivedctl_test_map_render_SOURCES = tests/hivedctl/test_map_render.cpp \
	tests/hivedctl/png_read.cpp tests/hivedctl/png_read.h
tests_hivedctl_test_map_render_CPPFLAGS = $(AM_CPPFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS) \
	-I$(top_srcdir)/tools -DHIVEDCTL_FIXTURES='"$(abs_top_srcdir)/tests/hivedctl"'
tests_hivedctl_test_map_render_LDADD = tools/libhivedctl.la $(CHECK_LIBS) $(JANSSON_LIBS)

# whatif on saved states: a config plus status files of a live-like cluster.
check_PROGRAMS += tests/hivedctl/test_whatif
TESTS += tests/hivedctl/test_whatif
tests_hivedctl_test_whatif_SOURCES = tests/hivedctl/test_whatif.cpp tools/hivedctl_whatif.cpp
tests_hivedctl_test_whatif_CPPFLAGS = $(AM_CPPFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS) \
	-I$(top_srcdir)/tools -DHIVEDCTL_FIXTURES='"$(abs_top_srcdir)/tests/hivedctl"'
tests_hivedctl_test_whatif_LDADD = tools/libhivedctl.la libhived.la $(CHECK_LIBS) $(JANSSON_LIBS)

EXTRA_DIST += tests/hivedctl/status.json tests/hivedctl/status-mig.json tests/hivedctl/whatif
dist_man_MANS += doc/man/hivedctl.1

# The user surface's docs: the plugins' page (select/hived, priority/hived, the
# --hived-* options) and the two quick starts.
dist_man_MANS += doc/man/select_hived.8
EXTRA_DIST += doc/quickstart-admin.md doc/quickstart-user.md
