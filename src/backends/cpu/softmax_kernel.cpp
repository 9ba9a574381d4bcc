#include "backends/cpu/softmax_kernel.h"

#include <algorithm>
#include <cmath>
#include <limits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/softmax_kernel.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// One contiguous row of n elements.
void softmax_row(const float* HWY_RESTRICT x, float* HWY_RESTRICT y, int64_t n, bool log) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const float lowest = -std::numeric_limits<float>::infinity();

  auto vmax = hn::Set(d, lowest);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) vmax = hn::Max(vmax, hn::LoadU(d, x + i));
  float max = hn::GetLane(hn::MaxOfLanes(d, vmax));
  for (; i < n; ++i) max = std::max(max, x[i]);

  const auto vm = hn::Set(d, max);
  auto vsum = hn::Zero(d);
  float sum = 0.0f;
  i = 0;
  if (log) {  // only the sum is needed; y is written from x below
    for (; i + lanes <= n; i += lanes) {
      vsum = hn::Add(vsum, hn::Exp(d, hn::Sub(hn::LoadU(d, x + i), vm)));
    }
    sum = hn::GetLane(hn::SumOfLanes(d, vsum));
    for (; i < n; ++i) sum += std::exp(x[i] - max);
    const float shift = max + std::log(sum);
    const auto vs = hn::Set(d, shift);
    i = 0;
    for (; i + lanes <= n; i += lanes) hn::StoreU(hn::Sub(hn::LoadU(d, x + i), vs), d, y + i);
    for (; i < n; ++i) y[i] = x[i] - shift;
    return;
  }
  for (; i + lanes <= n; i += lanes) {
    const auto e = hn::Exp(d, hn::Sub(hn::LoadU(d, x + i), vm));
    hn::StoreU(e, d, y + i);
    vsum = hn::Add(vsum, e);
  }
  sum = hn::GetLane(hn::SumOfLanes(d, vsum));
  for (; i < n; ++i) {
    y[i] = std::exp(x[i] - max);
    sum += y[i];
  }
  const float inv = 1.0f / sum;
  const auto vinv = hn::Set(d, inv);
  i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(hn::Mul(hn::LoadU(d, y + i), vinv), d, y + i);
  for (; i < n; ++i) y[i] *= inv;
}

// Columns [i0, i0 + width) of one [n, inner] slab: the axis is strided, so whole vectors of
// neighbouring columns are processed together and each row of the slab is read contiguously.
constexpr int64_t kTile = kSoftmaxTile;

void softmax_tile(const float* HWY_RESTRICT x, float* HWY_RESTRICT y, int64_t n, int64_t inner,
                  int64_t width, bool log) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  HWY_ALIGN float max[kTile];
  HWY_ALIGN float sum[kTile];
  std::fill_n(max, width, -std::numeric_limits<float>::infinity());
  std::fill_n(sum, width, 0.0f);
  const int64_t vec_width = width / lanes * lanes;

  for (int64_t k = 0; k < n; ++k) {
    const float* row = x + k * inner;
    for (int64_t j = 0; j < vec_width; j += lanes) {
      hn::Store(hn::Max(hn::Load(d, max + j), hn::LoadU(d, row + j)), d, max + j);
    }
    for (int64_t j = vec_width; j < width; ++j) max[j] = std::max(max[j], row[j]);
  }
  for (int64_t k = 0; k < n; ++k) {
    const float* row = x + k * inner;
    float* out = y + k * inner;
    for (int64_t j = 0; j < vec_width; j += lanes) {
      const auto e = hn::Exp(d, hn::Sub(hn::LoadU(d, row + j), hn::Load(d, max + j)));
      if (!log) hn::StoreU(e, d, out + j);
      hn::Store(hn::Add(hn::Load(d, sum + j), e), d, sum + j);
    }
    for (int64_t j = vec_width; j < width; ++j) {
      const float e = std::exp(row[j] - max[j]);
      if (!log) out[j] = e;
      sum[j] += e;
    }
  }
  // sum becomes the factor (softmax) or the shift (log-softmax) applied to each row.
  for (int64_t j = 0; j < width; ++j) sum[j] = log ? max[j] + std::log(sum[j]) : 1.0f / sum[j];
  for (int64_t k = 0; k < n; ++k) {
    const float* row = x + k * inner;
    float* out = y + k * inner;
    if (log) {
      for (int64_t j = 0; j < vec_width; j += lanes) {
        hn::StoreU(hn::Sub(hn::LoadU(d, row + j), hn::Load(d, sum + j)), d, out + j);
      }
      for (int64_t j = vec_width; j < width; ++j) out[j] = row[j] - sum[j];
    } else {
      for (int64_t j = 0; j < vec_width; j += lanes) {
        hn::StoreU(hn::Mul(hn::LoadU(d, out + j), hn::Load(d, sum + j)), d, out + j);
      }
      for (int64_t j = vec_width; j < width; ++j) out[j] *= sum[j];
    }
  }
}

}  // namespace kiln::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/thread_pool.h"

namespace kiln::cpu {

HWY_EXPORT(softmax_row);
HWY_EXPORT(softmax_tile);

namespace {
// Elements a parallel chunk should cover at least, so that small tensors run inline.
constexpr int64_t kMinChunkElements = 16384;
}  // namespace

void softmax_f32(const float* x, float* y, int64_t outer, int64_t n, int64_t inner, bool log) {
  if (outer <= 0 || n <= 0 || inner <= 0) return;
  if (inner == 1) {
    const auto row = HWY_DYNAMIC_DISPATCH(softmax_row);
    parallel_for(outer, std::max<int64_t>(1, kMinChunkElements / n), [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) row(x + o * n, y + o * n, n, log);
    });
    return;
  }
  const auto tile = HWY_DYNAMIC_DISPATCH(softmax_tile);
  constexpr int64_t kTile = kSoftmaxTile;
  const int64_t tiles = (inner + kTile - 1) / kTile;
  const int64_t slab = n * inner;
  parallel_for(outer * tiles, std::max<int64_t>(1, kMinChunkElements / (n * kTile)),
               [&](int64_t b, int64_t e) {
                 for (int64_t t = b; t < e; ++t) {
                   const int64_t o = t / tiles, i0 = (t % tiles) * kTile;
                   const int64_t width = std::min(kTile, inner - i0);
                   tile(x + o * slab + i0, y + o * slab + i0, n, inner, width, log);
                 }
               });
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE
