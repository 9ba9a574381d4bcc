// kiln::Shape — a tensor's dimensions, kept inline for ranks up to 8 so that kernels can build
// output shapes on the hot path without touching the heap.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "kiln/export.h"

namespace kiln {

class KILN_API Shape {
 public:
  static constexpr size_t kInlineRank = 8;

  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) { assign(dims.begin(), dims.end()); }
  explicit Shape(std::span<const int64_t> dims) { assign(dims.begin(), dims.end()); }
  Shape(const std::vector<int64_t>& dims) {
    assign(dims.begin(), dims.end());
  }  // NOLINT: implicit by design
  template <class It>
  Shape(It first, It last) {
    assign(first, last);
  }
  Shape(const Shape& other) { assign(other.begin(), other.end()); }
  Shape& operator=(const Shape& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  Shape(Shape&& other) noexcept { *this = std::move(other); }
  Shape& operator=(Shape&& other) noexcept {
    if (this == &other) return *this;
    rank_ = other.rank_;
    heap_ = std::move(other.heap_);
    std::copy(other.inline_, other.inline_ + kInlineRank, inline_);
    other.rank_ = 0;
    return *this;
  }

  size_t size() const { return rank_; }
  size_t rank() const { return rank_; }
  bool empty() const { return rank_ == 0; }
  int64_t* data() { return rank_ > kInlineRank ? heap_.data() : inline_; }
  const int64_t* data() const { return rank_ > kInlineRank ? heap_.data() : inline_; }
  int64_t& operator[](size_t i) { return data()[i]; }
  int64_t operator[](size_t i) const { return data()[i]; }
  int64_t* begin() { return data(); }
  int64_t* end() { return data() + rank_; }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + rank_; }
  int64_t& back() { return data()[rank_ - 1]; }
  int64_t back() const { return data()[rank_ - 1]; }
  int64_t& front() { return data()[0]; }
  int64_t front() const { return data()[0]; }
  std::span<const int64_t> span() const { return {data(), rank_}; }
  std::vector<int64_t> to_vector() const { return {begin(), end()}; }

  void push_back(int64_t d) {
    resize(rank_ + 1);
    back() = d;
  }
  void pop_back() { resize(rank_ - 1); }
  void clear() { resize(0); }
  // Inserts `d` before position `pos` (0..rank).
  void insert(size_t pos, int64_t d) {
    resize(rank_ + 1);
    int64_t* p = data();
    for (size_t i = rank_ - 1; i > pos; --i) p[i] = p[i - 1];
    p[pos] = d;
  }
  void erase(size_t pos) {
    int64_t* p = data();
    for (size_t i = pos; i + 1 < rank_; ++i) p[i] = p[i + 1];
    resize(rank_ - 1);
  }
  void resize(size_t rank, int64_t fill = 0) {
    if (rank > kInlineRank && rank_ <= kInlineRank) {
      heap_.assign(inline_, inline_ + rank_);
    } else if (rank <= kInlineRank && rank_ > kInlineRank) {
      std::copy(heap_.begin(), heap_.begin() + static_cast<std::ptrdiff_t>(rank), inline_);
      heap_.clear();
    }
    if (rank > kInlineRank) heap_.resize(rank, fill);
    for (size_t i = rank_; i < rank && rank <= kInlineRank; ++i) inline_[i] = fill;
    rank_ = rank;
  }

  // Number of elements: the product of the dimensions (1 for a scalar).
  int64_t element_count() const {
    int64_t n = 1;
    for (int64_t d : *this) n *= d;
    return n;
  }
  // "[1, 3, 224, 224]"
  std::string to_string() const {
    std::string s = "[";
    for (size_t i = 0; i < rank_; ++i) s += (i ? ", " : "") + std::to_string((*this)[i]);
    return s + "]";
  }

  friend bool operator==(const Shape& a, const Shape& b) {
    return a.rank_ == b.rank_ && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }

 private:
  template <class It>
  void assign(It first, It last) {
    resize(static_cast<size_t>(std::distance(first, last)));
    std::copy(first, last, begin());
  }

  size_t rank_ = 0;
  int64_t inline_[kInlineRank] = {};
  std::vector<int64_t> heap_;
};

}  // namespace kiln
