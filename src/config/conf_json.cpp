// SPDX-License-Identifier: GPL-2.0-or-later
#include "conf_json.h"

#include <strings.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace hived {
namespace conf {

namespace {

// Length of the valid UTF-8 sequence at s[0..n), or 0 if it is not one. Overlong forms
// and surrogates count as invalid so that the output is always clean UTF-8.
size_t utf8_len(const unsigned char* s, size_t n) {
  unsigned char c = s[0];
  size_t len;
  unsigned int min;
  unsigned int cp;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2, min = 0x80, cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3, min = 0x800, cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4, min = 0x10000, cp = c & 0x07;
  } else {
    return 0;
  }
  if (n < len) return 0;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

void append_escape(std::string* out, unsigned char c) {
  char buf[8];
  switch (c) {
    case '\n':
      *out += "\\n";
      return;
    case '\t':
      *out += "\\t";
      return;
    case '\r':
      *out += "\\r";
      return;
    case '"':
      *out += "\\\"";
      return;
    case '\\':
      *out += "\\\\";
      return;
    default:
      snprintf(buf, sizeof(buf), "\\x%02x", c);
      *out += buf;
  }
}

bool has_control_char(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7F) return true;
  return false;
}

std::string range_text(long long min, long long max) {
  if (max >= INT_MAX) return "an integer >= " + std::to_string(min);
  return "an integer from " + std::to_string(min) + " to " + std::to_string(max);
}

// One open object or array while scanning JSON text for the path of a syntax error.
struct Frame {
  bool object;
  bool expect_key;  // objects: the next string is a key
  bool have_key;    // objects: `key` holds the member being read
  std::string key;  // raw text between the quotes
  size_t index;     // arrays: the element being read
};

// Replays the structure of text[0..end) well enough to name where a parser stopped. The
// text before a jansson error position is valid JSON so far, so a plain bracket/quote
// scanner is exact there; on anything else it merely yields a shorter path.
std::vector<Frame> scan_frames(const char* text, size_t end) {
  std::vector<Frame> st;
  bool in_str = false, esc = false, str_is_key = false;
  std::string cur;
  for (size_t i = 0; i < end; i++) {
    char c = text[i];
    if (in_str) {
      if (esc) {
        esc = false;
      } else if (c == '\\') {
        esc = true;
      } else if (c == '"') {
        in_str = false;
        if (str_is_key) {
          st.back().key = cur;
          st.back().have_key = true;
        }
        continue;
      }
      if (str_is_key && cur.size() < 256) cur += c;
      continue;
    }
    switch (c) {
      case '"':
        in_str = true;
        cur.clear();
        str_is_key = !st.empty() && st.back().object && st.back().expect_key;
        break;
      case '{':
        st.push_back(Frame{true, true, false, std::string(), 0});
        break;
      case '[':
        st.push_back(Frame{false, false, false, std::string(), 0});
        break;
      case '}':
      case ']':
        if (!st.empty()) st.pop_back();
        break;
      case ':':
        if (!st.empty() && st.back().object) st.back().expect_key = false;
        break;
      case ',':
        if (!st.empty()) {
          if (st.back().object) {
            st.back().expect_key = true;
            st.back().have_key = false;
          } else {
            st.back().index++;
          }
        }
        break;
      default:
        break;
    }
  }
  return st;
}

// Key path of the container that frames.back() is, i.e. every frame's current child
// except the innermost.
std::string container_path(const std::vector<Frame>& st) {
  std::string path;
  for (size_t i = 0; i + 1 < st.size(); i++) {
    const Frame& f = st[i];
    if (f.object) {
      if (!f.have_key) break;
      path = key_path(path, f.key);
    } else {
      path = index_path(path, f.index);
    }
  }
  return path;
}

}  // namespace

std::string printable(const std::string& s, size_t max, bool in_quotes) {
  std::string out;
  const unsigned char* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size();
  for (size_t i = 0; i < n;) {
    size_t before = out.size();
    size_t len = utf8_len(p + i, n - i);
    if (len == 0) {
      append_escape(&out, p[i]);
      len = 1;
    } else if (len == 1 &&
               (p[i] < 0x20 || p[i] == 0x7F || (in_quotes && (p[i] == '"' || p[i] == '\\')))) {
      append_escape(&out, p[i]);
    } else {
      out.append(s, i, len);
    }
    if (out.size() > max) {
      out.resize(before);
      out += "...";
      break;
    }
    i += len;
  }
  return out;
}

std::string quoted(const std::string& s) { return "\"" + printable(s, 80, true) + "\""; }

std::string describe(const json_t* v) {
  switch (json_typeof(v)) {
    case JSON_OBJECT:
      return "an object";
    case JSON_ARRAY:
      return "an array";
    case JSON_STRING:
      return quoted(std::string(json_string_value(v), json_string_length(v)));
    case JSON_INTEGER:
      return std::to_string(static_cast<long long>(json_integer_value(v)));
    case JSON_TRUE:
      return "true";
    case JSON_FALSE:
      return "false";
    case JSON_NULL:
      return "null";
    case JSON_REAL: {
      char* s = json_dumps(v, JSON_ENCODE_ANY);
      std::string r = s ? printable(s) : "a real number";
      free(s);
      return r;
    }
  }
  return "an unknown value";
}

std::string key_path(const std::string& path, const std::string& key) {
  return path.empty() ? printable(key) : path + "." + printable(key);
}

