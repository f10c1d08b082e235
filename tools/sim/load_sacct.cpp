// SPDX-License-Identifier: GPL-2.0-or-later
#include <cstdio>
#include <ctime>
#include <filesystem>

#include "csv_reader.h"
#include "loaders.h"

namespace hivedsim {

namespace {

// sacct prints local time as YYYY-MM-DDTHH:MM:SS; only differences matter here, so the
// time is read as if it were UTC (no DST jumps inside the trace).
bool ParseSlurmTime(const std::string& s, double* out) {
  int y, mo, d, h, mi, se;
  char tail;
  if (sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &se, &tail) != 6)
    return false;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return false;
  struct tm tm = {};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = se;
  *out = static_cast<double>(timegm(&tm));
  return true;
}

// gres/gpu=N in an AllocTRES list; 0 if absent, -1 if malformed.
int GpusFromTres(const std::string& tres) {
  size_t pos = 0;
  while (pos <= tres.size()) {
    size_t end = tres.find(',', pos);
    if (end == std::string::npos) end = tres.size();
    std::string item = tres.substr(pos, end - pos);
    if (item.rfind("gres/gpu=", 0) == 0) {
      std::string v = item.substr(9);
      if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 7)
        return -1;
      return std::stoi(v);
    }
    pos = end + 1;
  }
  return 0;
}

bool NeverRan(const std::string& s) { return s == "Unknown" || s == "None" || s.empty(); }

}  // namespace

bool LoadSacct(const std::string& file, Trace* t, std::string* err) {
  DelimitedReader r(file, '|');
  if (!r.Open(err)) return false;
  if (t->name.empty()) t->name = "sacct";
  int c_id = 0, c_acct = 1, c_sub = 2, c_start = 3, c_end = 4, c_tres = 5, c_nodes = 6;
  bool have_row = r.Next();
  if (have_row && r.Find("JobID") >= 0) {
    c_id = r.Find("JobID");
    c_acct = r.Find("Account");
    c_sub = r.Find("Submit");
    c_start = r.Find("Start");
    c_end = r.Find("End");
    c_tres = r.Find("AllocTRES");
    c_nodes = r.Find("NNodes");
    for (auto [c, n] : {std::pair{c_acct, "Account"},
                        {c_sub, "Submit"},
                        {c_start, "Start"},
                        {c_end, "End"},
                        {c_tres, "AllocTRES"}})
      if (c < 0) {
        *err = r.WhereLine() + "header: no column '" + n +
               "' (run sacct -P -o JobID,Account,Submit,Start,End,AllocTRES,NNodes)";
        return false;
      }
    have_row = r.Next();
  }
  size_t loaded = 0, steps = 0, not_run = 0, no_gpu = 0;
  for (; have_row; have_row = r.Next()) {
    const auto& f = r.Fields();
    auto field = [&](int c) -> const std::string& {
      static const std::string empty;
      return c >= 0 && static_cast<size_t>(c) < f.size() ? f[c] : empty;
    };
    if (field(c_id).find('.') != std::string::npos) {
      steps++;
      continue;
    }
    for (int c : {c_acct, c_sub, c_start, c_end, c_tres})
      if (static_cast<size_t>(c) >= f.size()) {
        *err = r.Where(c) + "missing field (the row has " + std::to_string(f.size()) +
               " fields; expected JobID|Account|Submit|Start|End|AllocTRES|NNodes)";
        return false;
      }
    if (NeverRan(field(c_start)) || NeverRan(field(c_end))) {
      not_run++;
      continue;
    }
    TraceJob j;
    j.id = field(c_id);
    double start, end;
    if (!ParseSlurmTime(field(c_sub), &j.submit)) {
      *err = r.Where(c_sub) + "column 'Submit': expected YYYY-MM-DDTHH:MM:SS, got '" +
             field(c_sub) + "'";
      return false;
    }
    if (!ParseSlurmTime(field(c_start), &start)) {
      *err = r.Where(c_start) + "column 'Start': expected YYYY-MM-DDTHH:MM:SS, got '" +
             field(c_start) + "'";
      return false;
    }
    if (!ParseSlurmTime(field(c_end), &end) || end < start) {
      *err = r.Where(c_end) + "column 'End': expected YYYY-MM-DDTHH:MM:SS not before Start, got '" +
             field(c_end) + "'";
      return false;
    }
    j.duration = end - start;
    j.gpus = GpusFromTres(field(c_tres));
    if (j.gpus < 0) {
      *err = r.Where(c_tres) + "column 'AllocTRES': gres/gpu must be a whole number, in '" +
             field(c_tres) + "'";
      return false;
    }
    if (j.gpus == 0) {
      no_gpu++;
      continue;
    }
    int nnodes = 0;
    if (c_nodes >= 0 && static_cast<size_t>(c_nodes) < f.size() && !f[c_nodes].empty() &&
        !ParsePositiveInt(r, c_nodes, "NNodes", &nnodes, err))
      return false;
    std::string acct = field(c_acct);
    if (acct.empty()) acct = "(none)";
    j.vc = t->VcIndex(acct);
    j.pods = PodsFor(j.gpus, nnodes);
    t->jobs.push_back(std::move(j));
    loaded++;
  }
  t->notes.push_back("sacct " + std::filesystem::path(file).filename().string() + ": " +
                     std::to_string(loaded) + " GPU jobs (one VC per account); skipped " +
                     std::to_string(steps) + " steps, " + std::to_string(not_run) +
                     " jobs that never ran, " + std::to_string(no_gpu) +
                     " jobs without GPUs; run time = End - Start");
  t->SortJobs();
  return true;
}

bool LoadTrace(const std::string& spec, Trace* t, std::string* err) {
  size_t colon = spec.find(':');
  std::string kind = colon == std::string::npos ? "" : spec.substr(0, colon);
  std::string path = colon == std::string::npos ? spec : spec.substr(colon + 1);
  if (kind == "itp") return LoadItp(path, t, err);
  if (kind == "philly") return LoadPhilly(path, t, err);
  if (kind == "sacct") return LoadSacct(path, t, err);
  *err = "--trace: '" + spec + "' must be itp:DIR, philly:DIR or sacct:FILE";
  return false;
}

}  // namespace hivedsim
