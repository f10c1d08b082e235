# SPDX-License-Identifier: GPL-2.0-or-later
# libFuzzer targets for the parsers of untrusted text (doc/reliability.md, "Fuzzing"):
# conf (hived.conf), state (the state file), replay (hived-replay events), topo
# (slurm.conf, gres.conf, topology.conf), status (hived_status.json as hivedctl
# reads it). Seeds in tests/fuzz/corpus/<target>/.

fuzz_targets = conf state replay topo status
fuzz_target_sources = tests/fuzz/fuzz_target.h tests/fuzz/fuzz_conf.cpp tests/fuzz/fuzz_state.cpp \
	tests/fuzz/fuzz_replay.cpp tests/fuzz/fuzz_topo.cpp tests/fuzz/fuzz_status.cpp
fuzz_replay_sources = tools/replay_json.cpp tools/replay_json.h tools/replay_request.cpp \
	tools/replay_request.h tools/replay_session.cpp tools/replay_session.h

# The fast part, in every "make check": all targets in one Check program, run on the
# corpus and on deterministic mutations of it.
check_PROGRAMS += tests/fuzz/test_fuzz_corpus
TESTS += tests/fuzz/test_fuzz_corpus
tests_fuzz_test_fuzz_corpus_SOURCES = tests/fuzz/test_fuzz_corpus.cpp $(fuzz_target_sources) \
	$(fuzz_replay_sources)
tests_fuzz_test_fuzz_corpus_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools -DHIVED_FUZZ_DRIVER \
	$(CHECK_CFLAGS) $(JANSSON_CFLAGS) -DHIVED_TOP_SRCDIR='"$(abs_top_srcdir)"'
tests_fuzz_test_fuzz_corpus_LDADD = libhived.la tools/libhivedctl.la $(CHECK_LIBS) $(JANSSON_LIBS)
EXTRA_DIST += tests/fuzz/corpus

# The libFuzzer programs exist only in a build configured with --enable-fuzz.
if FUZZ
noinst_PROGRAMS += tests/fuzz/fuzz_conf tests/fuzz/fuzz_state tests/fuzz/fuzz_replay tests/fuzz/fuzz_topo \
	tests/fuzz/fuzz_status
fuzz_cppflags = $(AM_CPPFLAGS) $(JANSSON_CFLAGS)
fuzz_ldflags = $(AM_LDFLAGS) -fsanitize=fuzzer
fuzz_ldadd = libhived.la $(JANSSON_LIBS)
tests_fuzz_fuzz_conf_SOURCES = tests/fuzz/fuzz_conf.cpp tests/fuzz/fuzz_target.h
tests_fuzz_fuzz_conf_CPPFLAGS = $(fuzz_cppflags)
tests_fuzz_fuzz_conf_LDFLAGS = $(fuzz_ldflags)
tests_fuzz_fuzz_conf_LDADD = $(fuzz_ldadd)
tests_fuzz_fuzz_state_SOURCES = tests/fuzz/fuzz_state.cpp tests/fuzz/fuzz_target.h
tests_fuzz_fuzz_state_CPPFLAGS = $(fuzz_cppflags)
tests_fuzz_fuzz_state_LDFLAGS = $(fuzz_ldflags)
tests_fuzz_fuzz_state_LDADD = $(fuzz_ldadd)
tests_fuzz_fuzz_replay_SOURCES = tests/fuzz/fuzz_replay.cpp tests/fuzz/fuzz_target.h \
	$(fuzz_replay_sources)
