/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_scenarios - run every scenario under tests/scenarios/ through the built
 * hived-replay with --check-invariants and compare its output with expected.jsonl.
 *
 * Scenarios are data: a directory holding config.json and events.jsonl plus either
 * expected.jsonl (one line per non-skipped event; each expected object must be a
 * subset of the actual line) or expect-config-error.txt (a substring the config
 * error must contain). See doc/replay.md.
 *
 * Environment: HIVED_REPLAY (the binary) and HIVED_SCENARIO_DIR override the paths
 * compiled in by the build; HIVED_SCENARIO picks one scenario by name.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../check_run.h"

#ifndef HIVED_REPLAY_PATH
#define HIVED_REPLAY_PATH "./hived-replay"
#endif
#ifndef HIVED_SCENARIO_PATH
#define HIVED_SCENARIO_PATH "tests/scenarios"
#endif

#define MAX_SCENARIOS 512

static char *scenario_root;
static const char *replay_bin;
static char *scenarios[MAX_SCENARIOS];
static int n_scenarios;

/* Memory of one test, freed when it ends (the sanitizer build checks for leaks). */
static void **scratch;
static size_t n_scratch;

static void *remember(void *p)
{
	void **grown = realloc(scratch, (n_scratch + 1) * sizeof(*scratch));

	if (!grown) {
		fprintf(stderr, "test_scenarios: out of memory\n");
		exit(EXIT_FAILURE);
	}
	scratch = grown;
	scratch[n_scratch++] = p;
	return p;
}

static void forget_all(void)
{
	while (n_scratch)
		free(scratch[--n_scratch]);
	free(scratch);
	scratch = NULL;
}

struct lines {
	char **line;
	int n;
};

static char *path_join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *p = malloc(n);

	/* Also used outside tests (scenario discovery), where ck_assert cannot report. */
	if (!p) {
		fprintf(stderr, "test_scenarios: out of memory\n");
		exit(EXIT_FAILURE);
	}
	snprintf(p, n, "%s/%s", a, b);
	return p;
}

static char *tmp_join(const char *a, const char *b)
{
	return remember(path_join(a, b));
}

/* Check passes messages through a pipe of limited size: long texts (a sanitizer
 * report on stderr, a big status line) are cut to their first bytes. */
static const char *clip(const char *s)
{
	static char buf[4][1024];
	static int k;
	char *b = buf[k++ % 4];

	if (!s)
		return "(null)";
	if (strlen(s) < sizeof(buf[0]))
		return s;
	snprintf(b, sizeof(buf[0]), "%.1000s...", s);
	return b;
}

static int file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, got;

	if (!f)
		return NULL;
	do {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap + 1);
			ck_assert_ptr_nonnull(buf);
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got > 0);
	fclose(f);
	buf[len] = '\0';
	return remember(buf);
}

/* Splits text into lines, optionally dropping the blank and '#' lines that the
 * replay skips, so that line k of each list belongs to the same event. */
static struct lines split_lines(char *text, int skip_comments)
{
	struct lines l = { NULL, 0 };
	char *save = NULL, *s;

	if (!text)
		return l;
	for (s = strtok_r(text, "\n", &save); s; s = strtok_r(NULL, "\n", &save)) {
		size_t n = strlen(s);
		const char *p = s;

		if (n && s[n - 1] == '\r')
			s[n - 1] = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		if (skip_comments && (*p == '\0' || *p == '#'))
			continue;
		l.line = realloc(l.line, (l.n + 1) * sizeof(*l.line));
		ck_assert_ptr_nonnull(l.line);
		l.line[l.n++] = s;
	}
	if (l.line)
		remember(l.line);
	return l;
}

/* Expected must be a subset of actual: objects recursively (only the keys given),
 * arrays element by element with equal length, scalars exactly. A key written
 * "name~" with a string value matches when actual "name" is a string containing it
 * (engine messages are checked for the field they name, not word for word). On
 * mismatch the JSON path of the first difference is written to where. */