std::string index_path(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

Status check_keys(const json_t* obj, const std::string& path,
                  std::initializer_list<const char*> allowed) {
  const char* key;
  json_t* v;
  json_object_foreach(const_cast<json_t*>(obj), key, v) {
    bool known = false;
    const char* near = nullptr;
    for (const char* a : allowed) {
      if (strcmp(a, key) == 0)
        known = true;
      else if (strcasecmp(a, key) == 0)
        near = a;
    }
    if (known) continue;
    std::string list;
    for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
    std::string msg = key_path(path, key) + ": unknown key";
    if (near) msg += std::string(" (did you mean \"") + near + "\"?)";
    return config_error(msg + "; allowed here: " + list);
  }
  return Status::Ok();
}

const json_t* member(const json_t* obj, const char* key) {
  const json_t* v = json_object_get(obj, key);
  return (v && !json_is_null(v)) ? v : nullptr;
}

Status check_name(const std::string& name, const std::string& path, int rules) {
  if (name.empty()) return config_error(path + ": must not be empty");
  if (has_control_char(name))
    return config_error(path + ": must not contain control characters, got " + quoted(name));
  if ((rules & kNoDot) && name.find('.') != std::string::npos)
    return config_error(path +
                        ": must not contain '.' (it separates levels in a virtualCells cellType "
                        "path), got " +
                        quoted(name));
  return Status::Ok();
}

Status get_string(const json_t* obj, const std::string& path, const char* key, bool required,
                  int name_rules, std::string* out, bool* present) {
  const json_t* v = member(obj, key);
  std::string p = key_path(path, key);
  if (present) *present = v != nullptr;
  if (!v) return required ? config_error(p + ": required key is missing") : Status::Ok();
  if (!json_is_string(v)) return config_error(p + ": must be a string, got " + describe(v));
  std::string s(json_string_value(v), json_string_length(v));
  Status st = check_name(s, p, name_rules);
  if (!st.ok()) return st;
  *out = s;
  return Status::Ok();
}

Status get_int(const json_t* obj, const std::string& path, const char* key, bool required,
               long long min, long long max, int* out, bool* present) {
  const json_t* v = member(obj, key);
  std::string p = key_path(path, key);
  if (present) *present = v != nullptr;
  if (!v)
    return required ? config_error(p + ": required key is missing (" + range_text(min, max) + ")")
                    : Status::Ok();
  if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
    return config_error(p + ": must be " + range_text(min, max) + ", got " + describe(v));
  *out = static_cast<int>(json_integer_value(v));
  return Status::Ok();
}

Status get_bool(const json_t* obj, const std::string& path, const char* key, bool* out) {
  const json_t* v = member(obj, key);
  if (!v) return Status::Ok();
  if (!json_is_boolean(v))
    return config_error(key_path(path, key) + ": must be true or false, got " + describe(v));
  *out = json_is_true(v);
  return Status::Ok();
}

Status get_address(const json_t* obj, const std::string& path, const char* key, std::string* out,
                   bool* present) {
  const json_t* v = member(obj, key);
  std::string p = key_path(path, key);
  *present = v != nullptr;
  if (!v) return Status::Ok();
  if (json_is_integer(v)) {
    *out = std::to_string(static_cast<long long>(json_integer_value(v)));
    return Status::Ok();
  }
  if (json_is_real(v))
    return config_error(p + ": must be a string or an integer, got " + describe(v) +
                        " (quote it: as a number, an address such as 1.10 loses digits)");
  if (!json_is_string(v))
    return config_error(p + ": must be a string or an integer, got " + describe(v));
  std::string s(json_string_value(v), json_string_length(v));
  Status st = check_name(s, p, kPlainName);
  if (!st.ok()) return st;
  *out = s;
  return Status::Ok();
}

Status get_object(const json_t* obj, const std::string& path, const char* key, bool required,
                  const json_t** out) {
  const json_t* v = member(obj, key);
  *out = nullptr;
  if (!v)
    return required ? config_error(key_path(path, key) + ": required key is missing")
                    : Status::Ok();
  if (!json_is_object(v))
    return config_error(key_path(path, key) + ": must be an object, got " + describe(v));
  *out = v;
  return Status::Ok();
}

Status get_array(const json_t* obj, const std::string& path, const char* key, bool required,
                 const json_t** out) {
  const json_t* v = member(obj, key);
  *out = nullptr;
  if (!v)
    return required ? config_error(key_path(path, key) + ": required key is missing")
                    : Status::Ok();
  if (!json_is_array(v))
    return config_error(key_path(path, key) + ": must be an array, got " + describe(v));
  *out = v;
  return Status::Ok();
}

std::string syntax_error(const char* text, size_t len, const json_error_t& err) {
  size_t pos = err.position > 0 ? static_cast<size_t>(err.position) : 0;
  if (pos > len) pos = len;
  // The position is just past the offending token; a closing bracket there has not
  // closed anything yet as far as the error is concerned.
  if (pos > 0 && (text[pos - 1] == '}' || text[pos - 1] == ']')) pos--;
  std::vector<Frame> st = scan_frames(text, pos);
  std::string where = container_path(st);
  std::string at = "line " + std::to_string(err.line) + ", column " + std::to_string(err.column);
  if (json_error_code(&err) == json_error_duplicate_key && !st.empty() && st.back().object &&
      st.back().have_key)
    return key_path(where, st.back().key) + ": duplicate key at " + at +
           " (a key may appear only once in an object)";
  std::string msg = "JSON syntax error at " + at + ": " + printable(err.text, 160);
  return where.empty() ? msg : where + ": " + msg;
}

}  // namespace conf
}  // namespace hived
