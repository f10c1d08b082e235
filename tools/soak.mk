# SPDX-License-Identifier: GPL-2.0-or-later
# hived-soak (the engine soak) and the long reliability targets of doc/reliability.md:
#   make soak            SOAK_STEPS, SOAK_SEED, SOAK_GPUS (default 100000 steps, seed 1,
#                        10000 GPUs), invariants after every step
#   make check-valgrind  the tools under valgrind; fails on any report

bin_PROGRAMS += hived-soak
hived_soak_SOURCES = tools/hived-soak.cpp tools/soak.cpp tools/soak.h tools/cli_args.h
hived_soak_CPPFLAGS = $(AM_CPPFLAGS) $(JANSSON_CFLAGS)
hived_soak_LDADD = libhived.la $(JANSSON_LIBS)
dist_man_MANS += doc/man/hived-soak.1

SOAK_STEPS = 100000
SOAK_SEED = 1
SOAK_GPUS = 10000
soak: hived-soak$(EXEEXT)
	./hived-soak$(EXEEXT) --seed $(SOAK_SEED) --steps $(SOAK_STEPS) --gpus $(SOAK_GPUS) --progress 10000

check-valgrind: all
	HIVED_SRCDIR='$(abs_top_srcdir)' HIVED_BUILDDIR='$(abs_top_builddir)' \
	  $(SHELL) $(top_srcdir)/scripts/check-valgrind

.PHONY: soak check-valgrind
