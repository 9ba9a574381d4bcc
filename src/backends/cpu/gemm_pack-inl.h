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

// dst[c * ld_dst + r] = src[r * ld_src + c] for r < rows, c < cols, in 4 x 4 blocks of 128-bit
// vectors (three shuffle stages per block instead of one scalar store per float).
inline void transpose_block(const float* HWY_RESTRICT src, int64_t ld_src, int64_t rows,
                            int64_t cols, float* HWY_RESTRICT dst, int64_t ld_dst) {
  int64_t r = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::FixedTag<float, 4> d4;
  for (; r + 4 <= rows; r += 4) {
    const float* s0 = src + r * ld_src;
    const float* s1 = s0 + ld_src;
    const float* s2 = s1 + ld_src;
    const float* s3 = s2 + ld_src;
    int64_t c = 0;
    for (; c + 4 <= cols; c += 4) {
      const auto r0 = hn::LoadU(d4, s0 + c);
      const auto r1 = hn::LoadU(d4, s1 + c);
      const auto r2 = hn::LoadU(d4, s2 + c);
      const auto r3 = hn::LoadU(d4, s3 + c);
      const auto t0 = hn::InterleaveLower(d4, r0, r1);  // r0[0] r1[0] r0[1] r1[1]
      const auto t1 = hn::InterleaveLower(d4, r2, r3);
      const auto t2 = hn::InterleaveUpper(d4, r0, r1);  // r0[2] r1[2] r0[3] r1[3]
      const auto t3 = hn::InterleaveUpper(d4, r2, r3);
      float* out = dst + c * ld_dst + r;
      hn::StoreU(hn::ConcatLowerLower(d4, t1, t0), d4, out);
      hn::StoreU(hn::ConcatUpperUpper(d4, t1, t0), d4, out + ld_dst);
      hn::StoreU(hn::ConcatLowerLower(d4, t3, t2), d4, out + 2 * ld_dst);
      hn::StoreU(hn::ConcatUpperUpper(d4, t3, t2), d4, out + 3 * ld_dst);
    }
    for (; c < cols; ++c) {
      float* out = dst + c * ld_dst + r;
      out[0] = s0[c];
      out[1] = s1[c];
      out[2] = s2[c];
      out[3] = s3[c];
    }
  }
  // Two rows left (a 14- or 6-row panel is 4-row blocks and a pair): pairs of 64-bit stores
  // rather than a scalar copy per float.
  const hn::Half<decltype(d4)> d2;
  for (; r + 2 <= rows; r += 2) {
    const float* s0 = src + r * ld_src;
    const float* s1 = s0 + ld_src;
    int64_t c = 0;
    for (; c + 4 <= cols; c += 4) {
      const auto r0 = hn::LoadU(d4, s0 + c);
      const auto r1 = hn::LoadU(d4, s1 + c);
      const auto lo = hn::InterleaveLower(d4, r0, r1);  // r0[0] r1[0] r0[1] r1[1]
      const auto hi = hn::InterleaveUpper(d4, r0, r1);  // r0[2] r1[2] r0[3] r1[3]
      float* out = dst + c * ld_dst + r;
      hn::StoreU(hn::LowerHalf(d2, lo), d2, out);
      hn::StoreU(hn::UpperHalf(d2, lo), d2, out + ld_dst);
      hn::StoreU(hn::LowerHalf(d2, hi), d2, out + 2 * ld_dst);
      hn::StoreU(hn::UpperHalf(d2, hi), d2, out + 3 * ld_dst);
    }
    for (; c < cols; ++c) {
      dst[c * ld_dst + r] = s0[c];
      dst[c * ld_dst + r + 1] = s1[c];
    }
  }
#endif
  for (; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) dst[c * ld_dst + r] = src[r * ld_src + c];
  }
}

