# SPDX-License-Identifier: GPL-2.0-or-later
# Tests: unit (Check programs on the engine), scenarios (hived-replay), and the
# end-to-end test on a real local Slurm cluster.
include tests/unit/local.mk
include tests/scenarios/local.mk
include tests/e2e/local.mk
include tests/fuzz/local.mk
include tests/slurm/local.mk
noinst_HEADERS += tests/check_run.h
