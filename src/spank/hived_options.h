/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_options.h - checking the values of the --hived-* job options against
 * hived.conf, without Slurm (the SPANK plugin and its unit test share it).
 *
 * hived.conf is the source of truth for names; slurmctld's engine still checks
 * every request again (a pinned cell must belong to the job's own VC), so these
 * checks only exist to refuse obvious mistakes at submit, with a useful message.
 */
#ifndef HIVED_OPTIONS_H
#define HIVED_OPTIONS_H

#include <stddef.h>

/* The names a user may type, as hived.conf spells them. */
typedef struct {
	char **cell_types;	/* physicalCluster.cellTypes keys, config order */
	size_t n_cell_types;
	char **pinned_ids;	/* every pinnedCellId (physical and VC side) */
	size_t n_pinned_ids;
} hived_conf_names;

/* Longest value accepted for a cell type or a pinned cell id. */
#define HIVED_OPT_NAME_MAX 63

/* hived.conf next to slurm.conf ($SLURM_CONF, else /etc/slurm/slurm.conf);
 * malloc()ed. */
char *hived_opt_conf_path(void);

/* <StateSaveLocation>/hived_status.json from slurm.conf; malloc()ed, or NULL
 * when slurm.conf is unreadable or names no StateSaveLocation. */
char *hived_opt_status_path(void);

/* Parse hived.conf text. RET 0, or -1 with the reason in err. */
int hived_opt_names_parse(const char *text, hived_conf_names *out,
			  char *err, size_t errlen);
/*
 * The same names from select/hived's hived_status.json: the cell types and
 * pinned cells of the configuration in force, derived cells included (hived.conf
 * may leave cells to be derived from slurm.conf/gres.conf). RET 0 or -1.
 */
int hived_opt_names_parse_status(const char *text, hived_conf_names *out,
				 char *err, size_t errlen);
/* Read and parse a file (status: 1 for hived_status.json). RET 0; -1 unreadable
 * (errno kept); -2 not valid. */
int hived_opt_names_load(const char *path, int status, hived_conf_names *out,
			 char *err, size_t errlen);
void hived_opt_names_free(hived_conf_names *n);

/*
 * Check --hived-within=VALUE / --hived-pinned=VALUE. names may be NULL (nothing
 * readable here): then only the syntax is checked. RET 0 or -1 with a sentence
 * in err naming the option and listing what `source` (a file name) allows.
 */
int hived_opt_check_within(const char *value, const hived_conf_names *names,
			   const char *source, char *err, size_t errlen);
int hived_opt_check_pinned(const char *value, const hived_conf_names *names,
			   const char *source, char *err, size_t errlen);

/* Option combinations that cannot mean anything. RET 0 or -1 with err. */
int hived_opt_check_combination(const char *within, const char *pinned,
				int lazy, int opportunistic,
				char *err, size_t errlen);

#endif
