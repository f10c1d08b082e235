// SPDX-License-Identifier: GPL-2.0-or-later
// cli_args.h - the option syntax every hived tool accepts, in one place, so that
// "--name=value" and "--name value" and number checks mean the same in each.
#ifndef HIVED_TOOLS_CLI_ARGS_H
#define HIVED_TOOLS_CLI_ARGS_H

#include <cerrno>
#include <cstdlib>
#include <string>

namespace hived_tools {

// argv[*i] is "--name=value", or "--name" followed by a value (then *i moves
// past it): sets *out and returns true.
inline bool OptionValue(int argc, char **argv, int *i, const char *name, std::string *out) {
  std::string a = argv[*i], prefix = std::string(name) + "=";
  if (a.compare(0, prefix.size(), prefix) == 0) {
    *out = a.substr(prefix.size());
    return true;
  }
  if (a == name && *i + 1 < argc) {
    *out = argv[++*i];
    return true;
  }
  return false;
}

// A whole decimal number of at least min.
inline bool ParseLong(const std::string &s, long min, long *out) {
  char *end = nullptr;
  errno = 0;
  long x = std::strtol(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str() || *end != '\0' || x < min) return false;
  *out = x;
  return true;
}

}  // namespace hived_tools

#endif
