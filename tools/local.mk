# SPDX-License-Identifier: GPL-2.0-or-later
# hived-replay and hived-bench: the engine driven through include/hived.h only.

bin_PROGRAMS += hived-replay hived-bench

hived_tools_common = \
	tools/replay_json.cpp tools/replay_json.h tools/cli_args.h

hived_replay_SOURCES = tools/hived-replay.cpp $(hived_tools_common) \
	tools/replay_request.cpp tools/replay_request.h \
	tools/replay_session.cpp tools/replay_session.h
hived_replay_CPPFLAGS = $(AM_CPPFLAGS) $(JANSSON_CFLAGS)
hived_replay_LDADD = libhived.la $(JANSSON_LIBS)

hived_bench_SOURCES = tools/hived-bench.cpp $(hived_tools_common) \
	tools/bench_cluster.cpp tools/bench_cluster.h
hived_bench_CPPFLAGS = $(AM_CPPFLAGS) $(JANSSON_CFLAGS)
hived_bench_LDADD = libhived.la $(JANSSON_LIBS)

dist_man_MANS += doc/man/hived-replay.1 doc/man/hived-bench.1
EXTRA_DIST += doc/replay.md doc/bench.md
include tools/hivedctl.mk
include tools/sim/local.mk
include tools/soak.mk
