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

clean-local: clean-e2e-cluster
clean-e2e-cluster:
	-for d in tests/e2e/cluster tests/e2e/cluster/cluster-in-*; do \
	  test ! -d "$$d/run" || $(top_srcdir)/scripts/hived-cluster down -q --dir "$$d"; done
	-rm -rf tests/e2e/cluster
.PHONY: clean-e2e-cluster

# select/hived decisions in a real slurmctld (issue 4): VC guarantee, preemption,
# racks, node health, kill -9 restart, refused reload.
if HAVE_SLURM
check_PROGRAMS += tests/e2e/test_select
TESTS += tests/e2e/test_select
endif
tests_e2e_test_select_SOURCES = tests/e2e/test_select.c tests/e2e/run.c tests/e2e/run.h \
	tests/e2e/e2e_main.c tests/e2e/e2e_main.h \
	tests/e2e/slurm_jobs.c tests/e2e/slurm_jobs.h
tests_e2e_test_select_CPPFLAGS = $(tests_e2e_test_cluster_CPPFLAGS)
tests_e2e_test_select_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_e2e_test_select_LDADD = $(CHECK_LIBS)

clean-e2e-cluster: clean-e2e-select
clean-e2e-select:
	-test ! -d tests/e2e/cluster-select || $(top_srcdir)/scripts/hived-cluster down -q --dir tests/e2e/cluster-select
	-rm -rf tests/e2e/cluster-select
.PHONY: clean-e2e-select

# No VC waits behind another VC's queue in backfill (issue 18): a flood from the
# biggest of four VCs, then one fitting job from each other VC.
if HAVE_SLURM
check_PROGRAMS += tests/e2e/test_backfill
TESTS += tests/e2e/test_backfill
endif
tests_e2e_test_backfill_SOURCES = tests/e2e/test_backfill.c tests/e2e/run.c tests/e2e/run.h \
	tests/e2e/e2e_main.c tests/e2e/e2e_main.h \
	tests/e2e/slurm_jobs.c tests/e2e/slurm_jobs.h
tests_e2e_test_backfill_CPPFLAGS = $(tests_e2e_test_cluster_CPPFLAGS)
tests_e2e_test_backfill_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_e2e_test_backfill_LDADD = $(CHECK_LIBS)

clean-e2e-cluster: clean-e2e-backfill
clean-e2e-backfill:
	-test ! -d tests/e2e/cluster-backfill || $(top_srcdir)/scripts/hived-cluster down -q --dir tests/e2e/cluster-backfill
	-rm -rf tests/e2e/cluster-backfill
.PHONY: clean-e2e-backfill

# What users and admins touch (issue 6): --hived-* options (SPANK), priority/hived's
# bands, hivedctl as an ordinary user.
if HAVE_SLURM
check_PROGRAMS += tests/e2e/test_user
TESTS += tests/e2e/test_user
endif
tests_e2e_test_user_SOURCES = tests/e2e/test_user.c tests/e2e/run.c tests/e2e/run.h \
	tests/e2e/e2e_main.c tests/e2e/e2e_main.h \
	tests/e2e/slurm_jobs.c tests/e2e/slurm_jobs.h
tests_e2e_test_user_CPPFLAGS = $(tests_e2e_test_cluster_CPPFLAGS)
tests_e2e_test_user_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_e2e_test_user_LDADD = $(CHECK_LIBS)

clean-e2e-cluster: clean-e2e-user
clean-e2e-user:
	-test ! -d tests/e2e/cluster-user || $(top_srcdir)/scripts/hived-cluster down -q --dir tests/e2e/cluster-user
	-rm -rf tests/e2e/cluster-user
.PHONY: clean-e2e-user

# Security (issue 9): as unprivileged users, another VC's cells or pinned cell, a
# higher class or priority through options, environment or a libslurm client;
# the plugin's files and PrivateData.
if HAVE_SLURM
check_PROGRAMS += tests/e2e/test_security
TESTS += tests/e2e/test_security
endif
tests_e2e_test_security_SOURCES = tests/e2e/test_security.c tests/e2e/run.c tests/e2e/run.h \
	tests/e2e/e2e_main.c tests/e2e/e2e_main.h \
	tests/e2e/slurm_jobs.c tests/e2e/slurm_jobs.h
# SLURM_INCLUDE: job_desc_msg_t as the libslurmfull of the Slurm built for has it.
tests_e2e_test_security_CPPFLAGS = $(SLURM_INCLUDE) $(tests_e2e_test_cluster_CPPFLAGS)
tests_e2e_test_security_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_e2e_test_security_LDADD = $(CHECK_LIBS) -ldl

clean-e2e-cluster: clean-e2e-security
clean-e2e-security:
	-test ! -d tests/e2e/cluster-security || $(top_srcdir)/scripts/hived-cluster down -q --dir tests/e2e/cluster-security
	-rm -rf tests/e2e/cluster-security
.PHONY: clean-e2e-security

