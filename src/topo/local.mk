# SPDX-License-Identifier: GPL-2.0-or-later
# src/topo: cell types and physical cells derived from slurm.conf node lines,
# gres.conf, topology.conf and hwloc facts; quotas from sacctmgr GrpTRES. Slurm-free
# C++; part of libhived.la. The hwloc reader is only in hived-topo and its tests
# (slurmctld has no hwloc view of its nodes).
libhived_la_SOURCES += \
	src/topo/facts.h \
	src/topo/hostlist.h src/topo/hostlist.cpp \
	src/topo/conf_lines.h src/topo/conf_lines.cpp \
	src/topo/parse.h \
	src/topo/mig.h src/topo/mig.cpp \
	src/topo/parse_slurm_conf.cpp \
	src/topo/parse_gres_conf.cpp \
	src/topo/gres_fractions.h src/topo/gres_fractions.cpp \
	src/topo/parse_topology_conf.cpp \
	src/topo/chain_table.h src/topo/chain_table.cpp \
	src/topo/derive.h src/topo/derive.cpp \
	src/topo/derive_internal.h src/topo/derive_node.cpp \
	src/topo/quota.h src/topo/quota.cpp \
	src/topo/spec_json.h src/topo/spec_json.cpp \
	src/topo/summary.h src/topo/summary.cpp \
	src/topo/gres_lines.h src/topo/gres_lines.cpp \
	src/topo/cluster.h src/topo/cluster.cpp

bin_PROGRAMS += hived-topo
hived_topo_SOURCES = tools/hived-topo.cpp tools/topo_check.h tools/topo_check.cpp \
	src/topo/hwloc_facts.h src/topo/hwloc_facts.cpp
hived_topo_CPPFLAGS = $(AM_CPPFLAGS) $(HWLOC_CFLAGS) $(JANSSON_CFLAGS)
hived_topo_LDADD = libhived.la $(HWLOC_LIBS) $(JANSSON_LIBS)

dist_man_MANS += doc/man/hived-topo.1
EXTRA_DIST += doc/topology.md doc/sharing.md tests/topo
