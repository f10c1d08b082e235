// SPDX-License-Identifier: GPL-2.0-or-later
// hived_will_run against the answer it stands for, table-driven: each row runs jobs
// on a cluster of two chains (V100 and K80 nodes, VCs A and B with cells in both),
// asks WILL_RUN with their end times, and compares the answer with a copy of the
// engine on which the jobs end for real, earliest first, with a dry run after each
// end time (as tools/soak.cpp does). WillRun leaves jobs of other VCs in chains the
// request cannot use running (src/core/will_run.cpp): these rows are where that
// could show.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

// After the C++ headers: check.h defines a fail() macro.
#include <check.h>

#include "../check_run.h"
#include "hived.h"

namespace {

const char kConfig[] = R"({"physicalCluster": {
  "cellTypes": {
    "V100-NODE": {"childCellType": "V100", "childCellNumber": 4, "isNodeLevel": true},
    "K80-NODE": {"childCellType": "K80", "childCellNumber": 2, "isNodeLevel": true}},
  "physicalCells": [{"cellType": "V100-NODE", "cellAddress": "v0"},
                    {"cellType": "V100-NODE", "cellAddress": "v1"},
                    {"cellType": "K80-NODE", "cellAddress": "k0"},
                    {"cellType": "K80-NODE", "cellAddress": "k1"}]},
 "virtualClusters": {
  "A": {"virtualCells": [{"cellType": "V100-NODE", "cellNumber": 1},
                         {"cellType": "K80-NODE", "cellNumber": 1}]},
  "B": {"virtualCells": [{"cellType": "V100-NODE", "cellNumber": 1},
                         {"cellType": "K80-NODE", "cellNumber": 1}]}}})";

struct Ask {
  const char* job;
  const char* vc;  // nullptr: opportunistic without a VC
  int priority;
  const char* model;
  int pods, gpus;
  int64_t end;  // for running jobs
};

struct Row {
  const char* what;
  std::vector<Ask> running;
  Ask ask;
  int64_t want_start;
};

hived_job_request Request(const Ask& a, hived_member* m) {
  *m = {a.pods, a.gpus, 0};
  hived_job_request r{};
  r.job = a.job;
  r.vc = a.vc;
  r.priority = a.priority;
  r.leaf_cell_type = a.model;
  r.members = m;
  r.n_members = 1;
  return r;
}

std::string Text(const hived_decision* d, int64_t start) {
  std::string s = "start " + std::to_string(start) + " outcome " + std::to_string(d->outcome) +
                  " wait " + std::to_string(d->wait_kind) + " '" + d->reason + "'";
  for (size_t i = 0; i < d->n_pods; i++) {
    s += " pod " + std::string(d->pods[i].node_name) + ":";
    for (int32_t k = 0; k < d->pods[i].n_leaves; k++) s += std::to_string(d->pods[i].leaves[k]);
  }
  for (size_t i = 0; i < d->n_preempted; i++) s += std::string(" kill ") + d->preempted[i];
  for (size_t i = 0; i < d->n_lazy_preempted; i++)
    s += std::string(" demote ") + d->lazy_preempted[i];
  return s;
}

// The reference: a copy on which the jobs end for real, earliest end first, with a
// dry run after each end time.
std::string CopyAnswer(hived_engine* e, const hived_job_request& q,
                       const std::vector<hived_job_end>& ends) {
  hived_engine* c = nullptr;
  ck_assert_int_eq(hived_engine_clone(e, &c), HIVED_OK);
  std::unique_ptr<hived_engine, void (*)(hived_engine*)> cguard(c, hived_engine_free);
  std::vector<hived_job_end> order;
  for (const auto& x : ends)
    if (x.end > 0) order.push_back(x);
  std::stable_sort(order.begin(), order.end(),
                   [](const hived_job_end& a, const hived_job_end& b) { return a.end < b.end; });
  const hived_decision* w = nullptr;
  ck_assert_int_eq(hived_submit(c, &q, 1, &w), HIVED_OK);
  int64_t at = 0;
  for (size_t k = 0; w->outcome == HIVED_WAITING && k < order.size();) {
    at = order[k].end;
    for (; k < order.size() && order[k].end == at; k++) {
      const hived_rc rc = hived_finish(c, order[k].job);  // an unknown job is ignored
      ck_assert_msg(rc == HIVED_OK || rc == HIVED_ENOENT, "finish %s: %d", order[k].job, rc);
    }
    ck_assert_int_eq(hived_submit(c, &q, 1, &w), HIVED_OK);
  }
  return Text(w, w->outcome == HIVED_PLACED ? at : -1);
}

const Row kRows[] = {
    {"B's K80 jobs end first: A's V100 job fits when A's own job ends",
     {{"a1", "A", 0, "V100", 1, 4, 30},
      {"b1", "B", 0, "K80", 1, 2, 10},
      {"b2", "B", 0, "V100", 1, 4, 20}},
     {"q", "A", 0, "V100", 1, 4, 0},
     30},
    {"A's own K80 job ends too (its VC's counters)",
     {{"a1", "A", 0, "V100", 1, 4, 30},
      {"a2", "A", 0, "K80", 1, 2, 10},
      {"b1", "B", 0, "K80", 1, 2, 5}},
     {"q", "A", 0, "V100", 1, 4, 0},
     30},
    {"never fits: the reason counts the VC's free GPUs after every end",
     {{"a1", "A", 0, "V100", 1, 4, 0},
      {"a2", "A", 0, "K80", 1, 2, 10},
      {"b1", "B", 0, "K80", 1, 2, 5}},
     {"q", "A", 0, "V100", 1, 4, 0},
     -1},
    {"any model: both chains matter",
     {{"a1", "A", 0, "V100", 1, 4, 30},
      {"a2", "A", 0, "K80", 1, 2, 10},
      {"b1", "B", 0, "K80", 1, 2, 5}},
     {"q", "A", 0, nullptr, 1, 2, 0},
     10},
    {"opportunistic on V100: K80 jobs of VCs do not matter, V100 ones do",
     {{"a1", "A", 0, "V100", 1, 4, 30},
      {"b2", "B", 0, "V100", 1, 4, 20},
      {"b1", "B", 0, "K80", 1, 2, 5},
      {"o1", nullptr, -1, "K80", 1, 2, 7}},
     {"q", nullptr, -1, "V100", 1, 4, 0},
     20},
    {"opportunistic without a VC: other jobs without a VC end wherever they run",
     {{"o1", nullptr, -1, "K80", 2, 2, 7},
      {"a1", "A", 0, "V100", 1, 4, 30},
      {"b2", "B", 0, "V100", 1, 4, 20}},
     {"q", nullptr, -1, "V100", 1, 2, 0},
     20},
};

