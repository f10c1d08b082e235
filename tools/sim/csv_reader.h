// SPDX-License-Identifier: GPL-2.0-or-later
// Delimited text (CSV, sacct -P) read row by row, keeping where each field came from
// so that a bad value is reported as file:line:column.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace hivedsim {

class DelimitedReader {
 public:
  DelimitedReader(std::string path, char delim) : path_(std::move(path)), delim_(delim) {}
  ~DelimitedReader();
  DelimitedReader(const DelimitedReader&) = delete;
  DelimitedReader& operator=(const DelimitedReader&) = delete;

  bool Open(std::string* err);
  // Next non-empty row; false at end of file.
  bool Next();
  const std::vector<std::string>& Fields() const { return fields_; }
  const std::string& Path() const { return path_; }
  int Line() const { return line_; }
  // "path:line:column: " for field i of the current row (column counts from 1).
  std::string Where(size_t field) const;
  std::string WhereLine() const { return path_ + ":" + std::to_string(line_) + ": "; }

  // Index of a header name in the current row, -1 if absent.
  int Find(const std::string& name) const;

 private:
  std::string path_;
  char delim_;
  FILE* f_ = nullptr;
  int line_ = 0;
  std::string text_;
  std::vector<std::string> fields_;
  std::vector<int> columns_;
};

// Value parsers; on failure they set *err to "<where>column 'name': <reason>".
bool ParseNonNegDouble(const DelimitedReader& r, size_t field, const std::string& name, double* out,
                       std::string* err);
bool ParsePositiveInt(const DelimitedReader& r, size_t field, const std::string& name, int* out,
                      std::string* err);

}  // namespace hivedsim
