/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * run.c - shell commands and small parsers for the end-to-end test.
 */
#define _GNU_SOURCE
#include "run.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

int run(char **out, const char *fmt, ...)
{
	char *cmd, *full, *buf = NULL;
	size_t len = 0;
	FILE *p;
	va_list ap;
	int status;

	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		cmd = NULL;
	va_end(ap);
	if (!cmd || asprintf(&full, "(%s) 2>&1", cmd) < 0) {
		free(cmd);
		return -1;
	}
	free(cmd);

	p = popen(full, "r");
	free(full);
	if (!p)
		return -1;
	FILE *mem = open_memstream(&buf, &len);
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		fwrite(chunk, 1, n, mem);
	fclose(mem);
	status = pclose(p);
	if (out)
		*out = buf;
	else
		free(buf);
	if (status == -1 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

char *shell_quote(const char *s)
{
	size_t n = 3;
	char *q, *o;

	for (const char *c = s; *c; c++)
		n += (*c == '\'') ? 4 : 1;
	if (!(q = malloc(n)))
		return NULL;
	o = q;
	*o++ = '\'';
	for (const char *c = s; *c; c++) {
		if (*c == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *c;
		}
	}
	*o++ = '\'';
	*o = '\0';
	return q;
}

char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	FILE *mem = open_memstream(&buf, &len);
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, mem);
	fclose(mem);
	fclose(f);
	return buf;
}

int parse_index_list(const char *s, int *idx, int max)
{
	int count = 0;

	while (*s) {
		char *end;
		long lo = strtol(s, &end, 10), hi;

		if (end == s)
			return -1;
		hi = lo;
		s = end;
		if (*s == '-') {
			s++;
			hi = strtol(s, &end, 10);
			if (end == s || hi < lo)
				return -1;
			s = end;
		}
		for (long i = lo; i <= hi; i++) {
			if (count >= max)
				return -1;
			idx[count++] = (int)i;
		}
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return count;
}

bool config_value(const char *text, const char *key, char *val, size_t len)
{
	size_t klen = strlen(key);
	const char *line = text;

	while (line && *line) {
		if (!strncmp(line, key, klen) && (line[klen] == ' ' || line[klen] == '=')) {
			const char *v = strchr(line + klen, '=');
			size_t n = 0;

			if (!v)
				return false;
			for (v++; *v == ' '; v++)
				;
			while (v[n] && v[n] != '\n' && n + 1 < len) {
				val[n] = v[n];
				n++;
			}
			while (n > 0 && isspace((unsigned char)val[n - 1]))
				n--;
			val[n] = '\0';
			return true;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}

bool pid_alive(int pid)
{
	char path[64], *stat, *paren;
	bool alive;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	stat = read_file(path);
	if (!stat)
		return false;
	/* "pid (comm) S ...": the state follows the last ')'. */
	paren = strrchr(stat, ')');
	alive = paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
	free(stat);
	return alive;
}