static int json_subset(json_t *exp, json_t *act, char *where, size_t len)
{
	size_t used = strlen(where);

	if (json_is_object(exp)) {
		const char *key;
		json_t *v;

		if (!json_is_object(act))
			return 0;
		json_object_foreach(exp, key, v) {
			size_t klen = strlen(key);

			snprintf(where + used, len - used, ".%s", key);
			if (klen > 1 && key[klen - 1] == '~' && json_is_string(v)) {
				char name[256];
				json_t *a;

				snprintf(name, sizeof(name), "%.*s", (int) (klen - 1), key);
				a = json_object_get(act, name);
				if (!json_is_string(a) ||
				    !strstr(json_string_value(a), json_string_value(v)))
					return 0;
				continue;
			}
			if (!json_subset(v, json_object_get(act, key), where, len))
				return 0;
		}
		where[used] = '\0';
		return 1;
	}
	if (json_is_array(exp)) {
		size_t i;
		json_t *v;

		if (!json_is_array(act) || json_array_size(act) != json_array_size(exp))
			return 0;
		json_array_foreach(exp, i, v) {
			snprintf(where + used, len - used, "[%zu]", i);
			if (!json_subset(v, json_array_get(act, i), where, len))
				return 0;
		}
		where[used] = '\0';
		return 1;
	}
	return act && json_equal(exp, act);
}

struct run {
	int status; /* exit status, or -1 if killed */
	char *out;
	char *err;
};

static struct run run_replay(const char *dir, int with_events)
{
	char out_path[] = "/tmp/hived-scenario-out-XXXXXX";
	char err_path[] = "/tmp/hived-scenario-err-XXXXXX";
	char *config = path_join(dir, "config.json");
	char *events = path_join(dir, "events.jsonl");
	struct run r = { -1, NULL, NULL };
	int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path), ws;
	pid_t pid;

	ck_assert_msg(out_fd >= 0 && err_fd >= 0, "mkstemp: %s", strerror(errno));
	if (!with_events) {
		free(events);
		events = strdup("/dev/null");
	}
	pid = fork();
	ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int in_fd = open("/dev/null", O_RDONLY);

		dup2(in_fd, 0);
		dup2(out_fd, 1);
		dup2(err_fd, 2);
		execl(replay_bin, replay_bin, "--config", config, "--events", events,
		      "--check-invariants", (char *) NULL);
		fprintf(stderr, "exec %s: %s\n", replay_bin, strerror(errno));
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
	if (WIFEXITED(ws))
		r.status = WEXITSTATUS(ws);
	close(out_fd);
	close(err_fd);
	r.out = read_all(out_path);
	r.err = read_all(err_path);
	unlink(out_path);
	unlink(err_path);
	free(config);
	free(events);
	return r;
}

static void check_config_error(const char *name, const char *dir, const char *want_file)
{
	char *want = read_all(want_file);
	struct run r;
	size_t n;

	ck_assert_ptr_nonnull(want);
	n = strlen(want);
	while (n && (want[n - 1] == '\n' || want[n - 1] == '\r'))
		want[--n] = '\0';
	ck_assert_msg(n > 0, "%s: expect-config-error.txt is empty", name);
	r = run_replay(dir, file_exists(tmp_join(dir, "events.jsonl")));
	ck_assert_msg(r.status == 2, "%s: config should be rejected (exit 2), got exit %d\n"
		      "stdout: %s\nstderr: %s", name, r.status, clip(r.out), clip(r.err));
	ck_assert_msg(r.err && strstr(r.err, want),
		      "%s: config error lacks \"%s\"\nstderr: %s", name, clip(want), clip(r.err));
}