// Copies rows [m0, m0 + mc) and columns [k0, k0 + kc) of op(A) into panels of kMR rows; panel
// p starts at dst + p * kMR * kc and holds, for each k, the kMR values of that k (rows past the
// end of A are left unset: the kernel for a short tile never reads them).
inline void pack_a_block(const gemm_detail::Problem& p, int64_t m0, int64_t mc, int64_t k0,
                         int64_t kc, float* HWY_RESTRICT dst) {
  for (int64_t ir = 0; ir < mc; ir += kMR) {
    const int64_t rows = std::min(kMR, mc - ir);
    float* HWY_RESTRICT panel = dst + ir * kc;
    if (p.trans_a) {
      // op(A)(m, k) = A[k * lda + m]: each k is a contiguous run of rows.
      const float* src = p.a + k0 * p.lda + m0 + ir;
      if (rows == kMR) {
        for (int64_t k = 0; k < kc; ++k) {
          std::memcpy(panel + k * kMR, src + k * p.lda, kMR * sizeof(float));
        }
      } else {
        for (int64_t k = 0; k < kc; ++k) {
          std::memcpy(panel + k * kMR, src + k * p.lda, static_cast<size_t>(rows) * sizeof(float));
        }
      }
    } else {
      // op(A)(m, k) = A[m * lda + k]: interleaving the rows is a transpose.
      transpose_block(p.a + (m0 + ir) * p.lda + k0, p.lda, rows, kc, panel, kMR);
    }
  }
}

// Packs rows [k0, k0 + kc) of column panels [panel_begin, panel_end) of op(B) (K x N): panel j
// goes to dst + (j - panel_begin) * panel_stride and holds kc rows of panel_width(j) floats,
// columns past N zeroed. (Only the last panel can be narrower, so the offsets hold.)
inline void pack_b_panels(bool trans_b, int64_t n, const float* b, int64_t ldb, int64_t k0,
                          int64_t kc, int64_t panel_begin, int64_t panel_end, int64_t panel_stride,
                          float* HWY_RESTRICT dst) {
  const hn::ScalableTag<float> d;
  if (!trans_b) {
    // op(B)(k, n) = B[k * ldb + n]: copies. Row by row over a group of panels, so that B is read
    // as long sequential runs (reading one panel at a time would touch each row for only kNR
    // floats, which the prefetchers cannot follow), while the group's panels stay cached.
    constexpr int64_t kGroup = 16;
    for (int64_t g0 = panel_begin; g0 < panel_end; g0 += kGroup) {
      const int64_t g1 = std::min(panel_end, g0 + kGroup);
      const int64_t full_end = std::min(g1, n / kNR);  // panels with all kNR columns
      for (int64_t k = 0; k < kc; ++k) {
        const float* src = b + (k0 + k) * ldb;
        for (int64_t jp = g0; jp < full_end; ++jp) {
          float* HWY_RESTRICT out = dst + (jp - panel_begin) * panel_stride + k * kNR;
#pragma GCC unroll 3
          for (int64_t v = 0; v < kPanelVecs; ++v) {
            hn::Store(hn::LoadU(d, src + jp * kNR + v * kLanes), d, out + v * kLanes);
          }
        }
        for (int64_t jp = std::max(g0, full_end); jp < g1; ++jp) {  // the last, partial panel
          const int64_t cols = n - jp * kNR;
          const int64_t width = panel_width(jp, n);
          float* HWY_RESTRICT out = dst + (jp - panel_begin) * panel_stride + k * width;
          std::memcpy(out, src + jp * kNR, static_cast<size_t>(cols) * sizeof(float));
          std::fill(out + cols, out + width, 0.0f);
        }
      }
    }
    return;
  }
  for (int64_t jp = panel_begin; jp < panel_end; ++jp) {
    const int64_t n0 = jp * kNR;
    const int64_t cols = std::min(kNR, n - n0);
    const int64_t width = panel_width(jp, n);
    float* HWY_RESTRICT out = dst + (jp - panel_begin) * panel_stride;
    // op(B)(k, n) = B[n * ldb + k]: a transpose. Blocks of 64 k keep the destination block
    // (64 x kNR floats) in L1 while each source row is read sequentially.
    constexpr int64_t kBlock = 64;
    for (int64_t kb = 0; kb < kc; kb += kBlock) {
      const int64_t kn = std::min(kBlock, kc - kb);
      transpose_block(b + n0 * ldb + k0 + kb, ldb, cols, kn, out + kb * width, width);
      for (int64_t k = 0; k < kn; ++k) {
        std::fill(out + (kb + k) * width + cols, out + (kb + k + 1) * width, 0.0f);
      }
    }
  }
}

}  // namespace gemm
}  // namespace kiln::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
