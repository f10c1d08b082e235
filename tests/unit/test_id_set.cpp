// SPDX-License-Identifier: GPL-2.0-or-later
// IdSet (src/core/id_set.h) against std::set, whose order the decisions' tie-breaks
// were written for: random inserts and erases over spans that grow up and down,
// iteration while other ids come and go, and the heap it holds.
#include <cstdint>
#include <random>
#include <set>
#include <vector>

// After the C++ headers: check.h defines a fail() macro.
#include <check.h>

#include "../check_run.h"
#include "core/id_set.h"
#include "core/ids.h"

namespace {

using hived::IdSet;
using hived::PCellId;

std::vector<int32_t> Ids(const IdSet<PCellId>& s) {
  std::vector<int32_t> v;
  for (PCellId c : s) v.push_back(c.v);
  return v;
}

std::vector<int32_t> Ids(const std::set<int32_t>& s) { return {s.begin(), s.end()}; }

START_TEST(matches_std_set) {
  // Ids up to 300 000, the first one the highest: the span grows downwards and
  // upwards, and iteration crosses empty words and empty summary words.
  std::mt19937 rng(7);
  for (int32_t hi : {100, 5000, 70000, 300000}) {
    IdSet<PCellId> s;
    std::set<int32_t> ref;
    std::uniform_int_distribution<int32_t> id(0, hi);
    s.insert(PCellId(hi));
    ref.insert(hi);
    for (int step = 0; step < 20000; step++) {
      const int32_t v = id(rng);
      if (rng() % 3) {
        ck_assert_int_eq(s.insert(PCellId(v)), ref.insert(v).second);
      } else {
        ck_assert_uint_eq(s.erase(PCellId(v)), ref.erase(v));
      }
      ck_assert_uint_eq(s.size(), ref.size());
      ck_assert_uint_eq(s.count(PCellId(v)), ref.count(v));
      if (step % 997 == 0) ck_assert_msg(Ids(s) == Ids(ref), "order differs at step %d", step);
    }
    ck_assert_msg(Ids(s) == Ids(ref), "order differs (ids up to %d)", hi);
    ck_assert_uint_eq(s.count(PCellId(hi + 100000)), 0);
    ck_assert_uint_eq(s.erase(PCellId(hi + 100000)), 0);
    ck_assert_int_eq(s.empty(), ref.empty());
  }
}
END_TEST

START_TEST(iterate_while_changing) {
  // As with a std::set: an id erased ahead is not visited, one inserted ahead is, and
  // erasing the id just visited (after moving past it) leaves the rest in order.
  IdSet<PCellId> s;
  for (int32_t v : {3, 64, 65, 4095, 4096, 9000}) s.insert(PCellId(v));
  std::vector<int32_t> seen;
  for (auto it = s.begin(); it != s.end();) {
    const PCellId c = *it++;
    seen.push_back(c.v);
    if (c.v == 3) s.erase(PCellId(4095));
    if (c.v == 64) s.insert(PCellId(8000));
    s.erase(c);
  }
  ck_assert_msg((seen == std::vector<int32_t>{3, 64, 65, 4096, 8000, 9000}), "visited %zu ids",
                seen.size());
  ck_assert(s.empty());
  ck_assert(s.begin() == s.end());
}
END_TEST

START_TEST(span_and_bytes) {
  // A set spanned up front does not grow (no allocation on the hot path); its heap is
  // the two levels of bits: 4096 ids take 64 words and one summary word.
  IdSet<PCellId> s;
  ck_assert_uint_eq(s.Bytes(), 0);
  s.Span(4096, 8192);
  const size_t bytes = s.Bytes();
  ck_assert_uint_eq(bytes, (64 + 1) * sizeof(uint64_t));
  for (int32_t v = 4096; v < 8192; v += 7) s.insert(PCellId(v));
  ck_assert_uint_eq(s.Bytes(), bytes);
  ck_assert_uint_eq(s.size(), (8192 - 4096 + 6) / 7);
  ck_assert_int_eq((*s.begin()).v, 4096);
  IdSet<PCellId> copy = s;
  ck_assert_msg(Ids(copy) == Ids(s), "a copy holds the same ids");
  // A span covers whole words from a multiple of 64: ids 100..163 take words 64..191.
  IdSet<PCellId> small;
  small.Span(100, 164);
  ck_assert_uint_eq(small.Bytes(), (2 + 1) * sizeof(uint64_t));
}
END_TEST

}  // namespace

int main() {
  Suite* s = suite_create("id_set");
  TCase* tc = tcase_create("id_set");
  tcase_add_test(tc, matches_std_set);
  tcase_add_test(tc, iterate_while_changing);
  tcase_add_test(tc, span_and_bytes);
  suite_add_tcase(s, tc);
  return check_run(s, CK_NORMAL, CK_FORK_GETENV);
}
