// SPDX-License-Identifier: GPL-2.0-or-later
// One error style through the C API (src/api/guard.h): bad input names the field,
// an exception inside libhived is HIVED_EINTERNAL (or HIVED_ENOMEM for bad_alloc)
// with a message naming the call, on both kinds of message (hived_last_error and
// errbuf), and the engine stays usable afterwards. Failures are injected by this
// program's own operator new, which libhived's allocations go through.
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

// After the C++ headers: check.h defines a fail() macro.
#include <check.h>

#include "../check_run.h"
#include "hived.h"

namespace {

enum class Inject { kNone, kBadAlloc, kOther };
Inject g_inject = Inject::kNone;

// The next allocation throws, once (the handler's own allocations must succeed).
void FailNextAllocation(Inject how) { g_inject = how; }

const char kConfig[] = R"({"physicalCluster": {
  "cellTypes": {"NODE": {"childCellType": "V100", "childCellNumber": 4, "isNodeLevel": true}},
  "physicalCells": [{"cellType": "NODE", "cellAddress": "n0"}]},
 "virtualClusters": {"A": {"virtualCells": [{"cellType": "NODE", "cellNumber": 1}]}}})";

hived_engine* NewEngine() {
  hived_engine* e = nullptr;
  char err[512] = "";
  ck_assert_int_eq(hived_engine_new(kConfig, &e, err, sizeof err), HIVED_OK);
  return e;
}

hived_job_request Request(const char* job, const hived_member* m) {
  hived_job_request r{};
  r.job = job;
  r.vc = "A";
  r.priority = 0;
  r.members = m;
  r.n_members = 1;
  return r;
}

// Submits j1 (2 GPUs), the first allocation inside failing as `how` (kNone: none).
hived_rc SubmitJ1(hived_engine* e, Inject how) {
  const hived_member m = {1, 2, 0};
  hived_job_request r = Request("j1", &m);
  const hived_decision* d = nullptr;
  FailNextAllocation(how);
  const hived_rc rc = hived_submit(e, &r, 0, &d);
  ck_assert_msg((rc == HIVED_OK) == (d != nullptr), "decision %p with rc %d", (const void*)d, rc);
  if (d) ck_assert_int_eq(d->outcome, HIVED_PLACED);
  return rc;
}

}  // namespace

