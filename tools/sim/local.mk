# SPDX-License-Identifier: GPL-2.0-or-later
# hived-sim: trace-driven simulation of HiveD (the real engine) against a Slurm-like
# quota baseline and each VC's private cluster; `make sim-results` regenerates
# doc/results.md and its plots from the traces in $(TRACES).

bin_PROGRAMS += hived-sim

# Everything but main.cpp, shared with tests/unit/test_sim (tests/unit/local.mk lists
# the same files so that it does not depend on this fragment being included).
hived_sim_core = \
	tools/sim/trace.h tools/sim/trace.cpp \
	tools/sim/csv_reader.h tools/sim/csv_reader.cpp \
	tools/sim/loaders.h tools/sim/load_itp.cpp tools/sim/load_philly.cpp tools/sim/load_sacct.cpp \
	tools/sim/openb.h tools/sim/load_openb.cpp tools/sim/openb_study.h tools/sim/openb_study.cpp \
	tools/sim/openb_report.cpp \
	tools/sim/selection.h tools/sim/selection.cpp \
	tools/sim/quota.h tools/sim/quota.cpp \
	tools/sim/cluster.h tools/sim/cluster.cpp \
	tools/sim/sim.h tools/sim/event_loop.cpp \
	tools/sim/node_pool.h tools/sim/node_pool.cpp \
	tools/sim/vc_queue.h tools/sim/vc_queue.cpp \
	tools/sim/sched_quota.h tools/sim/sched_quota.cpp \
	tools/sim/sched_hived.h tools/sim/sched_hived.cpp \
	tools/sim/sched_hived_reserve.cpp tools/sim/sched_hived_backfill.cpp \
	tools/sim/policies.h tools/sim/policies.cpp \
	tools/sim/metrics.h tools/sim/metrics.cpp \
	tools/sim/study.h tools/sim/study.cpp \
	tools/sim/report.h tools/sim/report.cpp \
	tools/sim/svg.h tools/sim/svg.cpp tools/xml_text.h \
	tools/sim/plots.h tools/sim/plots.cpp \
	tools/sim/planner.h tools/sim/planner.cpp \
	tools/sim/results_page.h tools/sim/results_page.cpp \
	tools/sim/cli.h tools/sim/cli.cpp

hived_sim_SOURCES = tools/sim/main.cpp $(hived_sim_core)
hived_sim_LDADD = libhived.la $(JANSSON_LIBS)

dist_man_MANS += doc/man/hived-sim.1
EXTRA_DIST += doc/sim.md doc/results.md doc/results

# The results page. TRACES=DIR (the directory holding itp/ and philly-vc/) overrides
# the default; TRACES is not assigned here because tools/compare.mk assigns the same
# default and automake warns about a variable defined twice.
sim_traces = $(if $(TRACES),$(TRACES),$(abs_top_srcdir)/../shared/traces)
sim-results: hived-sim$(EXEEXT)
	./hived-sim$(EXEEXT) results --itp '$(sim_traces)/itp' --philly '$(sim_traces)/philly-vc' \
	  --openb '$(sim_traces)/openb' \
	  --out '$(abs_top_srcdir)/doc/results.md' --plots '$(abs_top_srcdir)/doc/results'

.PHONY: sim-results