START_TEST(rows) {
  const Row& row = kRows[_i];
  char err[256] = "";
  hived_engine* e = nullptr;
  ck_assert_msg(hived_engine_new(kConfig, &e, err, sizeof err) == HIVED_OK, "%s", err);
  std::unique_ptr<hived_engine, void (*)(hived_engine*)> guard(e, hived_engine_free);
  std::vector<hived_job_end> ends;
  for (const Ask& a : row.running) {
    hived_member m;
    hived_job_request r = Request(a, &m);
    const hived_decision* d = nullptr;
    ck_assert_int_eq(hived_submit(e, &r, 0, &d), HIVED_OK);
    ck_assert_msg(d->outcome == HIVED_PLACED, "%s: %s not placed: %s", row.what, a.job, d->reason);
    ends.push_back({a.job, a.end});
  }
  hived_member m;
  hived_job_request q = Request(row.ask, &m);
  int64_t start = 0;
  const hived_decision* d = nullptr;
  ck_assert_int_eq(hived_will_run(e, &q, ends.data(), ends.size(), &start, &d), HIVED_OK);
  const std::string got = Text(d, start);

  const std::string want = CopyAnswer(e, q, ends);
  ck_assert_msg(got == want, "%s:\n  will_run %s\n  copy     %s", row.what, got.c_str(),
                want.c_str());
  ck_assert_msg(start == row.want_start, "%s: start %lld, want %lld", row.what,
                static_cast<long long>(start), static_cast<long long>(row.want_start));
  ck_assert_msg(hived_check_invariants(e, err, sizeof err) == HIVED_OK, "%s", err);
}
END_TEST

// One VC owning four 4-GPU nodes, all busy, the jobs ending at different times.
const char kSequenceConfig[] = R"({"physicalCluster": {
  "cellTypes": {
    "V100-NODE": {"childCellType": "V100", "childCellNumber": 4, "isNodeLevel": true}},
  "physicalCells": [{"cellType": "V100-NODE", "cellAddress": "n0"},
                    {"cellType": "V100-NODE", "cellAddress": "n1"},
                    {"cellType": "V100-NODE", "cellAddress": "n2"},
                    {"cellType": "V100-NODE", "cellAddress": "n3"}]},
 "virtualClusters": {
  "A": {"virtualCells": [{"cellType": "V100-NODE", "cellNumber": 4}]}}})";

// A question of `pods` whole nodes, asked at step `after` of the sequence.
struct Step {
  enum { kAsk, kStart, kEnd, kBad, kGood } what;
  const char* job;  // kStart, kEnd: the job; kBad, kGood: the node
  int pods;         // kAsk: whole nodes asked; kStart: GPUs of the job
  int64_t value;    // kAsk: the start expected; kStart: its end time
};

// Questions whose answers lie at different end times, asked latest first, then
// earliest first, some twice, with a job ending, one starting and a node failing and
// coming back between them: an answer kept from an earlier question (the trial's
// state, a cursor into the end times, WillRun's memo) that is not dropped or moved
// right gives a start or nodes the copy does not. Asked plainly (_i 0) and as backfill
// asks, numbering the list and a new number for each list it builds (_i 1).
START_TEST(sequence) {
  const bool kept = _i == 1;
  uint64_t gen = 1;
  char err[256] = "";
  hived_engine* e = nullptr;
  ck_assert_msg(hived_engine_new(kSequenceConfig, &e, err, sizeof err) == HIVED_OK, "%s", err);
  std::unique_ptr<hived_engine, void (*)(hived_engine*)> guard(e, hived_engine_free);
  std::vector<hived_job_end> ends;
  auto start_job = [&](const char* job, int gpus, int64_t end) {
    hived_member m;
    hived_job_request r = Request({job, "A", 0, "V100", 1, gpus, end}, &m);
    const hived_decision* d = nullptr;
    ck_assert_int_eq(hived_submit(e, &r, 0, &d), HIVED_OK);
    ck_assert_msg(d->outcome == HIVED_PLACED, "%s not placed: %s", job, d->reason);
    ends.push_back({job, end});
    gen++;
  };
  start_job("a1", 4, 10);
  start_job("a2", 4, 20);
  start_job("a3", 4, 30);
  start_job("a4", 2, 40);
  start_job("a5", 2, 50);
  const Step steps[] = {
      {Step::kAsk, nullptr, 4, 50}, {Step::kAsk, nullptr, 3, 30}, {Step::kAsk, nullptr, 2, 20},
      {Step::kAsk, nullptr, 1, 10}, {Step::kAsk, nullptr, 1, 10}, {Step::kAsk, nullptr, 4, 50},
      {Step::kEnd, "a2", 0, 0},     {Step::kAsk, nullptr, 1, 0},  {Step::kAsk, nullptr, 2, 10},
      {Step::kStart, "a6", 4, 25},  {Step::kAsk, nullptr, 1, 10}, {Step::kAsk, nullptr, 2, 25},
      {Step::kAsk, nullptr, 3, 30}, {Step::kAsk, nullptr, 4, 50}, {Step::kAsk, nullptr, 3, 30},
      {Step::kAsk, nullptr, 1, 10}, {Step::kBad, "n2", 0, 0},     {Step::kAsk, nullptr, 4, -1},
      {Step::kAsk, nullptr, 3, 50}, {Step::kGood, "n2", 0, 0},    {Step::kAsk, nullptr, 4, 50},
      {Step::kAsk, nullptr, 3, 30},
  };
  int n = 0;
  for (const Step& st : steps) {
    n++;
    if (st.what == Step::kEnd) {
      // The list keeps naming it (unknown jobs are ignored): only the job table tells
      // that the state changed.
      ck_assert_int_eq(hived_finish(e, st.job), HIVED_OK);
    } else if (st.what == Step::kBad || st.what == Step::kGood) {
      ck_assert_int_eq(hived_set_node_health(e, st.job, st.what == Step::kGood), HIVED_OK);
    } else if (st.what == Step::kStart) {
      start_job(st.job, st.pods, st.value);
    } else {
      hived_member m;
      const std::string name = "q" + std::to_string(n);
      hived_job_request q = Request({name.c_str(), "A", 0, "V100", st.pods, 4, 0}, &m);
      int64_t start = 0;
      const hived_decision* d = nullptr;
      ck_assert_int_eq(
          hived_will_run_kept(e, &q, ends.data(), ends.size(), kept ? gen : 0, &start, &d),
          HIVED_OK);
      const std::string got = Text(d, start);
      const std::string want = CopyAnswer(e, q, ends);
      ck_assert_msg(got == want, "step %d (%d nodes):\n  will_run %s\n  copy     %s", n, st.pods,
                    got.c_str(), want.c_str());
      ck_assert_msg(start == st.value, "step %d (%d nodes): start %lld, want %lld", n, st.pods,
                    static_cast<long long>(start), static_cast<long long>(st.value));
    }
    ck_assert_msg(hived_check_invariants(e, err, sizeof err) == HIVED_OK, "step %d: %s", n, err);
  }
  // A shape answered just before, asked under a running job's name: refused, as a
  // submit of that name would be, not answered from what was kept.
  hived_member m;
  hived_job_request q = Request({"a1", "A", 0, "V100", 3, 4, 0}, &m);
  int64_t start = 0;
  const hived_decision* d = nullptr;
  ck_assert_int_eq(hived_will_run_kept(e, &q, ends.data(), ends.size(), kept ? gen : 0, &start, &d),
                   HIVED_EEXIST);
}
END_TEST

