# SPDX-License-Identifier: GPL-2.0-or-later
# End-to-end: a real local Slurm cluster (scripts/hived-cluster) running the
# plugins of this build tree. Needs root; skips (77) otherwise.

if HAVE_SLURM
check_PROGRAMS += tests/e2e/test_cluster
TESTS += tests/e2e/test_cluster
endif
tests_e2e_test_cluster_SOURCES = tests/e2e/test_cluster.c tests/e2e/run.c tests/e2e/run.h
# Links libhived (C++) to check the generated hived.conf: use the C++ driver.
nodist_EXTRA_tests_e2e_test_cluster_SOURCES = tests/e2e/cxx_link.cxx
tests_e2e_test_cluster_CPPFLAGS = $(AM_CPPFLAGS) \
	-DHIVED_SRCDIR_DEFAULT='"$(abs_top_srcdir)"' \
	-DHIVED_BUILDDIR_DEFAULT='"$(abs_top_builddir)"'
tests_e2e_test_cluster_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_e2e_test_cluster_LDADD = libhived.la $(CHECK_LIBS) $(JANSSON_LIBS)

# Every test below owns the cluster in tests/e2e/cluster-<name>: stop any left
# running, then remove them all.
clean-local: clean-e2e-cluster
clean-e2e-cluster:
	-for d in tests/e2e/cluster tests/e2e/cluster/cluster-in-* tests/e2e/cluster-*; do \
	  test ! -d "$$d/run" || $(top_srcdir)/scripts/hived-cluster down -q --dir "$$d"; done
	-rm -rf tests/e2e/cluster tests/e2e/cluster-*
.PHONY: clean-e2e-cluster

# The tests that share e2e_main (one cluster per program, Check cases in order),
# each built from tests/e2e/<name>.c and this library:
# - test_select: select/hived decisions in a real slurmctld (issue 4): VC
#   guarantee, preemption, racks, node health, kill -9 restart, refused reload.
# - test_backfill: no VC waits behind another VC's queue in backfill (issue 18).
# - test_user: what users and admins touch (issue 6): --hived-* options (SPANK),
#   priority/hived's bands, hivedctl as an ordinary user.
# - test_security (issue 9): as unprivileged users, another VC's cells or pinned
#   cell, a higher class or priority through options, environment or a libslurm
#   client; the plugin's files and PrivateData.
# - test_faults (issue 9): floods across VCs, kill -9 of slurmctld, a dead slurmd,
#   bad state files, a hived.conf that no longer fits. "make check" runs a short
#   version; "make check-load" the long one (doc/reliability.md).
# - test_admin (issue 17): the quickstarts followed literally.
# - test_reload (issue 17): a hived.conf reload never silently undoes a VC guarantee.
# - test_preempt (issue 18): an owner's job preempts opportunistic work only when
#   no free cell of its VC's shape can be bound.
# - test_shard (issue 15): --gres=shard:k jobs packed and guaranteed per VC; a GPU
#   holding shards is never given out whole.
# - test_mig (issue 15): --gres=gpu:<MIG profile>:n jobs on their VC's guaranteed
#   slices, at the GRES index HiveD chose; an untyped GPU job never gets a slice.
# - test_mps (issue 15): --gres=mps jobs refused with HiveD's reason; whole GPUs
#   on nodes with gres/mps placed as usual.
# - test_mixed: nodes of two sizes; an exclusive job takes whole nodes of the
#   size its partition has.
# Longest first: make -j2 check runs two at a time.
E2E_TESTS = tests/e2e/test_faults tests/e2e/test_select tests/e2e/test_preempt \
	tests/e2e/test_backfill tests/e2e/test_reload tests/e2e/test_admin tests/e2e/test_user \
	tests/e2e/test_security tests/e2e/test_mig tests/e2e/test_shard tests/e2e/test_mps \
	tests/e2e/test_mixed
if HAVE_SLURM
check_PROGRAMS += $(E2E_TESTS)
TESTS += $(E2E_TESTS)
endif
check_LTLIBRARIES += tests/e2e/libe2e.la
tests_e2e_libe2e_la_SOURCES = tests/e2e/run.c tests/e2e/run.h \
	tests/e2e/e2e_main.c tests/e2e/e2e_main.h \
	tests/e2e/slurm_jobs.c tests/e2e/slurm_jobs.h
tests_e2e_libe2e_la_CPPFLAGS = $(tests_e2e_test_cluster_CPPFLAGS)
tests_e2e_libe2e_la_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
E2E_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
E2E_LDADD = tests/e2e/libe2e.la $(CHECK_LIBS)

tests_e2e_test_select_CFLAGS = $(E2E_CFLAGS)
tests_e2e_test_select_LDADD = $(E2E_LDADD)
tests_e2e_test_backfill_CFLAGS = $(E2E_CFLAGS)
tests_e2e_test_backfill_LDADD = $(E2E_LDADD)
tests_e2e_test_user_CFLAGS = $(E2E_CFLAGS)
tests_e2e_test_user_LDADD = $(E2E_LDADD)
# SLURM_INCLUDE: job_desc_msg_t as the libslurmfull of the Slurm built for has it.
tests_e2e_test_security_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_INCLUDE)
tests_e2e_test_security_CFLAGS = $(E2E_CFLAGS)
tests_e2e_test_security_LDADD = $(E2E_LDADD) -ldl
tests_e2e_test_faults_CPPFLAGS = $(AM_CPPFLAGS) $(JANSSON_CFLAGS)
tests_e2e_test_faults_CFLAGS = $(E2E_CFLAGS)
tests_e2e_test_faults_LDADD = $(E2E_LDADD) $(JANSSON_LIBS)
tests_e2e_test_admin_CFLAGS = $(E2E_CFLAGS)
tests_e2e_test_admin_LDADD = $(E2E_LDADD)
tests_e2e_test_mps_CFLAGS = $(E2E_CFLAGS)
tests_e2e_test_mps_LDADD = $(E2E_LDADD)
tests_e2e_test_reload_CFLAGS = $(E2E_CFLAGS)
tests_e2e_test_reload_LDADD = $(E2E_LDADD)
tests_e2e_test_preempt_CFLAGS = $(E2E_CFLAGS)
tests_e2e_test_preempt_LDADD = $(E2E_LDADD)
tests_e2e_test_shard_CFLAGS = $(E2E_CFLAGS)
tests_e2e_test_shard_LDADD = $(E2E_LDADD)
tests_e2e_test_mig_CFLAGS = $(E2E_CFLAGS)
tests_e2e_test_mig_LDADD = $(E2E_LDADD)
tests_e2e_test_mixed_CFLAGS = $(E2E_CFLAGS)
tests_e2e_test_mixed_LDADD = $(E2E_LDADD)

HIVED_LOAD_JOBS = 1000
HIVED_LOAD_KILLS = 10
check-load: tests/e2e/test_faults all
	HIVED_SRCDIR='$(abs_top_srcdir)' HIVED_BUILDDIR='$(abs_top_builddir)' \
	HIVED_LOAD_JOBS=$(HIVED_LOAD_JOBS) HIVED_LOAD_KILLS=$(HIVED_LOAD_KILLS) \
	  ./tests/e2e/test_faults
.PHONY: check-load
