// GEMM path for very narrow products (GEMV-like: M == 1 with a transposed B, or a handful of
// columns), compiled once per SIMD target. There the register tile of the blocked path would
// be mostly padding; instead each C element is a dot product vectorised along K, with a small
// tile of rows x columns sharing the loads.

#if defined(KILN_CPU_GEMM_DOT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KILN_CPU_GEMM_DOT_INL_H_
#undef KILN_CPU_GEMM_DOT_INL_H_
#else
#define KILN_CPU_GEMM_DOT_INL_H_
#endif

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "backends/cpu/gemm_detail.h"
#include "backends/cpu/gemm_kernel-inl.h"
#include "backends/cpu/gemm_plan.h"
#include "core/thread_pool.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu::HWY_NAMESPACE {
namespace gemm {

// rows x cols accumulators plus cols loaded vectors and one more must fit the register file.
inline constexpr size_t kDotRows = HWY_MAX_BYTES >= 64 ? 4 : 2;
inline constexpr size_t kDotCols = 4;

using DotFn = void (*)(const float* x, size_t ldx, const float* y, size_t ldy, size_t k,
                       float* out);

// out[i * kCols + j] = dot(x + i * ldx, y + j * ldy) over k elements.
template <size_t kRows, size_t kCols>
HWY_NOINLINE void dot_tile(const float* HWY_RESTRICT x, size_t ldx, const float* HWY_RESTRICT y,
                           size_t ldy, size_t k, float* HWY_RESTRICT out) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  V acc[kRows][kCols];
#pragma GCC unroll 8
  for (size_t i = 0; i < kRows; ++i) {
#pragma GCC unroll 8
    for (size_t j = 0; j < kCols; ++j) acc[i][j] = hn::Zero(d);
  }
  size_t kk = 0;
  for (; kk + kLanes <= k; kk += kLanes) {
    V yv[kCols];
#pragma GCC unroll 8
    for (size_t j = 0; j < kCols; ++j) yv[j] = hn::LoadU(d, y + j * ldy + kk);
#pragma GCC unroll 8
    for (size_t i = 0; i < kRows; ++i) {
      const V xv = hn::LoadU(d, x + i * ldx + kk);
#pragma GCC unroll 8
      for (size_t j = 0; j < kCols; ++j) acc[i][j] = hn::MulAdd(xv, yv[j], acc[i][j]);
    }
  }
  for (size_t i = 0; i < kRows; ++i) {
    for (size_t j = 0; j < kCols; ++j) {
      float sum = hn::GetLane(hn::SumOfLanes(d, acc[i][j]));
      for (size_t t = kk; t < k; ++t) sum += x[i * ldx + t] * y[j * ldy + t];
      out[i * kCols + j] = sum;
    }
  }
}

template <size_t kRows, size_t... kCols>
constexpr std::array<DotFn, kDotCols> make_dot_row(std::index_sequence<kCols...>) {
  return {&dot_tile<kRows, kCols + 1>...};
}
template <size_t... kRows>
constexpr auto make_dot_table(std::index_sequence<kRows...>) {
  return std::array<std::array<DotFn, kDotCols>, kDotRows>{
      make_dot_row<kRows + 1>(std::make_index_sequence<kDotCols>{})...};
}
// dot_table()[rows - 1][cols - 1]
inline const std::array<std::array<DotFn, kDotCols>, kDotRows>& dot_table() {
  static constexpr auto table = make_dot_table(std::make_index_sequence<kDotRows>{});
  return table;
}

// Whether the dot-product path beats the blocked one: it needs op(A) rows contiguous in K
// (gathering is cheap only for a single row) and enough K to fill vectors. (M == 1 with
// op(B) = B, and N == 1 with op(A) = A^T, go to gemv first.)
inline bool use_dot_path(const gemm_detail::Problem& p, bool trans_b) {
  if (p.k < kLanes) return false;
  if (p.m == 1) return trans_b;
  return !p.trans_a && p.n <= kNR / 4;
}

inline void dot_gemm(const gemm_detail::Problem& p, bool trans_b, const float* b, int64_t ldb) {
  using gemm_detail::Scratch;
  const int64_t m = p.m;
  const int64_t n = p.n;
  const int64_t k = p.k;
  // Rows of op(A) and columns of op(B), each contiguous along K.
  const float* x = p.a;
  int64_t ldx = p.lda;
  if (p.trans_a) {  // only M == 1 gets here: gather A(k, 0), k = 0..K-1
    float* gathered = gemm_detail::thread_scratch(Scratch::kPackA, static_cast<size_t>(k));
    for (int64_t t = 0; t < k; ++t) gathered[t] = p.a[t * p.lda];
    x = gathered;
    ldx = k;
  }
  const float* y = b;
  int64_t ldy = ldb;
  if (!trans_b) {  // a few columns: gather them into rows
    float* gathered = gemm_detail::thread_scratch(Scratch::kPackB, static_cast<size_t>(n * k));
    for (int64_t t = 0; t < k; ++t) {
      for (int64_t j = 0; j < n; ++j) gathered[j * k + t] = b[t * ldb + j];
    }
    y = gathered;
    ldy = k;
  }

  const auto& table = dot_table();
  const int64_t row_tiles = (m + kDotRows - 1) / kDotRows;
  const int64_t col_tiles = (n + kDotCols - 1) / kDotCols;
  // Items are tiles in row-major order; a parallel_for chunk is a run of them.
  auto body = [&](int64_t begin, int64_t end) {
    float out[kDotRows * kDotCols];
    for (int64_t t = begin; t < end; ++t) {
      const int64_t m0 = t / col_tiles * kDotRows;
      const int64_t n0 = t % col_tiles * kDotCols;
      const int64_t rows = std::min<int64_t>(kDotRows, m - m0);
      const int64_t cols = std::min<int64_t>(kDotCols, n - n0);
      table[rows - 1][cols - 1](x + m0 * ldx, static_cast<size_t>(ldx), y + n0 * ldy,
                                static_cast<size_t>(ldy), static_cast<size_t>(k), out);
      for (int64_t i = 0; i < rows; ++i) {
        float* c = p.c + (m0 + i) * p.ldc + n0;
        for (int64_t j = 0; j < cols; ++j) {
          c[j] = gemm_detail::finish_scalar(p.ep, out[i * cols + j], c + j, m0 + i, n0 + j);
        }
      }
    }
  };
  const int64_t tiles = row_tiles * col_tiles;
  const double flops =
      2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  const int threads = gemm_detail::available_threads();
  if (threads <= 1 || flops < gemm_detail::kMinParallelFlops || tiles < 2) {
    body(0, tiles);
  } else {
    // A few chunks per thread, each worth a wake-up.
    const double tile_flops = flops / static_cast<double>(tiles);
    const int64_t grain = std::max<int64_t>(
        1, static_cast<int64_t>(gemm_detail::kMinParallelFlops / 4.0 / tile_flops));
    parallel_for(tiles, grain, body);
  }
}

}  // namespace gemm
}  // namespace kiln::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