# Load and faults (issue 9): floods across VCs, kill -9 of slurmctld, a dead
# slurmd, bad state files, a hived.conf that no longer fits. "make check" runs
# a short version; "make check-load" the long one (doc/reliability.md).
if HAVE_SLURM
check_PROGRAMS += tests/e2e/test_faults
TESTS += tests/e2e/test_faults
endif
tests_e2e_test_faults_SOURCES = tests/e2e/test_faults.c tests/e2e/run.c tests/e2e/run.h \
	tests/e2e/e2e_main.c tests/e2e/e2e_main.h \
	tests/e2e/slurm_jobs.c tests/e2e/slurm_jobs.h
tests_e2e_test_faults_CPPFLAGS = $(tests_e2e_test_cluster_CPPFLAGS) $(JANSSON_CFLAGS)
tests_e2e_test_faults_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_e2e_test_faults_LDADD = $(CHECK_LIBS) $(JANSSON_LIBS)

HIVED_LOAD_JOBS = 1000
HIVED_LOAD_KILLS = 10
check-load: tests/e2e/test_faults all
	HIVED_SRCDIR='$(abs_top_srcdir)' HIVED_BUILDDIR='$(abs_top_builddir)' \
	HIVED_LOAD_JOBS=$(HIVED_LOAD_JOBS) HIVED_LOAD_KILLS=$(HIVED_LOAD_KILLS) \
	  ./tests/e2e/test_faults
.PHONY: check-load

clean-e2e-cluster: clean-e2e-faults
clean-e2e-faults:
	-test ! -d tests/e2e/cluster-faults || $(top_srcdir)/scripts/hived-cluster down -q --dir tests/e2e/cluster-faults
	-rm -rf tests/e2e/cluster-faults
.PHONY: clean-e2e-faults

# The quickstarts followed literally (issue 17): the same slurm.conf settings in
# README, doc and examples; the quickstart's hived.conf and sacctmgr commands;
# QOS grants, jobs without --mem, opportunistic jobs beyond an account's GrpTRES.
if HAVE_SLURM
check_PROGRAMS += tests/e2e/test_admin
TESTS += tests/e2e/test_admin
endif
tests_e2e_test_admin_SOURCES = tests/e2e/test_admin.c tests/e2e/run.c tests/e2e/run.h \
	tests/e2e/e2e_main.c tests/e2e/e2e_main.h \
	tests/e2e/slurm_jobs.c tests/e2e/slurm_jobs.h
tests_e2e_test_admin_CPPFLAGS = $(tests_e2e_test_cluster_CPPFLAGS)
tests_e2e_test_admin_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_e2e_test_admin_LDADD = $(CHECK_LIBS)

clean-e2e-cluster: clean-e2e-admin
clean-e2e-admin:
	-test ! -d tests/e2e/cluster-admin || $(top_srcdir)/scripts/hived-cluster down -q --dir tests/e2e/cluster-admin
	-rm -rf tests/e2e/cluster-admin
.PHONY: clean-e2e-admin

# A hived.conf reload never silently undoes a VC guarantee (issue 17): refused
# misspelt section and VC removal, promotion on restore, priorities of a refused file.
if HAVE_SLURM
check_PROGRAMS += tests/e2e/test_reload
TESTS += tests/e2e/test_reload
endif
tests_e2e_test_reload_SOURCES = tests/e2e/test_reload.c tests/e2e/run.c tests/e2e/run.h \
	tests/e2e/e2e_main.c tests/e2e/e2e_main.h \
	tests/e2e/slurm_jobs.c tests/e2e/slurm_jobs.h
tests_e2e_test_reload_CPPFLAGS = $(tests_e2e_test_cluster_CPPFLAGS)
tests_e2e_test_reload_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_e2e_test_reload_LDADD = $(CHECK_LIBS)

clean-e2e-cluster: clean-e2e-reload
clean-e2e-reload:
	-test ! -d tests/e2e/cluster-reload || $(top_srcdir)/scripts/hived-cluster down -q --dir tests/e2e/cluster-reload
	-rm -rf tests/e2e/cluster-reload
.PHONY: clean-e2e-reload

# An owner's job preempts opportunistic work only when no free cell of its VC's
# shape can be bound (issue 18, item 2).
if HAVE_SLURM
check_PROGRAMS += tests/e2e/test_preempt
TESTS += tests/e2e/test_preempt
endif
tests_e2e_test_preempt_SOURCES = tests/e2e/test_preempt.c tests/e2e/run.c tests/e2e/run.h \
	tests/e2e/e2e_main.c tests/e2e/e2e_main.h \
	tests/e2e/slurm_jobs.c tests/e2e/slurm_jobs.h
tests_e2e_test_preempt_CPPFLAGS = $(tests_e2e_test_cluster_CPPFLAGS)
tests_e2e_test_preempt_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_e2e_test_preempt_LDADD = $(CHECK_LIBS)

clean-e2e-cluster: clean-e2e-preempt
clean-e2e-preempt:
	-test ! -d tests/e2e/cluster-preempt || $(top_srcdir)/scripts/hived-cluster down -q --dir tests/e2e/cluster-preempt
	-rm -rf tests/e2e/cluster-preempt
.PHONY: clean-e2e-preempt
