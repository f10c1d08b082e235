// SPDX-License-Identifier: GPL-2.0-or-later
// A study's figures as a text table, JSON and CSV (and per-job CSV).
#pragma once

#include <string>

#include "study.h"

namespace hivedsim {

std::string TextReport(const Study& s);
std::string JsonReport(const Study& s);
std::string CsvReport(const Study& s);  // one row per policy and VC (and "all")
std::string JobsCsv(const Study& s);    // one row per job and policy
bool WriteFile(const std::string& path, const std::string& text, std::string* err);

}  // namespace hivedsim
