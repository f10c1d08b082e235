/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_options.c - the --hived-* option values checked against hived.conf.
 */
#define _GNU_SOURCE
#include "hived_options.h"

#include "hived.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

char *hived_opt_conf_path(void)
{
	const char *conf = getenv("SLURM_CONF");
	const char *slash;
	char *path = NULL;

	if (!conf || !conf[0])
		conf = "/etc/slurm/slurm.conf";
	slash = strrchr(conf, '/');
	if (!slash) {
		path = strdup("hived.conf");
	} else if (asprintf(&path, "%.*s/hived.conf", (int) (slash - conf),
			    conf) < 0) {
		path = NULL;
	}
	return path;
}

char *hived_opt_status_path(void)
{
	const char *conf = getenv("SLURM_CONF");
	FILE *f;
	char line[4096], *found = NULL, *path = NULL;

	if (!conf || !conf[0])
		conf = "/etc/slurm/slurm.conf";
	if (!(f = fopen(conf, "r")))
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *v, *end;

		while (*p == ' ' || *p == '\t')
			p++;
		if (strncasecmp(p, "StateSaveLocation", 17))
			continue;
		v = p + 17;
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v != '=')
			continue;
		for (v++; *v == ' ' || *v == '\t'; v++)
			;
		end = v + strcspn(v, " \t\r\n#");
		*end = '\0';
		free(found);
		found = strdup(v);
	}
	fclose(f);
	if (found && found[0] && asprintf(&path, "%s/hived_status.json", found) < 0)
		path = NULL;
	free(found);
	return path;
}

static int _push(char ***list, size_t *n, const char *s)
{
	char **grown;

	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*list)[i], s))
			return 0;
	grown = realloc(*list, (*n + 1) * sizeof(char *));
	if (!grown)
		return -1;
	*list = grown;
	if (!(grown[*n] = strdup(s)))
		return -1;
	(*n)++;
	return 0;
}

/*
 * hived.conf through the engine's own reader (include/hived.h), so that the
 * plugin and select/hived agree on what the file says and on its errors.
 */
int hived_opt_names_parse(const char *text, hived_conf_names *out,
			  char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (hived_config_names(text, &out->cell_types, &out->n_cell_types,
			       &out->pinned_ids, &out->n_pinned_ids, err,
			       errlen) != HIVED_OK)
		return -1;
	if (!out->n_cell_types) {
		/* Everything derived: only hived_status.json has the names. */
		snprintf(err, errlen,
			 "physicalCluster.cellTypes: none given (cells derived from slurm.conf; their names are in hived_status.json)");
		hived_opt_names_free(out);
		return -1;
	}
	return 0;
}

int hived_opt_names_parse_status(const char *text, hived_conf_names *out,
				 char *err, size_t errlen)
{
	json_error_t jerr;
	json_t *root, *cluster, *chains, *c, *l, *v, *p;
	size_t i, k;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	root = json_loads(text, 0, &jerr);
	if (!root) {
		snprintf(err, errlen, "line %d: %s", jerr.line, jerr.text);
		return -1;
	}
	cluster = json_object_get(root, "cluster");
	chains = json_object_get(cluster, "chains");
	if (!json_is_array(chains)) {
		snprintf(err, errlen, "cluster.chains: missing");
		goto out;
	}
	json_array_foreach(chains, i, c) {
		json_array_foreach(json_object_get(c, "levels"), k, l) {
			json_t *t = json_object_get(l, "cellType");
			json_t *lv = json_object_get(l, "level");

			/* Level 1 is a single GPU: "within" one GPU means nothing. */
			if (!json_is_string(t) || json_integer_value(lv) <= 1)
				continue;
			if (_push(&out->cell_types, &out->n_cell_types,
				  json_string_value(t)))
				goto nomem;
		}
	}
	json_array_foreach(json_object_get(cluster, "vcs"), i, v) {
		json_array_foreach(json_object_get(v, "pinnedCells"), k, p) {
			json_t *id = json_object_get(p, "pinnedCellId");

			if (json_is_string(id) &&
			    _push(&out->pinned_ids, &out->n_pinned_ids,
				  json_string_value(id)))
				goto nomem;
		}
	}
	rc = 0;
	goto out;
nomem:
	snprintf(err, errlen, "out of memory");
	hived_opt_names_free(out);
out:
	json_decref(root);
	return rc;
}

