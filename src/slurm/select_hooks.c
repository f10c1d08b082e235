/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * select_hooks.c - the HiveD side of select/hived.
 *
 * Not wired to the engine yet (issue 4): every hook only records that it ran, so
 * the plugin behaves exactly like cons_tres while the plumbing is proven.
 */
#include "src/common/slurm_xlator.h"

#include <libgen.h>
#include <stdlib.h>
#include <unistd.h>

#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "hived.h"
#include "select_hooks.h"

extern char *hived_hook_config_path(void)
{
	/* slurm_conf.slurm_conf is the file slurmctld actually read. */
	const char *conf = slurm_conf.slurm_conf;
	char *copy, *path;

	if (!conf || !conf[0])
		conf = getenv("SLURM_CONF");
	if (!conf || !conf[0])
		conf = "/etc/slurm/slurm.conf";
	copy = xstrdup(conf);
	path = xstrdup_printf("%s/hived.conf", dirname(copy));
	xfree(copy);
	return path;
}

extern int hived_hook_init(void)
{
	char *path;

	if (!running_in_slurmctld())
		return SLURM_SUCCESS;
	path = hived_hook_config_path();
	info("select/hived: engine not wired yet; forwarding everything to select/cons_tres (config would be %s, %s)",
	     path, access(path, R_OK) ? "absent" : "present");
	xfree(path);
	return SLURM_SUCCESS;
}

extern void hived_hook_fini(void)
{
}

extern int hived_hook_job_test(job_record_t *job_ptr, bitstr_t *node_bitmap,
			       uint32_t min_nodes, uint32_t max_nodes,
			       uint32_t req_nodes, uint16_t mode)
{
	return SLURM_SUCCESS;
}

extern void hived_hook_job_test_done(job_record_t *job_ptr,
				     bitstr_t *node_bitmap, uint16_t mode,
				     int rc)
{
}

extern int hived_hook_job_begin(job_record_t *job_ptr)
{
	return SLURM_SUCCESS;
}

extern void hived_hook_job_fini(job_record_t *job_ptr)
{
}

extern void hived_hook_job_init(List job_list)
{
}

extern void hived_hook_node_init(void)
{
}

extern void hived_hook_node_update(int node_index)
{
}

extern void hived_hook_reconfigure(void)
{
}

extern void hived_hook_state_save(const char *dir_name)
{
}

extern void hived_hook_state_restore(const char *dir_name)
{
}