// A numbered list (hived_will_run_kept) read as backfill passes it: one list, the jobs
// ending by a horizon its first n_ends. The same number with fewer ends is another
// list; the same number and length is taken on trust, wherever the list lies (that is
// what makes a repeated question O(1), and lets hived_ends.c build an equal list again
// under its old number), and a new number is read again. A question without a number
// is its own trial: it neither reads nor disturbs what the numbered list keeps.
START_TEST(kept_list) {
  char err[256] = "";
  hived_engine* e = nullptr;
  ck_assert_msg(hived_engine_new(kSequenceConfig, &e, err, sizeof err) == HIVED_OK, "%s", err);
  std::unique_ptr<hived_engine, void (*)(hived_engine*)> guard(e, hived_engine_free);
  std::vector<hived_job_end> ends;
  const char* const names[] = {"a1", "a2", "a3", "a4"};
  for (int i = 0; i < 4; i++) {
    hived_member m;
    hived_job_request r = Request({names[i], "A", 0, "V100", 1, 4, 0}, &m);
    const hived_decision* d = nullptr;
    ck_assert_int_eq(hived_submit(e, &r, 0, &d), HIVED_OK);
    ck_assert_msg(d->outcome == HIVED_PLACED, "%s not placed: %s", names[i], d->reason);
    ends.push_back({names[i], 10 * (i + 1)});
  }
  auto ask = [&](int pods, size_t n, uint64_t gen) {
    hived_member m;
    hived_job_request q = Request({"q", "A", 0, "V100", pods, 4, 0}, &m);
    int64_t start = 0;
    const hived_decision* d = nullptr;
    ck_assert_int_eq(hived_will_run_kept(e, &q, ends.data(), n, gen, &start, &d), HIVED_OK);
    return start;
  };
  ck_assert_int_eq(ask(2, 4, 7), 20);
  // Backfill's window ends at 10: the same number, the first end only.
  ck_assert_int_eq(ask(2, 1, 7), -1);
  ck_assert_int_eq(ask(2, 4, 7), 20);
  // An equal list elsewhere under the same number: nothing more is kept for it.
  const size_t kept = hived_memory_bytes(e);
  std::vector<hived_job_end> copy(ends);
  ends.swap(copy);
  ck_assert_int_eq(ask(2, 4, 7), 20);
  ck_assert_uint_eq(hived_memory_bytes(e), kept);
  // Asked without a number about a list that differs: its own answer, and the
  // numbered list's answers stay as they were.
  std::vector<hived_job_end> other(ends);
  other[1].end = 15;
  ends.swap(other);
  ck_assert_int_eq(ask(2, 4, 0), 15);
  ends.swap(other);
  ck_assert_int_eq(ask(2, 4, 7), 20);
  ck_assert_uint_eq(hived_memory_bytes(e), kept);
  // Changed in place under the same number: answered from what the number stood for.
  ends[0].end = 25;
  ends[1].end = 30;
  ck_assert_int_eq(ask(2, 4, 7), 20);
  ck_assert_int_eq(ask(1, 4, 7), 10);
  // Under a new number it is read: the two earliest ends are now 25 and 30.
  ck_assert_int_eq(ask(2, 4, 8), 30);
  ck_assert_int_eq(ask(1, 4, 8), 25);
  // No number (0) vouches for nothing.
  ends[0].end = 5;
  ck_assert_int_eq(ask(1, 4, 0), 5);
  ck_assert_msg(hived_check_invariants(e, err, sizeof err) == HIVED_OK, "%s", err);
}
END_TEST

