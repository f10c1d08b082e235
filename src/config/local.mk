# SPDX-License-Identifier: GPL-2.0-or-later
# src/config: hived.conf (JSON, via jansson) -> hived::Config. Part of libhived.la;
# src/core/local.mk declares the library and is included before this fragment.
libhived_la_SOURCES += \
	src/config/hived_conf.h \
	src/config/hived_conf.cpp \
	src/config/conf_cells.h \
	src/config/conf_cells.cpp \
	src/config/conf_json.h \
	src/config/conf_json.cpp

# The admin's reference for every hived.conf key.
dist_man_MANS += doc/man/hived.conf.5
EXTRA_DIST += doc/hived.conf.md
