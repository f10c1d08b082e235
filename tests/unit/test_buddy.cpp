// SPDX-License-Identifier: GPL-2.0-or-later
// Table-driven tests of the buddy allocator (src/core/buddy.h) on small cell stores
// built from a ClusterSpec: rows of bind/take/release/health steps, each with the
// answer and the free lists expected after it, plus the safety answers on the way.
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "core/buddy.h"
#include "core/cell_store.h"

// After the C++ headers: check.h defines a fail() macro.
#include <check.h>

#include "../check_run.h"

using hived::Buddy;
using hived::BuddySafety;
using hived::CellStore;
using hived::ClusterSpec;
using hived::kNone;
using hived::PCell;
using hived::PCellId;

namespace {

const hived::ChainId kChain(0);  // the one chain of these clusters

// One rack of two nodes, each of two GPU pairs: levels GPU 1, PAIR 2, NODE 3, RACK 4.
// `vc_cells` are VC A's preassigned cells, e.g. {{"PAIR", 1}}.
ClusterSpec Rack(const std::vector<std::pair<std::string, int>>& vc_cells) {
  ClusterSpec s;
  s.cell_types = {{"t.PAIR", "PAIR", "V100", 2, false, false, false},
                  {"t.NODE", "NODE", "PAIR", 2, true, false, false},
                  {"t.RACK", "RACK", "NODE", 2, false, false, false}};
  hived::PhysicalCellSpec rack;
  rack.where = "p[0]";
  rack.cell_type = "RACK";
  rack.address = "r0";
  for (const char* n : {"n0", "n1"}) {
    hived::PhysicalCellSpec node;
    node.where = std::string("p[0].") + n;
    node.address = n;
    rack.children.push_back(node);
  }
  s.physical_cells = {rack};
  hived::VcSpec a;
  a.where = "v.A";
  a.name = "A";
  for (const auto& [type, n] : vc_cells) a.virtual_cells.push_back({"v.A.c", type, n});
  s.vcs = {a};
  return s;
}

// "n0.1.0": node n0, its pair 1, that pair's GPU 0; "r0" the rack.
std::string Name(const CellStore& s, PCellId c) {
  const PCell& p = s.pcells_[c];
  if (p.node < 0) return s.addresses_[p.addr];
  if (s.pcells_[p.parent].node < 0) return s.node_names_[p.node];
  return Name(s, p.parent) + "." + std::to_string(c - s.pcells_[p.parent].first_child);
}

PCellId Find(const CellStore& s, const std::string& name) {
  for (PCellId c : s.pcells_.ids())
    if (Name(s, c) == name) return c;
  ck_abort_msg("no cell '%s'", name.c_str());
  return kNone;
}

// Every free cell by name; "*" marks the busy list, "!" the bad one.
std::string FreeLists(const CellStore& s) {
  std::vector<std::string> names;
  const hived::Chain& ch = s.chains_[kChain];
  for (PCellId c : s.pcells_.ids()) {
    const int l = s.pcells_[c].level;
    const char* mark = ch.free_clean[hived::Level(l)].count(c)  ? ""
                       : ch.free_busy[hived::Level(l)].count(c) ? "*"
                       : ch.free_bad[hived::Level(l)].count(c)  ? "!"
                                                                : nullptr;
    if (mark) names.push_back(Name(s, c) + mark);
  }
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : " ") + n;
  return out;
}

int LevelOf(const std::string& type) {
  return type == "GPU" ? 1 : type == "PAIR" ? 2 : type == "NODE" ? 3 : 4;
}

// A node's leaves turn bad (or an opportunistic job starts on a leaf: "opp"), with the
// counters up the tree and the free lists refiled, as the engine does.
void Mark(CellStore* s, const std::string& name, bool bad) {
  Buddy b(*s);
  std::vector<PCellId> leaves;
  s->LeavesUnder(Find(*s, name), &leaves);
  for (PCellId l : leaves)
    for (PCellId c = l; c != kNone; c = s->pcells_[c].parent) {
      PCell& p = s->pcells_[c];
      (bad ? p.bad : p.opp)++;
      p.avail--;
      if (p.flags & hived::kFree) b.FreeRefile(c);
    }
}

