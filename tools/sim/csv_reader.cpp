// SPDX-License-Identifier: GPL-2.0-or-later
#include "csv_reader.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace hivedsim {

DelimitedReader::~DelimitedReader() {
  if (f_) fclose(f_);
}

bool DelimitedReader::Open(std::string* err) {
  f_ = fopen(path_.c_str(), "r");
  if (!f_) {
    *err = path_ + ": cannot open: " + strerror(errno);
    return false;
  }
  return true;
}

bool DelimitedReader::Next() {
  for (;;) {
    text_.clear();
    int c;
    bool any = false;
    while ((c = fgetc(f_)) != EOF) {
      any = true;
      if (c == '\n') break;
      text_.push_back(static_cast<char>(c));
    }
    if (!any) return false;
    line_++;
    if (!text_.empty() && text_.back() == '\r') text_.pop_back();
    if (text_.find_first_not_of(" \t") == std::string::npos) continue;
    fields_.clear();
    columns_.clear();
    // Plain split with optional double quotes around a field ("" inside is a quote).
    size_t i = 0;
    for (;;) {
      columns_.push_back(static_cast<int>(i) + 1);
      std::string f;
      if (i < text_.size() && text_[i] == '"') {
        i++;
        while (i < text_.size()) {
          if (text_[i] == '"') {
            if (i + 1 < text_.size() && text_[i + 1] == '"') {
              f.push_back('"');
              i += 2;
              continue;
            }
            i++;
            break;
          }
          f.push_back(text_[i++]);
        }
        while (i < text_.size() && text_[i] != delim_) f.push_back(text_[i++]);
      } else {
        while (i < text_.size() && text_[i] != delim_) f.push_back(text_[i++]);
      }
      fields_.push_back(f);
      if (i >= text_.size()) break;
      i++;  // delimiter
    }
    return true;
  }
}

std::string DelimitedReader::Where(size_t field) const {
  int col = field < columns_.size() ? columns_[field] : static_cast<int>(text_.size()) + 1;
  return path_ + ":" + std::to_string(line_) + ":" + std::to_string(col) + ": ";
}

int DelimitedReader::Find(const std::string& name) const {
  for (size_t i = 0; i < fields_.size(); i++) {
    std::string f = fields_[i];
    while (!f.empty() && (f.back() == ' ' || f.back() == '\t')) f.pop_back();
    size_t b = f.find_first_not_of(" \t\xEF\xBB\xBF");  // spaces, UTF-8 BOM
    if (b != std::string::npos && f.substr(b) == name) return static_cast<int>(i);
  }
  return -1;
}

namespace {
std::string Shown(const std::string& s) {
  std::string o = "'";
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) {
      char b[8];
      snprintf(b, sizeof b, "\\x%02x", c);
      o += b;
    } else {
      o.push_back(static_cast<char>(c));
    }
  }
  return o + "'";
}
bool Missing(const DelimitedReader& r, size_t field, const std::string& name, std::string* err) {
  if (field < r.Fields().size()) return false;
  *err = r.Where(field) + "column '" + name + "': missing (the row has " +
         std::to_string(r.Fields().size()) + " fields)";
  return true;
}
}  // namespace

bool ParseNonNegDouble(const DelimitedReader& r, size_t field, const std::string& name, double* out,
                       std::string* err) {
  if (Missing(r, field, name, err)) return false;
  const std::string& s = r.Fields()[field];
  char* end = nullptr;
  errno = 0;
  double v = s.empty() ? NAN : strtod(s.c_str(), &end);
  if (s.empty() || errno || *end != '\0' || !std::isfinite(v) || v < 0) {
    *err = r.Where(field) + "column '" + name + "': expected a number >= 0, got " + Shown(s);
    return false;
  }
  *out = v;
  return true;
}

bool ParsePositiveInt(const DelimitedReader& r, size_t field, const std::string& name, int* out,
                      std::string* err) {
  if (Missing(r, field, name, err)) return false;
  const std::string& s = r.Fields()[field];
  char* end = nullptr;
  errno = 0;
  long v = s.empty() ? 0 : strtol(s.c_str(), &end, 10);
  if (s.empty() || errno || *end != '\0' || v < 1 || v > 1000000) {
    *err = r.Where(field) + "column '" + name +
           "': expected a whole number from 1 to 1000000, got " + Shown(s);
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

}  // namespace hivedsim
