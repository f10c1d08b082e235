/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * read_file.h - a whole config or status file, for both plugins.
 */
#ifndef HIVED_READ_FILE_H
#define HIVED_READ_FILE_H

#include <stddef.h>
#include <time.h>

/*
 * The file at path as a NUL-terminated xmalloc()ed string, or NULL with errno
 * set (EFBIG when it is over max bytes: a runaway file must not take
 * slurmctld's memory). mtime, if not NULL, gets its modification time.
 */
extern char *hived_read_file(const char *path, size_t max, time_t *mtime);

#endif
