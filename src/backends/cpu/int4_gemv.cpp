#include "backends/cpu/int4_gemv.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "core/thread_pool.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/int4_gemv.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One block's products: acc0 the low nibbles times A's even-k values, acc1 the high nibbles
// times the odd-k ones (tail: the part after the last whole vector).
template <class DF, class V = hn::Vec<DF>>
HWY_INLINE HWY_ATTR void block_dot(DF df, const uint8_t* qb, const float* even, int64_t half,
                                   V& acc0, V& acc1, float& tail) {
  const hn::Rebind<int32_t, DF> di;
  const hn::Rebind<uint8_t, DF> du8;
  const auto lanes = static_cast<int64_t>(hn::Lanes(df));
  const float* odd = even + half;
  acc0 = hn::Zero(df);
  acc1 = hn::Zero(df);
  int64_t j = 0;
  for (; j + lanes <= half; j += lanes) {
    // One widening of the bytes, then the nibbles apart in 32-bit lanes.
    const auto bytes = hn::PromoteTo(di, hn::LoadU(du8, qb + j));
    const auto lo = hn::ConvertTo(df, hn::And(bytes, hn::Set(di, 0x0F)));
    const auto hi = hn::ConvertTo(df, hn::ShiftRight<4>(bytes));
    acc0 = hn::MulAdd(lo, hn::LoadU(df, even + j), acc0);
    acc1 = hn::MulAdd(hi, hn::LoadU(df, odd + j), acc1);
  }
  tail = 0.0f;
  for (; j < half; ++j) {
    tail += static_cast<float>(qb[j] & 0x0F) * even[j] + static_cast<float>(qb[j] >> 4) * odd[j];
  }
}

// sum_b scale[b] * dot(block b of the row's bytes, block b of `split`) - sum_b zero_scaled[b] *
// sums[b], where `split` holds each block's even-k values of A, then its odd-k ones (zero past
// K), and sums[b] their sum.
HWY_ATTR float row_dot(const uint8_t* q, const float* scales, const float* zero_scaled,
                       const float* split, const float* sums, int64_t blocks, int64_t half) {
  const hn::ScalableTag<float> df;
  const auto lanes = static_cast<int64_t>(hn::Lanes(df));
  // Two blocks at a time into separate totals, so that the scale's multiply-adds of one block
  // do not wait for the previous block's.
  auto t0 = hn::Zero(df), t1 = hn::Zero(df), t2 = hn::Zero(df), t3 = hn::Zero(df);
  float tails = 0.0f;  // blocks shorter than a vector (block_size 16 on AVX-512)
  int64_t b = 0;
  for (; b + 1 < blocks; b += 2) {
    hn::Vec<decltype(df)> a0, a1, c0, c1;
    float tail_a, tail_c;
    block_dot(df, q + b * half, split + b * 2 * half, half, a0, a1, tail_a);
    block_dot(df, q + (b + 1) * half, split + (b + 1) * 2 * half, half, c0, c1, tail_c);
    const auto sa = hn::Set(df, scales[b]), sc = hn::Set(df, scales[b + 1]);
    t0 = hn::MulAdd(sa, a0, t0);
    t1 = hn::MulAdd(sa, a1, t1);
    t2 = hn::MulAdd(sc, c0, t2);
    t3 = hn::MulAdd(sc, c1, t3);
    tails += scales[b] * tail_a + scales[b + 1] * tail_c;
  }
  if (b < blocks) {
    hn::Vec<decltype(df)> a0, a1;
    float tail_a;
    block_dot(df, q + b * half, split + b * 2 * half, half, a0, a1, tail_a);
    const auto sa = hn::Set(df, scales[b]);
    t0 = hn::MulAdd(sa, a0, t0);
    t1 = hn::MulAdd(sa, a1, t1);
    tails += scales[b] * tail_a;
  }
  const auto total = hn::Add(hn::Add(t0, t1), hn::Add(t2, t3));
  // The zero points' share, sum_b zero_scaled[b] * sums[b].
  auto zero = hn::Zero(df);
  for (b = 0; b + lanes <= blocks; b += lanes) {
    zero = hn::MulAdd(hn::LoadU(df, zero_scaled + b), hn::LoadU(df, sums + b), zero);
  }
  for (; b < blocks; ++b) tails -= zero_scaled[b] * sums[b];
  return hn::GetLane(hn::SumOfLanes(df, hn::Sub(total, zero))) + tails;
}

void int4_gemv(const Int4Weights& w, const float* a, int64_t M, const float* bias, float* y) {
  const int64_t half = w.block_size / 2, padded = w.blocks * w.block_size;
  // Per row of A: its values split by block into even and odd k, and each block's sum.
  std::vector<float> split(static_cast<size_t>(M * padded), 0.0f);
  std::vector<float> sums(static_cast<size_t>(M * w.blocks), 0.0f);
  for (int64_t m = 0; m < M; ++m) {
    const float* row = a + m * w.K;
    float* s = split.data() + m * padded;
    for (int64_t k = 0; k < w.K; ++k) {
      const int64_t b = k / w.block_size, r = k % w.block_size;
      s[b * w.block_size + (r % 2) * half + r / 2] = row[k];
      sums[m * w.blocks + b] += row[k];
    }
  }
  const int64_t row_bytes = w.blocks * half;
  // Rows of W in chunks of about 64 KiB of weight per task.
  const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, row_bytes));
  parallel_for(w.N, grain, [&](int64_t begin, int64_t end) {
    for (int64_t n = begin; n < end; ++n) {
      const uint8_t* q = w.packed.data() + n * row_bytes;
      const float* scales = w.scales.data() + n * w.blocks;
      const float* zs = w.zero_scaled.data() + n * w.blocks;
      for (int64_t m = 0; m < M; ++m) {
        const float v = row_dot(q, scales, zs, split.data() + m * padded,
                                sums.data() + m * w.blocks, w.blocks, half);
        y[m * w.N + n] = bias ? v + bias[n] : v;
      }
    }
  });
}

}  // namespace kiln::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(int4_gemv);

void int4_gemv(const Int4Weights& w, const float* a, int64_t M, const float* bias, float* y) {
  HWY_DYNAMIC_DISPATCH(int4_gemv)(w, a, M, bias, y);
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE
