// SPDX-License-Identifier: GPL-2.0-or-later
#include "replay_json.h"

#include <cstdlib>

namespace hived_tools {

std::string DumpCompact(const json_t *j) {
  char *text = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
  if (text == nullptr) return "{\"result\":\"rejected\",\"error\":\"out of memory\"}";
  std::string out(text);
  free(text);
  return out;
}

JsonPtr ParseText(const std::string &text, std::string *error) {
  json_error_t err;
  JsonPtr j(json_loadb(text.data(), text.size(), JSON_DECODE_ANY, &err));
  if (!j && error != nullptr) {
    *error = std::string(err.text) + " at column " + std::to_string(err.column);
  }
  return j;
}

json_t *SafeString(const char *s) {
  if (s == nullptr) return json_string("");
  json_t *j = json_string(s);
  if (j != nullptr) return j;
  std::string clean(s);
  for (char &ch : clean) {
    if (static_cast<unsigned char>(ch) >= 0x80) ch = '?';
  }
  return json_string(clean.c_str());
}

json_t *StringArray(const std::vector<std::string> &items) {
  json_t *a = json_array();
  for (const std::string &s : items) json_array_append_new(a, SafeString(s.c_str()));
  return a;
}

json_t *StringArray(const char *const *items, size_t n) {
  json_t *a = json_array();
  for (size_t i = 0; i < n; i++) json_array_append_new(a, SafeString(items[i]));
  return a;
}

void FreeDeleter::operator()(char *p) const { free(p); }

}  // namespace hived_tools