static void check_expected(const char *name, const char *dir)
{
	char *events_text = read_all(tmp_join(dir, "events.jsonl"));
	char *expected_text = read_all(tmp_join(dir, "expected.jsonl"));
	struct lines events, expected, actual;
	struct run r;
	int i;

	ck_assert_msg(events_text, "%s: no events.jsonl", name);
	ck_assert_msg(expected_text, "%s: no expected.jsonl", name);
	events = split_lines(events_text, 1);
	expected = split_lines(expected_text, 1);
	r = run_replay(dir, 1);
	actual = split_lines(r.out, 0);

	for (i = 0; i < expected.n && i < actual.n; i++) {
		json_error_t jerr;
		json_t *exp = json_loads(expected.line[i], 0, &jerr);
		json_t *act;
		char where[1024] = "";

		ck_assert_msg(exp, "%s: expected.jsonl line %d is not JSON: %s",
			      name, i + 1, jerr.text);
		act = json_loads(actual.line[i], 0, &jerr);
		ck_assert_msg(!act || !json_is_string(json_object_get(act, "result")) ||
			      strcmp(json_string_value(json_object_get(act, "result")),
				     "invariant-violated"),
			      "%s: invariant violated after event %d\n  event:    %s\n"
			      "  violation: %s", name, i,
			      clip(i > 0 && i - 1 < events.n ? events.line[i - 1] : "(start)"),
			      clip(actual.line[i]));
		ck_assert_msg(act && json_subset(exp, act, where, sizeof(where)),
			      "%s: event %d mismatch at %s\n  event:    %s\n"
			      "  expected: %s\n  actual:   %s", name, i + 1,
			      where[0] ? where : "top level",
			      clip(i < events.n ? events.line[i] : "?"),
			      clip(expected.line[i]), clip(actual.line[i]));
		json_decref(exp);
		json_decref(act);
	}
	ck_assert_msg(r.status == 0, "%s: hived-replay exit %d after %d lines\n"
		      "  last output: %s\n  stderr: %s", name, r.status, actual.n,
		      clip(actual.n ? actual.line[actual.n - 1] : "(none)"), clip(r.err));
	ck_assert_msg(actual.n == expected.n,
		      "%s: %d output lines for %d expected lines (%d events)",
		      name, actual.n, expected.n, events.n);
	ck_assert_msg(events.n == expected.n,
		      "%s: %d events but %d expected lines", name, events.n, expected.n);
}

START_TEST(test_scenario)
{
	const char *name = scenarios[_i];
	char *dir = tmp_join(scenario_root, name);
	char *want = tmp_join(dir, "expect-config-error.txt");

	ck_assert_msg(file_exists(tmp_join(dir, "config.json")), "%s: no config.json", name);
	if (file_exists(want))
		check_config_error(name, dir, want);
	else
		check_expected(name, dir);
	forget_all();
}
END_TEST

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static void find_scenarios(void)
{
	const char *only = getenv("HIVED_SCENARIO");
	DIR *d = opendir(scenario_root);
	struct dirent *de;

	if (!d) {
		fprintf(stderr, "test_scenarios: cannot open %s: %s\n",
			scenario_root, strerror(errno));
		exit(EXIT_FAILURE);
	}
	while ((de = readdir(d)) && n_scenarios < MAX_SCENARIOS) {
		char *dir, *config;

		if (de->d_name[0] == '.' || (only && strcmp(only, de->d_name)))
			continue;
		dir = path_join(scenario_root, de->d_name);
		config = path_join(dir, "config.json");
		if (file_exists(config))
			scenarios[n_scenarios++] = strdup(de->d_name);
		free(dir);
		free(config);
	}
	closedir(d);
	qsort(scenarios, n_scenarios, sizeof(*scenarios), cmp_names);
}

int main(void)
{
	const char *env_root = getenv("HIVED_SCENARIO_DIR");
	Suite *s = suite_create("scenarios");
	TCase *tc = tcase_create("replay");

	replay_bin = getenv("HIVED_REPLAY") ? getenv("HIVED_REPLAY") : HIVED_REPLAY_PATH;
	scenario_root = strdup(env_root ? env_root : HIVED_SCENARIO_PATH);
	find_scenarios();
	if (n_scenarios == 0) {
		fprintf(stderr, "test_scenarios: no scenarios under %s\n", scenario_root);
		return EXIT_FAILURE;
	}
	/* Loop tests are reported by index: print the index of each scenario. */
	for (int i = 0; i < n_scenarios; i++)
		printf("scenario %d: %s\n", i, scenarios[i]);
	fflush(stdout);
	/* A scenario replays in milliseconds; a long one means the engine loops. */
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_scenario, 0, n_scenarios);
	suite_add_tcase(s, tc);
	return check_run(s, CK_VERBOSE, CK_FORK_GETENV);
}
