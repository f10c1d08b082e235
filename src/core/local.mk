# SPDX-License-Identifier: GPL-2.0-or-later
# src/core: the HiveD engine (C++17, no Slurm, no I/O). Part of libhived.la.
libhived_la_SOURCES += \
	src/core/spec.h \
	src/core/model.h \
	src/core/id_set.h \
	src/core/engine.h \
	src/core/cell_store.h \
	src/core/cell_store.cpp \
	src/core/cell_store_vcs.cpp \
	src/core/buddy.h \
	src/core/error.h \
	src/core/cell_path.h \
	src/core/json_writer.h \
	src/core/build.cpp \
	src/core/buddy.cpp \
	src/core/binding.h \
	src/core/binding.cpp \
	src/core/counts.cpp \
	src/core/fractions.cpp \
	src/core/placement.cpp \
	src/core/constraints.h \
	src/core/constraints.cpp \
	src/core/preemption.h \
	src/core/preemption.cpp \
	src/core/schedule.cpp \
	src/core/split.cpp \
	src/core/promotion.cpp \
	src/core/job_index.h \
	src/core/job_table.h \
	src/core/job_table.cpp \
	src/core/will_run.cpp \
	src/core/fit_bound.cpp \
	src/core/fit_bound.h \
	src/core/reconfigure.cpp \
	src/core/status.cpp \
	src/core/invariants.cpp
