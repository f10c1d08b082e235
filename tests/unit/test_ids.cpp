// SPDX-License-Identifier: GPL-2.0-or-later
// The typed ids (src/core/ids.h): indexing a table of one kind of cell with another
// kind's id must not compile (checked here at compile time with a detection idiom),
// and the ids must cost nothing (one int32 each, cells and jobs as small as before).
#include <set>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

// After the C++ headers: check.h defines a fail() macro.
#include <check.h>

#include "../check_run.h"
#include "core/ids.h"
#include "core/model.h"

namespace {

using hived::IdSpan;
using hived::IdVector;
using hived::kNone;
using hived::PCell;
using hived::PCellId;
using hived::VCell;
using hived::VCellId;

// --- compile time: what is well-formed and what is not
template <class T, class I, class = void>
struct CanIndex : std::false_type {};
template <class T, class I>
struct CanIndex<T, I, std::void_t<decltype(std::declval<T&>()[std::declval<I>()])>>
    : std::true_type {};

template <class A, class B, class = void>
struct CanCompare : std::false_type {};
template <class A, class B>
struct CanCompare<A, B, std::void_t<decltype(std::declval<A>() == std::declval<B>())>>
    : std::true_type {};

using PCells = IdVector<PCellId, PCell>;
using VCells = IdVector<VCellId, VCell>;

static_assert(CanIndex<PCells, PCellId>::value, "physical cells by a physical id");
static_assert(CanIndex<VCells, VCellId>::value, "virtual cells by a virtual id");
static_assert(!CanIndex<PCells, VCellId>::value, "pcells_[vcell] must not compile");
static_assert(!CanIndex<VCells, PCellId>::value, "vcells_[pcell] must not compile");
static_assert(!CanIndex<PCells, int32_t>::value, "pcells_[int] must not compile");
static_assert(!CanIndex<VCells, size_t>::value, "vcells_[size_t] must not compile");
// A binding's two ends are different types: p.bound is virtual, v.bound physical.
static_assert(std::is_same<decltype(PCell::bound), VCellId>::value, "");
static_assert(std::is_same<decltype(VCell::bound), PCellId>::value, "");
static_assert(CanIndex<VCells, decltype(PCell::bound)>::value, "");
static_assert(!CanIndex<PCells, decltype(PCell::bound)>::value, "");
// VCs: the table of VCs takes a VC id only, and a cell's or a job's VC is one.
using hived::VcId;
using Vcs = IdVector<VcId, hived::Vc>;
static_assert(CanIndex<Vcs, VcId>::value, "");
static_assert(!CanIndex<Vcs, int>::value && !CanIndex<Vcs, VCellId>::value, "");
static_assert(std::is_same<decltype(VCell::vc), VcId>::value, "");
static_assert(std::is_same<decltype(hived::Job::vc), VcId>::value, "");
static_assert(!CanCompare<VcId, VCellId>::value, "");
// Chains: kept in every cell as an int16, as before.
using hived::ChainId;
using Chains = IdVector<ChainId, hived::Chain>;
static_assert(CanIndex<Chains, ChainId>::value, "");
static_assert(!CanIndex<Chains, int>::value && !CanIndex<Chains, VcId>::value, "");
static_assert(!CanIndex<Vcs, ChainId>::value, "");
static_assert(std::is_same<decltype(PCell::chain), ChainId>::value, "");
static_assert(std::is_same<decltype(hived::VcChain::chain), ChainId>::value, "");
static_assert(sizeof(ChainId) == sizeof(int16_t), "");
// Priorities are values: ordered, but no table takes one, and no id converts to one.
using hived::Priority;
// Levels: a per-level table takes a Level only, and a Level is no index of the
// tables of cells, VCs or chains.
using hived::Level;
using PerLevel = hived::LevelVector<int64_t>;
static_assert(CanIndex<PerLevel, Level>::value, "");
static_assert(!CanIndex<PerLevel, int>::value && !CanIndex<PerLevel, size_t>::value, "");
static_assert(!CanIndex<PerLevel, ChainId>::value && !CanIndex<PerLevel, VcId>::value, "");
static_assert(!CanIndex<PerLevel, PCellId>::value && !CanIndex<PerLevel, VCellId>::value, "");
static_assert(!CanIndex<PerLevel, Priority>::value, "");
// The engine's per-level tables are LevelVectors ([hi][lo] both levels in desc).
using hived::Chain;
using hived::VcChain;
static_assert(CanIndex<decltype(Chain::free_clean), Level>::value, "");
static_assert(!CanIndex<decltype(Chain::free_clean), int>::value, "");
static_assert(!CanIndex<decltype(Chain::unbound_demand), ChainId>::value, "");
static_assert(!CanIndex<decltype(Chain::level_children), VcId>::value, "");
static_assert(!CanIndex<decltype(Chain::level_type), int>::value, "");
static_assert(!CanIndex<decltype(Chain::cells_at_level), PCellId>::value, "");
static_assert(!CanIndex<decltype(Chain::desc), int>::value, "");
static_assert(!CanIndex<decltype(std::declval<Chain&>().desc[Level(2)]), int>::value, "");
static_assert(!CanIndex<decltype(VcChain::quota), int>::value, "");
static_assert(!CanIndex<decltype(VcChain::cells_at_level), VCellId>::value, "");
static_assert(sizeof(PCell) == 40 && sizeof(VCell) == 32, "cells keep an int8 level");
static_assert(!CanIndex<PCells, Level>::value && !CanIndex<Chains, Level>::value, "");
static_assert(!CanIndex<Vcs, Level>::value, "");
static_assert(!std::is_convertible<int, Level>::value, "construction is explicit");
static_assert(!std::is_convertible<Level, int>::value, "reading is explicit (.v)");
static_assert(!std::is_constructible<Level, ChainId>::value, "");
static_assert(!CanCompare<Level, int>::value && !CanCompare<Level, ChainId>::value, "");
static_assert(std::is_same<decltype(Level(3) - 1), Level>::value, "the level below");
static_assert(std::is_same<decltype(Level(3) - Level(1)), int>::value, "a distance");
static_assert(Level(3) - 1 == Level(2) && Level(1) + 2 == Level(3) && Level(3) - Level(1) == 2, "");
static_assert(sizeof(Level) == sizeof(int32_t) && std::is_trivially_copyable<Level>::value, "");
static_assert(!CanIndex<Vcs, Priority>::value && !CanIndex<Chains, Priority>::value, "");
static_assert(!std::is_convertible<int, Priority>::value, "");
static_assert(!std::is_convertible<VcId, Priority>::value, "");
static_assert(!CanCompare<Priority, VcId>::value && !CanCompare<Priority, int>::value, "");
static_assert(std::is_same<decltype(hived::Job::priority), Priority>::value, "");
static_assert(hived::kOpportunistic < Priority(0) && !hived::kOpportunistic.guaranteed(), "");
// No silent conversions between the kinds or from integers.
static_assert(!std::is_convertible<VCellId, PCellId>::value, "");
static_assert(!std::is_convertible<PCellId, VCellId>::value, "");
static_assert(!std::is_convertible<int32_t, PCellId>::value, "construction is explicit");
static_assert(!std::is_convertible<PCellId, int32_t>::value, "reading is explicit (.v)");
static_assert(std::is_constructible<PCellId, int32_t>::value, "");
static_assert(!CanCompare<PCellId, VCellId>::value, "a physical id never equals a virtual one");
static_assert(CanCompare<PCellId, hived::NoneId>::value, "c == kNone");
static_assert(CanCompare<VCellId, hived::NoneId>::value, "v == kNone");
// The spans of a job record keep the kinds apart too.
static_assert(std::is_same<decltype(std::declval<hived::Job>().Leaves()[0]), PCellId>::value, "");
static_assert(std::is_same<decltype(std::declval<hived::Job>().Vleaves()[0]), VCellId>::value, "");
static_assert(!std::is_convertible<IdSpan<VCellId>, IdSpan<PCellId>>::value, "");
// Free of cost: an id is its int32, so the cell arrays and job records keep their size.
static_assert(sizeof(PCellId) == sizeof(int32_t) && sizeof(VCellId) == sizeof(int32_t), "");
static_assert(std::is_trivially_copyable<PCellId>::value, "");

// --- run time
START_TEST(none_and_order) {
  PCellId none;
  ck_assert(none == kNone);
  ck_assert(!none.valid());
  const PCellId a(3), b(7);
  ck_assert(a.valid() && a != kNone);
  ck_assert(a < b && b > a && a <= a && a != b);
  ck_assert_int_eq(b - a, 4);
  ck_assert(a + 4 == b);  // the k-th child of a block
  PCellId c = a;
  ck_assert(c++ == a && c == PCellId(4) && ++c == PCellId(5));
  ck_assert_int_eq(b.v, 7);
  ck_assert_uint_eq(b.index(), 7);
}
END_TEST

START_TEST(containers) {
  std::set<VCellId> s{VCellId(5), VCellId(1), VCellId(3)};
  ck_assert_int_eq(s.begin()->v, 1);
  std::unordered_set<PCellId> h{PCellId(2), PCellId(2), PCellId(9)};
  ck_assert_uint_eq(h.size(), 2);
  ck_assert(h.count(PCellId(9)) == 1 && h.count(PCellId(3)) == 0);
}
END_TEST

START_TEST(id_vector) {
  IdVector<PCellId, PCell> cells;
  ck_assert(cells.next_id() == PCellId(0));
  cells.emplace_back().node = 10;
  cells.emplace_back().node = 11;
  cells.push_back(PCell());
  cells[PCellId(2)].node = 12;
  std::vector<int32_t> seen;
  for (PCellId c : cells.ids()) seen.push_back(cells[c].node);
  ck_assert(seen == (std::vector<int32_t>{10, 11, 12}));
  ck_assert(cells.next_id() == PCellId(3));
  // A default cell's links are invalid ids of the right kinds.
  ck_assert(cells[PCellId(0)].parent == kNone && cells[PCellId(0)].bound == kNone);
}
END_TEST

START_TEST(job_spans) {
  // Physical leaves, virtual leaves and pod starts share one int32 array; each span
  // reads back its own kind.
  hived::Job j;
  j.SetPods({{-1, {PCellId(4), PCellId(5)}}, {-1, {PCellId(8)}}});
  j.AddVleaf(VCellId(40));
  j.AddVleaf(VCellId(41));
  j.AddVleaf(VCellId(42));
  std::vector<PCellId> p(j.Leaves().begin(), j.Leaves().end());
  std::vector<VCellId> v(j.Vleaves().begin(), j.Vleaves().end());
  ck_assert(p == (std::vector<PCellId>{PCellId(4), PCellId(5), PCellId(8)}));
  ck_assert(v == (std::vector<VCellId>{VCellId(40), VCellId(41), VCellId(42)}));
  const IdSpan<PCellId> from_vector(p);
  ck_assert_uint_eq(from_vector.size(), 3);
  ck_assert(from_vector[2] == PCellId(8));
}
END_TEST

}  // namespace

int main(void) {
  Suite* s = suite_create("ids");
  TCase* tc = tcase_create("ids");
  tcase_add_test(tc, none_and_order);
  tcase_add_test(tc, containers);
  tcase_add_test(tc, id_vector);
  tcase_add_test(tc, job_spans);
  suite_add_tcase(s, tc);
  return check_run(s, CK_NORMAL, CK_FORK_GETENV);
}
