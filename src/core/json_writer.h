// SPDX-License-Identifier: GPL-2.0-or-later
// A minimal JSON text builder for status and snapshot output: the core stays free of
// I/O libraries, and key order is fixed so outputs can be compared byte for byte.
#pragma once

#include <cstdint>
#include <string>

namespace hived {

class JsonOut {
 public:
  JsonOut& Open(char c) {
    Sep();
    s_ += c;
    first_ = true;
    return *this;
  }
  JsonOut& Close(char c) {
    s_ += c;
    first_ = false;
    return *this;
  }
  JsonOut& Key(const std::string& k) {
    Sep();
    Str(k);
    s_ += ':';
    first_ = true;  // the value follows without a comma
    return *this;
  }
  JsonOut& Val(const std::string& v) {
    Sep();
    Str(v);
    return *this;
  }
  JsonOut& Val(const char* v) { return Val(std::string(v)); }
  JsonOut& Val(int64_t v) {
    Sep();
    s_ += std::to_string(v);
    return *this;
  }
  JsonOut& Val(int v) { return Val(static_cast<int64_t>(v)); }
  JsonOut& Val(uint64_t v) {
    Sep();
    s_ += std::to_string(v);
    return *this;
  }
  JsonOut& Val(size_t v, int) { return Val(static_cast<uint64_t>(v)); }
  JsonOut& Bool(bool v) {
    Sep();
    s_ += v ? "true" : "false";
    return *this;
  }
  JsonOut& Raw(const std::string& json) {
    Sep();
    s_ += json;
    return *this;
  }
  const std::string& str() const { return s_; }

 private:
  void Sep() {
    if (!first_) s_ += ',';
    first_ = false;
  }
  void Str(const std::string& v) {
    s_ += '"';
    for (unsigned char c : v) {
      if (c == '"' || c == '\\') {
        s_ += '\\';
        s_ += static_cast<char>(c);
      } else if (c < 0x20) {
        static const char* hex = "0123456789abcdef";
        s_ += "\\u00";
        s_ += hex[c >> 4];
        s_ += hex[c & 15];
      } else {
        s_ += static_cast<char>(c);
      }
    }
    s_ += '"';
  }
  std::string s_;
  bool first_ = true;
};

}  // namespace hived