// A count-only job (split_max_pods) may start as smaller pods before any one node
// drains: WILL_RUN must ask a decision at the first end time where its VC has the
// GPUs anywhere, not only where a whole cell of the compact shape could be free.
START_TEST(split_count_only) {
  char err[256] = "";
  hived_engine* e = nullptr;
  ck_assert_msg(hived_engine_new(kSequenceConfig, &e, err, sizeof err) == HIVED_OK, "%s", err);
  std::unique_ptr<hived_engine, void (*)(hived_engine*)> guard(e, hived_engine_free);
  std::vector<hived_job_end> ends;
  // Two 2-GPU jobs per node (the buddy allocator packs them); on n0 and n1 one of the
  // two ends at 10 and 20, the other later.
  const struct {
    const char* job;
    int64_t end;
  } jobs[] = {{"j1", 10},  {"j2", 30},  {"j3", 20},  {"j4", 40},
              {"j5", 100}, {"j6", 100}, {"j7", 100}, {"j8", 100}};
  for (const auto& j : jobs) {
    hived_member m;
    hived_job_request r = Request({j.job, "A", 0, "V100", 1, 2, j.end}, &m);
    const hived_decision* d = nullptr;
    ck_assert_int_eq(hived_submit(e, &r, 0, &d), HIVED_OK);
    ck_assert_msg(d->outcome == HIVED_PLACED, "%s not placed: %s", j.job, d->reason);
    ends.push_back({j.job, j.end});
  }
  for (int split : {0, 4}) {
    hived_member m;
    hived_job_request q = Request({"q", "A", 0, "V100", 1, 4, 0}, &m);
    q.split_max_pods = split;
    int64_t start = 0;
    const hived_decision* d = nullptr;
    ck_assert_int_eq(hived_will_run(e, &q, ends.data(), ends.size(), &start, &d), HIVED_OK);
    const std::string got = Text(d, start);
    const std::string want = CopyAnswer(e, q, ends);
    ck_assert_msg(got == want, "split %d:\n  will_run %s\n  copy     %s", split, got.c_str(),
                  want.c_str());
    // Compact: when j2 ends, n0 is whole; split: when j3 ends, n0 and n1 have 2 each.
    ck_assert_msg(start == (split ? 20 : 30), "split %d: start %lld", split,
                  static_cast<long long>(start));
    ck_assert_msg(hived_check_invariants(e, err, sizeof err) == HIVED_OK, "%s", err);
  }
}
END_TEST

// hived_memory_bytes counts what WILL_RUN keeps between calls: the order of the
// caller's list (not the list: it is read where the caller keeps it) and every answer
// the memo holds, a gang's pods included (hived-bench reports the figure after its
// questions; doc/bench.md), until a job starts or ends.
START_TEST(memory_counts_memo) {
  std::string config = R"({"physicalCluster": {"cellTypes": {"NODE": {"childCellType": "V100",
    "childCellNumber": 8, "isNodeLevel": true}}, "physicalCells": [)";
  const int kNodes = 16;
  for (int n = 0; n < kNodes; n++)
    config += std::string(n ? "," : "") + R"({"cellType": "NODE", "cellAddress": "n)" +
              std::to_string(n) + "\"}";
  config += R"(]}, "virtualClusters": {"A": {"virtualCells": [{"cellType": "NODE",
    "cellNumber": 16}]}}})";
  char err[256] = "";
  hived_engine* e = nullptr;
  ck_assert_msg(hived_engine_new(config.c_str(), &e, err, sizeof err) == HIVED_OK, "%s", err);
  std::unique_ptr<hived_engine, void (*)(hived_engine*)> guard(e, hived_engine_free);
  const size_t kGone = 1000;
  std::vector<std::string> names;
  names.reserve(kNodes + kGone);  // ends point into them
  for (int n = 0; n < kNodes; n++) names.push_back("r" + std::to_string(n));
  std::vector<hived_job_end> ends;
  for (int n = 0; n < kNodes; n++) {
    hived_member m;
    hived_job_request r = Request({names[n].c_str(), "A", 0, nullptr, 1, 8, 0}, &m);
    const hived_decision* d = nullptr;
    ck_assert_int_eq(hived_submit(e, &r, 0, &d), HIVED_OK);
    ck_assert_msg(d->outcome == HIVED_PLACED, "%s not placed: %s", names[n].c_str(), d->reason);
    ends.push_back({names[n].c_str(), 10 * (n + 1)});
  }
  // Ends of jobs the engine does not hold (ended since the list was built): the
  // trial skips them, but they are part of the list, as backfill's lists are.
  for (size_t n = 0; n < kGone; n++) names.push_back("gone" + std::to_string(n));
  for (size_t n = 0; n < kGone; n++) ends.push_back({names[kNodes + n].c_str(), 1000000});
  auto ask = [&](const char* job, int pods, int gpus, int64_t want) {
    hived_member m;
    hived_job_request q = Request({job, "A", 0, nullptr, pods, gpus, 0}, &m);
    int64_t start = 0;
    const hived_decision* d = nullptr;
    const size_t before = hived_memory_bytes(e);
    ck_assert_int_eq(hived_will_run_kept(e, &q, ends.data(), ends.size(), 1, &start, &d), HIVED_OK);
    ck_assert_int_eq(start, want);
    ck_assert_uint_eq(d->n_pods, static_cast<size_t>(pods));
    return hived_memory_bytes(e) - before;
  };
  // The first question keeps the list's order, an end time and a place per end, what
  // its trial read of each job (VC, chain, class: 8 bytes), room on the job table's
  // free list for every job a trial may end (the 16 held), and its answer (a pod of
  // one GPU: well under 4 KiB); not the list, which the caller keeps (a copy of the
  // names cost 40 bytes an end more, the API's 16).
  const size_t per_end = sizeof(size_t) + sizeof(int64_t) + 8;
  const size_t first = ask("q1", 1, 1, 10);
  ck_assert_uint_ge(first, ends.size() * per_end);
  ck_assert_msg(first < ends.size() * per_end + 4096, "%zu bytes kept for %zu ends", first,
                ends.size());
  // A 16-pod gang's answer holds 16 pods of 8 GPU indices: more than one pod's does.
  const size_t gang = ask("q16", kNodes, 8, 10 * kNodes);
  ck_assert_uint_ge(gang, kNodes * 8 * sizeof(int32_t));
  // Asked again: answered from the memo, which keeps nothing more.
  ck_assert_uint_eq(ask("q16b", kNodes, 8, 10 * kNodes), 0);
  // A job ends: the answers and the order are void, and go (the status reports this
  // figure; test_faults compares it after two floods).
  const size_t kept = hived_memory_bytes(e);
  ck_assert_int_eq(hived_finish(e, names[0].c_str()), HIVED_OK);
  ck_assert_msg(hived_memory_bytes(e) + ends.size() * per_end + gang <= kept,
                "%zu bytes before the end, %zu after", kept, hived_memory_bytes(e));
}
END_TEST

