// SPDX-License-Identifier: GPL-2.0-or-later
// hived_status.json as hivedctl reads it: written by a plugin of another version,
// cut short by a full disk, or edited by hand -> Parse (errors are values) -> every
// view hivedctl prints. A refused file must say why; an accepted one must render
// every view of every VC and job without a crash.
#include <cstdlib>

#include "fuzz_target.h"
#include "hivedctl_views.h"

namespace {

void Require(bool ok) {
  if (!ok) abort();
}

}  // namespace

HIVED_FUZZ_TARGET(status) {
  using namespace hivedctl;
  const std::string text(reinterpret_cast<const char *>(data), size);
  Status st;
  std::string err;
  if (!Parse(text, &st, &err)) {
    Require(!err.empty());
    return 0;
  }
  const int64_t now = st.written + 30;
  st.AgeWaits(now);
  std::string out;
  (void)StatusText(st, now);
  (void)StatusJson(st);
  (void)Metrics(st);
  (void)MapSvg(st, now);
  (void)MapHtml(st, now);
  (void)VcText(st, "", &out, &err);
  for (const auto &vc : st.vcs) {
    Require(VcText(st, vc.name, &out, &err));
    Require(VcJson(st, vc.name, &out, &err));
  }
  std::vector<std::string> ids;
  for (const auto &j : st.jobs) ids.push_back(j.job);
  for (const auto &w : st.pending) ids.push_back(w.job);
  for (const auto &w : st.refused) ids.push_back(w.job);
  for (const auto &s : st.started) ids.push_back(s.job);
  for (const auto &id : ids) {
    (void)JobText(st, id, &out, &err);
    (void)JobJson(st, id, &out, &err);
  }
  return 0;
}
