// SPDX-License-Identifier: GPL-2.0-or-later
// The line syntax Slurm's own config files share (slurm.conf, gres.conf,
// topology.conf): '#' comments, '\' continuations, whitespace-separated Key=Value
// tokens with case-insensitive keys and optionally double-quoted values.
#pragma once

#include <string>
#include <vector>

#include "core/error.h"

namespace hived {
namespace topo {

struct ConfToken {
  std::string key;  // as written
  std::string value;
  bool has_value = false;  // false: a bare word without '='
};

struct ConfLine {
  int line = 0;  // first physical line of the logical line
  std::vector<ConfToken> tokens;
};

// Logical lines with at least one token.
std::vector<ConfLine> split_conf_lines(const std::string& text);

bool key_is(const std::string& key, const char* name);

// Slurm's files, hwloc and GrpTRES are config: their errors are kConfig.
inline Status config_error(std::string msg) { return Status::Err(Code::kConfig, std::move(msg)); }

// "file:line" for messages.
std::string where_of(const std::string& file, int line);

// Parses a non-negative decimal integer (no sign, no suffix) up to max.
bool parse_count(const std::string& s, long long max, long long* out);

}  // namespace topo
}  // namespace hived
