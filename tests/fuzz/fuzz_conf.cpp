// SPDX-License-Identifier: GPL-2.0-or-later
// hived.conf text -> parse_hived_conf (documented never to throw, so it is called
// directly: an escaping exception is a finding) -> hived_engine_new. A config the
// engine accepts must hold its invariants and survive a snapshot round trip, since
// the plugin's state file is exactly that.
#include <cstdlib>
#include <cstring>

#include "config/hived_conf.h"
#include "fuzz_target.h"
#include "hived.h"

namespace {

void Require(bool ok) {
  if (!ok) abort();
}

}  // namespace

HIVED_FUZZ_TARGET(conf) {
  std::string text(reinterpret_cast<const char *>(data), size);
  hived::Config cfg;
  std::string err = hived::parse_hived_conf(text, &cfg).msg;
  (void)err;

  // The C API sees a C string: stop at the first NUL like a file read by the plugin would.
  std::string c_text(text.c_str());
  hived_engine *e = nullptr;
  char errbuf[512] = "";
  hived_rc rc = hived_engine_new(c_text.c_str(), &e, errbuf, sizeof errbuf);
  if (rc != HIVED_OK) {
    Require(e == nullptr && errbuf[0] != '\0');
  } else {
    Require(e != nullptr);
    Require(hived_check_invariants(e, errbuf, sizeof errbuf) == HIVED_OK);
    char *snap = nullptr;
    Require(hived_snapshot(e, &snap) == HIVED_OK && snap != nullptr);
    hived_engine *back = nullptr;
    Require(hived_engine_restore(snap, &back, errbuf, sizeof errbuf) == HIVED_OK);
    hived_engine_free(back);
    free(snap);
    hived_engine_free(e);
  }

  hived_settings *s = nullptr;
  if (hived_settings_load(c_text.c_str(), &s, errbuf, sizeof errbuf) == HIVED_OK) {
    Require(s != nullptr && s->priority_scale >= 1);
    hived_settings_free(s);
  }

  // The SPANK plugin's names: accepted exactly when the engine's reader accepts.
  hived::Config c_cfg;
  const bool parse_ok = hived::parse_hived_conf(c_text, &c_cfg).msg.empty();
  char **types = nullptr, **pinned = nullptr;
  size_t n_types = 0, n_pinned = 0;
  errbuf[0] = '\0';
  hived_rc names = hived_config_names(c_text.c_str(), &types, &n_types, &pinned, &n_pinned, errbuf,
                                      sizeof errbuf);
  Require((names == HIVED_OK) == parse_ok);
  Require(names == HIVED_OK || errbuf[0] != '\0');
  hived_strings_free(types, n_types);
  hived_strings_free(pinned, n_pinned);
  return 0;
}
