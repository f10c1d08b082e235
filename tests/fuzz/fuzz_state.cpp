// SPDX-License-Identifier: GPL-2.0-or-later
// The plugin's state file (hived_snapshot() output, possibly truncated or corrupted on
// disk) -> ParseSnapshot (strict, never throws) -> hived_engine_restore. A restored
// engine must hold its invariants and write a snapshot that restores again.
#include <cstdlib>

#include "api/snapshot_load.h"
#include "fuzz_target.h"
#include "hived.h"

namespace {

void Require(bool ok) {
  if (!ok) abort();
}

}  // namespace

HIVED_FUZZ_TARGET(state) {
  std::string text(reinterpret_cast<const char *>(data), size);
  hived::SnapshotData snap;
  (void)hived::ParseSnapshot(text, &snap);

  std::string c_text(text.c_str());
  hived_engine *e = nullptr;
  char errbuf[512] = "";
  if (hived_engine_restore(c_text.c_str(), &e, errbuf, sizeof errbuf) != HIVED_OK) {
    Require(e == nullptr && errbuf[0] != '\0');
    return 0;
  }
  Require(e != nullptr);
  Require(hived_check_invariants(e, errbuf, sizeof errbuf) == HIVED_OK);
  char *again = nullptr;
  Require(hived_snapshot(e, &again) == HIVED_OK && again != nullptr);
  hived_engine *back = nullptr;
  Require(hived_engine_restore(again, &back, errbuf, sizeof errbuf) == HIVED_OK);
  hived_engine_free(back);
  free(again);
  hived_engine_free(e);
  return 0;
}
