# SPDX-License-Identifier: GPL-2.0-or-later
# src/api: the extern "C" API of include/hived.h over the engine and the config reader.
libhived_la_SOURCES += \
	src/api/guard.h \
	src/api/hived_api.cpp \
	src/api/snapshot_load.h \
	src/api/snapshot_load.cpp \
	src/api/effective_config.h \
	src/api/effective_config.cpp \
	src/api/whatif.cpp \
	src/api/gpu_shape.cpp
