// SPDX-License-Identifier: GPL-2.0-or-later
// An ordered set of cell ids, for the best-fit buckets (Chain::node_by_avail,
// VcChain::unit_by_free) and the buddy free lists.
//
// Every job that starts or ends moves its nodes and units between buckets, and a
// WILL_RUN trial ends and puts back hundreds of jobs: as std::set nodes those moves
// were tree rebalancing plus a heap node per insert (doc/bench.md, fifteenth round).
// Here a set is two levels of bits over the span of ids it holds: insert, erase and
// count are a few word operations and allocate nothing once the span covers the id;
// iteration is in ascending id order, as std::set's (the decisions' tie-breaks follow
// it), and skips 64 absent ids per clear bit of the summary level. Iterators read the
// live bits, so inserting or erasing other ids while iterating behaves as it does
// for a std::set: erased ids ahead are not visited, inserted ones ahead are. Only
// an insert outside the span (which grows it) invalidates iterators.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

namespace hived {

template <class I>
class IdSet {
 public:
  // Covers [lo, hi) without growing later: what the set may ever hold, if known.
  void Span(int32_t lo, int32_t hi) {
    if (hi > lo) {
      Cover(lo);
      Cover(hi - 1);
    }
  }
  bool insert(I id) {
    Cover(id.v);
    const size_t r = Rel(id.v);
    uint64_t& w = words_[r >> 6];
    const uint64_t bit = uint64_t{1} << (r & 63);
    if (w & bit) return false;
    w |= bit;
    summary_[r >> 12] |= uint64_t{1} << ((r >> 6) & 63);
    size_++;
    return true;
  }
  size_t erase(I id) {
    if (!Covers(id.v)) return 0;
    const size_t r = Rel(id.v);
    uint64_t& w = words_[r >> 6];
    const uint64_t bit = uint64_t{1} << (r & 63);
    if (!(w & bit)) return 0;
    w &= ~bit;
    if (!w) summary_[r >> 12] &= ~(uint64_t{1} << ((r >> 6) & 63));
    size_--;
    return 1;
  }
  size_t count(I id) const {
    if (!Covers(id.v)) return 0;
    const size_t r = Rel(id.v);
    return (words_[r >> 6] >> (r & 63)) & 1;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Heap bytes behind the set: a bit per id of its span, and one per 64 of those.
  size_t Bytes() const { return (words_.capacity() + summary_.capacity()) * sizeof(uint64_t); }

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = I;
    using difference_type = std::ptrdiff_t;
    using pointer = const I*;
    using reference = I;
    const_iterator() = default;
    I operator*() const { return I(static_cast<int32_t>(s_->base_ + static_cast<int64_t>(r_))); }
    const_iterator& operator++() {
      r_ = s_->Next(r_ + 1);
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator t = *this;
      ++*this;
      return t;
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) {
      return a.r_ == b.r_;
    }
    friend bool operator!=(const const_iterator& a, const const_iterator& b) {
      return a.r_ != b.r_;
    }

   private:
    friend class IdSet;
    const_iterator(const IdSet* s, size_t r) : s_(s), r_(r) {}
    const IdSet* s_ = nullptr;
    size_t r_ = kEnd;
  };
  const_iterator begin() const { return const_iterator(this, Next(0)); }
  const_iterator end() const { return const_iterator(this, kEnd); }

 private:
  static constexpr size_t kEnd = SIZE_MAX;

  bool Covers(int32_t v) const {
    return v >= base_ && static_cast<int64_t>(v) - base_ < static_cast<int64_t>(words_.size()) * 64;
  }
  size_t Rel(int32_t v) const { return static_cast<size_t>(static_cast<int64_t>(v) - base_); }
  static int64_t FloorWord(int64_t v) { return v >= 0 ? v / 64 * 64 : -((-v + 63) / 64) * 64; }
  // Grows the span to hold v: rare (the engine spans its sets when it builds them), so
  // the summary is simply rebuilt. The span starts at a multiple of 64 ids and holds
  // whole words: a small cluster's sets stay small.
  void Cover(int32_t v) {
    if (Covers(v)) return;
    const int64_t end = base_ + static_cast<int64_t>(words_.size()) * 64;
    const int64_t lo = words_.empty() ? FloorWord(v) : std::min<int64_t>(base_, FloorWord(v));
    const int64_t hi =
        words_.empty() ? FloorWord(v) + 64 : std::max<int64_t>(end, FloorWord(v) + 64);
    std::vector<uint64_t> words(static_cast<size_t>((hi - lo) / 64), 0);
    std::copy(words_.begin(), words_.end(),
              words.begin() + static_cast<std::ptrdiff_t>((base_ - lo) / 64 * !words_.empty()));
    std::vector<uint64_t> summary((words.size() + 63) / 64, 0);
    for (size_t k = 0; k < words.size(); k++)
      if (words[k]) summary[k >> 6] |= uint64_t{1} << (k & 63);
    words_.swap(words);
    summary_.swap(summary);
    base_ = static_cast<int32_t>(lo);
  }
  // The first id present at relative position r or after it (kEnd: none).
  size_t Next(size_t r) const {
    const size_t n = words_.size() * 64;
    if (r >= n) return kEnd;
    size_t w = r >> 6;
    uint64_t bits = words_[w] & (~uint64_t{0} << (r & 63));
    if (bits) return (w << 6) + static_cast<size_t>(__builtin_ctzll(bits));
    // The words after w, by the summary.
    size_t next_w = w + 1;
    size_t sw = next_w >> 6;
    if (sw >= summary_.size()) return kEnd;
    uint64_t sbits = summary_[sw] & (~uint64_t{0} << (next_w & 63));
    while (!sbits) {
      if (++sw >= summary_.size()) return kEnd;
      sbits = summary_[sw];
    }
    w = (sw << 6) + static_cast<size_t>(__builtin_ctzll(sbits));
    return (w << 6) + static_cast<size_t>(__builtin_ctzll(words_[w]));
  }

  int32_t base_ = 0;               // the id of bit 0
  std::vector<uint64_t> words_;    // bit r: id base_ + r is present
  std::vector<uint64_t> summary_;  // bit k: words_[k] is not zero
  size_t size_ = 0;
};

}  // namespace hived
