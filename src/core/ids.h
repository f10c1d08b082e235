// SPDX-License-Identifier: GPL-2.0-or-later
// Typed ids (issue 16): a physical cell's id and a virtual cell's id are different
// types, and each table of cells takes only its own, so that indexing the physical
// cells with a virtual cell (the bug this prevents) does not compile. An id is one
// int32 (cells stay as small as before); kNone is the invalid id of every type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <type_traits>
#include <utility>
#include <vector>

namespace hived {

// The one "no id" value; converts to the invalid id of any type.
struct NoneId {};
constexpr NoneId kNone{};

// ==, !=, <, >, <=, >= of a type by its one integer `v`, for that type only.
template <class T>
struct OrderedByV {
  friend constexpr bool operator==(T a, T b) { return a.v == b.v; }
  friend constexpr bool operator!=(T a, T b) { return a.v != b.v; }
  friend constexpr bool operator<(T a, T b) { return a.v < b.v; }
  friend constexpr bool operator>(T a, T b) { return a.v > b.v; }
  friend constexpr bool operator<=(T a, T b) { return a.v <= b.v; }
  friend constexpr bool operator>=(T a, T b) { return a.v >= b.v; }
};

template <class Tag, class Rep = int32_t>
struct Id : OrderedByV<Id<Tag, Rep>> {
  using rep = Rep;
  constexpr Id() = default;
  constexpr Id(NoneId) {}  // NOLINT: `Id x = kNone` reads as it should
  constexpr explicit Id(Rep x) : v(x) {}
  // From a wider integer (a size, a loop index): explicit, like the above.
  template <class I,
            class = std::enable_if_t<std::is_integral<I>::value && !std::is_same<I, Rep>::value>>
  constexpr explicit Id(I x) : v(static_cast<Rep>(x)) {}

  constexpr bool valid() const { return v >= 0; }
  constexpr size_t index() const { return static_cast<size_t>(v); }

  // Ids of one table are dense: the k-th child of a cell is first_child + k, and the
  // distance between two ids is a count.
  template <class I, class = std::enable_if_t<std::is_integral<I>::value>>
  friend constexpr Id operator+(Id a, I k) {
    return Id(static_cast<Rep>(a.v + k));
  }
  friend constexpr Rep operator-(Id a, Id b) { return static_cast<Rep>(a.v - b.v); }
  Id& operator++() {
    v++;
    return *this;
  }
  Id operator++(int) { return Id(v++); }

  Rep v = -1;
};

struct PCellTag;
struct VCellTag;
using PCellId = Id<PCellTag>;  // into CellStore::pcells_
using VCellId = Id<VCellTag>;  // into CellStore::vcells_
struct VcTag;
using VcId = Id<VcTag>;  // into CellStore::vcs_
struct ChainTag;
using ChainId = Id<ChainTag, int16_t>;  // into CellStore::chains_ (int16: kept in every cell)

// A job's priority: 0..1000 guaranteed (higher preempts lower in its VC), -1
// opportunistic. A value, not an index: ordered, and no table takes it, so it cannot
// be passed where a VC, a chain or a level is expected. Requests carry a plain int
// (the C API's), checked in Validate before it becomes one.
class Priority : public OrderedByV<Priority> {
 public:
  constexpr Priority() = default;
  constexpr explicit Priority(int32_t p) : v(p) {}
  constexpr bool guaranteed() const { return v >= 0; }

  int32_t v = 0;
};
constexpr Priority kOpportunistic = Priority(-1);

// A cell's level in its chain (1 = the leaf). A value that takes part in arithmetic
// (the level below, the distance between two levels, a loop over levels) and the only
// index of a per-level table (LevelVector), so that a chain, a VC, a cell id or a plain
// int cannot index one. Cells store their level as an int8 (PCell/VCell::level) and
// wrap it at the boundary with Level(p.level).
class Level : public OrderedByV<Level> {
 public:
  constexpr Level() = default;
  constexpr explicit Level(int32_t l) : v(l) {}
  constexpr size_t index() const { return static_cast<size_t>(v); }

  friend constexpr Level operator+(Level a, int k) { return Level(a.v + k); }
  friend constexpr Level operator-(Level a, int k) { return Level(a.v - k); }
  friend constexpr int operator-(Level a, Level b) { return a.v - b.v; }
  Level& operator++() {
    v++;
    return *this;
  }
  Level& operator--() {
    v--;
    return *this;
  }
  Level operator++(int) { return Level(v++); }
  Level operator--(int) { return Level(v--); }

