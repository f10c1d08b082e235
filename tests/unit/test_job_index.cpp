// SPDX-License-Identifier: GPL-2.0-or-later
// JobIndex (src/core/job_index.h) against std::unordered_map: random inserts and
// erases, and what a WILL_RUN trial does to it (a dry run's job in and out, running
// jobs out and back) leaving neither a grown table nor a pile of tombstones.
#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

// After the C++ headers: check.h defines a fail() macro.
#include <check.h>

#include "../check_run.h"
#include "core/job_index.h"

namespace {

using hived::JobIndex;

// The job records: slot -> name, as JobTable keeps them.
struct Names {
  std::vector<std::string> by_slot;
  std::string_view operator()(int slot) const { return by_slot[static_cast<size_t>(slot)]; }
};

START_TEST(matches_map) {
  std::mt19937 rng(11);
  JobIndex idx;
  Names names;
  std::unordered_map<std::string, int> ref;
  std::vector<int> free_slots;
  for (int step = 0; step < 100000; step++) {
    const bool add = ref.size() < 50 || (ref.size() < 3000 && rng() % 2);
    if (add) {
      int slot;
      if (!free_slots.empty()) {
        slot = free_slots.back();
        free_slots.pop_back();
      } else {
        slot = static_cast<int>(names.by_slot.size());
        names.by_slot.emplace_back();
      }
      names.by_slot[static_cast<size_t>(slot)] = "job" + std::to_string(step);
      idx.Insert(slot, names);
      ref[names.by_slot[static_cast<size_t>(slot)]] = slot;
    } else {
      auto it = ref.begin();
      std::advance(it, static_cast<long>(rng() % ref.size()));
      ck_assert(idx.Erase(it->first, names));
      ck_assert(!idx.Erase(it->first, names));
      free_slots.push_back(it->second);
      ref.erase(it);
    }
    ck_assert_uint_eq(idx.size(), ref.size());
    if (step % 1000 == 0) {
      for (const auto& [name, slot] : ref) ck_assert_int_eq(idx.Find(name, names), slot);
      ck_assert_int_eq(idx.Find("job" + std::to_string(step + 1), names), -1);
    }
  }
}
END_TEST

START_TEST(trials_leave_no_tombstones) {
  // 2 000 running jobs, then what 50 000 WILL_RUN trials do: each ends (erases) a
  // few running jobs, inserts and erases its dry run's job, and puts the ended jobs
  // back. The table must never be rebuilt (a rebuild sizes it for the jobs it holds,
  // so its size would change), and every job must still be found.
  JobIndex idx;
  Names names;
  const int running = 2000;
  for (int s = 0; s < running; s++) {
    names.by_slot.push_back("run" + std::to_string(s));
    idx.Insert(s, names);
  }
  idx.Reserve(running, names);   // a quarter full, or less: as after a rehash
  names.by_slot.emplace_back();  // the dry run's slot
  const int dry = running;
  const size_t bytes = idx.Bytes();
  std::mt19937 rng(5);
  for (int trial = 0; trial < 50000; trial++) {
    idx.Reserve(2, names);
    std::vector<int> ended;
    for (int k = 0; k < 5; k++) {
      const int s = static_cast<int>(rng() % running);
      if (idx.Erase(names.by_slot[static_cast<size_t>(s)], names)) ended.push_back(s);
    }
    names.by_slot[static_cast<size_t>(dry)] = "ask" + std::to_string(trial);
    idx.Insert(dry, names);
    ck_assert(idx.Erase(names.by_slot[static_cast<size_t>(dry)], names));
    for (auto it = ended.rbegin(); it != ended.rend(); ++it) idx.Insert(*it, names);
    ck_assert_uint_eq(idx.size(), static_cast<size_t>(running));
    // Before tombstones next to empty places were cleared, the table was rebuilt
    // every ~2 000 dry runs here, in whichever call crossed the limit.
    ck_assert_uint_eq(idx.Bytes(), bytes);
  }
  for (int s = 0; s < running; s++)
    ck_assert_int_eq(idx.Find(names.by_slot[static_cast<size_t>(s)], names), s);
}
END_TEST

}  // namespace

int main() {
  Suite* s = suite_create("job_index");
  TCase* tc = tcase_create("job_index");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, matches_map);
  tcase_add_test(tc, trials_leave_no_tombstones);
  suite_add_tcase(s, tc);
  return check_run(s, CK_NORMAL, CK_FORK_GETENV);
}
