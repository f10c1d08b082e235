# SPDX-License-Identifier: GPL-2.0-or-later
# make compare: one ITP trace slice on a local 32-node cluster, replayed with
# select/cons_tres + GrpTRES and with select/hived; report in ./compare/ (doc/compare.md).
# It builds the Slurm plugins first (the rest of the tree is not needed).
# TRACES=DIR overrides the trace directory; COMPARE_FLAGS passes options to
# scripts/compare/compare (e.g. COMPARE_FLAGS="--jobs 200 --span 180"; the contended
# runs: COMPARE_FLAGS="--scenario contended", "--scenario contended-nodes" or
# "--scenario churn"; "--runs 3" runs three pairs and sums their figures).
# make compare-scale: both plugins alternating on 256 nodes behind a flood of
# pending jobs (scripts/compare/scale; SCALE_FLAGS passes options, e.g.
# SCALE_FLAGS="--runs 2 --nodes 512 --flood 1000 --each 20 --hold 60").

TRACES = $(abs_top_srcdir)/../shared/traces
COMPARE_FLAGS =
SCALE_FLAGS =

EXTRA_DIST += doc/compare.md doc/compare tests/compare/test_report.py

# The report's counters (the anomaly above all) on a fixed hand-made run, and the
# scenario presets; python3 only, no cluster.
TESTS += tests/compare/test_report.py

compare: $(slurmplugin_LTLIBRARIES)
	bash '$(abs_top_srcdir)/scripts/compare/compare' --builddir '$(abs_top_builddir)' \
	  --traces '$(TRACES)' --out '$(abs_top_builddir)/compare' $(COMPARE_FLAGS)

compare-scale: $(slurmplugin_LTLIBRARIES)
	cd '$(abs_top_builddir)' && bash '$(abs_top_srcdir)/scripts/compare/scale' $(SCALE_FLAGS)

.PHONY: compare compare-scale