// A job array's lazy and plain twins: the asked job's lazy flag is recorded on the job
// and read by no decision, so the twin is answered from the memo (no second trial,
// no second answer kept: hived_memory_bytes stays the same) and the answer is still
// the copy's, lazy asked first or second.
START_TEST(lazy_twin) {
  char err[256] = "";
  hived_engine* e = nullptr;
  ck_assert_msg(hived_engine_new(kSequenceConfig, &e, err, sizeof err) == HIVED_OK, "%s", err);
  std::unique_ptr<hived_engine, void (*)(hived_engine*)> guard(e, hived_engine_free);
  std::vector<hived_job_end> ends;
  const char* const names[] = {"a1", "a2", "a3", "a4"};
  for (int i = 0; i < 4; i++) {
    hived_member m;
    hived_job_request r = Request({names[i], "A", 0, "V100", 1, 4, 0}, &m);
    r.lazy_preemption = i % 2;
    const hived_decision* d = nullptr;
    ck_assert_int_eq(hived_submit(e, &r, 0, &d), HIVED_OK);
    ck_assert_msg(d->outcome == HIVED_PLACED, "%s not placed: %s", names[i], d->reason);
    ends.push_back({names[i], 10 * (i + 1)});
  }
  for (int pods = 1; pods <= 2; pods++) {
    size_t kept = 0;
    for (int lazy : {pods == 1 ? 0 : 1, pods == 1 ? 1 : 0}) {
      hived_member m;
      hived_job_request q = Request({"q", "A", 0, "V100", pods, 4, 0}, &m);
      q.lazy_preemption = lazy;
      int64_t start = 0;
      const hived_decision* d = nullptr;
      ck_assert_int_eq(hived_will_run_kept(e, &q, ends.data(), ends.size(), 1, &start, &d),
                       HIVED_OK);
      const std::string got = Text(d, start);
      const std::string want = CopyAnswer(e, q, ends);
      ck_assert_msg(got == want, "%d nodes, lazy %d:\n  will_run %s\n  copy     %s", pods, lazy,
                    got.c_str(), want.c_str());
      ck_assert_int_eq(start, 10 * pods);
      if (kept)
        ck_assert_msg(hived_memory_bytes(e) == kept, "%d nodes: the twin was kept apart (%zu, %zu)",
                      pods, hived_memory_bytes(e), kept);
      kept = hived_memory_bytes(e);
    }
  }
  ck_assert_msg(hived_check_invariants(e, err, sizeof err) == HIVED_OK, "%s", err);
}
END_TEST

// Another VC's jobs end in a trial only when the last of them in one of its cells
// does (src/core/will_run.cpp, ParkedEnds): that cell is then given back to the
// buddy allocator, and a job allowed on that node alone can bind it. B's node cell
// holds two jobs ending at 10 and 20; A's job allowed only on B's node starts at 20
// (not at 10, when half of the node is idle but still B's; not never, as it would if
// B's jobs were held back for good), and allowed anywhere at 0 on the other node. A
// job of B's pinned cell never gives it back: a job allowed on that node never fits.
START_TEST(other_vc_cell) {
  const char config[] = R"({"physicalCluster": {"cellTypes": {"NODE": {"childCellType":
    "V100", "childCellNumber": 4, "isNodeLevel": true}}, "physicalCells": [
    {"cellType": "NODE", "cellAddress": "n0"}, {"cellType": "NODE", "cellAddress": "n1"},
    {"cellType": "NODE", "cellAddress": "n2", "pinnedCellId": "p2"}]},
    "virtualClusters": {"A": {"virtualCells": [{"cellType": "NODE", "cellNumber": 1}]},
    "B": {"virtualCells": [{"cellType": "NODE", "cellNumber": 1}],
          "pinnedCells": [{"pinnedCellId": "p2"}]}}})";
  char err[256] = "";
  hived_engine* e = nullptr;
  ck_assert_msg(hived_engine_new(config, &e, err, sizeof err) == HIVED_OK, "%s", err);
  std::unique_ptr<hived_engine, void (*)(hived_engine*)> guard(e, hived_engine_free);
  std::vector<hived_job_end> ends;
  const char* b_node = nullptr;
  for (const auto& [job, end] : {std::pair<const char*, int64_t>{"b1", 10}, {"b2", 20}}) {
    hived_member m;
    hived_job_request r = Request({job, "B", 0, "V100", 1, 2, 0}, &m);
    const hived_decision* d = nullptr;
    ck_assert_int_eq(hived_submit(e, &r, 0, &d), HIVED_OK);
    ck_assert_msg(d->outcome == HIVED_PLACED, "%s not placed: %s", job, d->reason);
    ck_assert_msg(!b_node || !strcmp(b_node, d->pods[0].node_name), "B's jobs on two nodes");
    b_node = hived_node_name(e, static_cast<size_t>(d->pods[0].node));
    ends.push_back({job, end});
  }
  {
    hived_member m;
    hived_job_request r = Request({"bp", "B", 0, "V100", 1, 1, 0}, &m);
    r.pinned_cell_id = "p2";
    const hived_decision* d = nullptr;
    ck_assert_int_eq(hived_submit(e, &r, 0, &d), HIVED_OK);
    ck_assert_msg(d->outcome == HIVED_PLACED, "bp not placed: %s", d->reason);
    ends.push_back({"bp", 30});
  }
  auto ask = [&](const char* only, int64_t want) {
    std::vector<uint8_t> allowed(hived_node_count(e), only ? 0 : 1);
    if (only) allowed[static_cast<size_t>(hived_node_index(e, only))] = 1;
    hived_member m;
    hived_job_request q = Request({"q", "A", 0, "V100", 1, 4, 0}, &m);
    q.allowed_nodes = allowed.data();
    int64_t start = 0;
    const hived_decision* d = nullptr;
    ck_assert_int_eq(hived_will_run(e, &q, ends.data(), ends.size(), &start, &d), HIVED_OK);
    const std::string got = Text(d, start);
    const std::string want_text = CopyAnswer(e, q, ends);
    ck_assert_msg(got == want_text, "allowed %s:\n  will_run %s\n  copy     %s",
                  only ? only : "all", got.c_str(), want_text.c_str());
    ck_assert_msg(start == want, "allowed %s: start %lld, want %lld", only ? only : "all",
                  static_cast<long long>(start), static_cast<long long>(want));
    ck_assert_msg(hived_check_invariants(e, err, sizeof err) == HIVED_OK, "%s", err);
  };
  ask(b_node, 20);
  ask(nullptr, 0);
  ask("n2", -1);
}
END_TEST

