/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * run.h - shell commands and small parsers for the end-to-end test.
 */
#ifndef HIVED_E2E_RUN_H
#define HIVED_E2E_RUN_H

#include <stdbool.h>
#include <stddef.h>

/* Run a shell command (stderr merged); *out (malloc()ed, may be NULL) gets its
 * output. RET the exit status, or -1 if it could not run. */
int run(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* s as one shell word: single-quoted, its own quotes escaped (malloc()ed). */
char *shell_quote(const char *s);

/* Read a whole file (malloc()ed), NULL if unreadable. */
char *read_file(const char *path);

/* Parse "0-1,4,6-7" into idx[] (at most max); RET count, -1 on junk. */
int parse_index_list(const char *s, int *idx, int max);

/* The value after "key" (e.g. "SelectType") in "key = value" lines. */
bool config_value(const char *text, const char *key, char *val, size_t len);

/* Is pid a live process (not a zombie)? */
bool pid_alive(int pid);

#endif