tests_fuzz_fuzz_replay_CPPFLAGS = $(fuzz_cppflags) -I$(top_srcdir)/tools
tests_fuzz_fuzz_replay_LDFLAGS = $(fuzz_ldflags)
tests_fuzz_fuzz_replay_LDADD = $(fuzz_ldadd)
tests_fuzz_fuzz_topo_SOURCES = tests/fuzz/fuzz_topo.cpp tests/fuzz/fuzz_target.h
tests_fuzz_fuzz_topo_CPPFLAGS = $(fuzz_cppflags)
tests_fuzz_fuzz_topo_LDFLAGS = $(fuzz_ldflags)
tests_fuzz_fuzz_topo_LDADD = $(fuzz_ldadd)
tests_fuzz_fuzz_status_SOURCES = tests/fuzz/fuzz_status.cpp tests/fuzz/fuzz_target.h
tests_fuzz_fuzz_status_CPPFLAGS = $(fuzz_cppflags) -I$(top_srcdir)/tools
tests_fuzz_fuzz_status_LDFLAGS = $(fuzz_ldflags)
tests_fuzz_fuzz_status_LDADD = tools/libhivedctl.la $(fuzz_ldadd)
endif

# "make fuzz": each target, built with clang -fsanitize=fuzzer,address,undefined in the
# sub-build fuzz-build/, runs FUZZ_RUNS inputs on a copy of its seed corpus. Any crash,
# leak, sanitizer report or input slower than FUZZ_TIMEOUT seconds fails it; the input
# is kept in fuzz-build/fuzz-run/crashes/. Needs this build to be out of tree.
FUZZ_RUNS = 200000
FUZZ_TIMEOUT = 10
FUZZ_MAX_LEN = 16384
FUZZ_CC = clang
FUZZ_CXX = clang++
fuzz:
	@if test -f '$(abs_top_srcdir)/config.status'; then \
	  echo "fuzz: $(abs_top_srcdir) is configured in-tree; use an out-of-tree build" >&2; \
	  exit 1; \
	fi
	@mkdir -p fuzz-build
	@cd fuzz-build && { test -f Makefile || \
	  '$(abs_top_srcdir)/configure' --quiet --enable-fuzz --without-slurm \
	    CC='$(FUZZ_CC)' CXX='$(FUZZ_CXX)'; }
	cd fuzz-build && $(MAKE) $(AM_MAKEFLAGS) $(fuzz_targets:%=tests/fuzz/fuzz_%$(EXEEXT))
	@cd fuzz-build && rm -rf fuzz-run && mkdir -p fuzz-run/crashes && failed=; \
	for t in $(fuzz_targets); do \
	  mkdir -p fuzz-run/$$t && cp '$(abs_top_srcdir)'/tests/fuzz/corpus/$$t/* fuzz-run/$$t/ && \
	  UBSAN_OPTIONS=print_stacktrace=1 ./tests/fuzz/fuzz_$$t -runs=$(FUZZ_RUNS) \
	    -timeout=$(FUZZ_TIMEOUT) -max_len=$(FUZZ_MAX_LEN) -rss_limit_mb=2048 \
	    -print_final_stats=1 -artifact_prefix=fuzz-run/crashes/$$t- fuzz-run/$$t \
	    >fuzz-run/$$t.log 2>&1; \
	  rc=$$?; \
	  execs=`sed -n 's/^stat::number_of_executed_units: *//p' fuzz-run/$$t.log | tail -n 1`; \
	  crashes=`ls fuzz-run/crashes | grep -c "^$$t-"`; \
	  echo "fuzz: $$t: $${execs:-?} executions, $$crashes crashes, corpus now `ls fuzz-run/$$t | wc -l` inputs (fuzz-build/fuzz-run/$$t.log)"; \
	  if test $$rc -ne 0; then \
	    failed="$$failed $$t"; grep -m 1 -A 12 'ERROR:\|runtime error\|==ERROR' fuzz-run/$$t.log; \
	    ls fuzz-run/crashes/$$t-* 2>/dev/null | sed 's|^|  input: fuzz-build/|'; \
	  fi; \
	done; \
	test -z "$$failed" || { echo "fuzz: FAILED:$$failed" >&2; exit 1; }

clean-local: clean-fuzz
clean-fuzz:
	-test ! -f fuzz-build/Makefile || $(MAKE) -C fuzz-build clean
	-rm -rf fuzz-build/fuzz-run

.PHONY: fuzz clean-fuzz