// hived_will_run_last says what the trial ended, by class, and how many dry runs it
// asked: A's 2-node gang waits for A's own job (end 10); B's two jobs in B's only
// node (ends 5 and 6) and an opportunistic job (end 3) end before it in the same
// chain. No end before 10 frees a cell of A's, so one dry run is asked before the
// ends and one at 10. With every node allowed, A's guarantee answers: only A's job
// ends. The same question again, of the same numbered list, comes from the memo. Kept
// off n2, the job needs B's node: the trial ends every job before 10, by class.
START_TEST(last_counts) {
  const char config[] = R"({"physicalCluster": {"cellTypes": {"NODE": {"childCellType":
    "V100", "childCellNumber": 4, "isNodeLevel": true}}, "physicalCells": [
    {"cellType": "NODE", "cellAddress": "n0"}, {"cellType": "NODE", "cellAddress": "n1"},
    {"cellType": "NODE", "cellAddress": "n2"}]},
    "virtualClusters": {"A": {"virtualCells": [{"cellType": "NODE", "cellNumber": 2}]},
    "B": {"virtualCells": [{"cellType": "NODE", "cellNumber": 1}]}}})";
  char err[256] = "";
  hived_engine* e = nullptr;
  ck_assert_msg(hived_engine_new(config, &e, err, sizeof err) == HIVED_OK, "%s", err);
  std::unique_ptr<hived_engine, void (*)(hived_engine*)> guard(e, hived_engine_free);
  hived_will_run_counts c;
  hived_will_run_last(e, &c);
  ck_assert_int_eq(c.decisions + c.ended_own + c.ended_guaranteed + c.ended_opportunistic, 0);
  std::vector<hived_job_end> ends;
  for (const Ask& a : {Ask{"a1", "A", 0, "V100", 1, 4, 10}, Ask{"b1", "B", 0, "V100", 1, 2, 5},
                       Ask{"b2", "B", 0, "V100", 1, 2, 6}, Ask{"o1", "B", -1, "V100", 1, 1, 3}}) {
    hived_member m;
    hived_job_request r = Request(a, &m);
    const hived_decision* d = nullptr;
    ck_assert_int_eq(hived_submit(e, &r, 0, &d), HIVED_OK);
    ck_assert_msg(d->outcome == HIVED_PLACED, "%s not placed: %s", a.job, d->reason);
    ends.push_back({a.job, a.end});
  }
  hived_member m;
  hived_job_request q = Request({"q", "A", 0, "V100", 2, 4, 0}, &m);
  int64_t start = 0;
  const hived_decision* d = nullptr;
  ck_assert_int_eq(hived_will_run_kept(e, &q, ends.data(), ends.size(), 7, &start, &d), HIVED_OK);
  ck_assert_msg(d->outcome == HIVED_PLACED && start == 10, "%s", Text(d, start).c_str());
  hived_will_run_last(e, &c);
  ck_assert_int_eq(c.from_memo, 0);
  ck_assert_int_eq(c.by_guarantee, 1);
  ck_assert_int_eq(c.ended_own, 1);
  ck_assert_int_eq(c.ended_guaranteed, 0);
  ck_assert_int_eq(c.ended_opportunistic, 0);
  ck_assert_int_eq(c.decisions, 2);
  ck_assert_int_eq(hived_will_run_kept(e, &q, ends.data(), ends.size(), 7, &start, &d), HIVED_OK);
  ck_assert_int_eq(start, 10);
  hived_will_run_last(e, &c);
  ck_assert_int_eq(c.from_memo, 1);
  ck_assert_int_eq(c.by_guarantee, 1);
  ck_assert_int_eq(c.decisions + c.ended_own + c.ended_guaranteed + c.ended_opportunistic, 0);
  std::vector<uint8_t> allowed(hived_node_count(e), 1);
  allowed[static_cast<size_t>(hived_node_index(e, "n2"))] = 0;
  q.allowed_nodes = allowed.data();
  ck_assert_int_eq(hived_will_run_kept(e, &q, ends.data(), ends.size(), 7, &start, &d), HIVED_OK);
  ck_assert_msg(d->outcome == HIVED_PLACED && start == 10, "%s", Text(d, start).c_str());
  const std::string got = Text(d, start), copy = CopyAnswer(e, q, ends);
  ck_assert_msg(got == copy, "will_run %s, copy %s", got.c_str(), copy.c_str());
  hived_will_run_last(e, &c);
  ck_assert_int_eq(c.from_memo, 0);
  ck_assert_int_eq(c.by_guarantee, 0);
  ck_assert_int_eq(c.ended_own, 1);
  ck_assert_int_eq(c.ended_guaranteed, 2);
  ck_assert_int_eq(c.ended_opportunistic, 1);
  ck_assert_int_eq(c.decisions, 2);
  ck_assert_msg(hived_check_invariants(e, err, sizeof err) == HIVED_OK, "%s", err);
}
END_TEST

// Four 4-GPU nodes: A owns two node cells, each half held by a1 (ends at 10) and a3
// (20), a2 having ended; B's b1 (5) holds B's cell; o1 (opportunistic, 3) half of the
// only node no VC has bound; C's cell is unbound. *ends gets the end times.
hived_engine* HalfHeldCluster(std::vector<hived_job_end>* ends, std::string* free_node,
                              std::string* b_node) {
  const char config[] = R"({"physicalCluster": {"cellTypes": {"NODE": {"childCellType":
    "V100", "childCellNumber": 4, "isNodeLevel": true}}, "physicalCells": [
    {"cellType": "NODE", "cellAddress": "n0"}, {"cellType": "NODE", "cellAddress": "n1"},
    {"cellType": "NODE", "cellAddress": "n2"}, {"cellType": "NODE", "cellAddress": "n3"}]},
    "virtualClusters": {"A": {"virtualCells": [{"cellType": "NODE", "cellNumber": 2}]},
    "B": {"virtualCells": [{"cellType": "NODE", "cellNumber": 1}]},
    "C": {"virtualCells": [{"cellType": "NODE", "cellNumber": 1}]}}})";
  char err[256] = "";
  hived_engine* e = nullptr;
  ck_assert_msg(hived_engine_new(config, &e, err, sizeof err) == HIVED_OK, "%s", err);
  for (const Ask& a : {Ask{"a1", "A", 0, "V100", 1, 2, 10}, Ask{"a2", "A", 0, "V100", 1, 2, 0},
                       Ask{"a3", "A", 0, "V100", 1, 2, 20}, Ask{"b1", "B", 0, "V100", 1, 4, 5},
                       Ask{"o1", nullptr, -1, "V100", 1, 2, 3}}) {
    hived_member m;
    hived_job_request r = Request(a, &m);
    const hived_decision* d = nullptr;
    ck_assert_int_eq(hived_submit(e, &r, 0, &d), HIVED_OK);
    ck_assert_msg(d->outcome == HIVED_PLACED, "%s not placed: %s", a.job, d->reason);
    if (a.end) ends->push_back({a.job, a.end});
    if (a.priority < 0) *free_node = d->pods[0].node_name;
    if (a.vc && std::string(a.vc) == "B") *b_node = d->pods[0].node_name;
  }
  ck_assert_int_eq(hived_finish(e, "a2"), HIVED_OK);  // a3 went to A's other cell
  return e;
}