struct Step {
  const char* op;    // bind TYPE [near NAME] | take NAME | release NAME | bad NAME | opp NAME
                     // | can-take NAME | can-split NAME TYPE | obtainable TYPE | healthy TYPE
  const char* want;  // the answer: a cell name, "-" (none), yes/no, a count; "" for none
  const char* free;  // the free lists after the step
};

struct Case {
  const char* name;
  std::vector<std::pair<std::string, int>> vc;
  std::vector<Step> steps;
};

// Runs one step on s; returns its answer.
std::string Apply(CellStore* s, std::istringstream& in) {
  std::string op, arg, arg2, arg3;
  in >> op >> arg >> arg2 >> arg3;
  Buddy b(*s);
  auto yes = [](bool v) { return std::string(v ? "yes" : "no"); };
  if (op == "bind") {
    const int level = LevelOf(arg);
    const PCellId c = b.Alloc(kChain, level, {}, arg2 == "near" ? Find(*s, arg3) : kNone);
    if (c == kNone) return "-";
    s->chains_[kChain].unbound_demand[hived::Level(level)]--;  // a VC cell is bound now
    return Name(*s, c);
  }
  if (op == "take") {
    const PCellId c = Find(*s, arg);
    const bool ok = b.Take(c);
    if (ok) s->chains_[kChain].unbound_demand[hived::Level(s->pcells_[c].level)]--;
    return yes(ok);
  }
  if (op == "release") {
    const PCellId c = Find(*s, arg);
    s->chains_[kChain].unbound_demand[hived::Level(s->pcells_[c].level)]++;
    b.Release(c);
    return "";
  }
  if (op == "bad" || op == "opp") {
    Mark(s, arg, op == "bad");
    return "";
  }
  if (op == "can-take") return yes(b.CanTakeSafely(Find(*s, arg)));
  if (op == "can-split") return yes(b.CanSplitSafely(Find(*s, arg), LevelOf(arg2)));
  if (op == "obtainable" || op == "healthy")
    return std::to_string(b.Obtainable(kChain, LevelOf(arg), op == "healthy"));
  if (op == "demand") return std::to_string(b.Demand(kChain, LevelOf(arg)));
  ck_abort_msg("unknown step '%s'", op.c_str());
  return "";
}

const std::vector<Case> kCases = {
    {"split on demand, merge on release",
     {{"PAIR", 1}},
     {{"demand PAIR", "1", "r0"},
      {"bind PAIR", "n0.0", "n0.1 n1"},
      {"bind GPU", "n0.1.0", "n0.1.1 n1"},
      {"release n0.1.0", "", "n0.1 n1"},
      {"release n0.0", "", "r0"}}},
    {"the safety margin: an unbound node keeps a whole node free",
     {{"NODE", 1}, {"PAIR", 1}},
     {{"obtainable NODE", "2", "r0"},
      {"demand NODE", "1", "r0"},
      {"demand PAIR", "3", "r0"},
      {"bind PAIR", "n0.0", "n0.1 n1"},
      {"can-split n1 PAIR", "no", "n0.1 n1"},
      {"bind GPU", "n0.1.0", "n0.1.1 n1"},
      {"bind GPU", "n0.1.1", "n1"},
      {"bind GPU", "-", "n1"},
      {"bind NODE", "n1", ""},
      {"release n1", "", "n1"},
      {"bind GPU", "-", "n1"}}},
    {"recovery takes exactly the cell a job runs in, if it is safe",
     {{"NODE", 1}},
     {{"can-take n1.1.0", "yes", "r0"},
      {"take n1.1.0", "yes", "n0 n1.0 n1.1.1"},
      {"can-take n0.0.0", "no", "n0 n1.0 n1.1.1"},
      {"can-take n1.0", "yes", "n0 n1.0 n1.1.1"},  // free already: nothing to split
      {"take n0", "yes", "n1.0 n1.1.1"},
      {"can-take n0", "no", "n1.0 n1.1.1"},
      {"take n0", "no", "n1.0 n1.1.1"},
      {"release n1.1.0", "", "n1"}}},
    {"bad and busy cells go to their own lists and last",
     {{"PAIR", 1}},
     {{"bad n0", "", "r0!"},
      {"obtainable PAIR", "4", "r0!"},
      {"healthy PAIR", "2", "r0!"},
      {"opp n1", "", "r0!"},
      {"bind PAIR", "n1.0", "n0! n1.1*"},
      {"release n1.0", "", "r0!"}}},
    {"a partly bad cell is split for its healthy part",
     {{"PAIR", 3}},
     {{"bad n0.0", "", "r0!"},
      {"obtainable PAIR", "4", "r0!"},
      {"healthy PAIR", "3", "r0!"},
      {"bind PAIR", "n1.0", "n0! n1.1"},
      {"bind PAIR", "n1.1", "n0!"},
      {"can-split n0 PAIR", "yes", "n0!"},
      {"bind PAIR", "n0.1", "n0.0!"},
      {"healthy PAIR", "0", "n0.0!"},
      {"release n0.1", "", "n0!"}}},
    {"an idle cell before one that opportunistic jobs run on",
     {{"PAIR", 1}},
     {{"opp n0.1.0", "", "r0*"},
      {"take n0.0", "yes", "n0.1* n1"},
      {"bind PAIR", "n1.0", "n0.1* n1.1"},
      {"bind PAIR", "n1.1", "n0.1*"},
      {"bind PAIR", "n0.1", ""},
      {"release n1.0", "", "n1.0"}}},
    {"a gang's later pod near its first",
     {{"PAIR", 3}},
     {{"bind PAIR", "n0.0", "n0.1 n1"},
      {"bind PAIR near n1", "n1.0", "n0.1 n1.1"},
      {"bind PAIR near n1", "n1.1", "n0.1"},
      {"can-split n0.1 GPU", "yes", "n0.1"},  // every VC cell is bound: no margin to keep,
      {"release n1.0", "", "n0.1 n1.0"}}},
};

