// SPDX-License-Identifier: GPL-2.0-or-later
// The one way a C entry point of include/hived.h runs its C++ body: the body returns
// a Status (or a value), and Guard turns that into a hived_rc plus a message, so that
// no exception crosses the C boundary and no failure goes without a sentence:
// std::bad_alloc is HIVED_ENOMEM, any other exception HIVED_EINTERNAL naming the call.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "core/error.h"
#include "hived.h"

namespace hived::api {

// Where a call's message goes: an engine's hived_last_error() text, or the caller's
// errbuf (calls that have no engine yet). Writing it never throws.
class ErrSink {
 public:
  explicit ErrSink(std::string* last) : last_(last) {}
  ErrSink(char* buf, size_t len) : buf_(buf), len_(len) {}
  void Set(const char* a, const char* b = "", const char* c = "",
           const char* d = "") const noexcept {
    if (last_) {
      try {
        last_->assign(a).append(b).append(c).append(d);
      } catch (...) {
        // Short enough for the small-string buffer: assigning it does not allocate.
        last_->assign("out of memory");
      }
    } else if (buf_ && len_) {
      snprintf(buf_, len_, "%s%s%s%s", a, b, c, d);
    }
  }

 private:
  std::string* last_ = nullptr;
  char* buf_ = nullptr;
  size_t len_ = 0;
};

inline hived_rc ToRc(Code c) {
  switch (c) {
    case Code::kOk:
      return HIVED_OK;
    case Code::kInval:
      return HIVED_EINVAL;
    case Code::kConfig:
      return HIVED_ECONFIG;
    case Code::kNoEnt:
      return HIVED_ENOENT;
    case Code::kExist:
      return HIVED_EEXIST;
    case Code::kNoMem:
      return HIVED_ENOMEM;
    case Code::kInvariant:
      return HIVED_EINVARIANT;
    case Code::kInternal:
      break;
  }
  return HIVED_EINTERNAL;
}

// A code back from a nested C call (hived_whatif asks hived_will_run).
inline Code FromRc(hived_rc rc) {
  for (Code c : {Code::kOk, Code::kInval, Code::kConfig, Code::kNoEnt, Code::kExist, Code::kNoMem,
                 Code::kInvariant})
    if (ToRc(c) == rc) return c;
  return Code::kInternal;
}

// Called only inside a catch block: names the exception being handled in sink.
inline hived_rc Caught(const char* call, const ErrSink& sink) noexcept {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    sink.Set("out of memory in ", call);
    return HIVED_ENOMEM;
  } catch (const std::exception& ex) {
    sink.Set("internal error in ", call, ": ", ex.what());
  } catch (...) {
    sink.Set("internal error in ", call, ": unknown exception");
  }
  return HIVED_EINTERNAL;
}

// Runs body (returns Status); a failure's message goes to sink as the body wrote it
// (the call and the code's name if it has none), an exception is Caught.
template <class Body>
hived_rc Guard(const char* call, const ErrSink& sink, Body&& body) noexcept {
  try {
    const Status st = body();
    if (st.ok()) return HIVED_OK;
    const hived_rc rc = ToRc(st.code);
    if (st.msg.empty())
      sink.Set(call, ": ", hived_rc_str(rc));
    else
      sink.Set(st.msg.c_str());
    return rc;
  } catch (...) {
    return Caught(call, sink);
  }
}

// The same for entry points that answer a value: fallback when body throws.
template <class T, class Body>
T GuardValue(const char* call, const ErrSink& sink, T fallback, Body&& body) noexcept {
  try {
    return body();
  } catch (...) {
    Caught(call, sink);
    return fallback;
  }
}

// A malloc()ed copy for the caller; kNoMem when there is no memory for it.
inline Status DupOut(const std::string& s, char** out) {
  *out = static_cast<char*>(malloc(s.size() + 1));
  if (!*out) return Status::Err(Code::kNoMem, "out of memory");
  memcpy(*out, s.c_str(), s.size() + 1);
  return Status::Ok();
}

inline Status Missing(const char* what) {
  return Status::Err(Code::kInval, std::string(what) + ": NULL");
}

}  // namespace hived::api
