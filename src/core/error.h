// SPDX-License-Identifier: GPL-2.0-or-later
// The one error value of the C++ side (core, config, topo, api): a failing call
// returns a Status whose message names the key, job or node and the reason. The C
// API turns it into a hived_rc and hived_last_error() text (src/api/guard.h), so
// every Code has exactly one hived_rc.
#pragma once

#include <string>
#include <utility>

namespace hived {

enum class Code {
  kOk = 0,
  kInval = 1,      // a request field is wrong
  kConfig = 2,     // a config (hived.conf, Slurm's files) is wrong
  kNoEnt = 3,      // unknown job, node, VC or cell type
  kExist = 4,      // a job of that name exists
  kNoMem = 5,      // out of memory
  kInvariant = 6,  // the engine's invariant checker found a violation
  kInternal = 7,   // a bug: state the engine cannot be in, or an unexpected exception
};

struct Status {
  Code code = Code::kOk;
  std::string msg;
  bool ok() const { return code == Code::kOk; }
  static Status Ok() { return {}; }
  static Status Err(Code c, std::string m) { return {c, std::move(m)}; }
};

}  // namespace hived
