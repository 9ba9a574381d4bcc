// GEMM register-blocked micro-kernel, compiled once per SIMD target (included from gemm.cpp
// through hwy/foreach_target.h). A tile of up to kMR rows x kNR columns of C lives in vector
// registers while the kernel streams a packed A panel (k-major, kMR floats per k) and a B panel
// (kNR floats per k, `b_stride` floats apart).

// Per-target include guard, as Highway's foreach_target requires.
#if defined(KILN_CPU_GEMM_KERNEL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KILN_CPU_GEMM_KERNEL_INL_H_
#undef KILN_CPU_GEMM_KERNEL_INL_H_
#else
#define KILN_CPU_GEMM_KERNEL_INL_H_
#endif

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "hwy/cache_control.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu::HWY_NAMESPACE {
namespace gemm {

namespace hn = hwy::HWY_NAMESPACE;

inline constexpr int64_t kLanes = HWY_LANES(float);
// The register tile is kMR rows x kPanelVecs vectors of accumulators, next to kPanelVecs B
// vectors and one broadcast A value. AVX-512 (32 registers): 14 x 2 + 2 + 1 = 31, each
// broadcast feeding two FMAs, a tile row one 128-byte span of C. AVX2+FMA (16 registers):
// 4 x 3 + 3 + 1 = 16, rather than the 6 x 2 + 2 + 1 of the usual 6 x 16 tile: the same 12
// accumulators, but 4 broadcasts and 3 loads per 12 FMAs instead of 6 and 2 (on Zen 4, 1024^3
// at one thread: 1-2 points more of the AVX2 peak, ~86 % against ~84 %). SSE4 has no FMA, and
// its two-operand multiply needs a temporary: 4 x 2 + 4.
inline constexpr int64_t kPanelVecs = HWY_MAX_BYTES == 32 ? 3 : 2;
inline constexpr int64_t kNR = kPanelVecs * kLanes;
inline constexpr int64_t kMR = HWY_MAX_BYTES >= 64 ? 14 : 4;

// How a kernel combines its accumulators with C.
struct TileStore {
  float alpha = 1.0f;
  float c_scale = 0.0f;             // C = alpha * acc + c_scale * C; 0: C is not read
  bool finish = false;              // last K block: add the biases, then clamp
  const float* row_bias = nullptr;  // the tile's first row, or null
  const float* col_bias = nullptr;  // the tile's first column, or null
  bool clamp = false;
  float lo = 0.0f;
  float hi = 0.0f;
};

using KernelFn = void (*)(const float* HWY_RESTRICT a, size_t lda, const float* HWY_RESTRICT b,
                          size_t b_stride, size_t kc, float* HWY_RESTRICT c, size_t ldc,
                          const TileStore& store);

// C tile (kRows x kVecs vectors at c, rows ldc apart) = store(sum over kc of A column x B row).
// A is either packed (kDirectA false: kMR floats per k, lda unused) or read in place from
// kRows rows lda floats apart (kDirectA true), which saves packing when each A panel is used
// by only a few B panels. B rows are b_stride floats apart. kVecs is kPanelVecs (a full kNR
// panel) or fewer (a narrower last panel, packed that narrow to skip the padding FMAs).
template <size_t kRows, size_t kVecs, bool kDirectA>
HWY_NOINLINE void micro_kernel(const float* HWY_RESTRICT a, size_t lda, const float* HWY_RESTRICT b,
                               size_t b_stride, size_t kc, float* HWY_RESTRICT c, size_t ldc,
                               const TileStore& store) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  // With fewer than 8 independent accumulator chains the FMA latency (4 cycles on each of 2
  // pipes) would show; then even and odd k get their own accumulators.
  constexpr size_t kSplit = kRows * kVecs < 8 ? 2 : 1;
  V acc[kSplit][kRows][kVecs];
#pragma GCC unroll 32
  for (size_t s = 0; s < kSplit; ++s) {
#pragma GCC unroll 32
    for (size_t i = 0; i < kRows; ++i) {
#pragma GCC unroll 3
      for (size_t j = 0; j < kVecs; ++j) acc[s][i][j] = hn::Zero(d);
    }
  }
  // The C tile is read (or at least written) after the k loop; asking for its lines now hides
  // the miss: C is revisited once per K block, long after the tile left L1.
#pragma GCC unroll 32
  for (size_t i = 0; i < kRows; ++i) {
#pragma GCC unroll 3
    for (size_t j = 0; j < kVecs; ++j) hwy::Prefetch(c + i * ldc + j * kLanes);
    hwy::Prefetch(c + i * ldc + kVecs * kLanes - 1);
  }
  const float* HWY_RESTRICT rows[kRows];
#pragma GCC unroll 32
  for (size_t i = 0; i < kRows; ++i) rows[i] = a + i * lda;
  // One k step into accumulator set s.
  const auto step = [&](size_t s, size_t k) HWY_ATTR {
    V bv[kVecs];
#pragma GCC unroll 3
    for (size_t j = 0; j < kVecs; ++j) bv[j] = hn::LoadU(d, b + j * kLanes);
#pragma GCC unroll 32
    for (size_t i = 0; i < kRows; ++i) {
      const V ai = hn::Set(d, kDirectA ? rows[i][k] : a[k * kMR + i]);
#pragma GCC unroll 3
      for (size_t j = 0; j < kVecs; ++j) acc[s][i][j] = hn::MulAdd(ai, bv[j], acc[s][i][j]);
    }
    b += b_stride;
  };