// A's guarantee answers: A's two node cells are each half held (a1, a3), B's job and
// an opportunistic run end before a1 does. Only a1 ends in the trial; the start is
// the copy's, and the pods it names can be taken at that start on the copy (its
// victims gone, the job recorded there stays guaranteed, invariants hold). C's one
// cell is unbound: with the only free node (o1's) down, the healthy free cells no
// longer cover it, nothing is promised, and the trial ends everything again.
START_TEST(guarantee_answers) {
  char err[256] = "";
  std::vector<hived_job_end> ends;
  std::string free_node;  // where o1 runs: the node no VC has bound
  std::string b_node;     // B's, bound to B's cell
  hived_engine* e = HalfHeldCluster(&ends, &free_node, &b_node);
  std::unique_ptr<hived_engine, void (*)(hived_engine*)> guard(e, hived_engine_free);
  hived_member m;
  hived_job_request q = Request({"q", "A", 0, "V100", 1, 4, 0}, &m);
  int64_t start = 0;
  const hived_decision* d = nullptr;
  ck_assert_int_eq(hived_will_run(e, &q, nullptr, 0, &start, &d), HIVED_OK);
  ck_assert_msg(d->wait_kind == HIVED_WAIT_NO_CELL, "waits for shape: %s", d->reason);
  ck_assert_int_eq(hived_will_run(e, &q, ends.data(), ends.size(), &start, &d), HIVED_OK);
  ck_assert_msg(d->outcome == HIVED_PLACED && start == 10, "%s", Text(d, start).c_str());
  hived_will_run_counts c;
  hived_will_run_last(e, &c);
  ck_assert_int_eq(c.by_guarantee, 1);
  ck_assert_int_eq(c.ended_own, 1);
  ck_assert_int_eq(c.ended_guaranteed + c.ended_opportunistic, 0);
  {
    hived_engine* copy = nullptr;
    ck_assert_int_eq(hived_engine_clone(e, &copy), HIVED_OK);
    std::unique_ptr<hived_engine, void (*)(hived_engine*)> cguard(copy, hived_engine_free);
    for (const hived_job_end& x : ends)
      if (x.end <= start) ck_assert_int_eq(hived_finish(copy, x.job), HIVED_OK);
    for (size_t v = 0; v < d->n_preempted; v++) (void)hived_finish(copy, d->preempted[v]);
    int demoted = 1;
    ck_assert_int_eq(hived_add_running(copy, &q, d->pods, d->n_pods, &demoted), HIVED_OK);
    ck_assert_str_eq(hived_last_error(copy), "");
    ck_assert_int_eq(demoted, 0);
    ck_assert_msg(hived_check_invariants(copy, err, sizeof err) == HIVED_OK, "%s", err);
  }
  ck_assert_msg(hived_check_invariants(e, err, sizeof err) == HIVED_OK, "%s", err);
  // B's node down dooms nothing (it is bound): the guarantee still answers, with the
  // copy's start.
  ck_assert_int_eq(hived_set_node_health(e, b_node.c_str(), 0), HIVED_OK);
  ck_assert_int_eq(hived_will_run(e, &q, ends.data(), ends.size(), &start, &d), HIVED_OK);
  hived_will_run_last(e, &c);
  ck_assert_int_eq(c.by_guarantee, 1);
  const std::string with_b_down = Text(d, start), copy_b_down = CopyAnswer(e, q, ends);
  ck_assert_msg(with_b_down.substr(0, with_b_down.find(" pod ")) ==
                    copy_b_down.substr(0, copy_b_down.find(" pod ")),
                "will_run %s, copy %s", with_b_down.c_str(), copy_b_down.c_str());
  // Nor does leaving it out of the allowed nodes, as Slurm's backfill leaves down
  // nodes out; leaving out a healthy node does (the job may not go everywhere).
  std::vector<uint8_t> allowed(hived_node_count(e), 1);
  allowed[static_cast<size_t>(hived_node_index(e, b_node.c_str()))] = 0;
  q.allowed_nodes = allowed.data();
  ck_assert_int_eq(hived_will_run(e, &q, ends.data(), ends.size(), &start, &d), HIVED_OK);
  hived_will_run_last(e, &c);
  ck_assert_int_eq(c.by_guarantee, 1);
  ck_assert_int_eq(start, 10);
  ck_assert_int_eq(hived_set_node_health(e, b_node.c_str(), 1), HIVED_OK);
  ck_assert_int_eq(hived_will_run(e, &q, ends.data(), ends.size(), &start, &d), HIVED_OK);
  hived_will_run_last(e, &c);
  ck_assert_int_eq(c.by_guarantee, 0);
  q.allowed_nodes = nullptr;
  ck_assert_int_eq(hived_set_node_health(e, free_node.c_str(), 0), HIVED_OK);
  ck_assert_int_eq(hived_will_run(e, &q, ends.data(), ends.size(), &start, &d), HIVED_OK);
  const std::string got = Text(d, start), copy = CopyAnswer(e, q, ends);
  ck_assert_msg(got == copy, "will_run %s, copy %s", got.c_str(), copy.c_str());
  hived_will_run_last(e, &c);
  ck_assert_int_eq(c.by_guarantee, 0);
  ck_assert_int_ge(c.ended_guaranteed + c.ended_opportunistic, 1);
  ck_assert_msg(hived_check_invariants(e, err, sizeof err) == HIVED_OK, "%s", err);
}
END_TEST

