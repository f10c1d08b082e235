// SPDX-License-Identifier: GPL-2.0-or-later
// An engine from hived.conf text, for the engine's table-driven unit tests: a bad
// config fails the test that asked for it.
#pragma once

#include <memory>

// After the C++ headers: check.h defines a fail() macro.
#include <check.h>

#include "config/hived_conf.h"
#include "core/engine.h"

inline std::unique_ptr<hived::Engine> EngineFromConfig(const char* config) {
  hived::Config cfg;
  hived::Status st = hived::parse_hived_conf(config, &cfg);
  ck_assert_msg(st.ok(), "config: %s", st.msg.c_str());
  std::unique_ptr<hived::Engine> e;
  st = hived::Engine::Build(cfg.cluster, &e);
  ck_assert_msg(st.ok(), "build: %s", st.msg.c_str());
  return e;
}
