/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * read_file.c - see read_file.h.
 */
#include "src/common/slurm_xlator.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/common/xmalloc.h"

#include "read_file.h"

extern char *hived_read_file(const char *path, size_t max, time_t *mtime)
{
	struct stat st;
	char *buf;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st)) {
		int e = errno;

		close(fd);
		errno = e;
		return NULL;
	}
	if ((size_t) st.st_size > max) {
		close(fd);
		errno = EFBIG;
		return NULL;
	}
	if (mtime)
		*mtime = st.st_mtime;
	buf = xmalloc(st.st_size + 1);
	while (got < (size_t) st.st_size) {
		ssize_t n = read(fd, buf + got, st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	return buf;
}