START_TEST(buddy_table) {
  const Case& tc = kCases[_i];
  CellStore s;
  hived::Status st = s.BuildFrom(Rack(tc.vc));
  ck_assert_msg(st.ok(), "%s: %s", tc.name, st.msg.c_str());
  const std::string start = FreeLists(s);
  ck_assert_str_eq(start.c_str(), "r0");
  for (size_t k = 0; k < tc.steps.size(); k++) {
    std::istringstream in(tc.steps[k].op);
    const std::string got = Apply(&s, in);
    ck_assert_msg(got == tc.steps[k].want, "%s, step %zu (%s): answer '%s', want '%s'", tc.name, k,
                  tc.steps[k].op, got.c_str(), tc.steps[k].want);
    const std::string free = FreeLists(s);
    ck_assert_msg(free == tc.steps[k].free, "%s, step %zu (%s): free lists '%s', want '%s'",
                  tc.name, k, tc.steps[k].op, free.c_str(), tc.steps[k].free);
  }
}
END_TEST

// The walk visits in pre-order, children in order, and prunes and stops as told.
START_TEST(walk_order) {
  CellStore s;
  ck_assert(s.BuildFrom(Rack({})).ok());
  std::string seen;
  s.WalkPhysical(Find(s, "r0"), [&](PCellId c) {
    const std::string n = Name(s, c);
    seen += n + " ";
    if (n == "n0.1") return hived::Visit::kPrune;
    return n == "n1.0.1" ? hived::Visit::kStop : hived::Visit::kDescend;
  });
  ck_assert_str_eq(seen.c_str(), "r0 n0 n0.0 n0.0.0 n0.0.1 n0.1 n1 n1.0 n1.0.0 n1.0.1 ");
}
END_TEST

// Over-committed VCs are refused when the store is built, naming the level.
START_TEST(build_refuses_overcommit) {
  CellStore s;
  hived::Status st = s.BuildFrom(Rack({{"NODE", 2}, {"PAIR", 1}}));
  ck_assert(!st.ok());
  ck_assert_msg(st.msg.find("cell type 'PAIR' (level 2 of chain 'RACK') is over-committed") !=
                    std::string::npos,
                "%s", st.msg.c_str());
}
END_TEST

Suite* BuddySuite() {
  Suite* s = suite_create("buddy");
  TCase* tc = tcase_create("core");
  tcase_add_loop_test(tc, buddy_table, 0, static_cast<int>(kCases.size()));
  tcase_add_test(tc, walk_order);
  tcase_add_test(tc, build_refuses_overcommit);
  suite_add_tcase(s, tc);
  return s;
}

}  // namespace

int main() { return check_run(BuddySuite(), CK_NORMAL, CK_FORK_GETENV); }