// A job that may borrow idle GPUs (borrow_idle_cells) starts when a node outside its
// VC's cells becomes idle, before its VC's own jobs end: the guarantee does not answer
// for it, and the trial gives the copy's start, as borrowed.
START_TEST(borrow_answers) {
  char err[256] = "";
  std::vector<hived_job_end> ends;
  std::string free_node, b_node;
  hived_engine* e = HalfHeldCluster(&ends, &free_node, &b_node);
  std::unique_ptr<hived_engine, void (*)(hived_engine*)> guard(e, hived_engine_free);
  hived_member m;
  hived_job_request q = Request({"q", "A", 0, "V100", 1, 4, 0}, &m);
  q.borrow_idle_cells = 1;
  int64_t start = 0;
  const hived_decision* d = nullptr;
  // Now: o1 holds half of the only node no VC has bound, so there is none to borrow.
  ck_assert_int_eq(hived_will_run(e, &q, nullptr, 0, &start, &d), HIVED_OK);
  ck_assert_msg(d->outcome == HIVED_WAITING && d->wait_kind == HIVED_WAIT_NO_CELL, "%s", d->reason);
  ck_assert_msg(strstr(d->reason, "to borrow") != nullptr, "%s", d->reason);
  ck_assert_int_eq(hived_will_run(e, &q, ends.data(), ends.size(), &start, &d), HIVED_OK);
  const std::string got = Text(d, start), copy = CopyAnswer(e, q, ends);
  ck_assert_msg(got == copy, "will_run %s, copy %s", got.c_str(), copy.c_str());
  ck_assert_msg(d->outcome == HIVED_PLACED && start == 3 && d->borrowed == 1, "%s borrowed %d",
                got.c_str(), d->borrowed);
  hived_will_run_counts c;
  hived_will_run_last(e, &c);
  ck_assert_int_eq(c.by_guarantee, 0);
  // Without it, the VC's own cells give the start (a1 ends at 10), by the guarantee.
  q.borrow_idle_cells = 0;
  ck_assert_int_eq(hived_will_run(e, &q, ends.data(), ends.size(), &start, &d), HIVED_OK);
  ck_assert_msg(d->outcome == HIVED_PLACED && start == 10 && d->borrowed == 0, "%s",
                Text(d, start).c_str());
  hived_will_run_last(e, &c);
  ck_assert_int_eq(c.by_guarantee, 1);
  ck_assert_msg(hived_check_invariants(e, err, sizeof err) == HIVED_OK, "%s", err);
}
END_TEST

// Many jobs end at once: 24 nodes, two 2-GPU jobs on each, ending one by one; the
// asked gang of 24 whole nodes fits only when all 48 have ended, so the trial ends and
// puts back 48 jobs, each node and unit moving in the indexes twice each way. A move
// from a wrong bucket shows in the node and unit index invariants; the answer is the
// copy's.
START_TEST(many_ends) {
  std::string conf = R"({"physicalCluster": {
  "cellTypes": {"NODE": {"childCellType": "V100", "childCellNumber": 4, "isNodeLevel": true}},
  "physicalCells": [)";
  for (int n = 0; n < 24; n++)
    conf += std::string(n ? "," : "") + R"({"cellType": "NODE", "cellAddress": "n)" +
            std::to_string(n) + R"("})";
  conf +=
      R"(]}, "virtualClusters": {"A": {"virtualCells": [{"cellType": "NODE", "cellNumber": 24}]}}})";
  char err[256] = "";
  hived_engine* e = nullptr;
  ck_assert_msg(hived_engine_new(conf.c_str(), &e, err, sizeof err) == HIVED_OK, "%s", err);
  std::unique_ptr<hived_engine, void (*)(hived_engine*)> guard(e, hived_engine_free);
  std::vector<std::string> names;
  for (int i = 0; i < 48; i++) names.push_back("j" + std::to_string(i));
  std::vector<hived_job_end> ends;
  for (int i = 0; i < 48; i++) {
    hived_member m;
    hived_job_request r = Request({names[i].c_str(), "A", 0, "V100", 1, 2, 0}, &m);
    const hived_decision* d = nullptr;
    ck_assert_int_eq(hived_submit(e, &r, 0, &d), HIVED_OK);
    ck_assert_msg(d->outcome == HIVED_PLACED, "%s not placed: %s", names[i].c_str(), d->reason);
    ends.push_back({names[i].c_str(), i + 1});
  }
  for (int pods : {24, 12}) {
    hived_member m;
    hived_job_request q = Request({"q", "A", 0, "V100", pods, 4, 0}, &m);
    int64_t start = 0;
    const hived_decision* d = nullptr;
    ck_assert_int_eq(hived_will_run(e, &q, ends.data(), ends.size(), &start, &d), HIVED_OK);
    const std::string got = Text(d, start);
    const std::string want = CopyAnswer(e, q, ends);
    ck_assert_msg(got == want, "%d nodes:\n  will_run %s\n  copy     %s", pods, got.c_str(),
                  want.c_str());
    ck_assert_msg(start > 0, "%d nodes never start", pods);
    ck_assert_msg(hived_check_invariants(e, err, sizeof err) == HIVED_OK, "%d nodes: %s", pods,
                  err);
  }
}
END_TEST

}  // namespace

int main(void) {
  Suite* s = suite_create("will_run");
  TCase* tc = tcase_create("will_run");
  tcase_add_loop_test(tc, rows, 0, sizeof kRows / sizeof kRows[0]);
  tcase_add_loop_test(tc, sequence, 0, 2);
  tcase_add_test(tc, kept_list);
  tcase_add_test(tc, split_count_only);
  tcase_add_test(tc, memory_counts_memo);
  tcase_add_test(tc, lazy_twin);
  tcase_add_test(tc, many_ends);
  tcase_add_test(tc, other_vc_cell);
  tcase_add_test(tc, last_counts);
  tcase_add_test(tc, guarantee_answers);
  tcase_add_test(tc, borrow_answers);
  suite_add_tcase(s, tc);
  return check_run(s, CK_NORMAL, CK_FORK_GETENV);
}
