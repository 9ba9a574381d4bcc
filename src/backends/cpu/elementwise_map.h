// Loops shared by the element-wise unary and activation kernels: map a function over a
// contiguous array (split over the job system when large), and walk the rows of an
// N-input broadcast.
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>

#include "core/dtype_dispatch.h"
#include "core/thread_pool.h"
#include "kiln/tensor.h"
#include "opdefs/broadcast.h"

namespace kiln::cpu {

// Cheap element-wise work (compare, add) pays off splitting only for large arrays;
// transcendental functions cost ~10x more per element, so they split sooner.
inline constexpr int64_t kCheapGrain = 32768;
inline constexpr int64_t kCostlyGrain = 4096;

// The type a kernel computes in: the storage-only float types go through float.
template <class T>
using compute_t = std::conditional_t<is_small_float_v<T>, float, T>;

// out[i] = f(in[i]) for i in [0, n); in and out may alias.
template <class In, class Out, class F>
void map_elements(const In* in, Out* out, int64_t n, int64_t grain, const F& f) {
  auto body = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = f(in[i]);
  };
  if (n <= grain) {
    body(0, n);
  } else {
    parallel_for(n, grain, body);
  }
}

// Runs body(begin, end) over [0, n), split over the job system when n exceeds grain.
template <class Body>
void split_range(int64_t n, int64_t grain, const Body& body) {
  if (n <= grain) {
    if (n > 0) body(int64_t{0}, n);
  } else {
    parallel_for(n, grain, body);
  }
}

// Multidirectional broadcast of `count` shapes into `out`; false when they are incompatible.
// Allocation-free for ranks up to Shape's inline capacity.
inline bool broadcast_into(const Shape* shapes, size_t count, Shape& out) {
  size_t rank = 0;
  for (size_t k = 0; k < count; ++k) rank = std::max(rank, shapes[k].size());
  out.resize(rank, 1);
  for (size_t i = 0; i < rank; ++i) out[i] = 1;
  for (size_t k = 0; k < count; ++k) {
    const Shape& s = shapes[k];
    const size_t offset = rank - s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      const int64_t d = s[i];
      int64_t& o = out[i + offset];
      if (d == o || d == 1) continue;
      if (o != 1) return false;
      o = d;
    }
  }
  return true;
}

// Calls row(out_offset, offsets, inner) for every row (run along the last dimension) of `out`,
// where offsets[k] is where input k's row starts and strides[k][rank-1] steps along it. Rows
// are split over the job system when the output is large.
template <size_t N, class Row>
void for_each_broadcast_row(const Shape& out, const std::array<Shape, N>& strides, int64_t grain,
                            const Row& row) {
  const int64_t total = out.element_count();
  if (total == 0) return;
  const size_t rank = out.size();
  if (rank == 0) {
    std::array<int64_t, N> offsets{};
    row(int64_t{0}, offsets, int64_t{1});
    return;
  }
  const int64_t inner = out[rank - 1];
  const int64_t rows = total / inner;
  auto run_rows = [&](int64_t begin, int64_t end) {
    // Position of row `begin` in the outer dimensions, and the input offsets there.
    Shape index;
    index.resize(rank, 0);
    std::array<int64_t, N> offsets{};
    int64_t r = begin;
    for (size_t d = rank - 1; d-- > 0;) {
      index[d] = r % out[d];
      r /= out[d];
      for (size_t k = 0; k < N; ++k) offsets[k] += index[d] * strides[k][d];
    }
    for (int64_t i = begin; i < end; ++i) {
      row(i * inner, offsets, inner);
      for (size_t d = rank - 1; d-- > 0;) {
        ++index[d];
        for (size_t k = 0; k < N; ++k) offsets[k] += strides[k][d];
        if (index[d] < out[d]) break;
        for (size_t k = 0; k < N; ++k) offsets[k] -= strides[k][d] * out[d];
        index[d] = 0;
      }
    }
  };
  split_range(rows, std::max<int64_t>(1, grain / std::max<int64_t>(inner, 1)), run_rows);
}

}  // namespace kiln::cpu