void* operator new(size_t n) {
  if (g_inject != Inject::kNone) {
    const Inject how = g_inject;
    g_inject = Inject::kNone;
    if (how == Inject::kBadAlloc) throw std::bad_alloc();
    throw std::logic_error("injected");
  }
  if (void* p = malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
// Every other form too, so that no allocation pairs this malloc with another free
// (libstdc++'s temporary buffers use the nothrow form; ASan checks the pairing).
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  try {
    return ::operator new(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](size_t n) { return ::operator new(n); }
void* operator new[](size_t n, const std::nothrow_t& t) noexcept { return ::operator new(n, t); }
void operator delete(void* p) noexcept { free(p); }
void operator delete(void* p, size_t) noexcept { free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { free(p); }
void operator delete[](void* p) noexcept { free(p); }
void operator delete[](void* p, size_t) noexcept { free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { free(p); }

START_TEST(invalid_input_names_the_field) {
  hived_engine* e = NewEngine();
  hived_job_request r = Request("j1", nullptr);
  const hived_decision* d = nullptr;
  ck_assert_int_eq(hived_submit(e, &r, 0, &d), HIVED_EINVAL);
  ck_assert_str_eq(hived_last_error(e), "members: NULL");
  ck_assert_ptr_null(d);
  ck_assert_int_eq(hived_finish(e, nullptr), HIVED_EINVAL);
  ck_assert_str_eq(hived_last_error(e), "job: NULL");
  ck_assert_int_eq(hived_finish(e, "nope"), HIVED_ENOENT);
  ck_assert_msg(strstr(hived_last_error(e), "nope"), "%s", hived_last_error(e));
  ck_assert_int_eq(hived_set_node_health(e, "n9", 0), HIVED_ENOENT);
  ck_assert_msg(strstr(hived_last_error(e), "n9"), "%s", hived_last_error(e));
  char* json = nullptr;
  ck_assert_int_eq(hived_inspect(e, nullptr, nullptr), HIVED_EINVAL);
  ck_assert_str_eq(hived_last_error(e), "json: NULL");
  ck_assert_int_eq(hived_inspect_job(e, nullptr, &json), HIVED_EINVAL);
  ck_assert_str_eq(hived_last_error(e), "job: NULL");
  // A call that succeeds after a failure leaves no stale message.
  const hived_member m = {1, 2, 0};
  r = Request("j1", &m);
  ck_assert_int_eq(hived_submit(e, &r, 0, &d), HIVED_OK);
  ck_assert_str_eq(hived_last_error(e), "");
  hived_engine_free(e);
}
END_TEST

START_TEST(config_errors_name_the_key) {
  hived_engine* e = nullptr;
  char err[512] = "";
  ck_assert_int_eq(
      hived_engine_new(R"({"physicalCluster": {"cellTypes": 3}})", &e, err, sizeof err),
      HIVED_ECONFIG);
  ck_assert_ptr_null(e);
  ck_assert_msg(strstr(err, "cellTypes"), "%s", err);
  e = NewEngine();
  ck_assert_int_eq(hived_reconfigure(e, "{\"virtualClusters\": 1}", nullptr), HIVED_ECONFIG);
  ck_assert_msg(strstr(hived_last_error(e), "virtualClusters"), "%s", hived_last_error(e));
  hived_settings* s = nullptr;
  err[0] = '\0';
  ck_assert_int_eq(hived_settings_load(R"({"slurm": {"priorityScale": 0}})", &s, err, sizeof err),
                   HIVED_ECONFIG);
  ck_assert_msg(strstr(err, "priorityScale"), "%s", err);
  err[0] = '\0';
  ck_assert_int_eq(hived_settings_load(nullptr, &s, err, sizeof err), HIVED_EINVAL);
  ck_assert_str_eq(err, "config: NULL");
  hived_engine_free(e);
}
END_TEST

START_TEST(internal_error_code_and_message) {
  ck_assert_str_eq(hived_rc_str(HIVED_EINTERNAL), "internal error");
  hived_engine* e = NewEngine();
  ck_assert_int_eq(SubmitJ1(e, Inject::kOther), HIVED_EINTERNAL);
  ck_assert_str_eq(hived_last_error(e), "internal error in hived_submit: injected");
  // The engine still works, and the failed call left nothing behind.
  ck_assert_int_eq(SubmitJ1(e, Inject::kNone), HIVED_OK);
  char buf[256] = "";
  ck_assert_int_eq(hived_check_invariants(e, buf, sizeof buf), HIVED_OK);
  // Calls without an engine say it in errbuf.
  hived_engine* f = nullptr;
  FailNextAllocation(Inject::kOther);
  ck_assert_int_eq(hived_engine_new(kConfig, &f, buf, sizeof buf), HIVED_EINTERNAL);
  ck_assert_ptr_null(f);
  ck_assert_str_eq(buf, "internal error in hived_engine_new: injected");
  // Calls that answer a value fall back and keep the message.
  FailNextAllocation(Inject::kOther);
  ck_assert_int_eq(hived_job_exists(e, "a job name too long for the small-string buffer"), 0);
  ck_assert_str_eq(hived_last_error(e), "internal error in hived_job_exists: injected");
  hived_engine_free(e);
}
END_TEST

START_TEST(out_of_memory_code_and_message) {
  hived_engine* e = NewEngine();
  ck_assert_int_eq(SubmitJ1(e, Inject::kBadAlloc), HIVED_ENOMEM);
  ck_assert_str_eq(hived_last_error(e), "out of memory in hived_submit");
  ck_assert_int_eq(SubmitJ1(e, Inject::kNone), HIVED_OK);
  char buf[256] = "";
  hived_settings* s = nullptr;
  FailNextAllocation(Inject::kBadAlloc);
  ck_assert_int_eq(hived_settings_load("{}", &s, buf, sizeof buf), HIVED_ENOMEM);
  ck_assert_ptr_null(s);
  ck_assert_str_eq(buf, "out of memory in hived_settings_load");
  char* json = nullptr;
  FailNextAllocation(Inject::kBadAlloc);
  ck_assert_int_eq(hived_inspect(e, "A", &json), HIVED_ENOMEM);
  ck_assert_ptr_null(json);
  ck_assert_str_eq(hived_last_error(e), "out of memory in hived_inspect");
  hived_engine_free(e);
}
END_TEST

// A waiting job's priority survives a snapshot (promotion reads it); a bad one is
// refused by name, and so is hived_promote without an engine.
START_TEST(snapshot_keeps_waiting_priority) {
  hived_engine* e = NewEngine();
  const hived_member m = {1, 4, 0};
  hived_job_request r = Request("j1", &m);
  r.priority = 10;  // w (7) cannot preempt it
  const hived_decision* d = nullptr;
  ck_assert_int_eq(hived_submit(e, &r, 0, &d), HIVED_OK);
  r = Request("w", &m);
  r.priority = 7;
  ck_assert_int_eq(hived_submit(e, &r, 0, &d), HIVED_OK);
  ck_assert_int_eq(d->outcome, HIVED_WAITING);
  char* snap = nullptr;
  ck_assert_int_eq(hived_snapshot(e, &snap), HIVED_OK);
  std::string text = snap;
  free(snap);
  const std::string mark = R"({"job":"w","vc":"A","priority":7})";
  ck_assert_msg(text.find(mark) != std::string::npos, "%s", text.c_str());
  hived_engine* back = nullptr;
  char err[512] = "";
  ck_assert_int_eq(hived_engine_restore(text.c_str(), &back, err, sizeof err), HIVED_OK);
  ck_assert_int_eq(hived_snapshot(back, &snap), HIVED_OK);
  ck_assert_str_eq(snap, text.c_str());
  free(snap);
  hived_engine_free(back);
  back = nullptr;
  text.replace(text.find(mark), mark.size(), R"({"job":"w","vc":"A","priority":1001})");
  ck_assert_int_ne(hived_engine_restore(text.c_str(), &back, err, sizeof err), HIVED_OK);
  ck_assert_ptr_null(back);
  ck_assert_msg(strstr(err, "snapshot.state.waiting[0].priority: must be 0..1000"), "%s", err);
  size_t n = 1;
  ck_assert_int_eq(hived_promote(nullptr, &n), HIVED_EINVAL);
  ck_assert_uint_eq(n, 0);
  ck_assert_ptr_null(hived_promoted_name(e, 0));
  hived_engine_free(e);
}
END_TEST

// A host drops the marks of jobs that no longer wait; the rest stay.
static int KeepOnlyW2(const char* job, void* arg) {
  ++*static_cast<int*>(arg);
  return std::string(job) == "w2";
}

START_TEST(forget_waiting_drops_marks) {
  hived_engine* e = NewEngine();
  const hived_member m = {1, 4, 0};
  hived_job_request r = Request("j1", &m);
  r.priority = 10;
  const hived_decision* d = nullptr;
  ck_assert_int_eq(hived_submit(e, &r, 0, &d), HIVED_OK);
  for (const char* w : {"w1", "w2"}) {
    r = Request(w, &m);
    r.priority = 7;
    ck_assert_int_eq(hived_submit(e, &r, 1, &d), HIVED_OK);
    ck_assert_int_eq(d->outcome, HIVED_WAITING);
  }
  int asked = 0;
  size_t n = 9;
  ck_assert_int_eq(hived_forget_waiting(e, KeepOnlyW2, &asked, &n), HIVED_OK);
  ck_assert_int_eq(asked, 2);
  ck_assert_uint_eq(n, 1);
  char* snap = nullptr;
  ck_assert_int_eq(hived_snapshot(e, &snap), HIVED_OK);
  ck_assert_msg(!strstr(snap, R"({"job":"w1")") && strstr(snap, R"({"job":"w2")"), "%s", snap);
  free(snap);
  n = 9;
  ck_assert_int_eq(hived_forget_waiting(e, nullptr, nullptr, &n), HIVED_EINVAL);
  ck_assert_uint_eq(n, 0);
  ck_assert_msg(strstr(hived_last_error(e), "keep is NULL"), "%s", hived_last_error(e));
  ck_assert_int_eq(hived_forget_waiting(nullptr, KeepOnlyW2, &asked, &n), HIVED_EINVAL);
  hived_engine_free(e);
}
END_TEST

int main(void) {
  Suite* s = suite_create("api_errors");
  TCase* tc = tcase_create("errors");
  tcase_add_test(tc, invalid_input_names_the_field);
  tcase_add_test(tc, config_errors_name_the_key);
  tcase_add_test(tc, internal_error_code_and_message);
  tcase_add_test(tc, out_of_memory_code_and_message);
  tcase_add_test(tc, snapshot_keeps_waiting_priority);
  tcase_add_test(tc, forget_waiting_drops_marks);
  suite_add_tcase(s, tc);
  return check_run(s, CK_NORMAL, CK_FORK_GETENV);
}
