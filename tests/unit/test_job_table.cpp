// SPDX-License-Identifier: GPL-2.0-or-later
// The job table (src/core/job_table.h) on its own, table-driven: each row is a
// sequence of operations and the table it must leave (live jobs in submission
// order with their slots, the slot count, and what compaction moved).
#include <sstream>
#include <string>
#include <vector>

// After the C++ headers: check.h defines a fail() macro.
#include <check.h>

#include "../check_run.h"
#include "core/job_table.h"

namespace {

using hived::Job;
using hived::JobTable;

// Tokens: "+a" records job a in a new slot, "-a" frees a's slot, "C" compacts,
// "R" reserves room for 4 frees and 4 names.
std::string Run(const std::string& ops) {
  JobTable t;
  std::string moves;
  std::istringstream in(ops);
  std::string tok;
  while (in >> tok) {
    const std::string name = tok.substr(1);
    if (tok[0] == '+') {
      const int s = t.NewSlot();
      Job& j = t[s];
      j.name = name;
      j.seq = t.next_seq++;
      j.live = true;
      t.Index(s);
    } else if (tok[0] == '-') {
      const int s = t.Find(name);
      if (s < 0) return "no " + name;
      Job taken;
      t.Free(s, &taken);
      if (taken.name != name || !taken.live) return "taken " + taken.name;
      if (t[s].live || !t[s].name.empty()) return "slot kept its record";
    } else if (tok == "C") {
      t.Compact([&](const Job& j, int to) { moves += " " + j.name + ">" + std::to_string(to); });
    } else if (tok == "R") {
      t.Reserve(4, 4);
    }
  }
  std::string out;
  for (int s : t.InSubmissionOrder()) {
    if (t.Find(t[s].name) != s) return "index lost " + t[s].name;
    out += t[s].name + "@" + std::to_string(s) + " ";
  }
  if (t.IndexSize() != t.InSubmissionOrder().size()) return "index size";
  out += "slots=" + std::to_string(t.size());
  if (!moves.empty()) out += " moved" + moves;
  return out;
}

struct Row {
  const char* ops;
  const char* expect;
};

const Row kRows[] = {
    {"", "slots=0"},
    {"+a +b +c", "a@0 b@1 c@2 slots=3"},
    // A freed slot is reused, last freed first; submission order stays.
    {"+a +b +c -b +d", "a@0 c@2 d@1 slots=3"},
    {"+a +b +c -a -c +d +e", "b@1 d@2 e@0 slots=3"},
    // A name can come back after it went (its tombstone in the index is reused).
    {"+a -a +a", "a@0 slots=1"},
    {"+a +b -a -b +b +a", "b@1 a@0 slots=2"},
    // Compaction moves the last live records into the lowest free slots and drops
    // the free tail.
    {"+a +b +c +d -a -b C", "c@1 d@0 slots=2 moved d>0 c>1"},
    {"+a +b +c +d -d C", "a@0 b@1 c@2 slots=3"},
    {"+a +b +c -a -b -c C", "slots=0"},
    {"+a +b +c -b C +e", "a@0 c@1 e@2 slots=3 moved c>1"},
    // Reserving room changes nothing visible.
    {"+a R -a +a +b", "a@0 b@1 slots=2"},
};

START_TEST(rows) {
  const Row& r = kRows[_i];
  ck_assert_msg(Run(r.ops) == r.expect, "ops '%s': got '%s', want '%s'", r.ops, Run(r.ops).c_str(),
                r.expect);
}
END_TEST

// Many jobs: the index grows and finds every one, frees leave no trace.
START_TEST(many) {
  JobTable t;
  for (int i = 0; i < 1000; i++) {
    const int s = t.NewSlot();
    t[s].name = "j" + std::to_string(i);
    t[s].live = true;
    t[s].seq = t.next_seq++;
    t.Index(s);
  }
  for (int i = 0; i < 1000; i += 2) t.Free(t.Find("j" + std::to_string(i)));
  ck_assert(t.WantsCompaction());
  t.Compact([](const Job&, int) {});
  ck_assert_uint_eq(t.size(), 500);
  for (int i = 0; i < 1000; i++) ck_assert_int_eq(t.Find("j" + std::to_string(i)) >= 0, i % 2);
  ck_assert_int_eq(t.Find("nobody"), -1);
}
END_TEST

struct InternRow {
  std::vector<std::string> in;
  std::vector<int> ids;
};

const InternRow kIntern[] = {
    {{""}, {0}},
    {{"A", "B", "A", ""}, {1, 2, 1, 0}},
    {{"V100", "V100", "A100", "V100"}, {1, 1, 2, 1}},
};

START_TEST(interning) {
  const InternRow& r = kIntern[_i];
  JobTable t;
  for (size_t k = 0; k < r.in.size(); k++) {
    ck_assert_int_eq(t.Intern(r.in[k]), r.ids[k]);
    ck_assert_str_eq(t.Str(r.ids[k]).c_str(), r.in[k].c_str());
  }
}
END_TEST

// A job's cells in one array: pods (SetPods, AddPod) and virtual leaves (AddVleaf,
// ClearVleaves) in any order read back the same. Tokens: "p1,2/3" sets pods {1,2}
// and {3}, "a4,5" adds a pod, "v7" adds a virtual leaf, "x" clears them.
std::string Cells(const std::string& ops) {
  Job j;
  std::istringstream in(ops);
  std::string tok;
  auto ids = [](const std::string& t) {
    std::vector<hived::PCellId> v;
    std::istringstream s(t);
    std::string n;
    while (std::getline(s, n, ',')) v.push_back(hived::PCellId(std::stoi(n)));
    return v;
  };
  while (in >> tok) {
    const std::string rest = tok.substr(1);
    if (tok[0] == 'p') {
      std::vector<hived::Pod> pods;
      std::istringstream s(rest);
      std::string pod;
      while (std::getline(s, pod, '/')) pods.push_back({-1, ids(pod)});
      j.SetPods(pods);
    } else if (tok[0] == 'a') {
      j.AddPod(ids(rest));
    } else if (tok[0] == 'v') {
      j.AddVleaf(hived::VCellId(std::stoi(rest)));
    } else if (tok[0] == 'x') {
      j.ClearVleaves();
    }
  }
  std::string out;
  for (const auto& p : j.Pods()) {
    out += "[";
    for (hived::PCellId l : p.leaves)
      out += std::to_string(l.v) + (l == p.leaves[p.leaves.size() - 1] ? "" : " ");
    out += "]";
  }
  out += " v";
  for (hived::VCellId v : j.Vleaves()) out += " " + std::to_string(v.v);
  size_t n = 0;
  for (const auto& p : j.Pods()) n += p.leaves.size();
  if (n != j.Leaves().size()) return "leaves out of step";
  return out;
}

const Row kCells[] = {
    {"", " v"},
    {"p1,2,3", "[1 2 3] v"},
    {"p1,2/3/4,5", "[1 2][3][4 5] v"},
    // Commit: virtual leaves first, then the pods; recovery: pods, then virtual leaves.
    {"v7 v8 v9 p1,2/3", "[1 2][3] v 7 8 9"},
    {"a1,2 a3 v7 v8 v9", "[1 2][3] v 7 8 9"},
    {"a1 a2 a3 v7 v8 v9 x", "[1][2][3] v"},
    // Lazy preemption: virtual leaves go, pods stay; new pods keep virtual leaves.
    {"p1/2 v5 v6 x v7 v8", "[1][2] v 7 8"},
    {"v5 p1 p2,3/4", "[2 3][4] v 5"},
};

START_TEST(cells) {
  const Row& r = kCells[_i];
  ck_assert_msg(Cells(r.ops) == r.expect, "ops '%s': got '%s', want '%s'", r.ops,
                Cells(r.ops).c_str(), r.expect);
}
END_TEST

}  // namespace

int main(void) {
  Suite* s = suite_create("job_table");
  TCase* tc = tcase_create("job_table");
  tcase_add_loop_test(tc, rows, 0, sizeof kRows / sizeof kRows[0]);
  tcase_add_test(tc, many);
  tcase_add_loop_test(tc, cells, 0, sizeof kCells / sizeof kCells[0]);
  tcase_add_loop_test(tc, interning, 0, sizeof kIntern / sizeof kIntern[0]);
  suite_add_tcase(s, tc);
  return check_run(s, CK_NORMAL, CK_FORK_GETENV);
}
