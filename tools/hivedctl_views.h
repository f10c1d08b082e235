// SPDX-License-Identifier: GPL-2.0-or-later
// What hivedctl prints: tables, JSON, Prometheus metrics, the cell map.
// Every view is a pure function of the status (and the clock, passed in), so
// the unit tests check them on a fixture.
#ifndef HIVEDCTL_VIEWS_H
#define HIVEDCTL_VIEWS_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hivedctl_model.h"

namespace hivedctl {

// Cells of one level, counted from the per-GPU topology.
struct LevelCount {
  int64_t cells = 0;   // cells seen in the topology
  int64_t idle = 0;    // no GPU in use, none bad
  int64_t in_use = 0;  // at least one GPU in use
  int64_t bad = 0;     // at least one bad GPU
  int64_t doomed = 0;  // VC cells of this level that no healthy free cell can serve
};
// Key: chain, then level.
using Counts = std::map<std::string, std::map<int, LevelCount>>;
Counts CountCells(const Status& s);

// Whole-cluster GPU numbers.
struct GpuCount {
  int64_t total = 0, guaranteed = 0, opportunistic = 0, idle = 0, bad = 0;
  // GPUs split into fractions (of several jobs, or partly idle): in none of the
  // counts above; their fractions in GPU units, and those of them partly used.
  int64_t split = 0, fragmented = 0;
  double split_guaranteed = 0, split_opportunistic = 0, split_free = 0;
  // Free fractions on partly used GPUs, in GPU units (FGD's fragmentation).
  double stranded = 0;
  // MIG slices: parts of GPUs in MIG mode, in none of the GPU counts above.
  int64_t slices = 0, slices_guaranteed = 0, slices_opportunistic = 0, slices_idle = 0;
};
GpuCount CountGpus(const Status& s);
// GPUs in a VC's quota cells (a fractional cell counts its part of a GPU).
double QuotaGpus(const Status& s, const Vc& vc);

// "2026-11-21 15:40:38 UTC (3 s ago)" style header line.
std::string AsOf(const Status& s, int64_t now);
// A Unix time as local "YYYY-MM-DD HH:MM:SS TZ".
std::string TimeText(int64_t when);

std::string StatusText(const Status& s, int64_t now);
std::string StatusJson(const Status& s);

// name empty: every VC. False (and err) for an unknown VC.
bool VcText(const Status& s, const std::string& name, std::string* out, std::string* err);
bool VcJson(const Status& s, const std::string& name, std::string* out, std::string* err);

// False (and err) when HiveD knows nothing of the job.
bool JobText(const Status& s, const std::string& id, std::string* out, std::string* err);
bool JobJson(const Status& s, const std::string& id, std::string* out, std::string* err);

// Prometheus text exposition format 0.0.4.
std::string Metrics(const Status& s);

// The cell map. Colours are fixed per VC in configuration order.
struct MapColors {
  static const char* kFree;
  static const char* kBad;
  static const char* kBoundIdleFill;
  static const char* kNoVc;  // opportunistic jobs of accounts without a VC
  // Solid colour of a VC (guaranteed); the opportunistic shade is lighter.
  static std::string Vc(size_t index);
  static std::string VcOpportunistic(size_t index);
};
std::string MapSvg(const Status& s, int64_t now);
std::string MapHtml(const Status& s, int64_t now);

// Escaping for the map's markup.
std::string Xml(const std::string& text);

}  // namespace hivedctl

#endif