int hived_opt_names_load(const char *path, int status, hived_conf_names *out,
			 char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (cap - len < 4096) {
			char *grown = realloc(buf, cap + 65536);
			if (!grown) {
				free(buf);
				fclose(f);
				snprintf(err, errlen, "out of memory");
				return -2;
			}
			buf = grown;
			cap += 65536;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		if (!n)
			break;
		len += n;
	}
	fclose(f);
	buf[len] = '\0';
	rc = (status ? hived_opt_names_parse_status(buf, out, err, errlen) :
	      hived_opt_names_parse(buf, out, err, errlen)) ? -2 : 0;
	free(buf);
	return rc;
}

void hived_opt_names_free(hived_conf_names *n)
{
	for (size_t i = 0; i < n->n_cell_types; i++)
		free(n->cell_types[i]);
	for (size_t i = 0; i < n->n_pinned_ids; i++)
		free(n->pinned_ids[i]);
	free(n->cell_types);
	free(n->pinned_ids);
	memset(n, 0, sizeof(*n));
}

/* Letters, digits and the given punctuation, 1..HIVED_OPT_NAME_MAX long. */
static const char *_syntax(const char *v, const char *punct)
{
	size_t len;

	if (!v || !v[0])
		return "is empty";
	len = strlen(v);
	if (len > HIVED_OPT_NAME_MAX)
		return "is longer than 63 characters";
	for (size_t i = 0; i < len; i++) {
		unsigned char c = v[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr(punct, c))
			continue;
		return "has a character that is not allowed";
	}
	return NULL;
}

/* "a, b, c" into buf (truncated with "..." when long). */
static void _join(char **list, size_t n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		int w = snprintf(buf + used, len - used, "%s%s",
				 i ? ", " : "", list[i]);
		if (w < 0 || (size_t) w >= len - used) {
			if (len > 4)
				strcpy(buf + len - 4, "...");
			return;
		}
		used += w;
	}
}

/* The entry of list equal to v under cmp (strcmp, strcasecmp), or NULL. */
static const char *_find(char **list, size_t n, const char *v,
			 int (*cmp)(const char *, const char *))
{
	for (size_t i = 0; i < n; i++)
		if (!cmp(list[i], v))
			return list[i];
	return NULL;
}

int hived_opt_check_within(const char *value, const hived_conf_names *names,
			   const char *source, char *err, size_t errlen)
{
	const char *bad = _syntax(value, "_-");
	char list[1024];
	const char *near;

	if (bad) {
		snprintf(err, errlen,
			 "--hived-within=%s: the cell type %s (letters, digits, _ and -, such as A100-NODE)",
			 value ? value : "", bad);
		return -1;
	}
	if (!names)
		return 0;
	if (_find(names->cell_types, names->n_cell_types, value, strcmp))
		return 0;
	_join(names->cell_types, names->n_cell_types, list, sizeof(list));
	near = _find(names->cell_types, names->n_cell_types, value,
		     strcasecmp);
	if (near)
		snprintf(err, errlen,
			 "--hived-within=%s: unknown cell type (names are case-sensitive: did you mean %s?); this cluster's cell types (%s): %s",
			 value, near, source, list);
	else
		snprintf(err, errlen,
			 "--hived-within=%s: unknown cell type; this cluster's cell types (%s): %s",
			 value, source, list);
	return -1;
}

int hived_opt_check_pinned(const char *value, const hived_conf_names *names,
			   const char *source, char *err, size_t errlen)
{
	const char *bad = _syntax(value, "._:/-");
	char list[1024];

	if (bad) {
		snprintf(err, errlen,
			 "--hived-pinned=%s: the pinned cell id %s (letters, digits and . _ : / -)",
			 value ? value : "", bad);
		return -1;
	}
	if (!names)
		return 0;
	if (_find(names->pinned_ids, names->n_pinned_ids, value, strcmp))
		return 0;
	if (!names->n_pinned_ids) {
		snprintf(err, errlen,
			 "--hived-pinned=%s: this cluster has no pinned cells (%s)",
			 value, source);
		return -1;
	}
	_join(names->pinned_ids, names->n_pinned_ids, list, sizeof(list));
	snprintf(err, errlen,
		 "--hived-pinned=%s: unknown pinned cell id; this cluster's pinned cells (%s): %s",
		 value, source, list);
	return -1;
}

int hived_opt_check_combination(const char *within, const char *pinned,
				int lazy, int opportunistic,
				char *err, size_t errlen)
{
	(void) within;
	if (pinned && opportunistic) {
		snprintf(err, errlen,
			 "--hived-pinned and --hived-opportunistic together: pinned cells belong to a VC's quota, opportunistic jobs run outside it");
		return -1;
	}
	if (lazy && opportunistic) {
		snprintf(err, errlen,
			 "--hived-lazy-preempt and --hived-opportunistic together: lazy preemption turns a preempted guaranteed job into an opportunistic one; an opportunistic job has nothing to keep");
		return -1;
	}
	return 0;
}