  int32_t v = 0;
};

// A vector indexed by one id type only.
template <class I, class T>
class IdVector {
 public:
  using value_type = T;
  IdVector() = default;
  IdVector(size_t n, const T& x) : v_(n, x) {}
  T& operator[](I i) { return v_[i.index()]; }
  const T& operator[](I i) const { return v_[i.index()]; }
  size_t size() const { return v_.size(); }
  bool empty() const { return v_.empty(); }
  size_t capacity() const { return v_.capacity(); }
  void reserve(size_t n) { v_.reserve(n); }
  void resize(size_t n) { v_.resize(n); }
  void resize(size_t n, const T& x) { v_.resize(n, x); }
  void assign(size_t n, const T& x) { v_.assign(n, x); }
  void clear() { v_.clear(); }
  void push_back(const T& x) { v_.push_back(x); }
  template <class... A>
  T& emplace_back(A&&... a) {
    return v_.emplace_back(std::forward<A>(a)...);
  }
  void shrink_to_fit() { v_.shrink_to_fit(); }
  T& back() { return v_.back(); }
  const T& back() const { return v_.back(); }
  // The id the next push_back gets.
  I next_id() const { return I(v_.size()); }
  typename std::vector<T>::iterator begin() { return v_.begin(); }
  typename std::vector<T>::iterator end() { return v_.end(); }
  typename std::vector<T>::const_iterator begin() const { return v_.begin(); }
  typename std::vector<T>::const_iterator end() const { return v_.end(); }

  // Every id of the table, in order: `for (PCellId c : pcells_.ids())`.
  class IdIter {
   public:
    explicit IdIter(I i) : i_(i) {}
    I operator*() const { return i_; }
    IdIter& operator++() {
      ++i_;
      return *this;
    }
    bool operator!=(const IdIter& o) const { return i_ != o.i_; }

   private:
    I i_;
  };
  struct IdRange {
    I b, e;
    IdIter begin() const { return IdIter(b); }
    IdIter end() const { return IdIter(e); }
  };
  IdRange ids() const { return {I(0), I(v_.size())}; }

 private:
  std::vector<T> v_;
};

// A per-level table ([level] -> T; index 0 unused where levels start at 1).
template <class T>
using LevelVector = IdVector<Level, T>;

// Consecutive ids of one type, stored as their integers: inside a job record (where
// physical leaves, virtual leaves and pod starts share one int32 array) or inside a
// vector of ids.
template <class I>
class IdSpan {
  static_assert(std::is_standard_layout<I>::value && sizeof(I) == sizeof(typename I::rep),
                "an id is exactly its integer");

 public:
  using Rep = typename I::rep;
  class Iter {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = I;
    using difference_type = std::ptrdiff_t;
    using pointer = const I*;
    using reference = I;
    explicit Iter(const Rep* p) : p_(p) {}
    I operator*() const { return I(*p_); }
    Iter& operator++() {
      p_++;
      return *this;
    }
    bool operator!=(const Iter& o) const { return p_ != o.p_; }
    bool operator==(const Iter& o) const { return p_ == o.p_; }

   private:
    const Rep* p_;
  };

  IdSpan() = default;
  IdSpan(const Rep* b, const Rep* e) : b_(b), e_(e) {}
  IdSpan(const std::vector<I>& v)  // NOLINT: a vector of ids is a span of them
      : b_(reinterpret_cast<const Rep*>(v.data())),
        e_(reinterpret_cast<const Rep*>(v.data()) + v.size()) {}
  Iter begin() const { return Iter(b_); }
  Iter end() const { return Iter(e_); }
  size_t size() const { return static_cast<size_t>(e_ - b_); }
  bool empty() const { return b_ == e_; }
  I operator[](size_t i) const { return I(b_[i]); }

 private:
  const Rep* b_ = nullptr;
  const Rep* e_ = nullptr;
};

}  // namespace hived

namespace std {
template <class Tag, class Rep>
struct hash<hived::Id<Tag, Rep>> {
  size_t operator()(hived::Id<Tag, Rep> i) const { return std::hash<Rep>()(i.v); }
};
}  // namespace std
