# SPDX-License-Identifier: GPL-2.0-or-later
# Check unit tests. Each owner appends its own block.

# --- src/config: hived.conf reader
check_PROGRAMS += tests/unit/test_config
TESTS += tests/unit/test_config
tests_unit_test_config_SOURCES = tests/unit/test_config.cpp
tests_unit_test_config_CPPFLAGS = $(AM_CPPFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS)
tests_unit_test_config_LDADD = libhived.la $(CHECK_LIBS) $(JANSSON_LIBS)

# --- src/topo: cells derived from Slurm's files and hwloc
check_PROGRAMS += tests/unit/test_topo tests/unit/test_topo_hwloc tests/unit/test_topo_frac
TESTS += tests/unit/test_topo tests/unit/test_topo_hwloc tests/unit/test_topo_frac
tests_unit_test_topo_SOURCES = tests/unit/test_topo.cpp tests/unit/topo_test_util.h
tests_unit_test_topo_CPPFLAGS = $(AM_CPPFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS) \
	-DHIVED_TOP_SRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_topo_LDADD = libhived.la $(CHECK_LIBS) $(JANSSON_LIBS)
tests_unit_test_topo_frac_SOURCES = tests/unit/test_topo_frac.cpp tests/unit/topo_test_util.h
tests_unit_test_topo_frac_CPPFLAGS = $(tests_unit_test_topo_CPPFLAGS)
tests_unit_test_topo_frac_LDADD = $(tests_unit_test_topo_LDADD)
tests_unit_test_topo_hwloc_SOURCES = tests/unit/test_topo_hwloc.cpp tests/unit/topo_test_util.h \
	src/topo/hwloc_facts.h src/topo/hwloc_facts.cpp
tests_unit_test_topo_hwloc_CPPFLAGS = $(AM_CPPFLAGS) $(CHECK_CFLAGS) $(HWLOC_CFLAGS) $(JANSSON_CFLAGS) \
	-DHIVED_TOP_SRCDIR='"$(abs_top_srcdir)"' -DHIVED_TOP_BUILDDIR='"$(abs_top_builddir)"'
tests_unit_test_topo_hwloc_LDADD = libhived.la $(CHECK_LIBS) $(HWLOC_LIBS) $(JANSSON_LIBS)

# --- tools/sim: hived-sim loaders, metrics and known-answer replays (fixtures in
# tests/sim). The simulator's sources are listed here too, so that this test does
# not depend on tools/sim/local.mk being included.
test_sim_tools = \
	tools/sim/trace.cpp tools/sim/csv_reader.cpp tools/sim/load_itp.cpp tools/sim/load_philly.cpp \
	tools/sim/load_sacct.cpp tools/sim/selection.cpp tools/sim/quota.cpp tools/sim/cluster.cpp \
	tools/sim/event_loop.cpp tools/sim/node_pool.cpp tools/sim/vc_queue.cpp tools/sim/sched_quota.cpp \
	tools/sim/sched_hived.cpp tools/sim/sched_hived_reserve.cpp tools/sim/sched_hived_backfill.cpp \
	tools/sim/policies.cpp tools/sim/metrics.cpp tools/sim/study.cpp
check_PROGRAMS += tests/unit/test_sim
TESTS += tests/unit/test_sim
tests_unit_test_sim_SOURCES = tests/unit/test_sim.cpp $(test_sim_tools)
tests_unit_test_sim_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools/sim $(CHECK_CFLAGS) \
	-DHIVED_SIM_SRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_sim_LDADD = libhived.la $(CHECK_LIBS) $(JANSSON_LIBS)
EXTRA_DIST += tests/sim

# --- tools/sim: the openb loader and saturation study (fixtures in tests/sim/openb)
check_PROGRAMS += tests/unit/test_sim_openb
TESTS += tests/unit/test_sim_openb
tests_unit_test_sim_openb_SOURCES = tests/unit/test_sim_openb.cpp tools/sim/load_openb.cpp \
	tools/sim/openb_study.cpp tools/sim/csv_reader.cpp tools/sim/cluster.cpp
tests_unit_test_sim_openb_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools/sim $(CHECK_CFLAGS) \
	-DHIVED_SIM_SRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_sim_openb_LDADD = libhived.la $(CHECK_LIBS) $(JANSSON_LIBS)

# --- tools/soak: the engine soak in-process, a few fixed seeds (doc/reliability.md)
check_PROGRAMS += tests/unit/test_soak
TESTS += tests/unit/test_soak
tests_unit_test_soak_SOURCES = tests/unit/test_soak.cpp tools/soak.cpp tools/soak.h
tests_unit_test_soak_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools $(CHECK_CFLAGS) $(JANSSON_CFLAGS)
tests_unit_test_soak_LDADD = libhived.la $(CHECK_LIBS) $(JANSSON_LIBS)

