// SPDX-License-Identifier: GPL-2.0-or-later
// Typed, path-aware reads of jansson values for the hived.conf parser. Every failure is a
// sentence "<key path>: <reason>" so the admin can find the key without reading code.
// Internal to src/config.
#pragma once

#include <jansson.h>

#include <climits>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <utility>

#include "../core/error.h"

namespace hived {
namespace conf {

// Every failure of this directory's checks is the config's fault.
inline Status config_error(std::string msg) { return Status::Err(Code::kConfig, std::move(msg)); }

// Bytes safe to put in a log line: control characters and invalid UTF-8 become escapes,
// and text longer than `max` bytes is cut with "...". Config values end up in slurmctld's
// log, so nothing a user typed may reach it raw. `in_quotes` also escapes '"' and '\\'.
std::string printable(const std::string& s, size_t max = 80, bool in_quotes = false);
std::string quoted(const std::string& s);  // "\"" + printable(s, 80, true) + "\""

// "got ..." text for a value of the wrong type: strings quoted, numbers and literals as
// written, containers by kind (their content is rarely what the reader needs).
std::string describe(const json_t* v);

std::string key_path(const std::string& path, const std::string& key);  // a.b
std::string index_path(const std::string& path, size_t i);              // a[3]

// Ok if every key of `obj` is in `allowed`, else an error naming the first stranger.
Status check_keys(const json_t* obj, const std::string& path,
                  std::initializer_list<const char*> allowed);

// A JSON null counts as absent: HiveD configs converted from YAML write an empty value
// ("cellChildren:") as null.
const json_t* member(const json_t* obj, const char* key);

// What a name (cell type, VC, pinned id, address...) may not contain.
enum NameRules { kPlainName = 0, kNoDot = 1 };
Status check_name(const std::string& name, const std::string& path, int rules);

// Each getter: if the key is absent (or null) and `required`, an error; if absent and
// optional, *present = false (when given) and *out untouched; else type/range checked.
Status get_string(const json_t* obj, const std::string& path, const char* key, bool required,
                  int name_rules, std::string* out, bool* present = nullptr);
Status get_int(const json_t* obj, const std::string& path, const char* key, bool required,
               long long min, long long max, int* out, bool* present = nullptr);
Status get_bool(const json_t* obj, const std::string& path, const char* key, bool* out);
// A string, or an integer stored as its decimal text (YAML turns "cellAddress: 8" into 8).
Status get_address(const json_t* obj, const std::string& path, const char* key, std::string* out,
                   bool* present);
// Object/array members; absent or null gives *out = nullptr (an error when required).
Status get_object(const json_t* obj, const std::string& path, const char* key, bool required,
                  const json_t** out);
Status get_array(const json_t* obj, const std::string& path, const char* key, bool required,
                 const json_t** out);

// The sentence for a json_loadb failure: key path of the enclosing object (recovered by
// scanning `text` up to the error), line and column, and the reason.
std::string syntax_error(const char* text, size_t len, const json_error_t& err);

}  // namespace conf
}  // namespace hived
