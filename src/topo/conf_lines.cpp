// SPDX-License-Identifier: GPL-2.0-or-later
#include "topo/conf_lines.h"

#include <strings.h>

#include <cctype>

namespace hived {
namespace topo {

std::vector<ConfLine> split_conf_lines(const std::string& text) {
  std::vector<ConfLine> out;
  std::string logical;
  int first_line = 0;
  int line = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string raw = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text.size() + 1 : nl + 1;
    line++;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    // Strip the comment; "\#" is a literal '#'.
    std::string body;
    for (size_t i = 0; i < raw.size(); i++) {
      if (raw[i] == '\\' && i + 1 < raw.size() && raw[i + 1] == '#') {
        body += '#';
        i++;
      } else if (raw[i] == '#') {
        break;
      } else {
        body += raw[i];
      }
    }
    if (logical.empty()) first_line = line;
    size_t end = body.find_last_not_of(" \t");
    bool continued = end != std::string::npos && body[end] == '\\';
    if (continued) body.erase(end);
    logical += body;
    if (continued && pos <= text.size()) {
      logical += ' ';
      continue;
    }
    ConfLine cl;
    cl.line = first_line;
    size_t i = 0;
    while (i < logical.size()) {
      while (i < logical.size() && isspace(static_cast<unsigned char>(logical[i]))) i++;
      if (i >= logical.size()) break;
      ConfToken t;
      size_t k = i;
      while (k < logical.size() && logical[k] != '=' &&
             !isspace(static_cast<unsigned char>(logical[k])))
        k++;
      t.key = logical.substr(i, k - i);
      i = k;
      if (i < logical.size() && logical[i] == '=') {
        t.has_value = true;
        i++;
        if (i < logical.size() && logical[i] == '"') {
          size_t close = logical.find('"', i + 1);
          if (close == std::string::npos) close = logical.size();
          t.value = logical.substr(i + 1, close - i - 1);
          i = close + 1;
        } else {
          size_t v = i;
          while (i < logical.size() && !isspace(static_cast<unsigned char>(logical[i]))) i++;
          t.value = logical.substr(v, i - v);
        }
      }
      cl.tokens.push_back(std::move(t));
    }
    logical.clear();
    if (!cl.tokens.empty()) out.push_back(std::move(cl));
  }
  return out;
}

bool key_is(const std::string& key, const char* name) { return strcasecmp(key.c_str(), name) == 0; }

std::string where_of(const std::string& file, int line) {
  return file + ":" + std::to_string(line);
}

bool parse_count(const std::string& s, long long max, long long* out) {
  if (s.empty() || s.size() > 18) return false;
  long long v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  if (v > max) return false;
  *out = v;
  return true;
}

}  // namespace topo
}  // namespace hived