# --- src/api: one error style through the C API (codes, messages, injected failures)
check_PROGRAMS += tests/unit/test_api_errors
TESTS += tests/unit/test_api_errors
tests_unit_test_api_errors_SOURCES = tests/unit/test_api_errors.cpp
tests_unit_test_api_errors_CPPFLAGS = $(AM_CPPFLAGS) $(CHECK_CFLAGS)
tests_unit_test_api_errors_LDADD = libhived.la $(CHECK_LIBS)

# --- src/api: a gang's shape from Slurm's GPU options (hived_gpu_shape_of)
check_PROGRAMS += tests/unit/test_gpu_shape
TESTS += tests/unit/test_gpu_shape
tests_unit_test_gpu_shape_SOURCES = tests/unit/test_gpu_shape.cpp
tests_unit_test_gpu_shape_CPPFLAGS = $(AM_CPPFLAGS) $(CHECK_CFLAGS)
tests_unit_test_gpu_shape_LDADD = libhived.la $(CHECK_LIBS)

# --- src/core: the cell store's walk and the buddy allocator, table-driven
check_PROGRAMS += tests/unit/test_buddy
TESTS += tests/unit/test_buddy
tests_unit_test_buddy_SOURCES = tests/unit/test_buddy.cpp
tests_unit_test_buddy_CPPFLAGS = $(AM_CPPFLAGS) $(CHECK_CFLAGS)
tests_unit_test_buddy_LDADD = libhived.la $(CHECK_LIBS)

# --- src/core: the preemption planner (victims, lazy demotion, snapshot-and-revert)
check_PROGRAMS += tests/unit/test_preemption
TESTS += tests/unit/test_preemption
tests_unit_test_preemption_SOURCES = tests/unit/test_preemption.cpp tests/unit/engine_test_util.h
tests_unit_test_preemption_CPPFLAGS = $(AM_CPPFLAGS) $(CHECK_CFLAGS)
tests_unit_test_preemption_LDADD = libhived.la $(CHECK_LIBS) $(JANSSON_LIBS)

# --- src/core: one request's constraints on one chain (constraints.h)
check_PROGRAMS += tests/unit/test_constraints
TESTS += tests/unit/test_constraints
tests_unit_test_constraints_SOURCES = tests/unit/test_constraints.cpp tests/unit/engine_test_util.h
tests_unit_test_constraints_CPPFLAGS = $(AM_CPPFLAGS) $(CHECK_CFLAGS)
tests_unit_test_constraints_LDADD = libhived.la $(CHECK_LIBS) $(JANSSON_LIBS)

# --- src/core: the binder (virtual -> physical cells, gang racks)
check_PROGRAMS += tests/unit/test_binding
TESTS += tests/unit/test_binding
tests_unit_test_binding_SOURCES = tests/unit/test_binding.cpp tests/unit/engine_test_util.h
tests_unit_test_binding_CPPFLAGS = $(AM_CPPFLAGS) $(CHECK_CFLAGS)
tests_unit_test_binding_LDADD = libhived.la $(CHECK_LIBS) $(JANSSON_LIBS)

# --- src/core: the job table on its own (slots, name index, compaction, interning)
check_PROGRAMS += tests/unit/test_job_table
TESTS += tests/unit/test_job_table
tests_unit_test_job_table_SOURCES = tests/unit/test_job_table.cpp src/core/job_table.cpp
tests_unit_test_job_table_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src $(CHECK_CFLAGS)
tests_unit_test_job_table_LDADD = $(CHECK_LIBS)

# --- src/core: typed ids (indexing the wrong table of cells does not compile)
check_PROGRAMS += tests/unit/test_ids
TESTS += tests/unit/test_ids
tests_unit_test_ids_SOURCES = tests/unit/test_ids.cpp src/core/job_table.cpp
tests_unit_test_ids_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src $(CHECK_CFLAGS)
tests_unit_test_ids_LDADD = $(CHECK_LIBS)

# --- src/core: the ordered id sets behind the best-fit buckets and free lists
check_PROGRAMS += tests/unit/test_id_set
TESTS += tests/unit/test_id_set
tests_unit_test_id_set_SOURCES = tests/unit/test_id_set.cpp
tests_unit_test_id_set_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src $(CHECK_CFLAGS)
tests_unit_test_id_set_LDADD = $(CHECK_LIBS)

check_PROGRAMS += tests/unit/test_job_index
TESTS += tests/unit/test_job_index
tests_unit_test_job_index_SOURCES = tests/unit/test_job_index.cpp
tests_unit_test_job_index_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src $(CHECK_CFLAGS)
tests_unit_test_job_index_LDADD = $(CHECK_LIBS)

# --- src/core: WILL_RUN's trial against a copy where the jobs end for real (two chains)
check_PROGRAMS += tests/unit/test_will_run
TESTS += tests/unit/test_will_run
tests_unit_test_will_run_SOURCES = tests/unit/test_will_run.cpp
tests_unit_test_will_run_CPPFLAGS = $(AM_CPPFLAGS) $(CHECK_CFLAGS)
tests_unit_test_will_run_LDADD = libhived.la $(CHECK_LIBS)