  size_t k = 0;
  if constexpr (kSplit == 2) {
    for (; k + 2 <= kc; k += 2) {
      step(0, k);
      step(1, k + 1);
    }
  }
  for (; k < kc; ++k) step(0, k);

  const V alpha = hn::Set(d, store.alpha);
  const V c_scale = hn::Set(d, store.c_scale);
  const V lo = hn::Set(d, store.lo);
  const V hi = hn::Set(d, store.hi);
#pragma GCC unroll 32
  for (size_t i = 0; i < kRows; ++i) {
    float* HWY_RESTRICT row = c + i * ldc;
#pragma GCC unroll 3
    for (size_t j = 0; j < kVecs; ++j) {
      V v = acc[0][i][j];
      if constexpr (kSplit == 2) v = hn::Add(v, acc[1][i][j]);
      v = hn::Mul(v, alpha);
      if (store.c_scale != 0.0f) v = hn::MulAdd(hn::LoadU(d, row + j * kLanes), c_scale, v);
      if (store.finish) {
        if (store.row_bias) v = hn::Add(v, hn::Set(d, store.row_bias[i]));
        if (store.col_bias) v = hn::Add(v, hn::LoadU(d, store.col_bias + j * kLanes));
        if (store.clamp) v = hn::Min(hn::Max(v, lo), hi);
      }
      hn::StoreU(v, d, row + j * kLanes);
    }
  }
}

using KernelTable = std::array<KernelFn, kMR>;

template <size_t kVecs, bool kDirectA, size_t... kRows>
constexpr KernelTable make_kernel_table(std::index_sequence<kRows...>) {
  return {&micro_kernel<kRows + 1, kVecs, kDirectA>...};
}

template <size_t... kVecsMinus1>
constexpr auto make_kernel_tables(std::index_sequence<kVecsMinus1...>) {
  using Rows = std::make_index_sequence<kMR>;
  return std::array<std::array<KernelTable, 2>, sizeof...(kVecsMinus1)>{
      {{make_kernel_table<kVecsMinus1 + 1, false>(Rows{}),
        make_kernel_table<kVecsMinus1 + 1, true>(Rows{})}...}};
}

// kernel_table(vecs, direct_a)[rows - 1] handles a tile of `rows` rows and `vecs` vectors.
inline const KernelTable& kernel_table(size_t vecs, bool direct_a) {
  static constexpr auto tables = make_kernel_tables(std::make_index_sequence<kPanelVecs>{});
  return tables[vecs - 1][direct_a];
}

// Columns of B panel jp as packed: kNR, or for a last panel that narrow, its columns rounded up
// to whole vectors (the kernel for that many vectors skips the padding FMAs of the rest).
inline int64_t panel_width(int64_t jp, int64_t n) {
  const int64_t cols = n - jp * kNR;
  return cols >= kNR ? kNR : (cols + kLanes - 1) / kLanes * kLanes;
}

}  // namespace gemm
}  // namespace kiln::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
