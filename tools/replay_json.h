// SPDX-License-Identifier: GPL-2.0-or-later
// Small jansson helpers shared by hived-replay and hived-bench: an owning handle and
// builders that keep output keys in insertion order (the replay's output is compared
// line by line, so key order is part of the protocol).
#pragma once

#include <jansson.h>

#include <memory>
#include <string>
#include <vector>

namespace hived_tools {

struct JsonDecref {
  void operator()(json_t *j) const { json_decref(j); }
};
using JsonPtr = std::unique_ptr<json_t, JsonDecref>;

// Compact one-line text; jansson keeps object keys in insertion order.
std::string DumpCompact(const json_t *j);

// Parses engine-produced JSON text; nullptr (and *error set) if it is not JSON.
JsonPtr ParseText(const std::string &text, std::string *error);

// A JSON string even for NULL or non-UTF-8 input (bytes outside UTF-8 become '?'), so
// an engine message can never make an output line disappear.
json_t *SafeString(const char *s);

json_t *StringArray(const std::vector<std::string> &items);
json_t *StringArray(const char *const *items, size_t n);

// A free()-on-exit holder for strings the C API hands over through `char **`.
struct FreeDeleter {
  void operator()(char *p) const;
};
using CString = std::unique_ptr<char, FreeDeleter>;

}  // namespace hived_tools
