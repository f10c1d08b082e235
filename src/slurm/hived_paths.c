/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_paths.c - where select/hived's files are (hived_paths.h).
 */
#include "src/common/slurm_xlator.h"

#include <libgen.h>
#include <stdlib.h>

#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "hived_paths.h"
#include "read_file.h"

#define HIVED_MAX_FILE (64 * 1024 * 1024)

extern const char *hived_path_slurm_conf(void)
{
	const char *conf = slurm_conf.slurm_conf;

	if (!conf || !conf[0])
		conf = getenv("SLURM_CONF");
	if (!conf || !conf[0])
		conf = "/etc/slurm/slurm.conf";
	return conf;
}

extern char *hived_path_beside_slurm_conf(const char *name)
{
	char *copy = xstrdup(hived_path_slurm_conf()), *path;

	path = xstrdup_printf("%s/%s", dirname(copy), name);
	xfree(copy);
	return path;
}

extern char *hived_path_kept_conf(void)
{
	return xstrdup_printf("%s/hived.conf.in-force",
			      slurm_conf.state_save_location ?
			      slurm_conf.state_save_location : ".");
}

extern char *hived_path_state(const char *dir, const char *state_file)
{
	const char *file = state_file ? state_file : "hived_state.json";

	if (file[0] == '/')
		return xstrdup(file);
	return xstrdup_printf("%s/%s", dir ? dir : ".", file);
}

extern char *hived_path_read(const char *path)
{
	return hived_read_file(path, HIVED_MAX_FILE, NULL);
}
