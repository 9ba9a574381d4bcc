// GEMM operand packing, compiled once per SIMD target (see gemm_kernel-inl.h for the layouts
// the micro-kernel expects).

#if defined(KILN_CPU_GEMM_PACK_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KILN_CPU_GEMM_PACK_INL_H_
#undef KILN_CPU_GEMM_PACK_INL_H_
#else
#define KILN_CPU_GEMM_PACK_INL_H_
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "backends/cpu/gemm_detail.h"
#include "backends/cpu/gemm_kernel-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu::HWY_NAMESPACE {
namespace gemm {

// Copies rows [m0, m0 + mc) and columns [k0, k0 + kc) of op(A) into panels of kMR rows; panel
// p starts at dst + p * kMR * kc and holds, for each k, the kMR values of that k (rows past the
// end of A are left unset: the kernel for a short tile never reads them).
inline void pack_a_block(const gemm_detail::Problem& p, int64_t m0, int64_t mc, int64_t k0,
                         int64_t kc, float* HWY_RESTRICT dst) {
  for (int64_t ir = 0; ir < mc; ir += kMR) {
    const int64_t rows = std::min<int64_t>(kMR, mc - ir);
    float* HWY_RESTRICT panel = dst + ir * kc;
    if (p.trans_a) {
      // op(A)(m, k) = A[k * lda + m]: each k is a contiguous run of rows.
      const float* src = p.a + k0 * p.lda + m0 + ir;
      for (int64_t k = 0; k < kc; ++k) {
        std::memcpy(panel + k * kMR, src + k * p.lda, static_cast<size_t>(rows) * sizeof(float));
      }
    } else {
      // op(A)(m, k) = A[m * lda + k]: interleave the rows, reading each sequentially.
      const float* src[kMR];
      for (int64_t i = 0; i < rows; ++i) src[i] = p.a + (m0 + ir + i) * p.lda + k0;
      if (rows == static_cast<int64_t>(kMR)) {
        for (int64_t k = 0; k < kc; ++k) {
#pragma GCC unroll 16
          for (size_t i = 0; i < kMR; ++i) panel[k * kMR + i] = src[i][k];
        }
      } else {
        for (int64_t k = 0; k < kc; ++k) {
          for (int64_t i = 0; i < rows; ++i) panel[k * kMR + i] = src[i][k];
        }
      }
    }
  }
}

// Packs rows [k0, k0 + kc) of column panels [panel_begin, panel_end) of op(B) (K x N): panel j
// goes to dst + (j - panel_begin) * panel_stride and holds kc rows of kNR floats, columns past
// N zeroed.
inline void pack_b_panels(bool trans_b, int64_t n, const float* b, int64_t ldb, int64_t k0,
                          int64_t kc, int64_t panel_begin, int64_t panel_end, int64_t panel_stride,
                          float* HWY_RESTRICT dst) {
  const hn::ScalableTag<float> d;
  for (int64_t jp = panel_begin; jp < panel_end; ++jp) {
    const int64_t n0 = jp * static_cast<int64_t>(kNR);
    const int64_t cols = std::min<int64_t>(kNR, n - n0);
    float* HWY_RESTRICT out = dst + (jp - panel_begin) * panel_stride;
    if (!trans_b) {
      // op(B)(k, n) = B[k * ldb + n]: each panel row is a contiguous copy.
      const float* src = b + k0 * ldb + n0;
      if (cols == static_cast<int64_t>(kNR)) {
        for (int64_t k = 0; k < kc; ++k) {
          hn::Store(hn::LoadU(d, src + k * ldb), d, out + k * kNR);
          hn::Store(hn::LoadU(d, src + k * ldb + kLanes), d, out + k * kNR + kLanes);
        }
      } else {
        for (int64_t k = 0; k < kc; ++k) {
          std::memcpy(out + k * kNR, src + k * ldb, static_cast<size_t>(cols) * sizeof(float));
          std::fill(out + k * kNR + cols, out + (k + 1) * kNR, 0.0f);
        }
      }
    } else {
      // op(B)(k, n) = B[n * ldb + k]: a transpose. Blocks of 64 k keep the destination block
      // (64 x kNR floats) in L1 while each source row is read sequentially.
      constexpr int64_t kBlock = 64;
      for (int64_t kb = 0; kb < kc; kb += kBlock) {
        const int64_t kn = std::min(kBlock, kc - kb);
        for (int64_t j = 0; j < cols; ++j) {
          const float* src = b + (n0 + j) * ldb + k0 + kb;
          float* col = out + kb * kNR + j;
          for (int64_t k = 0; k < kn; ++k) col[k * kNR] = src[k];
        }
        for (int64_t k = 0; k < kn; ++k) {
          std::fill(out + (kb + k) * kNR + cols, out + (kb + k + 1) * kNR, 0.0f);
        }
      }
    }
  }
}

}  // namespace gemm
}  // namespace kiln::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
