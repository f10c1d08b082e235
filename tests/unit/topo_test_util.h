// SPDX-License-Identifier: GPL-2.0-or-later
// Helpers shared by the src/topo Check tests: fixture files and building the engine
// from a derived spec through the public C API.
#pragma once

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

// After the C++ headers: check.h defines fail(), which <ios> declares as a member.
#include <check.h>

#include "core/error.h"
#include "hived.h"
#include "topo/cluster.h"
#include "topo/spec_json.h"

namespace topo_test {

inline std::string srcdir() {
  const char* d = getenv("HIVED_SRCDIR");
  return d && *d ? d : HIVED_TOP_SRCDIR;
}

inline std::string fixture_path(const std::string& rel) { return srcdir() + "/" + rel; }

inline std::string read_fixture(const std::string& rel) {
  std::ifstream in(fixture_path(rel), std::ios::binary);
  ck_assert_msg(in.good(), "cannot open fixture %s", fixture_path(rel).c_str());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// The engine is built from hived.conf text, as the plugin will build it. Returns ""
// or the engine's error; *out (if given) keeps the engine.
inline std::string build_engine(const hived::ClusterSpec& spec, hived_engine** out = nullptr) {
  std::string json = hived::topo::spec_to_hived_conf(spec);
  hived_engine* e = nullptr;
  char err[2048] = "";
  hived_rc rc = hived_engine_new(json.c_str(), &e, err, sizeof err);
  if (rc != HIVED_OK) return std::string(hived_rc_str(rc)) + ": " + err + "\n" + json;
  if (out)
    *out = e;
  else
    hived_engine_free(e);
  return "";
}

// "NAME=CHILD*N[n]" for each type, in order: a compact picture of the derived types.
inline std::string types_text(const hived::ClusterSpec& s) {
  std::string o;
  for (const auto& t : s.cell_types)
    o += (o.empty() ? "" : " ") + t.name + "=" + t.child_type + "*" +
         std::to_string(t.child_count) + (t.is_node_level ? "[n]" : "");
  return o;
}

// Facts of a fixture directory under tests/topo (gres.conf, topology.conf optional).
struct Fixture {
  std::vector<hived::topo::NodeFacts> nodes;
  hived::topo::TopologyFacts topology;
  std::vector<std::string> notes;
};

inline Fixture load(const std::string& dir) {
  hived::topo::ConfTexts t;
  t.slurm_conf = read_fixture("tests/topo/" + dir + "/slurm.conf");
  if (std::ifstream(fixture_path("tests/topo/" + dir + "/gres.conf")).good())
    t.gres_conf = read_fixture("tests/topo/" + dir + "/gres.conf");
  if (std::ifstream(fixture_path("tests/topo/" + dir + "/topology.conf")).good())
    t.topology_conf = read_fixture("tests/topo/" + dir + "/topology.conf");
  Fixture f;
  std::string err = hived::topo::facts_from_conf(t, &f.nodes, &f.topology, &f.notes).msg;
  ck_assert_msg(err.empty(), "%s: %s", dir.c_str(), err.c_str());
  return f;
}

// The asserts take a Status or an old-style string error ("" = ok) alike.
inline std::string err_text(const std::string& s) { return s; }
inline std::string err_text(const hived::Status& st) { return st.msg; }

}  // namespace topo_test

// Check's string macros keep only a pointer; copying first keeps temporaries alive.
#define ck_assert_sstr_eq(a, b)               \
  do {                                        \
    const std::string a_ = (a), b_ = (b);     \
    ck_assert_str_eq(a_.c_str(), b_.c_str()); \
  } while (0)

#define ck_assert_has(s, part)                                                                  \
  do {                                                                                          \
    const std::string s_ = topo_test::err_text(s), p_ = (part);                                 \
    ck_assert_msg(topo_test::has(s_, p_), "expected \"%s\" in \"%s\"", p_.c_str(), s_.c_str()); \
  } while (0)

#define ck_assert_ok(err)                                          \
  do {                                                             \
    const std::string e_ = topo_test::err_text(err);               \
    ck_assert_msg(e_.empty(), "unexpected error: %s", e_.c_str()); \
  } while (0)
