// SPDX-License-Identifier: GPL-2.0-or-later
// The fast part of the fuzzing, in every "make check": each libFuzzer target, built
// with the normal compiler, runs on every file of its seed corpus (tests/fuzz/corpus/
// <target>/) and on deterministic mutations of them. A crash, abort or sanitizer
// report (under make check-sanitize) fails the target's check; "make fuzz" does the
// long, coverage-guided runs.
#include <dirent.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

// After the C++ headers: check.h defines a macro "fail" that breaks <istream>.
#include <check.h>

#include "fuzz_target.h"
#include "../check_run.h"

HIVED_FUZZ_TARGET(conf);
HIVED_FUZZ_TARGET(state);
HIVED_FUZZ_TARGET(replay);
HIVED_FUZZ_TARGET(topo);
HIVED_FUZZ_TARGET(status);

namespace {

using Entry = int (*)(const uint8_t *, size_t);

// Enough to reach past the seeds' first bytes without making the suite slow under ASan.
constexpr int kMutations = 2000;

std::string CorpusDir(const char *target) {
  const char *src = getenv("HIVED_SRCDIR");
  std::string top = src != nullptr && *src != '\0' ? src : HIVED_TOP_SRCDIR;
  return top + "/tests/fuzz/corpus/" + target;
}

std::vector<std::string> ReadCorpus(const std::string &dir) {
  std::vector<std::string> names;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *ent = readdir(d)) {
      if (ent->d_name[0] != '.') names.push_back(ent->d_name);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  std::vector<std::string> files;
  for (const auto &n : names) {
    std::ifstream in(dir + "/" + n, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    files.push_back(s.str());
  }
  return files;
}

// xorshift64: the same mutations on every machine, so a failure reproduces.
struct Rng {
  uint64_t s;
  uint64_t Next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  size_t Below(size_t n) { return n == 0 ? 0 : Next() % n; }
};

// Bytes that matter to the parsers: JSON and Slurm syntax, range brackets, digits that
// make numbers huge, and a NUL.
const char kInteresting[] = "{}[]\":,=-#\\\n 09\0%";

std::string Mutate(const std::vector<std::string> &corpus, Rng *rng) {
  std::string s = corpus[rng->Below(corpus.size())];
  int steps = 1 + static_cast<int>(rng->Below(4));
  for (int i = 0; i < steps; i++) {
    size_t at = rng->Below(s.size() + 1);
    switch (rng->Below(6)) {
      case 0:  // truncated file (a crash while writing, a full disk)
        s.resize(at);
        break;
      case 1:
        if (at < s.size()) s[at] = static_cast<char>(rng->Next());
        break;
      case 2:
        s.insert(at, 1, kInteresting[rng->Below(sizeof kInteresting - 1)]);
        break;
      case 3:
        s.erase(at, rng->Below(16));
        break;
      case 4: {  // a span repeated: duplicate keys, nested depth, long numbers
        size_t len = rng->Below(32);
        std::string span = s.substr(at, len);
        for (size_t k = rng->Below(8); k > 0; k--) s.insert(at, span);
        break;
      }
      default: {  // the head of one seed and the tail of another
        const std::string &o = corpus[rng->Below(corpus.size())];
        s = s.substr(0, at) + o.substr(rng->Below(o.size() + 1));
        break;
      }
    }
  }
  return s;
}

void RunTarget(const char *name, Entry entry) {
  std::vector<std::string> corpus = ReadCorpus(CorpusDir(name));
  ck_assert_msg(!corpus.empty(), "%s: no seed corpus in %s", name, CorpusDir(name).c_str());
  auto run = [&](const std::string &input) {
    entry(reinterpret_cast<const uint8_t *>(input.data()), input.size());
  };
  run("");
  for (const auto &seed : corpus) run(seed);
  Rng rng{0x9e3779b97f4a7c15ULL};
  for (int i = 0; i < kMutations; i++) run(Mutate(corpus, &rng));
  printf("fuzz corpus: %s: %zu seeds and %d mutations, no crash\n", name, corpus.size(),
         kMutations);
  fflush(stdout);
}

START_TEST(corpus_conf) { RunTarget("conf", hived_fuzz_conf); }
END_TEST

START_TEST(corpus_state) { RunTarget("state", hived_fuzz_state); }
END_TEST

START_TEST(corpus_replay) { RunTarget("replay", hived_fuzz_replay); }
END_TEST

START_TEST(corpus_topo) { RunTarget("topo", hived_fuzz_topo); }
END_TEST

START_TEST(corpus_status) { RunTarget("status", hived_fuzz_status); }
END_TEST

Suite *fuzz_suite() {
  Suite *s = suite_create("fuzz_corpus");
  TCase *tc = tcase_create("targets");
  // Under ASan+UBSan (make check-sanitize) the replay target takes tens of seconds.
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, corpus_conf);
  tcase_add_test(tc, corpus_state);
  tcase_add_test(tc, corpus_replay);
  tcase_add_test(tc, corpus_topo);
  tcase_add_test(tc, corpus_status);
  suite_add_tcase(s, tc);
  return s;
}

}  // namespace

int main() { return check_run(fuzz_suite(), CK_NORMAL, CK_FORK_GETENV); }
