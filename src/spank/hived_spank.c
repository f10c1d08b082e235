/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_spank.c - the --hived-* options of sbatch, salloc and srun.
 *
 * The values are checked where the user types them (against hived.conf next to
 * slurm.conf, when readable), then travel with the job in its SPANK job-control
 * environment: slurmctld stores them as "SPANK_HIVED_<NAME>=value" in
 * job_ptr->spank_job_env, where select/hived reads them (hived_job.c). Nothing
 * here can raise a job's class: select/hived only lets these options restrict
 * placement or lower the class, and the engine checks pinned cells against the
 * job's own VC.
 */
#include <slurm/spank.h>

#include <stdlib.h>
#include <string.h>

#include "hived_options.h"

SPANK_PLUGIN(hived, 1);

enum { OPT_WITHIN = 1, OPT_PINNED, OPT_LAZY, OPT_OPPORTUNISTIC };

static char *within, *pinned;
static int lazy, opportunistic;

static int _option(int val, const char *optarg, int remote);

static struct spank_option hived_options[] = {
	{ "hived-within", "CELLTYPE",
	  "HiveD: all of the job's GPUs inside one cell of this type (a cell type of hived.conf: a GPU pair, socket, node, rack...)",
	  1, OPT_WITHIN, _option },
	{ "hived-pinned", "ID",
	  "HiveD: run on this pinned cell of the job's virtual cluster (its account)",
	  1, OPT_PINNED, _option },
	{ "hived-lazy-preempt", NULL,
	  "HiveD: if preempted, keep running as an opportunistic job instead of being requeued",
	  0, OPT_LAZY, _option },
	{ "hived-opportunistic", NULL,
	  "HiveD: run on idle GPUs outside the VC's quota, at the lowest class (preemptable by any guaranteed job)",
	  0, OPT_OPPORTUNISTIC, _option },
	SPANK_OPTIONS_TABLE_END
};

/*
 * The names users may type, read once per process: from select/hived's
 * hived_status.json (the configuration in force, derived cells included), else
 * from hived.conf; NULL when neither is readable here (then syntax only).
 */
static hived_conf_names names;
static int names_state;		/* 0 not tried, 1 loaded, -1 unavailable */
static char *source;		/* the file the names came from */

static const hived_conf_names *_names(void)
{
	char err[512], *paths[2];

	if (names_state)
		return (names_state > 0) ? &names : NULL;
	paths[0] = hived_opt_status_path();
	paths[1] = hived_opt_conf_path();
	names_state = -1;
	for (int i = 0; i < 2; i++) {
		int rc;

		if (!paths[i] || names_state > 0)
			continue;
		rc = hived_opt_names_load(paths[i], i == 0, &names, err,
					  sizeof(err));
		if (!rc) {
			names_state = 1;
			source = paths[i];
			paths[i] = NULL;
		} else if (rc == -2) {
			slurm_verbose("hived: %s: %s", paths[i], err);
		}
	}
	free(paths[0]);
	free(paths[1]);
	if (names_state < 0)
		slurm_verbose("hived: neither hived_status.json nor hived.conf is readable; checking option syntax only");
	return (names_state > 0) ? &names : NULL;
}

static int _set(char **slot, const char *v)
{
	char *copy = strdup(v);

	if (!copy)
		return -1;
	free(*slot);
	*slot = copy;
	return 0;
}

static int _check(int val, const char *optarg)
{
	char err[1536];
	int rc = 0;
	/*
	 * _names() sets source: call it before source is read, not as a sibling
	 * argument (their order of evaluation is unspecified; gcc read source
	 * first and the message said "((null))").
	 */
	const hived_conf_names *known = _names();

	if (val == OPT_WITHIN)
		rc = hived_opt_check_within(optarg, known, source, err,
					    sizeof(err));
	else if (val == OPT_PINNED)
		rc = hived_opt_check_pinned(optarg, known, source, err,
					    sizeof(err));
	/*
	 * Conflicts are refused here, not in init_post_opt: Slurm ignores what
	 * an "optional" plugin returns there, but always stops on a bad option.
	 */
	if (!rc)
		rc = hived_opt_check_combination(
			within || val == OPT_WITHIN ? "" : NULL,
			pinned || val == OPT_PINNED ? "" : NULL,
			lazy || val == OPT_LAZY,
			opportunistic || val == OPT_OPPORTUNISTIC,
			err, sizeof(err));
	if (rc)
		slurm_error("hived: %s", err);
	return rc;
}

static int _option(int val, const char *optarg, int remote)
{
	/* slurmstepd gets srun's options again: they were checked in srun. */
	if (!remote && _check(val, optarg))
		return -1;
	switch (val) {
	case OPT_WITHIN:
		return _set(&within, optarg ? optarg : "");
	case OPT_PINNED:
		return _set(&pinned, optarg ? optarg : "");
	case OPT_LAZY:
		lazy = 1;
		return 0;
	case OPT_OPPORTUNISTIC:
		opportunistic = 1;
		return 0;
	}
	return -1;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();

	(void) ac;
	(void) av;
	/* srun forwards the options it saw to slurmstepd: register them there too. */
	if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR && ctx != S_CTX_REMOTE)
		return 0;
	for (struct spank_option *o = hived_options; o->name; o++) {
		spank_err_t rc = spank_option_register(sp, o);
		if (rc != ESPANK_SUCCESS) {
			slurm_error("hived: cannot register --%s: %s", o->name,
				    spank_strerror(rc));
			return -1;
		}
	}
	return 0;
}

static int _carry(spank_t sp, const char *name, const char *value)
{
	spank_err_t rc = spank_job_control_setenv(sp, name, value, 1);

	if (rc != ESPANK_SUCCESS) {
		slurm_error("hived: cannot pass %s to slurmctld: %s", name,
			    spank_strerror(rc));
		return -1;
	}
	return 0;
}

/* After all options (command line and #SBATCH lines): hand them to the job. */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();

	(void) ac;
	(void) av;
	if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR)
		return 0;
	if (within && _carry(sp, "HIVED_WITHIN", within))
		return -1;
	if (pinned && _carry(sp, "HIVED_PINNED", pinned))
		return -1;
	if (lazy && _carry(sp, "HIVED_LAZY_PREEMPT", "1"))
		return -1;
	if (opportunistic && _carry(sp, "HIVED_OPPORTUNISTIC", "1"))
		return -1;
	return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void) sp;
	(void) ac;
	(void) av;
	free(within);
	free(pinned);
	within = pinned = NULL;
	hived_opt_names_free(&names);
	free(source);
	source = NULL;
	names_state = 0;
	return 0;
}
